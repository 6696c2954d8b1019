/* cpu_test_util.h -- helpers shared by the CPU backend's C tests and the cuda_*_rules checks: a
 * seeded random generator (its seed from DLX_TEST_SEED or the test's own), and buffers, vectors
 * and tensor views over the backend's own memory. */
#ifndef DLX_TESTS_CPU_TEST_UTIL_H
#define DLX_TESTS_CPU_TEST_UTIL_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "core/core.h"

/* Each test sets it from its seed (printed, so that a failure can be replayed). */
static uint64_t rng_state;

static inline uint64_t rnd(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * UINT64_C(2685821657736338717);
}

/* The seed from DLX_TEST_SEED, else fallback (never 0, a fixed point of xorshift), printed so
 * that a failure can be replayed. */
static inline void rnd_seed(const char *test, uint64_t fallback) {
  const char *seed = getenv("DLX_TEST_SEED");
  rng_state = seed != NULL ? strtoull(seed, NULL, 0) : fallback;
  if (rng_state == 0) rng_state = 1;
  printf("%s: seed 0x%" PRIx64 " (set DLX_TEST_SEED to change)\n", test, rng_state);
}

static inline int64_t rnd_below(int64_t n) { return (int64_t)(rnd() % (uint64_t)n); }
static inline double rnd_unit(void) { return (double)(rnd() >> 11) * 0x1p-53; }

/* A buffer of the CPU backend whose bytes are all 0xA5 (a pattern no test writes). */
static inline dlx_buffer *new_buffer(size_t nbytes) {
  dlx_error err;
  dlx_buffer *b = calloc(1, sizeof *b);
  atomic_init(&b->refs, 1);
  b->data = dlx_cpu_backend.alloc(0, nbytes, &err);
  b->nbytes = nbytes;
  b->device = (DLDevice){kDLCPU, 0};
  b->backend = &dlx_cpu_backend;
  if (b->data != NULL) memset(b->data, 0xA5, nbytes);
  return b;
}

static inline void free_buffer(dlx_buffer *b) {
  dlx_cpu_backend.free(0, b->data, b->nbytes);
  free(b);
}

static inline dlx_tensor make_tensor(dlx_buffer *b, dlx_dtype t, int ndim, const int64_t *shape,
                                     const int64_t *strides, int64_t offset) {
  dlx_tensor v;
  memset(&v, 0, sizeof v);
  v.buffer = b;
  v.dtype = t;
  v.ndim = ndim;
  v.offset = offset;
  for (int d = 0; d < ndim; d++) {
    v.shape[d] = shape[d];
    v.strides[d] = strides[d];
  }
  return v;
}

/* An empty C-contiguous CPU vector of n elements. */
static inline dlx_tensor cpu_vector(dlx_dtype dtype, int64_t n) {
  dlx_tensor t;
  dlx_tensor_empty(&t, &n, 1, dtype, (DLDevice){kDLCPU, 0}, NULL);
  return t;
}

static inline int64_t numel(int ndim, const int64_t *shape) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  return n;
}

#endif
