/* ops.c -- checks, dtype rules and dispatch of copies, fills and reductions to the backends. */
#include "core/ops.h"

#include <string.h>

#include "core/device.h"

/* ---- copies */

bool dlx_tensors_may_overlap(const dlx_tensor *a, const dlx_tensor *b) {
  int64_t alo, ahi, blo, bhi;
  if (a->buffer != b->buffer) return false;
  dlx_tensor_extent(a, &alo, &ahi);
  dlx_tensor_extent(b, &blo, &bhi);
  alo = alo * dlx_dtype_bits(a->dtype) / 8;
  ahi = (ahi * dlx_dtype_bits(a->dtype) + 7) / 8;
  blo = blo * dlx_dtype_bits(b->dtype) / 8;
  bhi = (bhi * dlx_dtype_bits(b->dtype) + 7) / 8;
  return alo < bhi && blo < ahi;
}

bool dlx_tensors_same_view(const dlx_tensor *a, const dlx_tensor *b) {
  return a->buffer == b->buffer && a->dtype == b->dtype && a->ndim == b->ndim &&
         a->offset == b->offset &&
         memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof a->shape[0]) == 0 &&
         memcmp(a->strides, b->strides, (size_t)a->ndim * sizeof a->strides[0]) == 0;
}

static int check_cast(dlx_dtype to, dlx_dtype from, dlx_error *err) {
  if (to != from && (dlx_dtype_is_storage_only(to) || dlx_dtype_is_storage_only(from)))
    return dlx_fail(err, DLX_TYPE_ERROR,
                    "cannot cast %s to %s: storage-only dtypes are copied bit for bit, only to the "
                    "same dtype",
                    dlx_dtype_info_of(from)->name, dlx_dtype_info_of(to)->name);
  return 0;
}

/* ---- copies across devices */

static bool contiguous_from_a_byte(const dlx_tensor *t) {
  return dlx_tensor_is_contiguous(t) && t->offset * dlx_dtype_bits(t->dtype) % 8 == 0;
}

/* Moves the bytes of contiguous `src` into contiguous `dst` (same dtype and size) on another
 * device, with whichever backend can reach both sides, through the host when none can. */
static int move_bytes(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  const dlx_backend *db = dst->buffer->backend, *sb = src->buffer->backend;
  size_t nbytes = (size_t)dlx_tensor_nbytes(src);
  DLDevice dd = dst->buffer->device, sd = src->buffer->device;
  if (sb->host_accessible)
    return db->copy_bytes_host(dd.device_id, dlx_tensor_first_byte(dst), dlx_tensor_first_byte(src),
                               nbytes, true, err);
  if (db->host_accessible)
    return sb->copy_bytes_host(sd.device_id, dlx_tensor_first_byte(dst), dlx_tensor_first_byte(src),
                               nbytes, false, err);
  if (db == sb)
    return db->copy_bytes_device(dlx_tensor_first_byte(dst), dd.device_id,
                                 dlx_tensor_first_byte(src), sd.device_id, nbytes, err);
  {
    DLDevice cpu = {kDLCPU, 0};
    dlx_tensor host;
    int rc = dlx_tensor_empty(&host, src->shape, src->ndim, src->dtype, cpu, err);
    if (rc != 0) return rc;
    rc = move_bytes(&host, src, err);
    if (rc == 0) rc = move_bytes(dst, &host, err);
    dlx_tensor_close(&host);
    return rc;
  }
}

static int copy_same_shape(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err);

/* src (any layout) into dst (any layout, dtype) on another device: contiguous on the source
 * device, bytes moved, then cast and scattered on the destination device. */
static int copy_across_devices(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  dlx_tensor packed = {0}, moved = {0};
  int rc = 0;
  if (contiguous_from_a_byte(src))
    dlx_tensor_share(&packed, src);
  else
    rc = dlx_clone_as(&packed, src, src->dtype, src->buffer->device, err);
  if (rc != 0) return rc;
  if (dst->dtype == src->dtype && contiguous_from_a_byte(dst)) {
    rc = move_bytes(dst, &packed, err); /* straight into place */
  } else {
    rc = dlx_tensor_empty(&moved, src->shape, src->ndim, src->dtype, dst->buffer->device, err);
    if (rc == 0) rc = move_bytes(&moved, &packed, err);
    if (rc == 0) rc = copy_same_shape(dst, &moved, err);
    dlx_tensor_close(&moved);
  }
  dlx_tensor_close(&packed);
  return rc;
}

