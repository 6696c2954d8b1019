/* create.h -- where a new tensor goes, from the options table of the creation functions, and a
 * new empty tensor (create.c). */
#ifndef DLX_LUA_CREATE_H
#define DLX_LUA_CREATE_H

#include "lua/tensor.h"

/* Where a new tensor goes, from an options table {dtype =, device =, usm =}. */
typedef struct dlxl_placement {
  int dtype; /* a dlx_dtype, or -1 when not given */
  DLDevice device;
  dlx_memory memory;
} dlxl_placement;
/* Reads the options table (or nil) at idx of the function fname; the device defaults to the
 * state's default device. */
void dlxl_checkplacement(lua_State *L, int idx, const char *fname, dlxl_placement *out);
/* Pushes a new uninitialised C-contiguous tensor, returns its userdata and its view in *view; src
 * (or NULL), a tensor the call reads, is checked again after a collection. */
dlxl_tensor *dlxl_pushempty(lua_State *L, const dlxl_tensor *src, const int64_t *shape,
                            int32_t ndim, dlx_dtype dtype, DLDevice device, dlx_memory memory,
                            dlx_tensor *view);

#endif
