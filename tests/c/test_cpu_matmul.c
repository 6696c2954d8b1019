/* test_cpu_matmul.c -- the CPU's fixed-size kernels for batches of 3 x 3, 4 x 4 and 6 x 6
 * products (src/cpu/matmul_fixed.c) against the own loops (src/cpu/matmul_small.c), on every ISA
 * this CPU has: the same bits (any NaN for a NaN), on values with zeros of both signs,
 * infinities, NaN, subnormals and products that overflow, for packed, gapped, broadcast (batch
 * stride 0), transposed and padded operands and results, over ranges that start and end anywhere,
 * each operand in a buffer that ends where its last element ends (ASan sees a read past it), and
 * nothing written outside c's elements; and which requests the kernels take. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cpu/matmul.h"
#include "cpu_test_util.h"

#define BATCH 37
#define LAYOUTS 4

static const char *const isas[] = {"portable", "avx2", "avx512"};
static const int64_t sizes[] = {3, 4, 6};

/* A value of every kind a product meets, mostly plain ones. */
static double test_value(void) {
  static const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-310, -3e38, 1e200};
  if (rnd_below(8) == 0) return special[rnd_below(8)];
  return (rnd_unit() - 0.5) * 8;
}

static void fill(dlx_buffer *buf, dlx_dtype dtype, int64_t count) {
  for (int64_t i = 0; i < count; i++) {
    double v = test_value();
    if (dtype == DLX_FLOAT32)
      ((float *)buf->data)[i] = (float)v;
    else
      ((double *)buf->data)[i] = v;
  }
}

static bool same_value(const dlx_buffer *x, const dlx_buffer *y, dlx_dtype dtype, int64_t i) {
  if (dtype == DLX_FLOAT32) {
    float u = ((const float *)x->data)[i], v = ((const float *)y->data)[i];
    return memcmp(&u, &v, sizeof u) == 0 || (isnan(u) && isnan(v));
  }
  double u = ((const double *)x->data)[i], v = ((const double *)y->data)[i];
  return memcmp(&u, &v, sizeof u) == 0 || (isnan(u) && isnan(v));
}

/* An operand's place: offset, strides of a row, a column and a batch element. */
typedef struct place {
  int64_t offset, rs, cs, bs;
} place;

/* The elements a buffer needs for an operand at p (the last element's last value included). */
static int64_t extent(place p, int64_t n) {
  return p.offset + (BATCH - 1) * p.bs + (n - 1) * (p.rs + p.cs) + 1;
}

static dlx_matrix_operand operand(const dlx_buffer *buf, place p) {
  dlx_matrix_operand o = {buf, p.offset, p.rs, p.cs, p.bs, false};
  return o;
}

static dlx_matmul_request request(dlx_dtype dtype, int64_t n) {
  dlx_matmul_request r;
  memset(&r, 0, sizeof r);
  r.dtype = dtype;
  r.batch = BATCH;
  r.m = r.n = r.k = n;
  r.alpha.kind = r.beta.kind = DLX_KIND_FLOAT;
  r.alpha.v.f = 1;
  return r;
}

/* The places of a, b and c in each layout: 0, packed batches; 1, a with gaps and an offset, b
 * one matrix for every element, c with gaps; 2, a transposed, b with padded rows, c transposed;
 * 3, a column-major with padded columns, b transposed and broadcast, c with padded rows. */
static void places(int layout, int64_t n, place p[3]) {
  int64_t nn = n * n;
  place packed = {0, n, 1, nn};
  p[0] = p[1] = p[2] = packed;
  if (layout == 1) {
    p[0] = (place){5, n, 1, nn + 5};
    p[1] = (place){3, n, 1, 0};
    p[2] = (place){2, n, 1, nn + 8};
  } else if (layout == 2) {
    p[0] = (place){0, 1, n, nn};
    p[1] = (place){1, n + 2, 1, n * (n + 2)};
    p[2] = (place){0, 1, n, nn + 1};
  } else if (layout == 3) {
    p[0] = (place){0, 1, n + 1, n * (n + 1)};
    p[1] = (place){0, 1, n, 0};
    p[2] = (place){0, n + 3, 1, n * (n + 3)};
  }
}

static const char *dtype_name(dlx_dtype dtype) {
  return dtype == DLX_FLOAT32 ? "float32" : "float64";
}

/* Every kernel of size n against the own loops in one layout: the whole of c's buffer (its
 * gaps too) must hold the same bits. */
