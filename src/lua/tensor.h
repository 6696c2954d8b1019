/* tensor.h -- the dlx.Tensor userdata: its life cycle and properties (tensor.c).
 *
 * A tensor userdata holds a view's fields, then its shape and strides for the dims it was made
 * with room for: a dlx_tensor reserves DLX_MAX_NDIM of each (over 500 bytes), and a userdata of
 * that size for every small temporary is memory the collector counts, paces itself by and
 * sweeps. Core calls take a dlx_tensor: dlxl_getview copies a userdata into one, a borrowed view
 * (no reference of its own) that stays valid while the userdata is open and on the stack (an
 * open userdata's fields never change); dlxl_settensor moves a core result into a userdata
 * (result.h wraps the whole of a call that makes one). */
#ifndef DLX_LUA_TENSOR_H
#define DLX_LUA_TENSOR_H

#include "lua/state.h"

#define DLXL_TENSOR "dlx.Tensor"

typedef struct dlxl_tensor {
  dlx_buffer *buffer; /* one reference; NULL for a closed tensor */
  dlx_dtype dtype;
  int32_t ndim;
  int32_t room; /* the dims there is space for */
  bool readonly;
  int64_t offset;
  int64_t dims[]; /* shape in dims[0..ndim), strides in dims[room..room + ndim) */
} dlxl_tensor;

/* Makes the metatable on top of the stack (module.c fills it) dlx.Tensor's, for this state
 * (state: the stack index of the state userdata, whose user value and tensor_mt it sets) and
 * for the host C API; pops it. */
void dlxl_set_tensor_mt(lua_State *L, int state);
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

/* A property of tensors (t.shape, t.dtype, ...): pushes its value for the open tensor t. */
typedef void (*dlxl_property)(lua_State *L, const dlx_tensor *t);
/* The property named key, or NULL when no property has that name (t[key] of indexing.c). */
dlxl_property dlxl_findproperty(const char *key);

#endif
