/* indexing.c -- t[key] and t[key] = v (the tensor metatable's __index and __newindex: a string
 * key names a method or a property), and the methods index_select, gather, scatter_, index_add_,
 * masked_select, masked_fill_ and nonzero.
 *
 * Keys follow Torch7: an integer i (1-based, negative from the end) selects along dim 1 (a Lua
 * value for a 1-D tensor); a table {i, {first, last, step}, {}} selects, slices or keeps each
 * leading dim in turn; a bool tensor is a mask. Reading t[#t + 1] gives nil, so that ipairs(t)
 * stops there; any other index out of range is a ValueError. */
#include "lua/args.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"
#include "lua/values.h"
#include "lua/views.h"

/* What a table key does to one dim of the tensor. */
typedef struct index_step {
  bool select;
  int64_t index;             /* select: 0-based */
  int64_t first, last, step; /* slice: 0-based, clamped, as dlx_slice takes them */
} index_step;

/* An integer index of a dim of the given size, 0-based; -1 for size + 1 when `past_end` is
 * allowed (the end of ipairs); ValueError otherwise. */
static int64_t checkposition(lua_State *L, lua_Integer i, int32_t dim, int64_t size,
                             bool past_end) {
  if (i >= 1 && i <= size) return (int64_t)i - 1;
  if (i < 0 && i >= -size) return size + (int64_t)i;
  if (past_end && i == size + 1) return -1;
  dlx_error err;
  dlx_index_out_of_range(&err, (int64_t)i, dim, size);
  return dlxl_raise(L, &err);
}

static lua_Integer checkkeyint(lua_State *L, int idx, const char *what) {
  int isint;
  lua_Integer i = lua_tointegerx(L, idx, &isint);
  if (!isint)
    return dlxl_error(L, DLX_TYPE_ERROR, "%s must be an integer, got %s", what,
                      lua_type(L, idx) == LUA_TNUMBER ? "a fraction" : dlxl_typename(L, idx));
  return i;
}

/* A string.sub position: negative counts from the end (-1 is size). */
static int64_t range_position(lua_State *L, int idx, int64_t size, int64_t def) {
  lua_Integer i;
  if (lua_isnil(L, idx)) return def;
  i = checkkeyint(L, idx, "a range bound");
  return i < 0 ? size + (int64_t)i + 1 : (int64_t)i;
}

/* The range table at idx ({}, {i}, {first, last} or {first, last, step}) for a dim of size, as
 * t:slice reads its arguments: inclusive, clamped, last defaulting to the end. */
static void checkrange(lua_State *L, int idx, int64_t size, index_step *out) {
  int64_t first, last, step = 1, count = (int64_t)lua_rawlen(L, idx);
  if (count > 3)
    dlxl_error(L, DLX_VALUE_ERROR, "a range is {first, last[, step]}, got %lld entries",
               (long long)count);
  lua_rawgeti(L, idx, 1);
  lua_rawgeti(L, idx, 2);
  lua_rawgeti(L, idx, 3);
  if (!lua_isnil(L, -1)) step = (int64_t)checkkeyint(L, -1, "a range step");
  if (step == 0) dlxl_error(L, DLX_VALUE_ERROR, "a range step must not be 0");
  first = range_position(L, -3, size, step > 0 ? 1 : size);
  /* {i} alone is the range of one element, as Torch7 reads it */
  last = count == 1 ? first : range_position(L, -2, size, step > 0 ? size : 1);
  lua_pop(L, 3);
  dlxl_clamp_range(size, &first, &last, &step);
  out->select = false;
  out->first = first - 1;
  out->last = last - 1;
  out->step = step;
}

/* Reads the table key at idx into steps (one per leading dim); returns their count. */
static int32_t checksteps(lua_State *L, int idx, const dlx_tensor *t, index_step *steps) {
  lua_Integer count = (lua_Integer)lua_rawlen(L, idx);
  if (count > t->ndim)
    dlxl_error(L, DLX_VALUE_ERROR, "%lld indices for a %d-d tensor", (long long)count,
               (int)t->ndim);
  for (int32_t d = 0; d < (int32_t)count; d++) {
    int type = lua_rawgeti(L, idx, d + 1);
    if (type == LUA_TTABLE) {
      checkrange(L, lua_gettop(L), t->shape[d], &steps[d]);
    } else if (type == LUA_TNUMBER) {
      steps[d].select = true;
      steps[d].index = checkposition(L, checkkeyint(L, -1, "an index"), d, t->shape[d], false);
    } else {
      dlxl_error(L, DLX_TYPE_ERROR,
                 "index %d of the key is %s: expected an integer or a range table", (int)d + 1,
                 dlxl_typename(L, -1));
    }
    lua_pop(L, 1);
  }
  return (int32_t)count;
}

