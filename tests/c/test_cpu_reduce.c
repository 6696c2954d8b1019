/* test_cpu_reduce.c -- the CPU backend's reductions: every op and dtype over many shapes
 * (0-d, size-0 and size-1 dims, odd sizes), layouts (reversed, permuted, gapped, broadcast)
 * and every dims mask, against a reference computed here in long double and wrapping uint64_t;
 * then the edge cases one by one: NaN propagation, 1-based first indices, empty extents,
 * integer wrapping, float16 accumulation and pairwise accuracy on large sums. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/half.h"
#include "core/core.h"
#include "cpu_test_util.h"

#define NCOMPUTABLE (DLX_COMPLEX128 + 1)

/* ---- buffers, tensors, layouts */

static void c_strides(int ndim, const int64_t *shape, int64_t *strides) {
  int64_t s = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    strides[d] = s;
    s *= shape[d] > 0 ? shape[d] : 1;
  }
}

/* kind 0: C-contiguous; 1: reversed; 2: random order, gaps, flips and broadcast dims.
 * Returns the elements the buffer needs. */
static int64_t make_layout(int kind, int ndim, const int64_t *shape, int64_t *strides,
                           int64_t *offset) {
  int perm[DLX_MAX_NDIM];
  for (int d = 0; d < ndim; d++) perm[d] = d;
  for (int d = ndim - 1; kind == 2 && d > 0; d--) {
    int j = (int)rnd_below(d + 1), t = perm[d];
    perm[d] = perm[j];
    perm[j] = t;
  }
  int64_t step = kind == 2 ? 1 + rnd_below(2) : 1;
  for (int k = ndim - 1; k >= 0; k--) {
    int d = perm[k];
    strides[d] = kind == 2 && rnd_below(5) == 0 ? 0 : step;
    step *= (shape[d] > 0 ? shape[d] : 1) + (kind == 2 ? rnd_below(2) : 0);
  }
  *offset = kind == 2 ? rnd_below(3) : 0;
  int64_t extent = *offset + 1;
  for (int d = 0; d < ndim; d++) {
    if ((kind == 1 || (kind == 2 && rnd_below(3) == 0)) && strides[d] != 0) {
      *offset += (shape[d] > 0 ? shape[d] - 1 : 0) * strides[d];
      strides[d] = -strides[d];
    }
    extent += (shape[d] > 0 ? shape[d] - 1 : 0) * (strides[d] < 0 ? -strides[d] : strides[d]);
  }
  return extent;
}

/* ---- values */

static void put_double(dlx_dtype t, unsigned char *p, double x, double y) {
  float f[2] = {(float)x, (float)y};
  double d[2] = {x, y};
  uint16_t h;
  int64_t i;
  switch (dlx_dtype_kind(t)) {
  case DLX_KIND_BOOL:
    p[0] = x != 0;
    return;
  case DLX_KIND_INT:
  case DLX_KIND_UINT: /* finite values only; NaN gives 0; the low bytes */
    i = isnan(x) ? 0 : (int64_t)x;
    memcpy(p, &i, (size_t)dlx_itemsize(t));
    return;
  default:
    break;
  }
  switch (t) {
  case DLX_FLOAT16:
    h = dlx_double_to_half(x);
    memcpy(p, &h, 2);
    break;
  case DLX_BFLOAT16:
    h = dlx_double_to_bf16(x);
    memcpy(p, &h, 2);
    break;
  case DLX_FLOAT32:
    memcpy(p, f, 4);
    break;
  case DLX_COMPLEX64:
    memcpy(p, f, 8);
    break;
  case DLX_FLOAT64:
    memcpy(p, d, 8);
    break;
  default:
    memcpy(p, d, 16);
    break;
  }
}

