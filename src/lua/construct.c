/* construct.c -- more creation: dlx.linspace, logspace, eye, the *_like functions, and tril and
 * triu. linspace and logspace compute their values on the host in float64, as NumPy does, then
 * cast and move them (as dlx.arange does); eye, tril and triu are fills of views of the result,
 * which run on every device. */
#include <math.h>
#include <string.h>

#include "lua/args.h"
#include "lua/copies.h"
#include "lua/create.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"
#include "lua/values.h"

static dlx_dtype dtype_or(const dlxl_placement *p, dlx_dtype def) {
  return p->dtype >= 0 ? (dlx_dtype)p->dtype : def;
}

static double checknumber(lua_State *L, int idx, const char *fname, const char *what) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: %s must be a number, got %s", fname, what,
               dlxl_typename(L, idx));
  return (double)lua_tonumber(L, idx);
}

static int64_t checkcount(lua_State *L, int idx, const char *fname) {
  lua_Integer n = dlxl_checkinteger(L, idx, "count");
  if (n < 0)
    dlxl_error(L, DLX_VALUE_ERROR, "%s: the count must be >= 0, got %lld", fname, (long long)n);
  return (int64_t)n;
}

/* ---- linspace and logspace */

/* NumPy's linspace in float64: start + i * step, or (i / div) * delta when the step is 0 (it
 * underflowed), and the last value exactly stop. */
static void fill_linspace(double *y, int64_t n, double start, double stop) {
  double delta = stop - start;
  int64_t div = n - 1;
  double step = div > 0 ? delta / (double)div : NAN;
  for (int64_t i = 0; i < n; i++) {
    double v;
    if (div == 0)
      v = (double)i * delta;
    else if (step == 0)
      v = (double)i / (double)div * delta;
    else
      v = (double)i * step;
    y[i] = v + start;
  }
  if (n > 1) y[n - 1] = stop;
}

/* The host values as dtype on the placement's device; integer dtypes take the floor first, as
 * NumPy's linspace does. */
static int push_values(lua_State *L, int host_idx, const dlxl_placement *p, dlx_dtype dtype,
                       bool floor_ints) {
  dlx_tensor view;
  const dlx_tensor *host = dlxl_getview(dlxl_totensor(L, host_idx), &view);
  dlx_kind kind = dlx_dtype_info_of(dtype)->kind;
  if (floor_ints && (kind == DLX_KIND_INT || kind == DLX_KIND_UINT)) {
    double *y = dlxl_hostdata(host);
    for (int64_t i = 0; i < dlx_tensor_numel(host); i++) y[i] = floor(y[i]);
  }
  dlxl_pushconverted(L, host_idx, dtype, p->device, p->memory);
  return 1;
}

/* Pushes a new 1-d float64 host tensor of n elements; *view gets its view (returned). */
static const dlx_tensor *push_host_doubles(lua_State *L, int64_t n, dlx_tensor *view) {
  dlxl_pushempty(L, NULL, &n, 1, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, DLX_MEMORY_DEFAULT, view);
  return view;
}

/* Reads opts.base of logspace (default 10), checks that opts has no unknown key, and replaces
 * opts with a copy without base for dlxl_checkplacement. */
static double take_base(lua_State *L, int idx) {
  static const char *const known[] = {"dtype", "device", "usm", "base", NULL};
  double base = 10;
  int found = 0;
  if (lua_type(L, idx) != LUA_TTABLE) return base;
  for (int i = 0; known[i] != NULL; i++) {
    found += lua_getfield(L, idx, known[i]) != LUA_TNIL;
    if (i == 3 && !lua_isnil(L, -1)) base = checknumber(L, -1, "logspace", "base");
    lua_pop(L, 1);
  }
  dlxl_checkoptions(L, idx, "logspace", known, found);
  lua_newtable(L);
  for (lua_pushnil(L); lua_next(L, idx) != 0; lua_pop(L, 1)) {
    if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), "base") == 0) continue;
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -4);
    lua_pushnil(L); /* popped by the loop; the key stays */
  }
  if (lua_getmetatable(L, idx)) lua_setmetatable(L, -2);
  lua_replace(L, idx);
  return base;
}

