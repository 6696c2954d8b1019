/* capi.c -- the host C API of include/dlx.h: dlx_push_capsule* (host -> Lua),
 * dlx_to_dlpack* (Lua -> host) and dlx_tensor_view, also published to other C modules as the
 * dlx_capi table (by module.c; borrow.c has the loans and dlx_push_tensor, exchange.c the
 * exchange table).
 *
 * None of them raises: the work runs inside lua_pcall of a C function that gets its arguments
 * as light userdata, and ownership moves as the last step of that function, when nothing can
 * fail any more. A failure returns the error's class (dlx_error_class). */
#include "lua/capi.h"

#include <stdio.h>

#include "lua/capsule.h"
#include "lua/errors.h"
#include "lua/tensor.h"

int dlxl_failure_class(lua_State *L, int status) {
  int code;
  if (status == LUA_ERRMEM) return DLX_MEMORY_ERROR;
  code = dlx_error_class(L, -1);
  return code != DLX_OK ? code : DLX_LUA_ERROR;
}

typedef struct failure {
  dlx_errclass code;
  const char *message;
} failure;

static int raise_failure(lua_State *L) {
  const failure *f = lua_touserdata(L, 1);
  return dlxl_error(L, f->code, "%s", f->message);
}

/* Pushes "<Class>: <message>" as dlx raises it (the class recorded for dlx_error_class) without
 * raising; returns code, or DLX_MEMORY_ERROR when even that failed. */
static int push_failure(lua_State *L, dlx_errclass code, const char *message) {
  failure f = {code, message};
  int status;
  if (!lua_checkstack(L, 3)) return DLX_MEMORY_ERROR;
  lua_pushcfunction(L, raise_failure);
  lua_pushlightuserdata(L, &f);
  status = lua_pcall(L, 1, 0, 0);
  return status == LUA_ERRMEM ? DLX_MEMORY_ERROR : (int)code;
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
    return dlxl_failure_class(L, status);
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
  const dlx_export_opts *host_opts; /* dlx_to_dlpack_ex's, or NULL for the defaults */
  bool nosync;                      /* the exchange table's export: no stream synchronisation */
  DLManagedTensorVersioned **versioned_out;
  DLManagedTensor **legacy_out;
  dlx_export_options opts; /* the core's, read from the above */
  bool plain;              /* the defaults: a capsule goes to the host as it is */
} export_request;

/* The host's options as the core's; raises for values out of range. */
static void read_host_opts(lua_State *L, export_request *req) {
  const dlx_export_opts *o = req->host_opts;
  static const dlx_copy_mode modes[] = {DLX_COPY_IF_NEEDED, DLX_COPY_NEVER, DLX_COPY_ALWAYS};
  req->opts = (dlx_export_options){.versioned = req->versioned, .copy = DLX_COPY_IF_NEEDED};
  req->plain = true;
  if (o == NULL) return;
  if (o->max_version.major == 0 && o->max_version.minor != 0)
    dlxl_error(L, DLX_VALUE_ERROR,
               "max_version 0.%u asks for a legacy (unversioned) tensor: use "
               "dlx_to_dlpack_legacy",
               o->max_version.minor);
  if (o->copy < 0 || o->copy > DLX_EXPORT_COPY_ALWAYS)
    dlxl_error(L, DLX_VALUE_ERROR, "copy = %d (expected a dlx_export_copy)", o->copy);
  req->opts.copy = modes[o->copy];
  req->opts.has_dl_device = o->dl_device.device_type != 0;
  req->opts.dl_device = o->dl_device;
  req->opts.has_stream = o->has_stream != 0;
  req->opts.stream = o->stream;
  req->plain =
      o->copy == DLX_EXPORT_COPY_IF_NEEDED && !req->opts.has_dl_device && !req->opts.has_stream;
}

/* Exports t for the host, as the request asks (by default zero-copy when possible). Ownership
 * moves to the host only when everything has succeeded. */
