# OpenMP threads for the CPU kernels (src/cpu/parallel.c), as usage requirements of dlx_objects:
# its sources compile with OpenMP, and every target that links dlx_objects links the runtime.
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

set(DLX_WITH_OPENMP OFF)
if(DLX_OPENMP)
  find_package(OpenMP COMPONENTS C)
  if(OpenMP_C_FOUND)
    set(DLX_WITH_OPENMP ON)
    target_link_libraries(dlx_objects PRIVATE OpenMP::OpenMP_C) # compiles with -fopenmp
    dlx_objects_link(BUILD $<LINK_ONLY:OpenMP::OpenMP_C> INSTALLED ${OpenMP_C_LIB_NAMES})
    # A shared object with these objects is never unloaded (-z nodelete): lua_close dlcloses C
    # modules, and the OpenMP runtime that goes with the library would be unmapped under its
    # own idle worker threads, which then crash the process as it exits.
    set(type $<TARGET_PROPERTY:TYPE>)
    target_link_options(dlx_objects INTERFACE
      $<$<OR:$<STREQUAL:${type},MODULE_LIBRARY>,$<STREQUAL:${type},SHARED_LIBRARY>>:-Wl,-z,nodelete>)
  else()
    message(STATUS "dlx: OpenMP not found: the CPU kernels run on one thread")
  endif()
endif()
