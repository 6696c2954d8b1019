/* sort.c -- sort, argsort, topk and unique over the backends' sort_rows (see sort.h). */
#include "core/sort.h"

#include <string.h>

#include "common/sort_keys.h"
#include "core/backend.h"
#include "core/device.h"
#include "core/ops.h"

int dlx_sort_key_kind(dlx_dtype dtype) {
  switch (dtype) {
  case DLX_BOOL:
    return DLX_SORT_KEY_BOOL;
  case DLX_UINT8:
    return DLX_SORT_KEY_U8;
  case DLX_INT8:
    return DLX_SORT_KEY_I8;
  case DLX_UINT16:
    return DLX_SORT_KEY_U16;
  case DLX_INT16:
    return DLX_SORT_KEY_I16;
  case DLX_FLOAT16:
    return DLX_SORT_KEY_F16;
  case DLX_BFLOAT16:
    return DLX_SORT_KEY_BF16;
  case DLX_UINT32:
    return DLX_SORT_KEY_U32;
  case DLX_INT32:
    return DLX_SORT_KEY_I32;
  case DLX_FLOAT32:
    return DLX_SORT_KEY_F32;
  case DLX_UINT64:
    return DLX_SORT_KEY_U64;
  case DLX_INT64:
    return DLX_SORT_KEY_I64;
  case DLX_FLOAT64:
    return DLX_SORT_KEY_F64;
  default:
    return -1;
  }
}

int dlx_check_ordered(const dlx_tensor *src, const char *name, dlx_error *err) {
  const char *dtype = dlx_dtype_info_of(src->dtype)->name;
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc != 0) return rc;
  if (src->dtype == DLX_COMPLEX64 || src->dtype == DLX_COMPLEX128)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: complex numbers have no order (dtype %s)", name,
                    dtype);
  if (dlx_sort_key_kind(src->dtype) < 0)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: dtype %s has no order", name, dtype);
  return 0;
}

static int check_sortable(const dlx_tensor *src, const char *name, dlx_error *err) {
  int rc = dlx_check_ordered(src, name, err);
  if (rc != 0) return rc;
  if (dlx_compute_backend(src->buffer)->sort_rows == NULL)
    return dlx_not_implemented(err, name, src->buffer->device);
  return 0;
}

/* keys (C-contiguous, dim last) -> values and indices of keys' shape, through sort_rows. */
static int sort_last_dim(dlx_tensor *values, dlx_tensor *indices, const dlx_tensor *keys,
                         bool descending, dlx_error *err) {
  int64_t n = keys->shape[keys->ndim - 1], rows = dlx_tensor_numel(keys) / n;
  dlx_tensor k2 = *keys, v2, i2;
  const dlx_backend *backend;
  int rc = dlx_empty_on(values, keys, keys->shape, keys->ndim, keys->dtype, err);
  if (rc != 0) return rc;
  rc = dlx_empty_on(indices, keys, keys->shape, keys->ndim, DLX_INT64, err);
  if (rc != 0) {
    dlx_tensor_close(values);
    return rc;
  }
  k2.ndim = 2;
  k2.shape[0] = rows;
  k2.shape[1] = n;
  k2.strides[0] = n;
  k2.strides[1] = 1;
  v2 = *values;
  i2 = *indices;
  v2.ndim = i2.ndim = 2;
  memcpy(v2.shape, k2.shape, sizeof k2.shape);
  memcpy(i2.shape, k2.shape, sizeof k2.shape);
  memcpy(v2.strides, k2.strides, sizeof k2.strides);
  memcpy(i2.strides, k2.strides, sizeof k2.strides);
  rc = dlx_compute_on(keys, &backend, err);
  if (rc == 0) rc = backend->sort_rows(&k2, descending, &v2, &i2, err);
  if (rc != 0) {
    dlx_tensor_close(values);
    dlx_tensor_close(indices);
  }
  return rc;
}

