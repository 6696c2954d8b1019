/* tables.h -- what module.c registers: each file's luaL_Reg tables (every function gets the
 * state as upvalue 1), and the closures elementwise.c makes, one per op. module.c names, for each
 * table it fills (dlx.core, the public functions, dlx.linalg, dlx.Tensor's metatable and its
 * methods), the tables that fill it; nothing else uses them. */
#ifndef DLX_LUA_TABLES_H
#define DLX_LUA_TABLES_H

#include "lua/binding.h"

/* ---- dlx.core: the functions lua/dlx/init.lua builds on */
extern const luaL_Reg dlxl_device_funcs[];  /* device.c: devices, device, default_device, ... */
extern const luaL_Reg dlxl_create_funcs[];  /* create.c: empty, zeros, ... with positional args */
extern const luaL_Reg dlxl_value_funcs[];   /* values.c: tensor(data, dtype, device, usm) */
extern const luaL_Reg dlxl_capsule_funcs[]; /* capsule.c: import_capsule, is_capsule */
extern const luaL_Reg dlxl_stream_funcs[];  /* stream.c: stream, current_stream, ... */
extern const luaL_Reg dlxl_error_funcs[];   /* errors.c: error_class */
extern const luaL_Reg dlxl_type_funcs[];    /* types.c: type, expired */
extern const luaL_Reg dlxl_dlpack_funcs[];  /* dlpack.c: consumer(request) -> from_dlpack */
extern const luaL_Reg dlxl_memory_funcs[];  /* memory.c: memory_allocated, memory_cached, ... */
extern const luaL_Reg dlxl_image_funcs[];   /* image.c: image_op, image_op_available */
extern const luaL_Reg dlxl_conv_funcs[];    /* conv.c: conv, for lua/dlx/conv.lua */

/* ---- dlx.core.api: the functions init.lua puts in the dlx table as they are */
extern const luaL_Reg dlxl_public_funcs[];    /* create.c: dlx.empty, ..., with options tables */
extern const luaL_Reg dlxl_reduce_funcs[];    /* reductions.c: dlx.softmax, dlx.log_softmax */
extern const luaL_Reg dlxl_npy_funcs[];       /* npy.c: dlx.frombuffer, save_npy, load_npy */
extern const luaL_Reg dlxl_thread_funcs[];    /* threads.c: set_num_threads, get_num_threads */
extern const luaL_Reg dlxl_random_funcs[];    /* random.c: manual_seed, Generator, rand, ... */
extern const luaL_Reg dlxl_joining_funcs[];   /* joining.c: dlx.cat, dlx.stack */
extern const luaL_Reg dlxl_construct_funcs[]; /* construct.c: linspace, logspace, eye, *_like,
                                                 tril, triu */
extern const luaL_Reg dlxl_view_funcs[];      /* views.c: dlx.shares_memory, may_share_memory */
extern const luaL_Reg dlxl_linalg_funcs[];    /* linalg.c: matmul, mm, bmm, mv, dot, vdot, addmm,
                                                 baddbmm */
/* order_stats.c: dlxl_order_methods (below) as dlx.median(t, ...), quantile, nansum, ... */
extern const luaL_Reg dlxl_count_funcs[]; /* count.c: histogram, searchsorted, bucketize; and
                                             dlxl_count_methods (below) as dlx.histc(t, ...) */

/* ---- dlx.core.linalg: what lua/dlx/linalg.lua builds dlx.linalg from */
extern const luaL_Reg dlxl_decomp_funcs[]; /* linalg_decomp.c: solve, inv, det, qr, svd, ... */

/* ---- dlx.Tensor's methods */
extern const luaL_Reg dlxl_tensor_methods[];    /* tensor.c: t:close() */
extern const luaL_Reg dlxl_view_methods[];      /* views.c: view, reshape, permute, ... */
extern const luaL_Reg dlxl_copy_methods[];      /* copies.c: clone, contiguous, to, ... */
extern const luaL_Reg dlxl_reduce_methods[];    /* reductions.c: sum, mean, var, cumsum, ... */
extern const luaL_Reg dlxl_value_methods[];     /* values.c: item, totable */
extern const luaL_Reg dlxl_dlpack_methods[];    /* dlpack.c: __dlpack, __dlpack_device */
extern const luaL_Reg dlxl_npy_methods[];       /* npy.c: tobytes */
extern const luaL_Reg dlxl_joining_methods[];   /* joining.c: split, chunk, tile, ... */
extern const luaL_Reg dlxl_construct_methods[]; /* construct.c: tril, triu */
extern const luaL_Reg dlxl_random_methods[];    /* random.c: uniform_, normal_ */
extern const luaL_Reg dlxl_indexing_methods[];  /* indexing.c: index_select, gather, ... */
extern const luaL_Reg dlxl_sort_methods[];      /* sort.c: sort, argsort, topk, unique */
extern const luaL_Reg dlxl_linalg_methods[];    /* linalg.c: matmul, diagonal */
extern const luaL_Reg dlxl_order_methods[];     /* order_stats.c: median, kthvalue, mode,
                                                   quantile, cummax, logcumsumexp, nansum, ... */
extern const luaL_Reg dlxl_count_methods[];     /* count.c: histc, bincount */

/* ---- dlx.Tensor's metamethods */
extern const luaL_Reg dlxl_tensor_metamethods[];    /* tensor.c: __len, __tostring, __gc, ... */
extern const luaL_Reg dlxl_elementwise_operators[]; /* elementwise.c: + - * / ... as __add, ... */
extern const luaL_Reg dlxl_indexing_metamethods[];  /* indexing.c: __newindex */
/* indexing.c: __index, a closure whose upvalues are the method table (where
 * tools/check_docs.lua finds it too) and the metatable: a method, else a property (tensor.c),
 * else t[key] for keys that are not strings. */
int dlxl_tensor_index(lua_State *L);

/* ---- elementwise.c: a closure per op (upvalue 2: the op) set into the table on top of the
 * stack: the methods t:add(b) and t:add_(b), and the functions dlx.add(a, b[, opts]) */
void dlxl_set_elementwise_methods(lua_State *L, int state);
void dlxl_set_elementwise_funcs(lua_State *L, int state);

#endif
