/* test_cpu_paths.c -- the fast paths of the CPU kernels, each against a simple reference:
 * blocked transposes (every item size, odd and permuted shapes, flipped and sliced sources,
 * zero-size and size-1 dims, the streamed large case), casts through scratch chunks (every
 * dtype pair, strided and reversed operands), long pairwise sums against float64, column sums
 * (sum and mean over outer axes), and the branch-free min/max/argmin/argmax (NaN, infinities,
 * ties, piece and chunk boundaries, every dtype). Every case also runs on 1 and on 2 threads,
 * which must give bit-identical results. Data is random (fixed seed, printed). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/core.h"
#include "cpu/cast_loops.h"
#include "cpu/parallel.h"
#include "cpu_test_util.h"

#define NCOMPUTABLE (DLX_COMPLEX128 + 1)

static int64_t itemsize(dlx_dtype t) { return dlx_itemsize(t); }

/* Random bytes, except that floats get finite values (so that == comparisons mean something)
 * and bools 0 or 1. */
static void fill_random(dlx_buffer *b, dlx_dtype t, int64_t n) {
  char *p = b->data;
  for (int64_t i = 0; i < n * itemsize(t); i++) p[i] = (char)rnd();
  for (int64_t i = 0; i < n; i++) {
    char *q = p + i * itemsize(t);
    double v = (rnd_unit() - 0.5) * 1000;
    float f = (float)v;
    uint16_t h = (uint16_t)(0x3c00u + (rnd() & 0x83ffu)); /* finite half and bfloat16, +-[1, 2) */
    switch (t) {
    case DLX_BOOL:
      *q = (char)(rnd() & 1);
      break;
    case DLX_FLOAT16:
    case DLX_BFLOAT16:
      memcpy(q, &h, 2);
      break;
    case DLX_FLOAT32:
    case DLX_COMPLEX64:
      memcpy(q, &f, 4);
      if (t == DLX_COMPLEX64) memcpy(q + 4, &f, 4);
      break;
    case DLX_FLOAT64:
    case DLX_COMPLEX128:
      memcpy(q, &v, 8);
      if (t == DLX_COMPLEX128) memcpy(q + 8, &v, 8);
      break;
    default:
      break;
    }
  }
}

/* Byte offset of a row-major flat index in a view. */
static int64_t element_offset(const dlx_tensor *t, int64_t flat) {
  int64_t pos = t->offset;
  for (int d = t->ndim - 1; d >= 0; d--) {
    pos += flat % t->shape[d] * t->strides[d];
    flat /= t->shape[d];
  }
  return pos * itemsize(t->dtype);
}

static const char *element(const dlx_tensor *t, int64_t flat) {
  return (const char *)t->buffer->data + element_offset(t, flat);
}

/* ---- copies: a permuted, flipped or sliced view of a contiguous source */

/* src: a view of a fresh buffer with shape base permuted by perm, dims in flip reversed and the
 * last dim taken with step `step`. Returns the buffer. */
static dlx_buffer *make_source(dlx_tensor *src, dlx_dtype t, int ndim, const int64_t *base,
                               const int *perm, unsigned flip, int step) {
  int64_t strides[DLX_MAX_NDIM], shape[DLX_MAX_NDIM], s = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    strides[d] = s;
    s *= base[d] > 0 ? base[d] : 1;
  }
  dlx_buffer *b = new_buffer((size_t)(s * itemsize(t)));
  fill_random(b, t, s);
  dlx_tensor full = make_tensor(b, t, ndim, base, strides, 0);
  for (int d = 0; d < ndim; d++) {
    shape[d] = base[perm[d]];
    src->strides[d] = full.strides[perm[d]];
  }
  *src = make_tensor(b, t, ndim, shape, src->strides, 0);
  for (int d = 0; d < ndim; d++) {
    if (((flip >> d) & 1) && src->shape[d] > 0) {
      src->offset += (src->shape[d] - 1) * src->strides[d];
      src->strides[d] = -src->strides[d];
    }
  }
  if (step > 1 && ndim > 0) {
    src->shape[ndim - 1] = (src->shape[ndim - 1] + step - 1) / step;
    src->strides[ndim - 1] *= step;
  }
  return b;
}

