# DLX_CUDA: AUTO | ON | OFF (empty means AUTO, which is what the rockspec passes when the user
# sets nothing). The value is checked here, before any target exists; cmake/DlxCuda.cmake,
# included from the root once the targets exist, builds the backend: AUTO builds it when the
# CUDA toolkit (nvcc) is found, ON requires it, OFF skips it.
# DLX_LEVEL_ZERO: cmake/DlxLevelZero.cmake, included from the root once the targets exist.
# The environment variable DLX_CUDA gives the default (CI builds CUDA once, in its own step).
if(DEFINED ENV{DLX_CUDA})
  set(DLX_CUDA $ENV{DLX_CUDA} CACHE STRING "Build the CUDA backend: AUTO, ON or OFF")
else()
  set(DLX_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO, ON or OFF")
endif()
set_property(CACHE DLX_CUDA PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${DLX_CUDA}" DLX_CUDA_MODE)
if(DLX_CUDA_MODE STREQUAL "")
  set(DLX_CUDA_MODE AUTO)
elseif(DLX_CUDA_MODE MATCHES "^(ON|TRUE|YES|Y|1)$")
  set(DLX_CUDA_MODE ON)
elseif(DLX_CUDA_MODE MATCHES "^(OFF|FALSE|NO|N|0)$")
  set(DLX_CUDA_MODE OFF)
elseif(NOT DLX_CUDA_MODE STREQUAL "AUTO")
  message(FATAL_ERROR "DLX_CUDA must be AUTO, ON or OFF (got '${DLX_CUDA}')")
endif()
