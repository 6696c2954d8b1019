/* indexing.c -- the indexing ops of indexing.h: checks, casts, then the backend's index_op. */
#include "core/indexing.h"

#include <string.h>

#include "core/device.h"
#include "core/ops.h"

static int run(dlx_index_request *r, const dlx_tensor *on, const char *name, dlx_error *err) {
  const dlx_backend *backend;
  int rc;
  if (dlx_compute_backend(on->buffer)->index_op == NULL)
    return dlx_not_implemented(err, name, on->buffer->device);
  rc = dlx_compute_on(on, &backend, err);
  return rc != 0 ? rc : backend->index_op(r, err);
}

/* The checks every op makes of its tensors: open loans, one device, whole-byte elements. */
static int check_tensor(const char *name, const dlx_tensor *t, const dlx_tensor *on,
                        dlx_error *err) {
  char a[48], b[48];
  int rc = dlx_buffer_check(t->buffer, err);
  if (rc != 0) return rc;
  if (!dlx_device_equal(t->buffer->device, on->buffer->device))
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: tensors on %s and %s; move one with to()", name,
                    dlx_device_format(t->buffer->device, a, sizeof a),
                    dlx_device_format(on->buffer->device, b, sizeof b));
  if (dlx_dtype_bits(t->dtype) % 8 != 0)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: %s elements are smaller than a byte", name,
                    dlx_dtype_info_of(t->dtype)->name);
  return 0;
}

static int check_index_dtype(const char *name, const dlx_tensor *index, dlx_error *err) {
  if (index->dtype != DLX_INT64)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: indices must be an int64 tensor, got %s", name,
                    dlx_dtype_info_of(index->dtype)->name);
  return 0;
}

static int check_dim(const char *name, const dlx_tensor *t, int32_t dim, dlx_error *err) {
  if (t->ndim == 0 || dim < 0 || dim >= t->ndim)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: dim %d out of range for a %d-d tensor", name,
                    (int)dim + 1, (int)t->ndim);
  return 0;
}

int dlx_index_out_of_range(dlx_error *err, int64_t value, int32_t dim, int64_t size) {
  if (size == 0)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "index %lld out of range for dim %d of size 0 (it has no elements)",
                    (long long)value, (int)dim + 1);
  return dlx_fail(err, DLX_VALUE_ERROR,
                  "index %lld out of range for dim %d of size %lld (expected -%lld..%lld, not 0)",
                  (long long)value, (int)dim + 1, (long long)size, (long long)size,
                  (long long)size);
}

/* t itself, or a copy of it in *made (closed by the caller when *made holds a buffer) when it may
 * share memory with dst: an op must not read indices or a mask that it is writing, or a write
 * could turn a checked index into a bad one. */
static int apart_from(const dlx_tensor *dst, const dlx_tensor *t, dlx_tensor *made,
                      const dlx_tensor **use, dlx_error *err) {
  int rc;
  made->buffer = NULL;
  *use = t;
  if (!dlx_tensors_may_overlap(dst, t)) return 0;
  rc = dlx_clone_as(made, t, t->dtype, t->buffer->device, err);
  if (rc == 0)
    *use = made;
  else
    made->buffer = NULL;
  return rc;
}

static void close_made(dlx_tensor *made) {
  if (made->buffer != NULL) dlx_tensor_close(made);
}

/* Every index in 1..size or -size..-1 (ValueError with the first bad one otherwise). */
static int check_indices(const dlx_tensor *index, int32_t dim, int64_t size, const char *name,
                         dlx_error *err) {
  dlx_index_request r = {DLX_INDEX_CHECK, NULL, NULL, index, dim, size, 0, 0};
  if (dlx_tensor_numel(index) == 0) return 0;
  return run(&r, index, name, err);
}

/* index_select's and index_add_'s index: integers, 1-D, picking along dim of t. */
static int check_index_of_dim(const char *name, const dlx_tensor *index, const dlx_tensor *t,
                              int32_t dim, dlx_error *err) {
  int rc = check_index_dtype(name, index, err);
  if (rc == 0) rc = check_dim(name, t, dim, err);
  if (rc == 0 && index->ndim != 1)
    rc = dlx_fail(err, DLX_VALUE_ERROR, "%s: the index must be 1-D, got %d dims", name,
                  (int)index->ndim);
  return rc;
}

