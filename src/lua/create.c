/* create.c -- dlx.core.empty, zeros, ones, full and arange. The Lua layer resolves the options
 * and always passes every argument; a nil dtype is float32 for empty, zeros and ones, and is
 * inferred from the values for full and arange. The last argument, usm, picks the kind of
 * memory of oneapi tensors (nil: device memory). */
#include <math.h>

#include "lua/binding.h"

/* Pushes a new uninitialised tensor (shape at idx) and returns it; the caller reports it to the
 * collector once it is filled. */
static dlx_tensor *push_empty(lua_State *L, int idx, dlx_dtype dtype, DLDevice device,
                              dlx_memory memory) {
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim = dlxl_checkshape(L, idx, shape, false);
  dlx_tensor *out = dlxl_newtensor(L), made;
  dlx_error err;
  bool retried = false;
  int rc;
  do rc = dlx_tensor_empty_memory(&made, shape, ndim, dtype, device, memory, &err);
  while (dlxl_reclaim(L, rc, &retried, NULL));
  dlxl_check(L, rc, &err);
  *out = made;
  return out;
}

/* Pushes a new tensor filled with value; frees it at once when the fill fails. */
static int push_full(lua_State *L, int shape_idx, const dlx_scalar *value, dlx_dtype dtype,
                     DLDevice device, dlx_memory memory) {
  dlx_tensor *out = push_empty(L, shape_idx, dtype, device, memory);
  dlx_error err;
  if (dlx_fill(out, value, &err) != 0) {
    dlx_tensor_close(out);
    return dlxl_raise(L, &err);
  }
  dlxl_gcdebt(L, dlx_tensor_nbytes(out));
  return 1;
}

static int core_empty(lua_State *L) {
  dlx_dtype dtype = dlxl_checkdtype(L, 2, DLX_FLOAT32);
  dlx_tensor *out = push_empty(L, 1, dtype, dlxl_checkdevice(L, 3), dlxl_checkmemory(L, 4));
  dlxl_gcdebt(L, dlx_tensor_nbytes(out));
  return 1;
}

static int core_zeros(lua_State *L) {
  dlx_scalar zero = {.kind = DLX_KIND_INT, .v.i = 0};
  dlx_dtype dtype = dlxl_checkdtype(L, 2, DLX_FLOAT32);
  return push_full(L, 1, &zero, dtype, dlxl_checkdevice(L, 3), dlxl_checkmemory(L, 4));
}

static int core_ones(lua_State *L) {
  dlx_scalar one = {.kind = DLX_KIND_INT, .v.i = 1};
  dlx_dtype dtype = dlxl_checkdtype(L, 2, DLX_FLOAT32);
  return push_full(L, 1, &one, dtype, dlxl_checkdevice(L, 3), dlxl_checkmemory(L, 4));
}

/* full(shape, value, dtype, device, usm): dtype nil is inferred from value, like dlx.tensor. */
static int core_full(lua_State *L) {
  dlx_scalar value;
  dlx_dtype dtype;
  dlxl_checkscalar(L, 2, &value);
  dtype = dlxl_checkdtype(L, 3, dlxl_default_dtype(value.kind));
  return push_full(L, 1, &value, dtype, dlxl_checkdevice(L, 4), dlxl_checkmemory(L, 5));
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

static void fill_integers(dlx_tensor *t, int64_t start, int64_t step) {
  int64_t *p = dlxl_hostdata(t), n = dlx_tensor_numel(t);
  uint64_t value = (uint64_t)start; /* wraps instead of overflowing, like the cast would */
  for (int64_t i = 0; i < n; i++, value += (uint64_t)step) p[i] = (int64_t)value;
}

static void fill_floats(dlx_tensor *t, double start, double step) {
  double *p = dlxl_hostdata(t);
  int64_t n = dlx_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) p[i] = start + (double)i * step;
}

static double checknumber(lua_State *L, int idx, const char *what) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    dlxl_error(L, DLX_TYPE_ERROR, "arange %s must be a number, got %s", what,
               dlxl_typename(L, idx));
  return (double)lua_tonumber(L, idx);
}

/* arange(start, stop, step, dtype, device, usm): int64 when start, stop and step are all integers,
 * else float32; the values are made on the host in int64 or float64, then cast. */
static int core_arange(lua_State *L) {
  DLDevice cpu = {kDLCPU, 0}, device;
  dlx_memory memory;
  double start = checknumber(L, 1, "start"), stop = checknumber(L, 2, "stop");
  double step = checknumber(L, 3, "step");
  bool integers = lua_isinteger(L, 1) && lua_isinteger(L, 2) && lua_isinteger(L, 3);
  dlx_dtype dtype = dlxl_checkdtype(L, 4, integers ? DLX_INT64 : DLX_FLOAT32);
  dlx_tensor *host;
  int64_t length;
  lua_settop(L, 6);
  device = dlxl_checkdevice(L, 5);
  memory = dlxl_checkmemory(L, 6);
  if (step == 0) return dlxl_error(L, DLX_VALUE_ERROR, "arange step must not be 0");
  if (integers)
    length = integer_length(L, lua_tointeger(L, 1), lua_tointeger(L, 2), lua_tointeger(L, 3));
  else
    length = checklength(L, ceil((stop - start) / step));
  lua_pushinteger(L, length);
  host = push_empty(L, -1, integers ? DLX_INT64 : DLX_FLOAT64, cpu, DLX_MEMORY_DEFAULT);
  if (integers)
    fill_integers(host, lua_tointeger(L, 1), lua_tointeger(L, 3));
  else
    fill_floats(host, start, step);
  dlxl_pushconverted(L, lua_gettop(L), dtype, device, memory);
  return 1;
}

const luaL_Reg dlxl_create_funcs[] = {
    {"empty", core_empty}, {"zeros", core_zeros},   {"ones", core_ones},
    {"full", core_full},   {"arange", core_arange}, {NULL, NULL},
};
