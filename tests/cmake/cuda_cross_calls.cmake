# tests/cmake/cuda_cross_calls.cmake, the ctest cmake.cuda_cross_calls: no host code of the CUDA
# kernels (src/cuda/*.cu) calls a __device__ function. nvcc compiles such a call made in a
# template (a CUB reduction's initial value, say) without a word, to a host stub that calls
# exit(1): the process would end at the first such call on a machine with a GPU. clang's CUDA
# front end refuses the call ("reference to __device__ function ... in __host__ function"), so
# clang checks the host side of every file (-fsyntax-only; clang's other complaints about the
# toolkit's headers, which it does not support in full, are not this test's business). A file
# with such a call, written here, must be caught first, so that the check is known to work.
# (Calls the other way, device code calling host functions, are nvcc's own errors.)
# Run as: cmake -DCLANG=<clang++ 16 or later> -DCUDA_PATH=<toolkit> -DSOURCE_DIR=<repo>
#               -DWORK_DIR=<dir> -P tests/cmake/cuda_cross_calls.cmake
cmake_minimum_required(VERSION 3.20)
file(MAKE_DIRECTORY ${WORK_DIR}/stubs)
# clang's CUDA wrapper includes two headers that CUDA 12 dropped; empty ones stand in.
file(WRITE ${WORK_DIR}/stubs/texture_fetch_functions.h "")
file(WRITE ${WORK_DIR}/stubs/texture_indirect_functions.h "")

# The cross-space calls clang finds in the host side of `file`, into `out` (a list of lines).
function(cross_calls file out)
  execute_process(
    COMMAND ${CLANG} -x cuda --cuda-host-only --cuda-path=${CUDA_PATH} --cuda-gpu-arch=sm_90
            -Wno-unknown-cuda-version -std=c++17 -ferror-limit=0 -fsyntax-only
            -I${WORK_DIR}/stubs -I${CUDA_PATH}/include/cccl -I${SOURCE_DIR}/src ${file}
    ERROR_VARIABLE diagnostics OUTPUT_QUIET RESULT_VARIABLE status)
  string(REGEX MATCHALL "[^\n]*reference to __device__ function[^\n]*" found "${diagnostics}")
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

set(planted ${WORK_DIR}/planted.cu)
file(WRITE ${planted}
     "template <typename V> struct Sum { __device__ static V identity() { return (V)0; } };\n"
     "template <class Op> int first() { return (int)Op::identity(); }\n"
     "int run() { return first<Sum<int> >(); }\n")
cross_calls(${planted} found)
if(NOT found)
  message(FATAL_ERROR "${CLANG} does not report a host call of a __device__ function in "
                      "${planted}: the check cannot work with it")
endif()

file(GLOB kernels ${SOURCE_DIR}/src/cuda/*.cu)
foreach(kernel ${kernels})
  cross_calls(${kernel} found)
  if(found)
    list(REMOVE_DUPLICATES found)
    string(REPLACE ";" "\n" found "${found}")
    message(SEND_ERROR "host code calls device code (nvcc makes it exit(1)):\n${found}")
  else()
    message(STATUS "ok: ${kernel}")
  endif()
endforeach()
