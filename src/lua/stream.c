/* stream.c -- the dlx.Stream userdata: a stream of a device whose backend has streams (the
 * generic stream entries of backend.h), the current stream of each device, running code with a
 * stream current, and a busy kernel for tests of the order of work.
 *
 * A Stream made by dlx.stream(device) owns its stream and destroys it on close; one that wraps
 * a handle (dlx.stream(device, handle), dlx.current_stream) does not. */
#include "lua/stream.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lua/args.h"
#include "lua/device.h"
#include "lua/errors.h"
#include "lua/tables.h"

typedef struct dlxl_stream {
  DLDevice device;
  dlx_stream_handle handle;
  bool owned;
  bool closed;
} dlxl_stream;

/* The stream operations of device's backend, or raises: ValueError for devices without. */
static const dlx_stream_ops *checkops(lua_State *L, DLDevice device) {
  const dlx_backend *backend = dlx_backend_for(device.device_type);
  char name[48];
  if (backend == NULL || backend->stream == NULL)
    dlxl_error(L, DLX_VALUE_ERROR,
               "%s has no streams (streams belong to GPU devices such as cuda:0)",
               dlx_device_format(device, name, sizeof name));
  return backend->stream;
}

static dlxl_stream *pushstream(lua_State *L, DLDevice device, dlx_stream_handle handle,
                               bool owned) {
  dlxl_stream *s = lua_newuserdatauv(L, sizeof *s, 0);
  s->device = device;
  s->handle = handle;
  s->owned = owned;
  s->closed = false;
  luaL_setmetatable(L, DLXL_STREAM);
  return s;
}

static dlxl_stream *checkstream(lua_State *L, int idx) {
  dlxl_stream *s = luaL_testudata(L, idx, DLXL_STREAM);
  if (s == NULL) dlxl_error(L, DLX_TYPE_ERROR, "expected a stream, got %s", dlxl_typename(L, idx));
  if (s->closed) dlxl_error(L, DLX_VALUE_ERROR, "stream is closed");
  return s;
}

/* ---- module functions */

/* stream(device[, handle]) -> a new stream of device, or a wrapper of an existing handle (an
 * integer, such as torch.cuda.current_stream().cuda_stream). */
static int core_stream(lua_State *L) {
  DLDevice device = dlxl_checkdevice(L, 1);
  const dlx_stream_ops *ops = checkops(L, device);
  dlx_stream_handle handle;
  dlx_error err;
  if (!lua_isnoneornil(L, 2)) {
    lua_Integer value = dlxl_checkinteger(L, 2, "stream handle");
    if (value < 0)
      return dlxl_error(L, DLX_VALUE_ERROR, "a stream handle is >= 0, got %lld", (long long)value);
    pushstream(L, device, (dlx_stream_handle)value, false);
    return 1;
  }
  /* the userdata first: a failure after create could not give the stream back otherwise */
  dlxl_stream *s = pushstream(L, device, 0, false);
  s->closed = true;
  dlxl_check(L, ops->create(device.device_id, &handle, &err), &err);
  s->handle = handle;
  s->owned = true;
  s->closed = false;
  return 1;
}

/* current_stream(device) -> the calling thread's current stream of device. */
static int core_current_stream(lua_State *L) {
  DLDevice device = dlxl_checkdevice(L, 1);
  const dlx_stream_ops *ops = checkops(L, device);
  pushstream(L, device, ops->current(device.device_id), false);
  return 1;
}

/* set_current_stream(stream) -> the stream that was current before. */
static int core_set_current_stream(lua_State *L) {
  dlxl_stream *s = checkstream(L, 1);
  const dlx_stream_ops *ops = checkops(L, s->device);
  pushstream(L, s->device, ops->current(s->device.device_id), false);
  ops->set_current(s->device.device_id, s->handle);
  return 1;
}

/* dlpack_stream(device_type, device_id) -> the DLPack `stream` value naming the current stream
 * of that device (for a consumer to pass to __dlpack), or nil for devices without streams. */
static int core_dlpack_stream(lua_State *L) {
  lua_Integer type = dlxl_checkinteger(L, 1, "device type");
  lua_Integer id = dlxl_checkinteger(L, 2, "device id");
  const dlx_backend *backend;
  DLDevice device;
  if (type < 0 || type > INT32_MAX || id < 0 || id > INT32_MAX) {
    lua_pushnil(L);
    return 1;
  }
  device.device_type = (DLDeviceType)type;
  device.device_id = (int32_t)id;
  backend = dlx_backend_for(device.device_type);
  if (backend == NULL || backend->stream == NULL || dlx_device_check(device, NULL) != 0) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushinteger(L, (lua_Integer)backend->stream->to_dlpack(
                         device.device_id, backend->stream->current(device.device_id)));
  return 1;
}

/* busy_wait(cycles, device): queues a kernel that spins for that many clock cycles on the
 * current stream of device, so that a test can leave work running there. */
static int core_busy_wait(lua_State *L) {
  lua_Integer cycles = dlxl_checkinteger(L, 1, "cycles");
  DLDevice device = dlxl_checkdevice(L, 2);
  const dlx_stream_ops *ops = checkops(L, device);
  dlx_error err;
  char name[48];
  if (ops->busy_wait == NULL)
    return dlxl_error(L, DLX_VALUE_ERROR, "%s has no busy-wait kernel",
                      dlx_device_format(device, name, sizeof name));
  dlxl_check(L, ops->busy_wait(device.device_id, (int64_t)cycles, &err), &err);
  return 0;
}

