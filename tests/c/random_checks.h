/* random_checks.h -- what the two checks of the GPU random kernels against the CPU backend share
 * (tests/c/cuda_random_rules.c: the CUDA element code on the host; tests/ze_kernels/random.c: the
 * OpenCL kernels on PoCL): random parameters, multinomial's test weights with their bad rows, and
 * the CPU's multinomial and the comparison of results. Each file draws from its own xorshift64*
 * (`next`). Include check.h first. */
#ifndef DLX_TESTS_RANDOM_CHECKS_H
#define DLX_TESTS_RANDOM_CHECKS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backends/builtin.h"
#include "common/distributions.h"
#include "core/random.h"
#include "core/tensor.h"

/* A parameter in [lo, hi], from 53 bits of next(). */
static inline double random_param(uint64_t (*next)(void), double lo, double hi) {
  return lo + (hi - lo) * (double)(next() >> 11) * 0x1p-53;
}

/* Weight i of a rows x k matrix for multinomial: random, many zeros, and bad rows: 4 (a negative
 * weight), 6 (all zero), 8 (a NaN), 10 (two positive weights only: too few for more than two
 * draws without replacement). */
static inline double random_weight(uint64_t (*next)(void), int64_t i, int64_t k) {
  double w = next() % 3 == 0 ? 0 : (double)(next() % 1000) / 7;
  if (i / k == 3 && i % k == k / 2) w = -1;
  if (i / k == 5) w = 0;
  if (i / k == 7 && i % k == 0) w = NAN;
  if (i / k == 9) w = i % k < 2 ? 1 : 0;
  return w;
}

/* got (a kernel's fill_random into want's dtype, want's numel elements) holds want's bits. */
static inline void check_same_fill(const void *got, const dlx_tensor *want, int kind,
                                   const char *who) {
  size_t bytes = (size_t)dlx_tensor_numel(want) * dlx_itemsize(want->dtype);
  if (memcmp(got, want->buffer->data, bytes) != 0) {
    fprintf(stderr, "fill_random kind %d, %s: %s differs from the CPU\n", kind,
            dlx_dtype_info_of(want->dtype)->name, who);
    CHECK(0);
  }
}

/* The CPU's multinomial, n draws a row of the rows x k weights w with a random seed and offset
 * (left in r for the kernel): out (rows x n) and status (rows) made here, the caller closes them.
 */
static inline void cpu_multinomial(dlx_multinomial_request *r, const dlx_tensor *w, int64_t n,
                                   bool replacement, uint64_t (*next)(void), dlx_tensor *out,
                                   dlx_tensor *status) {
  int64_t rows = w->shape[0], oshape[2] = {rows, n};
  uint64_t seed = next(), offset = next() >> 1;
  *r = (dlx_multinomial_request){.weights = w,
                                 .out = out,
                                 .status = status,
                                 .n = n,
                                 .replacement = replacement,
                                 .seed = seed,
                                 .offset = offset};
  CHECK(dlx_tensor_empty(out, oshape, 2, DLX_INT64, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_tensor_empty(status, &rows, 1, DLX_INT64, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_cpu_backend.multinomial(r, NULL) == 0);
}

/* A kernel's multinomial (got: rows x n draws, got_status: rows states) against the CPU's (out,
 * status) over random_weight's rows x k weights: the state of every row, the draws of the good
 * ones, bit for bit, and the bad rows' states. */
static inline void check_multinomial(const int64_t *got, const int64_t *got_status,
                                     const dlx_tensor *out, const dlx_tensor *status, int64_t k,
                                     bool replacement) {
  int64_t rows = status->shape[0], n = out->shape[1];
  const int64_t *want = (const int64_t *)out->buffer->data;
  const int64_t *want_status = (const int64_t *)status->buffer->data;
  int bad = 0;
  for (int64_t i = 0; i < rows; i++) {
    bad += got_status[i] != want_status[i];
    if (want_status[i] == DLX_MN_OK)
      bad += memcmp(got + i * n, want + i * n, (size_t)n * sizeof *got) != 0;
  }
  if (bad != 0)
    fprintf(stderr, "multinomial %lld x %lld, n %lld, replacement %d: %d rows differ\n",
            (long long)rows, (long long)k, (long long)n, (int)replacement, bad);
  CHECK_EQ_INT(bad, 0);
  if (rows > 3) CHECK_EQ_INT(want_status[3], DLX_MN_BAD_WEIGHT);
  if (rows > 5) CHECK_EQ_INT(want_status[5], DLX_MN_ZERO_SUM);
  if (rows > 7) CHECK_EQ_INT(want_status[7], DLX_MN_BAD_WEIGHT);
  if (rows > 9) CHECK_EQ_INT(want_status[9], replacement || n <= 2 ? DLX_MN_OK : DLX_MN_TOO_FEW);
}

#endif
