/* random.c -- random numbers (random.cl) against the CPU backend's fill_random and multinomial,
 * bit for bit. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/builtin.h"
#include "common/distributions.h"
#include "common/philox.h"
#include "core/random.h"
#include "random_checks.h"

/* SVM holding n float64 parameters in [lo, hi], and the same as a CPU tensor (*cpu). */
static double *svm_params(int64_t n, double lo, double hi, dlx_tensor *cpu) {
  double *p = svm((size_t)n * sizeof(double));
  CHECK(dlx_tensor_empty(cpu, &n, 1, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, NULL) == 0);
  host_access(p, (size_t)n * sizeof(double), 1);
  for (int64_t i = 0; i < n; i++) {
    p[i] = random_param(next_random, lo, hi);
    ((double *)cpu->buffer->data)[i] = p[i];
  }
  host_access(p, (size_t)n * sizeof(double), 0);
  return p;
}

/* dlx_fill_random against the CPU's fill_random, bit for bit, with a partial last block: r's
 * kind, numbers and range into dtype; parameters per element in [lo, hi] where has_a / has_b. */
static void test_random_params(dlx_random_request r, dlx_dtype dtype, bool has_a, bool has_b,
                               double lo, double hi) {
  const int64_t n = 100003;
  int64_t size = dlx_itemsize(dtype), shape[1] = {n};
  unsigned char *dst = svm((size_t)(n * size));
  dlx_ze_random_args *a = svm(sizeof *a);
  dlx_tensor t, ta, tb;
  double *pa = has_a ? svm_params(n, lo, hi, &ta) : NULL;
  double *pb = has_b ? svm_params(n, lo, hi, &tb) : NULL;
  r.seed = next_random();
  r.offset = next_random() >> 1;
  r.lanes = dlx_random_lanes(r.kind, dtype, r.range);
  r.ta = has_a ? &ta : NULL;
  r.tb = has_b ? &tb : NULL;
  CHECK(dlx_tensor_empty(&t, shape, 1, dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_cpu_backend.fill_random(&t, &r, NULL) == 0);
  host_access(a, sizeof *a, 1);
  memset(a, 0, sizeof *a);
  a->n = n;
  a->kind = r.kind;
  a->dtype = dtype;
  a->lanes = r.lanes;
  a->bits = dlx_random_float_bits(dtype);
  a->seed = r.seed;
  a->offset = r.offset;
  a->a = r.a;
  a->b = r.b;
  a->has_a = has_a;
  a->has_b = has_b;
  a->low = r.low;
  a->range = r.range;
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_FILL_RANDOM, 64,
            (void *const[]){dst, has_a ? (void *)pa : dst, has_b ? (void *)pb : dst, a}, 4) == 0);
  host_access(dst, (size_t)(n * size), 1);
  check_same_fill(dst, &t, (int)r.kind, "the OpenCL kernel");
  host_access(dst, (size_t)(n * size), 0);
  dlx_tensor_close(&t);
  if (has_a) dlx_tensor_close(&ta);
  if (has_b) dlx_tensor_close(&tb);
  clSVMFree(context, dst);
  clSVMFree(context, a);
  if (pa != NULL) clSVMFree(context, pa);
  if (pb != NULL) clSVMFree(context, pb);
}

static void test_random(dlx_random_kind kind, dlx_dtype dtype, double pa, double pb, int64_t low,
                        uint64_t range) {
  dlx_random_request r = {.kind = kind, .a = pa, .b = pb, .low = low, .range = range};
  test_random_params(r, dtype, false, false, 0, 0);
}

/* random_weight's rows x k weights (float32 or float64) in SVM, and the same as a CPU tensor. */
static void *svm_weights(int64_t rows, int64_t k, bool is64, dlx_tensor *cpu) {
  int64_t shape[2] = {rows, k}, size = is64 ? 8 : 4;
  unsigned char *p = svm((size_t)(rows * k * size));
  CHECK(dlx_tensor_empty(cpu, shape, 2, is64 ? DLX_FLOAT64 : DLX_FLOAT32, (DLDevice){kDLCPU, 0},
                         NULL) == 0);
  for (int64_t i = 0; i < rows * k; i++) {
    double w = random_weight(next_random, i, k);
    float f = (float)w;
    memcpy((char *)cpu->buffer->data + i * size, is64 ? (void *)&w : (void *)&f, (size_t)size);
  }
  host_access(p, (size_t)(rows * k * size), 1);
  memcpy(p, cpu->buffer->data, (size_t)(rows * k * size));
  host_access(p, (size_t)(rows * k * size), 0);
  return p;
}