static void export_tensor(lua_State *L, const dlx_tensor *t, const export_request *req) {
  dlx_export_options opts = req->opts;
  const dlx_backend *backend = dlx_backend_for(dlx_tensor_device(t).device_type);
  DLManagedTensorVersioned *versioned;
  DLManagedTensor *legacy;
  dlx_error err;
  if (req->nosync && backend != NULL && backend->stream != NULL) {
    opts.has_stream = true; /* DLPack's -1: the consumer synchronises itself */
    opts.stream = -1;
  }
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

/* A versioned struct has no legacy form of its own, and options may ask for a copy or another
 * device: import it, then export it again. */
static void hand_over_imported(lua_State *L, dlxl_capsule *c, const export_request *req) {
  DLManagedTensorVersioned *versioned;
  DLManagedTensor *legacy;
  dlx_error err;
  dlxl_tensor *u = dlxl_importcapsule(L, c);
  dlx_tensor view;
  int rc = dlx_export(dlxl_getview(u, &view), &req->opts, &versioned, &legacy, &err);
  dlxl_closetensor(u); /* the export holds its own reference */
  dlxl_check(L, rc, &err);
  if (req->versioned)
    *req->versioned_out = versioned;
  else
    *req->legacy_out = legacy;
}

/* A capsule is consumed, whichever struct the host asks for. */
static void export_capsule(lua_State *L, dlxl_capsule *c, const export_request *req) {
  if (c->used || c->ptr == NULL) dlxl_error(L, DLX_VALUE_ERROR, "capsule already consumed");
  if (req->plain && c->versioned == req->versioned)
    hand_over(c, req);
  else if (req->plain && req->versioned)
    hand_over_wrapped(L, c, req);
  else
    hand_over_imported(L, c, req);
}

/* Calls require("dlx").from_dlpack(value at idx) and leaves the tensor on the stack; returns it
 * as a view in *view. */
static const dlx_tensor *from_dlpack(lua_State *L, int idx, dlx_tensor *view) {
  if (lua_getglobal(L, "require") != LUA_TFUNCTION)
    dlxl_error(L, DLX_TYPE_ERROR,
               "exporting a value with a __dlpack method needs require "
               "\"dlx\" (open the package library)");
  lua_pushliteral(L, "dlx");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "from_dlpack");
  lua_pushvalue(L, idx);
  lua_call(L, 1, 1);
  return dlxl_checktensor(L, -1, view);
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
  export_request *req = lua_touserdata(L, 2);
  dlxl_capsule *c;
  dlxl_tensor *u;
  dlx_tensor view;
  if (req->versioned ? req->versioned_out == NULL : req->legacy_out == NULL)
    return dlxl_error(L, DLX_VALUE_ERROR, "out must not be NULL");
  read_host_opts(L, req);
  if ((u = dlxl_totensor(L, 1)) != NULL) {
    export_tensor(L, dlxl_getview(dlxl_checkopen(L, u), &view), req);
  } else if ((c = dlxl_tocapsule(L, 1)) != NULL) {
    export_capsule(L, c, req);
  } else if (has_dlpack_method(L, 1)) {
    export_tensor(L, from_dlpack(L, 1, &view), req);
  } else {
    dlxl_error(L, DLX_TYPE_ERROR,
               "cannot export %s through DLPack (expected a tensor, a capsule "
               "or a value with a __dlpack method)",
               dlxl_typename(L, 1));
  }
  return 0;
}

/* Runs the export protected. Without stack space there is no room for a message either. */
static int to_dlpack(lua_State *L, int idx, export_request *req) {
  int status;
  idx = lua_absindex(L, idx);
  if (!lua_checkstack(L, 4)) return DLX_MEMORY_ERROR;
  lua_pushcfunction(L, to_dlpack_protected);
  lua_pushvalue(L, idx);
  lua_pushlightuserdata(L, (void *)req);
  status = lua_pcall(L, 2, 0, 0);
  return status == LUA_OK ? DLX_OK : dlxl_failure_class(L, status);
}

DLXL_PUBLIC int dlx_to_dlpack(lua_State *L, int idx, DLManagedTensorVersioned **out) {
  export_request req = {.versioned = true, .versioned_out = out};
  if (out != NULL) *out = NULL;
  return to_dlpack(L, idx, &req);
}

DLXL_PUBLIC int dlx_to_dlpack_legacy(lua_State *L, int idx, DLManagedTensor **out) {
  export_request req = {.versioned = false, .legacy_out = out};
  if (out != NULL) *out = NULL;
  return to_dlpack(L, idx, &req);
}

DLXL_PUBLIC int dlx_to_dlpack_ex(lua_State *L, int idx, const dlx_export_opts *opts,
                                 DLManagedTensorVersioned **out) {
  export_request req = {.versioned = true, .host_opts = opts, .versioned_out = out};
  if (out != NULL) *out = NULL;
  return to_dlpack(L, idx, &req);
}

int dlxl_to_dlpack_nosync(lua_State *L, int idx, DLManagedTensorVersioned **out) {
  export_request req = {.versioned = true, .nosync = true, .versioned_out = out};
  if (out != NULL) *out = NULL;
  return to_dlpack(L, idx, &req);
}

/* ---- a borrowed view, for hosts that read a tensor in place: no pcall, no allocation */

DLXL_PUBLIC int dlx_tensor_view(lua_State *L, int idx, DLTensor *out) {
  const dlxl_tensor *t;
  int bits;
  if (!lua_checkstack(L, 2)) return DLX_MEMORY_ERROR; /* luaL_testudata pushes two values */
  t = luaL_testudata(L, idx, DLXL_TENSOR);
  if (t == NULL) {
    char message[64];
    snprintf(message, sizeof message, "expected a tensor, got %s", luaL_typename(L, idx));
    return push_failure(L, DLX_TYPE_ERROR, message);
  }
  if (out == NULL) return push_failure(L, DLX_VALUE_ERROR, "out must not be NULL");
  if (t->buffer == NULL) return push_failure(L, DLX_VALUE_ERROR, "tensor is closed");
  if (dlx_buffer_is_borrowed(t->buffer)) {
    dlx_error err;
    if (dlx_buffer_check(t->buffer, &err) != 0) return push_failure(L, err.code, err.message);
  }
  bits = dlx_dtype_bits(t->dtype);
  if (t->offset * bits % 8 != 0)
    return push_failure(L, DLX_BUFFER_ERROR,
                        "the view starts inside a byte, which byte_offset cannot express");
  out->data = t->buffer->data;
  out->device = t->buffer->device;
  out->ndim = t->ndim;
  out->dtype = dlx_dtype_info_of(t->dtype)->dl;
  out->shape = t->ndim > 0 ? (int64_t *)t->dims : NULL;
  out->strides = t->ndim > 0 ? (int64_t *)(t->dims + t->room) : NULL;
  out->byte_offset = (uint64_t)(t->offset * bits / 8);
  return DLX_OK;
}
