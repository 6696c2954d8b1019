/* joining.c -- joining and splitting: dlx.cat, dlx.stack, t:split, t:chunk, t:tile and
 * t:repeat_interleave. Everything is built on views and the core's copy (each input is copied
 * into a view of the result), so it runs on every device without kernels of its own. */
#include <stdio.h>
#include <string.h>

#include "core/promote.h"
#include "lua/args.h"
#include "lua/copies.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"
#include "lua/values.h"

/* Raises err after closing made (or NULL), the result this call was filling: a failed call
 * leaves no half-made tensor open. */
static int raise_closing(lua_State *L, dlxl_tensor *made, const dlx_error *err) {
  if (made != NULL) dlxl_closetensor(made);
  return dlxl_raise(L, err);
}

/* dst = the view of src with `length` elements of dim from `start` (0-based). */
static int narrow_view(dlx_tensor *dst, const dlx_tensor *src, int32_t dim, int64_t start,
                       int64_t length, dlx_error *err) {
  return dlx_slice(dst, src, dim, start, start + length - 1, 1, err);
}

/* dst[...] = src where dst is a view made for the copy: the view is closed either way, and made
 * (or NULL) too when the copy fails. */
static void copy_into_view(lua_State *L, dlx_tensor *view, const dlx_tensor *src,
                           dlxl_tensor *made) {
  dlx_error err;
  int rc = dlx_copy(view, src, &err);
  dlx_tensor_close(view);
  if (rc != 0) raise_closing(L, made, &err);
}

/* ---- cat and stack */

/* The inputs of cat and stack, checked: tensors, one device, one ndim. */
typedef struct inputs {
  const char *fname;
  int list; /* stack index of the list */
  lua_Integer count;
  dlx_dtype dtype;            /* the promoted dtype of them all */
  const dlxl_tensor *first_u; /* list[1], kept on the stack above the arguments */
  dlx_tensor first;           /* its view */
} inputs;

/* The i-th tensor of the list (1-based) in *view (returned), its userdata left on the stack.
 * made (or NULL), a result of the call, is closed before an error: a finalizer run by an
 * allocation may have closed an input or changed the list since the checks. */
static const dlx_tensor *input_at(lua_State *L, const inputs *in, lua_Integer i, dlx_tensor *view,
                                  dlxl_tensor *made) {
  dlxl_tensor *t;
  lua_rawgeti(L, in->list, i);
  t = dlxl_totensor(L, -1);
  if ((t == NULL || t->buffer == NULL) && made != NULL) dlxl_closetensor(made);
  if (t == NULL)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: list[%lld] is a %s, not a tensor", in->fname, (long long)i,
               dlxl_typename(L, -1));
  return dlxl_getview(dlxl_checkopen(L, t), view);
}

static void check_inputs(lua_State *L, inputs *in) {
  char a[32], b[32];
  dlx_error err;
  if (lua_type(L, in->list) != LUA_TTABLE)
    dlxl_error(L, DLX_TYPE_ERROR, "%s takes a list of tensors, got %s", in->fname,
               dlxl_typename(L, in->list));
  in->count = (lua_Integer)lua_rawlen(L, in->list);
  if (in->count == 0)
    dlxl_error(L, DLX_VALUE_ERROR, "%s takes a non-empty list of tensors", in->fname);
  input_at(L, in, 1, &in->first, NULL);
  in->first_u = lua_touserdata(L, -1); /* stays on the stack while in->first is used */
  in->dtype = in->first.dtype;
  for (lua_Integer i = 2; i <= in->count; i++) {
    dlx_tensor view;
    const dlx_tensor *t = input_at(L, in, i, &view, NULL);
    DLDevice d = dlx_tensor_device(t), d1 = dlx_tensor_device(&in->first);
    if (!dlx_device_equal(d, d1))
      dlxl_error(L, DLX_DEVICE_ERROR, "%s: list[%lld] is on %s but list[1] is on %s", in->fname,
                 (long long)i, dlx_device_format(d, a, sizeof a),
                 dlx_device_format(d1, b, sizeof b));
    if (t->ndim != in->first.ndim)
      dlxl_error(L, DLX_VALUE_ERROR, "%s: list[%lld] is %d-d but list[1] is %d-d", in->fname,
                 (long long)i, (int)t->ndim, (int)in->first.ndim);
    dlxl_check(L, dlx_result_dtype(in->dtype, t->dtype, &in->dtype, &err), &err);
    lua_pop(L, 1);
  }
}

