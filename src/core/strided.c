/* strided.c -- unfold and as_strided (views whose strides the caller picks), and whether two
 * views share memory (NumPy's may_share_memory and shares_memory). */
#include "core/strided.h"

#include <stdint.h>
#include <string.h>

#include "core/device.h"

/* ---- views */

bool dlx_strided_may_self_overlap(const dlx_tensor *t) {
  int64_t strides[DLX_MAX_NDIM], sizes[DLX_MAX_NDIM], span = 0;
  int32_t n = 0;
  if (dlx_tensor_numel(t) == 0) return false;
  for (int32_t d = 0; d < t->ndim; d++) {
    int64_t s = t->strides[d] < 0 ? -t->strides[d] : t->strides[d], size = t->shape[d];
    int32_t i = n++;
    if (size == 1) {
      n--;
      continue;
    }
    for (; i > 0 && strides[i - 1] > s; i--) { /* insertion sort by stride */
      strides[i] = strides[i - 1];
      sizes[i] = sizes[i - 1];
    }
    strides[i] = s;
    sizes[i] = size;
  }
  /* Each stride must pass the farthest element the smaller dims reach. The spans are bounded by
   * the extent of a non-empty view, which lies in its buffer. */
  for (int32_t i = 0; i < n; i++) {
    if (strides[i] <= span) return true;
    span += strides[i] * (sizes[i] - 1);
  }
  return false;
}

int dlx_unfold(dlx_tensor *out, const dlx_tensor *src, int32_t dim, int64_t size, int64_t step,
               dlx_error *err) {
  int64_t length;
  if (dim < 0 || dim >= src->ndim) return dlx_fail(err, DLX_VALUE_ERROR, "unfold dim out of range");
  length = src->shape[dim];
  if (size < 0 || size > length)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "unfold: size %lld out of range for dim %d of size %lld (expected 0..%lld)",
                    (long long)size, (int)dim + 1, (long long)length, (long long)length);
  if (step < 1)
    return dlx_fail(err, DLX_VALUE_ERROR, "unfold: step must be at least 1, got %lld",
                    (long long)step);
  if (src->ndim == DLX_MAX_NDIM)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "unfold: the result would have %d dims; dlx has at most %d", DLX_MAX_NDIM + 1,
                    DLX_MAX_NDIM);
  dlx_tensor_share(out, src);
  out->ndim = src->ndim + 1;
  out->shape[dim] = (length - size) / step + 1;
  /* as dlx_slice: the stride only overflows for one window, where it addresses nothing more */
  out->strides[dim] = (int64_t)((uint64_t)src->strides[dim] * (uint64_t)step);
  out->shape[src->ndim] = size;
  out->strides[src->ndim] = src->strides[dim];
  if (dlx_strided_may_self_overlap(out)) out->readonly = true;
  return 0;
}

/* Elements of dtype that fit in the buffer's bytes. */
static int64_t buffer_elements(const dlx_tensor *t) {
  uint64_t bits = (uint64_t)dlx_dtype_bits(t->dtype), nbytes = (uint64_t)t->buffer->nbytes;
  return bits % 8 == 0 ? (int64_t)(nbytes / (bits / 8)) : (int64_t)(nbytes * 8 / bits);
}

/* The elements of shape and strides from offset lie in 0..cap - 1: each span is added only when
 * it fits, so nothing overflows. */
static int check_bounds(const int64_t *shape, const int64_t *strides, int32_t ndim, int64_t offset,
                        int64_t cap, dlx_error *err) {
  int64_t lo = offset, hi = offset; /* the lowest and highest element so far */
  if (offset >= cap) goto outside;
  for (int32_t d = 0; d < ndim; d++) {
    int64_t s = strides[d], n = shape[d] - 1, mag = s < 0 ? -(s + 1) : s - 1; /* |s| - 1 */
    if (n == 0 || s == 0) continue;
    if (mag >= (INT64_MAX - 1) / n) goto outside; /* |s| * n > INT64_MAX */
    if (s > 0) {
      if (s * n > cap - 1 - hi) goto outside;
      hi += s * n;
    } else {
      if (-s * n > lo) goto outside;
      lo += s * n;
    }
  }
  return 0;
outside:
  return dlx_fail(err, DLX_VALUE_ERROR,
                  "as_strided: the view reaches past the buffer, which holds %lld elements "
                  "(offset %lld)",
                  (long long)cap, (long long)offset);
}

