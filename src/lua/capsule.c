/* capsule.c -- the dlx.Capsule userdata: a DLPack managed tensor in transit, consumed exactly
 * once. Like a PyCapsule, an unconsumed capsule calls the tensor's deleter when it is
 * collected; a consumed one ("used_...") does nothing. */
#include "lua/capsule.h"

#include <string.h>

#include "lua/errors.h"
#include "lua/state.h"
#include "lua/tables.h"
#include "lua/tensor.h"

static const char *capsule_name(const dlxl_capsule *c) {
  if (c->versioned) return c->used ? "used_dltensor_versioned" : "dltensor_versioned";
  return c->used ? "used_dltensor" : "dltensor";
}

/* The registry holds the metatable under this key's address as well as under its name, as it
 * does the tensor's, for the host C API's functions (which have no state upvalue). */
static const char metatable_key;

/* Pushes the metatable, found by name (and kept under the key) the first time. */
static void push_metatable(lua_State *L) {
  if (dlxl_upstate(L) != NULL) {
    lua_getiuservalue(L, DLXL_STATE, DLXL_UV_CAPSULE_MT);
    return;
  }
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &metatable_key) != LUA_TNIL) return;
  lua_pop(L, 1);
  if (luaL_getmetatable(L, DLXL_CAPSULE) == LUA_TNIL) {
    /* a host pushed a capsule before require "dlx.core": load the module first */
    lua_pop(L, 1);
    dlxl_require_core(L);
    luaL_getmetatable(L, DLXL_CAPSULE);
  }
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &metatable_key);
}

dlxl_capsule *dlxl_newcapsule(lua_State *L) {
  dlxl_capsule *c = lua_newuserdatauv(L, sizeof *c, 0);
  memset(c, 0, sizeof *c);
  push_metatable(L);
  lua_setmetatable(L, -2);
  return c;
}

dlxl_capsule *dlxl_tocapsule(lua_State *L, int idx) {
  const dlxl_state *s = dlxl_upstate(L);
  void *p = lua_touserdata(L, idx);
  bool same;
  if (p == NULL || !lua_getmetatable(L, idx)) return NULL;
  if (s != NULL) {
    same = lua_topointer(L, -1) == s->capsule_mt;
    lua_pop(L, 1);
    return same ? p : NULL;
  }
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &metatable_key) == LUA_TNIL) {
    lua_pop(L, 2); /* not opened by this copy of the library: look it up by name */
    return luaL_testudata(L, idx, DLXL_CAPSULE);
  }
  same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? p : NULL;
}

void dlxl_delete_managed(void *ptr, bool versioned) {
  if (ptr == NULL) return;
  if (versioned) {
    DLManagedTensorVersioned *mt = ptr;
    if (mt->deleter != NULL) mt->deleter(mt);
  } else {
    DLManagedTensor *mt = ptr;
    if (mt->deleter != NULL) mt->deleter(mt);
  }
}

/* Calls the deleter of an unconsumed capsule, once. A script may call it on any value through
 * getmetatable(c): checked. */
static int capsule_gc(lua_State *L) {
  dlxl_capsule *c = dlxl_tocapsule(L, 1);
  void *ptr;
  if (c == NULL) c = luaL_checkudata(L, 1, DLXL_CAPSULE); /* raises its usual message */
  ptr = c->ptr;
  if (c->used || ptr == NULL) return 0;
  c->used = true;
  c->ptr = NULL;
  dlxl_delete_managed(ptr, c->versioned);
  return 0;
}

/* c.name; c.flags: the DLPack flags of an unconsumed versioned capsule (nil otherwise), so that
 * a consumer can see IS_COPIED before it imports. */
static int capsule_index(lua_State *L) {
  const dlxl_capsule *c = luaL_checkudata(L, 1, DLXL_CAPSULE);
  const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "";
  if (strcmp(key, "name") == 0)
    lua_pushstring(L, capsule_name(c));
  else if (strcmp(key, "flags") == 0 && c->versioned && !c->used && c->ptr != NULL)
    lua_pushinteger(L, (lua_Integer)((DLManagedTensorVersioned *)c->ptr)->flags);
  else
    lua_pushnil(L);
  return 1;
}

static int capsule_tostring(lua_State *L) {
  const dlxl_capsule *c = luaL_checkudata(L, 1, DLXL_CAPSULE);
  lua_pushfstring(L, "capsule \"%s\": %p", capsule_name(c), (void *)c);
  return 1;
}

static const luaL_Reg capsule_metamethods[] = {
    {"__index", capsule_index},
    {"__tostring", capsule_tostring},
    {"__gc", capsule_gc},
    {NULL, NULL},
};

void dlxl_open_capsule(lua_State *L, int state) {
  dlxl_state *s = lua_touserdata(L, state);
  if (luaL_newmetatable(L, DLXL_CAPSULE)) {
    lua_pushvalue(L, state);
    luaL_setfuncs(L, capsule_metamethods, 1);
  }
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &metatable_key);
  s->capsule_mt = lua_topointer(L, -1);
  lua_setiuservalue(L, state, DLXL_UV_CAPSULE_MT);
}

/* The ndim the managed tensor claims (the import checks it): the room its userdata needs. */
static int32_t managed_ndim(const void *ptr, bool versioned) {
  return versioned ? ((const DLManagedTensorVersioned *)ptr)->dl_tensor.ndim
                   : ((const DLManagedTensor *)ptr)->dl_tensor.ndim;
}

dlxl_tensor *dlxl_importcapsule(lua_State *L, dlxl_capsule *c) {
  dlxl_tensor *out;
  dlx_tensor made;
  dlx_error err;
  void *ptr = c->ptr;
  int rc;
  if (c->used || ptr == NULL) dlxl_error(L, DLX_VALUE_ERROR, "capsule already consumed");
  /* may raise: the capsule still owns the tensor */
  out = dlxl_newtensor(L, managed_ndim(ptr, c->versioned));
  c->used = true; /* from here on the import owns it, whatever happens */
  c->ptr = NULL;
  if (c->versioned)
    rc = dlx_import_versioned(ptr, &made, &err);
  else
    rc = dlx_import_legacy(ptr, &made, &err);
  dlxl_check(L, rc, &err); /* on failure the deleter has run */
  dlxl_settensor(L, out, &made);
  dlxl_gcdebt(L, dlx_tensor_nbytes(&made));
  return out;
}

/* import_capsule(capsule) -> tensor; consumes the capsule. */
static int core_import_capsule(lua_State *L) {
  dlxl_capsule *c = dlxl_tocapsule(L, 1);
  if (c == NULL)
    return dlxl_error(L, DLX_TYPE_ERROR, "import_capsule takes a capsule, got %s",
                      dlxl_typename(L, 1));
  dlxl_importcapsule(L, c);
  return 1;
}

static int core_is_capsule(lua_State *L) {
  lua_pushboolean(L, dlxl_tocapsule(L, 1) != NULL);
  return 1;
}

const luaL_Reg dlxl_capsule_funcs[] = {
    {"import_capsule", core_import_capsule},
    {"is_capsule", core_is_capsule},
    {NULL, NULL},
};
