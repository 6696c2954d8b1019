/* views.c -- tensor methods that make views (no copy; reshape copies when it must). Dims and
 * indices arrive 1-based, negative from the end, and go to the core 0-based. */
#include "lua/views.h"

#include "core/ops.h"
#include "core/strided.h"
#include "lua/args.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"

/* A 1-based or negative index into a dim of the given size, as a 0-based index. */
static int64_t checkindex(lua_State *L, int idx, int32_t dim, int64_t size) {
  lua_Integer i = dlxl_checkinteger(L, idx, "index");
  if (i >= 1 && i <= size) return (int64_t)i - 1;
  if (i < 0 && i >= -size) return size + (int64_t)i;
  return dlxl_error(L, DLX_VALUE_ERROR,
                    "index %lld out of range for dim %d of size %lld "
                    "(expected -%lld..%lld, not 0)",
                    (long long)i, (int)dim + 1, (long long)size, (long long)size, (long long)size);
}

typedef int (*shape_view_fn)(dlx_tensor *out, const dlx_tensor *t, const int64_t *shape,
                             int32_t ndim, dlx_error *err);

/* t:view(shape) and t:expand(shape): a view of t with a new shape, where a size may be -1. */
static int shape_view(lua_State *L, shape_view_fn fn) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim = dlxl_checkshape(L, 2, shape, true);
  dlxl_result r;
  dlxl_result_begin(L, &r, ndim, NULL);
  dlxl_result_set(L, &r, fn(&r.made, t, shape, ndim, &r.err));
  return 1;
}

/* t:view(shape): one size may be -1. */
static int tensor_view(lua_State *L) { return shape_view(L, dlx_view); }

/* t:reshape(shape): a view when the strides allow it, else a view of a contiguous copy. */
static int tensor_reshape(lua_State *L) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim = dlxl_checkshape(L, 2, shape, true);
  dlxl_result r, copy;
  int rc;
  dlxl_result_begin(L, &r, ndim, NULL);
  rc = dlx_view(&r.made, t, shape, ndim, &r.err);
  if (rc != 0 && !dlx_tensor_is_contiguous(t)) {
    dlxl_result_begin(L, &copy, t->ndim, NULL);
    dlxl_result_set(L, &copy,
                    dlx_clone_as(&copy.made, t, t->dtype, dlx_tensor_device(t), &copy.err));
    rc = dlx_view(&r.made, &copy.made, shape, ndim, &r.err);
    dlxl_closetensor(copy.u); /* the view holds its own reference */
    lua_pop(L, 1);
  }
  dlxl_result_set(L, &r, rc);
  if (r.made.buffer != t->buffer) dlxl_gcdebt(L, dlx_tensor_nbytes(&r.made));
  return 1;
}

/* t:permute(dims): dims is a table listing every dim once. */
static int tensor_permute(lua_State *L) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  int32_t dims[DLX_MAX_NDIM];
  size_t count;
  uint64_t seen = 0;
  dlxl_result r;
  if (lua_type(L, 2) != LUA_TTABLE)
    return dlxl_error(L, DLX_TYPE_ERROR,
                      "permute takes a table listing every dim, such as "
                      "{2, 1}, got %s",
                      dlxl_typename(L, 2));
  count = lua_rawlen(L, 2);
  if (count != (size_t)t->ndim)
    return dlxl_error(L, DLX_VALUE_ERROR, "permute needs each of the %d dims once, got %zu dims",
                      (int)t->ndim, count);
  for (size_t i = 0; i < count; i++) {
    lua_rawgeti(L, 2, (lua_Integer)i + 1);
    dims[i] = dlxl_checkdim(L, -1, t->ndim);
    if (seen & (UINT64_C(1) << dims[i]))
      return dlxl_error(L, DLX_VALUE_ERROR, "permute: dim %lld appears more than once",
                        (long long)lua_tointeger(L, -1));
    seen |= UINT64_C(1) << dims[i];
    lua_pop(L, 1);
  }
  dlxl_result_begin(L, &r, t->ndim, NULL);
  dlxl_result_set(L, &r, dlx_permute(&r.made, t, dims, &r.err));
  return 1;
}

