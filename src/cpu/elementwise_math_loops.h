/* elementwise_math_loops.h -- the loops of the transcendental unary ops, written once for every
 * instruction set: src/cpu/elementwise_math.c (portable, SLEEF's scalar functions) and
 * elementwise_math_avx2.c (SLEEF's AVX2 functions) include it after defining
 *   VF, VD, LF, LD     the vector types of float and double, and their lanes (1 for scalars)
 *   F10(f), D10(f)     SLEEF's function f with a 1.0-ulp bound, for VF and VD
 *   SQRTF(v), SQRTD(v) the correctly rounded square root of a VF, a VD
 *   MATH_TABLE         the name of the table of kernels it defines.
 *
 * SLEEF's u10 functions are within 1 ulp in float64 except at a few edges (near overflow, huge
 * or tiny arguments), where the element is recomputed in long double (x87 extended on x86-64)
 * and rounded once. In float32, SLEEF's own float functions are used where they are faithful
 * over every float (exp, log, the trigonometric functions); the others compute in float64 and
 * round once, which is within 0.5 ulp plus a hair. Every element goes through the same vector
 * code, the tail of a row padded to a whole vector, so results do not depend on where a row
 * starts or how it is split over threads. out may be exactly the input (in place). */
#ifndef DLX_CPU_ELEMENTWISE_MATH_LOOPS_H
#define DLX_CPU_ELEMENTWISE_MATH_LOOPS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu/elementwise_math.h"

/* y[0..L) = FN(x[0..L)) for one vector V of L lanes. */
#define MATH_VECTOR(V, y, x, FN)                                                                   \
  do {                                                                                             \
    V v_;                                                                                          \
    memcpy(&v_, (x), sizeof v_);                                                                   \
    v_ = FN(v_);                                                                                   \
    memcpy((y), &v_, sizeof v_);                                                                   \
  } while (0)

/* A kernel over n elements in blocks of L, the tail padded with zeros to a whole block. */
#define MATH_LOOP(fname, T, L, BLOCK)                                                              \
  static void fname(char *out_, const char *in_, const char *b_, int64_t n,                        \
                    dlx_cpu_ew_mode mode) {                                                        \
    T *y = (T *)(void *)out_;                                                                      \
    const T *x = (const T *)(const void *)in_;                                                     \
    int64_t i = 0;                                                                                 \
    (void)b_;                                                                                      \
    (void)mode;                                                                                    \
    for (; i + (L) <= n; i += (L)) BLOCK(y + i, x + i);                                            \
    if (i < n) {                                                                                   \
      T xt[L] = {0}, yt[L];                                                                        \
      memcpy(xt, x + i, (size_t)(n - i) * sizeof(T));                                              \
      BLOCK(yt, xt);                                                                               \
      memcpy(y + i, yt, (size_t)(n - i) * sizeof(T));                                              \
    }                                                                                              \
  }

/* float64 through a vector function, then the elements where FIX(x) holds again in long
 * double with FNL. */
#define D_BLOCK(name, FN, FIX, FNL)                                                                \
  static inline void name##_d_block(double *y, const double *x) {                                  \
    double xs[LD];                                                                                 \
    memcpy(xs, x, sizeof xs);                                                                      \
    MATH_VECTOR(VD, y, xs, FN);                                                                    \
    for (int j = 0; j < LD; j++)                                                                   \
      if (FIX(xs[j])) y[j] = (double)FNL((long double)xs[j]);                                      \
  }

/* float32 through a float64 block function DBLOCK, rounded once. */
#define F_VIA_D_BLOCK(name, DBLOCK)                                                                \
  static inline void name##_f_block(float *y, const float *x) {                                    \
    double xd[LF], yd[LF];                                                                         \
    for (int j = 0; j < LF; j++) xd[j] = x[j];                                                     \
    for (int k = 0; k < LF; k += LD) DBLOCK(yd + k, xd + k);                                       \
    for (int j = 0; j < LF; j++) y[j] = (float)yd[j];                                              \
  }

/* float32 through SLEEF's float function. */
#define F_NATIVE_BLOCK(name, FN)                                                                   \
  static inline void name##_f_block(float *y, const float *x) { MATH_VECTOR(VF, y, x, FN); }

