/* image.c -- the CPU's image_op (core/backend.h): max and average pooling and the nearest,
 * bilinear and bicubic resizes of each plane of a [planes, h, w] tensor, float32 and float64.
 *
 * Every output element is computed as PyTorch's CPU kernels compute it (the same source
 * positions and weights, in float32 for float32, and the same order of the sums), so results
 * agree with PyTorch to the last bit or close to it (PyTorch's build may fuse a multiply and an
 * add; this file never does: -ffp-contract=off). The resizes are separable: each input row a
 * block needs is interpolated along w once, into a small cache of rows, and the output rows
 * combine those rows along h, a loop that vectorizes. Work is split by output rows, and each
 * element is computed the same way whatever the split, so threads never change a result. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/image_rules.h"
#include "cpu/kernels.h"
#include "cpu/parallel.h"

/* ---- the source positions and weights of one dim of a resize */

typedef struct axis {
  int64_t *idx; /* out * taps source indices */
  void *w;      /* out * taps weights, of the dtype (NULL for NEAREST) */
  int taps;
} axis;

static void nearest_axis(axis *a, int64_t in, int64_t out, double given) {
  float scale = dlx_image_scale_f(in, out, false, given);
  for (int64_t o = 0; o < out; o++) a->idx[o] = dlx_image_nearest(o, in, scale);
}

static void linear_axis_f(axis *a, int64_t in, int64_t out, bool align, double given, bool cubic) {
  float scale = dlx_image_scale_f(in, out, align, given), *w = a->w;
  for (int64_t o = 0; o < out; o++)
    dlx_image_taps_f(o, in, out, scale, align, cubic, a->idx + o * a->taps, w + o * a->taps);
}

static void linear_axis_d(axis *a, int64_t in, int64_t out, bool align, double given, bool cubic) {
  double scale = dlx_image_scale_d(in, out, align, given), *w = a->w;
  for (int64_t o = 0; o < out; o++)
    dlx_image_taps_d(o, in, out, scale, align, cubic, a->idx + o * a->taps, w + o * a->taps);
}

static void axis_free(axis *a) {
  free(a->idx);
  free(a->w);
}

static bool axis_make(axis *a, const dlx_image_request *r, int d, int64_t in, int64_t out) {
  bool is_f32 = r->src->dtype == DLX_FLOAT32;
  size_t size = is_f32 ? sizeof(float) : sizeof(double);
  a->taps = r->op == DLX_IMAGE_NEAREST ? 1 : r->op == DLX_IMAGE_BILINEAR ? 2 : 4;
  a->idx = malloc((size_t)(out * a->taps) * sizeof(int64_t));
  a->w = r->op == DLX_IMAGE_NEAREST ? NULL : malloc((size_t)(out * a->taps) * size);
  if (a->idx == NULL || (r->op != DLX_IMAGE_NEAREST && a->w == NULL)) {
    axis_free(a);
    return false;
  }
  if (r->op == DLX_IMAGE_NEAREST)
    nearest_axis(a, in, out, r->scale[d]);
  else if (is_f32)
    linear_axis_f(a, in, out, r->align_corners, r->scale[d], r->op == DLX_IMAGE_BICUBIC);
  else
    linear_axis_d(a, in, out, r->align_corners, r->scale[d], r->op == DLX_IMAGE_BICUBIC);
  return true;
}

/* ---- the job: one call's sizes and pointers, split by output rows (planes * out_h) */

typedef struct image_job {
  const dlx_image_request *r;
  int64_t in_h, in_w, out_h, out_w;
  const char *src;
  char *dst;
  int64_t *indices;
  axis ah, aw;
  atomic_bool failed; /* a block's row cache could not be allocated */
} image_job;

/* ---- pooling */

/* The maximum of a window (rows ih0 .. ih1 - 1 step dh, columns iw0 .. iw1 - 1 step dw) and,
 * when `at` is not NULL, its position; branch-free selects, in PyTorch's order. */
