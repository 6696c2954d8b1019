/* tensor.c -- tensor life cycle, queries and views. A view only rewrites shape, strides and
 * offset over the same buffer; strides are never normalised. */
#include "core/tensor.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"

/* ---- queries */

/* A zero size anywhere makes 0, even when the other sizes' product would overflow: an empty
 * tensor's other sizes are not bounded by any memory (permute({0, 2^62, 2^62}) is legal). */
/* The product modulo 2^64, for strides of empty views: they address nothing, may hold any
 * value, and must not make the arithmetic undefined. */
static int64_t wrapping_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* One pass: the product wraps rather than overflows before a later zero size is seen. */
const char *dlx_shape_text(char *buf, size_t cap, const int64_t *shape, int32_t ndim) {
  size_t used = (size_t)snprintf(buf, cap, "{");
  for (int32_t d = 0; d < ndim && used < cap; d++)
    used += (size_t)snprintf(buf + used, cap - used, d ? ", %lld" : "%lld", (long long)shape[d]);
  if (used < cap) snprintf(buf + used, cap - used, "}");
  return buf;
}

int64_t dlx_tensor_numel(const dlx_tensor *t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t->ndim; d++) {
    if (t->shape[d] == 0) return 0;
    n = wrapping_mul(n, t->shape[d]);
  }
  return n;
}

bool dlx_tensor_is_broadcast(const dlx_tensor *t) {
  for (int32_t d = 0; d < t->ndim; d++) {
    if (t->strides[d] == 0 && t->shape[d] > 1) return true;
  }
  return false;
}

/* One pass: a stride that differs decides only when no dim has size 0. */
bool dlx_tensor_is_contiguous(const dlx_tensor *t) {
  int64_t expected = 1;
  bool strided = false;
  for (int32_t d = t->ndim - 1; d >= 0; d--) {
    if (t->shape[d] == 0) return true;
    if (t->shape[d] == 1) continue; /* any stride is fine for a size-1 dim */
    if (t->strides[d] != expected) strided = true;
    expected = wrapping_mul(expected, t->shape[d]);
  }
  return !strided;
}

int64_t dlx_tensor_nbytes(const dlx_tensor *t) {
  return (dlx_tensor_numel(t) * dlx_dtype_bits(t->dtype) + 7) / 8;
}

void dlx_tensor_extent(const dlx_tensor *t, int64_t *lo, int64_t *hi) {
  int64_t low = t->offset, high = t->offset;
  if (dlx_tensor_numel(t) == 0) {
    *lo = *hi = 0;
    return;
  }
  for (int32_t d = 0; d < t->ndim; d++) {
    int64_t span = (t->shape[d] - 1) * t->strides[d];
    if (span < 0)
      low += span;
    else
      high += span;
  }
  *lo = low;
  *hi = high + 1;
}

void dlx_tensor_drop_dims(dlx_tensor *t, uint64_t dims) {
  int32_t n = 0;
  for (int32_t d = 0; d < t->ndim; d++) {
    if (dims & (UINT64_C(1) << d)) continue;
    t->shape[n] = t->shape[d];
    t->strides[n] = t->strides[d];
    n++;
  }
  t->ndim = n;
}

int dlx_check_shape(const int64_t *shape, int32_t ndim, dlx_dtype dtype, dlx_error *err) {
  int64_t numel = 1, bits;
  if (ndim < 0 || ndim > DLX_MAX_NDIM)
    return dlx_fail(err, DLX_VALUE_ERROR, "%d dims requested; dlx tensors have 0 to %d dims",
                    (int)ndim, DLX_MAX_NDIM);
  for (int32_t d = 0; d < ndim; d++) {
    if (shape[d] < 0)
      return dlx_fail(err, DLX_VALUE_ERROR, "negative size %lld in dim %d; sizes must be >= 0",
                      (long long)shape[d], (int)d + 1);
  }
  for (int32_t d = 0; d < ndim; d++) {
    if (shape[d] == 0) numel = 0; /* no elements, whatever the other sizes (as NumPy) */
  }
  for (int32_t d = 0; d < ndim && numel != 0; d++) {
    if (__builtin_mul_overflow(numel, shape[d], &numel)) numel = -1;
    if (numel < 0) break;
  }
  if (numel < 0 || __builtin_mul_overflow(numel, (int64_t)dlx_dtype_bits(dtype), &bits) ||
      (uint64_t)(bits / 8) > (uint64_t)PTRDIFF_MAX / 2)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "shape is too large: its element count or byte size overflows");
  return 0;
}

