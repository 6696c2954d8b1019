/* tensor.c -- the dlx.Tensor userdata: life cycle, properties and the metamethods of its own
 * (module.c makes the metatable, with every file's methods and metamethods).
 *
 * As in liolib, a tensor userdata is created closed (no buffer) with its metatable already set,
 * and only then is memory acquired into it, so an error at any point leaks nothing. One
 * idempotent close serves __gc, __close and t:close(). */
#include "lua/tensor.h"

#include <limits.h>
#include <string.h>

#include "lua/device.h"
#include "lua/errors.h"
#include "lua/state.h"
#include "lua/tables.h"

/* The registry holds the metatable under this key's address as well as under its name, for the
 * host C API's functions (which have no state upvalue): a lookup by address is a plain table
 * access, where one by name first interns the string. */
static const char metatable_key;

/* A closed userdata with room for room dims, pushed; its metatable is not set yet. */
static dlxl_tensor *push_closed(lua_State *L, int32_t room) {
  dlxl_tensor *u;
  if (room < 0 || room > DLX_MAX_NDIM) room = DLX_MAX_NDIM;
  u = lua_newuserdatauv(L, sizeof *u + 2 * (size_t)room * sizeof u->dims[0], 0);
  u->buffer = NULL;
  u->dtype = (dlx_dtype)0;
  u->ndim = 0;
  u->room = room;
  u->readonly = false;
  u->offset = 0;
  return u;
}

dlxl_tensor *dlxl_newtensor_mt(lua_State *L, int32_t room, int mt_idx) {
  dlxl_tensor *u = push_closed(L, room);
  lua_pushvalue(L, mt_idx);
  lua_setmetatable(L, -2);
  return u;
}

dlxl_tensor *dlxl_newtensor(lua_State *L, int32_t room) {
  dlxl_tensor *u = push_closed(L, room);
  if (dlxl_upstate(L) != NULL) {
    lua_getiuservalue(L, DLXL_STATE, DLXL_UV_TENSOR_MT);
  } else if (lua_rawgetp(L, LUA_REGISTRYINDEX, &metatable_key) == LUA_TNIL) {
    lua_pop(L, 1); /* a host pushes a tensor before require "dlx": load dlx.core first */
    dlxl_require_core(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &metatable_key);
  }
  lua_setmetatable(L, -2);
  return u;
}

void dlxl_settensor(lua_State *L, dlxl_tensor *u, const dlx_tensor *t) {
  if (t->ndim > u->room) {
    dlx_buffer_release(t->buffer);
    dlxl_error(L, DLX_VALUE_ERROR, "internal error: a %d-d result in a tensor made for %d dims",
               (int)t->ndim, (int)u->room);
  }
  u->dtype = t->dtype;
  u->ndim = t->ndim;
  u->readonly = t->readonly;
  u->offset = t->offset;
  for (int32_t d = 0; d < t->ndim; d++) { /* a few dims: no call to memcpy */
    u->dims[d] = t->shape[d];
    u->dims[u->room + d] = t->strides[d];
  }
  u->buffer = t->buffer;
}

const dlx_tensor *dlxl_getview(const dlxl_tensor *u, dlx_tensor *view) {
  view->buffer = u->buffer;
  view->dtype = u->dtype;
  view->ndim = u->ndim;
  view->readonly = u->readonly;
  view->offset = u->offset;
  for (int32_t d = 0; d < u->ndim; d++) { /* a few dims: no call to memcpy */
    view->shape[d] = u->dims[d];
    view->strides[d] = u->dims[u->room + d];
  }
  return view;
}

void dlxl_closetensor(dlxl_tensor *u) {
  dlx_buffer_release(u->buffer);
  u->buffer = NULL;
}

dlxl_tensor *dlxl_totensor_keep(lua_State *L, const dlxl_state *s, int idx) {
  void *p = lua_touserdata(L, idx);
  if (p == NULL || !lua_getmetatable(L, idx)) return NULL;
  return lua_topointer(L, -1) == s->tensor_mt ? p : NULL;
}