#define MATH_KERNELS(name)                                                                         \
  MATH_LOOP(name##_f32, float, LF, name##_f_block)                                                 \
  MATH_LOOP(name##_f64, double, LD, name##_d_block)

/* The edges where SLEEF's float64 result may be more than 1 ulp off. */
#define NEVER(x) ((void)(x), 0)
#define TINY(x) (fabs(x) < 0x1p-26)        /* the result rounds to x (or 2x/sqrt(pi)) */
#define NEAR_OVERFLOW(x) (fabs(x) > 709.0) /* exp(|x|) overflows inside the function */
#define HUGE_ARG(x) (fabs(x) > 0x1p500)    /* x * x overflows inside the function */
#define HUGE_LOG1P(x) ((x) > 0x1p1000)     /* 1 + x loses the argument's range */
#define TINY_OR_HUGE_LOG1P(x) (TINY(x) || HUGE_LOG1P(x))
#define TINY_OR_HUGE_ARG(x) (TINY(x) || HUGE_ARG(x))
#define TINY_OR_NEAR_OVERFLOW(x) (TINY(x) || NEAR_OVERFLOW(x))
#define NOL(x) (x) /* unused long double fallback */

/* ---- the plain SLEEF functions: float64 with its edge fixes, float32 native or via float64 */

#define SLEEF_NATIVE(name, FIX, FNL)                                                               \
  D_BLOCK(name, D10(name), FIX, FNL)                                                               \
  F_NATIVE_BLOCK(name, F10(name))                                                                  \
  MATH_KERNELS(name)

#define SLEEF_VIA_DOUBLE(name, FIX, FNL)                                                           \
  D_BLOCK(name, D10(name), FIX, FNL)                                                               \
  F_VIA_D_BLOCK(name, name##_d_block)                                                              \
  MATH_KERNELS(name)

SLEEF_NATIVE(exp, NEVER, NOL)
SLEEF_NATIVE(exp2, NEVER, NOL)
SLEEF_NATIVE(log, NEVER, NOL)
SLEEF_NATIVE(log2, NEVER, NOL)
SLEEF_NATIVE(log10, NEVER, NOL)
SLEEF_NATIVE(sin, NEVER, NOL)
SLEEF_NATIVE(cos, NEVER, NOL)
SLEEF_NATIVE(tan, TINY, tanl)
SLEEF_NATIVE(asin, NEVER, NOL)
SLEEF_NATIVE(acos, NEVER, NOL)
SLEEF_NATIVE(atan, NEVER, NOL)
SLEEF_VIA_DOUBLE(expm1, NEVER, NOL)
SLEEF_VIA_DOUBLE(log1p, TINY_OR_HUGE_LOG1P, log1pl)
SLEEF_VIA_DOUBLE(sinh, TINY_OR_NEAR_OVERFLOW, sinhl)
SLEEF_VIA_DOUBLE(cosh, NEAR_OVERFLOW, coshl)
SLEEF_VIA_DOUBLE(tanh, TINY, tanhl)
SLEEF_VIA_DOUBLE(asinh, TINY_OR_HUGE_ARG, asinhl)
SLEEF_VIA_DOUBLE(acosh, HUGE_ARG, acoshl)
SLEEF_VIA_DOUBLE(atanh, TINY, atanhl)
SLEEF_VIA_DOUBLE(erf, TINY, erfl)

/* ---- sqrt: the hardware's correctly rounded square root */

D_BLOCK(sqrt, SQRTD, NEVER, NOL)
F_NATIVE_BLOCK(sqrt, SQRTF)
MATH_KERNELS(sqrt)

/* ---- rsqrt: float32 as 1 / sqrt in float64 (two correctly rounded steps, then one more
 * rounding); float64 in long double, where the same two steps leave 11 bits to spare. */

static inline VD rsqrt_vd(VD v) { return 1.0 / SQRTD(v); }

static inline void rsqrt_d_block(double *y, const double *x) {
  for (int j = 0; j < LD; j++) y[j] = (double)(1.0L / sqrtl((long double)x[j]));
}

static inline void rsqrt_dv_block(double *y, const double *x) { MATH_VECTOR(VD, y, x, rsqrt_vd); }

F_VIA_D_BLOCK(rsqrt, rsqrt_dv_block)
MATH_KERNELS(rsqrt)

/* ---- sigmoid, stable for large |x|: with t = exp(-|x|) <= 1, 1 / (1 + t) for x >= 0 and
 * t / (1 + t) below, so that nothing overflows and small results keep their precision.
 * float32 computes it in float64; float64 in long double (SLEEF's exp is within 1 ulp, and the
 * division would add half an ulp more). */

static inline void sigmoid_dv_block(double *y, const double *x) {
  double t[LD];
  for (int j = 0; j < LD; j++) t[j] = -fabs(x[j]);
  MATH_VECTOR(VD, t, t, D10(exp));
  for (int j = 0; j < LD; j++) y[j] = (x[j] >= 0 ? 1.0 : t[j]) / (1.0 + t[j]);
}

static inline void sigmoid_d_block(double *y, const double *x) {
  for (int j = 0; j < LD; j++) {
    long double v = x[j], t = expl(-fabsl(v));
    y[j] = (double)((v >= 0 ? 1.0L : t) / (1.0L + t));
  }
}

F_VIA_D_BLOCK(sigmoid, sigmoid_dv_block)
MATH_KERNELS(sigmoid)

/* ---- the table, by op (from DLX_EW_SQRT) and dtype (float32, float64) */

#define MATH_ENTRY(OP, name) [OP - DLX_EW_SQRT] = {name##_f32, name##_f64}

const dlx_cpu_ew_kernel MATH_TABLE[DLX_CPU_MATH_OPS][2] = {
    MATH_ENTRY(DLX_EW_SQRT, sqrt),   MATH_ENTRY(DLX_EW_RSQRT, rsqrt),
    MATH_ENTRY(DLX_EW_EXP, exp),     MATH_ENTRY(DLX_EW_EXP2, exp2),
    MATH_ENTRY(DLX_EW_EXPM1, expm1), MATH_ENTRY(DLX_EW_LOG, log),
    MATH_ENTRY(DLX_EW_LOG2, log2),   MATH_ENTRY(DLX_EW_LOG10, log10),
    MATH_ENTRY(DLX_EW_LOG1P, log1p), MATH_ENTRY(DLX_EW_SIN, sin),
    MATH_ENTRY(DLX_EW_COS, cos),     MATH_ENTRY(DLX_EW_TAN, tan),
    MATH_ENTRY(DLX_EW_ASIN, asin),   MATH_ENTRY(DLX_EW_ACOS, acos),
    MATH_ENTRY(DLX_EW_ATAN, atan),   MATH_ENTRY(DLX_EW_SINH, sinh),
    MATH_ENTRY(DLX_EW_COSH, cosh),   MATH_ENTRY(DLX_EW_TANH, tanh),
    MATH_ENTRY(DLX_EW_ASINH, asinh), MATH_ENTRY(DLX_EW_ACOSH, acosh),
    MATH_ENTRY(DLX_EW_ATANH, atanh), MATH_ENTRY(DLX_EW_SIGMOID, sigmoid),
    MATH_ENTRY(DLX_EW_ERF, erf),
};

#endif