static int tensor_transpose(lua_State *L) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  int32_t d1 = dlxl_checkdim(L, 2, t->ndim), d2 = dlxl_checkdim(L, 3, t->ndim);
  dlxl_result r;
  dlxl_result_begin(L, &r, t->ndim, NULL);
  dlxl_result_set(L, &r, dlx_transpose(&r.made, t, d1, d2, &r.err));
  return 1;
}

/* A first/last position of string.sub: negative counts from the end (-1 is size). */
void dlxl_clamp_range(int64_t size, int64_t *first, int64_t *last, int64_t *step) {
  if (*step > 0) {
    *first = *first < 1 ? 1 : *first;
    *last = *last > size ? size : *last;
  } else {
    *first = *first > size ? size : *first;
    *last = *last < 1 ? 1 : *last;
  }
  /* a step longer than the dim takes one element at most: keep stride * step small */
  if (*step > size) *step = size > 0 ? size : 1;
  if (*step < -size) *step = size > 0 ? -size : -1;
}

static int64_t position(lua_State *L, int idx, const char *what, int64_t size, int64_t def) {
  lua_Integer i;
  if (lua_isnoneornil(L, idx)) return def;
  i = dlxl_checkinteger(L, idx, what);
  return i < 0 ? size + (int64_t)i + 1 : (int64_t)i;
}

/* t:slice(dim, first, last[, step]): first to last inclusive, clamped like string.sub; last
 * defaults to the end in the step's direction. */
static int tensor_slice(lua_State *L) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  int32_t dim = dlxl_checkdim(L, 2, t->ndim);
  int64_t size = t->shape[dim], step = 1, first, last;
  dlxl_result r;
  if (!lua_isnoneornil(L, 5)) step = (int64_t)dlxl_checkinteger(L, 5, "step");
  if (step == 0) return dlxl_error(L, DLX_VALUE_ERROR, "slice step must not be 0");
  first = position(L, 3, "first", size, step > 0 ? 1 : size);
  last = position(L, 4, "last", size, step > 0 ? size : 1);
  dlxl_clamp_range(size, &first, &last, &step);
  dlxl_result_begin(L, &r, t->ndim, NULL);
  dlxl_result_set(L, &r, dlx_slice(&r.made, t, dim, first - 1, last - 1, step, &r.err));
  return 1;
}

/* t:select(dim, i): the i-th slice along dim, which is removed. */
static int tensor_select(lua_State *L) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  int32_t dim = dlxl_checkdim(L, 2, t->ndim);
  int64_t index = checkindex(L, 3, dim, t->shape[dim]);
  dlxl_result r;
  dlxl_result_begin(L, &r, t->ndim, NULL);
  dlxl_result_set(L, &r, dlx_select(&r.made, t, dim, index, &r.err));
  return 1;
}

/* t:narrow(dim, start, length): length elements from start. */
static int tensor_narrow(lua_State *L) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  int32_t dim = dlxl_checkdim(L, 2, t->ndim);
  int64_t size = t->shape[dim];
  lua_Integer start = dlxl_checkinteger(L, 3, "start");
  lua_Integer length = dlxl_checkinteger(L, 4, "length");
  dlxl_result r;
  if (start < 0) start += size + 1;
  if (start < 1 || start > size + 1)
    return dlxl_error(L, DLX_VALUE_ERROR,
                      "narrow start %lld out of range for dim %d of size "
                      "%lld",
                      (long long)lua_tointeger(L, 3), (int)dim + 1, (long long)size);
  if (length < 0 || length > size - (start - 1))
    return dlxl_error(L, DLX_VALUE_ERROR,
                      "narrow length %lld out of range: dim %d has %lld "
                      "elements from %lld",
                      (long long)length, (int)dim + 1, (long long)(size - (start - 1)),
                      (long long)start);
  dlxl_result_begin(L, &r, t->ndim, NULL);
  dlxl_result_set(L, &r, dlx_slice(&r.made, t, dim, start - 1, start - 2 + length, 1, &r.err));
  return 1;
}