/* Part 0 (real) or 1 (imaginary) of the element at p, exactly. */
static long double get_part(dlx_dtype t, const unsigned char *p, int part) {
  int64_t i = 0;
  uint64_t u = 0;
  uint16_t h;
  float f[2];
  double d[2];
  switch (dlx_dtype_kind(t)) {
  case DLX_KIND_BOOL:
    return part == 0 && p[0] != 0;
  case DLX_KIND_INT:
    memcpy(&i, p, (size_t)dlx_itemsize(t));
    i = (int64_t)((uint64_t)i << (64 - 8 * dlx_itemsize(t))) >> (64 - 8 * dlx_itemsize(t));
    return part == 0 ? i : 0;
  case DLX_KIND_UINT:
    memcpy(&u, p, (size_t)dlx_itemsize(t));
    return part == 0 ? u : 0;
  default:
    break;
  }
  switch (t) {
  case DLX_FLOAT16:
    memcpy(&h, p, 2);
    return part == 0 ? dlx_half_to_float(h) : 0;
  case DLX_BFLOAT16:
    memcpy(&h, p, 2);
    return part == 0 ? dlx_bf16_to_float(h) : 0;
  case DLX_FLOAT32:
    memcpy(f, p, 4);
    return part == 0 ? f[0] : 0;
  case DLX_COMPLEX64:
    memcpy(f, p, 8);
    return f[part];
  case DLX_FLOAT64:
    memcpy(d, p, 8);
    return part == 0 ? d[0] : 0;
  default:
    memcpy(d, p, 16);
    return d[part];
  }
}

static uint64_t get_bits(dlx_dtype t, const unsigned char *p) {
  uint64_t u = 0;
  memcpy(&u, p, (size_t)dlx_itemsize(t));
  if (dlx_dtype_kind(t) == DLX_KIND_INT) { /* sign-extend */
    int shift = (int)(64 - 8 * dlx_itemsize(t));
    u = (uint64_t)((int64_t)(u << shift) >> shift);
  }
  if (t == DLX_BOOL) u = u != 0;
  return u;
}

/* Values by op: sums get [-1, 1) (or random integer bits), products stay near +-1, the others
 * get small integers with many ties and zeros, and a few NaNs. */
static void fill_values(dlx_dtype t, dlx_reduce_op op, unsigned char *data, int64_t n) {
  int64_t size = dlx_itemsize(t);
  int integer = dlx_dtype_kind(t) == DLX_KIND_INT || dlx_dtype_kind(t) == DLX_KIND_UINT;
  for (int64_t i = 0; i < n; i++) {
    unsigned char *p = data + i * size;
    if (integer && (op == DLX_REDUCE_SUM || op == DLX_REDUCE_PROD || op == DLX_REDUCE_MEAN)) {
      uint64_t u = rnd() >> (rnd() % 2 ? 0 : 60);
      memcpy(p, &u, (size_t)size);
    } else if (op == DLX_REDUCE_SUM || op == DLX_REDUCE_MEAN) {
      put_double(t, p, 2 * rnd_unit() - 1, 2 * rnd_unit() - 1);
    } else if (op == DLX_REDUCE_PROD) {
      put_double(t, p, (rnd() % 2 ? 1 : -1) * (0.99 + 0.02 * rnd_unit()), 0.02 * rnd_unit() - 0.01);
    } else {
      double lo = dlx_dtype_kind(t) == DLX_KIND_UINT ? 0 : -3;
      double x = lo + (double)rnd_below(7);
      put_double(t, p, rnd_below(60) == 0 ? NAN : x, (double)rnd_below(3) - 1);
    }
  }
  if (t == DLX_BOOL) {
    for (int64_t i = 0; i < n; i++) data[i] = rnd_below(3) == 0 ? 0 : 1 + (uint8_t)rnd_below(2);
  }
}

/* ---- the reference */

static dlx_dtype out_dtype(dlx_reduce_op op, dlx_dtype t) {
  dlx_kind k = dlx_dtype_kind(t);
  int integer = k == DLX_KIND_BOOL || k == DLX_KIND_INT || k == DLX_KIND_UINT;
  switch (op) {
  case DLX_REDUCE_SUM:
  case DLX_REDUCE_PROD:
    return !integer ? t : t == DLX_UINT64 ? DLX_UINT64 : DLX_INT64;
  case DLX_REDUCE_MEAN:
    return integer ? DLX_FLOAT64 : t;
  case DLX_REDUCE_ARGMIN:
  case DLX_REDUCE_ARGMAX:
    return DLX_INT64;
  case DLX_REDUCE_ALL:
  case DLX_REDUCE_ANY:
    return DLX_BOOL;
  default:
    return t;
  }
}

typedef struct expect {
  uint64_t bits;       /* integer sum and product (wrapping) */
  long double re, im;  /* float results; min/max value */
  long double abs_sum; /* sum of |parts|, for the error bound */
  int64_t index;       /* 1-based argmin/argmax */
  int flag;            /* all/any */
  int64_t count;
} expect;