/* out = the view of t the steps name (a reference of its own). */
static int apply_steps(dlx_tensor *out, const dlx_tensor *t, const index_step *steps, int32_t count,
                       dlx_error *err) {
  dlx_tensor view, next;
  int32_t dim = 0;
  int rc = 0;
  dlx_tensor_share(&view, t);
  for (int32_t k = 0; k < count && rc == 0; k++) {
    if (steps[k].select) {
      rc = dlx_select(&next, &view, dim, steps[k].index, err);
    } else {
      rc = dlx_slice(&next, &view, dim, steps[k].first, steps[k].last, steps[k].step, err);
      dim++;
    }
    if (rc == 0) {
      dlx_tensor_close(&view);
      view = next;
    }
  }
  if (rc != 0) {
    dlx_tensor_close(&view);
    return rc;
  }
  *out = view;
  return 0;
}

/* The bool tensor key at idx, or NULL when the key is not a tensor; other dtypes raise. */
static const dlx_tensor *tomask(lua_State *L, int idx, dlx_tensor *view) {
  const dlx_tensor *mask;
  if (dlxl_totensor(L, idx) == NULL) return NULL;
  mask = dlxl_checktensor(L, idx, view);
  if (mask->dtype != DLX_BOOL)
    dlxl_error(L, DLX_TYPE_ERROR,
               "a tensor key must be a bool mask, got %s (for int64 indices use "
               "t:index_select)",
               dlx_dtype_info_of(mask->dtype)->name);
  return mask;
}

/* t[mask] takes a mask of t's own shape: it chooses elements, never rows. */
static void checkmaskshape(lua_State *L, const dlx_tensor *t, const dlx_tensor *mask) {
  bool same = mask->ndim == t->ndim;
  for (int32_t d = 0; same && d < t->ndim; d++) same = mask->shape[d] == t->shape[d];
  if (!same)
    dlxl_error(L, DLX_VALUE_ERROR,
               "t[mask] needs a mask of the tensor's shape (%d dims); t:masked_select "
               "broadcasts",
               (int)t->ndim);
}

/* Reads the key at 2 of the tensor t: pushes the view it names. Returns false when it pushed
 * nothing because the key was t[#t + 1] (reading only). */
static bool pushview(lua_State *L, const dlx_tensor *t, bool reading) {
  index_step steps[DLX_MAX_NDIM];
  int32_t count;
  dlxl_result r;
  if (lua_type(L, 2) == LUA_TTABLE) {
    count = checksteps(L, 2, t, steps);
  } else {
    if (t->ndim == 0)
      dlxl_error(L, DLX_TYPE_ERROR, "cannot index a 0-d tensor with an integer; use t:item()");
    steps[0].select = true;
    steps[0].index = checkposition(L, checkkeyint(L, 2, "a tensor index"), 0, t->shape[0], reading);
    if (steps[0].index < 0) return false;
    count = 1;
  }
  dlxl_result_begin(L, &r, t->ndim, NULL);
  dlxl_result_set(L, &r, apply_steps(&r.made, t, steps, count, &r.err));
  return true;
}

static void checkkeytype(lua_State *L) {
  int type = lua_type(L, 2);
  if (type != LUA_TNUMBER && type != LUA_TTABLE)
    dlxl_error(L, DLX_TYPE_ERROR,
               "a tensor key is an integer, a table of indices and ranges or a bool mask, got %s",
               dlxl_typename(L, 2));
}

