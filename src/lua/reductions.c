/* reductions.c -- t:sum(dims, keepdim) and the other reductions. dims is nil (all), a dim or a
 * list of dims; reducing every dim without keepdim gives a 0-d tensor. */
#include "lua/binding.h"

static int reduce(lua_State *L, dlx_reduce_op op) {
  const dlx_tensor *t = dlxl_checktensor(L, 1);
  uint64_t dims = dlxl_checkdims(L, 2, t->ndim);
  bool keepdim = dlxl_optboolean(L, 3, "keepdim");
  dlx_tensor *out = dlxl_newtensor(L); /* dlx_reduce writes it only on success */
  dlx_error err;
  bool retried = false;
  int rc;
  do rc = dlx_reduce(out, op, t, dims, keepdim, &err);
  while (dlxl_reclaim(L, rc, &retried, t));
  dlxl_check(L, rc, &err);
  dlxl_gcdebt(L, dlx_tensor_nbytes(out));
  return 1;
}

static int tensor_sum(lua_State *L) { return reduce(L, DLX_REDUCE_SUM); }
static int tensor_prod(lua_State *L) { return reduce(L, DLX_REDUCE_PROD); }
static int tensor_mean(lua_State *L) { return reduce(L, DLX_REDUCE_MEAN); }
static int tensor_min(lua_State *L) { return reduce(L, DLX_REDUCE_MIN); }
static int tensor_max(lua_State *L) { return reduce(L, DLX_REDUCE_MAX); }
static int tensor_argmin(lua_State *L) { return reduce(L, DLX_REDUCE_ARGMIN); }
static int tensor_argmax(lua_State *L) { return reduce(L, DLX_REDUCE_ARGMAX); }
static int tensor_all(lua_State *L) { return reduce(L, DLX_REDUCE_ALL); }
static int tensor_any(lua_State *L) { return reduce(L, DLX_REDUCE_ANY); }

const luaL_Reg dlxl_reduce_methods[] = {
    {"sum", tensor_sum},       {"prod", tensor_prod},
    {"mean", tensor_mean},     {"min", tensor_min},
    {"max", tensor_max},       {"argmin", tensor_argmin},
    {"argmax", tensor_argmax}, {"all", tensor_all},
    {"any", tensor_any},       {NULL, NULL},
};
