/* arith.h -- the arithmetic of floats and complex numbers that the CPU's loops
 * (src/cpu/elementwise_kernels_loops.h) and the GPUs' element functions (elementwise_ops.h) share,
 * written once in the subset that portable.h names:
 * - floor_divide and remainder of floats, as NumPy's divmod: the remainder has the divisor's sign,
 *   the quotient is floored and corrected so that q * b + r == a holds as well as floating point
 *   allows; a zero divisor gives IEEE's a / b and fmod's NaN;
 * - floor_divide, remainder, fmod and pow of integers (below);
 * - complex +, -, x and Smith's division (as NumPy), each product and sum rounded on its own. */
#ifndef DLX_COMMON_ARITH_H
#define DLX_COMMON_ARITH_H

#include "common/convert.h"
#include "common/portable.h"

#if defined(__OPENCL_C_VERSION__)
/* OpenCL C contracts a * b + c into one fma by default; the CPU rounds twice (complex products). */
#pragma OPENCL FP_CONTRACT OFF
#define DLX_ARITH_F32(fn) fn /* OpenCL C's math built-ins are overloaded by type */
#else
#include <math.h>
#define DLX_ARITH_F32(fn) fn##f
#endif
#define DLX_ARITH_F64(fn) fn

/* ---- floats: dlx_divmod_<n>(a, b, &mod): the floored quotient, and the remainder in mod. F(fn)
 * names the math function fn of type T. */
#define DLX_DEFINE_DIVMOD(n, T, F)                                                                 \
  DLX_SHARED T dlx_divmod_##n(T a, T b, T *modp) {                                                 \
    T mod = F(fmod)(a, b), div, floordiv;                                                          \
    if (b == 0) {                                                                                  \
      *modp = mod;                                                                                 \
      return a / b;                                                                                \
    }                                                                                              \
    div = (a - mod) / b;                                                                           \
    if (mod != 0) {                                                                                \
      if ((b < 0) != (mod < 0)) {                                                                  \
        mod += b;                                                                                  \
        div -= 1;                                                                                  \
      }                                                                                            \
    } else {                                                                                       \
      mod = F(copysign)((T)0, b);                                                                  \
    }                                                                                              \
    if (div != 0) {                                                                                \
      floordiv = F(floor)(div);                                                                    \
      if (div - floordiv > (T)0.5) floordiv += 1;                                                  \
    } else {                                                                                       \
      floordiv = F(copysign)((T)0, a / b);                                                         \
    }                                                                                              \
    *modp = mod;                                                                                   \
    return floordiv;                                                                               \
  }                                                                                                \
  DLX_SHARED T dlx_floor_divide_##n(T a, T b) {                                                    \
    T mod;                                                                                         \
    return dlx_divmod_##n(a, b, &mod);                                                             \
  }                                                                                                \
  DLX_SHARED T dlx_remainder_##n(T a, T b) {                                                       \
    T mod;                                                                                         \
    dlx_divmod_##n(a, b, &mod);                                                                    \
    return mod;                                                                                    \
  }
DLX_DEFINE_DIVMOD(float32, float, DLX_ARITH_F32)
DLX_DEFINE_DIVMOD(float64, double, DLX_ARITH_F64)
#undef DLX_DEFINE_DIVMOD

/* ---- integers: dlx_floor_divide_<n>, dlx_remainder_<n> (the divisor's sign), dlx_fmod_<n> (C's %:
 * the dividend's sign) and dlx_pow_<n>, made by DLX_DEFINE_SIGNED_ARITH or
 * DLX_DEFINE_UNSIGNED_ARITH in the list of integer types of each includer (elementwise_ops.h and
 * the CPU's loops, which no file includes together), wrapping in the unsigned type WU (at least
 * unsigned int, so that narrow types are not promoted to int, where a product could overflow).
 * Division by zero and negative powers never reach a kernel (the core refuses them); they give 0
 * here rather than trap. MIN / -1 wraps and MIN % -1 is 0. */
