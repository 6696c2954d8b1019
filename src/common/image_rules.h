/* image_rules.h -- the per-output-element rules of the backend entry image_op (src/core/backend.h:
 * max and average pooling, the nearest, bilinear and bicubic resizes), PyTorch's: the source
 * positions and weights of a resize (in float32 for float32, float64 for float64), Keys' cubic
 * coefficients, the window of a pool, the max pool's NaN and tie rule and the average's divisor,
 * and the order of the interpolation sums. One definition for the CPU (src/cpu/image.c), the
 * OpenCL C kernel of Level Zero (src/ze/kernels/image.cl) and the CUDA kernels
 * (src/cuda/image_kernels.cu), so every device computes an element's bits the same way. Every
 * product and sum is written out: the users compile without fused multiply-adds
 * (-ffp-contract=off, --fmad=false, FP_CONTRACT OFF). */
#ifndef DLX_COMMON_IMAGE_RULES_H
#define DLX_COMMON_IMAGE_RULES_H

#include "common/portable.h"

#if defined(__OPENCL_C_VERSION__)
#pragma OPENCL FP_CONTRACT OFF
#else
#include <math.h>
#endif

/* floor of x (float), as an index. PyTorch floors source positions in float even for float64. */
DLX_SHARED int64_t dlx_image_floor_index(float x) {
#if defined(__OPENCL_C_VERSION__)
  return (int64_t)floor(x);
#else
  return (int64_t)floorf(x);
#endif
}

/* ---- resizes: scales, source indices and weights of one dim */

/* PyTorch's compute_scales_value and area_pixel_compute_scale: given is the caller's scale
 * factor (0 when not given). */
DLX_SHARED float dlx_image_scale_f(int64_t in, int64_t out, int align, double given) {
  if (align) return out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f;
  return given > 0 ? (float)(1.0 / given) : (float)in / (float)out;
}

DLX_SHARED double dlx_image_scale_d(int64_t in, int64_t out, int align, double given) {
  if (align) return out > 1 ? (double)(in - 1) / (double)(out - 1) : 0.0;
  return given > 0 ? 1.0 / given : (double)in / (double)out;
}

/* NEAREST's source index of output index o: min(floor(o * scale), in - 1), the scale from
 * dlx_image_scale_f without align_corners (PyTorch's nearest_neighbor_compute_source_index).
 * PyTorch's CPU kernel for 2-d inputs narrower than about 119 columns (and all of 1.13's)
 * copies instead when out == in and halves when out == 2 * in, whatever scale was given (its
 * nearest_idx, "deprecated, kept for BC"); its CUDA kernels, its 1-d kernel and its 2-d kernel
 * on wider images use this rule, which differs from those shortcuts only for a given scale
 * factor other than 1 or 2 that still gives out == in or out == 2 * in (2.08 on 5 rows). */
DLX_SHARED int64_t dlx_image_nearest(int64_t o, int64_t in, float scale) {
  int64_t i = dlx_image_floor_index((float)o * scale);
  return i < in - 1 ? i : in - 1;
}

DLX_SHARED int64_t dlx_image_clamp(int64_t i, int64_t in) {
  return i < 0 ? 0 : i >= in ? in - 1 : i;
}

/* MAX_POOL: whether element v replaces the maximum held, best: a larger value or any NaN (the
 * last NaN wins, ties keep the first). A macro too, for loops that vectorize only with the
 * expression written out (the CPU's blocks of outputs). */
#define DLX_IMAGE_MAX_TAKES(v, best) ((v) > (best) || (v) != (v))

/* The taps of output index o of a BILINEAR (cubic 0: 2 taps) or BICUBIC (4 taps) dim: source
 * indices idx and weights w, in the order of the sums. The source index floors the position as
 * float (guard_index_and_lambda); a BILINEAR dim whose out == in copies (weights 1 and 0). Keys'
 * cubic convolution has A = -0.75 (get_cubic_upsample_coefficients). */