/* Copies src into a fresh contiguous tensor of dtype t on the current thread count, checks every
 * element against `check(dst element, src element)` and returns the buffer. */
typedef int (*element_check)(const char *got, const char *from, dlx_dtype to, dlx_dtype from_type);

static int same_bytes(const char *got, const char *from, dlx_dtype to, dlx_dtype from_type) {
  (void)from_type;
  return memcmp(got, from, (size_t)itemsize(to)) == 0;
}

/* The cast of one element through the 1-D loop with n = 1: the reference for chunked casts. */
static int same_as_single_cast(const char *got, const char *from, dlx_dtype to,
                               dlx_dtype from_type) {
  char want[16];
  dlx_cpu_cast_loop(from_type, to)(want, 0, from, 0, 1);
  return memcmp(got, want, (size_t)itemsize(to)) == 0;
}

static dlx_buffer *copy_and_check(const dlx_tensor *src, dlx_dtype t, element_check check,
                                  int *ok) {
  int64_t strides[DLX_MAX_NDIM], s = 1, n = numel(src->ndim, src->shape);
  for (int d = src->ndim - 1; d >= 0; d--) {
    strides[d] = s;
    s *= src->shape[d] > 0 ? src->shape[d] : 1;
  }
  dlx_buffer *b = new_buffer((size_t)((n > 0 ? n : 1) * itemsize(t)));
  dlx_tensor dst = make_tensor(b, t, src->ndim, src->shape, strides, 0);
  dlx_error err;
  *ok = dlx_cpu_backend.copy(&dst, src, &err) == 0;
  for (int64_t i = 0; *ok && i < n; i++) {
    if (!check(element(&dst, i), element(src, i), t, src->dtype)) *ok = 0;
  }
  return b;
}

/* Copies on 1 and on 2 threads; both must pass the check and agree byte for byte. */
static void check_copy_threads(const dlx_tensor *src, dlx_dtype t, element_check check,
                               const char *what) {
  int ok1, ok2;
  dlx_cpu_set_num_threads(1);
  dlx_buffer *one = copy_and_check(src, t, check, &ok1);
  dlx_cpu_set_num_threads(2);
  dlx_buffer *two = copy_and_check(src, t, check, &ok2);
  dlx_cpu_set_num_threads(0);
  CHECK(ok1 && ok2);
  CHECK(memcmp(one->data, two->data, one->nbytes) == 0);
  if (!(ok1 && ok2)) fprintf(stderr, "  copy failed: %s, %s\n", what, dlx_dtype_info_of(t)->name);
  free_buffer(one);
  free_buffer(two);
}

