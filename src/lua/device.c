/* device.c -- dlx.Device userdata (a DLDevice), device specs and dlx.core.devices/device. */
#include "lua/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/args.h"
#include "lua/errors.h"
#include "lua/state.h"
#include "lua/tables.h"

void dlxl_pushdevice(lua_State *L, DLDevice device) {
  DLDevice *ud = lua_newuserdatauv(L, sizeof *ud, 0);
  *ud = device;
  luaL_setmetatable(L, DLXL_DEVICE);
}

static void device_names(char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int32_t type = 0; type < 64 && used < size; type++) {
    const char *name = dlx_device_type_name(type);
    if (name != NULL)
      used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", name);
  }
}

static int unknown_device(lua_State *L, const char *spec) {
  char names[320];
  device_names(names, sizeof names);
  return dlxl_error(L, DLX_VALUE_ERROR,
                    "unknown device '%s' (expected one of %s, optionally "
                    "followed by :id)",
                    spec, names);
}

/* The id after the colon: decimal digits, 0 to INT32_MAX. */
static int32_t parse_id(lua_State *L, const char *spec, const char *digits) {
  int64_t id = 0;
  size_t len = strlen(digits);
  if (len == 0 || len > 10 || strspn(digits, "0123456789") != len)
    dlxl_error(L, DLX_VALUE_ERROR,
               "malformed device '%s' (expected a name such as \"cuda\" or "
               "\"cuda:1\")",
               spec);
  for (const char *p = digits; *p != '\0'; p++) id = id * 10 + (*p - '0');
  if (id > INT32_MAX)
    dlxl_error(L, DLX_VALUE_ERROR, "device id in '%s' is too large (at most %d)", spec, INT32_MAX);
  return (int32_t)id;
}

static DLDevice parse_string(lua_State *L, const char *spec) {
  DLDevice device = {kDLCPU, 0};
  char name[32];
  const char *colon = strchr(spec, ':');
  size_t len = colon != NULL ? (size_t)(colon - spec) : strlen(spec);
  if (len >= sizeof name) unknown_device(L, spec);
  memcpy(name, spec, len);
  name[len] = '\0';
  if (dlx_device_type_from_name(name, &device.device_type) != 0) unknown_device(L, spec);
  if (colon != NULL) device.device_id = parse_id(L, spec, colon + 1);
  return device;
}

static DLDevice parse_pair(lua_State *L, int idx) {
  DLDevice device;
  lua_Integer type, id;
  lua_rawgeti(L, idx, 1);
  lua_rawgeti(L, idx, 2);
  if (lua_isnil(L, -2) || lua_isnil(L, -1))
    dlxl_error(L, DLX_TYPE_ERROR, "a device pair is {device_type, device_id}, such as {2, 0}");
  type = dlxl_checkinteger(L, -2, "device type");
  id = dlxl_checkinteger(L, -1, "device id");
  lua_pop(L, 2);
  if (type < 0 || type > INT32_MAX || dlx_device_type_name((int32_t)type) == NULL)
    dlxl_error(L, DLX_VALUE_ERROR,
               "%lld is not a DLPack device type (expected a value of "
               "DLDeviceType, such as 1 for kDLCPU)",
               (long long)type);
  if (id < 0 || id > INT32_MAX)
    dlxl_error(L, DLX_VALUE_ERROR, "device id %lld out of range (expected 0 to %d)", (long long)id,
               INT32_MAX);
  device.device_type = (DLDeviceType)type;
  device.device_id = (int32_t)id;
  return device;
}

