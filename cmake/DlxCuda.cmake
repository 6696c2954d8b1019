# The CUDA backend (src/cuda), DLX_CUDA = AUTO | ON | OFF: AUTO builds it when the CUDA toolkit
# (nvcc) is found.
#
# - Host code is C11 (src/cuda/*.c, calling the CUDA runtime's C API); kernels are CUDA C++
#   (src/cuda/*.cu), built for sm_80 and sm_90 plus PTX (compute_90) for newer GPUs.
# - Both are sources of dlx_objects, which then carries DLX_WITH_CUDA (for the backend list in
#   src/backends/builtin.c, and for tests/c/test_cuda.c) and the static CUDA runtime to every
#   target that links it: the module loads on machines without libcudart, and on those without
#   a driver or GPU it reports no CUDA device. No device link step is needed (no relocatable device code).
# - Not in sanitizer builds under AUTO: nvcc does not take the sanitizer flags, and ASan's shadow
#   memory collides with the CUDA driver's mappings.
set(DLX_WITH_CUDA OFF)

function(dlx_cuda_find_toolkit out)
  set(${out} OFF PARENT_SCOPE)
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(DLX_NVCC nvcc HINTS ENV CUDA_PATH PATH_SUFFIXES bin
                 PATHS /usr/local/cuda/bin /opt/cuda/bin)
    if(DLX_NVCC)
      set(CMAKE_CUDA_COMPILER ${DLX_NVCC} CACHE FILEPATH "CUDA compiler")
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(${out} ON PARENT_SCOPE)
  endif()
endfunction()

function(dlx_cuda_build)
  find_package(CUDAToolkit REQUIRED)
  file(GLOB host_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.c)
  file(GLOB kernel_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.cu)
  target_sources(dlx_objects PRIVATE ${host_sources} ${kernel_sources})
  set_target_properties(dlx_objects PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                                               CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
  target_link_libraries(dlx_objects PRIVATE CUDA::toolkit) # the runtime's headers
  # Warnings (as errors with DLX_WERROR) for the host side of the kernels. --threads 0: nvcc
  # compiles the three targets of a file in parallel (the reduction kernels take minutes of CPU
  # time, mostly CUB's instantiations).
  set(cuda_options --threads=0 -Xcompiler=-Wall,-Wextra)
  if(DLX_WERROR)
    list(APPEND cuda_options -Xcompiler=-Werror --Werror=all-warnings)
  endif()
  target_compile_options(dlx_objects PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${cuda_options}>")
  # The elementwise and statistics kernels round as the CPU does: no multiply-adds fused behind
  # the code's back (lerp, complex products, Chan's merge of var; nvcc fuses by default).
  set_source_files_properties(${PROJECT_SOURCE_DIR}/src/cuda/elementwise_kernels.cu
                              ${PROJECT_SOURCE_DIR}/src/cuda/stats_kernels.cu
                              ${PROJECT_SOURCE_DIR}/src/cuda/random_kernels.cu
                              TARGET_DIRECTORY dlx_objects PROPERTIES COMPILE_OPTIONS --fmad=false)
  target_compile_definitions(dlx_objects PUBLIC DLX_WITH_CUDA)
  # The static runtime and what it needs; a host linking the installed libdlx.a names the
  # runtime by its path (the toolkit is not a dependency of dlx's CMake package).
  dlx_objects_link(BUILD CUDA::cudart_static stdc++
                   INSTALLED ${CUDA_cudart_static_LIBRARY} stdc++ ${CMAKE_DL_LIBS} rt pthread)
endfunction()

dlx_auto_option(DLX_CUDA "Build the CUDA backend")
set(what "CUDA backend")
if(DLX_CUDA_MODE STREQUAL "OFF")
  dlx_auto_option_skip(DLX_CUDA "${what}")
elseif(DLX_CUDA_MODE STREQUAL "AUTO" AND (DLX_SANITIZE OR DLX_TSAN OR DLX_FUZZ))
  dlx_auto_option_skip(DLX_CUDA "${what}" "a sanitizer build: DLX_CUDA=ON forces it")
else()
  dlx_cuda_find_toolkit(toolkit)
  if(toolkit)
    # Before enable_language: the targets made from here on start with these (those that link
    # dlx_objects link through CUDA's host linker); dlx_objects, made before, is given them.
    set(CMAKE_CUDA_ARCHITECTURES 80-real 90-real 90-virtual)
    enable_language(CUDA)
    dlx_cuda_build()
    set(DLX_WITH_CUDA ON)
    message(STATUS "dlx: CUDA backend: built with ${CMAKE_CUDA_COMPILER} "
                   "(${CMAKE_CUDA_COMPILER_VERSION}), sm_80 sm_90 + PTX, static runtime")
  else()
    dlx_auto_option_skip(DLX_CUDA "${what}" "no CUDA toolkit found: install it, put nvcc on "
                         "PATH or pass -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc")
  endif()
endif()