dlxl_tensor *dlxl_totensor_in(lua_State *L, const dlxl_state *s, int idx) {
  void *p = lua_touserdata(L, idx);
  bool same;
  if (p == NULL || !lua_getmetatable(L, idx)) return NULL;
  same = lua_topointer(L, -1) == s->tensor_mt;
  lua_pop(L, 1);
  return same ? p : NULL;
}

dlxl_tensor *dlxl_totensor(lua_State *L, int idx) {
  const dlxl_state *s = dlxl_upstate(L);
  bool same;
  if (s != NULL) return dlxl_totensor_in(L, s, idx);
  if (lua_touserdata(L, idx) == NULL || !lua_getmetatable(L, idx)) return NULL;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &metatable_key);
  same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? lua_touserdata(L, idx) : NULL;
}

dlxl_tensor *dlxl_checkopen(lua_State *L, dlxl_tensor *u) {
  if (u->buffer == NULL) dlxl_error(L, DLX_VALUE_ERROR, "tensor is closed");
  return u;
}

const dlx_tensor *dlxl_checktensor(lua_State *L, int idx, dlx_tensor *view) {
  dlxl_tensor *u = dlxl_totensor(L, idx);
  if (u == NULL) dlxl_error(L, DLX_TYPE_ERROR, "expected a tensor, got %s", dlxl_typename(L, idx));
  return dlxl_getview(dlxl_checkopen(L, u), view);
}

/* Every new tensor's bytes count, cached block or not: the collector's pace is set by how fast
 * live memory grows, and a block taken from the cache is live again just like a new one. Cached
 * blocks are not live and are not reported. (Not reporting cache hits would let a loop of
 * temporaries run without collecting until the cache was drained and every temporary live.)
 *
 * Small tensors are reported in batches: a collector step costs far more than making a small
 * tensor, and rounding each one up to the KiB that LUA_GCSTEP counts in would overstate its
 * size many times over. Their bytes add up in this state's pending count and go to the
 * collector once they pass a batch; a tensor of a batch or more goes at once, with what was
 * pending, so that big temporaries are collected as promptly as ever. */
#define GC_BATCH_BYTES (64 * 1024)

void dlxl_gcdebt(lua_State *L, int64_t nbytes) {
  dlxl_state *s = dlxl_getstate(L);
  if (s != NULL) dlxl_gcdebt_in(L, s, nbytes); /* else not opened in this state: nothing to pace */
}

void dlxl_gcdebt_in(lua_State *L, dlxl_state *s, int64_t nbytes) {
  int64_t kib;
  if (nbytes > INT64_MAX - s->pending_bytes) nbytes = INT64_MAX - s->pending_bytes;
  s->pending_bytes += nbytes;
  if (s->pending_bytes < GC_BATCH_BYTES) return;
  kib = s->pending_bytes / 1024;
  s->pending_bytes %= 1024;
  if (!lua_gc(L, LUA_GCISRUNNING)) return; /* the program stopped the collector */
  if (kib > INT_MAX / 2) kib = INT_MAX / 2;
  lua_gc(L, LUA_GCSTEP, (int)kib);
}

/* t:close(), __gc and __close. A script may call them on any value through getmetatable(t):
 * checked. */
static int tensor_close(lua_State *L) {
  dlxl_tensor *u = dlxl_totensor_keep(L, dlxl_upstate(L), 1); /* the stack is dropped next */
  if (u == NULL)
    return dlxl_error(L, DLX_TYPE_ERROR, "expected a tensor, got %s", dlxl_typename(L, 1));
  dlxl_closetensor(u);
  return 0;
}

/* ---- properties */