int dlx_as_strided(dlx_tensor *out, const dlx_tensor *src, const int64_t *shape,
                   const int64_t *strides, int32_t ndim, int64_t offset, dlx_error *err) {
  int64_t cap = buffer_elements(src), numel = 1;
  int rc = dlx_check_shape(shape, ndim, src->dtype, err);
  if (rc != 0) return rc;
  for (int32_t d = 0; d < ndim; d++) numel = shape[d] == 0 ? 0 : numel;
  if (offset < 0)
    return dlx_fail(err, DLX_VALUE_ERROR, "as_strided: offset must not be negative, got %lld",
                    (long long)offset);
  if (numel == 0 && offset > cap)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "as_strided: offset %lld is past the buffer, which holds %lld elements",
                    (long long)offset, (long long)cap);
  if (numel > 0) {
    rc = check_bounds(shape, strides, ndim, offset, cap, err);
    if (rc != 0) return rc;
  }
  dlx_tensor_share(out, src);
  out->ndim = ndim;
  out->offset = offset;
  memcpy(out->shape, shape, (size_t)ndim * sizeof shape[0]);
  memcpy(out->strides, strides, (size_t)ndim * sizeof strides[0]);
  if (dlx_strided_may_self_overlap(out)) out->readonly = true;
  return 0;
}

/* ---- shared memory. Positions are in bits from a's first byte: an element of a dtype of
 * `bits` bits at element offset e of a view whose buffer starts at bit `origin` covers the bits
 * origin + e * bits .. + bits - 1, and two elements share memory when they touch a common byte. */

typedef struct span_set {
  int64_t origin; /* the bit of the buffer's first byte */
  int64_t bits;
  int64_t offset; /* elements, to the lowest element */
  int32_t ndim;   /* dims of size > 1, strides > 0 */
  int64_t shape[DLX_MAX_NDIM];
  int64_t strides[DLX_MAX_NDIM];
} span_set;

static int64_t floor_div(int64_t a, int64_t b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0));
}
static int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

/* The same elements with positive strides (an element set has no order), without size-1 dims
 * and stride-0 ones (which repeat the same elements). */
static void to_span_set(span_set *s, const dlx_tensor *t, int64_t origin) {
  s->origin = origin;
  s->bits = dlx_dtype_bits(t->dtype);
  s->offset = t->offset;
  s->ndim = 0;
  for (int32_t d = 0; d < t->ndim; d++) {
    int64_t stride = t->strides[d];
    if (t->shape[d] == 1 || stride == 0) continue;
    if (stride < 0) {
      s->offset += stride * (t->shape[d] - 1);
      stride = -stride;
    }
    s->shape[s->ndim] = t->shape[d];
    s->strides[s->ndim++] = stride;
  }
}

/* The highest element offset, from the lowest, skipping dim `skip` (-1: none). */
static int64_t reach(const span_set *s, int32_t skip) {
  int64_t r = 0;
  for (int32_t d = 0; d < s->ndim; d++)
    if (d != skip) r += s->strides[d] * (s->shape[d] - 1);
  return r;
}

/* The bytes from the first to the last element: [*lo, *hi). */
static void byte_range(const span_set *s, int64_t *lo, int64_t *hi) {
  *lo = floor_div(s->origin + s->offset * s->bits, 8);
  *hi = ceil_div(s->origin + (s->offset + reach(s, -1) + 1) * s->bits, 8);
}

/* Whether the elements cover every bit from the first to the last: the strides, sorted, are 1,
 * then each the previous one times its size. */
static bool dense(const span_set *s) {
  int64_t want = 1;
  bool used[DLX_MAX_NDIM] = {false};
  for (int32_t k = 0; k < s->ndim; k++) {
    int32_t found = -1;
    for (int32_t d = 0; d < s->ndim && found < 0; d++)
      if (!used[d] && s->strides[d] == want) found = d;
    if (found < 0) return false;
    used[found] = true;
    want *= s->shape[found];
  }
  return true;
}

