/* image.cl -- the Level Zero backend's image_op (dlx_image): max and average pooling and the
 * nearest, bilinear and bicubic resizes, part of the module that dlx_kernels.cl makes (it
 * includes this file). A work-item per output element computes it with the rules of
 * src/common/image_rules.h, as the CPU's kernels (src/cpu/image.c) and the CUDA kernels do:
 * the same source positions, weights and order of the sums, FP_CONTRACT OFF (image_rules.h), so
 * the max pools and resizes give the CPU's bits. */
#include "common/image_rules.h"

/* Output element i of a [planes, out_h, out_w] result of dtype T (S: image_rules.h's suffix). */
#define IMAGE_ELEMENT(T, S)                                                                        \
  static T image_max_##S(__global const T *p, __global const dlx_ze_image_args *a, long oh,       \
                         long ow, long *at) {                                                     \
    long ih0, ih1, iw0, iw1, pos;                                                                  \
    T best = -(T)INFINITY;                                                                         \
    dlx_image_max_window(oh, a->in_h, a->size[0], a->stride[0], a->padding[0], a->dilation[0],  \
                         &ih0, &ih1);                                                              \
    dlx_image_max_window(ow, a->in_w, a->size[1], a->stride[1], a->padding[1], a->dilation[1],  \
                         &iw0, &iw1);                                                              \
    pos = ih0 * a->in_w + iw0;                                                                     \
    for (long ih = ih0; ih < ih1; ih += a->dilation[0])                                            \
      for (long iw = iw0; iw < iw1; iw += a->dilation[1]) {                                        \
        T v = p[ih * a->in_w + iw];                                                                \
        if (dlx_image_max_takes_##S(v, best)) {                                                    \
          best = v;                                                                                \
          pos = ih * a->in_w + iw;                                                                 \
        }                                                                                          \
      }                                                                                            \
    *at = pos;                                                                                     \
    return best;                                                                                   \
  }                                                                                                \
  static T image_avg_##S(__global const T *p, __global const dlx_ze_image_args *a, long oh,       \
                         long ow) {                                                                \
    long h0, h1, ph, w0, w1, pw;                                                                   \
    T sum = (T)0.0;                                                                                \
    dlx_image_avg_window(oh, a->in_h, a->size[0], a->stride[0], a->padding[0], &h0, &h1, &ph);  \
    dlx_image_avg_window(ow, a->in_w, a->size[1], a->stride[1], a->padding[1], &w0, &w1, &pw);  \
    if (h0 >= h1 || w0 >= w1) return (T)0.0;                                                       \
    for (long ih = h0; ih < h1; ih++)                                                              \
      for (long iw = w0; iw < w1; iw++) sum += p[ih * a->in_w + iw];                               \
    return sum / (T)dlx_image_avg_divisor(a->divisor, (int)a->count_include_pad, h0, h1, w0, w1,  \
                                          ph, pw);                                                 \
  }                                                                                                \
  static T image_resize_##S(__global const T *p, __global const dlx_ze_image_args *a, long oh,    \
                            long ow) {                                                             \
    long iy[4] = {0, 0, 0, 0}, ix[4] = {0, 0, 0, 0};                                               \
    T wy[4] = {0, 0, 0, 0}, wx[4] = {0, 0, 0, 0}, rows[4] = {0, 0, 0, 0};                          \
    int cubic = a->op == DLX_ZE_IMAGE_BICUBIC, align = (int)a->align_corners;                      \
    if (a->op == DLX_ZE_IMAGE_NEAREST) {                                                           \
      float sh = dlx_image_scale_f(a->in_h, a->out_h, 0, a->scale[0]);                             \
      float sw = dlx_image_scale_f(a->in_w, a->out_w, 0, a->scale[1]);                             \
      return p[dlx_image_nearest(oh, a->in_h, sh) * a->in_w +                                      \
               dlx_image_nearest(ow, a->in_w, sw)];                                                \
    }                                                                                              \
    dlx_image_taps_##S(oh, a->in_h, a->out_h,                                                      \
                       dlx_image_scale_##S(a->in_h, a->out_h, align, a->scale[0]), align, cubic,   \
                       iy, wy);                                                                    \
    dlx_image_taps_##S(ow, a->in_w, a->out_w,                                                      \
                       dlx_image_scale_##S(a->in_w, a->out_w, align, a->scale[1]), align, cubic,   \
                       ix, wx);                                                                    \
    for (int k = 0; k < (cubic ? 4 : 2); k++) {                                                    \
      __global const T *row = p + iy[k] * a->in_w;                                                 \
      rows[k] = cubic ? dlx_image_sum4_##S(row[ix[0]], wx[0], row[ix[1]], wx[1], row[ix[2]],       \
                                           wx[2], row[ix[3]], wx[3])                               \
                      : dlx_image_sum2_##S(row[ix[0]], wx[0], row[ix[1]], wx[1]);                  \
    }                                                                                              \
    return cubic ? dlx_image_sum4_##S(rows[0], wy[0], rows[1], wy[1], rows[2], wy[2], rows[3],     \
                                      wy[3])                                                       \
                 : dlx_image_sum2_##S(rows[0], wy[0], rows[1], wy[1]);                             \
  }                                                                                                \
  static void image_element_##S(__global T *dst, __global long *indices, __global const T *src,   \
                                __global const dlx_ze_image_args *a, long i) {                     \
    long plane = i / (a->out_h * a->out_w), at = i - plane * a->out_h * a->out_w;                  \
    long oh = at / a->out_w, ow = at - oh * a->out_w, pos;                                         \
    __global const T *p = src + plane * a->in_h * a->in_w;                                         \
    if (a->op == DLX_ZE_IMAGE_MAX_POOL) {                                                          \
      dst[i] = image_max_##S(p, a, oh, ow, &pos);                                                  \
      if (a->has_indices) indices[i] = pos + 1;                                                    \
    } else if (a->op == DLX_ZE_IMAGE_AVG_POOL) {                                                   \
      dst[i] = image_avg_##S(p, a, oh, ow);                                                        \
    } else {                                                                                       \
      dst[i] = image_resize_##S(p, a, oh, ow);                                                     \
    }                                                                                              \
  }

IMAGE_ELEMENT(float, f)
IMAGE_ELEMENT(double, d)

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_image(__global uchar *dst, __global long *indices, __global const uchar *src,
          __global const dlx_ze_image_args *a) {
  long count = a->planes * a->out_h * a->out_w;
  for (long i = get_global_id(0); i < count; i += get_global_size(0)) {
    if (a->is_double)
      image_element_d((__global double *)dst, indices, (__global const double *)src, a, i);
    else
      image_element_f((__global float *)dst, indices, (__global const float *)src, a, i);
  }
}
