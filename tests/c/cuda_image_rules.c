/* cuda_image_rules.c -- the CUDA image_op (max and average pooling, nearest, bilinear and
 * bicubic resizes), as far as it can be checked without a GPU: its per-element code
 * (src/cuda/image_element.h, compiled as host C++ by cuda_image_rules.cpp) against the CPU
 * backend's image_op on random requests (image_cases.h), float32 and float64, bit for bit (any
 * NaN for a NaN): the values, and the max pools' indices. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_test_util.h"
#include "cuda/kernels.h"
#include "image_cases.h"

void cxx_image(const dlx_cuda_image_request *r);

static dlx_tensor cpu_planes(dlx_dtype dtype, int64_t planes, int64_t h, int64_t w) {
  DLDevice cpu = {kDLCPU, 0};
  int64_t shape[3] = {planes, h, w};
  dlx_tensor t;
  CHECK(dlx_tensor_empty(&t, shape, 3, dtype, cpu, NULL) == 0);
  return t;
}

/* The same bits, or both NaN (which NaN an arithmetic NaN is depends on the order of the
 * operands of a sum, which compilers may swap, and on the device). */
static bool same_value(const void *a, const void *b, dlx_dtype dtype) {
  double x, y;
  if (memcmp(a, b, dtype == DLX_FLOAT32 ? 4 : 8) == 0) return true;
  x = dtype == DLX_FLOAT32 ? *(const float *)a : *(const double *)a;
  y = dtype == DLX_FLOAT32 ? *(const float *)b : *(const double *)b;
  return isnan(x) && isnan(y);
}

static void check_case(dlx_image_op op, dlx_dtype dtype, int number) {
  image_case c;
  dlx_tensor wide, src, want, want_i, got, got_i;
  bool indices = op == DLX_IMAGE_MAX_POOL && rnd_below(2) == 0;
  size_t size = dtype == DLX_FLOAT32 ? 4 : 8, count;
  dlx_cuda_image_request q;
  int bad = 0;
  image_case_make(&c, op, dtype, rnd);
  wide = cpu_planes(DLX_FLOAT64, c.planes, c.in_h, c.in_w);
  src = cpu_planes(dtype, c.planes, c.in_h, c.in_w);
  image_case_values(wide.buffer->data, dlx_tensor_numel(&wide), number % 2 == 1, rnd);
  CHECK(dlx_cpu_backend.copy(&src, &wide, NULL) == 0);
  want = cpu_planes(dtype, c.planes, c.out_h, c.out_w);
  got = cpu_planes(dtype, c.planes, c.out_h, c.out_w);
  want_i = cpu_planes(DLX_INT64, c.planes, c.out_h, c.out_w);
  got_i = cpu_planes(DLX_INT64, c.planes, c.out_h, c.out_w);
  count = (size_t)dlx_tensor_numel(&want);
  c.req.src = &src;
  c.req.dst = &want;
  c.req.indices = indices ? &want_i : NULL;
  CHECK(dlx_cpu_backend.image_op(&c.req, NULL) == 0);
  q = (dlx_cuda_image_request){.op = (int)op,
                               .is_double = dtype == DLX_FLOAT64,
                               .src = src.buffer->data,
                               .dst = got.buffer->data,
                               .indices = indices ? got_i.buffer->data : NULL,
                               .planes = c.planes,
                               .in_h = c.in_h,
                               .in_w = c.in_w,
                               .out_h = c.out_h,
                               .out_w = c.out_w,
                               .count_include_pad = c.req.count_include_pad,
                               .divisor = c.req.divisor,
                               .align_corners = c.req.align_corners};
  for (int d = 0; d < 2; d++) {
    q.kernel[d] = c.req.kernel[d];
    q.stride[d] = c.req.stride[d];
    q.padding[d] = c.req.padding[d];
    q.dilation[d] = c.req.dilation[d];
    q.scale[d] = c.req.scale[d];
  }
  cxx_image(&q);
  for (size_t i = 0; i < count; i++)
    if (!same_value((char *)got.buffer->data + i * size, (char *)want.buffer->data + i * size,
                    dtype) ||
        (indices && ((int64_t *)got_i.buffer->data)[i] != ((int64_t *)want_i.buffer->data)[i]))
      if (bad++ == 0) fprintf(stderr, "  element %zu differs\n", i);
  if (bad != 0)
    fprintf(stderr,
            "%s (op %d) of %s, case %d: %lld planes of %lld x %lld -> %lld x %lld, kernel %lld x "
            "%lld, stride %lld x %lld, padding %lld x %lld, dilation %lld x %lld, "
            "count_include_pad %d, divisor %lld, align_corners %d, scale %g x %g: %d differences\n",
            dlx_image_op_name(op), (int)op, dlx_dtype_info_of(dtype)->name, number,
            (long long)c.planes, (long long)c.in_h, (long long)c.in_w, (long long)c.out_h,
            (long long)c.out_w, (long long)c.req.kernel[0], (long long)c.req.kernel[1],
            (long long)c.req.stride[0], (long long)c.req.stride[1], (long long)c.req.padding[0],
            (long long)c.req.padding[1], (long long)c.req.dilation[0], (long long)c.req.dilation[1],
            c.req.count_include_pad, (long long)c.req.divisor, c.req.align_corners, c.req.scale[0],
            c.req.scale[1], bad);
  CHECK(bad == 0);
  dlx_tensor_close(&wide);
  dlx_tensor_close(&src);
  dlx_tensor_close(&want);
  dlx_tensor_close(&want_i);
  dlx_tensor_close(&got);
  dlx_tensor_close(&got_i);
}

int main(void) {
  static const dlx_image_op ops[] = {DLX_IMAGE_MAX_POOL, DLX_IMAGE_AVG_POOL, DLX_IMAGE_NEAREST,
                                     DLX_IMAGE_BILINEAR, DLX_IMAGE_BICUBIC};
  const char *seed = getenv("DLX_TEST_SEED");
  rng_state = seed != NULL ? strtoull(seed, NULL, 0) : UINT64_C(0x9E3779B97F4A7C15);
  if (rng_state == 0) rng_state = 1;
  printf("cuda_image_rules: seed 0x%" PRIx64 " (set DLX_TEST_SEED to change)\n", rng_state);
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
    for (int n = 0; n < 300; n++) {
      check_case(ops[o], DLX_FLOAT32, n);
      check_case(ops[o], DLX_FLOAT64, n);
    }
  return check_report("cuda_image_rules");
}
