/* ulp.h -- measuring math functions in ulps, shared by the CPU's and the Level Zero kernels'
 * accuracy tests (test_cpu_math_ulp.c, tests/ze_kernels/elementwise.c): the functions with
 * their long double (x87 extended) references, the error of a result in ulps of float32 or
 * float64, and the inputs (edge values with both signs and their neighbours, NaN, random values
 * in every binade, subnormals included); and the distance in ulps of two results of a dtype,
 * for the GPU kernels' checks (cuda_elementwise_rules.c, tests/ze_kernels/elementwise.c).
 * Header-only, for tests. */
#ifndef DLX_TESTS_ULP_H
#define DLX_TESTS_ULP_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/elementwise.h"

typedef long double (*ulp_reference)(long double);

static inline long double ulp_ref_rsqrt(long double x) { return 1.0L / sqrtl(x); }

static inline long double ulp_ref_sigmoid(long double x) {
  long double t = expl(-fabsl(x));
  return (x >= 0 ? 1.0L : t) / (1.0L + t);
}

/* The math functions that must be faithful, with their references. */
static const struct {
  dlx_ew_op op;
  ulp_reference ref;
} ulp_functions[] = {
    {DLX_EW_SQRT, sqrtl},   {DLX_EW_RSQRT, ulp_ref_rsqrt},
    {DLX_EW_EXP, expl},     {DLX_EW_EXP2, exp2l},
    {DLX_EW_EXPM1, expm1l}, {DLX_EW_LOG, logl},
    {DLX_EW_LOG2, log2l},   {DLX_EW_LOG10, log10l},
    {DLX_EW_LOG1P, log1pl}, {DLX_EW_SIN, sinl},
    {DLX_EW_COS, cosl},     {DLX_EW_TAN, tanl},
    {DLX_EW_ASIN, asinl},   {DLX_EW_ACOS, acosl},
    {DLX_EW_ATAN, atanl},   {DLX_EW_SINH, sinhl},
    {DLX_EW_COSH, coshl},   {DLX_EW_TANH, tanhl},
    {DLX_EW_ASINH, asinhl}, {DLX_EW_ACOSH, acoshl},
    {DLX_EW_ATANH, atanhl}, {DLX_EW_SIGMOID, ulp_ref_sigmoid},
    {DLX_EW_ERF, erfl},
};
#define ULP_FUNCTIONS ((int)(sizeof ulp_functions / sizeof ulp_functions[0]))

typedef struct ulp_format {
  dlx_dtype dtype;
  int mant_bits;        /* 24, 53 */
  int min_exp, max_exp; /* of normal numbers: -126..127, -1022..1023 */
} ulp_format;

static const ulp_format ulp_float32 = {DLX_FLOAT32, 24, -126, 127};
static const ulp_format ulp_float64 = {DLX_FLOAT64, 53, -1022, 1023};

/* The distance in ulps of two floats of dtype (float16, bfloat16, float32, float64): their bits
 * as ordered integers (little-endian); 0 for two NaNs, UINT64_MAX for one. Whether each is a NaN
 * the caller tells (as it reads values of dtype). */
static inline uint64_t ulp_distance_of(const void *a, const void *b, dlx_dtype dtype, bool a_nan,
                                       bool b_nan) {
  int64_t size = dlx_itemsize(dtype);
  uint64_t x = 0, y = 0, sign = UINT64_C(1) << (8 * size - 1);
  if (a_nan || b_nan) return a_nan && b_nan ? 0 : UINT64_MAX;
  memcpy(&x, a, (size_t)size);
  memcpy(&y, b, (size_t)size);
  x = x & sign ? sign - (x & ~sign) : sign + x;
  y = y & sign ? sign - (y & ~sign) : sign + y;
  return x > y ? x - y : y - x;
}

/* The spacing of the format's numbers in |r|'s binade (subnormals share the smallest). */
static inline long double ulp_at(const ulp_format *f, long double r) {
  int e;
  r = fabsl(r);
  if (r < ldexpl(1.0L, f->min_exp)) return ldexpl(1.0L, f->min_exp - f->mant_bits + 1);
  frexpl(r, &e);
  return ldexpl(1.0L, e - f->mant_bits);
}

/* The error of y against the reference r, in ulps of the format; INFINITY for a wrong NaN, a
 * wrong infinity or a zero of the wrong sign. An infinite y where r is finite counts as the
 * number one ulp above the largest finite one, so that rounding up near overflow is faithful. */
static inline long double ulp_error(const ulp_format *f, long double y, long double r) {
  long double beyond = ldexpl(1.0L, f->max_exp + 1);
  if (isnan(r)) return isnan(y) ? 0 : INFINITY;
  if (isnan(y)) return INFINITY;
  if (isinf(r)) return y == r ? 0 : isinf(y) ? INFINITY : fabsl(y) >= beyond ? 0 : INFINITY;
  if (r == 0) return y == 0 && signbit(y) == signbit(r) ? 0 : fabsl(y) / ulp_at(f, 0);
  if (isinf(y)) y = copysignl(beyond, y);
  if (fabsl(r) > beyond) r = copysignl(beyond, r); /* it rounds to infinity */
  return fabsl(y - r) / ulp_at(f, r);
}

