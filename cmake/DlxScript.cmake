# Helpers for the cmake -P scripts of the test suite (cmake/TestInstall.cmake,
# tests/interop/libtorch_host.cmake).

# Stops the script unless every named variable was passed with -D.
function(dlx_require_vars script)
  foreach(var ${ARGN})
    if(NOT DEFINED ${var})
      message(FATAL_ERROR "${script}: ${var} is not set")
    endif()
  endforeach()
endfunction()

# Runs a command, echoing it; stops the script when it fails.
function(run)
  string(JOIN " " line ${ARGN})
  message(STATUS "+ ${line}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${line}")
  endif()
endfunction()
