/*
 * dlx.h -- embedding dlx in a host application.
 *
 * dlx gives Lua 5.4 scripts tensors that speak DLPack. A host hands its tensors to a script as
 * DLPack capsules and takes results back, zero-copy where the devices allow it.
 *
 *   lua_State *L = luaL_newstate();
 *   luaL_openlibs(L);
 *   dlx_openlibs(L);                       -- now require "dlx" works, with no files on disk
 *   dlx_push_capsule(L, my_managed_tensor) -- a capsule that a script passes to dlx.from_dlpack
 *   ...
 *   DLManagedTensorVersioned *out;
 *   if (dlx_to_dlpack(L, -1, &out) == 0) { use(out); out->deleter(out); }
 *
 * Threads: a lua_State is used by one thread at a time, as always with Lua. The deleters of the
 * tensors dlx exports never touch a lua_State: they may run on any thread, at any time, even
 * after lua_close. Each dlx tensor's memory is refcounted in C, so an exported tensor stays
 * valid until its deleter runs.
 */
#ifndef DLX_H
#define DLX_H

#include <lua.h>

#include "dlpack/dlpack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dlx's version, written only here: CMake and scripts/dist read it from this line. */
#define DLX_VERSION_STRING "0.1.0"

/* The C module behind require "dlx.core" (what LuaRocks installs as dlx/core.so). */
int luaopen_dlx_core(lua_State *L);

/* Preloads "dlx", "dlx.core" and dlx's Lua modules (embedded in the library) into
 * package.preload, so that require "dlx" needs no files. Needs the package library. */
void dlx_openlibs(lua_State *L);

/* Host -> Lua. Pushes an unconsumed capsule holding mt; ownership of mt passes to dlx, even on
 * error. The capsule's name is "dltensor_versioned" ("dltensor" for the legacy call); a script
 * consumes it once with dlx.from_dlpack, and an unconsumed capsule calls mt's deleter when it is
 * collected. Returns 0, or, when out of memory, calls mt's deleter, pushes an error message and
 * returns non-zero. Never raises. (When the Lua stack itself cannot grow there is no room for
 * the message: then it returns non-zero and pushes nothing.) */
int dlx_push_capsule(lua_State *L, DLManagedTensorVersioned *mt);
int dlx_push_capsule_legacy(lua_State *L, DLManagedTensor *mt);

/* Lua -> host. Exports the value at idx -- a dlx tensor, a capsule (consumed), or any value with
 * a __dlpack method -- zero-copy where possible. Returns 0 and sets *out (the caller owns it and
 * must call its deleter once, from any thread), or returns non-zero, leaves *out NULL and pushes
 * an error message ("BufferError: ...") -- unless the Lua stack cannot grow, the one case that
 * pushes nothing. Never raises. The legacy call refuses read-only
 * tensors (a legacy struct cannot carry the flag). */
int dlx_to_dlpack(lua_State *L, int idx, DLManagedTensorVersioned **out);
int dlx_to_dlpack_legacy(lua_State *L, int idx, DLManagedTensor **out);

/* Level Zero hosts. dlx refuses memory of Level Zero contexts it does not use, and a SYCL host
 * (dpctl, PyTorch XPU, a C++ application) allocates in its own context: to exchange oneapi
 * tensors both ways, give dlx that context -- for SYCL, the native Level Zero handles of the
 * queue's platform and context (sycl::get_native<sycl::backend::ext_oneapi_level_zero>). dlx
 * then uses it for that driver's devices, for its own memory and work too, and never destroys
 * it: keep it alive while dlx runs. driver is a ze_driver_handle_t, context a
 * ze_context_handle_t. Call it before dlx first looks for devices (before require "dlx" in any
 * state). Returns 0, or -1 when dlx was built without Level Zero, has already looked for
 * devices, or an argument is NULL. */
int dlx_share_level_zero_context(void *driver, void *context);

/* ---- The same API for other Lua C modules, without linking to dlx.
 * require "dlx.core" (or "dlx") stores a pointer to this table in the Lua registry under
 * DLX_CAPI_KEY, as NumPy publishes its C API in a capsule. A C module that was loaded into the
 * same interpreter fetches it with dlx_capi_get(L) and calls through it. */
#define DLX_CAPI_KEY "dlx.capi"
#define DLX_CAPI_VERSION 1

typedef struct dlx_capi {
  int version; /* DLX_CAPI_VERSION */
  int (*push_capsule)(lua_State *L, DLManagedTensorVersioned *mt);
  int (*push_capsule_legacy)(lua_State *L, DLManagedTensor *mt);
  int (*to_dlpack)(lua_State *L, int idx, DLManagedTensorVersioned **out);
  int (*to_dlpack_legacy)(lua_State *L, int idx, DLManagedTensor **out);
} dlx_capi;

/* The table, or NULL when dlx.core has not been loaded into this state. */
static inline const dlx_capi *dlx_capi_get(lua_State *L) {
  const dlx_capi *api;
  lua_getfield(L, LUA_REGISTRYINDEX, DLX_CAPI_KEY);
  api = (const dlx_capi *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  return api != NULL && api->version == DLX_CAPI_VERSION ? api : NULL;
}

#ifdef __cplusplus
}
#endif
#endif /* DLX_H */