/* A view of t with dim's stride set to 0 and the given shape (a walk along the other dims). */
static dlx_tensor along(const dlx_tensor *t, const int64_t *shape, int32_t dim) {
  dlx_tensor v = *t;
  for (int32_t d = 0; d < t->ndim; d++) v.shape[d] = shape[d];
  v.strides[dim] = 0;
  return v;
}

/* A view of the 1-D index spread over shape: index[j] at position j of dim, stride 0 elsewhere. */
static dlx_tensor spread(const dlx_tensor *index, const int64_t *shape, int32_t ndim, int32_t dim) {
  dlx_tensor v = *index;
  v.ndim = ndim;
  for (int32_t d = 0; d < ndim; d++) {
    v.shape[d] = shape[d];
    v.strides[d] = d == dim ? index->strides[0] : 0;
  }
  return v;
}

int dlx_index_select(dlx_tensor *out, const dlx_tensor *src, int32_t dim, const dlx_tensor *index,
                     dlx_error *err) {
  const char *name = "index_select";
  int64_t shape[DLX_MAX_NDIM];
  dlx_tensor dst, walk_src, walk_index;
  int rc = check_tensor(name, src, src, err);
  if (rc == 0) rc = check_tensor(name, index, src, err);
  if (rc == 0) rc = check_index_of_dim(name, index, src, dim, err);
  if (rc != 0) return rc;
  rc = check_indices(index, dim, src->shape[dim], name, err);
  if (rc != 0) return rc;
  memcpy(shape, src->shape, sizeof shape[0] * (size_t)src->ndim);
  shape[dim] = index->shape[0];
  rc = dlx_tensor_empty(&dst, shape, src->ndim, src->dtype, src->buffer->device, err);
  if (rc != 0) return rc;
  if (dlx_tensor_numel(&dst) > 0) {
    dlx_index_request r = {DLX_INDEX_GATHER,  &dst, &walk_src, &walk_index, dim, src->shape[dim],
                           src->strides[dim], 0};
    walk_src = along(src, shape, dim);
    walk_index = spread(index, shape, src->ndim, dim);
    rc = run(&r, src, name, err);
  }
  if (rc != 0) {
    dlx_tensor_close(&dst);
    return rc;
  }
  *out = dst;
  return 0;
}

/* index has t's ndim and no dim larger than t's, dim excepted (gather, scatter). */
static int check_like(const char *name, const dlx_tensor *index, const dlx_tensor *t, int32_t dim,
                      const char *what, dlx_error *err) {
  if (index->ndim != t->ndim)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: the index has %d dims and %s %d", name,
                    (int)index->ndim, what, (int)t->ndim);
  for (int32_t d = 0; d < t->ndim; d++)
    if (d != dim && index->shape[d] > t->shape[d])
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "%s: the index's size %lld at dim %d is larger than %s's %lld", name,
                      (long long)index->shape[d], (int)d + 1, what, (long long)t->shape[d]);
  return 0;
}

int dlx_gather(dlx_tensor *out, const dlx_tensor *src, int32_t dim, const dlx_tensor *index,
               dlx_error *err) {
  const char *name = "gather";
  dlx_tensor dst, walk_src;
  int rc = check_tensor(name, src, src, err);
  if (rc == 0) rc = check_tensor(name, index, src, err);
  if (rc == 0) rc = check_index_dtype(name, index, err);
  if (rc == 0) rc = check_dim(name, src, dim, err);
  if (rc == 0) rc = check_like(name, index, src, dim, "the source", err);
  if (rc == 0) rc = check_indices(index, dim, src->shape[dim], name, err);
  if (rc != 0) return rc;
  rc = dlx_tensor_empty(&dst, index->shape, index->ndim, src->dtype, src->buffer->device, err);
  if (rc != 0) return rc;
  if (dlx_tensor_numel(&dst) > 0) {
    dlx_index_request r = {DLX_INDEX_GATHER,  &dst, &walk_src, index, dim, src->shape[dim],
                           src->strides[dim], 0};
    walk_src = along(src, index->shape, dim);
    rc = run(&r, src, name, err);
  }
  if (rc != 0) {
    dlx_tensor_close(&dst);
    return rc;
  }
  *out = dst;
  return 0;
}

/* src as dst's dtype, apart from dst's memory: src itself or a new copy in *made (closed by the
 * caller when *made holds a buffer). */