/* t[key] for keys that are not strings. */
static int index_get(lua_State *L) {
  dlx_tensor tv, mv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv), *mask = tomask(L, 2, &mv);
  dlx_scalar value;
  dlx_error err;
  int64_t at;
  dlxl_result r;
  if (mask != NULL) {
    checkmaskshape(L, t, mask);
    dlxl_result_begin(L, &r, 1, NULL);
    return dlxl_result_push(L, &r, dlx_masked_select(&r.made, t, mask, &r.err));
  }
  checkkeytype(L);
  if (t->ndim == 1 && lua_type(L, 2) == LUA_TNUMBER) {
    at = checkposition(L, checkkeyint(L, 2, "a tensor index"), 0, t->shape[0], true);
    if (at < 0) return 0; /* t[#t + 1]: nil ends ipairs */
    dlxl_check(L, dlx_buffer_check(t->buffer, &err), &err);
    dlxl_check(L, dlx_get_element(t, &at, &value, &err), &err);
    dlxl_pushscalar(L, &value);
    return 1;
  }
  if (!pushview(L, t, true)) return 0;
  return 1;
}

/* t[key] = value for keys that are not strings: a Lua value fills, a tensor is copied in. */
static int index_set(lua_State *L) {
  dlx_tensor tv, mv, sv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv), *mask = tomask(L, 2, &mv), *src = NULL;
  dlx_scalar value;
  dlx_error err;
  int rc;
  if (dlxl_totensor(L, 3) != NULL)
    src = dlxl_checktensor(L, 3, &sv);
  else
    dlxl_checkscalar(L, 3, &value);
  if (mask != NULL) {
    checkmaskshape(L, t, mask);
    rc = src != NULL ? dlx_masked_assign(t, mask, src, &err)
                     : dlx_masked_fill(t, mask, &value, &err);
    dlxl_check(L, rc, &err);
    return 0;
  }
  checkkeytype(L);
  pushview(L, t, false);
  dlxl_getview(lua_touserdata(L, -1), &mv);
  rc = src != NULL ? dlx_copy(&mv, src, &err) : dlx_fill(&mv, &value, &err);
  dlxl_check(L, rc, &err);
  return 0;
}

/* __index: a method (upvalue 1 is the method table), else a property, else nil; keys that are
 * not strings index the tensor. Upvalue 2 is the metatable. Upvalue 1 is not the state: the
 * helpers this calls find it in the registry when they need it. */
int dlxl_tensor_index(lua_State *L) {
  dlxl_property push;
  dlx_tensor view;
  void *p;
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
  if (lua_type(L, 2) != LUA_TSTRING) return index_get(L);
  push = dlxl_findproperty(lua_tostring(L, 2));
  if (push == NULL) return 1;
  /* the result is the top value: what lies below it on the stack does not matter */
  p = lua_touserdata(L, 1);
  if (p == NULL || !lua_getmetatable(L, 1) || !lua_rawequal(L, -1, lua_upvalueindex(2)))
    return dlxl_error(L, DLX_TYPE_ERROR, "expected a tensor, got %s", dlxl_typename(L, 1));
  push(L, dlxl_getview(dlxl_checkopen(L, p), &view));
  return 1;
}

static int tensor_newindex(lua_State *L) {
  if (lua_type(L, 2) != LUA_TSTRING) return index_set(L);
  return dlxl_error(L, DLX_TYPE_ERROR,
                    "cannot set field '%s' of a tensor: its properties are "
                    "read-only and it has no other fields",
                    luaL_tolstring(L, 2, NULL));
}

const luaL_Reg dlxl_indexing_metamethods[] = {
    {"__newindex", tensor_newindex},
    {NULL, NULL},
};

/* ---- methods */

static const dlx_tensor *checkindices(lua_State *L, int idx, dlx_tensor *view) {
  if (dlxl_totensor(L, idx) == NULL)
    dlxl_error(L, DLX_TYPE_ERROR, "expected an int64 tensor of indices, got %s",
               dlxl_typename(L, idx));
  return dlxl_checktensor(L, idx, view);
}

typedef int (*select_fn)(dlx_tensor *out, const dlx_tensor *src, int32_t dim,
                         const dlx_tensor *index, dlx_error *err);

/* t:index_select(dim, index) and t:gather(dim, index): a new tensor of t's ndim (index_select, a
 * 1-d index) or index's (gather), so room for the larger. */
static int select_along(lua_State *L, select_fn fn) {
  dlx_tensor tv, iv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  int32_t dim = dlxl_checkdim(L, 2, t->ndim);
  const dlx_tensor *index = checkindices(L, 3, &iv);
  dlxl_result r;
  dlxl_result_begin(L, &r, t->ndim > index->ndim ? t->ndim : index->ndim, NULL);
  return dlxl_result_push(L, &r, fn(&r.made, t, dim, index, &r.err));
}

