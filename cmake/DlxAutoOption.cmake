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

# dlx_auto_option_skip(<var> <what> <why>...): <what> is not built, for the reason <why> (the
# arguments joined). Under ON that stops the configuration; under AUTO and OFF it is one status
# line.
function(dlx_auto_option_skip var what)
  string(JOIN "" why ${ARGN})
  if(${var}_MODE STREQUAL "ON")
    message(FATAL_ERROR "${var}=ON, but ${what} cannot be built: ${why}")
  elseif(${var}_MODE STREQUAL "OFF")
    message(STATUS "dlx: ${what}: not built (${var}=OFF)")
  else()
    message(STATUS "dlx: ${what}: not built (${var}=AUTO; ${why})")
  endif()
endfunction()
