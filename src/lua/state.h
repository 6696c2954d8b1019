/* state.h -- what dlx.core keeps per Lua state, in one userdata (state.c). Every C function that
 * dlx.core registers holds it as upvalue 1 (DLXL_STATE), which makes the checks on every call a
 * few instructions; the host C API's functions, which run without upvalues, find it in the
 * registry. Its user values hold what the struct can only name. */
#ifndef DLX_LUA_STATE_H
#define DLX_LUA_STATE_H

#include "lua/binding.h"

enum {
  DLXL_UV_TENSOR_MT = 1,  /* the tensor metatable */
  DLXL_UV_CAPSULE_MT,     /* the capsule metatable */
  DLXL_UV_DEFAULT_DEVICE, /* the default device (a dlx.Device), once chosen */
  DLXL_UV_COUNT = DLXL_UV_DEFAULT_DEVICE
};

typedef struct dlxl_state {
  const void *tensor_mt; /* the metatables, by address (lua_topointer); user values keep them */
  const void *capsule_mt;
  int64_t pending_bytes; /* tensor bytes not yet reported to the collector (dlxl_gcdebt) */
  bool has_default;      /* default_device holds the chosen default device */
  DLDevice default_device;
  const char *dtype_name; /* the last dtype name read (a Lua string's bytes), and its dtype */
  dlx_dtype dtype_of_name;
  bool allow_tf32; /* float32 products may use TF32 where a device has it (dlx.cuda.allow_tf32) */
} dlxl_state;

#define DLXL_STATE lua_upvalueindex(1)

/* The state when the running C function is one of dlx.core's, else NULL. (No other upvalue 1 of
 * a C function that reaches the binding's helpers is a userdata: the host C API's functions have
 * no upvalues, and the only other closure, openlibs.c's loader, calls none of them.) */
static inline dlxl_state *dlxl_upstate(lua_State *L) {
  return (dlxl_state *)lua_touserdata(L, DLXL_STATE);
}
/* The state from upvalue 1 or the registry; NULL when dlx.core was not opened in this state. */
dlxl_state *dlxl_getstate(lua_State *L);
/* Pushes the state userdata, creating it the first time, and returns it. */
dlxl_state *dlxl_openstate(lua_State *L);
/* Loads dlx.core into the state when a host calls in before require "dlx": the one place that
 * does (luaopen_dlx_core, through require's table of loaded modules). */
void dlxl_require_core(lua_State *L);

#endif
