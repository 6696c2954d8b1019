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
#include "dlx_errclass.h"

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

/* Errors. The host functions below never raise: they return DLX_OK (0), or on failure the
 * class of the error (dlx_errclass.h: DLX_TYPE_ERROR, DLX_VALUE_ERROR, DLX_BUFFER_ERROR,
 * DLX_DEVICE_ERROR, DLX_MEMORY_ERROR) with the error message pushed. DLX_MEMORY_ERROR also
 * stands for Lua running out of memory, and for a Lua stack that cannot grow: then nothing is
 * pushed (compare lua_gettop before and after). DLX_LUA_ERROR is a failure without a dlx class,
 * such as a script's own error() inside a __dlpack method.
 *
 * dlx's errors are Lua strings "<Class>: <message>" after Lua's position prefix
 * ("script.lua:12: ValueError: negative size"). dlx_error_class gives the class of any error
 * value, such as the message a failed lua_pcall left:
 * - for the error that dlx's C code raised last in this state, the class it was raised with
 *   (recorded as data, not read back from the text);
 * - for any other string, the class named at its start, after any number of position prefixes
 *   "<chunk>:<line>: " (one more each time a script raises it again with error(err)): a
 *   script's error("TypeError: ...") counts, a message that mentions "TypeError:" further on
 *   does not;
 * - DLX_OK for every other value: other strings, tables, nil, ...
 * Never raises, pushes nothing. Scripts have the same as dlx.error_class(err). */
int dlx_error_class(lua_State *L, int idx);

/* Host -> Lua. Pushes an unconsumed capsule holding mt; ownership of mt passes to dlx, even on
 * error. The capsule's name is "dltensor_versioned" ("dltensor" for the legacy call); a script
 * consumes it once with dlx.from_dlpack, and an unconsumed capsule calls mt's deleter when it is
 * collected. Returns 0; or, when mt is NULL, DLX_VALUE_ERROR, and when out of memory
 * DLX_MEMORY_ERROR (then mt's deleter has been called). Never raises. */
int dlx_push_capsule(lua_State *L, DLManagedTensorVersioned *mt);
int dlx_push_capsule_legacy(lua_State *L, DLManagedTensor *mt);

/* Lua -> host. Exports the value at idx -- a dlx tensor, a capsule (consumed), or any value with
 * a __dlpack method -- zero-copy where possible. Returns 0 and sets *out (the caller owns it and
 * must call its deleter once, from any thread), or returns the error's class and leaves *out
 * NULL: DLX_TYPE_ERROR for a value that cannot be exported, DLX_VALUE_ERROR for a closed tensor,
 * a consumed capsule or a NULL out, DLX_BUFFER_ERROR for data DLPack cannot carry, and whatever
 * a __dlpack method raised. Never raises. The legacy call refuses read-only tensors
 * (DLX_BUFFER_ERROR: a legacy struct cannot carry the flag). */
int dlx_to_dlpack(lua_State *L, int idx, DLManagedTensorVersioned **out);
int dlx_to_dlpack_legacy(lua_State *L, int idx, DLManagedTensor **out);

/* Level Zero hosts. dlx refuses memory of Level Zero contexts it does not use, and a SYCL host
 * (dpctl, PyTorch XPU, a C++ application) allocates in its own context: to exchange oneapi
 * tensors both ways, give dlx that context -- for SYCL, the native Level Zero handles of the
 * queue's platform and context (sycl::get_native<sycl::backend::ext_oneapi_level_zero>). dlx
 * then uses it for that driver's devices, for its own memory and work too, and never destroys
 * it: keep it alive while dlx runs. driver is a ze_driver_handle_t, context a
 * ze_context_handle_t. Call it before dlx first looks for devices (before require "dlx" in any
 * state). Returns 0, or DLX_DEVICE_ERROR when dlx was built without Level Zero, has already
 * looked for devices, or an argument is NULL. */
int dlx_share_level_zero_context(void *driver, void *context);

/* Python hosts that cannot compile a PyCapsule destructor (ctypes, cffi in ABI mode): the
 * destructor of the Python DLPack protocol, to pass to PyCapsule_New for a capsule named
 * "dltensor" or "dltensor_versioned" (capsule is a PyObject *). When the capsule still has that
 * name (no consumer took the tensor, which renames it "used_..."), it calls the DLPack deleter of
 * the struct it holds, once. It runs no Python code and leaves the interpreter's error indicator
 * as it was, so that a consumer that drops the capsule with its own exception pending (NumPy
 * refusing a dtype) still raises that exception. libdlx does not link Python: the destructor
 * finds the Python C API in the process when it runs, and does nothing (the tensor leaks,
 * nothing crashes) where it is not visible (Python loaded with RTLD_LOCAL). Python calls it with
 * the GIL held. */
void dlx_pycapsule_destructor(void *capsule);

/* ---- The same API for other Lua C modules, without linking to dlx.
 * require "dlx.core" (or "dlx") stores a pointer to this table in the Lua registry under
 * DLX_CAPI_KEY, as NumPy publishes its C API in a capsule. A C module that was loaded into the
 * same interpreter fetches it with dlx_capi_get(L) and calls through it. Its functions return
 * the error classes as above; such a module classifies other errors with dlx.error_class. */
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
