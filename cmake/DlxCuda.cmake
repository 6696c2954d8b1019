# The CUDA backend (src/cuda), DLX_CUDA = AUTO | ON | OFF: AUTO builds it when this machine has
# an NVIDIA GPU (a driver that shows one: cmake/DlxCudaGpus.cmake) and the CUDA toolkit (nvcc);
# ON builds it whenever the toolkit is found (CI does, so that the CUDA code always compiles).
#
# - Host code is C11 (src/cuda/*.c, calling the CUDA runtime's C API); kernels are CUDA C++
#   (src/cuda/*.cu), built for DLX_CUDA_ARCHITECTURES (CMake's CUDA_ARCHITECTURES syntax) when it
#   is set, else for the GPUs found here (plus PTX for newer ones), else (ON without a GPU) for
#   sm_80 and sm_90 plus PTX (compute_90). nvcc takes minutes per architecture.
# - Both are sources of dlx_core_objects, which then carries DLX_WITH_CUDA (for the backend list
#   in src/backends/builtin.c, and for tests/c/test_cuda.c) and the static CUDA runtime to every
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
  target_sources(dlx_core_objects PRIVATE ${host_sources} ${kernel_sources})
  set_target_properties(dlx_core_objects PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                                                    CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
  target_link_libraries(dlx_core_objects PRIVATE CUDA::toolkit) # the runtime's headers
  # Warnings (as errors with DLX_WERROR) for the host side of the kernels. --threads 0: nvcc
  # compiles the three targets of a file in parallel (the reduction kernels take minutes of CPU
  # time, mostly CUB's instantiations).
  set(cuda_options --threads=0 -Xcompiler=-Wall,-Wextra)
  if(DLX_WERROR)
    list(APPEND cuda_options -Xcompiler=-Werror --Werror=all-warnings)
  endif()
  target_compile_options(dlx_core_objects PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${cuda_options}>")
  # The elementwise, statistics, random and image kernels round as the CPU does: no multiply-adds
  # fused behind the code's back (lerp, complex products, Chan's merge of var, the resizes'
  # weighted sums; nvcc fuses by default).
  set_source_files_properties(${PROJECT_SOURCE_DIR}/src/cuda/elementwise_kernels.cu
                              ${PROJECT_SOURCE_DIR}/src/cuda/stats_kernels.cu
                              ${PROJECT_SOURCE_DIR}/src/cuda/random_kernels.cu
                              ${PROJECT_SOURCE_DIR}/src/cuda/image_kernels.cu
                              TARGET_DIRECTORY dlx_core_objects PROPERTIES COMPILE_OPTIONS --fmad=false)
  target_compile_definitions(dlx_core_objects PUBLIC DLX_WITH_CUDA)
  # The static runtime and what it needs; a host linking the installed libdlx.a names the
  # runtime by its path (the toolkit is not a dependency of dlx's CMake package).
  dlx_objects_link(BUILD CUDA::cudart_static stdc++
                   INSTALLED ${CUDA_cudart_static_LIBRARY} stdc++ ${CMAKE_DL_LIBS} rt pthread)
endfunction()

include(DlxCudaGpus)
dlx_auto_option(DLX_CUDA "Build the CUDA backend")
set(DLX_CUDA_ARCHITECTURES "$ENV{DLX_CUDA_ARCHITECTURES}" CACHE STRING
    "CUDA architectures of the kernels (e.g. 90-real;90-virtual); empty: the GPUs found here")
set(what cuda)
if(DLX_CUDA_MODE STREQUAL "OFF")
  dlx_auto_option_skip(DLX_CUDA ${what})
elseif(DLX_CUDA_MODE STREQUAL "AUTO" AND (DLX_SANITIZE OR DLX_TSAN OR DLX_FUZZ))
  dlx_auto_option_skip(DLX_CUDA ${what} "a sanitizer build")
else()
  # The GPU first: without one, AUTO need not even look for the toolkit.
  dlx_cuda_gpu_architectures(gpu_architectures gpu_why)
  if(DLX_CUDA_MODE STREQUAL "AUTO" AND NOT gpu_architectures)
    dlx_auto_option_skip(DLX_CUDA ${what} "${gpu_why}")
  else()
    dlx_cuda_find_toolkit(toolkit)
    if(NOT toolkit)
      dlx_auto_option_skip(DLX_CUDA ${what} "no CUDA toolkit found: install it, put nvcc on "
                           "PATH or pass -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc")
    else()
      if(DLX_CUDA_ARCHITECTURES)
        set(architectures ${DLX_CUDA_ARCHITECTURES})
        set(architectures_why "DLX_CUDA_ARCHITECTURES")
      elseif(gpu_architectures)
        set(architectures ${gpu_architectures})
        set(architectures_why "${gpu_why}")
        dlx_cuda_keep_supported(architectures ${CMAKE_CUDA_COMPILER} dropped)
        if(dropped)
          string(APPEND architectures_why ", and this nvcc cannot build for ${dropped}")
        endif()
      else()
        set(architectures 80-real 90-real 90-virtual)
        set(architectures_why "no GPU here: the default set")
      endif()
      if(NOT architectures)
        dlx_auto_option_skip(DLX_CUDA ${what} "${architectures_why}: set DLX_CUDA_ARCHITECTURES")
        return()
      endif()
      # Before enable_language: the targets made from here on start with these (those that
      # link dlx_core_objects link through CUDA's host linker); dlx_core_objects, made before,
      # is given them.
      set(CMAKE_CUDA_ARCHITECTURES ${architectures})
      enable_language(CUDA)
      dlx_cuda_build()
      set(DLX_WITH_CUDA ON)
      string(REPLACE ";" " " architectures "${architectures}")
      dlx_backend_summary(${what} "built (DLX_CUDA=${DLX_CUDA_MODE}): nvcc "
                          "${CMAKE_CUDA_COMPILER_VERSION}, kernels for ${architectures} "
                          "(${architectures_why}), static runtime")
    endif()
  endif()
endif()
