/* cuda_random_rules.c -- the CUDA random kernel's element code (cuda_random_rules.cpp: src/cuda/
 * random_element.h compiled as host C++) against the CPU backend's fill_random, bit for bit, for
 * every kind and dtype: runs without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "check.h"
#include "common/philox.h"
#include "core/core.h"
#include "core/random.h"
#include "cuda/kernels.h"

void cxx_fill_random(const dlx_cuda_random_request *r);

static void compare(dlx_random_request r, dlx_dtype dtype) {
  int64_t n = 40001;
  size_t bytes = (size_t)(n * dlx_itemsize(dtype));
  int wide = r.kind == DLX_RANDOM_INT ? dlx_rng_int_wide(r.range) : dtype == DLX_FLOAT64;
  dlx_tensor want;
  void *got = malloc(bytes);
  dlx_cuda_random_request q = {.dst = got,
                               .dtype = (int)dtype,
                               .kind = (int)r.kind,
                               .lanes = dlx_rng_lanes(wide),
                               .bits = dlx_random_float_bits(dtype),
                               .n = n,
                               .seed = r.seed,
                               .offset = r.offset,
                               .a = r.a,
                               .b = r.b,
                               .low = r.low,
                               .range = r.range};
  CHECK(dlx_tensor_empty(&want, &n, 1, dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_cpu_backend.fill_random(&want, &r, NULL) == 0);
  cxx_fill_random(&q);
  if (memcmp(got, want.buffer->data, bytes) != 0) {
    fprintf(stderr, "kind %d, %s: the CUDA element code differs from the CPU\n", (int)r.kind,
            dlx_dtype_info_of(dtype)->name);
    CHECK(0);
  }
  dlx_tensor_close(&want);
  free(got);
}

int main(void) {
  const dlx_dtype floats[] = {DLX_FLOAT32, DLX_FLOAT64, DLX_FLOAT16, DLX_BFLOAT16};
  const uint64_t seed = UINT64_C(0x0123456789abcdef), offset = UINT64_C(0xfffffff0);
  for (int d = 0; d < 4; d++) {
    compare(
        (dlx_random_request){
            .kind = DLX_RANDOM_UNIFORM, .seed = seed, .offset = offset, .a = 0, .b = 1},
        floats[d]);
    compare(
        (dlx_random_request){
            .kind = DLX_RANDOM_UNIFORM, .seed = seed, .offset = 1, .a = -7, .b = 0.5},
        floats[d]);
    compare(
        (dlx_random_request){
            .kind = DLX_RANDOM_NORMAL, .seed = 3, .offset = offset, .a = 2, .b = 0.125},
        floats[d]);
  }
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
  return check_report("cuda_random_rules");
}