static void take(dlx_reduce_op op, dlx_dtype t, const unsigned char *p, int64_t k, expect *e) {
  long double re = get_part(t, p, 0), im = get_part(t, p, 1), r;
  uint64_t bits = dlx_dtype_kind(t) == DLX_KIND_COMPLEX || dlx_dtype_kind(t) == DLX_KIND_FLOAT
                      ? 0
                      : get_bits(t, p);
  int nonzero = re != 0 || im != 0;
  int min = op == DLX_REDUCE_MIN || op == DLX_REDUCE_ARGMIN;
  switch (op) {
  case DLX_REDUCE_SUM:
  case DLX_REDUCE_MEAN:
    e->bits += bits;
    e->re += re;
    e->im += im;
    e->abs_sum += fabsl(re) + fabsl(im);
    break;
  case DLX_REDUCE_PROD:
    e->bits *= bits;
    r = e->re * re - e->im * im;
    e->im = e->re * im + e->im * re;
    e->re = r;
    break;
  case DLX_REDUCE_ALL:
    e->flag &= nonzero;
    break;
  case DLX_REDUCE_ANY:
    e->flag |= nonzero;
    break;
  default: /* min, max, argmin, argmax: the first NaN wins, then the first extreme */
    if (isnan(e->re)) break;
    if (k == 0 || isnan(re) || (min ? re < e->re : re > e->re)) {
      e->re = re;
      e->index = k + 1;
    }
    break;
  }
}

/* Walks the reduced dims for the output at kept index out_index, row-major. */
static void reference(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims,
                      const int64_t *out_index, expect *e) {
  int64_t index[DLX_MAX_NDIM];
  int ndim = src->ndim;
  memset(e, 0, sizeof *e);
  e->bits = op == DLX_REDUCE_PROD;
  e->re = op == DLX_REDUCE_PROD;
  e->flag = op == DLX_REDUCE_ALL;
  e->count = 1;
  for (int d = 0; d < ndim; d++) {
    index[d] = (dims >> d) & 1 ? 0 : out_index[d];
    if ((dims >> d) & 1) e->count *= src->shape[d];
  }
  int64_t size = dlx_itemsize(src->dtype);
  for (int64_t k = 0; k < e->count; k++) {
    int64_t pos = src->offset;
    for (int d = 0; d < ndim; d++) pos += index[d] * src->strides[d];
    take(op, src->dtype, (const unsigned char *)src->buffer->data + pos * size, k, e);
    for (int d = ndim - 1; d >= 0; d--) {
      if (!((dims >> d) & 1)) continue;
      if (++index[d] < src->shape[d]) break;
      index[d] = 0;
    }
  }
}

static long double unit_roundoff(dlx_dtype t) {
  switch (t) {
  case DLX_FLOAT16:
    return 0x1p-11L;
  case DLX_BFLOAT16:
    return 0x1p-8L;
  case DLX_FLOAT32:
  case DLX_COMPLEX64:
    return 0x1p-24L;
  default:
    return 0x1p-53L;
  }
}

/* The largest finite value and the smallest subnormal of a float output dtype. */
static void output_range(dlx_dtype t, long double *max, long double *tiny) {
  switch (t) {
  case DLX_FLOAT16:
    *max = 65504;
    *tiny = 0x1p-24L;
    return;
  case DLX_BFLOAT16:
    *max = 0x1.fep127L;
    *tiny = 0x1p-133L;
    return;
  case DLX_FLOAT32:
  case DLX_COMPLEX64:
    *max = 0x1.fffffep127L;
    *tiny = 0x1p-149L;
    return;
  default:
    *max = 0x1.fffffffffffffp1023L;
    *tiny = 0x1p-1074L;
    return;
  }
}

/* got is within bound of want, as far as out can hold want: beyond its range (give or take the
 * bound) an infinity is right, and below it the smallest subnormal is the resolution. */
static int close_to(dlx_dtype out, long double got, long double want, long double bound) {
  long double max, tiny;
  output_range(out, &max, &tiny);
  if (isnan(want)) return isnan(got);
  if (isinf(got) && fabsl(want) + bound > max) return (got > 0) == (want > 0);
  if (isinf(want)) return got == want;
  return fabsl(got - want) <= bound + tiny;
}