/* linspace, or logspace with logscale: the values made on the host, then cast and moved. */
static int spaced_values(lua_State *L, const char *fname, bool logscale) {
  double start = checknumber(L, 1, fname, "start"), stop = checknumber(L, 2, fname, "stop");
  int64_t n = checkcount(L, 3, fname);
  dlxl_placement p;
  dlx_tensor view;
  double base = 10, *y;
  if (logscale) {
    lua_settop(L, 4);
    base = take_base(L, 4);
  }
  dlxl_checkplacement(L, 4, fname, &p);
  y = dlxl_hostdata(push_host_doubles(L, n, &view));
  fill_linspace(y, n, start, stop);
  if (logscale)
    for (int64_t i = 0; i < n; i++) y[i] = pow(base, y[i]);
  return push_values(L, lua_gettop(L), &p, dtype_or(&p, DLX_FLOAT32), !logscale);
}

/* dlx.linspace(start, stop, n[, opts]): n values from start to stop, both included. */
static int api_linspace(lua_State *L) { return spaced_values(L, "linspace", false); }

/* dlx.logspace(start, stop, n[, opts]): base ^ linspace(start, stop, n); opts.base defaults to
 * 10. */
static int api_logspace(lua_State *L) { return spaced_values(L, "logspace", true); }

/* ---- eye */

/* Sets the elements of the view of t with the given shape and strides to value. made, t's
 * userdata, is a result of the call: closed when the fill fails. */
static void fill_pattern(lua_State *L, const dlx_tensor *t, dlxl_tensor *made, int32_t ndim,
                         const int64_t *shape, const int64_t *strides, int64_t offset,
                         lua_Integer value) {
  dlx_scalar v = {.kind = DLX_KIND_INT, .v.i = value};
  dlx_tensor view;
  dlx_error err;
  int rc;
  dlx_tensor_share(&view, t);
  view.ndim = ndim;
  memcpy(view.shape, shape, (size_t)ndim * sizeof shape[0]);
  memcpy(view.strides, strides, (size_t)ndim * sizeof strides[0]);
  view.offset += offset;
  rc = dlx_fill(&view, &v, &err);
  dlx_tensor_close(&view);
  if (rc != 0) {
    dlxl_closetensor(made);
    dlxl_raise(L, &err);
  }
}

/* dlx.eye(n[, m][, opts]): an n x m matrix (m defaults to n) with ones on the diagonal. */
static int api_eye(lua_State *L) {
  int64_t shape[2], diag, stride;
  int opts = 2;
  dlxl_placement p;
  dlxl_tensor *made;
  dlx_tensor out;
  shape[0] = checkcount(L, 1, "eye");
  shape[1] = shape[0];
  if (lua_type(L, 2) == LUA_TNUMBER) {
    shape[1] = checkcount(L, 2, "eye");
    opts = 3;
  }
  dlxl_checkplacement(L, opts, "eye", &p);
  made = dlxl_pushempty(L, NULL, shape, 2, dtype_or(&p, DLX_FLOAT32), p.device, p.memory, &out);
  fill_pattern(L, &out, made, 2, shape, out.strides, 0, 0);
  diag = shape[0] < shape[1] ? shape[0] : shape[1];
  stride = shape[1] + 1;
  if (diag > 0) fill_pattern(L, &out, made, 1, &diag, &stride, 0, 1);
  dlxl_gcdebt(L, dlx_tensor_nbytes(&out));
  return 1;
}

/* ---- empty_like, zeros_like, ones_like, full_like */

/* The placement of a *_like function: opts' dtype, device and usm, or t's. */
static void like_placement(lua_State *L, const dlx_tensor *t, int idx, const char *fname,
                           dlxl_placement *p) {
  bool device_given = lua_type(L, idx) == LUA_TTABLE && lua_getfield(L, idx, "device") != LUA_TNIL;
  if (lua_type(L, idx) == LUA_TTABLE) lua_pop(L, 1);
  dlxl_checkplacement(L, idx, fname, p);
  if (p->dtype < 0) p->dtype = (int)t->dtype;
  if (!device_given) p->device = dlx_tensor_device(t);
  if (p->memory == DLX_MEMORY_DEFAULT && dlx_device_equal(p->device, dlx_tensor_device(t)))
    p->memory = dlx_tensor_memory(t);
}

/* Pushes a tensor of t's shape filled with value (NULL: uninitialised). */
static int push_like(lua_State *L, const dlx_tensor *t, const dlxl_placement *p,
                     const dlx_scalar *value) {
  dlx_tensor out;
  dlxl_tensor *made =
      dlxl_pushempty(L, NULL, t->shape, t->ndim, (dlx_dtype)p->dtype, p->device, p->memory, &out);
  dlx_error err;
  if (value != NULL && dlx_fill(&out, value, &err) != 0) {
    dlxl_closetensor(made);
    return dlxl_raise(L, &err);
  }
  dlxl_gcdebt(L, dlx_tensor_nbytes(&out));
  return 1;
}

