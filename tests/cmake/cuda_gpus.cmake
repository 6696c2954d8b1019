# tests/cmake/cuda_gpus.cmake, the ctest cmake.cuda_gpus: how DLX_CUDA=AUTO decides whether a
# machine has a GPU, and for which architectures the kernels are built
# (cmake/DlxCudaGpus.cmake). The machines here have no NVIDIA driver, so the driver's
# nvidia-smi is played by small shell scripts that print what a real one prints for
# `--query-gpu=compute_cap --format=csv,noheader` (one line per GPU), or fail as it does
# without a driver. Run as: cmake -DWORK_DIR=<dir> -P tests/cmake/cuda_gpus.cmake
cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/DlxCudaGpus.cmake)
file(MAKE_DIRECTORY ${WORK_DIR})
set(failures 0)

# expect(<nvidia-smi output> <exit status> <expected architectures>)
function(expect output status expected)
  set(smi ${WORK_DIR}/nvidia-smi)
  file(WRITE ${smi} "#!/bin/sh\nprintf '${output}'\nexit ${status}\n")
  file(CHMOD ${smi} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  set(DLX_NVIDIA_SMI ${smi})
  dlx_cuda_gpu_architectures(got why)
  if(EXISTS /proc/driver/nvidia/gpus AND NOT expected)
    return() # a real driver lists GPUs here: the fallback would find them
  endif()
  if(NOT "${got}" STREQUAL "${expected}")
    message(SEND_ERROR "nvidia-smi printing '${output}' (exit ${status}): got '${got}' "
                       "(${why}), expected '${expected}'")
  else()
    message(STATUS "ok: '${output}' (exit ${status}) -> '${got}' (${why})")
  endif()
endfunction()

expect("9.0\\n" 0 "90-real;90-virtual") # an H100
expect("8.0\\n8.0\\n" 0 "80-real;80-virtual") # two A100s: one architecture
expect("8.6\\n9.0\\n7.5\\n" 0 "75-real;86-real;90-real;90-virtual") # mixed, newest PTX
expect("12.0\\n" 0 "120-real;120-virtual") # two-digit major
expect("" 0 "") # a driver without GPUs
expect("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\\n" 9 "")
expect("Field \"compute_cap\" is not a valid field to query.\\n" 2 "") # a driver before 2022

# Architectures that the toolkit's nvcc cannot build for are dropped (a stand-in nvcc that
# lists the codes of CUDA 13).
set(nvcc ${WORK_DIR}/nvcc)
file(WRITE ${nvcc} "#!/bin/sh\nprintf 'sm_75\\nsm_80\\nsm_86\\nsm_90\\nsm_100\\nsm_120\\n'\n")
file(CHMOD ${nvcc} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
set(archs 70-real 90-real 90-virtual)
dlx_cuda_keep_supported(archs ${nvcc} dropped)
if(NOT archs STREQUAL "90-real;90-virtual" OR NOT dropped STREQUAL "sm_70")
  message(SEND_ERROR "keep_supported: got '${archs}', dropped '${dropped}'")
endif()
set(archs 70-real 70-virtual)
dlx_cuda_keep_supported(archs ${nvcc} dropped)
if(archs OR NOT dropped STREQUAL "sm_70")
  message(SEND_ERROR "keep_supported of an old GPU alone: got '${archs}', dropped '${dropped}'")
endif()