/* t:squeeze([dim]): without size-1 dims, or only dim when its size is 1. */
static int tensor_squeeze(lua_State *L) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  int32_t dim = lua_isnoneornil(L, 2) ? -1 : dlxl_checkdim(L, 2, t->ndim);
  dlxl_result r;
  dlxl_result_begin(L, &r, t->ndim, NULL);
  dlxl_result_set(L, &r, dlx_squeeze(&r.made, t, dim, &r.err));
  return 1;
}

/* t:unsqueeze(dim): a new size-1 dim at position dim of the result (1..ndim+1, -1 appends). */
static int tensor_unsqueeze(lua_State *L) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  lua_Integer dim = dlxl_checkinteger(L, 2, "dim"), count = t->ndim + 1;
  dlxl_result r;
  if (dim < -count || dim > count || dim == 0)
    return dlxl_error(L, DLX_VALUE_ERROR,
                      "dim %lld out of range for unsqueeze of a %d-d tensor "
                      "(expected -%lld..%lld, not 0)",
                      (long long)dim, (int)t->ndim, (long long)count, (long long)count);
  dlxl_result_begin(L, &r, t->ndim + 1, NULL);
  dim = dim > 0 ? dim - 1 : count + dim;
  dlxl_result_set(L, &r, dlx_unsqueeze(&r.made, t, (int32_t)dim, &r.err));
  return 1;
}

/* t:expand(shape): size-1 dims broadcast, new leading dims, -1 keeps a size. */
static int tensor_expand(lua_State *L) { return shape_view(L, dlx_expand); }

/* t:flip(dims): reversed along a dim or a list of dims (nil: all), with negative strides. */
static int tensor_flip(lua_State *L) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  uint64_t dims = dlxl_checkdims(L, 2, t->ndim);
  dlxl_result r;
  dlx_tensor next;
  int rc;
  dlxl_result_begin(L, &r, t->ndim, NULL);
  dlx_tensor_share(&r.made, t);
  for (int32_t d = 0; d < t->ndim; d++) {
    if (!(dims & (UINT64_C(1) << d))) continue;
    rc = dlx_flip(&next, &r.made, d, &r.err);
    dlx_tensor_close(&r.made);
    dlxl_check(L, rc, &r.err);
    r.made = next;
  }
  dlxl_result_set(L, &r, 0);
  return 1;
}

/* ---- unfold, as_strided, is_set_to; dlx.shares_memory, dlx.may_share_memory */

/* t:unfold(dim, size, step): Torch7's windows of size elements, step apart, along dim. */
static int tensor_unfold(lua_State *L) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  int32_t dim = dlxl_checkdim(L, 2, t->ndim);
  int64_t size = (int64_t)dlxl_checkinteger(L, 3, "size");
  int64_t step = (int64_t)dlxl_checkinteger(L, 4, "step");
  dlxl_tensor *out = dlxl_newtensor(L, t->ndim + 1);
  dlx_tensor made;
  dlx_error err;
  dlxl_check(L, dlx_unfold(&made, t, dim, size, step, &err), &err);
  dlxl_settensor(L, out, &made);
  return 1;
}

