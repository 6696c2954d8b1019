/* npy.c -- bytes and files: t:tobytes(), dlx.frombuffer(s, dtype[, shape]), dlx.save_npy(path, t)
 * and dlx.load_npy(path[, {mmap =, writable =}]) over the core's .npy functions (core/npy.h). */
#include <stdio.h>
#include <string.h>

#include "core/npy.h"
#include "lua/args.h"
#include "lua/errors.h"
#include "lua/memory.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"

static const char *checkpath(lua_State *L, int idx, const char *fname) {
  if (lua_type(L, idx) != LUA_TSTRING)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: path must be a string, not %s", fname,
               dlxl_typename(L, idx));
  return lua_tostring(L, idx);
}

/* t:tobytes() -> the elements' bytes in C order (a device tensor is copied to the host first, as
 * totable does). */
static int tensor_tobytes(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  dlxl_result copy; /* holds the host copy: collected should pushlstring raise */
  const void *data;
  size_t nbytes;
  int rc;
  dlxl_result_begin(L, &copy, t->ndim, lua_touserdata(L, 1));
  do rc = dlx_npy_host_bytes(t, &copy.made, &data, &nbytes, &copy.err);
  while (dlxl_result_retry(L, &copy, rc));
  dlxl_result_set(L, &copy, rc);
  lua_pushlstring(L, nbytes > 0 ? data : "", nbytes);
  dlxl_closetensor(copy.u);
  return 1;
}

/* The shape of frombuffer without one: all of the string's bytes as a 1-D tensor. */
static int32_t whole_string(lua_State *L, size_t len, dlx_dtype dtype, int64_t *shape) {
  int bits = dlx_dtype_bits(dtype);
  if ((uint64_t)len * 8 % (uint64_t)bits != 0)
    dlxl_error(L, DLX_VALUE_ERROR,
               "frombuffer: %zu bytes are not a whole number of %s items (%d bits each); give "
               "a shape",
               len, dlx_dtype_info_of(dtype)->name, bits);
  shape[0] = (int64_t)((uint64_t)len * 8 / (uint64_t)bits);
  return 1;
}

/* dlx.frombuffer(s, dtype[, shape]) -> a new CPU tensor holding a copy of the string's bytes. */
static int api_frombuffer(lua_State *L) {
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim;
  size_t len;
  const char *s;
  dlx_dtype dtype;
  dlxl_tensor *out;
  dlx_tensor made;
  if (lua_type(L, 1) != LUA_TSTRING)
    return dlxl_error(L, DLX_TYPE_ERROR, "frombuffer: expected a string, got %s",
                      dlxl_typename(L, 1));
  s = lua_tolstring(L, 1, &len);
  dtype = dlxl_checkdtype(L, 2, -1);
  ndim = lua_isnoneornil(L, 3) ? whole_string(L, len, dtype, shape)
                               : dlxl_checkshape(L, 3, shape, false);
  out =
      dlxl_pushempty(L, NULL, shape, ndim, dtype, (DLDevice){kDLCPU, 0}, DLX_MEMORY_DEFAULT, &made);
  if ((uint64_t)dlx_tensor_nbytes(&made) != len) {
    char text[DLX_SHAPE_TEXT];
    long long need = (long long)dlx_tensor_nbytes(&made);
    dlxl_closetensor(out);
    return dlxl_error(
        L, DLX_VALUE_ERROR, "frombuffer: %zu bytes do not match shape %s of %s (%lld bytes)", len,
        dlx_shape_text(text, sizeof text, shape, ndim), dlx_dtype_info_of(dtype)->name, need);
  }
  if (len > 0) memcpy(made.buffer->data, s, len);
  dlxl_gcdebt(L, (int64_t)len);
  return 1;
}

/* dlx.save_npy(path, t): t in C order, whatever its layout and device. */
static int api_save_npy(lua_State *L) {
  const char *path = checkpath(L, 1, "save_npy");
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 2, &view);
  dlx_error err;
  bool retried = false;
  int rc;
  do rc = dlx_npy_save(path, t, &err);
  while (dlxl_reclaim(L, rc, &retried, lua_touserdata(L, 2)));
  dlxl_check(L, rc, &err);
  return 0;
}

/* dlx.load_npy(path[, {mmap = false, writable = false}]) -> a CPU tensor. */
static int api_load_npy(lua_State *L) {
  static const char *const known[] = {"mmap", "writable", NULL};
  const char *path = checkpath(L, 1, "load_npy");
  bool map = false, writable = false;
  dlxl_result r;
  int rc;
  if (!lua_isnoneornil(L, 2)) {
    int others, found = 0;
    if (lua_type(L, 2) != LUA_TTABLE)
      return dlxl_error(L, DLX_TYPE_ERROR,
                        "load_npy: opts must be a table {mmap =, writable =}, not a %s",
                        dlxl_typename(L, 2));
    others = dlxl_pushoptions(L, 2, known, 2);
    found = !lua_isnil(L, -2) + !lua_isnil(L, -1);
    map = dlxl_optboolean(L, -2, "load_npy: mmap");
    writable = dlxl_optboolean(L, -1, "load_npy: writable");
    lua_pop(L, 2);
    if (others != 0) dlxl_checkoptions(L, 2, "load_npy", known, found);
    if (writable && !map)
      return dlxl_error(L, DLX_VALUE_ERROR,
                        "load_npy: writable = true needs mmap = true (a loaded copy is always "
                        "writable)");
  }
  dlxl_result_begin(L, &r, DLX_MAX_NDIM, NULL); /* the file says how many */
  do rc = dlx_npy_load(&r.made, path, map, writable, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  if (!map) return dlxl_result_push(L, &r, rc);
  dlxl_result_set(L, &r, rc); /* the file's pages, not new memory */
  return 1;
}

const luaL_Reg dlxl_npy_funcs[] = {
    {"frombuffer", api_frombuffer},
    {"save_npy", api_save_npy},
    {"load_npy", api_load_npy},
    {NULL, NULL},
};

const luaL_Reg dlxl_npy_methods[] = {
    {"tobytes", tensor_tobytes},
    {NULL, NULL},
};