static int prepare_source(const dlx_tensor *dst, const dlx_tensor *src, dlx_tensor *made,
                          const dlx_tensor **use, dlx_error *err) {
  made->buffer = NULL;
  *use = src;
  if (src->dtype == dst->dtype && !dlx_tensors_may_overlap(dst, src)) return 0;
  if (dlx_dtype_kind(src->dtype) == DLX_KIND_STORAGE && src->dtype != dst->dtype)
    return dlx_fail(err, DLX_TYPE_ERROR, "cannot cast %s to %s: storage-only dtype",
                    dlx_dtype_info_of(src->dtype)->name, dlx_dtype_info_of(dst->dtype)->name);
  int rc = dlx_clone_as(made, src, dst->dtype, dst->buffer->device, err);
  if (rc == 0) *use = made;
  return rc;
}

static int scatter_into(const char *name, const dlx_tensor *dst, int32_t dim,
                        const dlx_tensor *index, const dlx_tensor *src, bool accumulate,
                        dlx_error *err) {
  dlx_tensor made, walk_dst, walk_src;
  const dlx_tensor *use;
  int rc;
  if (accumulate && dlx_dtype_kind(dst->dtype) == DLX_KIND_STORAGE)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: cannot add %s elements", name,
                    dlx_dtype_info_of(dst->dtype)->name);
  if (dlx_tensor_numel(index) == 0) return 0;
  rc = prepare_source(dst, src, &made, &use, err);
  if (rc != 0) return rc;
  {
    dlx_index_request r = {accumulate ? DLX_INDEX_SCATTER_ADD : DLX_INDEX_SCATTER,
                           &walk_dst,
                           &walk_src,
                           index,
                           dim,
                           dst->shape[dim],
                           dst->strides[dim],
                           0};
    walk_dst = along(dst, index->shape, dim);
    walk_src = *use;
    for (int32_t d = 0; d < index->ndim; d++) walk_src.shape[d] = index->shape[d];
    rc = run(&r, dst, name, err);
  }
  if (made.buffer != NULL) dlx_tensor_close(&made);
  return rc;
}

int dlx_scatter(const dlx_tensor *dst, int32_t dim, const dlx_tensor *index, const dlx_tensor *src,
                bool accumulate, dlx_error *err) {
  const char *name = accumulate ? "scatter_add_" : "scatter_";
  int rc = check_tensor(name, dst, dst, err);
  if (rc == 0) rc = check_tensor(name, index, dst, err);
  if (rc == 0) rc = check_tensor(name, src, dst, err);
  if (rc == 0) rc = dlx_check_writable(dst, err);
  if (rc == 0) rc = check_index_dtype(name, index, err);
  if (rc == 0) rc = check_dim(name, dst, dim, err);
  if (rc == 0) rc = check_like(name, index, dst, dim, "the destination", err);
  if (rc == 0) rc = check_like(name, index, src, -1, "the source", err);
  if (rc != 0) return rc;
  {
    dlx_tensor made;
    const dlx_tensor *use;
    rc = apart_from(dst, index, &made, &use, err);
    if (rc == 0) rc = check_indices(use, dim, dst->shape[dim], name, err);
    if (rc == 0) rc = scatter_into(name, dst, dim, use, src, accumulate, err);
    close_made(&made);
  }
  return rc;
}

int dlx_index_add(const dlx_tensor *dst, int32_t dim, const dlx_tensor *index,
                  const dlx_tensor *src, dlx_error *err) {
  const char *name = "index_add_";
  dlx_tensor walk_index, made;
  const dlx_tensor *use;
  int rc = check_tensor(name, dst, dst, err);
  if (rc == 0) rc = check_tensor(name, index, dst, err);
  if (rc == 0) rc = check_tensor(name, src, dst, err);
  if (rc == 0) rc = dlx_check_writable(dst, err);
  if (rc == 0) rc = check_index_of_dim(name, index, dst, dim, err);
  if (rc != 0) return rc;
  if (src->ndim != dst->ndim)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: the source has %d dims and the destination %d", name,
                    (int)src->ndim, (int)dst->ndim);
  for (int32_t d = 0; d < dst->ndim; d++) {
    int64_t want = d == dim ? index->shape[0] : dst->shape[d];
    if (src->shape[d] != want)
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "%s: the source's size at dim %d is %lld, expected %lld", name, (int)d + 1,
                      (long long)src->shape[d], (long long)want);
  }
  rc = apart_from(dst, index, &made, &use, err);
  if (rc == 0) rc = check_indices(use, dim, dst->shape[dim], name, err);
  if (rc == 0) {
    walk_index = spread(use, src->shape, src->ndim, dim);
    rc = scatter_into(name, dst, dim, &walk_index, src, true, err);
  }
  close_made(&made);
  return rc;
}

