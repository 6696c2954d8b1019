/* order_stats.c -- t:median, nanmedian, kthvalue, mode, quantile, nanquantile, cummax, cummin,
 * logcumsumexp, nansum, nanmean and count_nonzero (src/core/order_stats.c), each also a dlx.
 * function taking the tensor first. Dims are 1-based and negative from the end. */
#include <string.h>

#include "core/order_stats.h"
#include "lua/args.h"
#include "lua/errors.h"
#include "lua/reductions.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"

/* The op of a reduction along one dim: t:op([dim[, keepdim]]) or, with k first (kthvalue),
 * t:kthvalue(k[, dim[, keepdim]]). Without a dim, median and nanmedian take every element and
 * give the value alone; kthvalue and mode take the last dim. */
static int row_reduce(lua_State *L, dlx_row_op op) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  int at = op == DLX_ROW_KTH ? 3 : 2;
  lua_Integer k = op == DLX_ROW_KTH ? dlxl_checkinteger(L, 2, "kthvalue: k") : 0;
  int32_t line_ndim = t->ndim > 0 ? t->ndim : 1, dim;
  bool all = lua_isnoneornil(L, at) && (op == DLX_ROW_MEDIAN || op == DLX_ROW_NANMEDIAN);
  bool keepdim = dlxl_optboolean(L, at + 1, "keepdim");
  dlxl_result values, indices; /* the call's error goes to values */
  int rc;
  if (all)
    dim = -1;
  else
    dim = lua_isnoneornil(L, at) ? line_ndim - 1 : dlxl_checkdim(L, at, line_ndim);
  dlxl_result_begin(L, &values, t->ndim, lua_touserdata(L, 1));
  if (!all) dlxl_result_begin(L, &indices, t->ndim, NULL);
  do
    rc = dlx_row_reduce(&values.made, all ? NULL : &indices.made, op, t, dim, keepdim, (int64_t)k,
                        &values.err);
  while (dlxl_result_retry(L, &values, rc));
  dlxl_result_push(L, &values, rc);
  if (all) return 1;
  dlxl_result_push(L, &indices, 0);
  return 2;
}

static int tensor_median(lua_State *L) { return row_reduce(L, DLX_ROW_MEDIAN); }
static int tensor_nanmedian(lua_State *L) { return row_reduce(L, DLX_ROW_NANMEDIAN); }
static int tensor_kthvalue(lua_State *L) { return row_reduce(L, DLX_ROW_KTH); }
static int tensor_mode(lua_State *L) { return row_reduce(L, DLX_ROW_MODE); }

/* ---- quantile */

typedef struct quantile_args {
  int32_t dim; /* -1: every element */
  bool keepdim;
  dlx_interpolation how;
} quantile_args;

static dlx_interpolation check_interpolation(lua_State *L, int idx, const char *fname) {
  static const char *const names[] = {"linear", "lower", "higher", "nearest", "midpoint", NULL};
  const char *name;
  if (lua_isnil(L, idx)) return DLX_INTERP_LINEAR;
  if (lua_type(L, idx) != LUA_TSTRING)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: interpolation must be a string, got %s", fname,
               dlxl_typename(L, idx));
  name = lua_tostring(L, idx);
  for (int i = 0; names[i] != NULL; i++)
    if (strcmp(name, names[i]) == 0) return (dlx_interpolation)i;
  dlxl_error(L, DLX_VALUE_ERROR,
             "%s: interpolation must be \"linear\", \"lower\", \"higher\", \"nearest\" or "
             "\"midpoint\", got \"%s\"",
             fname, name);
  return DLX_INTERP_LINEAR;
}

/* opts at idx: {dim =, keepdim =, interpolation =}. */
static void check_quantile_opts(lua_State *L, int idx, const dlx_tensor *t, const char *fname,
                                quantile_args *a) {
  static const char *const known[] = {"dim", "keepdim", "interpolation", NULL};
  int found = 0, others;
  a->dim = -1;
  a->keepdim = false;
  a->how = DLX_INTERP_LINEAR;
  if (lua_isnoneornil(L, idx)) return;
  if (!lua_istable(L, idx))
    dlxl_error(L, DLX_TYPE_ERROR, "%s: opts must be a table or nil, got %s", fname,
               dlxl_typename(L, idx));
  others = dlxl_pushoptions(L, idx, known, 3);
  found += !lua_isnil(L, -1);
  a->how = check_interpolation(L, lua_gettop(L), fname);
  lua_pop(L, 1);
  found += !lua_isnil(L, -1);
  a->keepdim = dlxl_optboolean(L, -1, "keepdim");
  lua_pop(L, 1);
  if (!lua_isnil(L, -1)) {
    found++;
    a->dim = dlxl_checkdim(L, lua_gettop(L), t->ndim > 0 ? t->ndim : 1);
  }
  lua_pop(L, 1);
  if (others != 0) dlxl_checkoptions(L, idx, fname, known, found);
}