/* Copy between two tensors of the same shape with no overlap. */
static int copy_same_shape(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  const dlx_backend *db = dst->buffer->backend, *sb = src->buffer->backend;
  const dlx_backend *backend;
  int rc;
  if (!dlx_device_equal(dst->buffer->device, src->buffer->device) &&
      !(db->host_accessible && sb->host_accessible))
    return copy_across_devices(dst, src, err);
  rc = dlx_compute_on(dst, &backend, err);
  return rc != 0 ? rc : backend->copy(dst, src, err);
}

int dlx_check_writable(const dlx_tensor *dst, dlx_error *err) {
  if (dst->readonly) return dlx_fail(err, DLX_VALUE_ERROR, "the destination is read-only");
  if (dlx_tensor_is_broadcast(dst))
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "the destination has a broadcast (stride-0) dim: "
                    "several of its elements share one memory location; clone it first");
  return 0;
}

int dlx_copy(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  dlx_tensor view;
  int rc = dlx_buffer_check(dst->buffer, err);
  if (rc == 0) rc = dlx_buffer_check(src->buffer, err);
  if (rc == 0) rc = dlx_check_writable(dst, err);
  if (rc == 0) rc = check_cast(dst->dtype, src->dtype, err);
  if (rc != 0) return rc;
  rc = dlx_expand(&view, src, dst->shape, dst->ndim, err);
  if (rc != 0) return rc;
  if (dlx_tensor_numel(dst) == 0 || dlx_tensors_same_view(dst, &view)) {
    rc = 0;
  } else if (dlx_tensors_may_overlap(dst, &view)) {
    dlx_tensor tmp;
    rc = dlx_clone_as(&tmp, &view, view.dtype, view.buffer->device, err);
    if (rc == 0) {
      rc = copy_same_shape(dst, &tmp, err);
      dlx_tensor_close(&tmp);
    }
  } else {
    rc = copy_same_shape(dst, &view, err);
  }
  dlx_tensor_close(&view);
  return rc;
}

int dlx_clone_as(dlx_tensor *out, const dlx_tensor *src, dlx_dtype dtype, DLDevice device,
                 dlx_error *err) {
  return dlx_clone_as_memory(out, src, dtype, device, DLX_MEMORY_DEFAULT, err);
}

int dlx_clone_as_memory(dlx_tensor *out, const dlx_tensor *src, dlx_dtype dtype, DLDevice device,
                        dlx_memory memory, dlx_error *err) {
  dlx_tensor t;
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc == 0) rc = check_cast(dtype, src->dtype, err);
  if (rc != 0) return rc;
  rc = dlx_tensor_empty_memory(&t, src->shape, src->ndim, dtype, device, memory, err);
  if (rc != 0) return rc;
  if (dlx_tensor_numel(&t) > 0) rc = copy_same_shape(&t, src, err);
  if (rc != 0) {
    dlx_tensor_close(&t);
    return rc;
  }
  *out = t;
  return 0;
}

dlx_memory dlx_tensor_memory(const dlx_tensor *t) {
  const dlx_backend *backend = t->buffer->backend;
  if (backend == NULL || backend->memory_of == NULL || t->buffer->data == NULL ||
      dlx_buffer_check(t->buffer, NULL) != 0) /* the driver must not see a pointer given back */
    return DLX_MEMORY_DEFAULT;
  return backend->memory_of(t->buffer->device.device_id, t->buffer->data);
}

int dlx_empty_on(dlx_tensor *out, const dlx_tensor *like, const int64_t *shape, int32_t ndim,
                 dlx_dtype dtype, dlx_error *err) {
  return dlx_tensor_empty_memory(out, shape, ndim, dtype, like->buffer->device,
                                 dlx_tensor_memory(like), err);
}

int dlx_move_dim(dlx_tensor *out, dlx_tensor *t, int32_t from, int32_t to, dlx_error *err) {
  int32_t perm[DLX_MAX_NDIM];
  dlx_tensor moved;
  int rc;
  if (from == to && dlx_tensor_is_contiguous(t)) {
    *out = *t;
    return 0;
  }
  for (int32_t d = 0, rest = 0; d < t->ndim; d++) {
    if (rest == from) rest++;
    perm[d] = d == to ? from : rest++;
  }
  rc = dlx_permute(&moved, t, perm, err);
  if (rc == 0) {
    rc = dlx_clone_as_memory(out, &moved, t->dtype, t->buffer->device, dlx_tensor_memory(t), err);
    dlx_tensor_close(&moved);
  }
  dlx_tensor_close(t);
  return rc;
}