int dlx_sort(dlx_tensor *values, dlx_tensor *indices, const dlx_tensor *src, int32_t dim,
             bool descending, const char *name, dlx_error *err) {
  dlx_tensor line = *src, moved, keys, v, i;
  int32_t perm[DLX_MAX_NDIM], last;
  int rc = check_sortable(src, name, err);
  if (rc != 0) return rc;
  if (src->ndim == 0) { /* one element, as a 1-d line */
    line.ndim = 1;
    line.shape[0] = 1;
    line.strides[0] = 1;
  }
  last = line.ndim - 1;
  if (dim < 0 || dim > last)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: dim %d out of range for a %d-d tensor", name,
                    (int)dim + 1, (int)src->ndim);
  if (dlx_tensor_numel(&line) == 0) {
    rc = dlx_empty_on(values, src, src->shape, src->ndim, src->dtype, err);
    if (rc == 0) rc = dlx_empty_on(indices, src, src->shape, src->ndim, DLX_INT64, err);
    if (rc != 0) dlx_tensor_close(values);
    return rc;
  }
  for (int32_t d = 0, to = 0; d <= last; d++)
    if (d != dim) perm[to++] = d;
  perm[last] = dim;
  rc = dlx_permute(&moved, &line, perm, err);
  if (rc != 0) return rc;
  if (dlx_tensor_is_contiguous(&moved))
    dlx_tensor_share(&keys, &moved);
  else
    rc = dlx_clone_as_memory(&keys, &moved, src->dtype, src->buffer->device, dlx_tensor_memory(src),
                             err);
  dlx_tensor_close(&moved);
  if (rc != 0) return rc;
  rc = sort_last_dim(&v, &i, &keys, descending, err);
  dlx_tensor_close(&keys);
  if (rc != 0) return rc;
  if (dim != last) {
    rc = dlx_move_dim(values, &v, last, dim, err);
    if (rc == 0)
      rc = dlx_move_dim(indices, &i, last, dim, err);
    else
      dlx_tensor_close(&i);
    if (rc != 0) {
      dlx_tensor_close(values);
      return rc;
    }
  } else {
    *values = v;
    *indices = i;
  }
  values->ndim = indices->ndim = src->ndim; /* a 0-d src: back to 0-d */
  return 0;
}

int dlx_topk(dlx_tensor *values, dlx_tensor *indices, const dlx_tensor *src, int64_t k, int32_t dim,
             bool largest, dlx_error *err) {
  int64_t n = src->ndim == 0 ? 1 : (dim >= 0 && dim < src->ndim ? src->shape[dim] : 0);
  int64_t shape[DLX_MAX_NDIM];
  dlx_tensor v, i, part;
  int rc = check_sortable(src, "topk", err);
  if (rc != 0) return rc;
  if (dim < 0 || dim >= (src->ndim > 0 ? src->ndim : 1))
    return dlx_fail(err, DLX_VALUE_ERROR, "topk: dim %d out of range for a %d-d tensor",
                    (int)dim + 1, (int)src->ndim);
  if (k < 0 || k > n)
    return dlx_fail(err, DLX_VALUE_ERROR, "topk: k = %lld out of range for a dim of size %lld",
                    (long long)k, (long long)n);
  if (k == 0 || dlx_tensor_numel(src) == 0) {
    int32_t ndim = src->ndim > 0 ? src->ndim : 1; /* none of a 0-d tensor's one: {0} */
    memcpy(shape, src->shape, sizeof shape);
    shape[dim] = k;
    rc = dlx_empty_on(values, src, shape, ndim, src->dtype, err);
    if (rc == 0) rc = dlx_empty_on(indices, src, shape, ndim, DLX_INT64, err);
    if (rc != 0) dlx_tensor_close(values);
    return rc;
  }
  rc = dlx_sort(&v, &i, src, dim, largest, "topk", err);
  if (rc != 0) return rc;
  if (k == n) {
    *values = v;
    *indices = i;
    return 0;
  }
  rc = dlx_slice(&part, &v, dim, 0, k - 1, 1, err);
  if (rc == 0) {
    rc = dlx_clone_as_memory(values, &part, v.dtype, v.buffer->device, dlx_tensor_memory(&v), err);
    dlx_tensor_close(&part);
  }
  if (rc == 0) rc = dlx_slice(&part, &i, dim, 0, k - 1, 1, err);
  if (rc == 0) {
    rc = dlx_clone_as_memory(indices, &part, DLX_INT64, i.buffer->device, dlx_tensor_memory(&i),
                             err);
    dlx_tensor_close(&part);
    if (rc != 0) dlx_tensor_close(values);
  }
  dlx_tensor_close(&v);
  dlx_tensor_close(&i);
  return rc;
}

/* ---- unique */

/* t on the host: shared when it is on the CPU already, else a copy. */
static int on_host(dlx_tensor *out, const dlx_tensor *t, dlx_error *err) {
  if (t->buffer->device.device_type == kDLCPU) {
    dlx_tensor_share(out, t);
    return 0;
  }
  return dlx_clone_as(out, t, t->dtype, (DLDevice){kDLCPU, 0}, err);
}

/* out = host tensor h on src's device and memory; closes h. */
static int to_src_device(dlx_tensor *out, dlx_tensor *h, const dlx_tensor *src, dlx_error *err) {
  int rc = 0;
  if (src->buffer->device.device_type == kDLCPU)
    *out = *h;
  else {
    rc = dlx_clone_as_memory(out, h, h->dtype, src->buffer->device, dlx_tensor_memory(src), err);
    dlx_tensor_close(h);
  }
  return rc;
}

