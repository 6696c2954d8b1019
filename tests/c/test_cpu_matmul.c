/* test_cpu_matmul.c -- the CPU's fixed-size kernels for batches of 4 x 4 products
 * (src/cpu/matmul_fixed.c) against the own loops (src/cpu/matmul_small.c), on every ISA this
 * CPU has: the same bits (any NaN for a NaN), on values with zeros of both signs, infinities,
 * NaN, subnormals and products that overflow, for packed, gapped and broadcast (batch stride 0)
 * operands, over ranges that start and end anywhere; and which requests the kernels take. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cpu/matmul.h"
#include "cpu_test_util.h"

#define BATCH 37

static const char *const isas[] = {"portable", "avx2", "avx512"};

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

static dlx_matrix_operand operand(const dlx_buffer *buf, int64_t offset, int64_t batch_stride) {
  dlx_matrix_operand o = {buf, offset, 4, 1, batch_stride, false};
  return o;
}

static dlx_matmul_request request(dlx_dtype dtype, const dlx_buffer *a, const dlx_buffer *b,
                                  const dlx_buffer *c) {
  dlx_matmul_request r;
  memset(&r, 0, sizeof r);
  r.dtype = dtype;
  r.batch = BATCH;
  r.m = r.n = r.k = 4;
  r.a = operand(a, 0, 16);
  r.b = operand(b, 0, 16);
  r.c = operand(c, 0, 16);
  r.alpha.kind = r.beta.kind = DLX_KIND_FLOAT;
  r.alpha.v.f = 1;
  return r;
}

/* Layouts: a packed batch; a with gaps and an offset, b one matrix for every element, c with
 * gaps. */
static void test_kernels(dlx_dtype dtype, int layout) {
  size_t item = dtype == DLX_FLOAT32 ? 4 : 8, count = (size_t)BATCH * 24 + 8;
  dlx_buffer *a = new_buffer(count * item), *b = new_buffer(count * item);
  dlx_buffer *want = new_buffer(count * item), *got = new_buffer(count * item);
  fill(a, dtype, (int64_t)count);
  fill(b, dtype, (int64_t)count);
  dlx_matmul_request r = request(dtype, a, b, want);
  if (layout == 1) {
    r.a = operand(a, 5, 21);
    r.b = operand(b, 3, 0);
    r.c = operand(want, 0, 24);
  }
  dlx_cpu_product_fn own = dlx_cpu_small_product(dtype);
  for (int64_t i = 0; i < BATCH; i++) own(&r, i);
  for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++) {
    dlx_matmul_request q = r;
    q.c.buffer = got;
    dlx_cpu_batch_fn fn = dlx_cpu_fixed_batch_isa(&q, isas[k]);
    if (fn == NULL) { /* not on this CPU */
      CHECK(strcmp(isas[k], "portable") != 0);
      continue;
    }
    memset(got->data, 0, count * item);
    int64_t cut = 1 + rnd_below(BATCH - 1);
    fn(&q, 0, cut);
    fn(&q, cut, BATCH);
    int64_t differ = 0;
    for (int64_t i = 0; i < BATCH; i++)
      for (int64_t e = 0; e < 16; e++)
        differ += !same_value(want, got, dtype, q.c.offset + i * q.c.batch_stride + e);
    if (differ != 0)
      printf("  %s %s, layout %d: %lld values differ from the own loops\n", isas[k],
             dtype == DLX_FLOAT32 ? "float32" : "float64", layout, (long long)differ);
    CHECK_EQ_INT(differ, 0);
  }
  free_buffer(a);
  free_buffer(b);
  free_buffer(want);
  free_buffer(got);
}

/* Requests the kernels must leave to the own loops. */
static void test_takes(void) {
  dlx_buffer *buf = new_buffer(64 * 8);
  dlx_matmul_request r = request(DLX_FLOAT32, buf, buf, buf), q;
  CHECK(dlx_cpu_fixed_batch(&r) != NULL);
  r.dtype = DLX_FLOAT64;
  CHECK(dlx_cpu_fixed_batch(&r) != NULL);
  q = r;
  q.dtype = DLX_INT32;
  q.alpha.kind = q.beta.kind = DLX_KIND_INT;
  q.alpha.v.i = 1;
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.dtype = DLX_COMPLEX64;
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.alpha.v.f = 2;
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.beta.v.f = 1;
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.m = q.n = q.k = 3;
  q.a.row_stride = q.b.row_stride = q.c.row_stride = 3;
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.n = 3;
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.b.row_stride = 1; /* transposed */
  q.b.col_stride = 4;
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  q = r;
  q.c.row_stride = 8; /* rows apart */
  CHECK(dlx_cpu_fixed_batch(&q) == NULL);
  CHECK(dlx_cpu_fixed_batch_isa(&r, "sse9") == NULL);
  free_buffer(buf);
}

int main(void) {
  uint64_t seed = 0x5eed4u;
  dlx_buffer *buf = new_buffer(16 * 8);
  dlx_matmul_request r = request(DLX_FLOAT32, buf, buf, buf);
  printf("test_cpu_matmul: seed %llu; ISAs:", (unsigned long long)seed);
  for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++)
    if (dlx_cpu_fixed_batch_isa(&r, isas[k]) != NULL) printf(" %s", isas[k]);
  printf("\n");
  free_buffer(buf);
  rng_state = seed;
  for (int rep = 0; rep < 20; rep++)
    for (int layout = 0; layout < 2; layout++) {
      test_kernels(DLX_FLOAT32, layout);
      test_kernels(DLX_FLOAT64, layout);
    }
  test_takes();
  return check_report("test_cpu_matmul");
}