/* ValueError naming both shapes when t's shape differs from the first input's in a dim other
 * than `except` (-1: in any dim). */
static void check_same_shape(lua_State *L, const inputs *in, lua_Integer i, const dlx_tensor *t,
                             int32_t except) {
  char a[DLX_SHAPE_TEXT], b[DLX_SHAPE_TEXT];
  for (int32_t d = 0; d < t->ndim; d++) {
    if (d == except || t->shape[d] == in->first.shape[d]) continue;
    dlx_shape_text(a, sizeof a, t->shape, t->ndim);
    dlx_shape_text(b, sizeof b, in->first.shape, in->first.ndim);
    if (except < 0)
      dlxl_error(L, DLX_VALUE_ERROR, "%s: list[%lld] has shape %s but list[1] has %s", in->fname,
                 (long long)i, a, b);
    dlxl_error(L, DLX_VALUE_ERROR,
               "%s: list[%lld] has shape %s but list[1] has %s (sizes must match except in dim "
               "%d)",
               in->fname, (long long)i, a, b, (int)except + 1);
  }
}

/* The result of cat or stack in *view (returned): opts.out (checked against shape, the inputs'
 * device and dtype, and overlap with the inputs) or a new tensor, whose userdata goes to *made
 * (NULL for out); pushed. */
static const dlx_tensor *push_result(lua_State *L, const inputs *in, int opts, const int64_t *shape,
                                     int32_t ndim, dlx_tensor *view, dlxl_tensor **made) {
  static const char *const known[] = {"out", NULL};
  char a[DLX_SHAPE_TEXT], b[DLX_SHAPE_TEXT];
  const dlx_tensor *out;
  dlx_error err;
  if (lua_isnoneornil(L, opts)) {
    *made = dlxl_pushempty(L, in->first_u, shape, ndim, in->dtype, dlx_tensor_device(&in->first),
                           dlx_tensor_memory(&in->first), view);
    return view;
  }
  if (lua_type(L, opts) != LUA_TTABLE)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: opts must be a table {out =}, not a %s", in->fname,
               dlxl_typename(L, opts));
  lua_getfield(L, opts, "out");
  dlxl_checkoptions(L, opts, in->fname, known, !lua_isnil(L, -1));
  if (lua_isnil(L, -1)) {
    *made = dlxl_pushempty(L, in->first_u, shape, ndim, in->dtype, dlx_tensor_device(&in->first),
                           dlx_tensor_memory(&in->first), view);
    return view;
  }
  out = dlxl_checktensor(L, -1, view);
  *made = NULL;
  if (!dlx_device_equal(dlx_tensor_device(out), dlx_tensor_device(&in->first)))
    dlxl_error(L, DLX_DEVICE_ERROR, "%s: out is on %s but the inputs are on %s", in->fname,
               dlx_device_format(dlx_tensor_device(out), a, sizeof a),
               dlx_device_format(dlx_tensor_device(&in->first), b, sizeof b));
  if (out->ndim != ndim || memcmp(out->shape, shape, (size_t)ndim * sizeof shape[0]) != 0)
    dlxl_error(L, DLX_VALUE_ERROR, "%s: out has shape %s but the result has %s", in->fname,
               dlx_shape_text(a, sizeof a, out->shape, out->ndim),
               dlx_shape_text(b, sizeof b, shape, ndim));
  if (!dlx_can_cast_same_kind(in->dtype, out->dtype))
    dlxl_error(L, DLX_TYPE_ERROR,
               "%s: the result's dtype %s cannot be written into out of dtype %s", in->fname,
               dlx_dtype_info_of(in->dtype)->name, dlx_dtype_info_of(out->dtype)->name);
  dlxl_check(L, dlx_check_writable(out, &err), &err);
  for (lua_Integer i = 1; i <= in->count; i++) {
    dlx_tensor input;
    const dlx_tensor *t = input_at(L, in, i, &input, NULL);
    if (dlx_tensors_may_overlap(out, t))
      dlxl_error(L, DLX_VALUE_ERROR, "%s: out overlaps list[%lld]", in->fname, (long long)i);
    lua_pop(L, 1);
  }
  return out;
}