/* x rounded to the format. */
static inline long double ulp_round(const ulp_format *f, long double x) {
  return f->dtype == DLX_FLOAT32 ? (long double)(float)x : (long double)(double)x;
}

typedef struct ulp_inputs {
  long double *x;
  int64_t n, cap;
} ulp_inputs;

static inline void ulp_add(ulp_inputs *in, long double x) {
  if (in->n == in->cap) {
    in->cap = in->cap ? 2 * in->cap : 4096;
    in->x = realloc(in->x, (size_t)in->cap * sizeof in->x[0]);
    if (in->x == NULL) abort();
  }
  in->x[in->n++] = x;
}

static inline void ulp_add_both_signs(ulp_inputs *in, long double x) {
  ulp_add(in, x);
  ulp_add(in, -x);
}

static inline uint64_t ulp_random(void) { /* xorshift64, its own sequence */
  static uint64_t state = 0x9E3779B97F4A7C15u;
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

/* Edge values of the format and of the functions (the ends of domains, overflow thresholds,
 * large arguments of the trigonometric functions), each with both signs and with the
 * neighbouring numbers; NaN; then `samples` random values in every binade, subnormals included.
 * The count is odd, so that a vector kernel's tail is exercised. Free in->x after use. */
static inline ulp_inputs ulp_make_inputs(const ulp_format *f, int samples) {
  long double tiny = ldexpl(1.0L, f->min_exp - f->mant_bits + 1);
  long double least_normal = ldexpl(1.0L, f->min_exp);
  long double largest = ldexpl(2.0L - ldexpl(1.0L, 1 - f->mant_bits), f->max_exp);
  const long double edges[] = {0,
                               tiny,
                               2 * tiny,
                               least_normal - tiny,
                               least_normal,
                               0x1p-60L,
                               0x1p-27L,
                               0x1p-26L,
                               0x1p-13L,
                               0.25L,
                               0.5L,
                               1,
                               2,
                               3,
                               1.5707963267948966L,
                               3.14159265358979324L,
                               10,
                               20,
                               86,
                               88.72283935546875L,
                               89,
                               103,
                               104,
                               126,
                               127,
                               128,
                               149,
                               150,
                               700,
                               709,
                               709.78L,
                               710,
                               710.5L,
                               744,
                               745.2L,
                               1022,
                               1024,
                               1075,
                               1e10L,
                               1e22L,
                               0x1p63L,
                               0x1p64L,
                               0x1p500L,
                               0x1p1000L,
                               largest,
                               INFINITY};
  ulp_inputs in = {0};
  for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
    long double x = ulp_round(f, edges[i]);
    ulp_add_both_signs(&in, x);
    if (!isinf(x) && x != 0) {
      long double u = ulp_at(f, x);
      ulp_add_both_signs(&in, x + u);
      if (x - u > 0) ulp_add_both_signs(&in, x - u);
    }
  }
  ulp_add(&in, NAN);
  for (int e = f->min_exp - f->mant_bits + 1; e <= f->max_exp; e++)
    for (int k = 0; k < samples; k++) {
      /* a random significand in [1, 2) (in [0, 1) times the smallest step for subnormals) */
      long double x = ldexpl(1.0L + (long double)(ulp_random() >> 11) * 0x1p-53L, e);
      if (e < f->min_exp)
        x = ldexpl(floorl(ldexpl(x, -(f->min_exp - f->mant_bits + 1))),
                   f->min_exp - f->mant_bits + 1);
      ulp_add_both_signs(&in, ulp_round(f, x));
    }
  if (in.n % 2 == 0) ulp_add(&in, 1.5L);
  return in;
}

/* Writes the inputs as the format's numbers (float or double) to x. */
static inline void ulp_store(const ulp_format *f, const ulp_inputs *in, void *x) {
  for (int64_t i = 0; i < in->n; i++) {
    if (f->dtype == DLX_FLOAT32)
      ((float *)x)[i] = (float)in->x[i];
    else
      ((double *)x)[i] = (double)in->x[i];
  }
}

/* The worst error of the results y (the format's numbers) of ref over the inputs x (as
 * ulp_store wrote them); *worst_x and *worst_y get where. */
static inline long double ulp_worst(const ulp_format *f, ulp_reference ref, const void *x,
                                    const void *y, int64_t n, long double *worst_x,
                                    long double *worst_y) {
  long double worst = 0;
  *worst_x = *worst_y = 0;
  for (int64_t i = 0; i < n; i++) {
    long double xv = f->dtype == DLX_FLOAT32 ? ((const float *)x)[i] : ((const double *)x)[i];
    long double yv = f->dtype == DLX_FLOAT32 ? ((const float *)y)[i] : ((const double *)y)[i];
    long double e = ulp_error(f, yv, ref(xv));
    if (e > worst || (isnan(e) && !isnan(worst))) {
      worst = e;
      *worst_x = xv;
      *worst_y = yv;
    }
  }
  return worst;
}

#endif
