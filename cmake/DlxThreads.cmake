# Threads for the CPU kernels (src/cpu/parallel.c: a pool of POSIX threads), as usage
# requirements of dlx_core_objects: DLX_WITH_THREADS is defined for its sources, and every target
# that links dlx_core_objects links the threads library. Without it the kernels run on one thread.
option(DLX_THREADS "Run large CPU kernels on several threads" ON)

set(DLX_WITH_THREADS OFF)
if(DLX_THREADS)
  set(THREADS_PREFER_PTHREAD_FLAG ON)
  find_package(Threads)
  if(CMAKE_USE_PTHREADS_INIT)
    set(DLX_WITH_THREADS ON)
    target_compile_definitions(dlx_core_objects PRIVATE DLX_WITH_THREADS=1)
    dlx_objects_link(BUILD Threads::Threads INSTALLED pthread)
    # A shared object with these objects is never unloaded (-z nodelete): lua_close dlcloses C
    # modules, and the pool's idle workers, asleep in the library's code, would be left with
    # their code and their condition variable unmapped under them.
    set(type $<TARGET_PROPERTY:TYPE>)
    target_link_options(dlx_core_objects INTERFACE
      $<$<OR:$<STREQUAL:${type},MODULE_LIBRARY>,$<STREQUAL:${type},SHARED_LIBRARY>>:-Wl,-z,nodelete>)
  else()
    message(STATUS "dlx: no POSIX threads: the CPU kernels run on one thread")
  endif()
endif()
if(DLX_WITH_THREADS)
  dlx_backend_summary(cpu "built (always), its kernels on a pool of POSIX threads")
else()
  dlx_backend_summary(cpu "built (always), its kernels on one thread (DLX_THREADS or no pthreads)")
endif()
