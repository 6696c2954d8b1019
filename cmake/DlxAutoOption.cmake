# Options that are AUTO, ON or OFF (DLX_CUDA, DLX_LEVEL_ZERO): AUTO builds a part when what it
# needs is found and quietly skips it otherwise, ON requires it, OFF skips it.

# dlx_auto_option(<var> <doc>): the cache variable <var> (default AUTO, or the environment
# variable of the same name) and <var>_MODE, its value as AUTO, ON or OFF. An empty value means
# AUTO: it is what the rockspec passes when the user sets nothing.
function(dlx_auto_option var doc)
  if(DEFINED ENV{${var}})
    set(default $ENV{${var}})
  else()
    set(default AUTO)
  endif()
  set(${var} ${default} CACHE STRING "${doc}: AUTO, ON or OFF")
  set_property(CACHE ${var} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${${var}}" mode)
  if(mode STREQUAL "" OR mode STREQUAL "AUTO")
    set(mode AUTO)
  elseif(mode MATCHES "^(ON|TRUE|YES|Y|1)$")
    set(mode ON)
  elseif(mode MATCHES "^(OFF|FALSE|NO|N|0)$")
    set(mode OFF)
  else()
    message(FATAL_ERROR "${var} must be AUTO, ON or OFF (got '${${var}}')")
  endif()
  set(${var}_MODE ${mode} PARENT_SCOPE)
endfunction()

# dlx_backend_summary(<name> <text>...): one line of the configure summary that the root
# CMakeLists.txt prints at its end (dlx_print_backend_summary): which backend is built and why.
function(dlx_backend_summary name)
  string(JOIN "" text ${ARGN})
  set_property(GLOBAL APPEND PROPERTY DLX_BACKEND_SUMMARY "${name}|${text}")
endfunction()

function(dlx_print_backend_summary)
  get_property(lines GLOBAL PROPERTY DLX_BACKEND_SUMMARY)
  message(STATUS "dlx backends:")
  foreach(line IN LISTS lines)
    string(FIND "${line}" "|" bar)
    string(SUBSTRING "${line}" 0 ${bar} name)
    math(EXPR bar "${bar} + 1")
    string(SUBSTRING "${line}" ${bar} -1 text)
    string(LENGTH "${name}" length)
    math(EXPR pad "11 - ${length}")
    string(REPEAT " " ${pad} spaces)
    message(STATUS "  ${name}${spaces}${text}")
  endforeach()
endfunction()

# dlx_auto_option_skip(<var> <name> <why>...): the backend <name> is not built, for the reason
# <why> (the arguments joined). Under ON that stops the configuration; under AUTO and OFF it is
# its line of the configure summary.
function(dlx_auto_option_skip var name)
  string(JOIN "" why ${ARGN})
  if(${var}_MODE STREQUAL "ON")
    message(FATAL_ERROR "${var}=ON, but the ${name} backend cannot be built: ${why}")
  elseif(${var}_MODE STREQUAL "OFF")
    dlx_backend_summary(${name} "not built (${var}=OFF)")
  else()
    dlx_backend_summary(${name} "not built (${var}=AUTO): ${why}")
  endif()
endfunction()

# dlx_suite_skipped(<what> <why>...): a test suite that is not registered in this build and why
# (a peer not installed, a backend not built). Written at the end of the configuration to
# <build>/skipped-suites.txt (dlx_write_skipped_suites), where scripts/test reads it to say in
# its last line what it did not run.
function(dlx_suite_skipped what)
  string(JOIN "" why ${ARGN})
  message(STATUS "dlx: ${what} not registered: ${why}")
  set_property(GLOBAL APPEND PROPERTY DLX_SKIPPED_SUITES "${what}: ${why}")
endfunction()

function(dlx_write_skipped_suites)
  get_property(lines GLOBAL PROPERTY DLX_SKIPPED_SUITES)
  list(JOIN lines "\n" text)
  file(WRITE ${PROJECT_BINARY_DIR}/skipped-suites.txt "${text}\n")
endfunction()
