/* create.c -- creation: dlx.empty, zeros, ones, full, arange and tensor, which take an options
 * table {dtype =, device =, usm =} (the device defaults to the state's default device), and the
 * positional forms of dlx.core (core.empty(shape, dtype, device, usm), ...) that C tests use. A
 * missing dtype is float32 for empty, zeros and ones, and is inferred from the values for full,
 * arange and tensor. usm picks the kind of memory of oneapi tensors (nil: device memory). */
#include "lua/create.h"

#include <math.h>

#include "lua/args.h"
#include "lua/device.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"
#include "lua/values.h"

/* A new uninitialised tensor of the given shape, its view in *view (returned). */
static const dlx_tensor *push_empty_shape(lua_State *L, const int64_t *shape, int32_t ndim,
                                          dlx_dtype dtype, DLDevice device, dlx_memory memory,
                                          dlx_tensor *view) {
  dlxl_pushempty(L, NULL, shape, ndim, dtype, device, memory, view);
  return view;
}

/* The same with the shape at idx. */
static const dlx_tensor *push_empty(lua_State *L, int idx, dlx_dtype dtype, DLDevice device,
                                    dlx_memory memory, dlx_tensor *view) {
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim = dlxl_checkshape(L, idx, shape, false);
  return push_empty_shape(L, shape, ndim, dtype, device, memory, view);
}

/* Pushes a new tensor filled with value; frees it at once when the fill fails. */
static int push_full(lua_State *L, int shape_idx, const dlx_scalar *value, dlx_dtype dtype,
                     DLDevice device, dlx_memory memory) {
  dlx_tensor view;
  const dlx_tensor *out = push_empty(L, shape_idx, dtype, device, memory, &view);
  dlx_error err;
  if (dlx_fill(out, value, &err) != 0) {
    dlxl_closetensor(lua_touserdata(L, -1));
    return dlxl_raise(L, &err);
  }
  dlxl_gcdebt(L, dlx_tensor_nbytes(out));
  return 1;
}

void dlxl_checkplacement(lua_State *L, int idx, const char *fname, dlxl_placement *out) {
  static const char *const known[] = {"dtype", "device", "usm", NULL};
  int found = 0, others, usm;
  out->dtype = -1;
  out->memory = DLX_MEMORY_DEFAULT;
  if (idx == 0 || lua_isnoneornil(L, idx)) { /* 0: no options argument at all */
    out->device = dlxl_default_device(L);
    return;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: opts must be a table {dtype =, device =, usm =}, not a %s",
               fname, dlxl_typename(L, idx));
  others = dlxl_pushoptions(L, idx, known, 3);
  usm = lua_gettop(L); /* dtype, device and usm are the last three values */
  if (!lua_isnil(L, usm - 2)) {
    found++;
    out->dtype = (int)dlxl_checkdtype(L, usm - 2, -1);
  }
  if (!lua_isnil(L, usm - 1)) {
    found++;
    out->device = dlxl_checkdevice(L, usm - 1);
  } else {
    out->device = dlxl_default_device(L);
  }
  if (!lua_isnil(L, usm)) {
    found++;
    out->memory = dlxl_checkmemory(L, usm);
  }
  lua_pop(L, 3);
  if (others != 0) dlxl_checkoptions(L, idx, fname, known, found);
}

/* The placement from the positional arguments dtype, device and usm at idx, idx + 1, idx + 2. */
static void positional_placement(lua_State *L, int idx, dlxl_placement *out) {
  out->dtype = lua_isnoneornil(L, idx) ? -1 : (int)dlxl_checkdtype(L, idx, -1);
  out->device = dlxl_checkdevice(L, idx + 1);
  out->memory = dlxl_checkmemory(L, idx + 2);
}

static dlx_dtype dtype_or(const dlxl_placement *p, dlx_dtype def) {
  return p->dtype >= 0 ? (dlx_dtype)p->dtype : def;
}

static int make_empty(lua_State *L, const dlxl_placement *p) {
  dlx_tensor view;
  const dlx_tensor *out = push_empty(L, 1, dtype_or(p, DLX_FLOAT32), p->device, p->memory, &view);
  dlxl_gcdebt(L, dlx_tensor_nbytes(out));
  return 1;
}