static void test_transposes(void) {
  static const dlx_dtype types[] = {DLX_UINT8, DLX_FLOAT16, DLX_FLOAT32, DLX_FLOAT64,
                                    DLX_COMPLEX128};
  static const int64_t sizes[] = {0, 1, 7, 8, 9, 63, 64, 65, 130, 257};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    for (int trial = 0; trial < 12; trial++) { /* 2-D: transposed, maybe flipped or sliced */
      int64_t base[2] = {sizes[rnd_below(10)], sizes[rnd_below(10)]};
      int perm[2] = {1, 0};
      dlx_tensor src;
      dlx_buffer *b = make_source(&src, types[k], 2, base, perm, (unsigned)rnd_below(4),
                                  trial % 3 == 2 ? 2 : 1);
      check_copy_threads(&src, types[k], same_bytes, "2-D transpose");
      free_buffer(b);
    }
    for (int trial = 0; trial < 6; trial++) { /* 3-D and 4-D permutations with size-1 dims */
      static const int perms[6][4] = {{2, 0, 1, 3}, {3, 1, 2, 0}, {1, 2, 0, 3},
                                      {0, 3, 1, 2}, {3, 2, 1, 0}, {2, 3, 0, 1}};
      int64_t base[4] = {sizes[1 + rnd_below(7)], sizes[1 + rnd_below(7)], 1 + rnd_below(5),
                         trial % 2 == 0 ? 1 : 9};
      dlx_tensor src;
      dlx_buffer *b =
          make_source(&src, types[k], 4, base, perms[trial], (unsigned)rnd_below(16), 1);
      check_copy_threads(&src, types[k], same_bytes, "4-D permutation");
      free_buffer(b);
    }
  }
  /* Large enough (64 MiB) for non-temporal stores; odd widths leave most dst rows unaligned,
   * which go out with ordinary stores. */
  int64_t big[2] = {4097, 4099};
  int perm[2] = {1, 0};
  dlx_tensor src;
  dlx_buffer *b = make_source(&src, DLX_FLOAT32, 2, big, perm, 0, 1);
  check_copy_threads(&src, DLX_FLOAT32, same_bytes, "large transpose");
  free_buffer(b);
}

static void test_chunked_casts(void) {
  static const int64_t lengths[] = {1, 511, 512, 513, 1300};
  for (int s = 0; s < NCOMPUTABLE; s++) {
    for (int d = 0; d < NCOMPUTABLE; d++) {
      if (s == d) continue;
      int64_t n = lengths[rnd_below(5)];
      int64_t base[2] = {3, n};
      int perm[2] = {0, 1};
      dlx_tensor src;
      /* reversed rows and every other element: both operands strided after the copy's prep */
      dlx_buffer *b = make_source(&src, (dlx_dtype)s, 2, base, perm, 3, 2);
      check_copy_threads(&src, (dlx_dtype)d, same_as_single_cast, "strided cast");
      src.shape[1] = 1; /* and a size-1 dim */
      check_copy_threads(&src, (dlx_dtype)d, same_as_single_cast, "strided cast, size 1");
      free_buffer(b);
    }
  }
  /* A transposed cast: the source walks fastest along the other dim. */
  int64_t base[2] = {300, 70};
  int perm[2] = {1, 0};
  dlx_tensor src;
  dlx_buffer *b = make_source(&src, DLX_FLOAT64, 2, base, perm, 1, 1);
  check_copy_threads(&src, DLX_BFLOAT16, same_as_single_cast, "transposed cast");
  free_buffer(b);
}

/* ---- reductions */

/* out = op over dims of src, on 1 and on 2 threads; the results must agree byte for byte.
 * Returns the 1-thread result (the caller closes it). */
static dlx_tensor reduce_threads(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims) {
  dlx_tensor one, two;
  dlx_error err;
  dlx_cpu_set_num_threads(1);
  int rc1 = dlx_reduce(&one, op, src, dims, false, &err);
  dlx_cpu_set_num_threads(2);
  int rc2 = dlx_reduce(&two, op, src, dims, false, &err);
  dlx_cpu_set_num_threads(0);
  CHECK(rc1 == 0 && rc2 == 0);
  CHECK(memcmp(one.buffer->data, two.buffer->data, (size_t)dlx_tensor_nbytes(&one)) == 0);
  dlx_tensor_close(&two);
  return one;
}

/* The element at p as a double, through the cast loop (exact for every float type). */
static double as_double(const char *p, dlx_dtype t) {
  double d;
  dlx_cpu_cast_loop(t, DLX_FLOAT64)((char *)&d, 0, p, 0, 1);
  return d;
}

/* Unit roundoff of the dtype a float sum is stored in. */
static double unit_roundoff(dlx_dtype t) {
  return t == DLX_FLOAT16    ? 0x1p-11
         : t == DLX_BFLOAT16 ? 0x1p-8
         : t == DLX_FLOAT32  ? 0x1p-24
                             : 0x1p-53;
}