/* Checks the output element at p against e. */
static int check_output(dlx_reduce_op op, dlx_dtype in, dlx_dtype out, const unsigned char *p,
                        const expect *e) {
  int complex = dlx_dtype_kind(out) == DLX_KIND_COMPLEX;
  long double acc = dlx_dtype_kind(in) == DLX_KIND_COMPLEX || dlx_dtype_kind(in) == DLX_KIND_FLOAT
                        ? unit_roundoff(in == DLX_FLOAT16 || in == DLX_BFLOAT16 ? DLX_FLOAT32 : in)
                        : 0x1p-53L;
  long double rounding = unit_roundoff(out), n = (long double)e->count;
  long double want_re = e->re, want_im = e->im, bound_re, bound_im;
  switch (op) {
  case DLX_REDUCE_ARGMIN:
  case DLX_REDUCE_ARGMAX:
    return get_bits(out, p) == (uint64_t)e->index;
  case DLX_REDUCE_ALL:
  case DLX_REDUCE_ANY:
    return p[0] == e->flag;
  case DLX_REDUCE_MIN:
  case DLX_REDUCE_MAX:
    return isnan(e->re) ? isnan(get_part(out, p, 0)) : get_part(out, p, 0) == e->re;
  default:
    break;
  }
  if (dlx_dtype_kind(out) == DLX_KIND_INT || dlx_dtype_kind(out) == DLX_KIND_UINT)
    return get_bits(out, p) == e->bits;
  if (op == DLX_REDUCE_PROD) {
    bound_re = bound_im = (fabsl(want_re) + fabsl(want_im)) * (rounding + 4 * acc * (n + 2));
  } else {
    long double scale = op == DLX_REDUCE_MEAN ? n : 1;
    if (op == DLX_REDUCE_MEAN) {
      want_re = n > 0 ? want_re / n : NAN;
      want_im = n > 0 ? want_im / n : NAN;
    }
    long double spread = e->abs_sum / (scale > 0 ? scale : 1) * acc * (log2l(n + 1) + 20);
    bound_re = fabsl(want_re) * rounding + spread + 1e-30L;
    bound_im = fabsl(want_im) * rounding + spread + 1e-30L;
  }
  int ok = close_to(out, get_part(out, p, 0), want_re, bound_re);
  if (complex) ok &= close_to(out, get_part(out, p, 1), want_im, bound_im);
  return ok;
}

/* ---- the sweep */

static int sweep_errors;

static int needs_elements(dlx_reduce_op op) {
  return op == DLX_REDUCE_MIN || op == DLX_REDUCE_MAX || op == DLX_REDUCE_ARGMIN ||
         op == DLX_REDUCE_ARGMAX;
}

static void report(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims, const char *what) {
  if (sweep_errors++ >= 10) return;
  fprintf(stderr, "reduce op %d of %s, dims 0x%" PRIx64 ", shape", (int)op,
          dlx_dtype_info_of(src->dtype)->name, dims);
  for (int d = 0; d < src->ndim; d++)
    fprintf(stderr, " %" PRId64 "(%" PRId64 ")", src->shape[d], src->strides[d]);
  fprintf(stderr, ": %s\n", what);
}

static void run_case(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims) {
  int64_t shape[DLX_MAX_NDIM], strides[DLX_MAX_NDIM], count = 1;
  int ndim = src->ndim;
  dlx_dtype out = out_dtype(op, src->dtype);
  int64_t osize = dlx_itemsize(out);
  for (int d = 0; d < ndim; d++) {
    shape[d] = (dims >> d) & 1 ? 1 : src->shape[d];
    if ((dims >> d) & 1) count *= src->shape[d];
  }
  c_strides(ndim, shape, strides);
  int64_t outputs = numel(ndim, shape);
  dlx_buffer *ob = new_buffer((size_t)((outputs > 0 ? outputs : 1) * osize));
  dlx_tensor dst = make_tensor(ob, out, ndim, shape, strides, 0);
  dlx_error err;
  int rc = dlx_cpu_backend.reduce(op, src, dims, &dst, &err);
  int complex = dlx_dtype_kind(src->dtype) == DLX_KIND_COMPLEX;
  if (complex && needs_elements(op)) {
    if (rc != DLX_TYPE_ERROR) report(op, src, dims, "expected a TypeError");
    CHECK_EQ_INT(rc, DLX_TYPE_ERROR);
  } else if (outputs > 0 && count == 0 && needs_elements(op)) {
    if (rc != DLX_VALUE_ERROR) report(op, src, dims, "expected a ValueError");
    CHECK_EQ_INT(rc, DLX_VALUE_ERROR);
  } else {
    CHECK_EQ_INT(rc, 0);
    int64_t index[DLX_MAX_NDIM] = {0};
    for (int64_t o = 0; rc == 0 && o < outputs; o++) {
      expect e;
      reference(op, src, dims, index, &e);
      int ok = check_output(op, src->dtype, out, (unsigned char *)ob->data + o * osize, &e);
      if (!ok) report(op, src, dims, "wrong value");
      CHECK(ok);
      for (int d = ndim - 1; d >= 0; d--) {
        if (++index[d] < shape[d]) break;
        index[d] = 0;
      }
    }
  }
  free_buffer(ob);
}