static void test_kernels(dlx_dtype dtype, int64_t n, int layout) {
  size_t item = dtype == DLX_FLOAT32 ? 4 : 8;
  place p[3];
  places(layout, n, p);
  int64_t na = extent(p[0], n), nb = extent(p[1], n), nc = extent(p[2], n);
  dlx_buffer *a = new_buffer((size_t)na * item), *b = new_buffer((size_t)nb * item);
  dlx_buffer *want = new_buffer((size_t)nc * item), *got = new_buffer((size_t)nc * item);
  fill(a, dtype, na);
  fill(b, dtype, nb);
  fill(want, dtype, nc);
  dlx_matmul_request r = request(dtype, n);
  r.a = operand(a, p[0]);
  r.b = operand(b, p[1]);
  r.c = operand(got, p[2]);
  memcpy(got->data, want->data, (size_t)nc * item);
  dlx_matmul_request own_r = r;
  own_r.c.buffer = want;
  dlx_cpu_product_fn own = dlx_cpu_small_product(dtype);
  for (int64_t i = 0; i < BATCH; i++) own(&own_r, i);
  void *before = malloc((size_t)nc * item);
  memcpy(before, got->data, (size_t)nc * item);
  for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++) {
    dlx_cpu_batch_fn fn = dlx_cpu_fixed_batch_isa(&r, isas[k]);
    if (fn == NULL) { /* not on this CPU */
      CHECK(strcmp(isas[k], "portable") != 0);
      continue;
    }
    memcpy(got->data, before, (size_t)nc * item);
    int64_t cut = 1 + rnd_below(BATCH - 1);
    fn(&r, 0, cut);
    fn(&r, cut, BATCH);
    int64_t differ = 0;
    for (int64_t e = 0; e < nc; e++) differ += !same_value(want, got, dtype, e);
    if (differ != 0)
      printf("  %s %s %lldx%lld, layout %d: %lld values differ from the own loops\n", isas[k],
             dtype_name(dtype), (long long)n, (long long)n, layout, (long long)differ);
    CHECK_EQ_INT(differ, 0);
  }
  free(before);
  free_buffer(a);
  free_buffer(b);
  free_buffer(want);
  free_buffer(got);
}

/* Which requests the kernels take: square 3, 4 and 6 float32 and float64 products of alpha 1
 * and beta 0 in any layout; the own loops keep the rest. */
static void test_takes(void) {
  dlx_buffer *buf = new_buffer(64 * 8);
  place packed = {0, 4, 1, 16};
  dlx_matmul_request r = request(DLX_FLOAT32, 4), q;
  r.a = r.b = r.c = operand(buf, packed);
  CHECK(dlx_cpu_fixed_batch(&r) != NULL);
  r.dtype = DLX_FLOAT64;
  CHECK(dlx_cpu_fixed_batch(&r) != NULL);
  for (int64_t n = 1; n <= 8; n++) {
    q = r;
    q.m = q.n = q.k = n;
    q.a.row_stride = q.b.row_stride = q.c.row_stride = n;
    CHECK((dlx_cpu_fixed_batch(&q) != NULL) == (n == 3 || n == 4 || n == 6));
  }
  q = r;
  q.b.row_stride = 1; /* transposed */
  q.b.col_stride = 4;
  CHECK(dlx_cpu_fixed_batch(&q) != NULL);
  q = r;
  q.c.row_stride = 8; /* rows apart */
  CHECK(dlx_cpu_fixed_batch(&q) != NULL);
  q = r;
  q.dtype = DLX_INT32;
  q.alpha.kind = q.beta.kind = DLX_KIND_INT;
  q.alpha.v.i = 1;
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.dtype = DLX_COMPLEX64;
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.dtype = DLX_FLOAT16;
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.alpha.v.f = 2;
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.beta.v.f = 1;
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.n = 3; /* 4 x 4 @ 4 x 3 */
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.m = q.n = 3; /* 3 x 4 @ 4 x 3 */
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  CHECK(dlx_cpu_fixed_batch_isa(&r, "sse9") == NULL);
  free_buffer(buf);
}

int main(void) {
  uint64_t seed = 0x5eed4u;
  dlx_matmul_request r = request(DLX_FLOAT32, 4);
  place packed = {0, 4, 1, 16};
  dlx_buffer *buf = new_buffer(16 * 8);
  r.a = r.b = r.c = operand(buf, packed);
  printf("test_cpu_matmul: seed %llu; ISAs:", (unsigned long long)seed);
  for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++)
    if (dlx_cpu_fixed_batch_isa(&r, isas[k]) != NULL) printf(" %s", isas[k]);
  printf("\n");
  free_buffer(buf);
  rng_state = seed;
  for (int rep = 0; rep < 10; rep++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (int layout = 0; layout < LAYOUTS; layout++) {
        test_kernels(DLX_FLOAT32, sizes[s], layout);
        test_kernels(DLX_FLOAT64, sizes[s], layout);
      }
  test_takes();
  return check_report("test_cpu_matmul");
}
