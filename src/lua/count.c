/* count.c -- dlx.histc, histogram, bincount, searchsorted and bucketize (src/core/count.c), and
 * the methods t:histc and t:bincount. Positions are 1-based. */
#include <math.h>
#include <string.h>

#include "core/count.h"
#include "core/ops.h"
#include "lua/args.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"

/* ---- histc(t[, bins[, min[, max]]]) */

static double optnumber(lua_State *L, int idx, const char *fname, const char *what, double def) {
  if (lua_isnoneornil(L, idx)) return def;
  if (lua_type(L, idx) != LUA_TNUMBER)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: %s must be a number, got %s", fname, what,
               dlxl_typename(L, idx));
  return lua_tonumber(L, idx);
}

static int tensor_histc(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  lua_Integer bins = lua_isnoneornil(L, 2) ? 100 : dlxl_checkinteger(L, 2, "histc: bins");
  double lo = optnumber(L, 3, "histc", "min", 0), hi = optnumber(L, 4, "histc", "max", 0);
  dlxl_result r;
  int rc;
  dlxl_result_begin(L, &r, 1, lua_touserdata(L, 1));
  do rc = dlx_histc(&r.made, t, (int64_t)bins, lo, hi, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  return dlxl_result_push(L, &r, rc);
}

/* ---- histogram(t[, bins or edges[, {range =, weights =, density =}]]) */

typedef struct histogram_args {
  bool has_range, density;
  double range[2];
  const dlx_tensor *weights;
  dlx_tensor weights_view;
} histogram_args;

static void check_range(lua_State *L, int idx, histogram_args *a) {
  if (!lua_istable(L, idx) || lua_rawlen(L, idx) != 2)
    dlxl_error(L, DLX_TYPE_ERROR, "histogram: range must be a list of two numbers {min, max}");
  for (int i = 0; i < 2; i++) {
    lua_rawgeti(L, idx, i + 1);
    if (lua_type(L, -1) != LUA_TNUMBER)
      dlxl_error(L, DLX_TYPE_ERROR, "histogram: range[%d] must be a number, got %s", i + 1,
                 dlxl_typename(L, -1));
    a->range[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  a->has_range = true;
}

/* opts at idx; the weights tensor stays on the stack at idx + 1 (lua_settop'ed by the caller). */
static void check_histogram_opts(lua_State *L, int idx, histogram_args *a) {
  static const char *const known[] = {"range", "weights", "density", NULL};
  int found = 0, others;
  memset(a, 0, sizeof *a);
  if (lua_isnoneornil(L, idx)) return;
  if (!lua_istable(L, idx))
    dlxl_error(L, DLX_TYPE_ERROR, "histogram: opts must be a table or nil, got %s",
               dlxl_typename(L, idx));
  others = dlxl_pushoptions(L, idx, known, 3);
  found += !lua_isnil(L, -1);
  a->density = dlxl_optboolean(L, -1, "density");
  lua_pop(L, 1);
  if (!lua_isnil(L, -1)) {
    found++;
    a->weights = dlxl_checktensor(L, lua_gettop(L), &a->weights_view);
    lua_replace(L, idx + 1); /* kept alive there */
  } else {
    lua_pop(L, 1);
  }
  if (!lua_isnil(L, -1)) {
    found++;
    check_range(L, lua_gettop(L), a);
  }
  lua_pop(L, 1);
  if (others != 0) dlxl_checkoptions(L, idx, "histogram", known, found);
}

static int dlx_histogram_fn(lua_State *L) {
  dlx_tensor view, edges_view;
  const dlx_tensor *t = (lua_settop(L, 4), dlxl_checktensor(L, 1, &view)), *edges_in = NULL;
  lua_Integer bins = 10;
  histogram_args a;
  dlxl_result hist, edges; /* the call's error goes to hist */
  int rc;
  if (lua_type(L, 2) == LUA_TNUMBER)
    bins = dlxl_checkinteger(L, 2, "histogram: bins");
  else if (!lua_isnil(L, 2))
    edges_in = dlxl_checktensor(L, 2, &edges_view);
  check_histogram_opts(L, 3, &a);
  dlxl_result_begin(L, &hist, 1, lua_touserdata(L, 1));
  dlxl_result_begin(L, &edges, 1, NULL);
  do
    rc = dlx_histogram(&hist.made, &edges.made, t, (int64_t)bins, edges_in,
                       a.has_range ? a.range : NULL, a.weights, a.density, &hist.err);
  while (dlxl_result_retry(L, &hist, rc));
  dlxl_result_push(L, &hist, rc);
  if (edges_in != NULL)
    dlxl_result_set(L, &edges, 0); /* a view of the edges given: no new bytes */
  else
    dlxl_result_push(L, &edges, 0);
  return 2;
}

/* ---- bincount(t[, {weights =, minlength =}]) */

static int tensor_bincount(lua_State *L) {
  static const char *const known[] = {"weights", "minlength", NULL};
  dlx_tensor view, wview;
  const dlx_tensor *t = (lua_settop(L, 2), dlxl_checktensor(L, 1, &view)), *weights = NULL;
  lua_Integer minlength = 0;
  dlxl_result r;
  int rc, found = 0, others;
  if (!lua_isnil(L, 2)) {
    if (!lua_istable(L, 2))
      dlxl_error(L, DLX_TYPE_ERROR, "bincount: opts must be a table or nil, got %s",
                 dlxl_typename(L, 2));
    others = dlxl_pushoptions(L, 2, known, 2);
    if (!lua_isnil(L, -1)) {
      found++;
      minlength = dlxl_checkinteger(L, lua_gettop(L), "bincount: minlength");
    }
    lua_pop(L, 1);
    if (!lua_isnil(L, -1)) {
      found++;
      weights = dlxl_checktensor(L, lua_gettop(L), &wview); /* stays on the stack */
    }
    if (others != 0) dlxl_checkoptions(L, 2, "bincount", known, found);
  }
  dlxl_result_begin(L, &r, 1, lua_touserdata(L, 1));
  do rc = dlx_bincount(&r.made, t, weights, (int64_t)minlength, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  return dlxl_result_push(L, &r, rc);
}

/* ---- searchsorted(sorted, values[, {right =, side =}]), bucketize(values, boundaries[,
 * {right =}]) */

/* The values at idx: a tensor, or a number made a 0-d tensor on like's device (of like's dtype
 * when both are floats or both integers; float64 for a fractional number with integers). */
static const dlx_tensor *check_values(lua_State *L, int idx, const dlx_tensor *like,
                                      const char *fname, dlx_tensor *view) {
  dlx_kind kind = dlx_dtype_kind(like->dtype);
  dlx_scalar value;
  dlx_dtype dtype;
  dlx_error err;
  if (lua_type(L, idx) != LUA_TNUMBER) return dlxl_checktensor(L, idx, view);
  if (lua_isinteger(L, idx)) {
    value = (dlx_scalar){.kind = DLX_KIND_INT, .v.i = lua_tointeger(L, idx)};
    dtype = kind == DLX_KIND_FLOAT ? like->dtype : DLX_INT64;
  } else {
    value = (dlx_scalar){.kind = DLX_KIND_FLOAT, .v.f = lua_tonumber(L, idx)};
    dtype = kind == DLX_KIND_FLOAT ? like->dtype : DLX_FLOAT64;
  }
  if (kind == DLX_KIND_COMPLEX)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: the sorted tensor must have a real dtype, got %s", fname,
               dlx_dtype_info_of(like->dtype)->name);
  dlxl_pushempty(L, NULL, NULL, 0, dtype, like->buffer->device, dlx_tensor_memory(like), view);
  if (dlx_fill(view, &value, &err) != 0) dlxl_raise(L, &err);
  lua_replace(L, idx);
  return view;
}

static bool check_side(lua_State *L, int idx, const char *fname, bool with_side) {
  static const char *const both[] = {"right", "side", NULL}, *const right_only[] = {"right", NULL};
  const char *const *known = with_side ? both : right_only;
  bool right = false;
  int found = 0, others;
  if (lua_isnoneornil(L, idx)) return false;
  if (!lua_istable(L, idx))
    dlxl_error(L, DLX_TYPE_ERROR, "%s: opts must be a table or nil, got %s", fname,
               dlxl_typename(L, idx));
  others = dlxl_pushoptions(L, idx, known, with_side ? 2 : 1);
  if (!lua_isnil(L, with_side ? -2 : -1)) {
    found++;
    right = dlxl_optboolean(L, with_side ? -2 : -1, "right");
  }
  if (with_side && !lua_isnil(L, -1)) {
    const char *side = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    bool side_right = strcmp(side, "right") == 0;
    found++;
    if (!side_right && strcmp(side, "left") != 0)
      dlxl_error(L, DLX_VALUE_ERROR, "%s: side must be \"left\" or \"right\"", fname);
    if (found == 2 && side_right != right)
      dlxl_error(L, DLX_VALUE_ERROR, "%s: side and right can't be set to opposites", fname);
    right = side_right;
  }
  lua_pop(L, with_side ? 2 : 1);
  if (others != 0) dlxl_checkoptions(L, idx, fname, known, found);
  return right;
}

static int search(lua_State *L, int sorted_at, int values_at, const char *fname, bool with_side) {
  dlx_tensor sview, vview;
  const dlx_tensor *sorted, *values;
  bool right;
  dlxl_result r;
  int rc;
  lua_settop(L, 3);
  if (lua_type(L, sorted_at) == LUA_TNUMBER)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: the %s must be a tensor, got number", fname,
               with_side ? "sorted sequence" : "boundaries");
  sorted = dlxl_checktensor(L, sorted_at, &sview);
  values = check_values(L, values_at, sorted, fname, &vview);
  right = check_side(L, 3, fname, with_side);
  dlxl_result_begin(L, &r, values->ndim, lua_touserdata(L, values_at));
  do rc = dlx_searchsorted(&r.made, sorted, values, right, fname, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  return dlxl_result_push(L, &r, rc);
}

static int dlx_searchsorted_fn(lua_State *L) { return search(L, 1, 2, "searchsorted", true); }

static int dlx_bucketize_fn(lua_State *L) {
  dlx_tensor view;
  if (lua_type(L, 2) != LUA_TNUMBER && !lua_isnoneornil(L, 2)) {
    const dlx_tensor *b = dlxl_checktensor(L, 2, &view);
    if (b->ndim != 1)
      dlxl_error(L, DLX_VALUE_ERROR, "bucketize: boundaries must be 1-d, got %d-d", (int)b->ndim);
  }
  return search(L, 2, 1, "bucketize", false);
}

/* Methods of tensors (and dlx.histc(t, ...), dlx.bincount(t, ...)). */
const luaL_Reg dlxl_count_methods[] = {
    {"histc", tensor_histc},
    {"bincount", tensor_bincount},
    {NULL, NULL},
};

/* dlx.histogram, searchsorted, bucketize. */
const luaL_Reg dlxl_count_funcs[] = {
    {"histogram", dlx_histogram_fn},
    {"searchsorted", dlx_searchsorted_fn},
    {"bucketize", dlx_bucketize_fn},
    {NULL, NULL},
};