static const int64_t sweep_shapes[][5] = {{0},          {1, 1},       {1, 7},          {1, 0},
                                          {2, 3, 4},    {2, 4, 1},    {2, 0, 3},       {2, 3, 0},
                                          {3, 2, 3, 5}, {2, 1, 130},  {4, 3, 1, 4, 2}, {1, 257},
                                          {2, 6, 150},  {3, 1, 2, 1}, {2, 1000, 3}};

static void test_sweep(void) {
  for (size_t s = 0; s < sizeof sweep_shapes / sizeof sweep_shapes[0]; s++) {
    int ndim = (int)sweep_shapes[s][0];
    const int64_t *shape = &sweep_shapes[s][1];
    for (int layout = 0; layout < 4; layout++) {
      int64_t strides[DLX_MAX_NDIM], offset;
      int64_t extent = make_layout(layout < 2 ? layout : 2, ndim, shape, strides, &offset);
      for (int t = 0; t < NCOMPUTABLE; t++) {
        for (int op = DLX_REDUCE_SUM; op <= DLX_REDUCE_ANY; op++) {
          dlx_buffer *b = new_buffer((size_t)(extent * dlx_itemsize(t)));
          fill_values(t, op, b->data, extent);
          dlx_tensor src = make_tensor(b, t, ndim, shape, strides, offset);
          for (uint64_t dims = 0; dims < (UINT64_C(1) << ndim); dims++) run_case(op, &src, dims);
          free_buffer(b);
        }
      }
    }
  }
}

/* ---- cases one by one */

/* Reduces a 1-D float64 (or other dtype) array of n values over dim 0 into out. */
static int reduce_1d(dlx_reduce_op op, dlx_dtype t, const double *values, int64_t n,
                     unsigned char *out) {
  dlx_buffer *b = new_buffer((size_t)((n > 0 ? n : 1) * dlx_itemsize(t)));
  dlx_buffer *ob = new_buffer(16);
  int64_t shape[1] = {n}, one[1] = {1}, oshape[1] = {1};
  for (int64_t i = 0; i < n; i++)
    put_double(t, (unsigned char *)b->data + i * dlx_itemsize(t), values[i], 0);
  dlx_tensor src = make_tensor(b, t, 1, shape, one, 0);
  dlx_tensor dst = make_tensor(ob, out_dtype(op, t), 1, oshape, one, 0);
  dlx_error err;
  int rc = dlx_cpu_backend.reduce(op, &src, 1, &dst, &err);
  memcpy(out, ob->data, 16);
  free_buffer(b);
  free_buffer(ob);
  return rc;
}

static double reduce_1d_f64(dlx_reduce_op op, const double *values, int64_t n) {
  unsigned char out[16];
  double d;
  int64_t i;
  CHECK_EQ_INT(reduce_1d(op, DLX_FLOAT64, values, n, out), 0);
  if (op == DLX_REDUCE_ARGMIN || op == DLX_REDUCE_ARGMAX) {
    memcpy(&i, out, 8);
    return (double)i;
  }
  if (op == DLX_REDUCE_ALL || op == DLX_REDUCE_ANY) return out[0];
  memcpy(&d, out, 8);
  return d;
}