static int make_like(lua_State *L, const char *fname, const dlx_scalar *value, int opts) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  dlxl_placement p;
  like_placement(L, t, opts, fname, &p);
  return push_like(L, t, &p, value);
}

/* dlx.empty_like(t[, opts]), zeros_like, ones_like */
static int api_empty_like(lua_State *L) { return make_like(L, "empty_like", NULL, 2); }

static int api_zeros_like(lua_State *L) {
  dlx_scalar zero = {.kind = DLX_KIND_INT, .v.i = 0};
  return make_like(L, "zeros_like", &zero, 2);
}

static int api_ones_like(lua_State *L) {
  dlx_scalar one = {.kind = DLX_KIND_INT, .v.i = 1};
  return make_like(L, "ones_like", &one, 2);
}

/* dlx.full_like(t, value[, opts]): the dtype is t's (as PyTorch), not the value's. */
static int api_full_like(lua_State *L) {
  dlx_scalar value;
  dlxl_checkscalar(L, 2, &value);
  return make_like(L, "full_like", &value, 3);
}

/* ---- tril and triu */

/* Zeros the columns [c0, c1) of the rows [r0, r1) of every matrix of out (its last two dims);
 * made is out's userdata. */
static void zero_block(lua_State *L, const dlx_tensor *out, dlxl_tensor *made, int64_t r0,
                       int64_t r1, int64_t c0, int64_t c1) {
  int64_t shape[DLX_MAX_NDIM];
  int32_t nd = out->ndim;
  if (r1 <= r0 || c1 <= c0) return;
  memcpy(shape, out->shape, (size_t)nd * sizeof shape[0]);
  shape[nd - 2] = r1 - r0;
  shape[nd - 1] = c1 - c0;
  fill_pattern(L, out, made, nd, shape, out->strides,
               r0 * out->strides[nd - 2] + c0 * out->strides[nd - 1], 0);
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* A copy of t (at least 2-d) with the elements above (lower: tril) or below (triu) the k-th
 * diagonal set to zero. Row i keeps columns j - i <= k (tril) or j - i >= k (triu): rows that
 * lose all or none of their columns are filled in one block, the others one row at a time. */
static int triangle(lua_State *L, bool lower) {
  const char *fname = lower ? "tril" : "triu";
  dlx_tensor view, out_view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view), *out;
  lua_Integer k = lua_isnoneornil(L, 2) ? 0 : dlxl_checkinteger(L, 2, "diagonal");
  int64_t rows, cols;
  dlxl_tensor *made;
  if (t->ndim < 2)
    return dlxl_error(L, DLX_VALUE_ERROR, "%s needs a tensor of at least 2 dims, got %d-d", fname,
                      (int)t->ndim);
  dlxl_pushclone(L, lua_touserdata(L, 1), t, t->dtype, dlx_tensor_device(t));
  made = lua_touserdata(L, -1);
  out = dlxl_getview(made, &out_view);
  rows = out->shape[out->ndim - 2];
  cols = out->shape[out->ndim - 1];
  if (dlx_tensor_numel(out) == 0) return 1;
  k = clamp(k, -rows - 1, cols + 1); /* beyond these every k gives the same result */
  for (int64_t i = 0; i < rows;) {
    /* the first zeroed column (tril) or the end of the zeroed ones (triu) of row i */
    int64_t edge = clamp(i + k + (lower ? 1 : 0), 0, cols), next = i + 1;
    if (edge == 0 || edge == cols) /* rows with the same edge form one block */
      while (next < rows && clamp(next + k + (lower ? 1 : 0), 0, cols) == edge) next++;
    if (lower)
      zero_block(L, out, made, i, next, edge, cols);
    else
      zero_block(L, out, made, i, next, 0, edge);
    i = next;
  }
  return 1;
}

/* dlx.tril(t[, k]) and t:tril([k]); dlx.triu(t[, k]) and t:triu([k]). */
static int api_tril(lua_State *L) { return triangle(L, true); }
static int api_triu(lua_State *L) { return triangle(L, false); }

const luaL_Reg dlxl_construct_funcs[] = {
    {"linspace", api_linspace},
    {"logspace", api_logspace},
    {"eye", api_eye},
    {"empty_like", api_empty_like},
    {"zeros_like", api_zeros_like},
    {"ones_like", api_ones_like},
    {"full_like", api_full_like},
    {"tril", api_tril},
    {"triu", api_triu},
    {NULL, NULL},
};

const luaL_Reg dlxl_construct_methods[] = {
    {"tril", api_tril},
    {"triu", api_triu},
    {NULL, NULL},
};
