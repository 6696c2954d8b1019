/* cuda_random_rules.c -- the CUDA random kernels' element code (cuda_random_rules.cpp: src/cuda/
 * random_element.h compiled as host C++) against the CPU backend, bit for bit: fill_random for
 * every kind and a real dtype of each class, with number and per-element parameters, and
 * multinomial with and without replacement, bad rows among the good. Runs without a GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "check.h"
#include "common/distributions.h"
#include "core/core.h"
#include "core/random.h"
#include "cpu_test_util.h"
#include "cuda/kernels.h"
#include "random_checks.h"

void cxx_fill_random(const dlx_cuda_random_request *r);
void cxx_multinomial(const dlx_cuda_multinomial_request *q);

/* A float64 vector of n parameters in [lo, hi]. */
static dlx_tensor params(int64_t n, double lo, double hi) {
  dlx_tensor t;
  CHECK(dlx_tensor_empty(&t, &n, 1, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, NULL) == 0);
  for (int64_t i = 0; i < n; i++) ((double *)t.buffer->data)[i] = random_param(rnd, lo, hi);
  return t;
}

/* The CPU's fill and the CUDA element code's of request r (its lanes set here) into dtype. */
static void compare(dlx_random_request r, dlx_dtype dtype) {
  int64_t n = 40001;
  size_t bytes = (size_t)(n * dlx_itemsize(dtype));
  dlx_tensor want;
  void *got = malloc(bytes);
  r.lanes = dlx_random_lanes(r.kind, dtype, r.range);
  dlx_cuda_random_request q = {.dst = got,
                               .dtype = (int)dtype,
                               .kind = (int)r.kind,
                               .lanes = r.lanes,
                               .bits = dlx_random_float_bits(dtype),
                               .n = n,
                               .seed = r.seed,
                               .offset = r.offset,
                               .a = r.a,
                               .b = r.b,
                               .pa = r.ta != NULL ? (const double *)r.ta->buffer->data : NULL,
                               .pb = r.tb != NULL ? (const double *)r.tb->buffer->data : NULL,
                               .low = r.low,
                               .range = r.range};
  CHECK(dlx_tensor_empty(&want, &n, 1, dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_cpu_backend.fill_random(&want, &r, NULL) == 0);
  cxx_fill_random(&q);
  check_same_fill(got, &want, (int)r.kind, "the CUDA element code");
  dlx_tensor_close(&want);
  free(got);
}

static void fills(void) {
  const dlx_dtype floats[] = {DLX_FLOAT32, DLX_FLOAT64, DLX_FLOAT16, DLX_BFLOAT16};
  const uint64_t seed = UINT64_C(0x0123456789abcdef), offset = UINT64_C(0xfffffff0);
  dlx_tensor means = params(40001, -3, 3), stds = params(40001, 0, 2);
  dlx_tensor probs = params(40001, 0, 1), rates = params(40001, 0, 40);
  for (int d = 0; d < 4; d++) {
    dlx_dtype f = floats[d];
    compare(
        (dlx_random_request){
            .kind = DLX_RANDOM_UNIFORM, .seed = seed, .offset = offset, .a = 0, .b = 1},
        f);
    compare(
        (dlx_random_request){
            .kind = DLX_RANDOM_UNIFORM, .seed = seed, .offset = 1, .a = -7, .b = 0.5},
        f);
    compare(
        (dlx_random_request){
            .kind = DLX_RANDOM_NORMAL, .seed = 3, .offset = offset, .a = 2, .b = 0.125},
        f);
    compare((dlx_random_request){.kind = DLX_RANDOM_NORMAL, .seed = 4, .ta = &means, .tb = &stds},
            f);
    compare((dlx_random_request){.kind = DLX_RANDOM_BERNOULLI, .seed = 5, .a = 0.3}, f);
    compare((dlx_random_request){.kind = DLX_RANDOM_BERNOULLI, .seed = 5, .ta = &probs}, f);
    compare((dlx_random_request){.kind = DLX_RANDOM_EXPONENTIAL, .seed = 6, .a = 2.5}, f);
    compare((dlx_random_request){.kind = DLX_RANDOM_CAUCHY, .seed = 7, .a = -1, .b = 3}, f);
    compare((dlx_random_request){.kind = DLX_RANDOM_LOG_NORMAL, .seed = 8, .a = 1, .b = 2}, f);
    compare((dlx_random_request){.kind = DLX_RANDOM_GEOMETRIC, .seed = 9, .a = log1p(-0.01)}, f);
    compare((dlx_random_request){.kind = DLX_RANDOM_POISSON, .seed = 10, .ta = &rates}, f);
    compare((dlx_random_request){.kind = DLX_RANDOM_POISSON, .seed = 11, .a = 1e6}, f);
    compare((dlx_random_request){.kind = DLX_RANDOM_INT, .seed = 12, .low = -5, .range = 200}, f);
  }
  compare((dlx_random_request){.kind = DLX_RANDOM_BERNOULLI, .seed = 13, .ta = &probs}, DLX_BOOL);
  compare((dlx_random_request){.kind = DLX_RANDOM_BERNOULLI, .seed = 13, .a = 0.5}, DLX_UINT8);
  compare((dlx_random_request){.kind = DLX_RANDOM_GEOMETRIC, .seed = 14, .a = log1p(-1e-9)},
          DLX_INT16); /* saturates */
  compare((dlx_random_request){.kind = DLX_RANDOM_GEOMETRIC, .seed = 14, .a = log1p(-0.5)},
          DLX_INT64);
  compare((dlx_random_request){.kind = DLX_RANDOM_INT, .seed = 15, .low = 0, .range = 2}, DLX_BOOL);
  compare((dlx_random_request){.kind = DLX_RANDOM_INT, .seed = seed, .low = -128, .range = 256},
          DLX_INT8);
  compare((dlx_random_request){.kind = DLX_RANDOM_INT, .seed = seed, .low = 0, .range = 65535},
          DLX_UINT16);
  compare((dlx_random_request){.kind = DLX_RANDOM_INT, .seed = 1, .low = -9, .range = 1000003},
          DLX_INT32);
  compare((dlx_random_request){.kind = DLX_RANDOM_INT,
                               .seed = 1,
                               .offset = offset,
                               .low = INT64_MIN,
                               .range = UINT64_MAX},
          DLX_INT64);
  compare(
      (dlx_random_request){
          .kind = DLX_RANDOM_INT, .seed = 2, .low = 0, .range = (UINT64_C(1) << 33) + 1},
      DLX_UINT64);
  dlx_tensor_close(&means);
  dlx_tensor_close(&stds);
  dlx_tensor_close(&probs);
  dlx_tensor_close(&rates);
}

/* random_weight's rows x k weights in dtype (float32 or float64). */
static dlx_tensor weights(int64_t rows, int64_t k, dlx_dtype dtype) {
  int64_t shape[2] = {rows, k};
  dlx_tensor t;
  CHECK(dlx_tensor_empty(&t, shape, 2, dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  for (int64_t i = 0; i < rows * k; i++) {
    double w = random_weight(rnd, i, k);
    if (dtype == DLX_FLOAT64)
      ((double *)t.buffer->data)[i] = w;
    else
      ((float *)t.buffer->data)[i] = (float)w;
  }
  return t;
}

static void multinomial(int64_t rows, int64_t k, int64_t n, bool replacement, dlx_dtype dtype) {
  dlx_tensor w = weights(rows, k, dtype), out, status;
  int64_t *got = calloc((size_t)(rows * n + 1), sizeof *got);
  int64_t *got_status = calloc((size_t)rows, sizeof *got_status);
  double *scratch = malloc((size_t)(rows * (replacement ? k : n) + 1) * sizeof(double));
  dlx_multinomial_request r;
  cpu_multinomial(&r, &w, n, replacement, rnd, &out, &status);
  dlx_cuda_multinomial_request q = {.weights = w.buffer->data,
                                    .out = got,
                                    .status = got_status,
                                    .scratch = scratch,
                                    .rows = rows,
                                    .k = k,
                                    .n = n,
                                    .replacement = replacement,
                                    .is64 = dtype == DLX_FLOAT64,
                                    .seed = r.seed,
                                    .offset = r.offset};
  cxx_multinomial(&q);
  check_multinomial(got, got_status, &out, &status, k, replacement);
  dlx_tensor_close(&w);
  dlx_tensor_close(&out);
  dlx_tensor_close(&status);
  free(got);
  free(got_status);
  free(scratch);
}

int main(void) {
  rng_state = UINT64_C(0x243f6a8885a308d3); /* the xorshift64* of cpu_test_util.h */
  fills();
  multinomial(12, 1000, 100, false, DLX_FLOAT32);
  multinomial(12, 1001, 1, false, DLX_FLOAT64);
  multinomial(12, 3001, 2, false, DLX_FLOAT64); /* keys across chunks */
  multinomial(12, 17, 0, false, DLX_FLOAT32);
  multinomial(12, 1000, 333, true, DLX_FLOAT32);
  multinomial(11, 5, 1001, true, DLX_FLOAT64);
  return check_report("cuda_random_rules");
}