static void test_nan_and_indices(void) {
  double a[] = {3, 1, 1, NAN, 0, NAN}, b[] = {3, 1, 1, 0, 0, 7, 7};
  CHECK(isnan(reduce_1d_f64(DLX_REDUCE_MIN, a, 6)));
  CHECK(isnan(reduce_1d_f64(DLX_REDUCE_MAX, a, 6)));
  CHECK(isnan(reduce_1d_f64(DLX_REDUCE_SUM, a, 6)));
  CHECK(reduce_1d_f64(DLX_REDUCE_ARGMIN, a, 6) == 4); /* the first NaN, 1-based */
  CHECK(reduce_1d_f64(DLX_REDUCE_ARGMAX, a, 6) == 4);
  CHECK(reduce_1d_f64(DLX_REDUCE_ARGMIN, b, 7) == 4); /* the first of the ties */
  CHECK(reduce_1d_f64(DLX_REDUCE_ARGMAX, b, 7) == 6);
  CHECK(reduce_1d_f64(DLX_REDUCE_MIN, b, 7) == 0);
  CHECK(reduce_1d_f64(DLX_REDUCE_ANY, a + 3, 1) == 1); /* NaN is true */
  CHECK(reduce_1d_f64(DLX_REDUCE_ALL, b, 7) == 0);
  double inf[] = {INFINITY, -INFINITY};
  CHECK(isnan(reduce_1d_f64(DLX_REDUCE_SUM, inf, 2)));
  double nz[] = {-0.0, -0.0, -0.0};
  double s = reduce_1d_f64(DLX_REDUCE_SUM, nz, 3);
  CHECK(s == 0 && signbit(s));
}

static void test_empty(void) {
  unsigned char out[16];
  double s = reduce_1d_f64(DLX_REDUCE_SUM, NULL, 0);
  CHECK(s == 0 && !signbit(s));
  CHECK(reduce_1d_f64(DLX_REDUCE_PROD, NULL, 0) == 1);
  CHECK(isnan(reduce_1d_f64(DLX_REDUCE_MEAN, NULL, 0)));
  CHECK(reduce_1d_f64(DLX_REDUCE_ALL, NULL, 0) == 1);
  CHECK(reduce_1d_f64(DLX_REDUCE_ANY, NULL, 0) == 0);
  CHECK_EQ_INT(reduce_1d(DLX_REDUCE_MIN, DLX_FLOAT64, NULL, 0, out), DLX_VALUE_ERROR);
  CHECK_EQ_INT(reduce_1d(DLX_REDUCE_ARGMAX, DLX_INT8, NULL, 0, out), DLX_VALUE_ERROR);
  int64_t i;
  CHECK_EQ_INT(reduce_1d(DLX_REDUCE_PROD, DLX_INT16, NULL, 0, out), 0);
  memcpy(&i, out, 8);
  CHECK_EQ_INT(i, 1);
  CHECK_EQ_INT(reduce_1d(DLX_REDUCE_MEAN, DLX_UINT8, NULL, 0, out), 0);
  double m;
  memcpy(&m, out, 8);
  CHECK(isnan(m));
}

/* No outputs: nothing is read or written, even when the reduced dims' product overflows. */
static void test_no_outputs(void) {
  dlx_buffer none = {.data = NULL, .nbytes = 0, .device = {kDLCPU, 0}};
  int64_t shape[3] = {0, INT64_C(1) << 40, INT64_C(1) << 40}, zero[3] = {0, 0, 0};
  int64_t oshape[3] = {0, 1, 1};
  dlx_tensor src = make_tensor(&none, DLX_FLOAT32, 3, shape, zero, 0);
  dlx_tensor dst = make_tensor(&none, DLX_FLOAT32, 3, oshape, zero, 0);
  dlx_error err;
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_SUM, &src, 6, &dst, &err), 0);
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_MIN, &src, 6, &dst, &err), 0);
}

/* Foreign memory need not be aligned. */
static void test_misaligned(void) {
  dlx_buffer *b = new_buffer(8 * 64 + 1), *ob = new_buffer(9);
  dlx_buffer in = *b, out = *ob;
  in.data = (char *)b->data + 1;
  out.data = (char *)ob->data + 1;
  for (int i = 0; i < 64; i++) {
    double x = i;
    memcpy((char *)in.data + 8 * i, &x, 8);
  }
  int64_t shape[1] = {64}, one[1] = {1};
  dlx_tensor src = make_tensor(&in, DLX_FLOAT64, 1, shape, one, 0);
  dlx_tensor dst = make_tensor(&out, DLX_FLOAT64, 1, one, one, 0);
  dlx_error err;
  double got;
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_SUM, &src, 1, &dst, &err), 0);
  memcpy(&got, out.data, 8);
  CHECK(got == 2016);
  dst.dtype = DLX_INT64;
  int64_t index;
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_ARGMAX, &src, 1, &dst, &err), 0);
  memcpy(&index, out.data, 8);
  CHECK(index == 64);
  free_buffer(b);
  free_buffer(ob);
}

