/* error.h -- errors of the C core: a class (mapped to TypeError, ValueError, ...) and a message.
 * Core functions return 0 on success or the class on failure, and fill the caller's dlx_error.
 * There is no global error state: the caller owns the dlx_error. */
#ifndef DLX_CORE_ERROR_H
#define DLX_CORE_ERROR_H

#include "dlx_errclass.h" /* the classes, public: hosts get them from dlx.h */

typedef struct dlx_error {
  dlx_errclass code;
  char message[320];
} dlx_error;

/* Records the error in err (when err is not NULL) and returns code. */
int dlx_fail(dlx_error *err, dlx_errclass code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* "TypeError", "ValueError", "BufferError", "DeviceError", "MemoryError", "OSError",
 * "LinAlgError";
 * "LuaError" for DLX_LUA_ERROR. */
const char *dlx_errclass_name(dlx_errclass code);

#endif
