/* copies.c -- tensor methods that copy: clone, contiguous, to, astype, copy_ and fill_. */
#include "lua/copies.h"

#include <string.h>

#include "lua/args.h"
#include "lua/device.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"
#include "lua/values.h"

/* Pushes a new C-contiguous copy of t (a view of u) as dtype on device, in memory of that kind. */
static int push_clone_in(lua_State *L, const dlxl_tensor *u, const dlx_tensor *t, dlx_dtype dtype,
                         DLDevice device, dlx_memory memory) {
  dlxl_result r;
  int rc;
  dlxl_result_begin(L, &r, t->ndim, u);
  do rc = dlx_clone_as_memory(&r.made, t, dtype, device, memory, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  return dlxl_result_push(L, &r, rc);
}

/* The same in the kind of memory t is in (a clone of a shared USM tensor is shared too). */
int dlxl_pushclone(lua_State *L, const dlxl_tensor *u, const dlx_tensor *t, dlx_dtype dtype,
                   DLDevice device) {
  dlx_memory memory =
      dlx_device_equal(device, dlx_tensor_device(t)) ? dlx_tensor_memory(t) : DLX_MEMORY_DEFAULT;
  return push_clone_in(L, u, t, dtype, device, memory);
}

static int tensor_clone(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  return dlxl_pushclone(L, lua_touserdata(L, 1), t, t->dtype, dlx_tensor_device(t));
}

/* t:contiguous(): t itself when it is already C-contiguous. */
static int tensor_contiguous(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  if (!dlx_tensor_is_contiguous(t))
    return dlxl_pushclone(L, lua_touserdata(L, 1), t, t->dtype, dlx_tensor_device(t));
  lua_settop(L, 1);
  return 1;
}

static int tensor_astype(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  return dlxl_pushclone(L, lua_touserdata(L, 1), t, dlxl_checkdtype(L, 2, -1),
                        dlx_tensor_device(t));
}

/* The request of t:to(...): a dtype name, a device spec, or opts {dtype =, device =, usm =,
 * copy =}. */
typedef struct target {
  dlx_dtype dtype;
  DLDevice device;
  dlx_memory memory; /* DLX_MEMORY_DEFAULT: not asked for */
  bool copy;
} target;

static void read_opts(lua_State *L, int idx, target *to) {
  static const char *const known[] = {"dtype", "device", "usm", "copy", NULL};
  int found = 0;
  found += lua_getfield(L, idx, "dtype") != LUA_TNIL;
  to->dtype = dlxl_checkdtype(L, -1, (int)to->dtype);
  found += lua_getfield(L, idx, "device") != LUA_TNIL;
  if (!lua_isnil(L, -1)) to->device = dlxl_checkdevice(L, -1);
  found += lua_getfield(L, idx, "usm") != LUA_TNIL;
  to->memory = dlxl_checkmemory(L, -1);
  found += lua_getfield(L, idx, "copy") != LUA_TNIL;
  to->copy = dlxl_optboolean(L, -1, "copy");
  lua_pop(L, 4);
  dlxl_checkoptions(L, idx, "to", known, found);
}

static void read_target(lua_State *L, int idx, target *to) {
  dlx_dtype dtype;
  switch (lua_type(L, idx)) {
  case LUA_TSTRING:
    if (dlx_dtype_from_name(lua_tostring(L, idx), &dtype) == 0)
      to->dtype = dtype;
    else
      to->device = dlxl_checkdevice(L, idx);
    return;
  case LUA_TTABLE:
    lua_rawgeti(L, idx, 1);
    if (lua_isnil(L, -1))
      read_opts(L, idx, to);
    else
      to->device = dlxl_checkdevice(L, idx);
    lua_pop(L, 1);
    return;
  case LUA_TUSERDATA:
    to->device = dlxl_checkdevice(L, idx);
    return;
  default:
    dlxl_error(L, DLX_TYPE_ERROR,
               "to() takes a device, a dtype name or options {dtype =, "
               "device =, usm =, copy =}, got %s",
               dlxl_typename(L, idx));
  }
}

/* t:to(spec_or_opts): t itself when neither dtype, device nor kind of memory changes, unless
 * copy = true. */
static int tensor_to(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  target to = {t->dtype, dlx_tensor_device(t), DLX_MEMORY_DEFAULT, false};
  bool same;
  read_target(L, 2, &to);
  same = to.dtype == t->dtype && dlx_device_equal(to.device, dlx_tensor_device(t)) &&
         (to.memory == DLX_MEMORY_DEFAULT || to.memory == dlx_tensor_memory(t));
  if (to.copy || !same) {
    if (to.memory == DLX_MEMORY_DEFAULT)
      return dlxl_pushclone(L, lua_touserdata(L, 1), t, to.dtype, to.device);
    return push_clone_in(L, lua_touserdata(L, 1), t, to.dtype, to.device, to.memory);
  }
  lua_settop(L, 1);
  return 1;
}

/* t:copy_(src): src broadcast, cast and moved into t; returns t. */
static int tensor_copy_(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  dlxl_tensor *src = dlxl_totensor(L, 2);
  dlx_tensor src_view;
  dlx_error err;
  if (src == NULL)
    return dlxl_error(L, DLX_TYPE_ERROR, "copy_ takes a source tensor, got %s",
                      dlxl_typename(L, 2));
  dlxl_check(L, dlx_copy(t, dlxl_getview(dlxl_checkopen(L, src), &src_view), &err), &err);
  lua_settop(L, 1);
  return 1;
}

/* t:fill_(value): returns t. */
static int tensor_fill_(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  dlx_scalar value;
  dlx_error err;
  dlxl_checkscalar(L, 2, &value);
  dlxl_check(L, dlx_fill(t, &value, &err), &err);
  lua_settop(L, 1);
  return 1;
}

const luaL_Reg dlxl_copy_methods[] = {
    {"clone", tensor_clone},
    {"contiguous", tensor_contiguous},
    {"astype", tensor_astype},
    {"to", tensor_to},
    {"copy_", tensor_copy_},
    {"fill_", tensor_fill_},
    {NULL, NULL},
};