/* ---- dlx.Stream methods */

/* Destroys an owned stream; if it is this thread's current stream, the default becomes current
 * again first, so that no operation is ever queued on a destroyed stream. */
static int stream_close(lua_State *L) {
  dlxl_stream *s = luaL_checkudata(L, 1, DLXL_STREAM);
  const dlx_backend *backend = dlx_backend_for(s->device.device_type);
  if (s->closed) return 0;
  s->closed = true;
  if (!s->owned || backend == NULL || backend->stream == NULL) return 0;
  if (backend->stream->current(s->device.device_id) == s->handle)
    backend->stream->set_current(s->device.device_id, 0);
  backend->stream->destroy(s->device.device_id, s->handle);
  return 0;
}

static int stream_synchronize(lua_State *L) {
  dlxl_stream *s = checkstream(L, 1);
  const dlx_stream_ops *ops = checkops(L, s->device);
  dlx_error err;
  dlxl_check(L, ops->synchronize(s->device.device_id, s->handle, &err), &err);
  return 0;
}

/* s:use(fn, ...) -> fn(...) run with s as the current stream of its device; the previous one is
 * current again afterwards, also when fn raises (the error is raised again). */
static int stream_use(lua_State *L) {
  dlxl_stream *s = checkstream(L, 1);
  const dlx_stream_ops *ops = checkops(L, s->device);
  dlx_stream_handle previous;
  int status, base;
  if (lua_type(L, 2) != LUA_TFUNCTION)
    return dlxl_error(L, DLX_TYPE_ERROR, "use expects a function, got %s", dlxl_typename(L, 2));
  base = 1; /* results start after the stream */
  previous = ops->current(s->device.device_id);
  ops->set_current(s->device.device_id, s->handle);
  status = lua_pcall(L, lua_gettop(L) - 2, LUA_MULTRET, 0);
  ops->set_current(s->device.device_id, previous);
  if (status != LUA_OK) return lua_error(L);
  return lua_gettop(L) - base;
}

static int stream_index(lua_State *L) {
  dlxl_stream *s = luaL_checkudata(L, 1, DLXL_STREAM);
  const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "";
  if (strcmp(key, "handle") == 0) {
    lua_pushinteger(L, (lua_Integer)s->handle);
  } else if (strcmp(key, "device") == 0) {
    dlxl_pushdevice(L, s->device);
  } else if (strcmp(key, "dlpack") == 0) {
    const dlx_stream_ops *ops = checkops(L, s->device);
    lua_pushinteger(L, (lua_Integer)ops->to_dlpack(s->device.device_id, s->handle));
  } else {
    luaL_getmetafield(L, 1, "methods");
    lua_getfield(L, -1, key);
  }
  return 1;
}

static int stream_tostring(lua_State *L) {
  dlxl_stream *s = luaL_checkudata(L, 1, DLXL_STREAM);
  char name[48], handle[24];
  /* a hex integer, not %p: the C library decides how %p looks ("0x..." here, "(nil)" for 0) */
  snprintf(handle, sizeof handle, "0x%" PRIxPTR, s->handle);
  lua_pushfstring(L, "dlx.Stream(%s, handle=%s%s)", dlx_device_format(s->device, name, sizeof name),
                  handle, s->closed ? ", closed" : "");
  return 1;
}

static int stream_eq(lua_State *L) {
  dlxl_stream *a = luaL_testudata(L, 1, DLXL_STREAM), *b = luaL_testudata(L, 2, DLXL_STREAM);
  lua_pushboolean(L, a != NULL && b != NULL && dlx_device_equal(a->device, b->device) &&
                         a->handle == b->handle);
  return 1;
}

static const luaL_Reg stream_methods[] = {
    {"synchronize", stream_synchronize},
    {"use", stream_use},
    {"close", stream_close},
    {NULL, NULL},
};

static const luaL_Reg stream_metamethods[] = {
    {"__index", stream_index}, {"__tostring", stream_tostring}, {"__eq", stream_eq},
    {"__gc", stream_close},    {"__close", stream_close},       {NULL, NULL},
};

void dlxl_open_stream(lua_State *L) {
  if (luaL_newmetatable(L, DLXL_STREAM)) {
    luaL_setfuncs(L, stream_metamethods, 0);
    luaL_newlib(L, stream_methods);
    lua_setfield(L, -2, "methods");
  }
  lua_pop(L, 1);
}

/* The stream value of a dlx.Stream at idx for __dlpack{stream = s}, or false when it is not one. */
bool dlxl_tostreamvalue(lua_State *L, int idx, int64_t *value) {
  dlxl_stream *s = luaL_testudata(L, idx, DLXL_STREAM);
  if (s == NULL) return false;
  *value = (int64_t)checkops(L, s->device)->to_dlpack(s->device.device_id, s->handle);
  return true;
}

const luaL_Reg dlxl_stream_funcs[] = {
    {"stream", core_stream},
    {"current_stream", core_current_stream},
    {"set_current_stream", core_set_current_stream},
    {"dlpack_stream", core_dlpack_stream},
    {"busy_wait", core_busy_wait},
    {NULL, NULL},
};
