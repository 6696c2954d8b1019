/* image.c -- the image kernel (image.cl: max and average pooling, nearest, bilinear and bicubic
 * resizes) against the CPU backend's image_op on random requests (tests/c/image_cases.h),
 * float32 and float64: the values bit for bit (any NaN for a NaN), and the max pools' indices. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/builtin.h"
#include "image_cases.h"

static void test_image_case(dlx_image_op op, dlx_dtype dtype, int number) {
  image_case c;
  bool indices = op == DLX_IMAGE_MAX_POOL && next_random() % 2 == 0;
  size_t size = dtype == DLX_FLOAT32 ? 4 : 8, in_count, count;
  dlx_tensor src, want, want_i;
  void *got_src, *got;
  int64_t *got_i;
  dlx_ze_image_args *a = svm(sizeof *a);
  image_case_cpu(&c, op, dtype, number, indices, next_random, &src, &want, &want_i);
  in_count = (size_t)dlx_tensor_numel(&src);
  count = (size_t)dlx_tensor_numel(&want);
  got_src = svm_copy(src.buffer->data, in_count * size);
  got = svm(count * size);
  got_i = svm(count * 8);
  host_access(a, sizeof *a, 1);
  memset(a, 0, sizeof *a);
  a->op = op;
  a->is_double = dtype == DLX_FLOAT64;
  a->has_indices = indices;
  a->planes = c.planes;
  a->in_h = c.in_h;
  a->in_w = c.in_w;
  a->out_h = c.out_h;
  a->out_w = c.out_w;
  for (int d = 0; d < 2; d++) {
    a->size[d] = c.req.kernel[d];
    a->stride[d] = c.req.stride[d];
    a->padding[d] = c.req.padding[d];
    a->dilation[d] = c.req.dilation[d];
    a->scale[d] = c.req.scale[d];
  }
  a->count_include_pad = c.req.count_include_pad;
  a->divisor = c.req.divisor;
  a->align_corners = c.req.align_corners;
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_IMAGE, 1 + next_random() % 2, (void *const[]){got, got_i, got_src, a},
            4) == 0);
  host_access(got, count * size, 1);
  host_access(got_i, count * 8, 1);
  image_case_check(&c, number, got, got_i, &want, &want_i);
  host_access(got, count * size, 0);
  host_access(got_i, count * 8, 0);
  dlx_tensor_close(&src);
  dlx_tensor_close(&want);
  dlx_tensor_close(&want_i);
  clSVMFree(context, got_src);
  clSVMFree(context, got);
  clSVMFree(context, got_i);
  clSVMFree(context, a);
}

void test_images(void) {
  static const dlx_image_op ops[] = {DLX_IMAGE_MAX_POOL, DLX_IMAGE_AVG_POOL, DLX_IMAGE_NEAREST,
                                     DLX_IMAGE_BILINEAR, DLX_IMAGE_BICUBIC};
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
    for (int n = 0; n < 40; n++) {
      test_image_case(ops[o], DLX_FLOAT32, n);
      test_image_case(ops[o], DLX_FLOAT64, n);
    }
}
