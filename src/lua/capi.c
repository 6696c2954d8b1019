/* capi.c -- the host C API of include/dlx.h: dlx_push_capsule* (host -> Lua) and
 * dlx_to_dlpack* (Lua -> host), also published to other C modules as the dlx_capi table.
 *
 * None of them raises: the work runs inside lua_pcall of a C function that gets its arguments
 * as light userdata, and ownership moves as the last step of that function, when nothing can
 * fail any more. A failure returns the error's class (dlx_error_class). */
#include "lua/binding.h"

/* The class of the error that a failed lua_pcall left on the stack; never DLX_OK. */
static int failure_class(lua_State *L, int status) {
  int code;
  if (status == LUA_ERRMEM) return DLX_MEMORY_ERROR;
  code = dlx_error_class(L, -1);
  return code != DLX_OK ? code : DLX_LUA_ERROR;
}

/* ---- host -> Lua */

typedef struct push_request {
  void *ptr;
  bool versioned;
} push_request;

static int push_protected(lua_State *L) {
  const push_request *req = lua_touserdata(L, 1);
  dlxl_capsule *c;
  if (req->ptr == NULL) return dlxl_error(L, DLX_VALUE_ERROR, "NULL managed tensor");
  c = dlxl_newcapsule(L);
  c->versioned = req->versioned; /* nothing can fail after this: the capsule owns ptr */
  c->ptr = req->ptr;
  return 1;
}

static int push_capsule(lua_State *L, void *ptr, bool versioned) {
  push_request req = {ptr, versioned};
  int status;
  if (!lua_checkstack(L, 3)) {
    dlxl_delete_managed(ptr, versioned);
    return DLX_MEMORY_ERROR;
  }
  lua_pushcfunction(L, push_protected);
  lua_pushlightuserdata(L, &req);
  status = lua_pcall(L, 1, 1, 0);
  if (status != LUA_OK) {
    dlxl_delete_managed(ptr, versioned);
    return failure_class(L, status);
  }
  return DLX_OK;
}

DLXL_PUBLIC int dlx_push_capsule(lua_State *L, DLManagedTensorVersioned *mt) {
  return push_capsule(L, mt, true);
}

DLXL_PUBLIC int dlx_push_capsule_legacy(lua_State *L, DLManagedTensor *mt) {
  return push_capsule(L, mt, false);
}

/* ---- Lua -> host */

typedef struct export_request {
  bool versioned;
  DLManagedTensorVersioned **versioned_out;
  DLManagedTensor **legacy_out;
} export_request;

/* Exports t for the host, as the request asks, with the defaults of __dlpack: zero-copy when
 * possible. Ownership moves to the host only when everything has succeeded. */
static void export_tensor(lua_State *L, const dlx_tensor *t, const export_request *req) {
  dlx_export_options opts = {.versioned = req->versioned, .copy = DLX_COPY_IF_NEEDED};
  DLManagedTensorVersioned *versioned;
  DLManagedTensor *legacy;
  dlx_error err;
  dlxl_check(L, dlx_export(t, &opts, &versioned, &legacy, &err), &err);
  if (req->versioned)
    *req->versioned_out = versioned;
  else
    *req->legacy_out = legacy;
}

/* The capsule's own struct goes to the host as it is. */
static void hand_over(dlxl_capsule *c, const export_request *req) {
  if (req->versioned)
    *req->versioned_out = c->ptr;
  else
    *req->legacy_out = c->ptr;
  c->used = true;
  c->ptr = NULL;
}

/* A legacy struct goes to the host inside a versioned one that owns it. */
static void hand_over_wrapped(lua_State *L, dlxl_capsule *c, const export_request *req) {
  dlx_error err;
  DLManagedTensorVersioned *wrapped = dlx_wrap_legacy(c->ptr, &err);
  if (wrapped == NULL) dlxl_raise(L, &err); /* the capsule still owns its tensor */
  c->used = true;
  c->ptr = NULL;
  *req->versioned_out = wrapped;
}

