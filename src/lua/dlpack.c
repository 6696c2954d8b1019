/* dlpack.c -- the producer side of DLPack in Lua: t:__dlpack{...} and t:__dlpack_device(),
 * under the Python array API's rules (the core's dlx_export applies them). */
#include "lua/binding.h"

/* ---- t:__dlpack(opts) */

static void read_max_version(lua_State *L, int idx, dlx_export_options *opts) {
  lua_Integer major;
  if (lua_isnil(L, idx)) return; /* legacy */
  if (lua_type(L, idx) != LUA_TTABLE)
    dlxl_error(L, DLX_TYPE_ERROR, "max_version must be a table {major, minor}, got %s",
               dlxl_typename(L, idx));
  lua_rawgeti(L, idx, 1);
  lua_rawgeti(L, idx, 2);
  if (!lua_isinteger(L, -2) || !lua_isinteger(L, -1) || lua_tointeger(L, -2) < 0 ||
      lua_tointeger(L, -1) < 0)
    dlxl_error(L, DLX_TYPE_ERROR,
               "max_version must be a table {major, minor} of integers >= 0, "
               "such as {1, 3}");
  major = lua_tointeger(L, -2);
  lua_pop(L, 2);
  opts->versioned = major >= 1;
}

static void read_dl_device(lua_State *L, int idx, dlx_export_options *opts) {
  lua_Integer type, id;
  if (lua_isnil(L, idx)) return;
  if (lua_type(L, idx) == LUA_TTABLE) {
    lua_rawgeti(L, idx, 1);
    lua_rawgeti(L, idx, 2);
  } else {
    lua_pushnil(L);
    lua_pushnil(L);
  }
  type = lua_tointeger(L, -2);
  id = lua_tointeger(L, -1);
  if (!lua_isinteger(L, -2) || !lua_isinteger(L, -1) || type < 0 || type > INT32_MAX || id < 0 ||
      id > INT32_MAX)
    dlxl_error(L, DLX_TYPE_ERROR,
               "dl_device must be a pair {device_type, device_id} of "
               "integers >= 0, such as {1, 0}, got %s",
               dlxl_typename(L, idx));
  lua_pop(L, 2);
  opts->has_dl_device = true;
  opts->dl_device.device_type = (DLDeviceType)type;
  opts->dl_device.device_id = (int32_t)id;
}

static void read_copy(lua_State *L, int idx, dlx_export_options *opts) {
  if (lua_isnil(L, idx)) return;
  if (!lua_isboolean(L, idx))
    dlxl_error(L, DLX_TYPE_ERROR, "copy must be true, false or nil, got %s", dlxl_typename(L, idx));
  opts->copy = lua_toboolean(L, idx) ? DLX_COPY_ALWAYS : DLX_COPY_NEVER;
}

/* A dlx.Stream, or an integer, passed on to the core (which refuses any stream for CPU memory).
 * Another value is a ValueError for CPU memory, like any stream, and a TypeError for devices with
 * streams. */
static void read_stream(lua_State *L, int idx, DLDevice target, dlx_export_options *opts) {
  char name[48];
  if (lua_isnil(L, idx)) return;
  if (dlxl_tostreamvalue(L, idx, &opts->stream)) { /* a dlx.Stream names its stream value */
    opts->has_stream = true;
    if (dlx_device_type_is_host_like(target.device_type))
      dlxl_error(L, DLX_VALUE_ERROR,
                 "stream must be nil for a %s export: CPU memory has no streams",
                 dlx_device_format(target, name, sizeof name));
    return;
  }
  if (!lua_isinteger(L, idx) && dlx_device_type_is_host_like(target.device_type))
    dlxl_error(L, DLX_VALUE_ERROR,
               "stream must be nil for a %s export (got %s): CPU memory has "
               "no streams",
               dlx_device_format(target, name, sizeof name), luaL_tolstring(L, idx, NULL));
  if (!lua_isinteger(L, idx))
    dlxl_error(L, DLX_TYPE_ERROR, "stream must be an integer or nil, got %s",
               lua_type(L, idx) == LUA_TNUMBER ? "a float" : dlxl_typename(L, idx));
  opts->has_stream = true;
  opts->stream = (int64_t)lua_tointeger(L, idx);
}

/* opts: nil or {stream =, max_version =, dl_device =, copy =}, for an export of t. */
static void read_export_options(lua_State *L, int idx, const dlx_tensor *t,
                                dlx_export_options *opts) {
  opts->versioned = false;
  opts->copy = DLX_COPY_IF_NEEDED;
  opts->has_dl_device = false;
  opts->has_stream = false;
  opts->stream = 0;
  if (lua_isnoneornil(L, idx)) return;
  if (lua_type(L, idx) != LUA_TTABLE)
    dlxl_error(L, DLX_TYPE_ERROR,
               "__dlpack options must be a table {stream =, max_version =, "
               "dl_device =, copy =}, got %s",
               dlxl_typename(L, idx));
  lua_getfield(L, idx, "max_version");
  read_max_version(L, lua_gettop(L), opts);
  lua_getfield(L, idx, "dl_device");
  read_dl_device(L, lua_gettop(L), opts);
  lua_getfield(L, idx, "copy");
  read_copy(L, lua_gettop(L), opts);
  lua_getfield(L, idx, "stream");
  read_stream(L, lua_gettop(L), opts->has_dl_device ? opts->dl_device : dlx_tensor_device(t), opts);
  lua_pop(L, 4);
}

/* Exports t into the fresh capsule c. */
static void export_into(lua_State *L, const dlx_tensor *t, const dlx_export_options *opts,
                        dlxl_capsule *c) {
  DLManagedTensorVersioned *versioned = NULL;
  DLManagedTensor *legacy = NULL;
  const DLTensor *dl;
  dlx_error err;
  bool retried = false;
  int rc;
  do rc = dlx_export(t, opts, &versioned, &legacy, &err);
  while (dlxl_reclaim(L, rc, &retried, t));
  dlxl_check(L, rc, &err);
  c->versioned = versioned != NULL;
  c->ptr = versioned != NULL ? (void *)versioned : (void *)legacy;
  dl = versioned != NULL ? &versioned->dl_tensor : &legacy->dl_tensor;
  if (dl->data != t->buffer->data) dlxl_gcdebt(L, dlx_tensor_nbytes(t)); /* a copy */
}

static int tensor_dlpack(lua_State *L) {
  const dlx_tensor *t = dlxl_checktensor(L, 1);
  dlx_export_options opts;
  read_export_options(L, 2, t, &opts);
  export_into(L, t, &opts, dlxl_newcapsule(L));
  return 1;
}

/* t:__dlpack_device() -> device_type, device_id */
static int tensor_dlpack_device(lua_State *L) {
  const dlx_tensor *t = dlxl_checktensor(L, 1);
  DLDevice device = dlx_tensor_device(t);
  lua_pushinteger(L, device.device_type);
  lua_pushinteger(L, device.device_id);
  return 2;
}

const luaL_Reg dlxl_dlpack_methods[] = {
    {"__dlpack", tensor_dlpack},
    {"__dlpack_device", tensor_dlpack_device},
    {NULL, NULL},
};
