/* sort.c -- t:sort, t:argsort, t:topk and t:unique (src/core/sort.c). Dims are 1-based and
 * negative from the end, the last dim by default, as PyTorch's. */
#include <stdio.h>

#include "core/sort.h"
#include "lua/args.h"
#include "lua/errors.h"
#include "lua/memory.h"
#include "lua/tables.h"
#include "lua/tensor.h"

/* The dim at idx (the last one when nil) of t, 0-based; a 0-d tensor sorts as one element. */
static int32_t check_sort_dim(lua_State *L, int idx, const dlx_tensor *t) {
  int32_t line_ndim = t->ndim > 0 ? t->ndim : 1;
  return lua_isnoneornil(L, idx) ? line_ndim - 1 : dlxl_checkdim(L, idx, line_ndim);
}

/* Pushes the results of a core call that made a values and an indices tensor of ndim dims. */
static void push_pair(lua_State *L, const dlx_tensor *values, const dlx_tensor *indices,
                      dlxl_tensor *uv, dlxl_tensor *ui) {
  dlxl_settensor(L, uv, values);
  dlxl_settensor(L, ui, indices);
  dlxl_gcdebt(L, dlx_tensor_nbytes(values) + dlx_tensor_nbytes(indices));
}

/* sort and argsort: pushes values, then indices. */
static void sort_pair(lua_State *L, const char *name) {
  dlx_tensor view, values, indices;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  int32_t dim = check_sort_dim(L, 2, t);
  char what[32];
  bool descending, retried = false;
  dlx_error err;
  int rc;
  dlxl_tensor *uv, *ui;
  snprintf(what, sizeof what, "%s: descending", name);
  descending = dlxl_optboolean(L, 3, what);
  uv = dlxl_newtensor(L, t->ndim);
  ui = dlxl_newtensor(L, t->ndim);
  do rc = dlx_sort(&values, &indices, t, dim, descending, name, &err);
  while (dlxl_reclaim(L, rc, &retried, lua_touserdata(L, 1)));
  dlxl_check(L, rc, &err);
  push_pair(L, &values, &indices, uv, ui);
}

/* t:sort([dim = -1][, descending = false]) -> values, indices */
static int tensor_sort(lua_State *L) {
  sort_pair(L, "sort");
  return 2;
}

/* t:argsort([dim = -1][, descending = false]) -> indices */
static int tensor_argsort(lua_State *L) {
  sort_pair(L, "argsort");
  return 1;
}

/* t:topk(k[, dim = -1][, largest = true]) -> values, indices */
static int tensor_topk(lua_State *L) {
  dlx_tensor view, values, indices;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  lua_Integer k = dlxl_checkinteger(L, 2, "topk: k");
  int32_t dim = check_sort_dim(L, 3, t);
  bool largest = lua_isnoneornil(L, 4) || dlxl_optboolean(L, 4, "topk: largest"), retried = false;
  dlx_error err;
  int rc;
  int32_t room = t->ndim > 0 ? t->ndim : 1; /* k = 0 of a 0-d tensor gives shape {0} */
  dlxl_tensor *uv = dlxl_newtensor(L, room), *ui = dlxl_newtensor(L, room);
  do rc = dlx_topk(&values, &indices, t, (int64_t)k, dim, largest, &err);
  while (dlxl_reclaim(L, rc, &retried, lua_touserdata(L, 1)));
  dlxl_check(L, rc, &err);
  push_pair(L, &values, &indices, uv, ui);
  return 2;
}

static bool opt_flag(lua_State *L, int opts, const char *key) {
  bool on;
  char what[40];
  if (lua_isnoneornil(L, opts)) return false;
  lua_getfield(L, opts, key);
  snprintf(what, sizeof what, "unique: %s", key);
  on = dlxl_optboolean(L, -1, what);
  lua_pop(L, 1);
  return on;
}

/* t:unique([{return_inverse =, return_counts =}]) -> values[, inverse][, counts] */
static int tensor_unique(lua_State *L) {
  dlx_tensor view, values, inverse, counts;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  bool want_inverse, want_counts, retried = false;
  dlx_error err;
  int rc, results = 1;
  dlxl_tensor *uv, *ui = NULL, *uc = NULL;
  if (!lua_isnoneornil(L, 2) && !lua_istable(L, 2))
    dlxl_error(L, DLX_TYPE_ERROR, "unique: opts must be a table or nil, got %s",
               dlxl_typename(L, 2));
  want_inverse = opt_flag(L, 2, "return_inverse");
  want_counts = opt_flag(L, 2, "return_counts");
  uv = dlxl_newtensor(L, 1);
  if (want_inverse) ui = dlxl_newtensor(L, t->ndim);
  if (want_counts) uc = dlxl_newtensor(L, 1);
  do
    rc = dlx_unique(&values, want_inverse ? &inverse : NULL, want_counts ? &counts : NULL, t, &err);
  while (dlxl_reclaim(L, rc, &retried, lua_touserdata(L, 1)));
  dlxl_check(L, rc, &err);
  dlxl_settensor(L, uv, &values);
  dlxl_gcdebt(L, dlx_tensor_nbytes(&values));
  if (want_inverse) {
    dlxl_settensor(L, ui, &inverse);
    dlxl_gcdebt(L, dlx_tensor_nbytes(&inverse));
    results++;
  }
  if (want_counts) {
    dlxl_settensor(L, uc, &counts);
    dlxl_gcdebt(L, dlx_tensor_nbytes(&counts));
    results++;
  }
  return results;
}

const luaL_Reg dlxl_sort_methods[] = {
    {"sort", tensor_sort}, {"argsort", tensor_argsort},
    {"topk", tensor_topk}, {"unique", tensor_unique},
    {NULL, NULL},
};
