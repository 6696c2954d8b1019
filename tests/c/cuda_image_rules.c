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

static void check_case(dlx_image_op op, dlx_dtype dtype, int number) {
  image_case c;
  dlx_tensor src, want, want_i, got, got_i;
  bool indices = op == DLX_IMAGE_MAX_POOL && rnd_below(2) == 0;
  dlx_cuda_image_request q;
  image_case_cpu(&c, op, dtype, number, indices, rnd, &src, &want, &want_i);
  got = image_case_planes(dtype, c.planes, c.out_h, c.out_w);
  got_i = image_case_planes(DLX_INT64, c.planes, c.out_h, c.out_w);
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
  image_case_check(&c, number, got.buffer->data, got_i.buffer->data, &want, &want_i);
  dlx_tensor_close(&src);
  dlx_tensor_close(&want);
  dlx_tensor_close(&want_i);
  dlx_tensor_close(&got);
  dlx_tensor_close(&got_i);
}

int main(void) {
  static const dlx_image_op ops[] = {DLX_IMAGE_MAX_POOL, DLX_IMAGE_AVG_POOL, DLX_IMAGE_NEAREST,
                                     DLX_IMAGE_BILINEAR, DLX_IMAGE_BICUBIC};
  rnd_seed("cuda_image_rules", UINT64_C(0x9E3779B97F4A7C15));
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
    for (int n = 0; n < 300; n++) {
      check_case(ops[o], DLX_FLOAT32, n);
      check_case(ops[o], DLX_FLOAT64, n);
    }
  return check_report("cuda_image_rules");
}
