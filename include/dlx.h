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
#include <stdint.h>

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

/* ---- Borrowed tensors: a host lends its memory to scripts for as long as it likes, and takes it
 * back with dlx_unborrow without a garbage collection.
 *
 * dlx_push_borrowed pushes a dlx tensor over the memory that t describes (t itself, its shape and
 * strides are copied: they need not outlive the call; NULL strides mean row-major). dlx never
 * frees the memory. flags are DLPack flags: DLPACK_FLAG_BITMASK_READ_ONLY makes the tensor
 * read-only. On success *loan is the loan, which the host must end exactly once with
 * dlx_unborrow; on failure *loan is NULL and the error is pushed (DLX_BUFFER_ERROR for a tensor
 * dlx cannot take, DLX_VALUE_ERROR for a NULL argument, DLX_MEMORY_ERROR).
 *
 * dlx_unborrow ends the loan: from then on every tensor over the memory -- the one pushed and
 * every view made from it, in any variable -- raises "ValueError: borrowed tensor expired"
 * instead of touching it; copies made before stay valid. Exports of a borrowed tensor are
 * always copies (flag IS_COPIED; a BufferError with copy = false). *held (when not NULL) is
 * set to 1 when some tensor over the memory still existed -- a value a script kept, or garbage
 * the collector had not reached yet (a host that logs scripts keeping tensors runs
 * lua_gc(L, LUA_GCCOLLECT) first) -- and 0 when all had been collected or closed. Needs no
 * lua_State and pushes nothing: a loan may end before or after its tensors are collected or
 * closed, and before or after lua_close. Call it when no script of that state is running (a
 * tensor being read by a running kernel is not interrupted). Returns 0, or DLX_VALUE_ERROR for
 * a NULL loan. */
typedef struct dlx_borrow dlx_borrow;
int dlx_push_borrowed(lua_State *L, const DLTensor *t, uint64_t flags, dlx_borrow **loan);
int dlx_unborrow(dlx_borrow *loan, int *held);

/* ---- Less boilerplate for hosts.
 *
 * dlx_push_tensor pushes a dlx tensor over the host's memory at data (the first element) and
 * takes ownership of it, as dlx_push_capsule does, without a DLPack struct: shape and strides
 * (in elements; NULL strides mean row-major) are copied. deleter(ctx) (deleter may be NULL) is
 * called once, when the last reference -- the tensor, its views, its exports -- is gone, on
 * any thread, even after lua_close; on failure it has been called before the function returns.
 * flags are DLPack flags, as for dlx_push_borrowed. */
int dlx_push_tensor(lua_State *L, void *data, DLDataType dtype, DLDevice device, int32_t ndim,
                    const int64_t *shape, const int64_t *strides, uint64_t flags,
                    void (*deleter)(void *ctx), void *ctx);

/* The options of __dlpack for dlx_to_dlpack_ex; a zeroed struct asks for the defaults. */
typedef enum dlx_export_copy {
  DLX_EXPORT_COPY_IF_NEEDED = 0, /* copy = nil: zero-copy when possible */
  DLX_EXPORT_COPY_NEVER,         /* copy = false: DLX_BUFFER_ERROR when a copy is needed */
  DLX_EXPORT_COPY_ALWAYS         /* copy = true: always a copy, flagged IS_COPIED */
} dlx_export_copy;

typedef struct dlx_export_opts {
  DLPackVersion max_version; /* the consumer's; {0, 0}: any. A 0.x version has no versioned
                                struct: use dlx_to_dlpack_legacy */
  int copy;                  /* a dlx_export_copy */
  DLDevice dl_device;        /* device_type 0: the tensor's own device */
  int has_stream;            /* 0: stream = nil */
  int64_t stream;            /* the DLPack stream value (-1: no synchronisation) */
} dlx_export_opts;

/* dlx_to_dlpack with options (NULL opts: the defaults). Returns as dlx_to_dlpack; a capsule is
 * handed over as it is when the options are the defaults, and imported then exported under the
 * options otherwise. */
int dlx_to_dlpack_ex(lua_State *L, int idx, const dlx_export_opts *opts,
                     DLManagedTensorVersioned **out);

/* Fills *out with a borrowed view of the dlx tensor at idx: data, device, ndim, dtype,
 * byte_offset, and shape and strides pointing into the tensor itself (NULL when ndim is 0).
 * Nothing is allocated and nothing is owned: the view is valid while the tensor is referenced
 * and not closed (and, for a borrowed tensor, its loan lasts). DLTensor has no read-only flag:
 * a host must not write through a view of a read-only tensor. Returns 0, or DLX_TYPE_ERROR for
 * a value that is not a tensor, DLX_VALUE_ERROR for a closed or expired tensor or a NULL out,
 * DLX_BUFFER_ERROR for a view that starts inside a byte (fp4/fp6), with the error pushed. */