static int32_t largest_dim(const span_set *s) {
  int32_t best = 0;
  for (int32_t d = 1; d < s->ndim; d++)
    if (s->strides[d] > s->strides[best]) best = d;
  return best;
}

typedef struct search {
  int64_t steps, max_steps;
} search;

/* 1 when a and b share a byte, 0 when not, -1 when the steps ran out. */
static int overlap(const span_set *a, const span_set *b, search *q) {
  int64_t alo, ahi, blo, bhi, sb, first, last, below, above;
  const span_set *whole, *split;
  span_set part;
  int32_t k;
  if (++q->steps > q->max_steps) return -1;
  byte_range(a, &alo, &ahi);
  byte_range(b, &blo, &bhi);
  if (alo >= bhi || blo >= ahi) return 0;
  if (dense(a) && dense(b)) return 1;
  /* split the layout that is not dense, or the coarser one, along its largest stride */
  if (dense(a))
    split = b;
  else if (dense(b))
    split = a;
  else
    split = a->strides[largest_dim(a)] * a->bits >= b->strides[largest_dim(b)] * b->bits ? a : b;
  whole = split == a ? b : a;
  byte_range(whole, &alo, &ahi);
  k = largest_dim(split);
  part = *split;
  part.ndim--;
  for (int32_t d = k; d < part.ndim; d++) {
    part.shape[d] = split->shape[d + 1];
    part.strides[d] = split->strides[d + 1];
  }
  /* slice i covers bits lo + i * sb .. hi + i * sb (exclusive), which meet bytes [alo, ahi)
   * when lo + i * sb < 8 * ahi and hi + i * sb > 8 * alo */
  sb = split->strides[k] * split->bits;
  below = split->origin + split->offset * split->bits;
  above = split->origin + (split->offset + reach(split, k) + 1) * split->bits;
  first = floor_div(8 * alo - above, sb) + 1;
  last = ceil_div(8 * ahi - below, sb) - 1;
  if (first < 0) first = 0;
  if (last > split->shape[k] - 1) last = split->shape[k] - 1;
  for (int64_t i = first; i <= last; i++) {
    int found;
    part.offset = split->offset + i * split->strides[k];
    found = overlap(&part, whole, q);
    if (found != 0) return found;
  }
  return 0;
}

/* a's and b's buffers are on one device and the bytes of their elements' range meet; *delta is
 * the distance from a's buffer to b's, in bytes. */
static bool ranges_meet(const dlx_tensor *a, const dlx_tensor *b, int64_t *delta) {
  int64_t alo, ahi, blo, bhi;
  if (dlx_tensor_numel(a) == 0 || dlx_tensor_numel(b) == 0) return false;
  if (!dlx_device_equal(dlx_tensor_device(a), dlx_tensor_device(b))) return false;
  *delta = (int64_t)((uintptr_t)b->buffer->data - (uintptr_t)a->buffer->data);
  dlx_tensor_extent(a, &alo, &ahi);
  dlx_tensor_extent(b, &blo, &bhi);
  alo = floor_div(alo * dlx_dtype_bits(a->dtype), 8);
  ahi = ceil_div(ahi * dlx_dtype_bits(a->dtype), 8);
  blo = floor_div(blo * dlx_dtype_bits(b->dtype), 8) + *delta;
  bhi = ceil_div(bhi * dlx_dtype_bits(b->dtype), 8) + *delta;
  return alo < bhi && blo < ahi;
}

bool dlx_may_share_memory(const dlx_tensor *a, const dlx_tensor *b) {
  int64_t delta;
  return ranges_meet(a, b, &delta);
}

int dlx_shares_memory(const dlx_tensor *a, const dlx_tensor *b, int64_t max_steps, bool *result,
                      dlx_error *err) {
  span_set sa, sb;
  search q = {0, max_steps};
  int64_t delta;
  int found;
  if (!ranges_meet(a, b, &delta)) {
    *result = false;
    return 0;
  }
  to_span_set(&sa, a, 0);
  to_span_set(&sb, b, delta * 8);
  found = overlap(&sa, &sb, &q);
  if (found < 0)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "shares_memory: deciding took more than %lld steps (max_work); "
                    "may_share_memory gives the bounds test",
                    (long long)max_steps);
  *result = found == 1;
  return 0;
}