static int make_filled(lua_State *L, const dlxl_placement *p, lua_Integer value) {
  dlx_scalar fill = {.kind = DLX_KIND_INT, .v.i = value};
  return push_full(L, 1, &fill, dtype_or(p, DLX_FLOAT32), p->device, p->memory);
}

/* dlx.empty(shape[, opts]), dlx.zeros, dlx.ones */
static int api_empty(lua_State *L) {
  dlxl_placement p;
  dlxl_checkplacement(L, 2, "empty", &p);
  return make_empty(L, &p);
}

static int api_zeros(lua_State *L) {
  dlxl_placement p;
  dlxl_checkplacement(L, 2, "zeros", &p);
  return make_filled(L, &p, 0);
}

static int api_ones(lua_State *L) {
  dlxl_placement p;
  dlxl_checkplacement(L, 2, "ones", &p);
  return make_filled(L, &p, 1);
}

/* dlx.full(shape, value[, opts]): the dtype defaults to the value's, like dlx.tensor. */
static int api_full(lua_State *L) {
  dlxl_placement p;
  dlx_scalar value;
  dlxl_checkplacement(L, 3, "full", &p);
  dlxl_checkscalar(L, 2, &value);
  return push_full(L, 1, &value, dtype_or(&p, dlxl_default_dtype(value.kind)), p.device, p.memory);
}

/* dlx.tensor(data[, opts]) */
static int api_tensor(lua_State *L) {
  dlxl_placement p;
  dlxl_checkplacement(L, 2, "tensor", &p);
  dlxl_pushdata(L, 1, p.dtype, p.device, p.memory);
  return 1;
}

static int core_empty(lua_State *L) {
  dlxl_placement p;
  positional_placement(L, 2, &p);
  return make_empty(L, &p);
}

static int core_zeros(lua_State *L) {
  dlxl_placement p;
  positional_placement(L, 2, &p);
  return make_filled(L, &p, 0);
}

static int core_ones(lua_State *L) {
  dlxl_placement p;
  positional_placement(L, 2, &p);
  return make_filled(L, &p, 1);
}

/* full(shape, value, dtype, device, usm): dtype nil is inferred from value, like dlx.tensor. */
static int core_full(lua_State *L) {
  dlx_scalar value;
  dlxl_placement p;
  dlxl_checkscalar(L, 2, &value);
  positional_placement(L, 3, &p);
  return push_full(L, 1, &value, dtype_or(&p, dlxl_default_dtype(value.kind)), p.device, p.memory);
}

/* ---- arange */

static int64_t checklength(lua_State *L, double length) {
  if (!isfinite(length))
    dlxl_error(L, DLX_VALUE_ERROR, "arange: start, stop and step must be finite numbers");
  if (length <= 0) return 0;
  if (length >= 9.0e18)
    dlxl_error(L, DLX_VALUE_ERROR, "arange: %.14g elements is too many", length);
  return (int64_t)length;
}

/* NumPy's ceil((stop - start) / step), exact for integers of any size. */
static int64_t integer_length(lua_State *L, int64_t start, int64_t stop, int64_t step) {
  uint64_t span, stride, count;
  if (step > 0 && stop > start) {
    span = (uint64_t)stop - (uint64_t)start;
    stride = (uint64_t)step;
  } else if (step < 0 && stop < start) {
    span = (uint64_t)start - (uint64_t)stop;
    stride = 0 - (uint64_t)step;
  } else {
    return 0;
  }
  count = span / stride + (span % stride != 0);
  if (count > (uint64_t)INT64_MAX) return checklength(L, (double)count);
  return (int64_t)count;
}

static void fill_integers(const dlx_tensor *t, int64_t start, int64_t step) {
  int64_t *p = dlxl_hostdata(t), n = dlx_tensor_numel(t);
  uint64_t value = (uint64_t)start; /* wraps instead of overflowing, like the cast would */
  for (int64_t i = 0; i < n; i++, value += (uint64_t)step) p[i] = (int64_t)value;
}

static void fill_floats(const dlx_tensor *t, double start, double step) {
  double *p = dlxl_hostdata(t);
  int64_t n = dlx_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) p[i] = start + (double)i * step;
}