static int tensor_index_select(lua_State *L) { return select_along(L, dlx_index_select); }
static int tensor_gather(lua_State *L) { return select_along(L, dlx_gather); }

/* t:scatter_(dim, index, src): src a tensor or a Lua value; returns t. */
static int tensor_scatter_(lua_State *L) {
  dlx_tensor tv, iv, sv, cell;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv), *src;
  int32_t dim = dlxl_checkdim(L, 2, t->ndim);
  const dlx_tensor *index = checkindices(L, 3, &iv);
  dlx_scalar value;
  dlx_error err;
  int rc;
  if (dlxl_totensor(L, 4) != NULL) {
    src = dlxl_checktensor(L, 4, &sv);
    dlxl_check(L, dlx_scatter(t, dim, index, src, false, &err), &err);
  } else { /* a value: one element of t's dtype, spread over the index's shape */
    int64_t one = 1;
    dlxl_checkscalar(L, 4, &value);
    dlxl_pushempty(L, NULL, &one, 1, t->dtype, dlx_tensor_device(t), DLX_MEMORY_DEFAULT, &cell);
    dlxl_check(L, dlx_fill(&cell, &value, &err), &err);
    cell.ndim = index->ndim;
    for (int32_t d = 0; d < index->ndim; d++) {
      cell.shape[d] = index->shape[d];
      cell.strides[d] = 0;
    }
    rc = dlx_scatter(t, dim, index, &cell, false, &err);
    dlxl_check(L, rc, &err);
  }
  lua_settop(L, 1);
  return 1;
}

/* t:index_add_(dim, index, src): returns t. */
static int tensor_index_add_(lua_State *L) {
  dlx_tensor tv, iv, sv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  int32_t dim = dlxl_checkdim(L, 2, t->ndim);
  const dlx_tensor *index = checkindices(L, 3, &iv), *src;
  dlx_error err;
  if (dlxl_totensor(L, 4) == NULL)
    return dlxl_error(L, DLX_TYPE_ERROR, "index_add_ takes a source tensor, got %s",
                      dlxl_typename(L, 4));
  src = dlxl_checktensor(L, 4, &sv);
  dlxl_check(L, dlx_index_add(t, dim, index, src, &err), &err);
  lua_settop(L, 1);
  return 1;
}

static const dlx_tensor *checkmask(lua_State *L, int idx, dlx_tensor *view) {
  if (dlxl_totensor(L, idx) == NULL)
    dlxl_error(L, DLX_TYPE_ERROR, "expected a bool tensor as the mask, got %s",
               dlxl_typename(L, idx));
  return dlxl_checktensor(L, idx, view);
}

/* t:masked_select(mask) */
static int tensor_masked_select(lua_State *L) {
  dlx_tensor tv, mv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv), *mask = checkmask(L, 2, &mv);
  dlxl_result r;
  dlxl_result_begin(L, &r, 1, NULL);
  return dlxl_result_push(L, &r, dlx_masked_select(&r.made, t, mask, &r.err));
}

/* t:masked_fill_(mask, value): returns t. */
static int tensor_masked_fill_(lua_State *L) {
  dlx_tensor tv, mv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv), *mask = checkmask(L, 2, &mv);
  dlx_scalar value;
  dlx_error err;
  dlxl_checkscalar(L, 3, &value);
  dlxl_check(L, dlx_masked_fill(t, mask, &value, &err), &err);
  lua_settop(L, 1);
  return 1;
}

/* t:nonzero(): int64 {n, ndim}, 1-based. */
static int tensor_nonzero(lua_State *L) {
  dlx_tensor tv;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &tv);
  dlxl_result r;
  dlxl_result_begin(L, &r, 2, NULL);
  return dlxl_result_push(L, &r, dlx_nonzero(&r.made, t, &r.err));
}

const luaL_Reg dlxl_indexing_methods[] = {
    {"index_select", tensor_index_select},
    {"gather", tensor_gather},
    {"scatter_", tensor_scatter_},
    {"index_add_", tensor_index_add_},
    {"masked_select", tensor_masked_select},
    {"masked_fill_", tensor_masked_fill_},
    {"nonzero", tensor_nonzero},
    {NULL, NULL},
};
