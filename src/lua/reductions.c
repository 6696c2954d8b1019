/* reductions.c -- t:sum(dims, keepdim) and the other reductions. dims is nil (all), a dim or a
 * list of dims; reducing every dim without keepdim gives a 0-d tensor. Also var, std, logsumexp
 * and norm, and the ops along one dim: cumsum, cumprod, softmax and log_softmax. */
#include <math.h>

#include "lua/reductions.h"

#include "core/stats.h"
#include "lua/args.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"

/* t:op([dims[, keepdim]]): fn's result, or dlx_reduce's with op when fn is NULL. */
static int reduce_with(lua_State *L, dlx_reduce_op op, dlxl_reduce_fn fn) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  uint64_t dims = dlxl_checkdims(L, 2, t->ndim);
  bool keepdim = dlxl_optboolean(L, 3, "keepdim");
  dlxl_result r;
  int rc;
  dlxl_result_begin(L, &r, t->ndim, lua_touserdata(L, 1));
  do
    rc = fn != NULL ? fn(&r.made, t, dims, keepdim, &r.err)
                    : dlx_reduce(&r.made, op, t, dims, keepdim, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  return dlxl_result_push(L, &r, rc);
}

static int reduce(lua_State *L, dlx_reduce_op op) { return reduce_with(L, op, NULL); }

int dlxl_reduce_dims(lua_State *L, dlxl_reduce_fn fn) {
  return reduce_with(L, DLX_REDUCE_SUM /* not read */, fn);
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

/* ---- var, std, logsumexp, norm */

typedef struct stat_args {
  uint64_t dims;
  bool keepdim;
  double param;
} stat_args;

/* A number option at the top of the stack (nil keeps *value), popped. */
static void pop_number(lua_State *L, const char *fname, const char *key, double *value,
                       int *found) {
  if (!lua_isnil(L, -1)) {
    if (lua_type(L, -1) != LUA_TNUMBER)
      dlxl_error(L, DLX_TYPE_ERROR, "%s: %s must be a number, got %s", fname, key,
                 dlxl_typename(L, -1));
    *value = lua_tonumber(L, -1);
    (*found)++;
  }
  lua_pop(L, 1);
}

/* t:op(opts) with opts {dim =, keepdim =, <param> =}, or t:op([dims[, keepdim]]): a table
 * without list entries is the options. */
static void check_stat_args(lua_State *L, const dlx_tensor *t, const char *fname, const char *param,
                            stat_args *out) {
  const char *const known[] = {"dim", "keepdim", param, NULL};
  int found = 0, others;
  if (lua_type(L, 2) != LUA_TTABLE || lua_rawlen(L, 2) > 0) {
    out->dims = dlxl_checkdims(L, 2, t->ndim);
    out->keepdim = dlxl_optboolean(L, 3, "keepdim");
    return;
  }
  others = dlxl_pushoptions(L, 2, known, 3);
  pop_number(L, fname, param, &out->param, &found);
  found += !lua_isnil(L, -1);
  out->keepdim = dlxl_optboolean(L, -1, "keepdim");
  lua_pop(L, 1);
  found += !lua_isnil(L, -1);
  out->dims = dlxl_checkdims(L, -1, t->ndim);
  lua_pop(L, 1);
  if (others != 0) dlxl_checkoptions(L, 2, fname, known, found);
}

static int push_stat(lua_State *L, const dlx_tensor *t, dlx_stat_op op, const stat_args *a) {
  dlxl_result r;
  int rc;
  dlxl_result_begin(L, &r, t->ndim, lua_touserdata(L, 1));
  do rc = dlx_reduce_stat(&r.made, op, a->param, t, a->dims, a->keepdim, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  return dlxl_result_push(L, &r, rc);
}

static int stat_with(lua_State *L, dlx_stat_op op, const char *param, double def) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  stat_args a = {.param = def};
  check_stat_args(L, t, dlx_stat_name(op), param, &a);
  return push_stat(L, t, op, &a);
}

static int tensor_var(lua_State *L) { return stat_with(L, DLX_STAT_VAR, "correction", 0); }
static int tensor_std(lua_State *L) { return stat_with(L, DLX_STAT_STD, "correction", 0); }
static int tensor_norm(lua_State *L) { return stat_with(L, DLX_STAT_NORM, "p", 2); }

static int tensor_logsumexp(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  stat_args a = {.dims = dlxl_checkdims(L, 2, t->ndim),
                 .keepdim = dlxl_optboolean(L, 3, "keepdim")};
  return push_stat(L, t, DLX_STAT_LOGSUMEXP, &a);
}

/* ---- along one dim: the dim may be left out for 0-d and 1-d tensors */

static int along(lua_State *L, int idx, dlx_dim_op op) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, idx, &view);
  int32_t line_ndim = t->ndim > 0 ? t->ndim : 1, dim = 0;
  if (!lua_isnoneornil(L, idx + 1))
    dim = dlxl_checkdim(L, idx + 1, line_ndim);
  else if (line_ndim > 1)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: dim is required for a %d-d tensor", dlx_dim_op_name(op),
               (int)t->ndim);
  dlxl_result r;
  int rc;
  dlxl_result_begin(L, &r, line_ndim, lua_touserdata(L, idx));
  do rc = dlx_along_dim(&r.made, op, t, dim, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  return dlxl_result_push(L, &r, rc);
}

static int tensor_cumsum(lua_State *L) { return along(L, 1, DLX_DIM_CUMSUM); }
static int tensor_cumprod(lua_State *L) { return along(L, 1, DLX_DIM_CUMPROD); }
static int tensor_softmax(lua_State *L) { return along(L, 1, DLX_DIM_SOFTMAX); }
static int tensor_log_softmax(lua_State *L) { return along(L, 1, DLX_DIM_LOG_SOFTMAX); }

const luaL_Reg dlxl_reduce_methods[] = {
    {"sum", tensor_sum},
    {"prod", tensor_prod},
    {"mean", tensor_mean},
    {"min", tensor_min},
    {"max", tensor_max},
    {"argmin", tensor_argmin},
    {"argmax", tensor_argmax},
    {"all", tensor_all},
    {"any", tensor_any},
    {"var", tensor_var},
    {"std", tensor_std},
    {"logsumexp", tensor_logsumexp},
    {"norm", tensor_norm},
    {"cumsum", tensor_cumsum},
    {"cumprod", tensor_cumprod},
    {"softmax", tensor_softmax},
    {"log_softmax", tensor_log_softmax},
    {NULL, NULL},
};

/* dlx.softmax(t, dim) and dlx.log_softmax(t, dim). */
const luaL_Reg dlxl_reduce_funcs[] = {
    {"softmax", tensor_softmax},
    {"log_softmax", tensor_log_softmax},
    {NULL, NULL},
};
