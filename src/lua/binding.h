/* binding.h -- internals of the Lua binding dlx.core: the userdata types, argument checks and
 * errors its files share. Dims and indices are 1-based (negative from the end) on the Lua side
 * and 0-based in the core; the conversion happens here, before any core call.
 *
 * Every raising helper returns int so that a lua_CFunction can `return` it. */
#ifndef DLX_LUA_BINDING_H
#define DLX_LUA_BINDING_H

#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/core.h"
#include "dlx.h"

#define DLXL_TENSOR "dlx.Tensor"
#define DLXL_DEVICE "dlx.Device"
#define DLXL_CAPSULE "dlx.Capsule"
#define DLXL_STREAM "dlx.Stream"
#define DLXL_METHODS "dlx.Tensor.methods" /* registry key of the Tensor method table */

#if defined(__GNUC__)
#define DLXL_PUBLIC __attribute__((visibility("default")))
#define DLXL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DLXL_PUBLIC
#define DLXL_PRINTF(f, a)
#endif

/* ---- state.c: what dlx.core keeps per Lua state, in one userdata. Every C function that
 * dlx.core registers holds it as upvalue 1 (DLXL_STATE), which makes the checks on every call a
 * few instructions; the host C API's functions, which run without upvalues, find it in the
 * registry. Its user values hold what the struct can only name. */
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

/* ---- errors.c: raise "<Class>: <message>" with the Lua caller's position */
int dlxl_error(lua_State *L, dlx_errclass code, const char *fmt, ...) DLXL_PRINTF(3, 4);
int dlxl_raise(lua_State *L, const dlx_error *err);
/* Raises err when rc is not 0. */
void dlxl_check(lua_State *L, int rc, const dlx_error *err);
/* The value's type for messages: __name for our userdata, else the Lua type name. */
const char *dlxl_typename(lua_State *L, int idx);
/* error_class(err): the class of an error value, as dlx_error_class of dlx.h tells it. */
extern const luaL_Reg dlxl_error_funcs[];

/* ---- types.c: type(v), the kind of a dlx value ("tensor", "closed tensor", ...) or nil */
extern const luaL_Reg dlxl_type_funcs[];

/* ---- args.c: argument checks; `what` names the value in messages ("dim", "size", ...) */
lua_Integer dlxl_checkinteger(lua_State *L, int idx, const char *what);
bool dlxl_optboolean(lua_State *L, int idx, const char *what);
/* A dtype name; nil gives def (pass -1 to make nil an error). */
dlx_dtype dlxl_checkdtype(lua_State *L, int idx, int def);
/* A shape (table of sizes or one integer) into shape[DLX_MAX_NDIM]; returns ndim. Sizes are
 * >= 0, or -1 too when allow_minus1. */
int32_t dlxl_checkshape(lua_State *L, int idx, int64_t *shape, bool allow_minus1);
/* A 1-based or negative dim of an ndim-d tensor, as a 0-based dim. */
int32_t dlxl_checkdim(lua_State *L, int idx, int32_t ndim);
/* A dim or a list of dims, as a 0-based bitmask; nil gives all dims. Duplicates are errors. */
uint64_t dlxl_checkdims(lua_State *L, int idx, int32_t ndim);

/* An options table at idx of function fname, once its known keys (a NULL-terminated list) were
 * read: found is how many of them held a value. Any other key is a TypeError naming it, as
 * Python rejects an unknown keyword; the check counts the entries, and looks for the culprit
 * only when the count differs. */
void dlxl_checkoptions(lua_State *L, int idx, const char *fname, const char *const *known,
                       int found);
/* The same table read in one pass: pushes the values of the first count known keys (nil for a
 * missing one), in that order, and returns how many other entries there are. The caller reads
 * them, pops them, and raises with dlxl_checkoptions when the result is not 0 (a table with a
 * metatable is read with lua_getfield instead, and the result is -1: check it the usual way). */
int dlxl_pushoptions(lua_State *L, int idx, const char *const *known, int count);

/* ---- device.c */
void dlxl_open_device(lua_State *L);
void dlxl_pushdevice(lua_State *L, DLDevice device);
/* A device spec (string, DLPack pair or device), checked for availability; nil gives cpu. */
DLDevice dlxl_checkdevice(lua_State *L, int idx);
/* The same, without the availability check. */
DLDevice dlxl_parsedevice(lua_State *L, int idx);
/* This state's default device: DLX_DEVICE (a comma-separated list of specs, the first available
 * wins), else the best available (cuda:0, oneapi:0, cpu); chosen on first use. */