/* a and b expanded to their broadcast shape (views). */
static int broadcast_pair(const char *name, const dlx_tensor *a, const dlx_tensor *b,
                          dlx_tensor *a_out, dlx_tensor *b_out, dlx_error *err) {
  int32_t ndim = a->ndim > b->ndim ? a->ndim : b->ndim;
  int64_t shape[DLX_MAX_NDIM];
  int rc;
  for (int32_t d = 0; d < ndim; d++) {
    int32_t da = d - (ndim - a->ndim), db = d - (ndim - b->ndim);
    int64_t sa = da >= 0 ? a->shape[da] : 1, sb = db >= 0 ? b->shape[db] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "%s: the mask's shape does not broadcast with the tensor's (size %lld and "
                      "%lld at dim %d)",
                      name, (long long)sb, (long long)sa, (int)d + 1);
    shape[d] = sa == 1 ? sb : sa;
  }
  rc = dlx_expand(a_out, a, shape, ndim, err);
  if (rc != 0) return rc;
  rc = dlx_expand(b_out, b, shape, ndim, err);
  if (rc != 0) dlx_tensor_close(a_out);
  return rc;
}

static int check_mask(const char *name, const dlx_tensor *mask, const dlx_tensor *on,
                      dlx_error *err) {
  int rc = check_tensor(name, mask, on, err);
  if (rc == 0 && mask->dtype != DLX_BOOL)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: the mask must be a bool tensor, got %s", name,
                    dlx_dtype_info_of(mask->dtype)->name);
  return rc;
}

static int count_true(const dlx_tensor *mask, const char *name, int64_t *count, dlx_error *err) {
  dlx_index_request r = {DLX_INDEX_COUNT, NULL, NULL, mask, 0, 0, 0, 0};
  int rc = 0;
  if (dlx_tensor_numel(mask) > 0) rc = run(&r, mask, name, err);
  *count = r.count;
  return rc;
}

int dlx_masked_select(dlx_tensor *out, const dlx_tensor *src, const dlx_tensor *mask,
                      dlx_error *err) {
  const char *name = "masked_select";
  dlx_tensor s, m, dst;
  int64_t count;
  int rc = check_tensor(name, src, src, err);
  if (rc == 0) rc = check_mask(name, mask, src, err);
  if (rc == 0) rc = broadcast_pair(name, src, mask, &s, &m, err);
  if (rc != 0) return rc;
  rc = count_true(&m, name, &count, err);
  if (rc == 0) rc = dlx_tensor_empty(&dst, &count, 1, src->dtype, src->buffer->device, err);
  if (rc == 0 && count > 0) {
    dlx_index_request r = {DLX_INDEX_MASKED_SELECT, &dst, &s, &m, 0, 0, 0, 0};
    rc = run(&r, src, name, err);
    if (rc != 0) dlx_tensor_close(&dst);
  }
  dlx_tensor_close(&s);
  dlx_tensor_close(&m);
  if (rc == 0) *out = dst;
  return rc;
}

/* dst[mask] = src, src being 1-D with an element per true mask element (stride 0 allowed). */
static int masked_scatter(const char *name, const dlx_tensor *dst, const dlx_tensor *mask,
                          const dlx_tensor *src, int64_t count, dlx_error *err) {
  dlx_tensor m, d;
  int rc;
  if (count == 0) return 0;
  rc = broadcast_pair(name, dst, mask, &d, &m, err);
  if (rc != 0) return rc;
  if (d.ndim != dst->ndim)
    rc = dlx_fail(err, DLX_VALUE_ERROR, "%s: the mask has more dims than the tensor", name);
  for (int32_t k = 0; rc == 0 && k < d.ndim; k++)
    if (d.shape[k] != dst->shape[k])
      rc = dlx_fail(err, DLX_VALUE_ERROR, "%s: the mask's shape does not broadcast to the tensor's",
                    name);
  if (rc == 0) {
    dlx_index_request r = {DLX_INDEX_MASKED_SCATTER, dst, src, &m, 0, 0, 0, 0};
    rc = run(&r, dst, name, err);
  }
  dlx_tensor_close(&m);
  dlx_tensor_close(&d);
  return rc;
}