/* q at idx: a number (*scalar) or a list of numbers, into a new array (freed by the caller). */
static double *check_q(lua_State *L, int idx, const char *fname, int64_t *nq, bool *scalar) {
  double *q;
  *scalar = lua_type(L, idx) == LUA_TNUMBER;
  if (!*scalar && !lua_istable(L, idx))
    dlxl_error(L, DLX_TYPE_ERROR, "%s: q must be a number or a list of numbers, got %s", fname,
               dlxl_typename(L, idx));
  *nq = *scalar ? 1 : (int64_t)lua_rawlen(L, idx);
  q = lua_newuserdatauv(L, (size_t)(*nq > 0 ? *nq : 1) * sizeof(double), 0); /* freed by GC */
  for (int64_t i = 0; i < *nq; i++) {
    if (!*scalar) lua_rawgeti(L, idx, (lua_Integer)i + 1);
    if (lua_type(L, *scalar ? idx : -1) != LUA_TNUMBER)
      dlxl_error(L, DLX_TYPE_ERROR, "%s: q[%lld] must be a number, got %s", fname, (long long)i + 1,
                 dlxl_typename(L, *scalar ? idx : -1));
    q[i] = lua_tonumber(L, *scalar ? idx : -1);
    if (!*scalar) lua_pop(L, 1);
  }
  return q;
}

static int quantile(lua_State *L, bool ignore_nan) {
  const char *fname = ignore_nan ? "nanquantile" : "quantile";
  dlx_tensor view;
  const dlx_tensor *t = (lua_settop(L, 3), dlxl_checktensor(L, 1, &view)); /* q's copy is 4th */
  quantile_args a;
  int64_t nq;
  bool scalar;
  double *q = check_q(L, 2, fname, &nq, &scalar);
  dlxl_result r;
  int rc;
  check_quantile_opts(L, 3, t, fname, &a);
  dlxl_result_begin(L, &r, (t->ndim > 0 ? t->ndim : 1) + 1, lua_touserdata(L, 1));
  do rc = dlx_quantile(&r.made, t, q, nq, scalar, a.dim, a.keepdim, a.how, ignore_nan, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  return dlxl_result_push(L, &r, rc);
}

static int tensor_quantile(lua_State *L) { return quantile(L, false); }
static int tensor_nanquantile(lua_State *L) { return quantile(L, true); }

/* ---- cummax, cummin, logcumsumexp: t:op(dim), the dim optional for 0-d and 1-d tensors */

static int row_scan(lua_State *L, dlx_row_op op) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  int32_t line_ndim = t->ndim > 0 ? t->ndim : 1, dim = 0;
  bool with_indices = op != DLX_ROW_LOGCUMSUMEXP;
  dlxl_result values, indices; /* the call's error goes to values */
  int rc;
  if (!lua_isnoneornil(L, 2))
    dim = dlxl_checkdim(L, 2, line_ndim);
  else if (line_ndim > 1)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: dim is required for a %d-d tensor", dlx_row_op_name(op),
               (int)t->ndim);
  dlxl_result_begin(L, &values, line_ndim, lua_touserdata(L, 1));
  if (with_indices) dlxl_result_begin(L, &indices, line_ndim, NULL);
  do rc = dlx_row_scan(&values.made, with_indices ? &indices.made : NULL, op, t, dim, &values.err);
  while (dlxl_result_retry(L, &values, rc));
  dlxl_result_push(L, &values, rc);
  if (!with_indices) return 1;
  dlxl_result_push(L, &indices, 0);
  return 2;
}

static int tensor_cummax(lua_State *L) { return row_scan(L, DLX_ROW_CUMMAX); }
static int tensor_cummin(lua_State *L) { return row_scan(L, DLX_ROW_CUMMIN); }
static int tensor_logcumsumexp(lua_State *L) { return row_scan(L, DLX_ROW_LOGCUMSUMEXP); }

/* ---- nansum, nanmean (the arguments of t:sum), count_nonzero(t[, dims]) */

static int count_nonzero_fn(dlx_tensor *out, const dlx_tensor *src, uint64_t dims, bool keepdim,
                            dlx_error *err) {
  (void)keepdim;
  return dlx_count_nonzero(out, src, dims, err);
}

static int tensor_nansum(lua_State *L) { return dlxl_reduce_dims(L, dlx_nansum); }
static int tensor_nanmean(lua_State *L) { return dlxl_reduce_dims(L, dlx_nanmean); }

static int tensor_count_nonzero(lua_State *L) {
  lua_settop(L, 2); /* no keepdim */
  return dlxl_reduce_dims(L, count_nonzero_fn);
}

/* Methods of tensors, and the same functions in the dlx table. */
const luaL_Reg dlxl_order_methods[] = {
    {"median", tensor_median},
    {"nanmedian", tensor_nanmedian},
    {"kthvalue", tensor_kthvalue},
    {"mode", tensor_mode},
    {"quantile", tensor_quantile},
    {"nanquantile", tensor_nanquantile},
    {"cummax", tensor_cummax},
    {"cummin", tensor_cummin},
    {"logcumsumexp", tensor_logcumsumexp},
    {"nansum", tensor_nansum},
    {"nanmean", tensor_nanmean},
    {"count_nonzero", tensor_count_nonzero},
    {NULL, NULL},
};
