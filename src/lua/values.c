/* values.c -- Lua values <-> tensors: scalars (fill values, item), dlx.core.tensor(data) from
 * nested tables, and t:totable(). Elements cross in C through a host tensor of the "wide" dtype
 * of their kind (bool, int64, uint64, float64, complex128); the core casts from there. Complex
 * values are tables {re = x, im = y}. */
#include "lua/values.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lua/args.h"
#include "lua/device.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"

/* ---- scalars */

/* A complex value is a table with a field re (raw access: no metamethods run). */
static bool is_complex(lua_State *L, int idx) {
  bool yes;
  if (lua_type(L, idx) != LUA_TTABLE) return false;
  idx = lua_absindex(L, idx);
  lua_pushliteral(L, "re");
  yes = lua_rawget(L, idx) != LUA_TNIL;
  lua_pop(L, 1);
  return yes;
}

static double complex_part(lua_State *L, int idx, const char *key) {
  double part = 0;
  idx = lua_absindex(L, idx);
  lua_pushstring(L, key);
  switch (lua_rawget(L, idx)) {
  case LUA_TNIL:
    break; /* im may be left out */
  case LUA_TNUMBER:
    part = (double)lua_tonumber(L, -1);
    break;
  default:
    dlxl_error(L, DLX_TYPE_ERROR, "the %s part of a complex value must be a number, got %s", key,
               luaL_typename(L, -1));
  }
  lua_pop(L, 1);
  return part;
}

void dlxl_checkscalar(lua_State *L, int idx, dlx_scalar *out) {
  switch (lua_type(L, idx)) {
  case LUA_TBOOLEAN:
    out->kind = DLX_KIND_BOOL;
    out->v.b = lua_toboolean(L, idx);
    return;
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) {
      out->kind = DLX_KIND_INT;
      out->v.i = (int64_t)lua_tointeger(L, idx);
    } else {
      out->kind = DLX_KIND_FLOAT;
      out->v.f = (double)lua_tonumber(L, idx);
    }
    return;
  default:
    if (is_complex(L, idx)) {
      out->kind = DLX_KIND_COMPLEX;
      out->v.c[0] = complex_part(L, idx, "re");
      out->v.c[1] = complex_part(L, idx, "im");
      return;
    }
  }
  dlxl_error(L, DLX_TYPE_ERROR,
             "expected a number, a boolean or a complex table {re =, im =}, "
             "got %s",
             dlxl_typename(L, idx));
}

static void push_complex(lua_State *L, double re, double im) {
  lua_createtable(L, 0, 2);
  lua_pushnumber(L, (lua_Number)re);
  lua_setfield(L, -2, "re");
  lua_pushnumber(L, (lua_Number)im);
  lua_setfield(L, -2, "im");
}

/* uint64 values above math.maxinteger come back as floats. */
static void push_uint64(lua_State *L, uint64_t value) {
  if (value <= (uint64_t)LUA_MAXINTEGER)
    lua_pushinteger(L, (lua_Integer)value);
  else
    lua_pushnumber(L, (lua_Number)value);
}

void dlxl_pushscalar(lua_State *L, const dlx_scalar *value) {
  switch (value->kind) {
  case DLX_KIND_BOOL:
    lua_pushboolean(L, value->v.b);
    break;
  case DLX_KIND_INT:
    lua_pushinteger(L, (lua_Integer)value->v.i);
    break;
  case DLX_KIND_UINT:
    push_uint64(L, value->v.u);
    break;
  case DLX_KIND_COMPLEX:
    push_complex(L, value->v.c[0], value->v.c[1]);
    break;
  default:
    lua_pushnumber(L, (lua_Number)value->v.f);
    break;
  }
}

void *dlxl_hostdata(const dlx_tensor *t) {
  if (t->buffer->data == NULL) return NULL; /* no elements */
  return (char *)t->buffer->data + t->offset * dlx_itemsize(t->dtype);
}

