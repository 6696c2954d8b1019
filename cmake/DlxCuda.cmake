# The CUDA backend (src/cuda), after DLX_CUDA was checked by cmake/DlxBackends.cmake. Included at
# the end of the root CMakeLists.txt, once every target exists.
#
# - Host code is C11 (src/cuda/*.c, calling the CUDA runtime's C API); kernels are CUDA C++
#   (src/cuda/*.cu), built for sm_80 and sm_90 plus PTX (compute_90) for newer GPUs.
# - They form the object library dlx_cuda_objects, added to every target built from
#   dlx_objects (the module, libdlx, the C tests), which also get DLX_WITH_CUDA (the list of
#   backends, src/backends/builtin.c) and the static CUDA runtime: the module then loads on
#   machines without libcudart, and on those without a driver or GPU it reports no CUDA device.
# - Not with DLX_SANITIZE under AUTO: nvcc does not take the sanitizer flags, and ASan's shadow
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

# Every target of dir and its subdirectories built from dlx_objects' objects.
function(dlx_cuda_consumers dir out)
  set(found "")
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target ${targets})
    get_target_property(sources ${target} SOURCES)
    if(sources MATCHES "TARGET_OBJECTS:dlx_objects")
      list(APPEND found ${target})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir ${subdirs})
    dlx_cuda_consumers(${subdir} more)
    list(APPEND found ${more})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

function(dlx_cuda_build)
  find_package(CUDAToolkit REQUIRED)
  file(GLOB host_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.c)
  file(GLOB kernel_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.cu)
  add_library(dlx_cuda_objects OBJECT ${host_sources} ${kernel_sources})
  set_target_properties(dlx_cuda_objects PROPERTIES CUDA_ARCHITECTURES "80-real;90-real;90-virtual"
                                                    CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  target_include_directories(dlx_cuda_objects PRIVATE ${PROJECT_SOURCE_DIR}/include
                                                      ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(dlx_cuda_objects PRIVATE CUDA::toolkit)
  # Warnings (as errors with DLX_WERROR) for the C host code and the host side of the kernels.
  # --threads 0: nvcc compiles the three targets of a file in parallel (the reduction kernels
  # take minutes of CPU time, mostly CUB's instantiations).
  target_compile_options(dlx_cuda_objects PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--threads=0>)
  set(cuda_warnings -Xcompiler=-Wall,-Wextra)
  if(DLX_WERROR)
    list(APPEND cuda_warnings -Xcompiler=-Werror --Werror=all-warnings)
  endif()
  target_compile_options(dlx_cuda_objects PRIVATE $<$<COMPILE_LANGUAGE:C>:${DLX_WARNINGS}>
                                                  $<$<COMPILE_LANGUAGE:CUDA>:${cuda_warnings}>)

  target_compile_definitions(dlx_objects PRIVATE DLX_WITH_CUDA)
  dlx_cuda_consumers(${PROJECT_SOURCE_DIR} consumers)
  foreach(target ${consumers})
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:dlx_cuda_objects>)
    target_compile_definitions(${target} PRIVATE DLX_WITH_CUDA) # for tests/c/test_cuda.c
    # Linked by the C compiler: no device link step is needed (no relocatable device code).
    set_target_properties(${target} PROPERTIES LINKER_LANGUAGE C
                                               CUDA_ARCHITECTURES "80-real;90-real;90-virtual")
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      # Hosts linking the installed libdlx.a need the static runtime too (absolute path: the
      # toolkit is not a dependency of dlx's CMake package).
      target_link_libraries(${target} INTERFACE $<BUILD_INTERFACE:CUDA::cudart_static>
                            $<INSTALL_INTERFACE:${CUDA_cudart_static_LIBRARY}> stdc++ dl rt pthread)
    else()
      target_link_libraries(${target} PRIVATE CUDA::cudart_static stdc++)
    endif()
  endforeach()
  set(DLX_WITH_CUDA ON PARENT_SCOPE)
endfunction()

# dlx-runner (tools/), before the targets are scanned: it is built from dlx_objects too.
if(DLX_BUILD_TESTS)
  add_subdirectory(${PROJECT_SOURCE_DIR}/tools ${PROJECT_BINARY_DIR}/tools)
endif()

if(DLX_CUDA_MODE STREQUAL "OFF")
  message(STATUS "dlx: CUDA backend: not built (DLX_CUDA=OFF)")
elseif(DLX_SANITIZE AND DLX_CUDA_MODE STREQUAL "AUTO")
  message(STATUS "dlx: CUDA backend: not built (DLX_SANITIZE; set DLX_CUDA=ON to force it)")
else()
  dlx_cuda_find_toolkit(toolkit)
  if(toolkit)
    enable_language(CUDA)
    dlx_cuda_build()
    message(STATUS "dlx: CUDA backend: built with ${CMAKE_CUDA_COMPILER} "
                   "(${CMAKE_CUDA_COMPILER_VERSION}), sm_80 sm_90 + PTX, static runtime")
  elseif(DLX_CUDA_MODE STREQUAL "ON")
    message(FATAL_ERROR "DLX_CUDA=ON but no CUDA toolkit was found: install it, put nvcc on PATH "
                        "or pass -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc")
  else()
    message(STATUS "dlx: CUDA backend: not built (no CUDA toolkit found; DLX_CUDA=AUTO)")
  endif()
endif()
