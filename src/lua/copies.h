/* copies.h -- copies of a tensor (copies.c). */
#ifndef DLX_LUA_COPIES_H
#define DLX_LUA_COPIES_H

#include "lua/tensor.h"

/* Pushes a C-contiguous copy of t (a view of u) as dtype on device, in the kind of memory t is
 * in when the device is t's. */
int dlxl_pushclone(lua_State *L, const dlxl_tensor *u, const dlx_tensor *t, dlx_dtype dtype,
                   DLDevice device);

#endif