static void test_long_sums(void) {
  static const dlx_dtype types[] = {DLX_FLOAT16, DLX_BFLOAT16, DLX_FLOAT32, DLX_FLOAT64};
  int64_t n = 600001; /* more than 8 pieces of 65536: summed in parallel on 2 threads */
  for (int k = 0; k < 4; k++) {
    dlx_tensor src;
    int perm[1] = {0};
    dlx_buffer *b = make_source(&src, types[k], 1, &n, perm, 0, 1);
    double want = 0, mag = 0;
    for (int64_t i = 0; i < n; i++) {
      double v = as_double(element(&src, i), types[k]);
      want += v;
      mag += fabs(v);
    }
    dlx_tensor out = reduce_threads(DLX_REDUCE_SUM, &src, 1);
    double got = as_double(out.buffer->data, types[k]);
    /* the result's rounding, plus the wide-block pairwise bound u * (64 + log2 n) * sum|x| in
     * the accumulator's precision (float32 for the half types) */
    double acc_u = types[k] == DLX_FLOAT64 ? 0x1p-53 : 0x1p-24;
    CHECK(fabs(got - want) <= 2 * unit_roundoff(types[k]) * fabs(want) + 100 * acc_u * mag);
    dlx_tensor_close(&out);
    free_buffer(b);
  }
  /* uniform [0, 1) float32, where a naive float loop would be far off */
  float *p = malloc((size_t)n * sizeof *p);
  double want = 0;
  for (int64_t i = 0; i < n; i++) want += p[i] = (float)rnd_unit();
  dlx_buffer *b = new_buffer((size_t)n * 4);
  memcpy(b->data, p, (size_t)n * 4);
  int64_t stride = 1;
  dlx_tensor src = make_tensor(b, DLX_FLOAT32, 1, &n, &stride, 0);
  dlx_tensor out = reduce_threads(DLX_REDUCE_SUM, &src, 1);
  CHECK(fabs(*(float *)out.buffer->data - want) <= 1e-6 * want);
  dlx_tensor_close(&out);
  free_buffer(b);
  free(p);
}

/* Sums and means over the outer dims (the outputs contiguous in src) against float64. */
static void test_column_sums(void) {
  static const dlx_dtype types[] = {DLX_FLOAT16, DLX_BFLOAT16, DLX_FLOAT32, DLX_FLOAT64};
  static const int64_t shapes[][3] = {{150, 2, 4100}, {37, 5, 3}, {1, 9, 2},
                                      {0, 7, 3},      {17, 0, 2}, {9, 1, 1}};
  for (int k = 0; k < 4; k++) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      for (int op = 0; op < 2; op++) {
        dlx_reduce_op rop = op == 0 ? DLX_REDUCE_SUM : DLX_REDUCE_MEAN;
        int perm[3] = {0, 1, 2}; /* reduce dims 0 and 1: the outputs (dim 2) are contiguous */
        dlx_tensor src;
        dlx_buffer *b = make_source(&src, types[k], 3, shapes[s], perm, (unsigned)(k & 1), 1);
        dlx_tensor out = reduce_threads(rop, &src, 3);
        int64_t rows = src.shape[0] * src.shape[1], cols = src.shape[2];
        int ok = 1;
        for (int64_t j = 0; j < cols; j++) {
          double want = 0, mag = 0;
          for (int64_t r = 0; r < rows; r++) {
            double v = as_double(element(&src, r * cols + j), types[k]);
            want += v;
            mag += fabs(v);
          }
          if (rop == DLX_REDUCE_MEAN) {
            want = rows > 0 ? want / (double)rows : NAN;
            mag = rows > 0 ? mag / (double)rows : 0;
          }
          double got = as_double((const char *)out.buffer->data + j * itemsize(types[k]), types[k]);
          double tol = 2 * unit_roundoff(types[k]) * (fabs(want) + mag) + 1e-6 * mag;
          if (isnan(want) ? !isnan(got) : !(fabs(got - want) <= tol)) ok = 0;
        }
        CHECK(ok);
        dlx_tensor_close(&out);
        free_buffer(b);
      }
    }
  }
}

