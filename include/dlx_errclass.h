/*
 * dlx_errclass.h -- the classes of dlx's errors, shared by the host API (dlx.h) and dlx's
 * Lua-free core. Plain C: no Lua, no DLPack.
 *
 * A host function of dlx.h returns DLX_OK or one of these. The Lua error messages that dlx
 * raises start with the class's name ("ValueError: ..."), after Lua's position prefix.
 */
#ifndef DLX_ERRCLASS_H
#define DLX_ERRCLASS_H

typedef enum dlx_errclass {
  DLX_OK = 0,
  DLX_TYPE_ERROR,   /* TypeError: wrong dtype or wrong kind of value */
  DLX_VALUE_ERROR,  /* ValueError: right type, bad value (shape, index, dim, stream, closed) */
  DLX_BUFFER_ERROR, /* BufferError: the data cannot be described or exchanged through DLPack */
  DLX_DEVICE_ERROR, /* DeviceError: a device that is absent, or a backend failure */
  DLX_MEMORY_ERROR, /* MemoryError: an allocation failed (dlx's, or Lua's own) */
  DLX_LUA_ERROR,    /* an error without a dlx class: one that Lua code raised with error(), or an
                       error value that is not a string. The core never returns it. */
  DLX_OS_ERROR,     /* OSError: the operating system refused a file operation (open, read, write) */
  DLX_LINALG_ERROR  /* LinAlgError: a matrix that has no such decomposition (singular, not positive
                       definite) or one that did not converge (dlx.linalg) */
} dlx_errclass;

#endif