void dlx_contiguous_strides(const int64_t *shape, int32_t ndim, int64_t *strides) {
  int64_t stride = 1;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    strides[d] = stride;
    /* wraps only for an empty tensor, whose strides address nothing */
    stride = wrapping_mul(stride, shape[d] > 1 ? shape[d] : 1);
  }
}

/* ---- life cycle */

int dlx_tensor_empty(dlx_tensor *out, const int64_t *shape, int32_t ndim, dlx_dtype dtype,
                     DLDevice device, dlx_error *err) {
  return dlx_tensor_empty_memory(out, shape, ndim, dtype, device, DLX_MEMORY_DEFAULT, err);
}

int dlx_tensor_empty_memory(dlx_tensor *out, const int64_t *shape, int32_t ndim, dlx_dtype dtype,
                            DLDevice device, dlx_memory memory, dlx_error *err) {
  dlx_buffer *buffer;
  int64_t numel = 1;
  int rc = dlx_check_shape(shape, ndim, dtype, err);
  if (rc != 0) return rc;
  for (int32_t d = 0; d < ndim; d++) numel = wrapping_mul(numel, shape[d]); /* checked: fits */
  buffer =
      dlx_buffer_new_memory(device, (size_t)((numel * dlx_dtype_bits(dtype) + 7) / 8), memory, err);
  if (buffer == NULL) return err != NULL ? (int)err->code : DLX_MEMORY_ERROR;
  /* only the dims in use are written: a dlx_tensor has room for DLX_MAX_NDIM */
  if (ndim > 0) memmove(out->shape, shape, (size_t)ndim * sizeof *shape); /* may be out's */
  dlx_contiguous_strides(out->shape, ndim, out->strides);
  out->buffer = buffer;
  out->dtype = dtype;
  out->ndim = ndim;
  out->readonly = false;
  out->offset = 0;
  return 0;
}

void dlx_tensor_share(dlx_tensor *out, const dlx_tensor *src) {
  *out = *src;
  dlx_buffer_retain(out->buffer);
}

void dlx_tensor_close(dlx_tensor *t) {
  dlx_buffer_release(t->buffer);
  t->buffer = NULL;
}

/* ---- views */

static int check_ndim(int32_t ndim, dlx_error *err) {
  if (ndim < 0 || ndim > DLX_MAX_NDIM)
    return dlx_fail(err, DLX_VALUE_ERROR, "a view with %d dims; dlx tensors have at most %d",
                    (int)ndim, DLX_MAX_NDIM);
  return 0;
}

/* Resolves a single -1 in shape against numel. */
static int infer_size(int64_t *shape, int32_t ndim, int64_t numel, dlx_error *err) {
  int32_t unknown = -1;
  int64_t known = 1;
  for (int32_t d = 0; d < ndim; d++) {
    if (shape[d] == -1) {
      if (unknown >= 0) return dlx_fail(err, DLX_VALUE_ERROR, "only one size may be -1 in a shape");
      unknown = d;
    } else if (shape[d] < 0) {
      return dlx_fail(err, DLX_VALUE_ERROR, "negative size %lld in dim %d", (long long)shape[d],
                      (int)d + 1);
    } else if (__builtin_mul_overflow(known, shape[d], &known)) {
      return dlx_fail(err, DLX_VALUE_ERROR, "shape is too large");
    }
  }
  if (unknown >= 0) {
    if (known == 0 || numel % known != 0)
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "cannot infer the -1 size: %lld elements into a shape "
                      "of %lld-element chunks",
                      (long long)numel, (long long)known);
    shape[unknown] = numel / known;
    known = numel;
  }
  if (known != numel)
    return dlx_fail(err, DLX_VALUE_ERROR, "shape of %lld elements for a tensor of %lld elements",
                    (long long)known, (long long)numel);
  return 0;
}

/* Strides that let `shape` view the same elements as (old_shape, old_strides), or false.
 * Walks chunks of dims that are contiguous with each other (PyTorch's computeStride rule). */
