/* error.c -- formatting core errors. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>

int dlx_fail(dlx_error *err, dlx_errclass code, const char *fmt, ...) {
  if (err != NULL) {
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return (int)code;
}

const char *dlx_errclass_name(dlx_errclass code) {
  switch (code) {
  case DLX_OK:
    return "OK";
  case DLX_TYPE_ERROR:
    return "TypeError";
  case DLX_VALUE_ERROR:
    return "ValueError";
  case DLX_BUFFER_ERROR:
    return "BufferError";
  case DLX_DEVICE_ERROR:
    return "DeviceError";
  case DLX_MEMORY_ERROR:
    return "MemoryError";
  case DLX_LUA_ERROR:
    return "LuaError";
  case DLX_OS_ERROR:
    return "OSError";
  case DLX_LINALG_ERROR:
    return "LinAlgError";
  }
  return "Error";
}