void dlxl_pushconverted(lua_State *L, int idx, dlx_dtype dtype, DLDevice device,
                        dlx_memory memory) {
  dlxl_tensor *u = lua_touserdata(L, idx);
  dlx_tensor view;
  const dlx_tensor *wide = dlxl_getview(u, &view);
  dlxl_result r;
  int rc;
  if (wide->dtype == dtype && dlx_device_equal(device, dlx_tensor_device(wide)) &&
      memory == DLX_MEMORY_DEFAULT) {
    lua_pushvalue(L, idx);
    dlxl_gcdebt(L, dlx_tensor_nbytes(wide));
    return;
  }
  dlxl_result_begin(L, &r, wide->ndim, u);
  do rc = dlx_clone_as_memory(&r.made, wide, dtype, device, memory, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  dlxl_closetensor(u); /* the host copy goes now, whatever happened */
  dlxl_result_push(L, &r, rc);
}

/* ---- dlx.core.tensor(data, dtype, device, usm) */

typedef struct nest {
  int32_t ndim;
  int64_t shape[DLX_MAX_NDIM];
  dlx_kind kind; /* the widest kind seen: BOOL < INT < FLOAT < COMPLEX, as the enum orders them */
} nest;

/* The kind of a leaf value, or -1 for a nested table (a table that is not complex). */
static int leaf_kind(lua_State *L, int idx) {
  switch (lua_type(L, idx)) {
  case LUA_TBOOLEAN:
    return DLX_KIND_BOOL;
  case LUA_TNUMBER:
    return lua_isinteger(L, idx) ? DLX_KIND_INT : DLX_KIND_FLOAT;
  case LUA_TTABLE:
    return is_complex(L, idx) ? DLX_KIND_COMPLEX : -1;
  default:
    return dlxl_error(L, DLX_TYPE_ERROR,
                      "tensor data must be numbers, booleans, complex tables "
                      "{re =, im =} or nested tables of them, got %s",
                      dlxl_typename(L, idx));
  }
}

/* The length of the list at the top of the stack; a table with keys but no [1] is not a list. */
static int64_t list_length(lua_State *L) {
  size_t len = lua_rawlen(L, -1);
  if (len == 0) {
    lua_pushnil(L);
    if (lua_next(L, -2) != 0)
      dlxl_error(L, DLX_TYPE_ERROR, "tensor data must be a list, got a table with other keys");
  }
  return (int64_t)len;
}

/* The shape, from the first element at each depth. */
static void infer_shape(lua_State *L, int idx, nest *n) {
  lua_pushvalue(L, idx);
  while (leaf_kind(L, -1) < 0) {
    int64_t len = list_length(L);
    if (n->ndim == DLX_MAX_NDIM)
      dlxl_error(L, DLX_VALUE_ERROR, "tensor data nests deeper than %d dims", DLX_MAX_NDIM);
    n->shape[n->ndim++] = len;
    if (len == 0) break;
    lua_rawgeti(L, -1, 1);
    lua_remove(L, -2);
  }
  lua_pop(L, 1);
}

static int ragged(lua_State *L, const char *what, int32_t depth, const char *first_has) {
  return dlxl_error(L, DLX_VALUE_ERROR,
                    "ragged nested table: %s at depth %d, where the first "
                    "element has %s",
                    what, (int)depth + 1, first_has);
}

/* Checks that the list at the top of the stack, at depth, matches the shape; widens the kind. */
static void check_level(lua_State *L, nest *n, int32_t depth) {
  int64_t len = list_length(L);
  if (len != n->shape[depth]) {
    char what[48], first_has[48];
    snprintf(what, sizeof what, "%lld element%s", (long long)len, len == 1 ? "" : "s");
    snprintf(first_has, sizeof first_has, "%lld", (long long)n->shape[depth]);
    ragged(L, what, depth, first_has);
  }
  for (int64_t i = 1; i <= n->shape[depth]; i++) {
    /* numbers, the common leaves, are told apart with one call more than the rawgeti */
    int kind = lua_rawgeti(L, -1, (lua_Integer)i) == LUA_TNUMBER
                   ? (lua_isinteger(L, -1) ? DLX_KIND_INT : DLX_KIND_FLOAT)
                   : leaf_kind(L, -1);
    if (depth + 1 < n->ndim) {
      if (kind >= 0) ragged(L, "a value", depth + 1, "a table");
      check_level(L, n, depth + 1);
    } else {
      if (kind < 0) ragged(L, "a table", depth + 1, "a value");
      if (kind > (int)n->kind) n->kind = (dlx_kind)kind;
    }
    lua_pop(L, 1);
  }
}

/* Writes the leaf at idx as the wide dtype. */
static void store(lua_State *L, int idx, dlx_dtype wide, char *p) {
  dlx_scalar s;
  double c[2] = {0, 0};
  dlxl_checkscalar(L, idx, &s);
  if (wide == DLX_BOOL) {
    *p = (char)s.v.b;
    return;
  }
  if (wide == DLX_INT64) {
    int64_t i = s.kind == DLX_KIND_BOOL ? (int64_t)s.v.b : s.v.i;
    memcpy(p, &i, sizeof i);
    return;
  }
  if (s.kind == DLX_KIND_BOOL)
    c[0] = s.v.b;
  else if (s.kind == DLX_KIND_INT)
    c[0] = (double)s.v.i;
  else if (s.kind == DLX_KIND_FLOAT)
    c[0] = s.v.f;
  else
    memcpy(c, s.v.c, sizeof c);
  memcpy(p, c, wide == DLX_COMPLEX128 ? sizeof c : sizeof c[0]);
}

/* Writes the number at the top of the stack as int64 or float64, as store would, in one call;
 * false for other leaves and wide dtypes. */
static bool store_number(lua_State *L, dlx_dtype wide, char *p) {
  if (wide == DLX_INT64) { /* the data has integers and booleans only */
    int64_t i = (int64_t)lua_tointegerx(L, -1, NULL);
    memcpy(p, &i, sizeof i);
    return true;
  }
  if (wide == DLX_FLOAT64) {
    double f = (double)lua_tonumberx(L, -1, NULL);
    memcpy(p, &f, sizeof f);
    return true;
  }
  return false;
}

static void fill_level(lua_State *L, const nest *n, int32_t depth, dlx_dtype wide, char **at) {
  for (int64_t i = 1; i <= n->shape[depth]; i++) {
    int type = lua_rawgeti(L, -1, (lua_Integer)i);
    if (depth + 1 < n->ndim) {
      fill_level(L, n, depth + 1, wide, at);
    } else {
      if (type != LUA_TNUMBER || !store_number(L, wide, *at)) store(L, -1, wide, *at);
      *at += dlx_itemsize(wide);
    }
    lua_pop(L, 1);
  }
}

/* Walks the data: its shape, then every element (rectangular, and the widest kind). */
static void walk(lua_State *L, int idx, nest *n) {
  infer_shape(L, idx, n);
  if (n->ndim == 0) {
    n->kind = (dlx_kind)leaf_kind(L, idx);
    return;
  }
  lua_pushvalue(L, idx);
  check_level(L, n, 0);
  lua_pop(L, 1);
}

/* Fills the fresh host tensor from the data at idx. */
static void fill(lua_State *L, int idx, const nest *n, const dlx_tensor *host) {
  char *at = dlxl_hostdata(host);
  if (n->ndim == 0) {
    store(L, idx, host->dtype, at);
    return;
  }
  lua_pushvalue(L, idx);
  fill_level(L, n, 0, host->dtype, &at);
  lua_pop(L, 1);
}

void dlxl_pushdata(lua_State *L, int idx, int dtype_or_infer, DLDevice device, dlx_memory memory) {
  nest n = {.ndim = 0, .kind = DLX_KIND_BOOL};
  DLDevice cpu = {kDLCPU, 0};
  dlx_tensor made;
  dlx_dtype dtype;
  dlx_error err;
  int64_t numel = 1;
  idx = lua_absindex(L, idx);
  luaL_checkstack(L, DLX_MAX_NDIM + 8, "nested tensor data");
  walk(L, idx, &n);
  dlxl_check(L, dlx_check_shape(n.shape, n.ndim, DLX_COMPLEX128, &err), &err);
  for (int32_t d = 0; d < n.ndim; d++) numel *= n.shape[d];
  if (numel == 0) n.kind = DLX_KIND_FLOAT; /* like torch.tensor({}): float32 */
  dtype = dtype_or_infer >= 0 ? (dlx_dtype)dtype_or_infer : dlx_default_dtype(n.kind);
  if (n.kind == DLX_KIND_COMPLEX && dlx_dtype_kind(dtype) != DLX_KIND_COMPLEX)
    dlxl_error(L, DLX_TYPE_ERROR,
               "complex data cannot make a %s tensor (expected a "
               "complex dtype)",
               dlx_dtype_info_of(dtype)->name);
  dlxl_pushempty(L, NULL, n.shape, n.ndim, dlx_wide_dtype(n.kind), cpu, DLX_MEMORY_DEFAULT, &made);
  fill(L, idx, &n, &made);
  dlxl_pushconverted(L, lua_gettop(L), dtype, device, memory);
}

/* tensor(data, dtype, device, usm) */
static int core_tensor(lua_State *L) {
  DLDevice device;
  dlx_memory memory;
  int dtype;
  lua_settop(L, 4);
  device = dlxl_checkdevice(L, 3);
  memory = dlxl_checkmemory(L, 4);
  dtype = lua_isnil(L, 2) ? -1 : (int)dlxl_checkdtype(L, 2, -1);
  dlxl_pushdata(L, 1, dtype, device, memory);
  return 1;
}

const luaL_Reg dlxl_value_funcs[] = {
    {"tensor", core_tensor},
    {NULL, NULL},
};

/* ---- t:item(), t:totable() */

/* The one element of a CPU tensor of the most common dtypes, read in place: the same value as
 * dlx_get_element's copy to the wide dtype gives, without the copy (a scalar read from a host is
 * on every call of a script that returns t:sum():item()). False for other tensors. */
static bool read_item_in_place(const dlx_tensor *t, dlx_scalar *out) {
  const char *p;
  float f;
  int32_t i;
  if (t->buffer->device.device_type != kDLCPU) return false;
  p = (const char *)t->buffer->data + t->offset * dlx_itemsize(t->dtype);
  switch (t->dtype) {
  case DLX_FLOAT32:
    memcpy(&f, p, sizeof f);
    out->v.f = f;
    break;
  case DLX_FLOAT64:
    memcpy(&out->v.f, p, sizeof out->v.f);
    break;
  case DLX_INT32:
    memcpy(&i, p, sizeof i);
    out->v.i = i;
    break;
  case DLX_INT64:
    memcpy(&out->v.i, p, sizeof out->v.i);
    break;
  default:
    return false;
  }
  out->kind = dlx_dtype_kind(t->dtype); /* DLX_KIND_FLOAT or DLX_KIND_INT */
  return true;
}

static int tensor_item(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  int64_t index[DLX_MAX_NDIM] = {0}, numel = dlx_tensor_numel(t);
  dlx_scalar value;
  dlx_error err;
  if (numel != 1)
    return dlxl_error(L, DLX_VALUE_ERROR,
                      "item() needs a tensor with exactly one element, this "
                      "one has %lld",
                      (long long)numel);
  dlxl_check(L, dlx_buffer_check(t->buffer, &err), &err); /* a borrowed tensor whose loan ended */
  if (!read_item_in_place(t, &value)) dlxl_check(L, dlx_get_element(t, index, &value, &err), &err);
  dlxl_pushscalar(L, &value);
  return 1;
}

/* Pushes the element at p of a wide host tensor. */
static void push_element(lua_State *L, dlx_dtype wide, const char *p) {
  int64_t i;
  uint64_t u;
  double f[2];
  if (wide == DLX_BOOL) {
    lua_pushboolean(L, *p != 0);
  } else if (wide == DLX_INT64) {
    memcpy(&i, p, sizeof i);
    lua_pushinteger(L, (lua_Integer)i);
  } else if (wide == DLX_UINT64) {
    memcpy(&u, p, sizeof u);
    push_uint64(L, u);
  } else if (wide == DLX_COMPLEX128) {
    memcpy(f, p, sizeof f);
    push_complex(L, f[0], f[1]);
  } else {
    memcpy(f, p, sizeof f[0]);
    lua_pushnumber(L, (lua_Number)f[0]);
  }
}

static void push_level(lua_State *L, const dlx_tensor *t, int32_t depth, const char **at) {
  int64_t size;
  if (depth == t->ndim) {
    push_element(L, t->dtype, *at);
    *at += dlx_itemsize(t->dtype);
    return;
  }
  size = t->shape[depth];
  lua_createtable(L, size < INT_MAX ? (int)size : INT_MAX, 0);
  for (int64_t i = 0; i < size; i++) {
    push_level(L, t, depth + 1, at);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* Most nested tables totable makes for a tensor with no elements. A non-empty tensor needs
 * fewer tables than it has elements (already copied to the host), but an empty one may still
 * ask for a table per index of its leading dims: {2^60, 0} would never finish. */
#define MAX_EMPTY_TABLES ((int64_t)1 << 24)

/* The number of nested tables totable makes, or -1 past MAX_EMPTY_TABLES. */
static int64_t empty_table_count(const dlx_tensor *t) {
  int64_t total = 1, level = 1;
  for (int32_t d = 0; d + 1 < t->ndim && level > 0; d++) {
    if (__builtin_mul_overflow(level, t->shape[d], &level) ||
        __builtin_add_overflow(total, level, &total) || total > MAX_EMPTY_TABLES)
      return -1;
  }
  return total;
}

static int tensor_totable(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  dlxl_result host;
  const char *at;
  int rc;
  if (dlx_tensor_numel(t) == 0 && empty_table_count(t) < 0)
    return dlxl_error(L, DLX_MEMORY_ERROR,
                      "totable of this empty tensor would make more than %lld nested tables",
                      (long long)MAX_EMPTY_TABLES);
  dlxl_result_begin(L, &host, t->ndim, lua_touserdata(L, 1));
  do rc = dlx_to_host_wide(&host.made, t, &host.err);
  while (dlxl_result_retry(L, &host, rc));
  dlxl_result_set(L, &host, rc);
  luaL_checkstack(L, host.made.ndim + 8, "nested tables");
  at = dlxl_hostdata(&host.made);
  push_level(L, &host.made, 0, &at);
  dlxl_closetensor(host.u);
  return 1;
}

const luaL_Reg dlxl_value_methods[] = {
    {"item", tensor_item},
    {"totable", tensor_totable},
    {NULL, NULL},
};