static bool view_strides(const dlx_tensor *src, const int64_t *shape, int32_t ndim,
                         int64_t *strides) {
  int32_t view_d = ndim - 1;
  int64_t chunk_base, tensor_numel = 1, view_numel = 1;
  if (src->ndim == 0 || dlx_tensor_numel(src) == 0) {
    dlx_contiguous_strides(shape, ndim, strides);
    return true;
  }
  chunk_base = src->strides[src->ndim - 1];
  for (int32_t d = src->ndim - 1; d >= 0; d--) {
    tensor_numel *= src->shape[d];
    if (d == 0 || (src->shape[d - 1] != 1 && src->strides[d - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        strides[view_d] = view_numel * chunk_base;
        view_numel *= shape[view_d];
        view_d--;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base = src->strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

int dlx_view(dlx_tensor *out, const dlx_tensor *src, const int64_t *shape, int32_t ndim,
             dlx_error *err) {
  int64_t new_shape[DLX_MAX_NDIM], new_strides[DLX_MAX_NDIM];
  int rc = check_ndim(ndim, err);
  if (rc != 0 || ndim < 0 || ndim > DLX_MAX_NDIM) return rc; /* the bound, for the compiler */
  if (ndim > 0) memcpy(new_shape, shape, (size_t)ndim * sizeof *shape);
  rc = infer_size(new_shape, ndim, dlx_tensor_numel(src), err);
  if (rc != 0) return rc;
  if (!view_strides(src, new_shape, ndim, new_strides))
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "this shape cannot view the tensor without a copy (its strides do not allow "
                    "it); use reshape, or contiguous() first");
  dlx_tensor_share(out, src);
  out->ndim = ndim;
  memcpy(out->shape, new_shape, (size_t)ndim * sizeof *new_shape);
  memcpy(out->strides, new_strides, (size_t)ndim * sizeof *new_strides);
  return 0;
}

int dlx_permute(dlx_tensor *out, const dlx_tensor *src, const int32_t *dims, dlx_error *err) {
  bool seen[DLX_MAX_NDIM] = {false};
  dlx_tensor t;
  for (int32_t d = 0; d < src->ndim; d++) {
    if (dims[d] < 0 || dims[d] >= src->ndim || seen[dims[d]])
      return dlx_fail(err, DLX_VALUE_ERROR, "permute needs each of the %d dims exactly once",
                      (int)src->ndim);
    seen[dims[d]] = true;
  }
  t = *src;
  for (int32_t d = 0; d < src->ndim; d++) {
    t.shape[d] = src->shape[dims[d]];
    t.strides[d] = src->strides[dims[d]];
  }
  dlx_tensor_share(out, &t);
  return 0;
}

int dlx_transpose(dlx_tensor *out, const dlx_tensor *src, int32_t d1, int32_t d2, dlx_error *err) {
  int32_t dims[DLX_MAX_NDIM];
  for (int32_t d = 0; d < src->ndim; d++) dims[d] = d;
  if (d1 < 0 || d1 >= src->ndim || d2 < 0 || d2 >= src->ndim)
    return dlx_fail(err, DLX_VALUE_ERROR, "transpose dims out of range");
  dims[d1] = d2;
  dims[d2] = d1;
  return dlx_permute(out, src, dims, err);
}

int dlx_slice(dlx_tensor *out, const dlx_tensor *src, int32_t dim, int64_t first, int64_t last,
              int64_t step, dlx_error *err) {
  int64_t count = 0;
  if (dim < 0 || dim >= src->ndim) return dlx_fail(err, DLX_VALUE_ERROR, "slice dim out of range");
  if (step == 0) return dlx_fail(err, DLX_VALUE_ERROR, "slice step must not be 0");
  if (step > 0 && last >= first) count = (last - first) / step + 1;
  if (step < 0 && first >= last) count = (first - last) / -step + 1;
  if (count > 0 && (first < 0 || first >= src->shape[dim]))
    return dlx_fail(err, DLX_VALUE_ERROR, "slice start out of range");
  dlx_tensor_share(out, src);
  out->shape[dim] = count;
  /* The offset of a non-empty view stays within the extent the source was checked for; an
   * empty view keeps its offset (an empty import's sizes and strides are unbounded). The
   * stride only overflows where it never addresses anything: a dim of size 1 (a step past the
   * end) or an empty view. */
  if (dlx_tensor_numel(out) > 0) out->offset += first * src->strides[dim];
  out->strides[dim] = wrapping_mul(src->strides[dim], step);
  return 0;
}

int dlx_select(dlx_tensor *out, const dlx_tensor *src, int32_t dim, int64_t index, dlx_error *err) {
  if (dim < 0 || dim >= src->ndim) return dlx_fail(err, DLX_VALUE_ERROR, "select dim out of range");
  if (index < 0 || index >= src->shape[dim])
    return dlx_fail(err, DLX_VALUE_ERROR, "index %lld out of range for a dim of size %lld",
                    (long long)index + 1, (long long)src->shape[dim]);
  dlx_tensor_share(out, src);
  if (dlx_tensor_numel(src) > 0) out->offset += index * src->strides[dim]; /* see dlx_slice */
  out->ndim--;
  for (int32_t d = dim; d < out->ndim; d++) {
    out->shape[d] = src->shape[d + 1];
    out->strides[d] = src->strides[d + 1];
  }
  return 0;
}

int dlx_squeeze(dlx_tensor *out, const dlx_tensor *src, int32_t dim, dlx_error *err) {
  dlx_tensor t = *src;
  if (dim >= src->ndim) return dlx_fail(err, DLX_VALUE_ERROR, "squeeze dim out of range");
  t.ndim = 0;
  for (int32_t d = 0; d < src->ndim; d++) {
    bool drop = src->shape[d] == 1 && (dim < 0 || d == dim);
    if (drop) continue;
    t.shape[t.ndim] = src->shape[d];
    t.strides[t.ndim] = src->strides[d];
    t.ndim++;
  }
  dlx_tensor_share(out, &t);
  return 0;
}

int dlx_unsqueeze(dlx_tensor *out, const dlx_tensor *src, int32_t dim, dlx_error *err) {
  dlx_tensor t = *src;
  int rc = check_ndim(src->ndim + 1, err);
  if (rc != 0) return rc;
  if (dim < 0 || dim > src->ndim)
    return dlx_fail(err, DLX_VALUE_ERROR, "unsqueeze dim out of range");
  t.ndim = src->ndim + 1;
  for (int32_t d = src->ndim; d > dim; d--) {
    t.shape[d] = src->shape[d - 1];
    t.strides[d] = src->strides[d - 1];
  }
  t.shape[dim] = 1;
  t.strides[dim] = dim < src->ndim ? src->shape[dim] * src->strides[dim] : 1;
  dlx_tensor_share(out, &t);
  return 0;
}

int dlx_expand(dlx_tensor *out, const dlx_tensor *src, const int64_t *shape, int32_t ndim,
               dlx_error *err) {
  dlx_tensor t = *src;
  int32_t lead = ndim - src->ndim;
  int rc = check_ndim(ndim, err);
  if (rc != 0) return rc;
  if (lead < 0)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "expand to %d dims from %d: the shape needs at least "
                    "as many dims as the tensor",
                    (int)ndim, (int)src->ndim);
  t.ndim = ndim;
  for (int32_t d = 0; d < ndim; d++) {
    int64_t size = shape[d];
    if (d < lead) {
      if (size < 0)
        return dlx_fail(err, DLX_VALUE_ERROR, "expand: a new leading dim needs a size >= 0");
      t.shape[d] = size;
      t.strides[d] = 0;
      continue;
    }
    int64_t old = src->shape[d - lead];
    if (size == -1 || size == old) {
      t.shape[d] = old;
      t.strides[d] = src->strides[d - lead];
    } else if (old == 1 && size >= 0) {
      t.shape[d] = size;
      t.strides[d] = 0;
    } else {
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "expand: dim %d has size %lld, which cannot become "
                      "%lld (only size-1 dims broadcast)",
                      (int)(d - lead) + 1, (long long)old, (long long)size);
    }
  }
  dlx_tensor_share(out, &t);
  return 0;
}

int dlx_flip(dlx_tensor *out, const dlx_tensor *src, int32_t dim, dlx_error *err) {
  if (dim < 0 || dim >= src->ndim) return dlx_fail(err, DLX_VALUE_ERROR, "flip dim out of range");
  dlx_tensor_share(out, src);
  if (dlx_tensor_numel(src) > 0) out->offset += (src->shape[dim] - 1) * src->strides[dim];
  out->strides[dim] = wrapping_mul(src->strides[dim], -1); /* see dlx_slice */
  return 0;
}
