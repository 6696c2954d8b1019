/* module.c -- luaopen_dlx_core: the metatables, the constants, the C API table in the registry,
 * and the module table that lua/dlx/init.lua builds the public dlx table from. */
#include "lua/binding.h"

typedef struct constant {
  const char *name;
  int value;
} constant;

static const constant device_types[] = {
    {"kDLCPU", kDLCPU},
    {"kDLCUDA", kDLCUDA},
    {"kDLCUDAHost", kDLCUDAHost},
    {"kDLOpenCL", kDLOpenCL},
    {"kDLVulkan", kDLVulkan},
    {"kDLMetal", kDLMetal},
    {"kDLVPI", kDLVPI},
    {"kDLROCM", kDLROCM},
    {"kDLROCMHost", kDLROCMHost},
    {"kDLExtDev", kDLExtDev},
    {"kDLCUDAManaged", kDLCUDAManaged},
    {"kDLOneAPI", kDLOneAPI},
    {"kDLWebGPU", kDLWebGPU},
    {"kDLHexagon", kDLHexagon},
    {"kDLMAIA", kDLMAIA},
    {"kDLTrn", kDLTrn},
    {NULL, 0},
};

static const constant dtype_codes[] = {
    {"kDLInt", kDLInt},
    {"kDLUInt", kDLUInt},
    {"kDLFloat", kDLFloat},
    {"kDLOpaqueHandle", kDLOpaqueHandle},
    {"kDLBfloat", kDLBfloat},
    {"kDLComplex", kDLComplex},
    {"kDLBool", kDLBool},
    {"kDLFloat8_e3m4", kDLFloat8_e3m4},
    {"kDLFloat8_e4m3", kDLFloat8_e4m3},
    {"kDLFloat8_e4m3b11fnuz", kDLFloat8_e4m3b11fnuz},
    {"kDLFloat8_e4m3fn", kDLFloat8_e4m3fn},
    {"kDLFloat8_e4m3fnuz", kDLFloat8_e4m3fnuz},
    {"kDLFloat8_e5m2", kDLFloat8_e5m2},
    {"kDLFloat8_e5m2fnuz", kDLFloat8_e5m2fnuz},
    {"kDLFloat8_e8m0fnu", kDLFloat8_e8m0fnu},
    {"kDLFloat6_e2m3fn", kDLFloat6_e2m3fn},
    {"kDLFloat6_e3m2fn", kDLFloat6_e3m2fn},
    {"kDLFloat4_e2m1fn", kDLFloat4_e2m1fn},
    {NULL, 0},
};

static void set_constants(lua_State *L, const char *field, const constant *list) {
  lua_newtable(L);
  for (; list->name != NULL; list++) {
    lua_pushinteger(L, list->value);
    lua_setfield(L, -2, list->name);
  }
  lua_setfield(L, -2, field);
}

/* current_device(device) -> the id of the calling thread's current device of that device's
 * backend, or nil when the backend has no such notion or no device is current. */
static int core_current_device(lua_State *L) {
  DLDevice device = dlxl_parsedevice(L, 1);
  const dlx_backend *backend = dlx_backend_for(device.device_type);
  int id = backend != NULL && backend->current_device != NULL ? backend->current_device() : -1;
  if (id < 0)
    lua_pushnil(L);
  else
    lua_pushinteger(L, id);
  return 1;
}

/* backend_built(device) -> whether a backend for that device's type is compiled in (it may
 * still find no device). */
static int core_backend_built(lua_State *L) {
  DLDevice device = dlxl_parsedevice(L, 1);
  lua_pushboolean(L, dlx_backend_for(device.device_type) != NULL);
  return 1;
}

static int core_is_tensor(lua_State *L) {
  lua_pushboolean(L, dlxl_totensor(L, 1) != NULL);
  return 1;
}

/* allow_tf32([on]) -> whether float32 and complex64 matrix products of this Lua state may use
 * TF32 on devices that have it (false at first); given a boolean, sets it and returns the value
 * it had. The products pass it to the backend in each request (dlx_matmul_request). */
