/* values.h -- Lua values <-> dlx_scalar and nested tables (values.c). */
#ifndef DLX_LUA_VALUES_H
#define DLX_LUA_VALUES_H

#include "lua/binding.h"

void dlxl_checkscalar(lua_State *L, int idx, dlx_scalar *out);
void dlxl_pushscalar(lua_State *L, const dlx_scalar *value);
/* Pushes a tensor from the nested Lua data at idx (dlx.tensor); dtype -1 infers it. */
void dlxl_pushdata(lua_State *L, int idx, int dtype, DLDevice device, dlx_memory memory);
/* The dtype dlx.tensor and dlx.full infer for values of this kind. */
dlx_dtype dlxl_default_dtype(dlx_kind kind);
/* A writable pointer to the first element of a fresh host tensor. */
void *dlxl_hostdata(const dlx_tensor *t);
/* Replaces the fresh host tensor `wide` (on the stack at idx) with a tensor of dtype on device,
 * in memory of that kind: pushes it, or pushes the same userdata again when nothing changes. */
void dlxl_pushconverted(lua_State *L, int idx, dlx_dtype dtype, DLDevice device, dlx_memory memory);

#endif