DLDevice dlxl_parsedevice(lua_State *L, int idx) {
  DLDevice cpu = {kDLCPU, 0};
  const DLDevice *ud;
  idx = lua_absindex(L, idx);
  switch (lua_type(L, idx)) {
  case LUA_TNONE:
  case LUA_TNIL:
    return cpu;
  case LUA_TSTRING:
    return parse_string(L, lua_tostring(L, idx));
  case LUA_TTABLE:
    return parse_pair(L, idx);
  default:
    break;
  }
  ud = luaL_testudata(L, idx, DLXL_DEVICE);
  if (ud == NULL)
    dlxl_error(L, DLX_TYPE_ERROR,
               "device must be a name such as \"cuda:0\", a DLPack pair "
               "{device_type, device_id} or a device, got %s",
               dlxl_typename(L, idx));
  return *ud;
}

DLDevice dlxl_checkdevice(lua_State *L, int idx) {
  dlx_error err;
  DLDevice device = dlxl_parsedevice(L, idx);
  dlxl_check(L, dlx_device_check(device, &err), &err);
  return device;
}

/* Indexed by dlx_memory; the USM names are dpctl's usm_type names. */
static const char *const memory_names[] = {"default", "device", "host", "shared"};

dlx_memory dlxl_checkmemory(lua_State *L, int idx) {
  const char *name;
  if (lua_isnoneornil(L, idx)) return DLX_MEMORY_DEFAULT;
  if (lua_type(L, idx) != LUA_TSTRING)
    dlxl_error(L, DLX_TYPE_ERROR, "usm must be \"device\", \"host\" or \"shared\", not a %s",
               dlxl_typename(L, idx));
  name = lua_tostring(L, idx);
  for (int m = DLX_MEMORY_DEVICE; m <= DLX_MEMORY_SHARED; m++) {
    if (strcmp(name, memory_names[m]) == 0) return (dlx_memory)m;
  }
  return (dlx_memory)dlxl_error(L, DLX_VALUE_ERROR,
                                "usm must be \"device\", \"host\" or \"shared\", not \"%s\"", name);
}

void dlxl_pushmemory(lua_State *L, const dlx_tensor *t) {
  dlx_memory memory = dlx_tensor_memory(t);
  if (memory == DLX_MEMORY_DEFAULT)
    lua_pushnil(L);
  else
    lua_pushstring(L, memory_names[memory]);
}

/* ---- dlx.Device metamethods */

static int device_index(lua_State *L) {
  const DLDevice *device = luaL_checkudata(L, 1, DLXL_DEVICE);
  const char *key = lua_tostring(L, 2);
  if (lua_type(L, 2) != LUA_TSTRING) key = "";
  if (strcmp(key, "type") == 0)
    lua_pushstring(L, dlx_device_type_name(device->device_type));
  else if (strcmp(key, "id") == 0)
    lua_pushinteger(L, device->device_id);
  else if (strcmp(key, "dltype") == 0)
    lua_pushinteger(L, device->device_type);
  else
    lua_pushnil(L);
  return 1;
}

static int device_tostring(lua_State *L) {
  char buf[48];
  const DLDevice *device = luaL_checkudata(L, 1, DLXL_DEVICE);
  lua_pushstring(L, dlx_device_format(*device, buf, sizeof buf));
  return 1;
}

static int device_eq(lua_State *L) {
  const DLDevice *a = luaL_testudata(L, 1, DLXL_DEVICE);
  const DLDevice *b = luaL_testudata(L, 2, DLXL_DEVICE);
  lua_pushboolean(L, a != NULL && b != NULL && dlx_device_equal(*a, *b));
  return 1;
}

static const luaL_Reg device_metamethods[] = {
    {"__index", device_index},
    {"__tostring", device_tostring},
    {"__eq", device_eq},
    {NULL, NULL},
};

void dlxl_open_device(lua_State *L) {
  if (luaL_newmetatable(L, DLXL_DEVICE)) luaL_setfuncs(L, device_metamethods, 0);
  lua_pop(L, 1);
}

/* ---- the default device of a Lua state */

/* The device for spec, or false when it is valid but not available; other errors propagate. */
static bool try_device(lua_State *L, const char *spec, size_t len, DLDevice *out) {
  lua_pushlstring(L, spec, len);
  *out = dlxl_parsedevice(L, -1);
  lua_pop(L, 1);
  return dlx_device_check(*out, NULL) == 0;
}

