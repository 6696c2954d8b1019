/* result.h -- a core call that makes a new tensor, the step most binding functions end with
 * (result.c): the closed userdata of the result pushed first (so that an error at any point
 * leaks nothing), the call retried once after a MemoryError, then its error raised or its result
 * moved into the userdata, and the new bytes reported to the collector:
 *
 *   dlxl_result r;
 *   int rc;
 *   dlxl_result_begin(L, &r, t->ndim, lua_touserdata(L, 1));
 *   do rc = dlx_reduce(&r.made, op, t, dims, keepdim, &r.err);
 *   while (dlxl_result_retry(L, &r, rc));
 *   return dlxl_result_push(L, &r, rc);
 *
 * A call that allocates nothing (a view) runs once, and its result holds no new bytes:
 *   dlxl_result_set(L, &r, dlx_transpose(&r.made, t, d1, d2, &r.err)); */
#ifndef DLX_LUA_RESULT_H
#define DLX_LUA_RESULT_H

#include "lua/tensor.h"

typedef struct dlxl_result {
  dlxl_tensor *u;         /* the closed userdata pushed for the result */
  const dlxl_tensor *src; /* a tensor the call reads, checked again after a collection, or NULL */
  dlx_tensor made;        /* what the core call made */
  dlx_error err;          /* or why it failed */
  bool retried;
} dlxl_result;

/* Pushes the closed userdata for a result of at most room dims. */
void dlxl_result_begin(lua_State *L, dlxl_result *r, int32_t room, const dlxl_tensor *src);
/* After the core call returned rc: true when it should run once more (dlxl_reclaim). */
bool dlxl_result_retry(lua_State *L, dlxl_result *r, int rc);
/* Raises r->err when rc is not 0, else moves r->made into the userdata, and returns it. The
 * bytes are not reported: for views, and for tensors the caller fills before it reports them. */
dlxl_tensor *dlxl_result_set(lua_State *L, dlxl_result *r, int rc);
/* dlxl_result_set, then the result's bytes reported to the collector; returns 1 (the result is
 * the value on top of the stack when nothing was pushed after dlxl_result_begin). */
int dlxl_result_push(lua_State *L, dlxl_result *r, int rc);

/* Pushes a new uninitialised C-contiguous tensor, returns its userdata and its view in *view
 * (written only on success); src (or NULL), a tensor the call reads, is checked again after a
 * collection. The bytes are not reported: the caller fills the tensor, then reports them. */
dlxl_tensor *dlxl_pushempty(lua_State *L, const dlxl_tensor *src, const int64_t *shape,
                            int32_t ndim, dlx_dtype dtype, DLDevice device, dlx_memory memory,
                            dlx_tensor *view);

#endif