/* A list of ndim strides (integers of any sign), or one integer when ndim is 1. */
static void check_strides(lua_State *L, int idx, int32_t ndim, int64_t *strides) {
  size_t count;
  if (lua_type(L, idx) == LUA_TNUMBER && ndim == 1) {
    strides[0] = (int64_t)dlxl_checkinteger(L, idx, "stride");
    return;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    dlxl_error(L, DLX_TYPE_ERROR, "as_strided: strides must be a table of integers, got %s",
               dlxl_typename(L, idx));
  count = lua_rawlen(L, idx);
  if (count != (size_t)ndim)
    dlxl_error(L, DLX_VALUE_ERROR, "as_strided: %zu strides for a shape of %d dims", count,
               (int)ndim);
  for (int32_t d = 0; d < ndim; d++) {
    lua_rawgeti(L, idx, d + 1);
    strides[d] = (int64_t)dlxl_checkinteger(L, -1, "stride");
    lua_pop(L, 1);
  }
}

/* t:as_strided(shape, strides[, offset]): a view of t's buffer; strides in elements, offset in
 * elements from the buffer's start (default: t's own, t.offset). */
static int tensor_as_strided(lua_State *L) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  int64_t shape[DLX_MAX_NDIM], strides[DLX_MAX_NDIM], offset = t->offset;
  int32_t ndim = dlxl_checkshape(L, 2, shape, false);
  dlxl_tensor *out;
  dlx_tensor made;
  dlx_error err;
  check_strides(L, 3, ndim, strides);
  if (!lua_isnoneornil(L, 4)) offset = (int64_t)dlxl_checkinteger(L, 4, "offset");
  out = dlxl_newtensor(L, ndim);
  dlxl_check(L, dlx_as_strided(&made, t, shape, strides, ndim, offset, &err), &err);
  dlxl_settensor(L, out, &made);
  return 1;
}

/* t:is_set_to(b): Torch7's isSetTo, one buffer seen through the same dtype, offset, shape and
 * strides. */
static int tensor_is_set_to(lua_State *L) {
  dlx_tensor av, bv;
  const dlx_tensor *a = dlxl_checktensor(L, 1, &av), *b = dlxl_checktensor(L, 2, &bv);
  lua_pushboolean(L, dlx_tensors_same_view(a, b));
  return 1;
}

/* dlx.may_share_memory(a, b): the byte ranges of their elements meet on one device. */
static int api_may_share_memory(lua_State *L) {
  dlx_tensor av, bv;
  const dlx_tensor *a = dlxl_checktensor(L, 1, &av), *b = dlxl_checktensor(L, 2, &bv);
  lua_pushboolean(L, dlx_may_share_memory(a, b));
  return 1;
}

/* dlx.shares_memory(a, b[, max_work]): some byte is in an element of both (exact); a ValueError
 * past max_work steps (default 2^22). */
static int api_shares_memory(lua_State *L) {
  dlx_tensor av, bv;
  const dlx_tensor *a = dlxl_checktensor(L, 1, &av), *b = dlxl_checktensor(L, 2, &bv);
  int64_t max_work = INT64_C(1) << 22;
  bool shared = false;
  dlx_error err;
  if (!lua_isnoneornil(L, 3)) max_work = (int64_t)dlxl_checkinteger(L, 3, "max_work");
  if (max_work < 1)
    return dlxl_error(L, DLX_VALUE_ERROR, "shares_memory: max_work must be at least 1, got %lld",
                      (long long)max_work);
  dlxl_check(L, dlx_shares_memory(a, b, max_work, &shared, &err), &err);
  lua_pushboolean(L, shared);
  return 1;
}

const luaL_Reg dlxl_view_funcs[] = {
    {"shares_memory", api_shares_memory},
    {"may_share_memory", api_may_share_memory},
    {NULL, NULL},
};

const luaL_Reg dlxl_view_methods[] = {
    {"view", tensor_view},
    {"reshape", tensor_reshape},
    {"permute", tensor_permute},
    {"transpose", tensor_transpose},
    {"slice", tensor_slice},
    {"select", tensor_select},
    {"narrow", tensor_narrow},
    {"squeeze", tensor_squeeze},
    {"unsqueeze", tensor_unsqueeze},
    {"expand", tensor_expand},
    {"flip", tensor_flip},
    /* unfold, as_strided, is_set_to */
    {"unfold", tensor_unfold},
    {"as_strided", tensor_as_strided},
    {"is_set_to", tensor_is_set_to},
    {NULL, NULL},
};