/* A number of arange: its value, and whether it is a Lua integer. */
typedef struct bound {
  bool integer;
  lua_Integer i; /* when integer */
  double f;      /* always */
} bound;

static bound checkbound(lua_State *L, int idx, const char *what) {
  bound b;
  if (lua_type(L, idx) != LUA_TNUMBER)
    dlxl_error(L, DLX_TYPE_ERROR, "arange %s must be a number, got %s", what,
               dlxl_typename(L, idx));
  b.integer = lua_isinteger(L, idx);
  b.i = b.integer ? lua_tointeger(L, idx) : 0;
  b.f = b.integer ? (double)b.i : (double)lua_tonumber(L, idx);
  return b;
}

static bound integer_bound(lua_Integer i) { return (bound){true, i, (double)i}; }

/* The range start, stop, step: int64 when all three are integers, else float32; the values are
 * made on the host in int64 or float64, then cast. */
static int push_arange(lua_State *L, bound start, bound stop, bound step, const dlxl_placement *p) {
  DLDevice cpu = {kDLCPU, 0};
  bool integers = start.integer && stop.integer && step.integer;
  dlx_dtype dtype = dtype_or(p, integers ? DLX_INT64 : DLX_FLOAT32);
  dlx_tensor view;
  const dlx_tensor *host;
  int64_t length;
  if (step.f == 0) return dlxl_error(L, DLX_VALUE_ERROR, "arange step must not be 0");
  if (integers)
    length = integer_length(L, start.i, stop.i, step.i);
  else
    length = checklength(L, ceil((stop.f - start.f) / step.f));
  host = push_empty_shape(L, &length, 1, integers ? DLX_INT64 : DLX_FLOAT64, cpu,
                          DLX_MEMORY_DEFAULT, &view);
  if (integers)
    fill_integers(host, start.i, step.i);
  else
    fill_floats(host, start.f, step.f);
  dlxl_pushconverted(L, lua_gettop(L), dtype, p->device, p->memory);
  return 1;
}

/* arange(start, stop, step, dtype, device, usm) */
static int core_arange(lua_State *L) {
  dlxl_placement p;
  bound start, stop, step;
  lua_settop(L, 6);
  positional_placement(L, 4, &p);
  start = checkbound(L, 1, "start");
  stop = checkbound(L, 2, "stop");
  step = checkbound(L, 3, "step");
  return push_arange(L, start, stop, step, &p);
}

/* dlx.arange([start,] stop[, step][, opts]): NumPy's half-open range; a trailing table is opts. */
static int api_arange(lua_State *L) {
  dlxl_placement p;
  bound given[3];
  int n = lua_gettop(L), opts = 0;
  while (n > 0 && lua_isnil(L, n)) n--;
  if (n > 0 && lua_type(L, n) == LUA_TTABLE) opts = n--;
  if (n < 1 || n > 3)
    return dlxl_error(L, DLX_TYPE_ERROR,
                      "arange([start,] stop[, step][, opts]) takes 1 to 3 numbers, got %d", n);
  for (int i = 1; i <= n; i++) {
    if (lua_type(L, i) != LUA_TNUMBER)
      return dlxl_error(L, DLX_TYPE_ERROR, "arange takes numbers, not a %s", luaL_typename(L, i));
    given[i - 1] = checkbound(L, i, "");
  }
  dlxl_checkplacement(L, opts, "arange", &p);
  if (n == 1) return push_arange(L, integer_bound(0), given[0], integer_bound(1), &p);
  return push_arange(L, given[0], given[1], n == 3 ? given[2] : integer_bound(1), &p);
}

const luaL_Reg dlxl_create_funcs[] = {
    {"empty", core_empty}, {"zeros", core_zeros},   {"ones", core_ones},
    {"full", core_full},   {"arange", core_arange}, {NULL, NULL},
};

const luaL_Reg dlxl_public_funcs[] = {
    {"empty", api_empty},   {"zeros", api_zeros},   {"ones", api_ones}, {"full", api_full},
    {"arange", api_arange}, {"tensor", api_tensor}, {NULL, NULL},
};
