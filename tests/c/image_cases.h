/* image_cases.h -- random requests of image_op (src/core/backend.h) for the checks of the GPU
 * kernels against the CPU's (tests/c/cuda_image_rules.c, tests/ze_kernels/image.c): every op,
 * float32 and float64, planes of 1 x 1 up to a few dozen elements a side, pools with padding,
 * dilation, ceil_mode sizes, windows that miss the input, count_include_pad and divisors,
 * resizes down and up with and without align_corners and scale factors; values with ties, NaN
 * and -inf. The generator is the caller's (each test prints its seed). */
#ifndef DLX_TESTS_IMAGE_CASES_H
#define DLX_TESTS_IMAGE_CASES_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/image.h"

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

#endif
