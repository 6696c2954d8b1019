/* sort.c -- t:sort, t:argsort, t:topk and t:unique (src/core/sort.c). Dims are 1-based and
 * negative from the end, the last dim by default, as PyTorch's. */
#include <stdio.h>

#include "core/sort.h"
#include "lua/args.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"

/* The dim at idx (the last one when nil) of t, 0-based; a 0-d tensor sorts as one element. */
static int32_t check_sort_dim(lua_State *L, int idx, const dlx_tensor *t) {
  int32_t line_ndim = t->ndim > 0 ? t->ndim : 1;
  return lua_isnoneornil(L, idx) ? line_ndim - 1 : dlxl_checkdim(L, idx, line_ndim);
}

/* sort and argsort: pushes values, then indices. */
static void sort_pair(lua_State *L, const char *name) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  int32_t dim = check_sort_dim(L, 2, t);
  char what[32];
  bool descending;
  dlxl_result values, indices; /* the call's error goes to values */
  int rc;
  snprintf(what, sizeof what, "%s: descending", name);
  descending = dlxl_optboolean(L, 3, what);
  dlxl_result_begin(L, &values, t->ndim, lua_touserdata(L, 1));
  dlxl_result_begin(L, &indices, t->ndim, NULL);
  do rc = dlx_sort(&values.made, &indices.made, t, dim, descending, name, &values.err);
  while (dlxl_result_retry(L, &values, rc));
  dlxl_result_push(L, &values, rc);
  dlxl_result_push(L, &indices, 0);
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
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  lua_Integer k = dlxl_checkinteger(L, 2, "topk: k");
  int32_t dim = check_sort_dim(L, 3, t);
  bool largest = lua_isnoneornil(L, 4) || dlxl_optboolean(L, 4, "topk: largest");
  int32_t room = t->ndim > 0 ? t->ndim : 1; /* k = 0 of a 0-d tensor gives shape {0} */
  dlxl_result values, indices;              /* the call's error goes to values */
  int rc;
  dlxl_result_begin(L, &values, room, lua_touserdata(L, 1));
  dlxl_result_begin(L, &indices, room, NULL);
  do rc = dlx_topk(&values.made, &indices.made, t, (int64_t)k, dim, largest, &values.err);
  while (dlxl_result_retry(L, &values, rc));
  dlxl_result_push(L, &values, rc);
  dlxl_result_push(L, &indices, 0);
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
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  bool want_inverse, want_counts;
  dlxl_result values, inverse, counts; /* the call's error goes to values */
  int rc;
  if (!lua_isnoneornil(L, 2) && !lua_istable(L, 2))
    dlxl_error(L, DLX_TYPE_ERROR, "unique: opts must be a table or nil, got %s",
               dlxl_typename(L, 2));
  want_inverse = opt_flag(L, 2, "return_inverse");
  want_counts = opt_flag(L, 2, "return_counts");
  dlxl_result_begin(L, &values, 1, lua_touserdata(L, 1));
  if (want_inverse) dlxl_result_begin(L, &inverse, t->ndim, NULL);
  if (want_counts) dlxl_result_begin(L, &counts, 1, NULL);
  do
    rc = dlx_unique(&values.made, want_inverse ? &inverse.made : NULL,
                    want_counts ? &counts.made : NULL, t, &values.err);
  while (dlxl_result_retry(L, &values, rc));
  dlxl_result_push(L, &values, rc);
  if (want_inverse) dlxl_result_push(L, &inverse, 0);
  if (want_counts) dlxl_result_push(L, &counts, 0);
  return 1 + want_inverse + want_counts;
}

const luaL_Reg dlxl_sort_methods[] = {
    {"sort", tensor_sort}, {"argsort", tensor_argsort},
    {"topk", tensor_topk}, {"unique", tensor_unique},
    {NULL, NULL},
};