static int count_for(const char *name, const dlx_tensor *dst, const dlx_tensor *mask,
                     int64_t *count, dlx_error *err) {
  dlx_tensor m, d;
  int rc = broadcast_pair(name, dst, mask, &d, &m, err);
  if (rc != 0) return rc;
  rc = count_true(&m, name, count, err);
  dlx_tensor_close(&m);
  dlx_tensor_close(&d);
  return rc;
}

/* dst[mask] = src (one element, or one per true mask element), named `name` in errors. */
static int masked_write(const char *name, const dlx_tensor *dst, const dlx_tensor *mask,
                        const dlx_tensor *src, dlx_error *err) {
  int64_t count = 0;
  dlx_tensor made, made_mask, line;
  const dlx_tensor *use, *use_mask;
  int rc = check_tensor(name, dst, dst, err);
  if (rc == 0) rc = check_mask(name, mask, dst, err);
  if (rc == 0) rc = check_tensor(name, src, dst, err);
  if (rc == 0) rc = dlx_check_writable(dst, err);
  if (rc == 0) rc = apart_from(dst, mask, &made_mask, &use_mask, err);
  if (rc != 0) return rc;
  rc = count_for(name, dst, use_mask, &count, err);
  if (rc == 0 && dlx_tensor_numel(src) != 1 && !(src->ndim == 1 && src->shape[0] == count))
    rc = dlx_fail(err, DLX_VALUE_ERROR,
                  "%s: the mask chooses %lld elements and the value has %lld; give 1 or %lld", name,
                  (long long)count, (long long)dlx_tensor_numel(src), (long long)count);
  if (rc == 0 && count > 0) rc = prepare_source(dst, src, &made, &use, err);
  if (rc == 0 && count > 0) {
    line = *use;
    if (dlx_tensor_numel(use) == 1 && (use->ndim != 1 || count != 1)) {
      line.ndim = 1;
      line.shape[0] = count;
      line.strides[0] = 0;
    }
    rc = masked_scatter(name, dst, use_mask, &line, count, err);
    close_made(&made);
  }
  close_made(&made_mask);
  return rc;
}

int dlx_masked_fill(const dlx_tensor *dst, const dlx_tensor *mask, const dlx_scalar *value,
                    dlx_error *err) {
  int64_t one = 1;
  dlx_tensor cell;
  int rc = check_tensor("masked_fill_", dst, dst, err);
  if (rc == 0) rc = dlx_tensor_empty(&cell, &one, 1, dst->dtype, dst->buffer->device, err);
  if (rc != 0) return rc;
  rc = dlx_fill(&cell, value, err);
  if (rc == 0) rc = masked_write("masked_fill_", dst, mask, &cell, err);
  dlx_tensor_close(&cell);
  return rc;
}

int dlx_masked_assign(const dlx_tensor *dst, const dlx_tensor *mask, const dlx_tensor *src,
                      dlx_error *err) {
  return masked_write("masked assignment", dst, mask, src, err);
}

int dlx_nonzero(dlx_tensor *out, const dlx_tensor *src, dlx_error *err) {
  const char *name = "nonzero";
  dlx_tensor mask, dst;
  int64_t shape[2];
  int rc = check_tensor(name, src, src, err);
  if (rc != 0) return rc;
  if (src->dtype == DLX_BOOL)
    dlx_tensor_share(&mask, src);
  else if (dlx_dtype_kind(src->dtype) == DLX_KIND_STORAGE)
    return dlx_fail(err, DLX_TYPE_ERROR,
                    "%s of a %s tensor: storage-only dtypes cannot be compared", name,
                    dlx_dtype_info_of(src->dtype)->name);
  else if ((rc = dlx_clone_as(&mask, src, DLX_BOOL, src->buffer->device, err)) != 0)
    return rc;
  rc = count_true(&mask, name, &shape[0], err);
  shape[1] = src->ndim;
  if (rc == 0) rc = dlx_tensor_empty(&dst, shape, 2, DLX_INT64, src->buffer->device, err);
  if (rc == 0 && shape[0] > 0 && shape[1] > 0) {
    dlx_index_request r = {DLX_INDEX_NONZERO, &dst, NULL, &mask, 0, 0, 0, 0};
    rc = run(&r, src, name, err);
    if (rc != 0) dlx_tensor_close(&dst);
  }
  dlx_tensor_close(&mask);
  if (rc == 0) *out = dst;
  return rc;
}
