/* module.c -- luaopen_dlx_core: the metatables, the constants, the C API tables in the
 * registry, and the module table that lua/dlx/init.lua builds the public dlx table from. It is
 * the one file that registers functions: for each table it fills, one list names the luaL_Reg
 * tables of the files that fill it (tables.h), as luv registers a handle type's methods from
 * one table. */
#include "lua/capsule.h"
#include "lua/device.h"
#include "lua/errors.h"
#include "lua/exchange.h"
#include "lua/state.h"
#include "lua/stream.h"
#include "lua/tables.h"
#include "lua/tensor.h"

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

/* ---- what fills each table; a later table's function replaces an earlier one's of the same
 * name */

/* dlx.core */
static const luaL_Reg *const core_funcs[] = {
    module_funcs,
    dlxl_device_funcs,
    dlxl_create_funcs,
    dlxl_value_funcs,
    dlxl_capsule_funcs,
    dlxl_stream_funcs,
    dlxl_error_funcs,
    dlxl_type_funcs,
    dlxl_dlpack_funcs,
    dlxl_memory_funcs,
    dlxl_image_funcs, /* image_op, image_op_available: for lua/dlx/image.lua */
    dlxl_conv_funcs,  /* conv: for lua/dlx/conv.lua */
    NULL,
};

/* dlx.core.api, which lua/dlx/init.lua puts in the dlx table as it is, and the elementwise
 * functions (dlxl_set_elementwise_funcs) */
static const luaL_Reg *const api_funcs[] = {
    dlxl_public_funcs,
    dlxl_reduce_funcs,
    dlxl_npy_funcs,
    dlxl_thread_funcs,
    dlxl_random_funcs,
    dlxl_joining_funcs,
    dlxl_construct_funcs,
    dlxl_linalg_funcs,
    dlxl_view_funcs,
    dlxl_order_methods,
    dlxl_count_funcs,
    dlxl_count_methods,
    NULL,
};

/* dlx.core.linalg, which lua/dlx/linalg.lua builds dlx.linalg from */
static const luaL_Reg *const linalg_funcs[] = {dlxl_decomp_funcs, NULL};

/* dlx.Tensor's methods, and the elementwise methods (dlxl_set_elementwise_methods) */
static const luaL_Reg *const tensor_methods[] = {
    dlxl_tensor_methods,    dlxl_view_methods,   dlxl_copy_methods,     dlxl_reduce_methods,
    dlxl_value_methods,     dlxl_dlpack_methods, dlxl_npy_methods,      dlxl_joining_methods,
    dlxl_construct_methods, dlxl_random_methods, dlxl_indexing_methods, dlxl_sort_methods,
    dlxl_linalg_methods,    dlxl_order_methods,  dlxl_count_methods,    NULL,
};

/* dlx.Tensor's metamethods, and __index (dlxl_tensor_index) */
static const luaL_Reg *const tensor_metamethods[] = {
    dlxl_tensor_metamethods,
    dlxl_elementwise_operators,
    dlxl_indexing_metamethods,
    NULL,
};

/* Sets the functions of every table of the list into the table on top of the stack, each with
 * the state (at the stack index state) as upvalue 1. */
static void set_funcs(lua_State *L, int state, const luaL_Reg *const *list) {
  for (; *list != NULL; list++) {
    lua_pushvalue(L, state);
    luaL_setfuncs(L, *list, 1);
  }
}

/* The registry key of the Tensor method table, for a second luaopen_dlx_core in the state. */
#define METHODS_KEY "dlx.Tensor.methods"

/* dlx.Tensor's metatable and its method table, made once per Lua state and recorded by
 * tensor.c. */
static void open_tensor(lua_State *L, int state) {
  if (luaL_newmetatable(L, DLXL_TENSOR)) {
    set_funcs(L, state, tensor_metamethods);
    lua_createtable(L, 0, 128);
    set_funcs(L, state, tensor_methods);
    dlxl_set_elementwise_methods(L, state);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, METHODS_KEY);
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, dlxl_tensor_index, 2);
    lua_setfield(L, -2, "__index");
  }
  dlxl_set_tensor_mt(L, state);
}

/* ---- the tables of the host C API for other C modules (dlx_capi_get) */

static const dlx_capi capi = {
    .version = DLX_CAPI_VERSION,
    .push_capsule = dlx_push_capsule,
    .push_capsule_legacy = dlx_push_capsule_legacy,
    .to_dlpack = dlx_to_dlpack,
    .to_dlpack_legacy = dlx_to_dlpack_legacy,
    .error_class = dlx_error_class,
    .push_borrowed = dlx_push_borrowed,
    .unborrow = dlx_unborrow,
    .push_tensor = dlx_push_tensor,
    .to_dlpack_ex = dlx_to_dlpack_ex,
    .tensor_view = dlx_tensor_view,
    .exchange_api = &dlxl_exchange_api,
};

/* What modules built against version 1 find under "dlx.capi": their dlx_capi_get asks for a
 * version of exactly 1, and reads only the entries of version 1. */
static const dlx_capi capi_v1 = {
    .version = 1,
    .push_capsule = dlx_push_capsule,
    .push_capsule_legacy = dlx_push_capsule_legacy,
    .to_dlpack = dlx_to_dlpack,
    .to_dlpack_legacy = dlx_to_dlpack_legacy,
};

/* Publishes the dlx_capi tables and the exchange table (registry, tensor metatable). */
static void open_capi(lua_State *L) {
  lua_pushlightuserdata(L, (void *)&capi);
  lua_setfield(L, LUA_REGISTRYINDEX, DLX_CAPI_KEY);
  lua_pushlightuserdata(L, (void *)&capi_v1);
  lua_setfield(L, LUA_REGISTRYINDEX, DLX_CAPI_KEY_V1);
  lua_pushlightuserdata(L, (void *)&dlxl_exchange_api);
  lua_setfield(L, LUA_REGISTRYINDEX, DLX_EXCHANGE_API_KEY);
  luaL_getmetatable(L, DLXL_TENSOR);
  lua_pushlightuserdata(L, (void *)&dlxl_exchange_api);
  lua_setfield(L, -2, "__dlpack_c_exchange_api");
  lua_pop(L, 1);
}

DLXL_PUBLIC int luaopen_dlx_core(lua_State *L) {
  int state;
  luaL_checkversion(L);
  dlxl_openstate(L); /* upvalue 1 of every function below */
  state = lua_gettop(L);
  dlxl_open_device(L);
  dlxl_open_capsule(L, state);
  open_tensor(L, state);
  dlxl_open_stream(L);
  open_capi(L);

  lua_createtable(L, 0, 32);
  set_funcs(L, state, core_funcs);
  lua_newtable(L);
  set_funcs(L, state, api_funcs);
  dlxl_set_elementwise_funcs(L, state);
  lua_setfield(L, -2, "api");
  lua_newtable(L);
  set_funcs(L, state, linalg_funcs);
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
  lua_getfield(L, LUA_REGISTRYINDEX, METHODS_KEY);
  lua_setfield(L, -2, "Tensor");
  return 1;
}