/* dlx.cat(list[, dim[, opts]]): the tensors joined along an existing dim (default 1). */
static int api_cat(lua_State *L) {
  inputs in = {.fname = "cat", .list = 1};
  int64_t shape[DLX_MAX_NDIM], start = 0;
  int32_t dim = 0;
  dlxl_tensor *made;
  dlx_tensor out_view;
  const dlx_tensor *out;
  lua_settop(L, 3); /* list[1] goes above the arguments */
  check_inputs(L, &in);
  if (in.first.ndim == 0)
    return dlxl_error(L, DLX_VALUE_ERROR, "cat: 0-d tensors have no dim to join along; use stack");
  if (!lua_isnoneornil(L, 2)) dim = dlxl_checkdim(L, 2, in.first.ndim);
  memcpy(shape, in.first.shape, (size_t)in.first.ndim * sizeof shape[0]);
  shape[dim] = 0;
  for (lua_Integer i = 1; i <= in.count; i++) {
    dlx_tensor view;
    const dlx_tensor *t = input_at(L, &in, i, &view, NULL);
    check_same_shape(L, &in, i, t, dim);
    if (t->shape[dim] > INT64_MAX - shape[dim])
      return dlxl_error(L, DLX_VALUE_ERROR, "cat: the result would have too many elements");
    shape[dim] += t->shape[dim];
    lua_pop(L, 1);
  }
  out = push_result(L, &in, 3, shape, in.first.ndim, &out_view, &made);
  for (lua_Integer i = 1; i <= in.count; i++) {
    dlx_tensor input, view;
    const dlx_tensor *t = input_at(L, &in, i, &input, made);
    dlx_error err;
    if (t->shape[dim] > 0) {
      if (narrow_view(&view, out, dim, start, t->shape[dim], &err) != 0)
        raise_closing(L, made, &err);
      copy_into_view(L, &view, t, made);
      start += t->shape[dim];
    }
    lua_pop(L, 1);
  }
  if (made != NULL) dlxl_gcdebt(L, dlx_tensor_nbytes(out));
  return 1;
}

/* dlx.stack(list[, dim[, opts]]): the tensors, all of one shape, joined along a new dim (1 to
 * ndim + 1, negative from the end; default 1). */
static int api_stack(lua_State *L) {
  inputs in = {.fname = "stack", .list = 1};
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim, dim = 0;
  dlxl_tensor *made;
  dlx_tensor out_view;
  const dlx_tensor *out;
  lua_settop(L, 3); /* list[1] goes above the arguments */
  check_inputs(L, &in);
  ndim = in.first.ndim + 1;
  if (ndim > DLX_MAX_NDIM)
    return dlxl_error(L, DLX_VALUE_ERROR, "stack: the result would have more than %d dims",
                      DLX_MAX_NDIM);
  if (!lua_isnoneornil(L, 2)) dim = dlxl_checkdim(L, 2, ndim);
  for (lua_Integer i = 2; i <= in.count; i++) {
    dlx_tensor view;
    check_same_shape(L, &in, i, input_at(L, &in, i, &view, NULL), -1);
    lua_pop(L, 1);
  }
  for (int32_t d = 0, s = 0; d < ndim; d++)
    shape[d] = d == dim ? (int64_t)in.count : in.first.shape[s++];
  out = push_result(L, &in, 3, shape, ndim, &out_view, &made);
  for (lua_Integer i = 1; i <= in.count; i++) {
    dlx_tensor input, view;
    const dlx_tensor *t = input_at(L, &in, i, &input, made);
    dlx_error err;
    if (dlx_select(&view, out, dim, (int64_t)i - 1, &err) != 0) raise_closing(L, made, &err);
    copy_into_view(L, &view, t, made);
    lua_pop(L, 1);
  }
  if (made != NULL) dlxl_gcdebt(L, dlx_tensor_nbytes(out));
  return 1;
}