#define DEFINE_WINDOW_MAX(T, NAME)                                                                 \
  static T NAME(const T *src, int64_t in_w, int64_t ih0, int64_t ih1, int64_t dh, int64_t iw0,     \
                int64_t iw1, int64_t dw, int64_t *at) {                                            \
    T best = (T)-INFINITY;                                                                         \
    if (at == NULL) {                                                                              \
      for (int64_t ih = ih0; ih < ih1; ih += dh) {                                                 \
        const T *row = src + ih * in_w;                                                            \
        for (int64_t iw = iw0; iw < iw1; iw += dw) {                                               \
          T v = row[iw];                                                                           \
          best = DLX_IMAGE_MAX_TAKES(v, best) ? v : best;                                          \
        }                                                                                          \
      }                                                                                            \
      return best;                                                                                 \
    }                                                                                              \
    int64_t pos = ih0 * in_w + iw0;                                                                \
    for (int64_t ih = ih0; ih < ih1; ih += dh) {                                                   \
      const T *row = src + ih * in_w;                                                              \
      for (int64_t iw = iw0; iw < iw1; iw += dw) {                                                 \
        T v = row[iw];                                                                             \
        bool take = DLX_IMAGE_MAX_TAKES(v, best);                                                  \
        best = take ? v : best;                                                                    \
        pos = take ? ih * in_w + iw : pos;                                                         \
      }                                                                                            \
    }                                                                                              \
    *at = pos;                                                                                     \
    return best;                                                                                   \
  }

/* The windows of outputs ow0 .. ow0 + n - 1 (n <= MAX_BLOCK), whose columns all lie inside
 * the input: the taps outer and the outputs inner, so that the n running maxima are
 * independent (and vectorize); each output still sees its taps in PyTorch's order. The tap
 * that holds the maximum is kept as its number in the window (C: an integer as wide as T, so
 * that the selects vectorize together) and made a position at the end. */