/* Writes the value v (a NaN, an infinity or a copy of another element) at element i. */
static void put(dlx_tensor *t, int64_t i, double v) {
  dlx_scalar s = {.kind = DLX_KIND_FLOAT, .v.f = v};
  dlx_tensor one = *t;
  dlx_error err;
  one.ndim = 0;
  one.offset = element_offset(t, i) / itemsize(t->dtype);
  CHECK(dlx_cpu_backend.fill(&one, &s, &err) == 0);
}

/* The reference: the first position of the extreme, NaN counting as the most extreme. */
static int64_t first_extreme(const dlx_tensor *t, int64_t n, bool is_max) {
  int64_t at = 0;
  double best = as_double(element(t, 0), t->dtype);
  for (int64_t i = 0; i < n && !isnan(best); i++) {
    double v = as_double(element(t, i), t->dtype);
    if (isnan(v) || (is_max ? v > best : v < best)) {
      best = v;
      at = i;
    }
  }
  return at;
}

static void check_extremes(dlx_tensor *src, int64_t n) {
  for (int m = 0; m < 2; m++) {
    bool is_max = m == 1;
    int64_t want = first_extreme(src, n, is_max);
    dlx_tensor value = reduce_threads(is_max ? DLX_REDUCE_MAX : DLX_REDUCE_MIN, src, 1);
    dlx_tensor index = reduce_threads(is_max ? DLX_REDUCE_ARGMAX : DLX_REDUCE_ARGMIN, src, 1);
    int64_t got = *(int64_t *)index.buffer->data - 1;
    CHECK_EQ_INT(got, want);
    CHECK(memcmp(value.buffer->data, element(src, want), (size_t)itemsize(src->dtype)) == 0);
    dlx_tensor_close(&value);
    dlx_tensor_close(&index);
  }
}

static void test_extremes(void) {
  static const int64_t lengths[] = {1, 15, 16, 17, 4095, 4096, 4097, 65537, 600001};
  for (int t = 0; t < NCOMPUTABLE; t++) {
    if (t == DLX_COMPLEX64 || t == DLX_COMPLEX128) continue;
    bool is_float = dlx_dtype_kind((dlx_dtype)t) == DLX_KIND_FLOAT;
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
      int64_t n = lengths[k];
      int perm[1] = {0};
      dlx_tensor src;
      dlx_buffer *b = make_source(&src, (dlx_dtype)t, 1, &n, perm, 0, 1);
      check_extremes(&src, n);
      /* ties: the extremes copied to a later position must not move the answer */
      memcpy((char *)b->data + element_offset(&src, n - 1),
             element(&src, first_extreme(&src, n, true)), (size_t)itemsize((dlx_dtype)t));
      check_extremes(&src, n);
      if (is_float) {
        put(&src, rnd_below(n), INFINITY);
        put(&src, rnd_below(n), -INFINITY);
        check_extremes(&src, n);
        put(&src, n - 1 - rnd_below(n < 20 ? n : 20), NAN); /* in the tail */
        check_extremes(&src, n);
        put(&src, rnd_below(n), NAN);
        check_extremes(&src, n);
      }
      src.strides[0] = -1; /* reversed: the strided path */
      src.offset = n - 1;
      check_extremes(&src, n);
      free_buffer(b);
    }
  }
}

int main(void) {
  rnd_seed("test_cpu_paths", UINT64_C(0x9E3779B97F4A7C15));
  test_transposes();
  test_chunked_casts();
  test_long_sums();
  test_column_sums();
  test_extremes();
  return check_report("test_cpu_paths");
}