/* A versioned struct has no legacy form of its own: import it, then export it again. */
static void hand_over_imported(lua_State *L, dlxl_capsule *c, const export_request *req) {
  dlx_export_options opts = {.versioned = false, .copy = DLX_COPY_IF_NEEDED};
  DLManagedTensorVersioned *versioned;
  DLManagedTensor *legacy;
  dlx_error err;
  dlx_tensor *t = dlxl_importcapsule(L, c);
  int rc = dlx_export(t, &opts, &versioned, &legacy, &err);
  dlx_tensor_close(t); /* the export holds its own reference */
  dlxl_check(L, rc, &err);
  *req->legacy_out = legacy;
}

/* A capsule is consumed, whichever struct the host asks for. */
static void export_capsule(lua_State *L, dlxl_capsule *c, const export_request *req) {
  if (c->used || c->ptr == NULL) dlxl_error(L, DLX_VALUE_ERROR, "capsule already consumed");
  if (c->versioned == req->versioned)
    hand_over(c, req);
  else if (req->versioned)
    hand_over_wrapped(L, c, req);
  else
    hand_over_imported(L, c, req);
}

/* Calls require("dlx").from_dlpack(value at idx) and leaves the tensor on the stack. */
static const dlx_tensor *from_dlpack(lua_State *L, int idx) {
  if (lua_getglobal(L, "require") != LUA_TFUNCTION)
    dlxl_error(L, DLX_TYPE_ERROR,
               "exporting a value with a __dlpack method needs require "
               "\"dlx\" (open the package library)");
  lua_pushliteral(L, "dlx");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "from_dlpack");
  lua_pushvalue(L, idx);
  lua_call(L, 1, 1);
  return dlxl_checktensor(L, -1);
}

/* A table or an indexable userdata whose __dlpack is a function. */
static bool has_dlpack_method(lua_State *L, int idx) {
  int type = lua_type(L, idx);
  bool yes;
  if (type == LUA_TUSERDATA) {
    if (luaL_getmetafield(L, idx, "__index") == LUA_TNIL) return false;
    lua_pop(L, 1);
  } else if (type != LUA_TTABLE) {
    return false;
  }
  lua_getfield(L, idx, "__dlpack");
  yes = lua_isfunction(L, -1);
  lua_pop(L, 1);
  return yes;
}

/* Arguments: the value, then the export_request as light userdata. */
static int to_dlpack_protected(lua_State *L) {
  const export_request *req = lua_touserdata(L, 2);
  dlxl_capsule *c;
  if (req->versioned ? req->versioned_out == NULL : req->legacy_out == NULL)
    return dlxl_error(L, DLX_VALUE_ERROR, "out must not be NULL");
  if (dlxl_totensor(L, 1) != NULL) {
    export_tensor(L, dlxl_checktensor(L, 1), req);
  } else if ((c = dlxl_tocapsule(L, 1)) != NULL) {
    export_capsule(L, c, req);
  } else if (has_dlpack_method(L, 1)) {
    export_tensor(L, from_dlpack(L, 1), req);
  } else {
    dlxl_error(L, DLX_TYPE_ERROR,
               "cannot export %s through DLPack (expected a tensor, a capsule "
               "or a value with a __dlpack method)",
               dlxl_typename(L, 1));
  }
  return 0;
}

/* Runs the export protected. Without stack space there is no room for a message either. */
static int to_dlpack(lua_State *L, int idx, const export_request *req) {
  int status;
  idx = lua_absindex(L, idx);
  if (!lua_checkstack(L, 4)) return DLX_MEMORY_ERROR;
  lua_pushcfunction(L, to_dlpack_protected);
  lua_pushvalue(L, idx);
  lua_pushlightuserdata(L, (void *)req);
  status = lua_pcall(L, 2, 0, 0);
  return status == LUA_OK ? DLX_OK : failure_class(L, status);
}

DLXL_PUBLIC int dlx_to_dlpack(lua_State *L, int idx, DLManagedTensorVersioned **out) {
  export_request req = {true, out, NULL};
  if (out != NULL) *out = NULL;
  return to_dlpack(L, idx, &req);
}

DLXL_PUBLIC int dlx_to_dlpack_legacy(lua_State *L, int idx, DLManagedTensor **out) {
  export_request req = {false, NULL, out};
  if (out != NULL) *out = NULL;
  return to_dlpack(L, idx, &req);
}
