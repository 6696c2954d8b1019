# OpenMP threads for the CPU kernels (src/cpu/parallel.c). Included at the end of the root
# CMakeLists.txt, once every target exists: the kernels live in dlx_objects, whose objects are
# linked into the module, libdlx and each C test, so each target whose sources name those
# objects links the OpenMP runtime too.
# Without OpenMP (a compiler with no runtime installed) the kernels run single-threaded.
# Off by default in sanitizer builds: there the Lua-hosted tests run core.so in a plain lua5.4
# with the ASan runtime preloaded, where LeakSanitizer fails fatally at exit once clang's OpenMP
# runtime is loaded. The thread tests (tests/c/test_cpu_paths.c) run in the normal build.
if(DLX_SANITIZE)
  set(dlx_openmp_default OFF)
else()
  set(dlx_openmp_default ON)
endif()
option(DLX_OPENMP "Run large CPU kernels on several threads with OpenMP" ${dlx_openmp_default})

function(dlx_link_openmp target)
  if(TARGET ${target} AND DLX_OPENMP_FOUND)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      # A host linking the installed libdlx.a needs the runtime as well (libgomp for gcc).
      target_link_libraries(${target} INTERFACE $<BUILD_INTERFACE:OpenMP::OpenMP_C>
                                                $<INSTALL_INTERFACE:${DLX_OPENMP_LIBS}>)
    else()
      target_link_libraries(${target} PRIVATE OpenMP::OpenMP_C)
      if(type STREQUAL "MODULE_LIBRARY" OR type STREQUAL "SHARED_LIBRARY")
        # Never unloaded (-z nodelete): lua_close dlcloses C modules, and the OpenMP runtime that
        # goes with this library would be unmapped under its own idle worker threads, which then
        # crash the process as it exits.
        target_link_options(${target} PRIVATE -Wl,-z,nodelete)
      endif()
    endif()
  endif()
endfunction()

# Every target of dir and its subdirectories built from dlx_objects' objects.
function(dlx_link_openmp_in_dir dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target ${targets})
    get_target_property(sources ${target} SOURCES)
    if(sources MATCHES "TARGET_OBJECTS:dlx_objects")
      dlx_link_openmp(${target})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir ${subdirs})
    dlx_link_openmp_in_dir(${subdir})
  endforeach()
endfunction()

set(DLX_OPENMP_FOUND OFF)
if(DLX_OPENMP)
  find_package(OpenMP COMPONENTS C)
  if(OpenMP_C_FOUND)
    set(DLX_OPENMP_FOUND ON)
    set(DLX_OPENMP_LIBS ${OpenMP_C_LIB_NAMES})
    target_compile_options(dlx_objects PRIVATE ${OpenMP_C_FLAGS})
    # The module, libdlx, the C tests and whatever else links the objects.
    dlx_link_openmp_in_dir(${PROJECT_SOURCE_DIR})
    if(DLX_BUILD_HOST_LIBS) # a static link against libdlx.a needs the runtime too
      set(DLX_PC_PRIVATE_LIBS " ${OpenMP_C_FLAGS}")
      configure_file(${PROJECT_SOURCE_DIR}/cmake/dlx.pc.in ${PROJECT_BINARY_DIR}/dlx.pc @ONLY)
    endif()
  else()
    message(STATUS "OpenMP not found: the CPU kernels run on one thread")
  endif()
endif()
