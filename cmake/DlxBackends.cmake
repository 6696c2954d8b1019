# DLX_CUDA and DLX_LEVEL_ZERO: AUTO | ON | OFF (empty means AUTO, which is what the rockspec
# passes when the user sets nothing).
#
# dlx 0.1 runs on the CPU only. The options exist now so that build scripts, the rockspec and
# users' command lines keep working when the backends arrive: AUTO (build the backend when its
# SDK is found) and OFF change nothing yet, ON stops with a clear message. The device registry in
# src/core/device.c is where a built backend will register.
foreach(backend IN ITEMS CUDA LEVEL_ZERO)
  set(DLX_${backend} AUTO CACHE STRING "Build the ${backend} backend: AUTO, ON or OFF")
  set_property(CACHE DLX_${backend} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${DLX_${backend}}" value)
  if(value STREQUAL "")
    set(value AUTO)
  endif()
  if(value MATCHES "^(ON|TRUE|YES|Y|1)$")
    message(FATAL_ERROR
      "DLX_${backend}=${DLX_${backend}}: the ${backend} backend is not built in dlx "
      "${PROJECT_VERSION}, which runs on the CPU only. Use DLX_${backend}=AUTO or OFF.")
  elseif(NOT value MATCHES "^(AUTO|OFF|FALSE|NO|N|0)$")
    message(FATAL_ERROR "DLX_${backend} must be AUTO, ON or OFF (got '${DLX_${backend}}')")
  endif()
  message(STATUS "dlx: ${backend} backend: not built (DLX_${backend}=${value}; "
                 "dlx ${PROJECT_VERSION} is CPU-only)")
endforeach()
