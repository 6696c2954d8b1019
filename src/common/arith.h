/* arith.h -- the arithmetic of floats and complex numbers that the CPU's loops
 * (src/cpu/elementwise_kernels_loops.h) and the GPUs' element functions (elementwise_ops.h) share,
 * written once in the subset that portable.h names:
 * - floor_divide and remainder of floats, as NumPy's divmod: the remainder has the divisor's sign,
 *   the quotient is floored and corrected so that q * b + r == a holds as well as floating point
 *   allows; a zero divisor gives IEEE's a / b and fmod's NaN;
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

/* dlx_divmod_<n>(a, b, &mod): the floored quotient, and the remainder in mod. F(fn) names the math
 * function fn of type T. */
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

/* dlx_cadd_<n>, dlx_csub_<n>, dlx_cmul_<n>, dlx_cdiv_<n> of complex type C (parts of type R). */
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