/* Host arrays of the sorted elements and their 0-based places in src. */
typedef struct sorted_run {
  const char *values;
  const int64_t *places; /* 1-based, as sort gives them */
  int64_t n;
  size_t size; /* bytes an element */
  int kind;
} sorted_run;

static int64_t count_groups(const sorted_run *s) {
  int64_t groups = s->n > 0;
  for (int64_t i = 1; i < s->n; i++)
    groups += dlx_sort_key_at(s->kind, s->values + (size_t)i * s->size) !=
              dlx_sort_key_at(s->kind, s->values + (size_t)(i - 1) * s->size);
  return groups;
}

/* Writes the first element of each group, and the inverse and counts where asked. */
static void compact(const sorted_run *s, char *uniq, int64_t *inverse, int64_t *counts) {
  int64_t g = -1;
  for (int64_t i = 0; i < s->n; i++) {
    const char *at = s->values + (size_t)i * s->size;
    if (i == 0 || dlx_sort_key_at(s->kind, at) != dlx_sort_key_at(s->kind, at - s->size)) {
      g++;
      memcpy(uniq + (size_t)g * s->size, at, s->size);
      if (counts != NULL) counts[g] = 0;
    }
    if (counts != NULL) counts[g]++;
    if (inverse != NULL) inverse[s->places[i] - 1] = g + 1;
  }
}

/* The host results of a sorted run: its distinct values, and the inverse and counts where
 * asked, moved to src's device. */
static int unique_sorted(dlx_tensor *values, dlx_tensor *inverse, dlx_tensor *counts,
                         const dlx_tensor *src, const sorted_run *s, dlx_error *err) {
  DLDevice cpu = {kDLCPU, 0};
  dlx_tensor u = {0}, inv = {0}, cnt = {0};
  int64_t groups = count_groups(s);
  int rc;
  values->buffer = NULL; /* closed, for the clean-up below */
  if (inverse != NULL) inverse->buffer = NULL;
  rc = dlx_tensor_empty(&u, &groups, 1, src->dtype, cpu, err);
  if (rc == 0 && inverse != NULL)
    rc = dlx_tensor_empty(&inv, src->shape, src->ndim, DLX_INT64, cpu, err);
  if (rc == 0 && counts != NULL) rc = dlx_tensor_empty(&cnt, &groups, 1, DLX_INT64, cpu, err);
  if (rc != 0) {
    dlx_tensor_close(&u);
    dlx_tensor_close(&inv);
    dlx_tensor_close(&cnt);
    return rc;
  }
  compact(s, u.buffer->data, inverse != NULL ? inv.buffer->data : NULL,
          counts != NULL ? cnt.buffer->data : NULL);
  rc = to_src_device(values, &u, src, err);
  if (rc == 0 && inverse != NULL) rc = to_src_device(inverse, &inv, src, err);
  if (rc == 0 && counts != NULL) rc = to_src_device(counts, &cnt, src, err);
  if (rc != 0) { /* what was moved already, and what was not */
    dlx_tensor_close(values);
    if (inverse != NULL) dlx_tensor_close(inverse);
    dlx_tensor_close(&inv);
    dlx_tensor_close(&cnt);
  }
  return rc;
}

int dlx_unique(dlx_tensor *values, dlx_tensor *inverse, dlx_tensor *counts, const dlx_tensor *src,
               dlx_error *err) {
  int64_t n = dlx_tensor_numel(src);
  dlx_tensor flat, sv, si, hv = {0}, hi = {0};
  int rc = check_sortable(src, "unique", err);
  if (rc != 0) return rc;
  rc =
      dlx_clone_as_memory(&flat, src, src->dtype, src->buffer->device, dlx_tensor_memory(src), err);
  if (rc != 0) return rc;
  flat.ndim = 1; /* a fresh C-contiguous tensor: its elements in a row */
  flat.shape[0] = n;
  flat.strides[0] = 1;
  rc = dlx_sort(&sv, &si, &flat, 0, false, "unique", err);
  dlx_tensor_close(&flat);
  if (rc != 0) return rc;
  rc = on_host(&hv, &sv, err);
  if (rc == 0) rc = on_host(&hi, &si, err);
  if (rc == 0) {
    size_t size = (size_t)dlx_dtype_bits(src->dtype) / 8;
    sorted_run s = {.values = (const char *)hv.buffer->data + (size_t)hv.offset * size,
                    .places = (const int64_t *)hi.buffer->data + hi.offset,
                    .n = n,
                    .size = size,
                    .kind = dlx_sort_key_kind(src->dtype)};
    rc = unique_sorted(values, inverse, counts, src, &s, err);
  }
  dlx_tensor_close(&hv);
  dlx_tensor_close(&hi);
  dlx_tensor_close(&sv);
  dlx_tensor_close(&si);
  return rc;
}
