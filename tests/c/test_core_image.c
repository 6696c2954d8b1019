/* test_core_image.c -- the core's pooling and resizing (core/image.h) from C alone: PyTorch's
 * pooling output sizes, the checks of a request (dtype, shape, parameters, output size), and a
 * max pool with indices, an average pool and a bilinear resize through the CPU's image_op on a
 * strided input, with values worked out by hand. */
#include <math.h>

#include "check.h"
#include "core/image.h"
#include "cpu/cpu.h"
#include "cpu_test_util.h"

static void test_out_sizes(void) {
  /* floor((n + 2p - d (k - 1) - 1) / s) + 1, rounded up with ceil_mode unless the last window
   * would start past the input and its left padding */
  CHECK_EQ_INT(dlx_pool_out_size(112, 3, 2, 1, 1, false), 56);
  CHECK_EQ_INT(dlx_pool_out_size(5, 2, 2, 0, 1, false), 2);
  CHECK_EQ_INT(dlx_pool_out_size(5, 2, 2, 0, 1, true), 3);
  CHECK_EQ_INT(dlx_pool_out_size(6, 2, 2, 0, 1, true), 3);
  CHECK_EQ_INT(dlx_pool_out_size(5, 3, 2, 1, 1, true), 3);
  CHECK_EQ_INT(dlx_pool_out_size(4, 2, 3, 1, 1, true), 2); /* (2 - 1) * 3 >= 4 + 1: no third */
  CHECK_EQ_INT(dlx_pool_out_size(5, 2, 1, 0, 2, false), 3);
  CHECK(dlx_pool_out_size(2, 5, 1, 0, 1, false) <= 0);
  CHECK(dlx_pool_out_size(1, 2, 1, 0, 2, false) <= 0);
}

/* A [1, 4, 4] float32 tensor of 0 .. 15 in row-major order, stored column-major (strides 16,
 * 1, 4): the core makes it contiguous before the kernel. */
static dlx_tensor grid(dlx_buffer *b) {
  int64_t shape[3] = {1, 4, 4}, strides[3] = {16, 1, 4};
  float *f = b->data;
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 4; c++) f[c * 4 + r] = (float)(r * 4 + c); /* column-major storage */
  return make_tensor(b, DLX_FLOAT32, 3, shape, strides, 0);
}

static void test_kernels(void) {
  dlx_buffer *b = new_buffer(16 * sizeof(float));
  dlx_tensor t = grid(b), out, idx;
  dlx_error err;
  dlx_image_request max = {
      .op = DLX_IMAGE_MAX_POOL, .kernel = {2, 2}, .stride = {2, 2}, .dilation = {1, 1}};
  dlx_image_request avg = max, bil = {.op = DLX_IMAGE_BILINEAR, .align_corners = true};
  avg.op = DLX_IMAGE_AVG_POOL;
  avg.count_include_pad = true;
  CHECK_EQ_INT(dlx_image(&out, &idx, &max, &t, 2, 2, &err), 0);
  {
    const float *v = out.buffer->data;
    const int64_t *i = idx.buffer->data;
    CHECK(v[0] == 5 && v[1] == 7 && v[2] == 13 && v[3] == 15);
    CHECK(i[0] == 6 && i[1] == 8 && i[2] == 14 && i[3] == 16);
  }
  dlx_tensor_close(&out);
  dlx_tensor_close(&idx);
  CHECK_EQ_INT(dlx_image(&out, NULL, &avg, &t, 2, 2, &err), 0);
  {
    const float *v = out.buffer->data;
    CHECK(v[0] == 2.5f && v[1] == 4.5f && v[2] == 10.5f && v[3] == 12.5f);
  }
  dlx_tensor_close(&out);
  /* align_corners, 4 -> 7: the source positions step by 1/2 */
  CHECK_EQ_INT(dlx_image(&out, NULL, &bil, &t, 7, 7, &err), 0);
  {
    const float *v = out.buffer->data;
    CHECK(v[0] == 0 && v[1] == 0.5f && v[7] == 2 && v[8] == 2.5f && v[48] == 15);
  }
  dlx_tensor_close(&out);
  free_buffer(b);
}

static void test_checks(void) {
  dlx_buffer *b = new_buffer(16 * sizeof(double));
  int64_t shape[3] = {1, 4, 4}, strides[3] = {16, 4, 1}, flat[2] = {4, 4}, fstr[2] = {4, 1};
  dlx_tensor t = make_tensor(b, DLX_FLOAT32, 3, shape, strides, 0), out;
  dlx_tensor ints = make_tensor(b, DLX_INT32, 3, shape, strides, 0);
  dlx_tensor two_d = make_tensor(b, DLX_FLOAT32, 2, flat, fstr, 0);
  dlx_error err;
  dlx_image_request max = {
      .op = DLX_IMAGE_MAX_POOL, .kernel = {2, 2}, .stride = {2, 2}, .dilation = {1, 1}};
  dlx_image_request bad = max;
  CHECK_EQ_INT(dlx_image(&out, NULL, &max, &ints, 2, 2, &err), DLX_TYPE_ERROR);
  CHECK_EQ_INT(dlx_image(&out, NULL, &max, &two_d, 2, 2, &err), DLX_VALUE_ERROR);
  CHECK_EQ_INT(dlx_image(&out, NULL, &max, &t, 3, 2, &err), DLX_VALUE_ERROR);
  CHECK_EQ_INT(dlx_image(&out, NULL, &max, &t, 0, 2, &err), DLX_VALUE_ERROR);
  bad.padding[0] = 2;
  CHECK_EQ_INT(dlx_image(&out, NULL, &bad, &t, 3, 2, &err), DLX_VALUE_ERROR);
  bad = max;
  bad.stride[1] = 0;
  CHECK_EQ_INT(dlx_image(&out, NULL, &bad, &t, 2, 2, &err), DLX_VALUE_ERROR);
  free_buffer(b);
}

int main(void) {
  test_out_sizes();
  test_kernels();
  test_checks();
  return check_report("test_core_image");
}