#define DLX_IMAGE_DEFINE_TAPS(T, SUFFIX)                                                           \
  DLX_SHARED void dlx_image_cubic_##SUFFIX(T t, T *c) {                                            \
    const T A = (T)-0.75, x1 = t, x2 = (T)1.0 - t, y1 = x1 + (T)1.0, y2 = x2 + (T)1.0;             \
    c[0] = ((A * y1 - (T)5.0 * A) * y1 + (T)8.0 * A) * y1 - (T)4.0 * A;                            \
    c[1] = ((A + (T)2.0) * x1 - (A + (T)3.0)) * x1 * x1 + (T)1.0;                                  \
    c[2] = ((A + (T)2.0) * x2 - (A + (T)3.0)) * x2 * x2 + (T)1.0;                                  \
    c[3] = ((A * y2 - (T)5.0 * A) * y2 + (T)8.0 * A) * y2 - (T)4.0 * A;                            \
  }                                                                                                \
  DLX_SHARED void dlx_image_taps_##SUFFIX(int64_t o, int64_t in, int64_t out, T scale, int align,  \
                                          int cubic, int64_t *idx, T *w) {                         \
    T real, lambda;                                                                                \
    int64_t i0;                                                                                    \
    if (!cubic && out == in) { /* PyTorch copies this dim */                                       \
      idx[0] = idx[1] = o;                                                                         \
      w[0] = (T)1.0;                                                                               \
      w[1] = (T)0.0;                                                                               \
      return;                                                                                      \
    }                                                                                              \
    real = align ? scale * (T)o : scale * ((T)o + (T)0.5) - (T)0.5;                                \
    if (!align && !cubic && real < (T)0.0) real = (T)0.0;                                          \
    i0 = dlx_image_floor_index((float)real);                                                       \
    if (i0 > in - 1) i0 = in - 1;                                                                  \
    lambda = real - (T)i0;                                                                         \
    lambda = lambda < (T)0.0 ? (T)0.0 : lambda > (T)1.0 ? (T)1.0 : lambda;                         \
    if (!cubic) {                                                                                  \
      idx[0] = i0;                                                                                 \
      idx[1] = i0 + (i0 < in - 1 ? 1 : 0);                                                         \
      w[1] = lambda;                                                                               \
      w[0] = (T)1.0 - lambda;                                                                      \
    } else {                                                                                       \
      for (int j = 0; j < 4; j++) idx[j] = dlx_image_clamp(i0 - 1 + j, in);                        \
      dlx_image_cubic_##SUFFIX(lambda, w);                                                         \
    }                                                                                              \
  }                                                                                                \
  /* The sums of the taps, in PyTorch's order: along w for each source row, then along h. */       \
  DLX_SHARED T dlx_image_sum2_##SUFFIX(T a0, T w0, T a1, T w1) { return a0 * w0 + a1 * w1; }       \
  DLX_SHARED T dlx_image_sum4_##SUFFIX(T a0, T w0, T a1, T w1, T a2, T w2, T a3, T w3) {           \
    T v = a0 * w0;                                                                                 \
    v += a1 * w1;                                                                                  \
    v += a2 * w2;                                                                                  \
    v += a3 * w3;                                                                                  \
    return v;                                                                                      \
  }                                                                                                \
  DLX_SHARED int dlx_image_max_takes_##SUFFIX(T v, T best) { return DLX_IMAGE_MAX_TAKES(v, best); }

DLX_IMAGE_DEFINE_TAPS(float, f)
DLX_IMAGE_DEFINE_TAPS(double, d)

/* ---- pools: the windows of one dim */

/* MAX_POOL's window of output index o along a dim of size in: the indices first, first + dil,
 * ... below end that lie inside the input. first is the first index at or past 0 (it may be
 * >= end, even >= in: then the window is empty and its position PyTorch's, first's). */
DLX_SHARED void dlx_image_max_window(int64_t o, int64_t in, int64_t size, int64_t stride,
                                     int64_t padding, int64_t dil, int64_t *first, int64_t *end) {
  int64_t start = o * stride - padding, stop = start + (size - 1) * dil + 1;
  if (stop > in) stop = in;
  while (start < 0) start += dil;
  *first = start;
  *end = stop;
}

/* AVG_POOL's window of output index o: the indices first .. end - 1 inside the input, and the
 * window's size within the input padded by padding (count_include_pad's divisor). */
DLX_SHARED void dlx_image_avg_window(int64_t o, int64_t in, int64_t size, int64_t stride,
                                     int64_t padding, int64_t *first, int64_t *end,
                                     int64_t *padded) {
  int64_t start = o * stride - padding, stop = start + size;
  if (stop > in + padding) stop = in + padding;
  *padded = stop - start;
  *first = start < 0 ? 0 : start;
  *end = stop < in ? stop : in;
}

/* AVG_POOL's divisor of a window of rows h0 .. h1 - 1 and columns w0 .. w1 - 1 (not empty) whose
 * padded sizes are ph and pw: divisor_override (divisor > 0), else the padded size
 * (count_include_pad), else the size inside the input. */
DLX_SHARED int64_t dlx_image_avg_divisor(int64_t divisor, int count_include_pad, int64_t h0,
                                         int64_t h1, int64_t w0, int64_t w1, int64_t ph,
                                         int64_t pw) {
  if (divisor > 0) return divisor;
  return count_include_pad ? ph * pw : (h1 - h0) * (w1 - w0);
}

#endif