int dlx_fill(const dlx_tensor *dst, const dlx_scalar *value, dlx_error *err) {
  dlx_kind kind = dlx_dtype_kind(dst->dtype);
  const dlx_backend *backend;
  int rc = dlx_buffer_check(dst->buffer, err);
  if (rc == 0) rc = dlx_check_writable(dst, err);
  if (rc != 0) return rc;
  if (kind == DLX_KIND_STORAGE)
    return dlx_fail(err, DLX_TYPE_ERROR,
                    "cannot fill a %s tensor: storage-only dtypes cannot "
                    "be computed on",
                    dlx_dtype_info_of(dst->dtype)->name);
  if (value->kind == DLX_KIND_COMPLEX && kind != DLX_KIND_COMPLEX)
    return dlx_fail(err, DLX_TYPE_ERROR, "cannot fill a %s tensor with a complex value",
                    dlx_dtype_info_of(dst->dtype)->name);
  if (dlx_tensor_numel(dst) == 0) return 0;
  rc = dlx_compute_on(dst, &backend, err);
  return rc != 0 ? rc : backend->fill(dst, value, err);
}

/* ---- reductions */

static const char *reduce_name(dlx_reduce_op op) {
  static const char *const names[] = {"sum",    "prod",   "mean", "min", "max",
                                      "argmin", "argmax", "all",  "any"};
  return names[op];
}

int dlx_reduce_dtype(dlx_reduce_op op, dlx_dtype in, dlx_dtype *out, dlx_error *err) {
  dlx_kind kind = dlx_dtype_kind(in);
  if (kind == DLX_KIND_STORAGE)
    return dlx_fail(err, DLX_TYPE_ERROR,
                    "cannot compute %s of a %s tensor: storage-only dtypes "
                    "cannot be computed on",
                    reduce_name(op), dlx_dtype_info_of(in)->name);
  switch (op) {
  case DLX_REDUCE_SUM:
  case DLX_REDUCE_PROD:
    if (in == DLX_UINT64)
      *out = DLX_UINT64;
    else if (kind == DLX_KIND_BOOL || kind == DLX_KIND_INT || kind == DLX_KIND_UINT)
      *out = DLX_INT64;
    else
      *out = in;
    return 0;
  case DLX_REDUCE_MEAN:
    *out = (kind == DLX_KIND_FLOAT || kind == DLX_KIND_COMPLEX) ? in : DLX_FLOAT64;
    return 0;
  case DLX_REDUCE_MIN:
  case DLX_REDUCE_MAX:
  case DLX_REDUCE_ARGMIN:
  case DLX_REDUCE_ARGMAX:
    if (kind == DLX_KIND_COMPLEX)
      return dlx_fail(err, DLX_TYPE_ERROR,
                      "%s of a complex tensor: complex numbers are not "
                      "ordered",
                      reduce_name(op));
    *out = (op == DLX_REDUCE_MIN || op == DLX_REDUCE_MAX) ? in : DLX_INT64;
    return 0;
  case DLX_REDUCE_ALL:
  case DLX_REDUCE_ANY:
    *out = DLX_BOOL;
    return 0;
  }
  return dlx_fail(err, DLX_VALUE_ERROR, "unknown reduction %d", (int)op);
}

static int check_reduce_dims(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims,
                             dlx_error *err) {
  uint64_t all = src->ndim == 64 ? ~UINT64_C(0) : (UINT64_C(1) << src->ndim) - 1;
  bool empty_extent = false, no_outputs = false; /* no products: other sizes may be huge */
  bool ordered = op == DLX_REDUCE_MIN || op == DLX_REDUCE_MAX || op == DLX_REDUCE_ARGMIN ||
                 op == DLX_REDUCE_ARGMAX;
  if ((dims & ~all) != 0) return dlx_fail(err, DLX_VALUE_ERROR, "reduction dim out of range");
  if ((op == DLX_REDUCE_ARGMIN || op == DLX_REDUCE_ARGMAX) && dims != all &&
      (dims & (dims - 1)) != 0)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s takes one dim, or none for the flattened tensor",
                    reduce_name(op));
  for (int32_t d = 0; d < src->ndim; d++) {
    if (src->shape[d] != 0) continue;
    if (dims & (UINT64_C(1) << d))
      empty_extent = true;
    else
      no_outputs = true;
  }
  if (ordered && empty_extent && !no_outputs)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s of an empty extent: the reduction has no identity",
                    reduce_name(op));
  return 0;
}