/* ---- split and chunk: Lua lists of views */

/* The optional dim at idx (default 1) of a tensor that must have one. */
static int32_t optdim(lua_State *L, int idx, const dlx_tensor *t, const char *fname) {
  if (t->ndim == 0) dlxl_error(L, DLX_VALUE_ERROR, "%s: a 0-d tensor has no dim to split", fname);
  return lua_isnoneornil(L, idx) ? 0 : dlxl_checkdim(L, idx, t->ndim);
}

/* Appends the view of `length` elements of dim from start to the list on top of the stack. */
static void append_view(lua_State *L, const dlx_tensor *t, int32_t dim, int64_t start,
                        int64_t length, lua_Integer n) {
  dlxl_result r;
  dlxl_result_begin(L, &r, t->ndim, NULL);
  dlxl_result_set(L, &r, narrow_view(&r.made, t, dim, start, length, &r.err));
  lua_rawseti(L, -2, n);
}

/* Pushes the views of pieces of `size` elements along dim, the last one smaller. */
static int push_pieces(lua_State *L, const dlx_tensor *t, int32_t dim, int64_t size) {
  int64_t total = t->shape[dim], count = total == 0 ? 1 : (total + size - 1) / size;
  lua_createtable(L, (int)(count < 1024 ? count : 1024), 0);
  for (int64_t i = 0; i < count; i++) {
    int64_t start = i * size, length = total - start < size ? total - start : size;
    append_view(L, t, dim, start, length, (lua_Integer)i + 1);
  }
  return 1;
}

/* t:split(size_or_sizes[, dim]): views of size elements along dim (the last may be smaller), or
 * of the listed sizes, which must add up to the dim's size. */
