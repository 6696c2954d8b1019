/* random.c -- random numbers (random.cl) against the CPU backend's fill_random, bit for bit. */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#include "backends/builtin.h"
#include "common/philox.h"
#include "core/random.h"

/* dlx_fill_random against the CPU's fill_random, bit for bit, for every kind and dtype, with a
 * partial last block. */
static void test_random(dlx_random_kind kind, dlx_dtype dtype, double pa, double pb, int64_t low,
                        uint64_t range) {
  const int64_t n = 100003;
  int64_t size = dlx_itemsize(dtype), shape[1] = {n};
  int wide = kind == DLX_RANDOM_INT ? dlx_rng_int_wide(range) : dtype == DLX_FLOAT64;
  unsigned char *dst = svm((size_t)(n * size));
  dlx_ze_random_args *a = svm(sizeof *a);
  dlx_random_request r = {.kind = kind,
                          .seed = next_random(),
                          .offset = next_random() >> 1,
                          .a = pa,
                          .b = pb,
                          .low = low,
                          .range = range};
  dlx_tensor t;
  CHECK(dlx_tensor_empty(&t, shape, 1, dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_cpu_backend.fill_random(&t, &r, NULL) == 0);
  host_access(a, sizeof *a, 1);
  memset(a, 0, sizeof *a);
  a->n = n;
  a->kind = kind;
  a->dtype = dtype;
  a->lanes = dlx_rng_lanes(wide);
  a->bits = dlx_random_float_bits(dtype);
  a->seed = r.seed;
  a->offset = r.offset;
  a->a = pa;
  a->b = pb;
  a->low = low;
  a->range = range;
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_FILL_RANDOM, 64, (void *const[]){dst, a}, 2) == 0);
  host_access(dst, (size_t)(n * size), 1);
  if (memcmp(dst, t.buffer->data, (size_t)(n * size)) != 0) {
    fprintf(stderr, "fill_random kind %d %s differs from the CPU\n", (int)kind,
            dlx_dtype_info_of(dtype)->name);
    CHECK(0);
  }
  host_access(dst, (size_t)(n * size), 0);
  dlx_tensor_close(&t);
  clSVMFree(context, dst);
  clSVMFree(context, a);
}

void test_randoms(void) {
  const dlx_dtype floats[] = {DLX_FLOAT32, DLX_FLOAT64, DLX_FLOAT16, DLX_BFLOAT16};
  for (int d = 0; d < 4; d++) {
    test_random(DLX_RANDOM_UNIFORM, floats[d], 0, 1, 0, 0);
    test_random(DLX_RANDOM_UNIFORM, floats[d], -3.5, 17, 0, 0);
    test_random(DLX_RANDOM_NORMAL, floats[d], 0, 1, 0, 0);
    test_random(DLX_RANDOM_NORMAL, floats[d], 5, 0.25, 0, 0);
  }
  test_random(DLX_RANDOM_INT, DLX_INT8, -128, 0, -128, 256);
  test_random(DLX_RANDOM_INT, DLX_UINT16, 0, 0, 3, 60000);
  test_random(DLX_RANDOM_INT, DLX_INT32, 0, 0, -1000000, 3000000);
  test_random(DLX_RANDOM_INT, DLX_INT64, 0, 0, -5, UINT64_C(1) << 32);
  test_random(DLX_RANDOM_INT, DLX_INT64, 0, 0, INT64_MIN, UINT64_MAX);
  test_random(DLX_RANDOM_INT, DLX_UINT64, 0, 0, 0, (UINT64_C(1) << 40) + 7);
}
