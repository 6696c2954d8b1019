/* image_cases.h -- random requests of image_op (src/core/backend.h) for the checks of the GPU
 * kernels against the CPU's (tests/c/cuda_image_rules.c, tests/ze_kernels/image.c): every op,
 * float32 and float64, planes of 1 x 1 up to a few dozen elements a side, pools with padding,
 * dilation, ceil_mode sizes, windows that miss the input, count_include_pad and divisors,
 * resizes down and up with and without align_corners and scale factors; values with ties, NaN
 * and -inf. The generator is the caller's (each test prints its seed). Then the CPU backend's
 * result of a case and the comparison of a kernel's with it. Include check.h first. */
#ifndef DLX_TESTS_IMAGE_CASES_H
#define DLX_TESTS_IMAGE_CASES_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backends/builtin.h"
#include "core/dtype.h"
#include "core/image.h"
#include "core/tensor.h"

typedef struct image_case {
  dlx_image_request req; /* the parameters (src, dst and indices are the caller's) */
  dlx_dtype dtype;
  int64_t planes, in_h, in_w, out_h, out_w;
} image_case;

static inline int64_t image_case_below(uint64_t (*next)(void), int64_t n) {
  return (int64_t)(next() % (uint64_t)n);
}

/* A side of an input plane: mostly small, now and then long. */
static inline int64_t image_case_side(uint64_t (*next)(void)) {
  return image_case_below(next, 5) == 0 ? 20 + image_case_below(next, 30)
                                        : 1 + image_case_below(next, 9);
}

/* Pool parameters of dim d whose output has at least one element. */
static inline void image_case_pool_dim(image_case *c, int d, int64_t in, uint64_t (*next)(void)) {
  for (;;) {
    int64_t k = 1 + image_case_below(next, 4), s = 1 + image_case_below(next, 3);
    int64_t dil = 1 + image_case_below(next, 3), p = image_case_below(next, k / 2 + 1), out;
    if (c->req.op == DLX_IMAGE_AVG_POOL) dil = 1;
    out = dlx_pool_out_size(in, k, s, p, dil, image_case_below(next, 2) == 0);
    if (out < 1) continue;
    c->req.kernel[d] = k;
    c->req.stride[d] = s;
    c->req.padding[d] = p;
    c->req.dilation[d] = dil;
    if (d == 0)
      c->out_h = out;
    else
      c->out_w = out;
    return;
  }
}

/* A resize's output size of a dim of in, and the scale factor given for it (0: none). */
static inline int64_t image_case_resize_dim(image_case *c, int d, int64_t in,
                                            uint64_t (*next)(void)) {
  int64_t out = image_case_below(next, 4) == 0   ? in
                : image_case_below(next, 3) == 0 ? 2 * in
                                                 : 1 + image_case_below(next, 2 * in + 6);
  int64_t how = image_case_below(next, 3);
  c->req.scale[d] = how == 0 ? 0.0 : how == 1 ? (double)out / (double)in : 0.37 + 0.61 * d;
  return out;
}

static inline void image_case_make(image_case *c, dlx_image_op op, dlx_dtype dtype,
                                   uint64_t (*next)(void)) {
  memset(c, 0, sizeof *c);
  c->req.op = op;
  c->dtype = dtype;
  c->planes = 1 + image_case_below(next, 3);
  c->in_h = image_case_side(next);
  c->in_w = image_case_side(next);
  if (op == DLX_IMAGE_MAX_POOL || op == DLX_IMAGE_AVG_POOL) {
    image_case_pool_dim(c, 0, c->in_h, next);
    image_case_pool_dim(c, 1, c->in_w, next);
    c->req.count_include_pad = image_case_below(next, 2) == 0;
    c->req.divisor = image_case_below(next, 4) == 0 ? 1 + image_case_below(next, 7) : 0;
  } else {
    c->out_h = image_case_resize_dim(c, 0, c->in_h, next);
    c->out_w = image_case_resize_dim(c, 1, c->in_w, next);
    c->req.align_corners = op != DLX_IMAGE_NEAREST && image_case_below(next, 2) == 0;
  }
}

/* n values as float64: few distinct ones (ties), NaN and -inf now and then when specials. */
static inline void image_case_values(double *v, int64_t n, bool specials, uint64_t (*next)(void)) {
  for (int64_t i = 0; i < n; i++) {
    int64_t r = image_case_below(next, 17);
    v[i] = (double)(image_case_below(next, 23) - 11) / 4 + (r == 5 ? 0.1 : 0.0);
    if (specials && r == 0) v[i] = NAN;
    if (specials && r == 1) v[i] = -INFINITY;
  }
}