/* IS_NEGATIVE(y): whether a power y of T is negative (0 for unsigned types). */
#define DLX_DEFINE_POW(n, T, WU, IS_NEGATIVE)                                                      \
  DLX_SHARED T dlx_pow_##n(T x, T y) {                                                             \
    WU r = 1, base = (WU)x;                                                                        \
    if (IS_NEGATIVE(y)) return 0;                                                                  \
    for (uint64_t e = (uint64_t)y; e != 0; e >>= 1) {                                              \
      if (e & 1) r *= base;                                                                        \
      base *= base;                                                                                \
    }                                                                                              \
    return (T)r;                                                                                   \
  }
#define DLX_ARITH_NEGATIVE(y) ((y) < 0)
#define DLX_ARITH_NEVER(y) 0
#define DLX_DEFINE_SIGNED_ARITH(n, T, WU)                                                          \
  DLX_DEFINE_POW(n, T, WU, DLX_ARITH_NEGATIVE)                                                     \
  DLX_SHARED T dlx_floor_divide_##n(T x, T y) {                                                    \
    T q;                                                                                           \
    if (y == 0) return 0;                                                                          \
    if (y == -1) return (T)(WU)(0u - (WU)x); /* MIN / -1 wraps */                                  \
    q = (T)(x / y);                                                                                \
    return (T)((x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q);                                  \
  }                                                                                                \
  DLX_SHARED T dlx_remainder_##n(T x, T y) {                                                       \
    T r;                                                                                           \
    if (y == 0 || y == -1) return 0;                                                               \
    r = (T)(x % y);                                                                                \
    return (T)((r != 0 && ((r < 0) != (y < 0))) ? r + y : r);                                      \
  }                                                                                                \
  DLX_SHARED T dlx_fmod_##n(T x, T y) { return (T)(y == 0 || y == -1 ? 0 : x % y); }
#define DLX_DEFINE_UNSIGNED_ARITH(n, T, WU)                                                        \
  DLX_DEFINE_POW(n, T, WU, DLX_ARITH_NEVER)                                                        \
  DLX_SHARED T dlx_floor_divide_##n(T x, T y) { return (T)(y != 0 ? x / y : 0); }                  \
  DLX_SHARED T dlx_remainder_##n(T x, T y) { return (T)(y != 0 ? x % y : 0); }                     \
  DLX_SHARED T dlx_fmod_##n(T x, T y) { return (T)(y != 0 ? x % y : 0); }

/* ---- complex: dlx_cadd_<n>, dlx_csub_<n>, dlx_cmul_<n>, dlx_cdiv_<n> of complex type C (parts of
 * type R). */
#define DLX_DEFINE_COMPLEX_ARITH(n, C, R, F)                                                       \
  DLX_SHARED C dlx_cadd_##n(C a, C b) { return C##_of(a.re + b.re, a.im + b.im); }                 \
  DLX_SHARED C dlx_csub_##n(C a, C b) { return C##_of(a.re - b.re, a.im - b.im); }                 \
  DLX_SHARED C dlx_cmul_##n(C a, C b) {                                                            \
    return C##_of(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);                           \
  }                                                                                                \
  DLX_SHARED C dlx_cdiv_##n(C a, C b) {                                                            \
    R abr = F(fabs)(b.re), abi = F(fabs)(b.im), rat, scl;                                          \
    if (abr >= abi) {                                                                              \
      if (abr == 0 && abi == 0) return C##_of(a.re / abr, a.im / abr);                             \
      rat = b.im / b.re;                                                                           \
      scl = (R)1 / (b.re + b.im * rat);                                                            \
      return C##_of((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);                         \
    }                                                                                              \
    rat = b.re / b.im;                                                                             \
    scl = (R)1 / (b.im + b.re * rat);                                                              \
    return C##_of((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);                           \
  }
DLX_DEFINE_COMPLEX_ARITH(complex64, dlx_c64, float, DLX_ARITH_F32)
DLX_DEFINE_COMPLEX_ARITH(complex128, dlx_c128, double, DLX_ARITH_F64)
#undef DLX_DEFINE_COMPLEX_ARITH

#endif
