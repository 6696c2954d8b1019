/* reductions.h -- the reductions over dims, t:op([dims[, keepdim]]) (reductions.c). */
#ifndef DLX_LUA_REDUCTIONS_H
#define DLX_LUA_REDUCTIONS_H

#include "lua/binding.h"

/* A core reduction over a bitmask of dims that is not one of dlx_reduce's ops (dlx_nansum). */
typedef int (*dlxl_reduce_fn)(dlx_tensor *out, const dlx_tensor *src, uint64_t dims, bool keepdim,
                              dlx_error *err);

/* t:op([dims[, keepdim]]) as t:sum reads them (the tensor at 1, a dim or a list of dims, nil for
 * all, then keepdim); pushes fn's result. */
int dlxl_reduce_dims(lua_State *L, dlxl_reduce_fn fn);

#endif