/* An empty CPU tensor of planes x h x w. */
static inline dlx_tensor image_case_planes(dlx_dtype dtype, int64_t planes, int64_t h, int64_t w) {
  int64_t shape[3] = {planes, h, w};
  dlx_tensor t;
  CHECK(dlx_tensor_empty(&t, shape, 3, dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  return t;
}

/* A random case of op and dtype (c), its input (src, with NaN and -inf in odd-numbered cases)
 * and the CPU backend's output (want, and want_i: the max pool's indices when indices). */
static inline void image_case_cpu(image_case *c, dlx_image_op op, dlx_dtype dtype, int number,
                                  bool indices, uint64_t (*next)(void), dlx_tensor *src,
                                  dlx_tensor *want, dlx_tensor *want_i) {
  dlx_tensor wide;
  image_case_make(c, op, dtype, next);
  wide = image_case_planes(DLX_FLOAT64, c->planes, c->in_h, c->in_w);
  *src = image_case_planes(dtype, c->planes, c->in_h, c->in_w);
  image_case_values(wide.buffer->data, dlx_tensor_numel(&wide), number % 2 == 1, next);
  CHECK(dlx_cpu_backend.copy(src, &wide, NULL) == 0);
  *want = image_case_planes(dtype, c->planes, c->out_h, c->out_w);
  *want_i = image_case_planes(DLX_INT64, c->planes, c->out_h, c->out_w);
  c->req.src = src;
  c->req.dst = want;
  c->req.indices = indices ? want_i : NULL;
  CHECK(dlx_cpu_backend.image_op(&c->req, NULL) == 0);
  dlx_tensor_close(&wide);
}

/* The same bits, or both NaN (which NaN an arithmetic NaN is depends on the order of the
 * operands of a sum, which compilers may swap, and on the device). */
static inline bool image_case_same_value(const void *a, const void *b, dlx_dtype dtype) {
  double x, y;
  if (memcmp(a, b, dtype == DLX_FLOAT32 ? 4 : 8) == 0) return true;
  x = dtype == DLX_FLOAT32 ? *(const float *)a : *(const double *)a;
  y = dtype == DLX_FLOAT32 ? *(const float *)b : *(const double *)b;
  return isnan(x) && isnan(y);
}

/* A kernel's output of case number (got, and got_i when the case asked for indices) against
 * the CPU's (want, want_i): one check, and the case's parameters printed when they differ. */
static inline void image_case_check(const image_case *c, int number, const void *got,
                                    const int64_t *got_i, const dlx_tensor *want,
                                    const dlx_tensor *want_i) {
  size_t size = c->dtype == DLX_FLOAT32 ? 4 : 8, count = (size_t)dlx_tensor_numel(want);
  const int64_t *want_idx = (const int64_t *)want_i->buffer->data;
  int bad = 0;
  for (size_t i = 0; i < count; i++)
    if (!image_case_same_value((const char *)got + i * size,
                               (const char *)want->buffer->data + i * size, c->dtype) ||
        (c->req.indices != NULL && got_i[i] != want_idx[i]))
      if (bad++ == 0) fprintf(stderr, "  element %zu differs\n", i);
  if (bad != 0)
    fprintf(stderr,
            "%s (op %d) of %s, case %d: %lld planes of %lld x %lld -> %lld x %lld, kernel %lld x "
            "%lld, stride %lld x %lld, padding %lld x %lld, dilation %lld x %lld, "
            "count_include_pad %d, divisor %lld, align_corners %d, scale %g x %g: %d differences\n",
            dlx_image_op_name(c->req.op), (int)c->req.op, dlx_dtype_info_of(c->dtype)->name, number,
            (long long)c->planes, (long long)c->in_h, (long long)c->in_w, (long long)c->out_h,
            (long long)c->out_w, (long long)c->req.kernel[0], (long long)c->req.kernel[1],
            (long long)c->req.stride[0], (long long)c->req.stride[1], (long long)c->req.padding[0],
            (long long)c->req.padding[1], (long long)c->req.dilation[0],
            (long long)c->req.dilation[1], c->req.count_include_pad, (long long)c->req.divisor,
            c->req.align_corners, c->req.scale[0], c->req.scale[1], bad);
  CHECK(bad == 0);
}

#endif