static void push_int64s(lua_State *L, const int64_t *values, int32_t count) {
  lua_createtable(L, count, 0);
  for (int32_t i = 0; i < count; i++) {
    lua_pushinteger(L, values[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

static void prop_shape(lua_State *L, const dlx_tensor *t) { push_int64s(L, t->shape, t->ndim); }
static void prop_strides(lua_State *L, const dlx_tensor *t) { push_int64s(L, t->strides, t->ndim); }
static void prop_ndim(lua_State *L, const dlx_tensor *t) { lua_pushinteger(L, t->ndim); }
static void prop_numel(lua_State *L, const dlx_tensor *t) {
  lua_pushinteger(L, dlx_tensor_numel(t));
}
static void prop_dtype(lua_State *L, const dlx_tensor *t) {
  lua_pushstring(L, dlx_dtype_info_of(t->dtype)->name);
}
static void prop_nbytes(lua_State *L, const dlx_tensor *t) {
  lua_pushinteger(L, dlx_tensor_nbytes(t));
}
static void prop_device(lua_State *L, const dlx_tensor *t) {
  dlxl_pushdevice(L, dlx_tensor_device(t));
}
static void prop_readonly(lua_State *L, const dlx_tensor *t) { lua_pushboolean(L, t->readonly); }
static void prop_usm(lua_State *L, const dlx_tensor *t) { dlxl_pushmemory(L, t); }

/* Bytes per element: an integer, or 0.5 and 0.75 for the packed fp4 and fp6. */
static void prop_itemsize(lua_State *L, const dlx_tensor *t) {
  int bits = dlx_dtype_bits(t->dtype);
  if (bits % 8 == 0)
    lua_pushinteger(L, bits / 8);
  else
    lua_pushnumber(L, bits / 8.0);
}

static const struct {
  const char *name;
  dlxl_property push;
} properties[] = {
    {"shape", prop_shape},   {"strides", prop_strides}, {"ndim", prop_ndim},
    {"numel", prop_numel},   {"dtype", prop_dtype},     {"itemsize", prop_itemsize},
    {"nbytes", prop_nbytes}, {"device", prop_device},   {"readonly", prop_readonly},
    {"usm", prop_usm},
};

dlxl_property dlxl_findproperty(const char *key) {
  for (size_t i = 0; i < sizeof properties / sizeof properties[0]; i++)
    if (key[0] == properties[i].name[0] && strcmp(key, properties[i].name) == 0)
      return properties[i].push;
  return NULL;
}

/* #t: the size of the first dim. */
static int tensor_len(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  if (t->ndim == 0) return dlxl_error(L, DLX_TYPE_ERROR, "# of a 0-d tensor: it has no dims");
  lua_pushinteger(L, t->shape[0]);
  return 1;
}

/* A summary without values; the Lua layer replaces it with a printer that shows them. */
static int tensor_tostring(lua_State *L) {
  dlx_tensor view;
  const dlxl_tensor *u = luaL_checkudata(L, 1, DLXL_TENSOR);
  const dlx_tensor *t = dlxl_getview(u, &view);
  char device[48];
  luaL_Buffer b;
  if (t->buffer == NULL) {
    lua_pushliteral(L, "tensor(closed)");
    return 1;
  }
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "tensor(shape={");
  for (int32_t d = 0; d < t->ndim; d++) {
    lua_pushfstring(L, d ? ", %I" : "%I", (lua_Integer)t->shape[d]);
    luaL_addvalue(&b);
  }
  lua_pushfstring(L, "}, dtype=%s, device=%s)", dlx_dtype_info_of(t->dtype)->name,
                  dlx_device_format(dlx_tensor_device(t), device, sizeof device));
  luaL_addvalue(&b);
  luaL_pushresult(&b);
  return 1;
}

const luaL_Reg dlxl_tensor_metamethods[] = {
    {"__len", tensor_len},  {"__tostring", tensor_tostring},
    {"__gc", tensor_close}, {"__close", tensor_close},
    {NULL, NULL},
};

const luaL_Reg dlxl_tensor_methods[] = {
    {"close", tensor_close},
    {NULL, NULL},
};

void dlxl_set_tensor_mt(lua_State *L, int state) {
  dlxl_state *s = lua_touserdata(L, state);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &metatable_key);
  s->tensor_mt = lua_topointer(L, -1);
  lua_setiuservalue(L, state, DLXL_UV_TENSOR_MT);
}