/* dlx_multinomial against the CPU's multinomial (check_multinomial). */
static void test_multinomial(int64_t rows, int64_t k, int64_t n, bool replacement, bool is64) {
  dlx_tensor w, out, status;
  void *weights = svm_weights(rows, k, is64, &w);
  int64_t *got = svm((size_t)(rows * n) * 8), *got_status = svm((size_t)rows * 8);
  void *scratch = svm((size_t)(rows * (replacement ? k : n)) * 8);
  dlx_ze_multinomial_args *a = svm(sizeof *a);
  dlx_multinomial_request r;
  cpu_multinomial(&r, &w, n, replacement, next_random, &out, &status);
  host_access(a, sizeof *a, 1);
  memset(a, 0, sizeof *a);
  a->rows = rows;
  a->k = k;
  a->n = n;
  a->replacement = replacement;
  a->is64 = is64;
  a->seed = r.seed;
  a->offset = r.offset;
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_MULTINOMIAL, 1 + next_random() % 2,
            (void *const[]){got, weights, got_status, scratch, a}, 5) == 0);
  host_access(got, (size_t)(rows * n) * 8, 1);
  host_access(got_status, (size_t)rows * 8, 1);
  check_multinomial(got, got_status, &out, &status, k, replacement);
  host_access(got, (size_t)(rows * n) * 8, 0);
  host_access(got_status, (size_t)rows * 8, 0);
  dlx_tensor_close(&w);
  dlx_tensor_close(&out);
  dlx_tensor_close(&status);
  clSVMFree(context, weights);
  clSVMFree(context, got);
  clSVMFree(context, got_status);
  clSVMFree(context, scratch);
  clSVMFree(context, a);
}

void test_randoms(void) {
  const dlx_dtype floats[] = {DLX_FLOAT32, DLX_FLOAT64, DLX_FLOAT16, DLX_BFLOAT16};
  for (int d = 0; d < 4; d++) {
    dlx_dtype f = floats[d];
    test_random(DLX_RANDOM_UNIFORM, f, 0, 1, 0, 0);
    test_random(DLX_RANDOM_UNIFORM, f, -3.5, 17, 0, 0);
    test_random(DLX_RANDOM_NORMAL, f, 0, 1, 0, 0);
    test_random(DLX_RANDOM_NORMAL, f, 5, 0.25, 0, 0);
    test_random(DLX_RANDOM_BERNOULLI, f, 0.25, 0, 0, 0);
    test_random(DLX_RANDOM_EXPONENTIAL, f, 3, 0, 0, 0);
    test_random(DLX_RANDOM_CAUCHY, f, 1, 0.5, 0, 0);
    test_random(DLX_RANDOM_LOG_NORMAL, f, 0.5, 1.5, 0, 0);
    test_random(DLX_RANDOM_GEOMETRIC, f, log1p(-0.05), 0, 0, 0);
    test_random(DLX_RANDOM_POISSON, f, 2.5, 0, 0, 0);
    test_random(DLX_RANDOM_POISSON, f, 123.25, 0, 0, 0);
    test_random(DLX_RANDOM_INT, f, 0, 0, -7, 100);
    test_random_params((dlx_random_request){.kind = DLX_RANDOM_NORMAL}, f, true, true, 0, 3);
    test_random_params((dlx_random_request){.kind = DLX_RANDOM_BERNOULLI}, f, true, false, 0, 1);
    test_random_params((dlx_random_request){.kind = DLX_RANDOM_POISSON}, f, true, false, 0, 60);
  }
  test_random(DLX_RANDOM_BERNOULLI, DLX_BOOL, 0.5, 0, 0, 0);
  test_random(DLX_RANDOM_GEOMETRIC, DLX_INT8, log1p(-0.01), 0, 0, 0); /* saturates */
  test_random(DLX_RANDOM_GEOMETRIC, DLX_UINT64, log1p(-0.5), 0, 0, 0);
  test_random(DLX_RANDOM_INT, DLX_BOOL, 0, 0, 0, 2);
  test_random(DLX_RANDOM_INT, DLX_INT8, -128, 0, -128, 256);
  test_random(DLX_RANDOM_INT, DLX_UINT16, 0, 0, 3, 60000);
  test_random(DLX_RANDOM_INT, DLX_INT32, 0, 0, -1000000, 3000000);
  test_random(DLX_RANDOM_INT, DLX_INT64, 0, 0, -5, UINT64_C(1) << 32);
  test_random(DLX_RANDOM_INT, DLX_INT64, 0, 0, INT64_MIN, UINT64_MAX);
  test_random(DLX_RANDOM_INT, DLX_UINT64, 0, 0, 0, (UINT64_C(1) << 40) + 7);
  test_multinomial(9, 1000, 100, false, false);
  test_multinomial(9, 1537, 3, false, true);
  test_multinomial(9, 600, 1000, true, false);
  test_multinomial(300, 7, 5, true, true); /* more rows than a work-group */
}
