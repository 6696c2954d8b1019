/* image_element.h -- one output element of the CUDA image_op kernels (image_kernels.cu): max and
 * average pooling and the nearest, bilinear and bicubic resizes, with the rules of
 * src/common/image_rules.h that the CPU's kernels (src/cpu/image.c) follow:
 * - MAX_POOL: the window's elements in PyTorch's order (rows, then columns), the maximum with
 *   dlx_image_max_takes, its 1-based position in the plane;
 * - AVG_POOL: the sum in the dtype in the same order, over dlx_image_avg_divisor;
 * - resizes: the taps of the output row and column, each source row interpolated along w, then
 *   those values along h, every sum in the CPU's order (dlx_image_sum2, dlx_image_sum4), so each
 *   element has the CPU's bits (the kernels are built with --fmad=false).
 *
 * CUDA C++, host and device: tests/c/cuda_image_rules.cpp compiles this header with the host C++
 * compiler and checks it against the CPU backend, since a GPU is not always at hand. */
#ifndef DLX_CUDA_IMAGE_ELEMENT_H
#define DLX_CUDA_IMAGE_ELEMENT_H

#include "common/image_rules.h"
#include "cuda/kernels.h"

/* A function of this header: for host and device in CUDA, plain inline C++ on the host. */
#if defined(__CUDACC__)
#define DLX_CUDA_IMAGE_FN __host__ __device__ inline
#else
#define DLX_CUDA_IMAGE_FN inline
#endif

/* The dtype's functions of image_rules.h: those of suffix S (float: f, double: d) for T. */
template <typename T> struct dlx_cuda_image_rules;