DLDevice dlxl_default_device(lua_State *L);
/* A kind of USM: nil (the device's default), "device", "host" or "shared"; ValueError else. */
dlx_memory dlxl_checkmemory(lua_State *L, int idx);
/* The kind of memory t lives in, by its USM name; nil on devices with one kind. */
void dlxl_pushmemory(lua_State *L, const dlx_tensor *t);
extern const luaL_Reg dlxl_device_funcs[];

/* ---- create.c */
/* Where a new tensor goes, from an options table {dtype =, device =, usm =}. */
typedef struct dlxl_placement {
  int dtype; /* a dlx_dtype, or -1 when not given */
  DLDevice device;
  dlx_memory memory;
} dlxl_placement;
/* Reads the options table (or nil) at idx of the function fname; the device defaults to the
 * state's default device. */
void dlxl_checkplacement(lua_State *L, int idx, const char *fname, dlxl_placement *out);

/* ---- tensor.c: the userdata life cycle
 *
 * A tensor userdata holds a view's fields, then its shape and strides for the dims it was made
 * with room for: a dlx_tensor reserves DLX_MAX_NDIM of each (over 500 bytes), and a userdata of
 * that size for every small temporary is memory the collector counts, paces itself by and
 * sweeps. Core calls take a dlx_tensor: dlxl_getview copies a userdata into one, a borrowed view
 * (no reference of its own) that stays valid while the userdata is open and on the stack (an
 * open userdata's fields never change); dlxl_settensor moves a core result into a userdata. */
typedef struct dlxl_tensor {
  dlx_buffer *buffer; /* one reference; NULL for a closed tensor */
  dlx_dtype dtype;
  int32_t ndim;
  int32_t room; /* the dims there is space for */
  bool readonly;
  int64_t offset;
  int64_t dims[]; /* shape in dims[0..ndim), strides in dims[room..room + ndim) */
} dlxl_tensor;

/* Opens the metatable (state: the stack index of the state userdata) and leaves the stack as it
 * was. */
void dlxl_open_tensor(lua_State *L, int state);
/* Pushes a new closed tensor (metatable set, no buffer) with room for `room` dims (at most
 * DLX_MAX_NDIM): fill it with dlxl_settensor after a core call, which must make at most that
 * many dims. Loads dlx.core first when a host calls in before require "dlx". */
dlxl_tensor *dlxl_newtensor(lua_State *L, int32_t room);
/* dlxl_newtensor with dlx.Tensor's metatable taken from the stack at the absolute index mt_idx
 * (one that dlxl_totensor_keep left there), without looking it up. */
dlxl_tensor *dlxl_newtensor_mt(lua_State *L, int32_t room, int mt_idx);
/* Moves t (and its reference) into the closed userdata u. A t of more dims than u has room for
 * is a bug of the caller: t is released and an error raised. */
void dlxl_settensor(lua_State *L, dlxl_tensor *u, const dlx_tensor *t);
/* Fills *view with u's fields (borrowed: see above) and returns view. */
const dlx_tensor *dlxl_getview(const dlxl_tensor *u, dlx_tensor *view);
/* Drops the userdata's reference; idempotent. */
void dlxl_closetensor(dlxl_tensor *u);
/* The tensor userdata at idx (open or closed), or NULL when the value is not a tensor. */
dlxl_tensor *dlxl_totensor(lua_State *L, int idx);
/* The same for a C function of dlx.core that already has its state s (not NULL). */
dlxl_tensor *dlxl_totensor_in(lua_State *L, const dlxl_state *s, int idx);
/* dlxl_totensor_in that leaves the value's metatable, when it has one, on the stack (the
 * metatable of dlx.Tensor when it returns a tensor): for callers whose result is pushed on top
 * anyway, which save the call that pops it. */
dlxl_tensor *dlxl_totensor_keep(lua_State *L, const dlxl_state *s, int idx);
/* An open tensor as a view in *view (returned), or raises (TypeError for other values,
 * ValueError for a closed tensor). */
const dlx_tensor *dlxl_checktensor(lua_State *L, int idx, dlx_tensor *view);
/* u itself when it is open, else raises the ValueError of a closed tensor: for a value already
 * known to be a tensor, without a second look at its metatable. */
dlxl_tensor *dlxl_checkopen(lua_State *L, dlxl_tensor *u);
/* Tells the collector that nbytes outside the Lua heap are now held. */
void dlxl_gcdebt(lua_State *L, int64_t nbytes);
/* The same for a C function of dlx.core that already has its state s. */
void dlxl_gcdebt_in(lua_State *L, dlxl_state *s, int64_t nbytes);

