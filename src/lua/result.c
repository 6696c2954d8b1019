/* result.c -- a core call that makes a new tensor (result.h), and the new empty tensor that
 * creation, joining and construction fill. */
#include "lua/result.h"

#include "lua/errors.h"
#include "lua/memory.h"
#include "lua/tensor.h"

void dlxl_result_begin(lua_State *L, dlxl_result *r, int32_t room, const dlxl_tensor *src) {
  r->u = dlxl_newtensor(L, room);
  r->src = src;
  r->retried = false;
}

bool dlxl_result_retry(lua_State *L, dlxl_result *r, int rc) {
  return dlxl_reclaim(L, rc, &r->retried, r->src);
}

dlxl_tensor *dlxl_result_set(lua_State *L, dlxl_result *r, int rc) {
  dlxl_check(L, rc, &r->err);
  dlxl_settensor(L, r->u, &r->made);
  return r->u;
}

int dlxl_result_push(lua_State *L, dlxl_result *r, int rc) {
  dlxl_result_set(L, r, rc);
  dlxl_gcdebt(L, dlx_tensor_nbytes(&r->made));
  return 1;
}

dlxl_tensor *dlxl_pushempty(lua_State *L, const dlxl_tensor *src, const int64_t *shape,
                            int32_t ndim, dlx_dtype dtype, DLDevice device, dlx_memory memory,
                            dlx_tensor *view) {
  dlxl_result r;
  int rc;
  dlxl_result_begin(L, &r, ndim, src);
  do rc = dlx_tensor_empty_memory(&r.made, shape, ndim, dtype, device, memory, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  dlxl_result_set(L, &r, rc);
  *view = r.made; /* only now: after a failure the userdata stays closed, and view unwritten */
  return r.u;
}