#define MAX_BLOCK 64
#define DEFINE_BLOCK_MAX(T, C, NAME)                                                               \
  static void NAME(const T *src, int64_t in_w, int64_t ih0, int64_t ih1, int64_t dh, int64_t iw0,  \
                   int64_t sw, int64_t kw, int64_t dw, int64_t n, T *dst, int64_t *ind) {          \
    T best[MAX_BLOCK];                                                                             \
    C tap[MAX_BLOCK], t = 0;                                                                       \
    for (int64_t k = 0; k < n; k++) {                                                              \
      best[k] = (T)-INFINITY;                                                                      \
      tap[k] = 0;                                                                                  \
    }                                                                                              \
    for (int64_t ih = ih0; ih < ih1; ih += dh)                                                     \
      for (int64_t c = 0; c < kw; c++, t++) {                                                      \
        const T *p = src + ih * in_w + iw0 + c * dw;                                               \
        if (ind == NULL) {                                                                         \
          for (int64_t k = 0; k < n; k++) {                                                        \
            T v = p[k * sw];                                                                       \
            best[k] = DLX_IMAGE_MAX_TAKES(v, best[k]) ? v : best[k];                               \
          }                                                                                        \
        } else {                                                                                   \
          for (int64_t k = 0; k < n; k++) {                                                        \
            T v = p[k * sw];                                                                       \
            bool take = DLX_IMAGE_MAX_TAKES(v, best[k]);                                           \
            best[k] = take ? v : best[k];                                                          \
            tap[k] = take ? t : tap[k];                                                            \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    for (int64_t k = 0; k < n; k++) dst[k] = best[k];                                              \
    if (ind != NULL)                                                                               \
      for (int64_t k = 0; k < n; k++)                                                              \
        ind[k] = (ih0 + tap[k] / kw * dh) * in_w + iw0 + k * sw + tap[k] % kw * dw + 1;            \
  }

/* The outputs [*lo, *hi) of a row whose windows' columns all lie inside the input. */
static void inner_columns(const image_job *j, int64_t *lo, int64_t *hi) {
  const dlx_image_request *r = j->r;
  int64_t sw = r->stride[1], pw = r->padding[1];
  int64_t last = j->in_w - 1 + pw - (r->kernel[1] - 1) * r->dilation[1]; /* ow * sw <= last */
  *lo = (pw + sw - 1) / sw;
  *hi = last < 0 ? 0 : last / sw + 1;
  if (*hi > j->out_w) *hi = j->out_w;
  if (*hi < *lo) *hi = *lo;
  if (*lo > j->out_w) *lo = *hi = j->out_w;
}

#define DEFINE_MAX_POOL(T, C, NAME)                                                                \
  DEFINE_WINDOW_MAX(T, NAME##_window)                                                              \
  DEFINE_BLOCK_MAX(T, C, NAME##_block)                                                             \
  static void NAME(image_job *j, int64_t begin, int64_t end) {                                     \
    const dlx_image_request *r = j->r;                                                             \
    int64_t sh = r->stride[0], sw = r->stride[1], ph = r->padding[0], pw = r->padding[1];          \
    int64_t dh = r->dilation[0], dw = r->dilation[1], kh = r->kernel[0], kw = r->kernel[1];        \
    int64_t lo, hi;                                                                                \
    inner_columns(j, &lo, &hi);                                                                    \
    for (int64_t row = begin; row < end; row++) {                                                  \
      int64_t plane = row / j->out_h, oh = row % j->out_h;                                         \
      const T *src = (const T *)j->src + plane * j->in_h * j->in_w;                                \
      T *dst = (T *)j->dst + row * j->out_w;                                                       \
      int64_t *ind = j->indices != NULL ? j->indices + row * j->out_w : NULL;                      \
      int64_t ih0, ih1;                                                                            \
      dlx_image_max_window(oh, j->in_h, kh, sh, ph, dh, &ih0, &ih1);                               \
      for (int64_t ow = 0; ow < j->out_w; ow++) {                                                  \
        int64_t iw0, iw1, at;                                                                      \
        if (ow == lo && hi > lo) { /* the inner outputs, a block at a time */                      \
          for (; ow < hi; ow += MAX_BLOCK) {                                                       \
            int64_t n = hi - ow < MAX_BLOCK ? hi - ow : MAX_BLOCK;                                 \
            NAME##_block(src, j->in_w, ih0, ih1, dh, ow *sw - pw, sw, kw, dw, n, dst + ow,         \
                         ind != NULL ? ind + ow : NULL);                                           \
          }                                                                                        \
          ow = hi - 1;                                                                             \
          continue;                                                                                \
        }                                                                                          \
        dlx_image_max_window(ow, j->in_w, kw, sw, pw, dw, &iw0, &iw1);                             \
        dst[ow] = NAME##_window(src, j->in_w, ih0, ih1, dh, iw0, iw1, dw, ind ? &at : NULL);       \
        if (ind != NULL) ind[ow] = at + 1;                                                         \
      }                                                                                            \
    }                                                                                              \
  }

DEFINE_MAX_POOL(float, int32_t, max_pool_f)
DEFINE_MAX_POOL(double, int64_t, max_pool_d)

#define DEFINE_AVG_POOL(T, NAME)                                                                   \
  static void NAME(image_job *j, int64_t begin, int64_t end) {                                     \
    const dlx_image_request *r = j->r;                                                             \
    int64_t sh = r->stride[0], sw = r->stride[1], ph = r->padding[0], pw = r->padding[1];          \
    int64_t kh = r->kernel[0], kw = r->kernel[1];                                                  \
    for (int64_t row = begin; row < end; row++) {                                                  \
      int64_t plane = row / j->out_h, oh = row % j->out_h;                                         \
      const T *src = (const T *)j->src + plane * j->in_h * j->in_w;                                \
      T *dst = (T *)j->dst + row * j->out_w;                                                       \
      int64_t h0, h1, padded_h;                                                                    \
      dlx_image_avg_window(oh, j->in_h, kh, sh, ph, &h0, &h1, &padded_h);                          \
      for (int64_t ow = 0; ow < j->out_w; ow++) {                                                  \
        int64_t w0, w1, padded_w;                                                                  \
        T sum = (T)0.0;                                                                            \
        dlx_image_avg_window(ow, j->in_w, kw, sw, pw, &w0, &w1, &padded_w);                        \
        if (h0 >= h1 || w0 >= w1) {                                                                \
          dst[ow] = (T)0.0;                                                                        \
          continue;                                                                                \
        }                                                                                          \
        for (int64_t ih = h0; ih < h1; ih++)                                                       \
          for (int64_t iw = w0; iw < w1; iw++) sum += src[ih * j->in_w + iw];                      \
        dst[ow] = sum / (T)dlx_image_avg_divisor(r->divisor, r->count_include_pad, h0, h1, w0, w1, \
                                                 padded_h, padded_w);                              \
      }                                                                                            \
    }                                                                                              \
  }

DEFINE_AVG_POOL(float, avg_pool_f)
DEFINE_AVG_POOL(double, avg_pool_d)

/* ---- resizes */

#define DEFINE_NEAREST(T, NAME)                                                                    \
  static void NAME(image_job *j, int64_t begin, int64_t end) {                                     \
    for (int64_t row = begin; row < end; row++) {                                                  \
      int64_t plane = row / j->out_h, oh = row % j->out_h;                                         \
      const T *src = (const T *)j->src + (plane * j->in_h + j->ah.idx[oh]) * j->in_w;              \
      T *dst = (T *)j->dst + row * j->out_w;                                                       \
      const int64_t *ix = j->aw.idx;                                                               \
      for (int64_t ow = 0; ow < j->out_w; ow++) dst[ow] = src[ix[ow]];                             \
    }                                                                                              \
  }

DEFINE_NEAREST(float, nearest_f)
DEFINE_NEAREST(double, nearest_d)

/* The rows of a block interpolated along w: a slot per input row (row & 7: the taps of one
 * output row are at most four consecutive rows, which never share a slot), valid for one
 * plane. */
#define CACHE_ROWS 8

#define DEFINE_SEPARABLE(T, S, NAME)                                                               \
  static const T *NAME##_row(image_job *j, T *cache, int64_t *held, int64_t plane, int64_t ih) {   \
    int slot = (int)(ih & (CACHE_ROWS - 1));                                                       \
    T *out = cache + slot * j->out_w;                                                              \
    if (held[slot] != plane * j->in_h + ih) {                                                      \
      const T *src = (const T *)j->src + (plane * j->in_h + ih) * j->in_w;                         \
      const int64_t *ix = j->aw.idx;                                                               \
      const T *wx = j->aw.w;                                                                       \
      if (j->aw.taps == 2) {                                                                       \
        for (int64_t ow = 0; ow < j->out_w; ow++)                                                  \
          out[ow] = dlx_image_sum2_##S(src[ix[2 * ow]], wx[2 * ow], src[ix[2 * ow + 1]],           \
                                       wx[2 * ow + 1]);                                            \
      } else {                                                                                     \
        for (int64_t ow = 0; ow < j->out_w; ow++) {                                                \
          const int64_t *i4 = ix + 4 * ow;                                                         \
          const T *w4 = wx + 4 * ow;                                                               \
          out[ow] = dlx_image_sum4_##S(src[i4[0]], w4[0], src[i4[1]], w4[1], src[i4[2]], w4[2],    \
                                       src[i4[3]], w4[3]);                                         \
        }                                                                                          \
      }                                                                                            \
      held[slot] = plane * j->in_h + ih;                                                           \
    }                                                                                              \
    return out;                                                                                    \
  }                                                                                                \
  static void NAME(image_job *j, int64_t begin, int64_t end) {                                     \
    int64_t held[CACHE_ROWS];                                                                      \
    T *cache = malloc((size_t)(CACHE_ROWS * j->out_w) * sizeof(T));                                \
    if (cache == NULL) {                                                                           \
      atomic_store(&j->failed, true);                                                              \
      return;                                                                                      \
    }                                                                                              \
    for (int s = 0; s < CACHE_ROWS; s++) held[s] = -1;                                             \
    for (int64_t row = begin; row < end; row++) {                                                  \
      int64_t plane = row / j->out_h, oh = row % j->out_h;                                         \
      const int64_t *iy = j->ah.idx + oh * j->ah.taps;                                             \
      const T *wy = (const T *)j->ah.w + oh * j->ah.taps;                                          \
      T *dst = (T *)j->dst + row * j->out_w;                                                       \
      if (j->ah.taps == 2) {                                                                       \
        const T *r0 = NAME##_row(j, cache, held, plane, iy[0]);                                    \
        const T *r1 = NAME##_row(j, cache, held, plane, iy[1]);                                    \
        T w0 = wy[0], w1 = wy[1];                                                                  \
        for (int64_t ow = 0; ow < j->out_w; ow++)                                                  \
          dst[ow] = dlx_image_sum2_##S(r0[ow], w0, r1[ow], w1);                                    \
      } else {                                                                                     \
        const T *r0 = NAME##_row(j, cache, held, plane, iy[0]);                                    \
        const T *r1 = NAME##_row(j, cache, held, plane, iy[1]);                                    \
        const T *r2 = NAME##_row(j, cache, held, plane, iy[2]);                                    \
        const T *r3 = NAME##_row(j, cache, held, plane, iy[3]);                                    \
        T w0 = wy[0], w1 = wy[1], w2 = wy[2], w3 = wy[3];                                          \
        for (int64_t ow = 0; ow < j->out_w; ow++) {                                                \
          dst[ow] = dlx_image_sum4_##S(r0[ow], w0, r1[ow], w1, r2[ow], w2, r3[ow], w3);            \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    free(cache);                                                                                   \
  }

DEFINE_SEPARABLE(float, f, separable_f)
DEFINE_SEPARABLE(double, d, separable_d)

static void image_range(void *ctx, int64_t begin, int64_t end) {
  image_job *j = ctx;
  bool f32 = j->r->src->dtype == DLX_FLOAT32;
  switch (j->r->op) {
  case DLX_IMAGE_MAX_POOL:
    (f32 ? max_pool_f : max_pool_d)(j, begin, end);
    break;
  case DLX_IMAGE_AVG_POOL:
    (f32 ? avg_pool_f : avg_pool_d)(j, begin, end);
    break;
  case DLX_IMAGE_NEAREST:
    (f32 ? nearest_f : nearest_d)(j, begin, end);
    break;
  default:
    (f32 ? separable_f : separable_d)(j, begin, end);
  }
}

/* Bytes an output row costs: the input rows it reads (pools: the window's rows) and its own. */
static int64_t row_bytes(const image_job *j, size_t size) {
  int64_t rows = j->r->op == DLX_IMAGE_MAX_POOL || j->r->op == DLX_IMAGE_AVG_POOL
                     ? j->r->kernel[0]
                     : (j->in_h + j->out_h - 1) / j->out_h + 1;
  return (rows * j->in_w + j->out_w) * (int64_t)size;
}

int dlx_cpu_image_op(const dlx_image_request *r, dlx_error *err) {
  size_t size = r->src->dtype == DLX_FLOAT32 ? sizeof(float) : sizeof(double);
  image_job j = {.r = r,
                 .in_h = r->src->shape[1],
                 .in_w = r->src->shape[2],
                 .out_h = r->dst->shape[1],
                 .out_w = r->dst->shape[2]};
  bool resize = r->op != DLX_IMAGE_MAX_POOL && r->op != DLX_IMAGE_AVG_POOL;
  int64_t rows = r->dst->shape[0] * j.out_h;
  j.src = (const char *)r->src->buffer->data + (size_t)r->src->offset * size;
  j.dst = (char *)r->dst->buffer->data + (size_t)r->dst->offset * size;
  j.indices = r->indices != NULL ? (int64_t *)r->indices->buffer->data + r->indices->offset : NULL;
  atomic_init(&j.failed, false);
  if (resize) {
    if (!axis_make(&j.ah, r, 0, j.in_h, j.out_h)) goto oom;
    if (!axis_make(&j.aw, r, 1, j.in_w, j.out_w)) {
      axis_free(&j.ah);
      goto oom;
    }
  }
  dlx_cpu_parallel_for(rows, dlx_cpu_grain_items(row_bytes(&j, size)), image_range, &j);
  if (resize) {
    axis_free(&j.ah);
    axis_free(&j.aw);
  }
  if (!atomic_load(&j.failed)) return 0;
oom:
  return dlx_fail(err, DLX_MEMORY_ERROR, "out of memory for the tables of a %lld x %lld resize",
                  (long long)r->dst->shape[1], (long long)r->dst->shape[2]);
}