/* The backend that computes on src's memory reduces it into dst. */
static int run_reduce(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims, const dlx_tensor *dst,
                      dlx_error *err) {
  const dlx_backend *backend;
  int rc = dlx_compute_on(src, &backend, err);
  return rc != 0 ? rc : backend->reduce(op, src, dims, dst, err);
}

int dlx_reduce(dlx_tensor *out, dlx_reduce_op op, const dlx_tensor *src, uint64_t dims,
               bool keepdim, dlx_error *err) {
  dlx_dtype dtype;
  dlx_tensor dst;
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc == 0) rc = dlx_reduce_dtype(op, src->dtype, &dtype, err);
  if (rc == 0) rc = check_reduce_dims(op, src, dims, err);
  if (rc != 0) return rc;
  rc = dlx_reduced_empty(&dst, src, dims, dtype, err);
  if (rc != 0) return rc;
  if (dlx_tensor_numel(&dst) > 0) rc = run_reduce(op, src, dims, &dst, err);
  return dlx_reduced_done(out, &dst, rc, dims, keepdim);
}

int dlx_reduced_empty(dlx_tensor *dst, const dlx_tensor *src, uint64_t dims, dlx_dtype dtype,
                      dlx_error *err) {
  int64_t shape[DLX_MAX_NDIM];
  for (int32_t d = 0; d < src->ndim; d++)
    shape[d] = (dims & (UINT64_C(1) << d)) ? 1 : src->shape[d];
  return dlx_tensor_empty(dst, shape, src->ndim, dtype, src->buffer->device, err);
}

int dlx_reduced_done(dlx_tensor *out, dlx_tensor *dst, int rc, uint64_t dims, bool keepdim) {
  if (rc != 0) {
    dlx_tensor_close(dst);
    return rc;
  }
  if (!keepdim) dlx_tensor_drop_dims(dst, dims);
  *out = *dst;
  return 0;
}

/* ---- reading values */

int dlx_to_host_wide(dlx_tensor *out, const dlx_tensor *t, dlx_error *err) {
  DLDevice cpu = {kDLCPU, 0};
  if (dlx_dtype_is_storage_only(t->dtype))
    return dlx_fail(err, DLX_TYPE_ERROR,
                    "cannot read the values of a %s tensor: storage-only "
                    "dtypes cannot be computed on",
                    dlx_dtype_info_of(t->dtype)->name);
  return dlx_clone_as(out, t, dlx_wide_dtype(dlx_dtype_kind(t->dtype)), cpu, err);
}

int dlx_get_element(const dlx_tensor *t, const int64_t *index, dlx_scalar *out, dlx_error *err) {
  dlx_tensor element = *t, host;
  int rc;
  element.ndim = 0;
  for (int32_t d = 0; d < t->ndim; d++) {
    if (index[d] < 0 || index[d] >= t->shape[d])
      return dlx_fail(err, DLX_VALUE_ERROR, "index %lld out of range for dim %d of size %lld",
                      (long long)index[d] + 1, (int)d + 1, (long long)t->shape[d]);
    element.offset += index[d] * t->strides[d];
  }
  rc = dlx_to_host_wide(&host, &element, err);
  if (rc != 0) return rc;
  out->kind = dlx_dtype_kind(host.dtype);
  switch (host.dtype) {
  case DLX_BOOL:
    out->v.b = *(const uint8_t *)host.buffer->data != 0;
    break; /* any byte */
  case DLX_INT64:
    memcpy(&out->v.i, host.buffer->data, 8);
    break;
  case DLX_UINT64:
    memcpy(&out->v.u, host.buffer->data, 8);
    break;
  case DLX_COMPLEX128:
    memcpy(out->v.c, host.buffer->data, 16);
    break;
  default:
    memcpy(&out->v.f, host.buffer->data, 8);
    break;
  }
  dlx_tensor_close(&host);
  return 0;
}