static void test_integers(void) {
  unsigned char out[16];
  int64_t i;
  uint64_t u;
  double m;
  /* int64 sums wrap in two's complement */
  dlx_buffer *b = new_buffer(32), *ob = new_buffer(8);
  int64_t shape[1] = {2}, one[1] = {1}, oshape[1] = {1}, vals[2] = {INT64_MAX, 1};
  memcpy(b->data, vals, 16);
  dlx_tensor src = make_tensor(b, DLX_INT64, 1, shape, one, 0);
  dlx_tensor dst = make_tensor(ob, DLX_INT64, 1, oshape, one, 0);
  dlx_error err;
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_SUM, &src, 1, &dst, &err), 0);
  memcpy(&i, ob->data, 8);
  CHECK(i == INT64_MIN);
  uint64_t uvals[2] = {UINT64_MAX, 2};
  memcpy(b->data, uvals, 16);
  src.dtype = DLX_UINT64;
  dst.dtype = DLX_UINT64;
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_SUM, &src, 1, &dst, &err), 0);
  memcpy(&u, ob->data, 8);
  CHECK(u == 1);
  dst.dtype = DLX_INT64; /* the wrong output dtype is refused */
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_SUM, &src, 1, &dst, &err), DLX_TYPE_ERROR);
  free_buffer(b);
  free_buffer(ob);

  double p[3] = {65536, 65536, 65536}; /* int32 products accumulate in 64 bits */
  CHECK_EQ_INT(reduce_1d(DLX_REDUCE_PROD, DLX_INT32, p, 3, out), 0);
  memcpy(&i, out, 8);
  CHECK(i == INT64_C(1) << 48);
  double q[4] = {4611686018427387904.0, 4611686018427387904.0, 4611686018427387904.0,
                 4611686018427387904.0};
  CHECK_EQ_INT(reduce_1d(DLX_REDUCE_MEAN, DLX_INT64, q, 4, out), 0);
  memcpy(&m, out, 8);
  CHECK(m == 4611686018427387904.0); /* a mean does not wrap */
  double bools[3] = {1, 0, 1};
  CHECK_EQ_INT(reduce_1d(DLX_REDUCE_MIN, DLX_BOOL, bools, 3, out), 0);
  CHECK(out[0] == 0);
  CHECK_EQ_INT(reduce_1d(DLX_REDUCE_MAX, DLX_BOOL, bools, 3, out), 0);
  CHECK(out[0] == 1);
  CHECK_EQ_INT(reduce_1d(DLX_REDUCE_SUM, DLX_BOOL, bools, 3, out), 0);
  memcpy(&i, out, 8);
  CHECK(i == 2);
}

static void test_complex_and_half(void) {
  unsigned char out[16];
  float c[2];
  dlx_buffer *b = new_buffer(16), *ob = new_buffer(8);
  float in[4] = {1, 2, 3, 4}; /* (1+2i)(3+4i) = -5+10i */
  int64_t shape[1] = {2}, one[1] = {1}, oshape[1] = {1};
  memcpy(b->data, in, 16);
  dlx_tensor src = make_tensor(b, DLX_COMPLEX64, 1, shape, one, 0);
  dlx_tensor dst = make_tensor(ob, DLX_COMPLEX64, 1, oshape, one, 0);
  dlx_error err;
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_PROD, &src, 1, &dst, &err), 0);
  memcpy(c, ob->data, 8);
  CHECK(c[0] == -5 && c[1] == 10);
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_MEAN, &src, 1, &dst, &err), 0);
  memcpy(c, ob->data, 8);
  CHECK(c[0] == 2 && c[1] == 3);
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_MAX, &src, 1, &dst, &err), DLX_TYPE_ERROR);
  free_buffer(b);
  free_buffer(ob);

  /* float16 accumulates in float32: 3000 ones would stall at 2048 in float16 */
  double *ones = malloc(3000 * sizeof *ones);
  for (int k = 0; k < 3000; k++) ones[k] = 1;
  uint16_t h;
  CHECK_EQ_INT(reduce_1d(DLX_REDUCE_SUM, DLX_FLOAT16, ones, 3000, out), 0);
  memcpy(&h, out, 2);
  CHECK(dlx_half_to_float(h) == 3000.0f);
  CHECK_EQ_INT(reduce_1d(DLX_REDUCE_SUM, DLX_BFLOAT16, ones, 3000, out), 0);
  memcpy(&h, out, 2);
  CHECK(dlx_bf16_to_float(h) == 3008.0f); /* 3000 rounded to bfloat16's 8 bits */
  free(ones);
}

