# Runs a Lua process that exits right after a multi-threaded kernel, 20 times (ctest
# module.exit_after_threads, cmake/DlxTests.cmake): lua_close unloads dlx/core.so, whose code
# must not be unmapped under the kernels' idle pool threads. Before dlx linked with
# -z nodelete, about half of such runs crashed on exit.
#   cmake -DLUA=lua5.4 -DSRC=<source dir> -DBIN=<build dir> -P cmake/ExitAfterThreads.cmake
set(script "local dlx = require 'dlx'; assert(dlx.ones(1 << 22):sum():item() == 1 << 22)")
foreach(run RANGE 1 20)
  execute_process(COMMAND ${LUA} -e "package.path = '${SRC}/lua/?.lua;${SRC}/lua/?/init.lua'"
                          -e "package.cpath = '${BIN}/?.so'" -e "${script}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run ${run}: lua exited with ${rc}")
  endif()
endforeach()
message(STATUS "20 runs exited cleanly")