#define DLX_CUDA_IMAGE_RULES(T, S)                                                                 \
  template <> struct dlx_cuda_image_rules<T> {                                                     \
    static DLX_CUDA_IMAGE_FN T scale(int64_t in, int64_t out, int align, double given) {           \
      return dlx_image_scale_##S(in, out, align, given);                                           \
    }                                                                                              \
    static DLX_CUDA_IMAGE_FN void taps(int64_t o, int64_t in, int64_t out, T scale, int align,     \
                                       int cubic, int64_t *idx, T *w) {                            \
      dlx_image_taps_##S(o, in, out, scale, align, cubic, idx, w);                                 \
    }                                                                                              \
    static DLX_CUDA_IMAGE_FN T sum2(T a0, T w0, T a1, T w1) {                                      \
      return dlx_image_sum2_##S(a0, w0, a1, w1);                                                   \
    }                                                                                              \
    static DLX_CUDA_IMAGE_FN T sum4(const T *a, const T *w) {                                      \
      return dlx_image_sum4_##S(a[0], w[0], a[1], w[1], a[2], w[2], a[3], w[3]);                   \
    }                                                                                              \
    static DLX_CUDA_IMAGE_FN int takes(T v, T best) { return dlx_image_max_takes_##S(v, best); }   \
  };
DLX_CUDA_IMAGE_RULES(float, f)
DLX_CUDA_IMAGE_RULES(double, d)
#undef DLX_CUDA_IMAGE_RULES

/* The maximum of the window of output (oh, ow) of plane (its first element at plane_src), and
 * its 1-based position when index is not NULL. */
template <typename T>
DLX_CUDA_IMAGE_FN T dlx_cuda_image_max(const dlx_cuda_image_request &r, const T *plane_src,
                                       int64_t oh, int64_t ow, int64_t *index) {
  int64_t ih0, ih1, iw0, iw1, pos;
  T best = -(T)INFINITY;
  dlx_image_max_window(oh, r.in_h, r.kernel[0], r.stride[0], r.padding[0], r.dilation[0], &ih0,
                       &ih1);
  dlx_image_max_window(ow, r.in_w, r.kernel[1], r.stride[1], r.padding[1], r.dilation[1], &iw0,
                       &iw1);
  pos = ih0 * r.in_w + iw0;
  for (int64_t ih = ih0; ih < ih1; ih += r.dilation[0])
    for (int64_t iw = iw0; iw < iw1; iw += r.dilation[1]) {
      T v = plane_src[ih * r.in_w + iw];
      if (dlx_cuda_image_rules<T>::takes(v, best)) {
        best = v;
        pos = ih * r.in_w + iw;
      }
    }
  if (index != nullptr) *index = pos + 1;
  return best;
}

/* The average of the window of output (oh, ow). */
template <typename T>
DLX_CUDA_IMAGE_FN T dlx_cuda_image_avg(const dlx_cuda_image_request &r, const T *plane_src,
                                       int64_t oh, int64_t ow) {
  int64_t h0, h1, ph, w0, w1, pw;
  T sum = (T)0.0;
  dlx_image_avg_window(oh, r.in_h, r.kernel[0], r.stride[0], r.padding[0], &h0, &h1, &ph);
  dlx_image_avg_window(ow, r.in_w, r.kernel[1], r.stride[1], r.padding[1], &w0, &w1, &pw);
  if (h0 >= h1 || w0 >= w1) return (T)0.0;
  for (int64_t ih = h0; ih < h1; ih++)
    for (int64_t iw = w0; iw < w1; iw++) sum += plane_src[ih * r.in_w + iw];
  return sum / (T)dlx_image_avg_divisor(r.divisor, r.count_include_pad, h0, h1, w0, w1, ph, pw);
}

/* The resized element (oh, ow): NEAREST's source element, or the taps along w of each source row
 * and those values along h. */
template <typename T>
DLX_CUDA_IMAGE_FN T dlx_cuda_image_resize(const dlx_cuda_image_request &r, const T *plane_src,
                                          int64_t oh, int64_t ow) {
  typedef dlx_cuda_image_rules<T> rules;
  int64_t iy[4] = {0, 0, 0, 0}, ix[4] = {0, 0, 0, 0}; /* (BILINEAR sets 2 of each) */
  T wy[4] = {0, 0, 0, 0}, wx[4] = {0, 0, 0, 0}, rows[4] = {0, 0, 0, 0};
  int cubic = r.op == DLX_CUDA_IMAGE_BICUBIC, taps = cubic ? 4 : 2;
  if (r.op == DLX_CUDA_IMAGE_NEAREST) {
    float sh = dlx_image_scale_f(r.in_h, r.out_h, 0, r.scale[0]);
    float sw = dlx_image_scale_f(r.in_w, r.out_w, 0, r.scale[1]);
    return plane_src[dlx_image_nearest(oh, r.in_h, r.out_h, sh) * r.in_w +
                     dlx_image_nearest(ow, r.in_w, r.out_w, sw)];
  }
  rules::taps(oh, r.in_h, r.out_h, rules::scale(r.in_h, r.out_h, r.align_corners, r.scale[0]),
              r.align_corners, cubic, iy, wy);
  rules::taps(ow, r.in_w, r.out_w, rules::scale(r.in_w, r.out_w, r.align_corners, r.scale[1]),
              r.align_corners, cubic, ix, wx);
  for (int k = 0; k < taps; k++) {
    const T *row = plane_src + iy[k] * r.in_w;
    if (cubic) {
      T a[4] = {row[ix[0]], row[ix[1]], row[ix[2]], row[ix[3]]};
      rows[k] = rules::sum4(a, wx);
    } else {
      rows[k] = rules::sum2(row[ix[0]], wx[0], row[ix[1]], wx[1]);
    }
  }
  return cubic ? rules::sum4(rows, wy) : rules::sum2(rows[0], wy[0], rows[1], wy[1]);
}

/* Output element i (flat in [planes, out_h, out_w]) of r into dst[i] (and indices[i]). */
template <typename T>
DLX_CUDA_IMAGE_FN void dlx_cuda_image_element(const dlx_cuda_image_request &r, int64_t i,
                                              const T *src, T *dst, int64_t *indices) {
  int64_t plane = i / (r.out_h * r.out_w), at = i - plane * r.out_h * r.out_w;
  int64_t oh = at / r.out_w, ow = at - oh * r.out_w;
  const T *plane_src = src + plane * r.in_h * r.in_w;
  if (r.op == DLX_CUDA_IMAGE_MAX_POOL)
    dst[i] = dlx_cuda_image_max(r, plane_src, oh, ow, indices != nullptr ? indices + i : nullptr);
  else if (r.op == DLX_CUDA_IMAGE_AVG_POOL)
    dst[i] = dlx_cuda_image_avg(r, plane_src, oh, ow);
  else
    dst[i] = dlx_cuda_image_resize(r, plane_src, oh, ow);
}

#endif
