/* float_divmod.h -- floor_divide and remainder of floats, as NumPy's divmod: the remainder has the
 * divisor's sign, the quotient is floored and corrected so that q * b + r == a holds as well as
 * floating point allows; a zero divisor gives IEEE's a / b and fmod's NaN. One definition for the
 * CPU's loops (src/cpu/elementwise_kernels_loops.h) and the GPUs' element functions
 * (elementwise_ops.h), in the subset that portable.h names. */
#ifndef DLX_COMMON_FLOAT_DIVMOD_H
#define DLX_COMMON_FLOAT_DIVMOD_H

#include "common/portable.h"

#if defined(__OPENCL_C_VERSION__)
#define DLX_DIVMOD_F32(fn) fn /* OpenCL C's math built-ins are overloaded by type */
#else
#include <math.h>
#define DLX_DIVMOD_F32(fn) fn##f
#endif
#define DLX_DIVMOD_F64(fn) fn

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
DLX_DEFINE_DIVMOD(float32, float, DLX_DIVMOD_F32)
DLX_DEFINE_DIVMOD(float64, double, DLX_DIVMOD_F64)
#undef DLX_DEFINE_DIVMOD

#endif