/* ---- values.c: Lua values <-> dlx_scalar and nested tables */
void dlxl_checkscalar(lua_State *L, int idx, dlx_scalar *out);
void dlxl_pushscalar(lua_State *L, const dlx_scalar *value);
/* Pushes a tensor from the nested Lua data at idx (dlx.tensor); dtype -1 infers it. */
void dlxl_pushdata(lua_State *L, int idx, int dtype, DLDevice device, dlx_memory memory);
/* The dtype dlx.tensor and dlx.full infer for values of this kind. */
dlx_dtype dlxl_default_dtype(dlx_kind kind);
/* A writable pointer to the first element of a fresh host tensor. */
void *dlxl_hostdata(const dlx_tensor *t);
/* Replaces the fresh host tensor `wide` (on the stack at idx) with a tensor of dtype on device,
 * in memory of that kind: pushes it, or pushes the same userdata again when nothing changes. */
void dlxl_pushconverted(lua_State *L, int idx, dlx_dtype dtype, DLDevice device, dlx_memory memory);
extern const luaL_Reg dlxl_value_funcs[];
extern const luaL_Reg dlxl_value_methods[];

/* ---- elementwise.c: every elementwise op, set into the table on top of the stack: the methods
 * t:add(b) and t:add_(b), the functions dlx.add(a, b[, opts]), the operators of dlx.Tensor */
void dlxl_set_elementwise_methods(lua_State *L, int state);
void dlxl_set_elementwise_funcs(lua_State *L, int state);
void dlxl_set_elementwise_metamethods(lua_State *L, int state);

/* ---- capsule.c */
typedef struct dlxl_capsule {
  void *ptr; /* DLManagedTensorVersioned * or DLManagedTensor * */
  bool versioned;
  bool used; /* consumed: the deleter is someone else's business now */
} dlxl_capsule;

void dlxl_open_capsule(lua_State *L, int state);
/* Pushes an empty (ptr NULL) capsule; loads dlx.core first when its metatable is missing. */
dlxl_capsule *dlxl_newcapsule(lua_State *L);
dlxl_capsule *dlxl_tocapsule(lua_State *L, int idx);
/* Calls the (possibly NULL) deleter of a managed tensor; ptr may be NULL. */
void dlxl_delete_managed(void *ptr, bool versioned);
/* Consumes the capsule and pushes the imported tensor. */
dlxl_tensor *dlxl_importcapsule(lua_State *L, dlxl_capsule *capsule);
extern const luaL_Reg dlxl_capsule_funcs[];

/* ---- stream.c: streams of devices whose backend has them (dlx.stream, dlx.current_stream) */
void dlxl_open_stream(lua_State *L);
/* The DLPack stream value of the dlx.Stream at idx; false when the value is not a stream. */
bool dlxl_tostreamvalue(lua_State *L, int idx, int64_t *value);
extern const luaL_Reg dlxl_stream_funcs[];

/* ---- memory.c: memory_allocated, memory_cached, empty_cache, and the retry before a
 * MemoryError */
extern const luaL_Reg dlxl_memory_funcs[];
/* After a core call that allocates returned rc: true when the call should run once more. That
 * is after a MemoryError, when not yet *retried: then a full collection has closed the
 * tensors nothing references and every backend's cache was emptied. src, the call's tensor
 * argument (or NULL), is checked again, since a finalizer may have closed it (ValueError).
 *   do rc = dlx_reduce(&made, ..., &err); while (dlxl_reclaim(L, rc, &retried, t)); */
bool dlxl_reclaim(lua_State *L, int rc, bool *retried, const dlxl_tensor *src);

/* ---- the other function and method tables */
extern const luaL_Reg dlxl_create_funcs[];   /* create.c */
extern const luaL_Reg dlxl_tensor_methods[]; /* tensor.c */
extern const luaL_Reg dlxl_view_methods[];   /* views.c */
/* views.c: a slice's 1-based inclusive first and last clamped into a dim of size `size` for
 * the direction of step (not 0), and a step longer than the dim shortened to it. */