int dlx_tensor_view(lua_State *L, int idx, DLTensor *out);

/* ---- The exchange table: DLPack 1.3's DLPackExchangeAPI (dlpack.h) for Lua values, so that a
 * peer library moves tensors in and out of a Lua state without capsules or Lua calls. Its
 * entries that take a Lua value take (L, idx) instead of a PyObject, return 0 or the error
 * class, and push the error on failure, like the functions above; the two entries of DLPack's
 * own types (the allocator and the current stream) return 0 or -1, as DLPack says.
 * - header.version: the DLPack version of the tensors (1.3); prev_api is NULL.
 * - managed_tensor_allocator: a new dlx tensor like the prototype (dtype, ndim, shape, device),
 *   exported; on failure it calls SetError(error_ctx, class name, message).
 * - managed_tensor_from_value: dlx_to_dlpack without stream synchronisation (stream -1).
 * - managed_tensor_to_value: imports tensor (ownership passes, even on failure: then its deleter
 *   has run) and pushes a dlx tensor (not a capsule).
 * - dltensor_from_value: dlx_tensor_view.
 * - current_work_stream: the calling thread's current stream of that device (a cudaStream_t, a
 *   Level Zero command list), NULL for devices without streams; -1 for a device that is absent.
 * The table is static and lives as long as the process. dlx_get_exchange_api returns it; it is
 * also in the registry under DLX_EXCHANGE_API_KEY and in the tensor metatable's field
 * __dlpack_c_exchange_api (light userdata), as Python types carry __dlpack_c_exchange_api__. */
#define DLX_EXCHANGE_API_KEY "dlx.exchange_api"

typedef struct dlx_exchange_api {
  DLPackExchangeAPIHeader header;
  DLPackManagedTensorAllocator managed_tensor_allocator;
  int (*managed_tensor_from_value)(lua_State *L, int idx, DLManagedTensorVersioned **out);
  int (*managed_tensor_to_value)(lua_State *L, DLManagedTensorVersioned *tensor);
  int (*dltensor_from_value)(lua_State *L, int idx, DLTensor *out);
  DLPackCurrentWorkStream current_work_stream;
} dlx_exchange_api;

const dlx_exchange_api *dlx_get_exchange_api(void);

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
 * the error classes as above; such a module classifies other errors with error_class.
 *
 * Versions: from version 2 on the table only grows at its end, and dlx_capi_get accepts a table
 * of its own version or later. Modules built against version 1 look under "dlx.capi"
 * (DLX_CAPI_KEY_V1) for a version that is exactly 1: dlx keeps a version-1 table there. */
#define DLX_CAPI_KEY "dlx.capi.v2"
#define DLX_CAPI_KEY_V1 "dlx.capi"
#define DLX_CAPI_VERSION 2

typedef struct dlx_capi {
  int version; /* DLX_CAPI_VERSION */
  /* version 1 */
  int (*push_capsule)(lua_State *L, DLManagedTensorVersioned *mt);
  int (*push_capsule_legacy)(lua_State *L, DLManagedTensor *mt);
  int (*to_dlpack)(lua_State *L, int idx, DLManagedTensorVersioned **out);
  int (*to_dlpack_legacy)(lua_State *L, int idx, DLManagedTensor **out);
  /* version 2 */
  int (*error_class)(lua_State *L, int idx);
  int (*push_borrowed)(lua_State *L, const DLTensor *t, uint64_t flags, dlx_borrow **loan);
  int (*unborrow)(dlx_borrow *loan, int *held);
  int (*push_tensor)(lua_State *L, void *data, DLDataType dtype, DLDevice device, int32_t ndim,
                     const int64_t *shape, const int64_t *strides, uint64_t flags,
                     void (*deleter)(void *ctx), void *ctx);
  int (*to_dlpack_ex)(lua_State *L, int idx, const dlx_export_opts *opts,
                      DLManagedTensorVersioned **out);
  int (*tensor_view)(lua_State *L, int idx, DLTensor *out);
  const dlx_exchange_api *exchange_api;
} dlx_capi;

/* The table, or NULL when dlx.core has not been loaded into this state (or is older than the
 * DLX_CAPI_VERSION this module was built against). */
static inline const dlx_capi *dlx_capi_get(lua_State *L) {
  const dlx_capi *api;
  lua_getfield(L, LUA_REGISTRYINDEX, DLX_CAPI_KEY);
  api = (const dlx_capi *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  return api != NULL && api->version >= DLX_CAPI_VERSION ? api : NULL;
}

#ifdef __cplusplus
}
#endif
#endif /* DLX_H */