/* float32 sums of 2^22 values 0.1f: contiguous (one run), then with a gap after each row of
 * 2048 (2048 runs whose partial sums are combined pairwise too). */
static void test_accuracy(void) {
  const int64_t side = 2048, n = side * side;
  dlx_buffer *b = new_buffer((size_t)(side * (side + 1)) * 4), *ob = new_buffer(4);
  for (int64_t i = 0; i < side * (side + 1); i++) ((float *)b->data)[i] = 0.1f;
  double exact = (double)0.1f * (double)n;
  int64_t flat[1] = {n}, one[1] = {1}, shape[2] = {side, side}, gapped[2] = {side + 1, 1};
  int64_t oshape[2] = {1, 1}, ostrides[2] = {1, 1};
  float got;
  dlx_error err;
  dlx_tensor src = make_tensor(b, DLX_FLOAT32, 1, flat, one, 0);
  dlx_tensor dst = make_tensor(ob, DLX_FLOAT32, 1, oshape, ostrides, 0);
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_SUM, &src, 1, &dst, &err), 0);
  memcpy(&got, ob->data, 4);
  printf("float32 sum of 2^22 x 0.1f, one run: relative error %.2e\n", fabs(got - exact) / exact);
  CHECK(fabs(got - exact) / exact < 1e-6);
  src = make_tensor(b, DLX_FLOAT32, 2, shape, gapped, 0);
  dst = make_tensor(ob, DLX_FLOAT32, 2, oshape, ostrides, 0);
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_SUM, &src, 3, &dst, &err), 0);
  memcpy(&got, ob->data, 4);
  printf("float32 sum of 2^22 x 0.1f, 2048 runs: relative error %.2e\n", fabs(got - exact) / exact);
  CHECK(fabs(got - exact) / exact < 1e-6);
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_MEAN, &src, 3, &dst, &err), 0);
  memcpy(&got, ob->data, 4);
  CHECK(fabs(got - 0.1) < 1e-7);
  free_buffer(b);
  free_buffer(ob);
}

/* argmax over one dim of a 2-D tensor, and over a transposed view (flattened row-major). */
static void test_arg_dims(void) {
  dlx_buffer *b = new_buffer(6 * 8), *ob = new_buffer(3 * 8);
  double v[6] = {1, 5, 5, 7, 7, 2}; /* [[1, 5, 5], [7, 7, 2]] */
  int64_t shape[2] = {2, 3}, strides[2] = {3, 1}, oshape[2] = {2, 1}, ostrides[2] = {1, 1};
  int64_t got[3];
  dlx_error err;
  memcpy(b->data, v, sizeof v);
  dlx_tensor src = make_tensor(b, DLX_FLOAT64, 2, shape, strides, 0);
  dlx_tensor dst = make_tensor(ob, DLX_INT64, 2, oshape, ostrides, 0);
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_ARGMAX, &src, 2, &dst, &err), 0);
  memcpy(got, ob->data, 16);
  CHECK(got[0] == 2 && got[1] == 1);
  int64_t tshape[2] = {3, 2}, tstrides[2] = {1, 3}, one[2] = {1, 1};
  src = make_tensor(b, DLX_FLOAT64, 2, tshape, tstrides, 0); /* [[1, 7], [5, 7], [5, 2]] */
  dst = make_tensor(ob, DLX_INT64, 2, one, one, 0);
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_ARGMAX, &src, 3, &dst, &err), 0);
  memcpy(got, ob->data, 8);
  CHECK(got[0] == 2);
  CHECK_EQ_INT(dlx_cpu_backend.reduce(DLX_REDUCE_ARGMIN, &src, 3, &dst, &err), 0);
  memcpy(got, ob->data, 8);
  CHECK(got[0] == 1);
  free_buffer(b);
  free_buffer(ob);
}

int main(void) {
  rnd_seed("test_cpu_reduce", UINT64_C(0xD1B54A32D192ED03));
  test_sweep();
  test_nan_and_indices();
  test_empty();
  test_no_outputs();
  test_misaligned();
  test_integers();
  test_complex_and_half();
  test_accuracy();
  test_arg_dims();
  return check_report("test_cpu_reduce");
}