static DLDevice choose_default(lua_State *L) {
  static const char *const preferred[] = {"cuda:0", "oneapi:0"};
  static const char separators[] = ", \t\n\r\f\v";
  const char *env = getenv("DLX_DEVICE");
  DLDevice device = {kDLCPU, 0};
  if (env != NULL && env[strspn(env, separators)] != '\0') {
    for (const char *p = env + strspn(env, separators); *p != '\0';) {
      size_t len = strcspn(p, separators);
      if (try_device(L, p, len, &device)) return device;
      p += len;
      p += strspn(p, separators);
    }
    dlxl_error(L, DLX_DEVICE_ERROR, "none of the devices in DLX_DEVICE='%s' is available", env);
  }
  for (size_t i = 0; i < sizeof preferred / sizeof preferred[0]; i++)
    if (try_device(L, preferred[i], strlen(preferred[i]), &device)) return device;
  device.device_type = kDLCPU;
  device.device_id = 0;
  return device;
}

/* The state's default device, chosen on first use; pushes it (a dlx.Device) when push is set. */
static DLDevice get_default(lua_State *L, bool push) {
  dlxl_state *s = dlxl_getstate(L);
  if (s != NULL && s->has_default && !push) return s->default_device;
  s = dlxl_openstate(L);
  if (!s->has_default) {
    DLDevice device = choose_default(L);
    dlxl_pushdevice(L, device);
    lua_setiuservalue(L, -2, DLXL_UV_DEFAULT_DEVICE);
    s->default_device = device;
    s->has_default = true;
  }
  if (push) lua_getiuservalue(L, -1, DLXL_UV_DEFAULT_DEVICE);
  lua_remove(L, push ? -2 : -1);
  return s->default_device;
}

DLDevice dlxl_default_device(lua_State *L) { return get_default(L, false); }

/* default_device() -> this state's default device. */
static int core_default_device(lua_State *L) {
  get_default(L, true);
  return 1;
}

/* set_default_device(spec) -> the device, now the default; one that is not available is an
 * error, and leaves the default unchanged. */
static int core_set_default_device(lua_State *L) {
  DLDevice device = dlxl_checkdevice(L, 1);
  dlxl_state *s = dlxl_openstate(L);
  dlxl_pushdevice(L, device);
  lua_pushvalue(L, -1);
  lua_setiuservalue(L, -3, DLXL_UV_DEFAULT_DEVICE);
  s->default_device = device;
  s->has_default = true;
  return 1;
}

/* ---- module functions */

/* devices() -> every device available now, cpu first. */
static int core_devices(lua_State *L) {
  int count;
  const dlx_backend *const *backends = dlx_backends(&count);
  lua_Integer n = 0;
  lua_newtable(L);
  for (int b = 0; b < count; b++) {
    int devices = backends[b]->device_count();
    for (int32_t id = 0; id < devices; id++) {
      DLDevice device = {backends[b]->device_type, id};
      dlxl_pushdevice(L, device);
      lua_rawseti(L, -2, ++n);
    }
  }
  return 1;
}

/* device(spec) -> a device; the same device when spec is one. */
static int core_device(lua_State *L) {
  if (luaL_testudata(L, 1, DLXL_DEVICE) != NULL) {
    lua_settop(L, 1);
    return 1;
  }
  if (lua_isnoneornil(L, 1))
    return dlxl_error(L, DLX_TYPE_ERROR,
                      "device() needs a spec such as \"cpu\", \"cuda:0\" or "
                      "{2, 0}, got nil");
  dlxl_pushdevice(L, dlxl_checkdevice(L, 1));
  return 1;
}

const luaL_Reg dlxl_device_funcs[] = {
    {"devices", core_devices},
    {"device", core_device},
    {"default_device", core_default_device},
    {"set_default_device", core_set_default_device},
    {NULL, NULL},
};