static int core_allow_tf32(lua_State *L) {
  dlxl_state *s = dlxl_upstate(L);
  bool before = s->allow_tf32;
  if (!lua_isnoneornil(L, 1)) {
    if (!lua_isboolean(L, 1))
      dlxl_error(L, DLX_TYPE_ERROR, "allow_tf32: on must be a boolean, not a %s",
                 dlxl_typename(L, 1));
    s->allow_tf32 = lua_toboolean(L, 1);
  }
  lua_pushboolean(L, before);
  return 1;
}

static const luaL_Reg module_funcs[] = {
    {"allow_tf32", core_allow_tf32},
    {"current_device", core_current_device},
    {"backend_built", core_backend_built},
    {"is_tensor", core_is_tensor},
    {NULL, NULL},
};

DLXL_PUBLIC int luaopen_dlx_core(lua_State *L) {
  const luaL_Reg *const func_sets[] = {module_funcs,     dlxl_device_funcs,  dlxl_create_funcs,
                                       dlxl_value_funcs, dlxl_capsule_funcs, dlxl_stream_funcs,
                                       dlxl_error_funcs, dlxl_type_funcs,    dlxl_dlpack_funcs,
                                       dlxl_memory_funcs};
  int state;
  luaL_checkversion(L);
  dlxl_openstate(L); /* upvalue 1 of every function below */
  state = lua_gettop(L);
  dlxl_open_device(L);
  dlxl_open_capsule(L, state);
  dlxl_open_tensor(L, state);
  dlxl_open_stream(L);
  dlxl_open_capi(L); /* the C API tables (capi.c) */

  lua_createtable(L, 0, 32);
  for (size_t i = 0; i < sizeof func_sets / sizeof func_sets[0]; i++) {
    lua_pushvalue(L, state);
    luaL_setfuncs(L, func_sets[i], 1);
  }
  lua_newtable(L); /* what lua/dlx/init.lua puts in the dlx table as it is */
  lua_pushvalue(L, state);
  luaL_setfuncs(L, dlxl_public_funcs, 1);
  lua_pushvalue(L, state);
  luaL_setfuncs(L, dlxl_reduce_funcs, 1);
  lua_pushvalue(L, state);
  luaL_setfuncs(L, dlxl_npy_funcs, 1);
  dlxl_set_elementwise_funcs(L, state);
  lua_pushvalue(L, state);
  luaL_setfuncs(L, dlxl_thread_funcs, 1);
  lua_pushvalue(L, state);
  luaL_setfuncs(L, dlxl_random_funcs, 1);
  lua_pushvalue(L, state);
  luaL_setfuncs(L, dlxl_joining_funcs, 1);
  lua_pushvalue(L, state);
  luaL_setfuncs(L, dlxl_construct_funcs, 1);
  lua_pushvalue(L, state);
  luaL_setfuncs(L, dlxl_linalg_funcs, 1);
  lua_pushvalue(L, state);
  luaL_setfuncs(L, dlxl_order_methods, 1); /* dlx.median(t, ...), ... */
  lua_setfield(L, -2, "api");
  lua_newtable(L); /* what lua/dlx/linalg.lua builds dlx.linalg from */
  lua_pushvalue(L, state);
  luaL_setfuncs(L, dlxl_decomp_funcs, 1);
  lua_setfield(L, -2, "linalg");
  lua_pushliteral(L, DLX_VERSION_STRING);
  lua_setfield(L, -2, "version");
  lua_createtable(L, 2, 0);
  lua_pushinteger(L, DLPACK_MAJOR_VERSION);
  lua_rawseti(L, -2, 1);
  lua_pushinteger(L, DLPACK_MINOR_VERSION);
  lua_rawseti(L, -2, 2);
  lua_setfield(L, -2, "DLPACK_VERSION");
  set_constants(L, "DLDeviceType", device_types);
  set_constants(L, "DLDataTypeCode", dtype_codes);
  luaL_getmetatable(L, DLXL_TENSOR);
  lua_setfield(L, -2, "tensor_metatable");
  lua_getfield(L, LUA_REGISTRYINDEX, DLXL_METHODS);
  lua_setfield(L, -2, "Tensor");
  return 1;
}