static int tensor_split(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  int32_t dim = optdim(L, 3, t, "split");
  int64_t total = t->shape[dim], start = 0;
  size_t count;
  if (lua_type(L, 2) != LUA_TTABLE) {
    lua_Integer size = dlxl_checkinteger(L, 2, "split size");
    if (size < 1)
      return dlxl_error(L, DLX_VALUE_ERROR, "split size must be at least 1, got %lld",
                        (long long)size);
    return push_pieces(L, t, dim, (int64_t)size);
  }
  count = lua_rawlen(L, 2);
  for (size_t i = 1; i <= count; i++) {
    lua_Integer size;
    lua_rawgeti(L, 2, (lua_Integer)i);
    size = dlxl_checkinteger(L, -1, "split size");
    lua_pop(L, 1);
    if (size < 0)
      return dlxl_error(L, DLX_VALUE_ERROR, "split: sizes[%zu] is %lld, must be >= 0", i,
                        (long long)size);
    start = size > INT64_MAX - start ? INT64_MAX : start + size; /* saturates: an error below */
  }
  if (start != total)
    return dlxl_error(L, DLX_VALUE_ERROR,
                      "split: the sizes add up to %lld but dim %d has size %lld", (long long)start,
                      (int)dim + 1, (long long)total);
  lua_createtable(L, (int)count, 0);
  start = 0;
  for (size_t i = 1; i <= count; i++) {
    int64_t size;
    lua_rawgeti(L, 2, (lua_Integer)i);
    size = (int64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    append_view(L, t, dim, start, size, (lua_Integer)i);
    start += size;
  }
  return 1;
}

/* t:chunk(n[, dim]): PyTorch's chunk, split into pieces of ceil(size / n): n pieces or fewer. */
static int tensor_chunk(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  lua_Integer n = dlxl_checkinteger(L, 2, "chunks");
  int32_t dim = optdim(L, 3, t, "chunk");
  int64_t total = t->shape[dim];
  if (n < 1)
    return dlxl_error(L, DLX_VALUE_ERROR,
                      "chunk: the number of chunks must be at least 1, got %lld", (long long)n);
  if (total == 0) { /* PyTorch gives n empty views */
    lua_createtable(L, (int)(n < 1024 ? n : 1024), 0);
    for (lua_Integer i = 1; i <= n; i++) append_view(L, t, dim, 0, 0, i);
    return 1;
  }
  return push_pieces(L, t, dim, total / n + (total % n != 0));
}

/* ---- tile and repeat_interleave: copies of broadcast views */

/* A view of t with shape and strides set directly (strides 0 broadcast). */
static void layout_view(dlx_tensor *out, const dlx_tensor *t, const int64_t *shape,
                        const int64_t *strides, int32_t ndim) {
  dlx_tensor_share(out, t);
  out->ndim = ndim;
  memcpy(out->shape, shape, (size_t)ndim * sizeof shape[0]);
  memcpy(out->strides, strides, (size_t)ndim * sizeof strides[0]);
}

/* Copies src (a view laid out to broadcast, closed here) into out viewed with src's shape and
 * the sizes of dst_shape (out is C-contiguous, so any view of its shape is possible); out's
 * userdata made is closed when that fails. */
static void copy_broadcast(lua_State *L, const dlx_tensor *out, dlxl_tensor *made,
                           const int64_t *dst_shape, int32_t ndim, dlx_tensor *src) {
  dlx_tensor dst;
  dlx_error err;
  int rc = dlx_view(&dst, out, dst_shape, ndim, &err);
  if (rc == 0) {
    rc = dlx_copy(&dst, src, &err);
    dlx_tensor_close(&dst);
  }
  dlx_tensor_close(src);
  if (rc != 0) raise_closing(L, made, &err);
}

/* t:tile(reps): NumPy's tile: t repeated reps[d] times along each dim, reps and the shape padded
 * with leading 1s to the same length. */
static int tensor_tile(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  int64_t reps[DLX_MAX_NDIM], shape[DLX_MAX_NDIM];
  int64_t src_shape[DLX_MAX_NDIM], src_strides[DLX_MAX_NDIM], dst_shape[DLX_MAX_NDIM];
  int32_t nreps = dlxl_checkshape(L, 2, reps, false), ndim = nreps > t->ndim ? nreps : t->ndim,
          n = 0;
  dlxl_tensor *made;
  dlx_tensor out, src;
  for (int32_t d = 0; d < ndim; d++) { /* right-aligned, as broadcasting */
    int32_t td = d - (ndim - t->ndim), rd = d - (ndim - nreps);
    int64_t size = td >= 0 ? t->shape[td] : 1, stride = td >= 0 ? t->strides[td] : 0;
    int64_t r = rd >= 0 ? reps[rd] : 1;
    if (r > 0 && size > INT64_MAX / r)
      return dlxl_error(L, DLX_VALUE_ERROR, "tile: the result would have too many elements");
    shape[d] = size * r;
    if (r != 1) { /* a broadcast dim of r before the dim itself */
      if (n + 2 > DLX_MAX_NDIM)
        return dlxl_error(L, DLX_VALUE_ERROR, "tile: too many repeated dims (at most %d in all)",
                          DLX_MAX_NDIM);
      src_shape[n] = r, src_strides[n] = 0, dst_shape[n++] = r;
    }
    src_shape[n] = size, src_strides[n] = stride, dst_shape[n++] = size;
  }
  made = dlxl_pushempty(L, lua_touserdata(L, 1), shape, ndim, t->dtype, dlx_tensor_device(t),
                        dlx_tensor_memory(t), &out);
  if (dlx_tensor_numel(&out) > 0) {
    layout_view(&src, t, src_shape, src_strides, n);
    copy_broadcast(L, &out, made, dst_shape, n, &src);
  }
  dlxl_gcdebt(L, dlx_tensor_nbytes(&out));
  return 1;
}

/* The repeats tensor of repeat_interleave (the userdata ru) as int64 on the host, pushed; checked
 * against the dim's size (one repeat broadcasts) and for negative counts; *sum is the result's
 * size. The host copy is closed before an error about its values. */
static const int64_t *host_repeats(lua_State *L, dlxl_tensor *ru, int64_t size, int64_t *count,
                                   int64_t *sum) {
  dlx_tensor view;
  const dlx_tensor *r = dlxl_getview(dlxl_checkopen(L, ru), &view);
  dlxl_result copy;
  dlxl_tensor *host;
  const int64_t *v;
  dlx_kind kind = dlx_dtype_info_of(r->dtype)->kind;
  if (r->ndim > 1 || (kind != DLX_KIND_INT && kind != DLX_KIND_UINT))
    dlxl_error(L, DLX_TYPE_ERROR, "repeat_interleave: repeats must be a 0-d or 1-d integer tensor");
  *count = dlx_tensor_numel(r);
  if (*count != 1 && *count != size)
    dlxl_error(L, DLX_VALUE_ERROR,
               "repeat_interleave: %lld repeats for a dim of size %lld (expected 1 or %lld)",
               (long long)*count, (long long)size, (long long)size);
  dlxl_result_begin(L, &copy, r->ndim, NULL);
  host = dlxl_result_set(L, &copy,
                         dlx_clone_as(&copy.made, r, DLX_INT64, (DLDevice){kDLCPU, 0}, &copy.err));
  v = dlxl_hostdata(&copy.made);
  *sum = 0;
  for (int64_t i = 0; i < *count; i++) {
    if (v[i] < 0) {
      long long at = (long long)i + 1, value = (long long)v[i];
      dlxl_closetensor(host);
      dlxl_error(L, DLX_VALUE_ERROR, "repeat_interleave: repeats[%lld] is %lld, must be >= 0", at,
                 value);
    }
    if (v[i] > INT64_MAX / 2 - *sum) {
      dlxl_closetensor(host);
      dlxl_error(L, DLX_VALUE_ERROR, "repeat_interleave: the repeats add up to too many elements");
    }
    *sum += v[i];
  }
  if (*count == 1 && size != 1) *sum = v[0] > 0 && size > INT64_MAX / v[0] ? -1 : v[0] * size;
  if (*sum < 0) {
    dlxl_closetensor(host);
    dlxl_error(L, DLX_VALUE_ERROR, "repeat_interleave: too many elements");
  }
  return v;
}

/* Repeats of one count for every element: one broadcast copy into out (userdata made). */
static void interleave_uniform(lua_State *L, const dlx_tensor *t, const dlx_tensor *out,
                               dlxl_tensor *made, int32_t dim, int64_t n) {
  int64_t src_shape[DLX_MAX_NDIM], src_strides[DLX_MAX_NDIM], dst_shape[DLX_MAX_NDIM];
  int32_t k = 0;
  dlx_tensor src;
  if (t->ndim + 1 > DLX_MAX_NDIM) {
    dlxl_closetensor(made);
    dlxl_error(L, DLX_VALUE_ERROR, "repeat_interleave: a %d-d tensor has too many dims",
               (int)t->ndim);
  }
  for (int32_t d = 0; d < t->ndim; d++) {
    src_shape[k] = dst_shape[k] = t->shape[d], src_strides[k++] = t->strides[d];
    if (d == dim) src_shape[k] = dst_shape[k] = n, src_strides[k++] = 0;
  }
  layout_view(&src, t, src_shape, src_strides, k);
  copy_broadcast(L, out, made, dst_shape, k, &src);
}

/* Each element's own count: one broadcast copy per element of dim into out (userdata made). */
static void interleave_each(lua_State *L, const dlx_tensor *t, const dlx_tensor *out,
                            dlxl_tensor *made, int32_t dim, const int64_t *reps) {
  int64_t start = 0;
  for (int64_t i = 0; i < t->shape[dim]; i++) {
    dlx_tensor src, dst;
    dlx_error err;
    int rc;
    if (reps[i] == 0) continue;
    if (narrow_view(&src, t, dim, i, 1, &err) != 0) raise_closing(L, made, &err);
    if (narrow_view(&dst, out, dim, start, reps[i], &err) != 0) {
      dlx_tensor_close(&src);
      raise_closing(L, made, &err);
    }
    rc = dlx_copy(&dst, &src, &err);
    dlx_tensor_close(&dst);
    dlx_tensor_close(&src);
    if (rc != 0) raise_closing(L, made, &err);
    start += reps[i];
  }
}

/* t's flat view, pushed and moved to stack index 1 (t's place); *view (not t's storage) gets it. A
 * C-contiguous copy of t is made first when t cannot be viewed flat; it stays on the stack. */
static const dlx_tensor *flatten_into_1(lua_State *L, const dlx_tensor *t, dlx_tensor *view) {
  int64_t flat = -1;
  dlx_tensor copy;
  dlxl_result r;
  if (!dlx_tensor_is_contiguous(t)) {
    dlxl_pushclone(L, lua_touserdata(L, 1), t, t->dtype, dlx_tensor_device(t));
    t = dlxl_getview(lua_touserdata(L, -1), &copy);
  }
  dlxl_result_begin(L, &r, 1, NULL);
  dlxl_result_set(L, &r, dlx_view(&r.made, t, &flat, 1, &r.err));
  lua_replace(L, 1);
  *view = r.made;
  return view;
}

/* t:repeat_interleave(repeats[, dim]): each element repeated along dim, repeats a number or an
 * integer tensor with one count per element (or one for all); without dim, t flattened. */
static int tensor_repeat_interleave(lua_State *L) {
  dlx_tensor view, flat, out;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  dlxl_tensor *reps_tensor = dlxl_totensor(L, 2), *made;
  const int64_t *reps = NULL;
  int64_t shape[DLX_MAX_NDIM], count = 1, n = 0, sum;
  int32_t dim = 0;
  lua_settop(L, 3);
  if (lua_isnil(L, 3)) /* flatten: a view when t allows it, else a contiguous copy's view */
    t = flatten_into_1(L, t, &flat);
  else
    dim = dlxl_checkdim(L, 3, t->ndim);
  if (reps_tensor == NULL) {
    n = (int64_t)dlxl_checkinteger(L, 2, "repeats");
    if (n < 0)
      return dlxl_error(L, DLX_VALUE_ERROR, "repeat_interleave: repeats must be >= 0, got %lld",
                        (long long)n);
  } else {
    reps = host_repeats(L, reps_tensor, t->shape[dim], &count, &sum);
    if (count == 1) n = reps[0], reps = NULL;
  }
  memcpy(shape, t->shape, (size_t)t->ndim * sizeof shape[0]);
  if (reps == NULL && n > 0 && shape[dim] > INT64_MAX / n)
    return dlxl_error(L, DLX_VALUE_ERROR, "repeat_interleave: too many elements");
  shape[dim] = reps != NULL ? sum : shape[dim] * n;
  made = dlxl_pushempty(L, lua_touserdata(L, 1), shape, t->ndim, t->dtype, dlx_tensor_device(t),
                        dlx_tensor_memory(t), &out);
  if (dlx_tensor_numel(&out) > 0) {
    if (reps != NULL)
      interleave_each(L, t, &out, made, dim, reps);
    else
      interleave_uniform(L, t, &out, made, dim, n);
  }
  dlxl_gcdebt(L, dlx_tensor_nbytes(&out));
  return 1;
}

const luaL_Reg dlxl_joining_funcs[] = {
    {"cat", api_cat},
    {"stack", api_stack},
    {NULL, NULL},
};

const luaL_Reg dlxl_joining_methods[] = {
    {"split", tensor_split},
    {"chunk", tensor_chunk},
    {"tile", tensor_tile},
    {"repeat_interleave", tensor_repeat_interleave},
    {NULL, NULL},
};