void dlxl_clamp_range(int64_t size, int64_t *first, int64_t *last, int64_t *step);
extern const luaL_Reg dlxl_copy_methods[];   /* copies.c */
extern const luaL_Reg dlxl_reduce_methods[]; /* reductions.c */
extern const luaL_Reg dlxl_reduce_funcs[];   /* reductions.c: dlx.softmax, dlx.log_softmax */
extern const luaL_Reg dlxl_dlpack_methods[]; /* dlpack.c; capi.c has the host C API */
extern const luaL_Reg dlxl_dlpack_funcs[];   /* dlpack.c: consumer(request) -> from_dlpack */
extern const luaL_Reg dlxl_public_funcs[];   /* create.c: dlx.empty, ..., with options tables */
/* linalg_decomp.c: the decompositions of dlx.linalg */
extern const luaL_Reg dlxl_decomp_funcs[];
extern const luaL_Reg dlxl_npy_funcs[];      /* npy.c: dlx.frombuffer, save_npy, load_npy */
extern const luaL_Reg dlxl_npy_methods[];    /* npy.c: t:tobytes() */
extern const luaL_Reg dlxl_thread_funcs[];   /* threads.c: dlx.set_num_threads, get_num_threads */
extern const luaL_Reg dlxl_random_funcs[];   /* random.c: dlx.manual_seed, Generator, rand, ... */
extern const luaL_Reg dlxl_random_methods[]; /* random.c: t:uniform_, t:normal_ */
/* joining.c: dlx.cat, dlx.stack; t:split, chunk, tile, repeat_interleave */
extern const luaL_Reg dlxl_joining_funcs[];
extern const luaL_Reg dlxl_joining_methods[];
/* construct.c: dlx.linspace, logspace, eye, the *_like functions, tril, triu; t:tril, t:triu */
extern const luaL_Reg dlxl_construct_funcs[];
extern const luaL_Reg dlxl_construct_methods[];
/* indexing.c: t:index_select, gather, scatter_, index_add_, masked_select, masked_fill_,
 * nonzero; and t[key], t[key] = v for keys that are not strings (tensor.c's __index and
 * __newindex call them with the tensor at 1, the key at 2 and the value at 3) */
extern const luaL_Reg dlxl_indexing_methods[];
int dlxl_index_get(lua_State *L);
int dlxl_index_set(lua_State *L);
/* create.c: pushes a new uninitialised C-contiguous tensor, returns its userdata and its view in
 * *view; src (or NULL), a tensor the call reads, is checked again after a collection. */
dlxl_tensor *dlxl_pushempty(lua_State *L, const dlxl_tensor *src, const int64_t *shape,
                            int32_t ndim, dlx_dtype dtype, DLDevice device, dlx_memory memory,
                            dlx_tensor *view);
/* linalg.c: dlx.matmul, mm, bmm, mv, dot, vdot, addmm, baddbmm; t:matmul, t:diagonal */
extern const luaL_Reg dlxl_linalg_funcs[];
extern const luaL_Reg dlxl_linalg_methods[];
/* sort.c: t:sort, argsort, topk, unique */
extern const luaL_Reg dlxl_sort_methods[];
/* order_stats.c: t:median, nanmedian, kthvalue, mode, quantile, nanquantile, cummax, cummin,
 * logcumsumexp, nansum, nanmean, count_nonzero; the same functions are dlx.median, ... */
extern const luaL_Reg dlxl_order_methods[];
/* copies.c: pushes a C-contiguous copy of t (a view of u) as dtype on device, in the kind of
 * memory t is in when the device is t's. */
int dlxl_pushclone(lua_State *L, const dlxl_tensor *u, const dlx_tensor *t, dlx_dtype dtype,
                   DLDevice device);

/* ---- capi.c, borrow.c, exchange.c: the host C API of dlx.h, which never raises */
/* Publishes the dlx_capi tables and the exchange table (registry, tensor metatable). */
void dlxl_open_capi(lua_State *L);
/* The class of the error that a failed lua_pcall left on the stack; never DLX_OK. */
int dlxl_failure_class(lua_State *L, int status);
/* Pushes "<Class>: <message>" as dlx raises it (the class recorded for dlx_error_class) without
 * raising; returns code, or DLX_MEMORY_ERROR when even that failed. */
int dlxl_push_failure(lua_State *L, dlx_errclass code, const char *message);
/* Loads dlx.core into the state when a host calls in before require "dlx". */
void dlxl_require_core(lua_State *L);
/* dlx_to_dlpack without stream synchronisation (the exchange table's export). */
int dlxl_to_dlpack_nosync(lua_State *L, int idx, DLManagedTensorVersioned **out);
/* The exchange table (exchange.c). */
extern const dlx_exchange_api dlxl_exchange_api;

#endif
