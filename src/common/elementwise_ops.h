/* elementwise_ops.h -- the elementwise ops one element at a time: the definition the Level Zero
 * kernels (src/ze/kernels), the CUDA kernels (src/cuda/elementwise_kernels.cu) and the host-side
 * checks share, written in the subset of C11, OpenCL C 1.2 and CUDA C++ that portable.h names.
 * The CPU keeps its own loops (src/cpu/elementwise_kernels.c, vectorised by the compiler); the
 * tests check these functions against them (tests/c/cuda_elementwise_rules.c, tests/ze_kernels).
 *
 * Ops compute in a "kernel dtype": bool, the integers, float32 (float16 and bfloat16 too: they
 * are widened on load and rounded once on store), float64, complex64 and complex128. The rules
 * (docs/elementwise.md): integers wrap (computed in unsigned types); floor_divide floors and
 * remainder has the divisor's sign, for floats as NumPy's divmod; fmod has the dividend's; shifts
 * by a negative amount or at least the width give 0, or -1 for a negative value shifted right;
 * maximum and minimum propagate NaN; round is half to even; on bools add and maximum are or, mul
 * and minimum and. Integer division by zero and negative integer powers never reach a kernel (the
 * core refuses them); they give 0 here rather than trap. */
#ifndef DLX_COMMON_ELEMENTWISE_OPS_H
#define DLX_COMMON_ELEMENTWISE_OPS_H

#include "common/arith.h" /* OpenCL C: FP_CONTRACT off, as the CPU rounds */
#include "common/convert.h"

#if defined(__OPENCL_C_VERSION__)
/* OpenCL C's math built-ins are overloaded by type. */
#define DLX_EWK_F(fn) fn
#else
#include <math.h>
#define DLX_EWK_F(fn) fn##f
#endif

/* The ops of the kernels. The host maps dlx_ew_op onto these with a table, so that an op this
 * header does not know maps to DLX_EWK_NONE and is refused rather than mis-run. */
enum dlx_ewk_op {
  DLX_EWK_NONE,
  DLX_EWK_ADD,
  DLX_EWK_SUB,
  DLX_EWK_MUL,
  DLX_EWK_DIV,
  DLX_EWK_FLOOR_DIVIDE,
  DLX_EWK_REMAINDER,
  DLX_EWK_FMOD,
  DLX_EWK_POW,
  DLX_EWK_MAXIMUM,
  DLX_EWK_MINIMUM,
  DLX_EWK_ATAN2,
  DLX_EWK_HYPOT,
  DLX_EWK_COPYSIGN,
  DLX_EWK_EQ,
  DLX_EWK_NE,
  DLX_EWK_LT,
  DLX_EWK_LE,
  DLX_EWK_GT,
  DLX_EWK_GE,
  DLX_EWK_LOGICAL_AND,
  DLX_EWK_LOGICAL_OR,
  DLX_EWK_LOGICAL_XOR,
  DLX_EWK_BITWISE_AND,
  DLX_EWK_BITWISE_OR,
  DLX_EWK_BITWISE_XOR,
  DLX_EWK_BITWISE_LEFT_SHIFT,
  DLX_EWK_BITWISE_RIGHT_SHIFT,
  DLX_EWK_NEG,
  DLX_EWK_ABS,
  DLX_EWK_SIGN,
  DLX_EWK_SQUARE,
  DLX_EWK_RECIPROCAL,
  DLX_EWK_LOGICAL_NOT,
  DLX_EWK_BITWISE_NOT,
  DLX_EWK_FLOOR,
  DLX_EWK_CEIL,
  DLX_EWK_TRUNC,
  DLX_EWK_ROUND,
  DLX_EWK_FRAC,
  DLX_EWK_ISNAN,
  DLX_EWK_ISINF,
  DLX_EWK_ISFINITE,
  DLX_EWK_SQRT,
  DLX_EWK_RSQRT,
  DLX_EWK_EXP,
  DLX_EWK_EXP2,
  DLX_EWK_EXPM1,
  DLX_EWK_LOG,
  DLX_EWK_LOG2,
  DLX_EWK_LOG10,
  DLX_EWK_LOG1P,
  DLX_EWK_SIN,
  DLX_EWK_COS,
  DLX_EWK_TAN,
  DLX_EWK_ASIN,
  DLX_EWK_ACOS,
  DLX_EWK_ATAN,
  DLX_EWK_SINH,
  DLX_EWK_COSH,
  DLX_EWK_TANH,
  DLX_EWK_ASINH,
  DLX_EWK_ACOSH,
  DLX_EWK_ATANH,
  DLX_EWK_SIGMOID,
  DLX_EWK_ERF,
  DLX_EWK_CONJ,
  DLX_EWK_REAL,
  DLX_EWK_IMAG,
  /* with three or four operands (dlx_ewk_apply_n) */
  DLX_EWK_WHERE,
  DLX_EWK_CLAMP,
  DLX_EWK_LERP,
  DLX_EWK_NAN_TO_NUM,
  DLX_EWK_NUM_OPS
};

/* The kernel dtypes, numbered as dlx_dtype (src/core/dtype.h; the host code checks that they
 * agree), so the host passes a dlx_dtype value as is. */
enum dlx_ewk_dtype {
  DLX_EWK_BOOL = 0,
  DLX_EWK_INT8 = 1,
  DLX_EWK_INT16 = 2,
  DLX_EWK_INT32 = 3,
  DLX_EWK_INT64 = 4,
  DLX_EWK_UINT8 = 5,
  DLX_EWK_UINT16 = 6,
  DLX_EWK_UINT32 = 7,
  DLX_EWK_UINT64 = 8,
  DLX_EWK_FLOAT16 = 9,   /* where alone: it moves values, so they stay float16 */
  DLX_EWK_BFLOAT16 = 10, /* (the same) */
  DLX_EWK_FLOAT32 = 11,
  DLX_EWK_FLOAT64 = 12,
  DLX_EWK_COMPLEX64 = 13,
  DLX_EWK_COMPLEX128 = 14
};

/* What an op gives for a kernel dtype: nothing (not defined there), a value of the kernel dtype,
 * a bool (a byte, 0 or 1), or a real value of the complex dtype's precision (abs). */
enum dlx_ewk_result {
  DLX_EWK_RESULT_NONE,
  DLX_EWK_RESULT_SAME,
  DLX_EWK_RESULT_BOOL,
  DLX_EWK_RESULT_REAL
};

/* The comparisons of a real type (integers, floats, bool) and its logical ops: 0 or 1. */
#define DLX_EWK_COMPARE(n, T)                                                                      \
  DLX_SHARED uint8_t dlx_ewk_eq_##n(T x, T y) { return x == y; }                                   \
  DLX_SHARED uint8_t dlx_ewk_ne_##n(T x, T y) { return x != y; }                                   \
  DLX_SHARED uint8_t dlx_ewk_lt_##n(T x, T y) { return x < y; }                                    \
  DLX_SHARED uint8_t dlx_ewk_le_##n(T x, T y) { return x <= y; }                                   \
  DLX_SHARED uint8_t dlx_ewk_gt_##n(T x, T y) { return x > y; }                                    \
  DLX_SHARED uint8_t dlx_ewk_ge_##n(T x, T y) { return x >= y; }

#define DLX_EWK_LOGICAL(n, T)                                                                      \
  DLX_SHARED uint8_t dlx_ewk_logical_and_##n(T x, T y) { return x != 0 && y != 0; }                \
  DLX_SHARED uint8_t dlx_ewk_logical_or_##n(T x, T y) { return x != 0 || y != 0; }                 \
  DLX_SHARED uint8_t dlx_ewk_logical_xor_##n(T x, T y) { return (x != 0) != (y != 0); }

/* ---- integers. WU is the unsigned type they wrap in (at least unsigned int, so that narrow
 * types are not promoted to int, where a product could overflow); floor_divide, remainder, fmod
 * and pow: arith.h. */

#define DLX_EWK_INT_COMMON(n, T, WU, BITS)                                                         \
  DLX_SHARED T dlx_ewk_add_##n(T x, T y) { return (T)((WU)x + (WU)y); }                            \
  DLX_SHARED T dlx_ewk_sub_##n(T x, T y) { return (T)((WU)x - (WU)y); }                            \
  DLX_SHARED T dlx_ewk_mul_##n(T x, T y) { return (T)((WU)x * (WU)y); }                            \
  DLX_SHARED T dlx_ewk_maximum_##n(T x, T y) { return x > y ? x : y; }                             \
  DLX_SHARED T dlx_ewk_minimum_##n(T x, T y) { return x < y ? x : y; }                             \
  DLX_EWK_COMPARE(n, T)                                                                            \
  DLX_EWK_LOGICAL(n, T)                                                                            \
  DLX_SHARED T dlx_ewk_bitwise_and_##n(T x, T y) { return (T)(x & y); }                            \
  DLX_SHARED T dlx_ewk_bitwise_or_##n(T x, T y) { return (T)(x | y); }                             \
  DLX_SHARED T dlx_ewk_bitwise_xor_##n(T x, T y) { return (T)(x ^ y); }                            \
  /* (WU)y makes a negative amount huge */                                                         \
  DLX_SHARED T dlx_ewk_bitwise_left_shift_##n(T x, T y) {                                          \
    return (WU)y >= (BITS) ? (T)0 : (T)((WU)x << (WU)y);                                           \
  }                                                                                                \
  DLX_SHARED T dlx_ewk_floor_divide_##n(T x, T y) { return dlx_floor_divide_##n(x, y); }           \
  DLX_SHARED T dlx_ewk_remainder_##n(T x, T y) { return dlx_remainder_##n(x, y); }                 \
  DLX_SHARED T dlx_ewk_fmod_##n(T x, T y) { return dlx_fmod_##n(x, y); }                           \
  DLX_SHARED T dlx_ewk_pow_##n(T x, T y) { return dlx_pow_##n(x, y); }                             \
  DLX_SHARED T dlx_ewk_neg_##n(T x) { return (T)(0u - (WU)x); }                                    \
  DLX_SHARED T dlx_ewk_square_##n(T x) { return (T)((WU)x * (WU)x); }                              \
  DLX_SHARED T dlx_ewk_bitwise_not_##n(T x) { return (T)~x; }                                      \
  DLX_SHARED T dlx_ewk_floor_##n(T x) { return x; }                                                \
  DLX_SHARED T dlx_ewk_ceil_##n(T x) { return x; }                                                 \
  DLX_SHARED T dlx_ewk_trunc_##n(T x) { return x; }                                                \
  DLX_SHARED T dlx_ewk_round_##n(T x) { return x; }                                                \
  DLX_SHARED uint8_t dlx_ewk_logical_not_##n(T x) { return x == 0; }                               \
  DLX_SHARED uint8_t dlx_ewk_isnan_##n(T x) { return (uint8_t)(0 * x); }                           \
  DLX_SHARED uint8_t dlx_ewk_isinf_##n(T x) { return (uint8_t)(0 * x); }                           \
  DLX_SHARED uint8_t dlx_ewk_isfinite_##n(T x) { return (uint8_t)(1 + 0 * x); }

#define DLX_EWK_SIGNED(n, T, WU, BITS)                                                             \
  DLX_DEFINE_SIGNED_ARITH(n, T, WU)                                                                \
  DLX_EWK_INT_COMMON(n, T, WU, BITS)                                                               \
  DLX_SHARED T dlx_ewk_bitwise_right_shift_##n(T x, T y) {                                         \
    return (WU)y >= (BITS) ? (T)(x < 0 ? -1 : 0) : (T)(x >> y);                                    \
  }                                                                                                \
  DLX_SHARED T dlx_ewk_abs_##n(T x) { return x < 0 ? (T)(0u - (WU)x) : x; }                        \
  DLX_SHARED T dlx_ewk_sign_##n(T x) { return (T)((x > 0) - (x < 0)); }

#define DLX_EWK_UNSIGNED(n, T, WU, BITS)                                                           \
  DLX_DEFINE_UNSIGNED_ARITH(n, T, WU)                                                              \
  DLX_EWK_INT_COMMON(n, T, WU, BITS)                                                               \
  DLX_SHARED T dlx_ewk_bitwise_right_shift_##n(T x, T y) {                                         \
    return (WU)y >= (BITS) ? (T)0 : (T)(x >> y);                                                   \
  }                                                                                                \
  DLX_SHARED T dlx_ewk_abs_##n(T x) { return x; }                                                  \
  DLX_SHARED T dlx_ewk_sign_##n(T x) { return (T)(x > 0); }

DLX_EWK_SIGNED(int8, int8_t, uint32_t, 8)
DLX_EWK_SIGNED(int16, int16_t, uint32_t, 16)
DLX_EWK_SIGNED(int32, int32_t, uint32_t, 32)
DLX_EWK_SIGNED(int64, int64_t, uint64_t, 64)
DLX_EWK_UNSIGNED(uint8, uint8_t, uint32_t, 8)
DLX_EWK_UNSIGNED(uint16, uint16_t, uint32_t, 16)
DLX_EWK_UNSIGNED(uint32, uint32_t, uint32_t, 32)
DLX_EWK_UNSIGNED(uint64, uint64_t, uint64_t, 64)

/* ---- bool (a byte, 0 or 1; other bytes combine bitwise, as on the CPU) */

DLX_SHARED uint8_t dlx_ewk_either_boolean(uint8_t x, uint8_t y) { return (uint8_t)(x | y); }
DLX_SHARED uint8_t dlx_ewk_both_boolean(uint8_t x, uint8_t y) { return (uint8_t)(x & y); }
DLX_SHARED uint8_t dlx_ewk_differ_boolean(uint8_t x, uint8_t y) { return (uint8_t)(x ^ y); }
DLX_EWK_COMPARE(boolean, uint8_t)
DLX_SHARED uint8_t dlx_ewk_none_boolean(uint8_t x) { return x == 0; }
DLX_SHARED uint8_t dlx_ewk_kept_boolean(uint8_t x) { return x; }
DLX_SHARED uint8_t dlx_ewk_never_boolean(uint8_t x) { return (uint8_t)(0 * x); }
DLX_SHARED uint8_t dlx_ewk_always_boolean(uint8_t x) { return (uint8_t)(1 + 0 * x); }

/* ---- floats. floor_divide and remainder follow NumPy's divmod (arith.h). maximum and
 * minimum: when x is NaN it wins, when y is NaN the comparison is false and y wins. sign keeps
 * +-0 and NaN. */

#define DLX_EWK_FLOAT(n, T, F)                                                                     \
  DLX_SHARED T dlx_ewk_add_##n(T x, T y) { return x + y; }                                         \
  DLX_SHARED T dlx_ewk_sub_##n(T x, T y) { return x - y; }                                         \
  DLX_SHARED T dlx_ewk_mul_##n(T x, T y) { return x * y; }                                         \
  DLX_SHARED T dlx_ewk_div_##n(T x, T y) { return x / y; }                                         \
  DLX_SHARED T dlx_ewk_floor_divide_##n(T x, T y) { return dlx_floor_divide_##n(x, y); }           \
  DLX_SHARED T dlx_ewk_remainder_##n(T x, T y) { return dlx_remainder_##n(x, y); }                 \
  DLX_SHARED T dlx_ewk_fmod_##n(T x, T y) { return F(fmod)(x, y); }                                \
  DLX_SHARED T dlx_ewk_pow_##n(T x, T y) { return F(pow)(x, y); }                                  \
  DLX_SHARED T dlx_ewk_maximum_##n(T x, T y) { return (x >= y || x != x) ? x : y; }                \
  DLX_SHARED T dlx_ewk_minimum_##n(T x, T y) { return (x <= y || x != x) ? x : y; }                \
  DLX_SHARED T dlx_ewk_atan2_##n(T x, T y) { return F(atan2)(x, y); }                              \
  DLX_SHARED T dlx_ewk_hypot_##n(T x, T y) { return F(hypot)(x, y); }                              \
  DLX_SHARED T dlx_ewk_copysign_##n(T x, T y) { return F(copysign)(x, y); }                        \
  DLX_EWK_COMPARE(n, T)                                                                            \
  DLX_EWK_LOGICAL(n, T)                                                                            \
  DLX_SHARED T dlx_ewk_neg_##n(T x) { return -x; }                                                 \
  DLX_SHARED T dlx_ewk_abs_##n(T x) { return F(fabs)(x); }                                         \
  DLX_SHARED T dlx_ewk_sign_##n(T x) { return x > 0 ? (T)1 : x < 0 ? (T)-1 : x; }                  \
  DLX_SHARED T dlx_ewk_square_##n(T x) { return x * x; }                                           \
  DLX_SHARED T dlx_ewk_reciprocal_##n(T x) { return (T)1 / x; }                                    \
  DLX_SHARED T dlx_ewk_floor_##n(T x) { return F(floor)(x); }                                      \
  DLX_SHARED T dlx_ewk_ceil_##n(T x) { return F(ceil)(x); }                                        \
  DLX_SHARED T dlx_ewk_trunc_##n(T x) { return F(trunc)(x); }                                      \
  /* x - trunc(x): the sign of x, NaN for infinities (PyTorch's frac) */                           \
  DLX_SHARED T dlx_ewk_frac_##n(T x) { return x - F(trunc)(x); }                                   \
  /* rint in the default rounding mode: half to even */                                            \
  DLX_SHARED T dlx_ewk_round_##n(T x) { return F(rint)(x); }                                       \
  DLX_SHARED uint8_t dlx_ewk_logical_not_##n(T x) { return x == 0; }                               \
  DLX_SHARED uint8_t dlx_ewk_isnan_##n(T x) { return x != x; }                                     \
  DLX_SHARED uint8_t dlx_ewk_isinf_##n(T x) { return F(fabs)(x) == (T)INFINITY; }                  \
  DLX_SHARED uint8_t dlx_ewk_isfinite_##n(T x) { return x - x == 0; }

#define DLX_EWK_DOUBLE_FN(fn) fn
DLX_EWK_FLOAT(float32, float, DLX_EWK_F)
DLX_EWK_FLOAT(float64, double, DLX_EWK_DOUBLE_FN)

/* ---- the math functions. float64 calls the device's double function; float32 (and float16 and
 * bfloat16, which compute in float32) computes in double and rounds once: a double result within
 * a few double ulps is within 1 float ulp after that rounding, whatever the device's float
 * functions allow (OpenCL C up to 4 ulp, CUDA 2). The kernels need fp64 anyway. */

#define DLX_EWK_MATH_FNS(X)                                                                        \
  X(sqrt)                                                                                          \
  X(exp)                                                                                           \
  X(exp2)                                                                                          \
  X(expm1)                                                                                         \
  X(log)                                                                                           \
  X(log2)                                                                                          \
  X(log10)                                                                                         \
  X(log1p)                                                                                         \
  X(sin)                                                                                           \
  X(cos)                                                                                           \
  X(tan)                                                                                           \
  X(asin)                                                                                          \
  X(acos)                                                                                          \
  X(atan)                                                                                          \
  X(sinh)                                                                                          \
  X(cosh)                                                                                          \
  X(tanh)                                                                                          \
  X(asinh)                                                                                         \
  X(acosh)                                                                                         \
  X(atanh)                                                                                         \
  X(erf)
#define DLX_EWK_MATH_DEF(fn)                                                                       \
  DLX_SHARED double dlx_ewk_##fn##_float64(double x) { return fn(x); }                             \
  DLX_SHARED float dlx_ewk_##fn##_float32(float x) { return (float)fn((double)x); }
DLX_EWK_MATH_FNS(DLX_EWK_MATH_DEF)

DLX_SHARED double dlx_ewk_rsqrt_float64(double x) { return 1 / sqrt(x); }
DLX_SHARED float dlx_ewk_rsqrt_float32(float x) { return (float)(1 / sqrt((double)x)); }
/* stable for large |x|: exp(-|x|) never overflows, and small results keep their precision */
DLX_SHARED double dlx_ewk_sigmoid_float64(double x) {
  double t = exp(-fabs(x));
  return x >= 0 ? 1 / (1 + t) : t / (1 + t);
}
DLX_SHARED float dlx_ewk_sigmoid_float32(float x) { return (float)dlx_ewk_sigmoid_float64(x); }

/* ---- conj, real and imag of real dtypes (complex ones below): the value, or zero */

#define DLX_EWK_REAL_PARTS(n, T)                                                                   \
  DLX_SHARED T dlx_ewk_conj_##n(T x) { return x; }                                                 \
  DLX_SHARED T dlx_ewk_real_##n(T x) { return x; }                                                 \
  DLX_SHARED T dlx_ewk_imag_##n(T x) {                                                             \
    (void)x;                                                                                       \
    return (T)0;                                                                                   \
  }
DLX_EWK_REAL_PARTS(boolean, uint8_t)
DLX_EWK_REAL_PARTS(int8, int8_t)
DLX_EWK_REAL_PARTS(int16, int16_t)
DLX_EWK_REAL_PARTS(int32, int32_t)
DLX_EWK_REAL_PARTS(int64, int64_t)
DLX_EWK_REAL_PARTS(uint8, uint8_t)
DLX_EWK_REAL_PARTS(uint16, uint16_t)
DLX_EWK_REAL_PARTS(uint32, uint32_t)
DLX_EWK_REAL_PARTS(uint64, uint64_t)
DLX_EWK_REAL_PARTS(float32, float)
DLX_EWK_REAL_PARTS(float64, double)

/* ---- complex: +, -, x and Smith's division (as NumPy) in arith.h; pow below */

#define DLX_EWK_COMPLEX(n, C, R, F)                                                                \
  DLX_SHARED C dlx_ewk_add_##n(C a, C b) { return dlx_cadd_##n(a, b); }                            \
  DLX_SHARED C dlx_ewk_sub_##n(C a, C b) { return dlx_csub_##n(a, b); }                            \
  DLX_SHARED C dlx_ewk_mul_##n(C a, C b) { return dlx_cmul_##n(a, b); }                            \
  DLX_SHARED C dlx_ewk_div_##n(C a, C b) { return dlx_cdiv_##n(a, b); }                            \
  DLX_SHARED uint8_t dlx_ewk_nonzero_##n(C a) { return a.re != 0 || a.im != 0; }                   \
  DLX_SHARED uint8_t dlx_ewk_eq_##n(C x, C y) { return x.re == y.re && x.im == y.im; }             \
  DLX_SHARED uint8_t dlx_ewk_ne_##n(C x, C y) { return x.re != y.re || x.im != y.im; }             \
  DLX_SHARED uint8_t dlx_ewk_logical_and_##n(C x, C y) {                                           \
    return dlx_ewk_nonzero_##n(x) && dlx_ewk_nonzero_##n(y);                                       \
  }                                                                                                \
  DLX_SHARED uint8_t dlx_ewk_logical_or_##n(C x, C y) {                                            \
    return dlx_ewk_nonzero_##n(x) || dlx_ewk_nonzero_##n(y);                                       \
  }                                                                                                \
  DLX_SHARED uint8_t dlx_ewk_logical_xor_##n(C x, C y) {                                           \
    return dlx_ewk_nonzero_##n(x) != dlx_ewk_nonzero_##n(y);                                       \
  }                                                                                                \
  DLX_SHARED C dlx_ewk_neg_##n(C x) { return C##_of(-x.re, -x.im); }                               \
  DLX_SHARED C dlx_ewk_conj_##n(C x) { return C##_of(x.re, -x.im); }                               \
  DLX_SHARED R dlx_ewk_abs_##n(C x) { return F(hypot)(x.re, x.im); }                               \
  DLX_SHARED C dlx_ewk_square_##n(C x) { return dlx_ewk_mul_##n(x, x); }                           \
  DLX_SHARED C dlx_ewk_reciprocal_##n(C x) { return dlx_ewk_div_##n(C##_of(1, 0), x); }            \
  DLX_SHARED uint8_t dlx_ewk_logical_not_##n(C x) { return !dlx_ewk_nonzero_##n(x); }              \
  DLX_SHARED uint8_t dlx_ewk_isnan_##n(C x) { return x.re != x.re || x.im != x.im; }               \
  DLX_SHARED uint8_t dlx_ewk_isinf_##n(C x) {                                                      \
    return F(fabs)(x.re) == (R)INFINITY || F(fabs)(x.im) == (R)INFINITY;                           \
  }                                                                                                \
  DLX_SHARED uint8_t dlx_ewk_isfinite_##n(C x) { return x.re - x.re == 0 && x.im - x.im == 0; }

DLX_EWK_COMPLEX(complex64, dlx_c64, float, DLX_EWK_F)
DLX_EWK_COMPLEX(complex128, dlx_c128, double, DLX_EWK_DOUBLE_FN)

/* pow as exp(y log x), the definition C's cpow follows, written out since OpenCL C and CUDA have
 * no complex library; complex64 computes it in double precision and rounds each part once. It
 * may differ from the CPU's cpow in the last bits, as each device's float pow may. */
DLX_SHARED dlx_c128 dlx_ewk_pow_complex128(dlx_c128 a, dlx_c128 b) {
  double lre, lim, wre, wim, r;
  if (b.re == 0 && b.im == 0) return dlx_c128_of(1, 0);
  if (a.re == 0 && a.im == 0) return dlx_c128_of(0, 0);
  lre = log(hypot(a.re, a.im));
  lim = atan2(a.im, a.re);
  wre = b.re * lre - b.im * lim;
  wim = b.re * lim + b.im * lre;
  r = exp(wre);
  return dlx_c128_of(r * cos(wim), r * sin(wim));
}

DLX_SHARED dlx_c64 dlx_ewk_pow_complex64(dlx_c64 a, dlx_c64 b) {
  dlx_c128 r = dlx_ewk_pow_complex128(dlx_c128_of(a.re, a.im), dlx_c128_of(b.re, b.im));
  return dlx_c64_of((float)r.re, (float)r.im);
}

/* ---- where, clamp, lerp and nan_to_num (dlx_ewk_apply_n): where's condition is a bool (the
 * host casts it, as `~= 0`), where takes every dtype; clamp is minimum(maximum(x, lo), hi), so hi
 * wins where lo > hi and floats propagate NaN; lerp (floats) is PyTorch's formula, from the end
 * nearer to w so that w = 0 gives a and w = 1 gives b exactly; nan_to_num puts its three values
 * (already of x's dtype) in place of NaN, +inf and -inf. */

#define DLX_EWK_INT_TERNARY(n, T)                                                                  \
  DLX_SHARED T dlx_ewk_clamp_##n(T x, T lo, T hi) {                                                \
    return x < lo ? (lo > hi ? hi : lo) : (x > hi ? hi : x);                                       \
  }
DLX_EWK_INT_TERNARY(boolean, uint8_t)
DLX_EWK_INT_TERNARY(int8, int8_t)
DLX_EWK_INT_TERNARY(int16, int16_t)
DLX_EWK_INT_TERNARY(int32, int32_t)
DLX_EWK_INT_TERNARY(int64, int64_t)
DLX_EWK_INT_TERNARY(uint8, uint8_t)
DLX_EWK_INT_TERNARY(uint16, uint16_t)
DLX_EWK_INT_TERNARY(uint32, uint32_t)
DLX_EWK_INT_TERNARY(uint64, uint64_t)

#define DLX_EWK_FLOAT_TERNARY(n, T, F)                                                             \
  DLX_SHARED T dlx_ewk_clamp_##n(T x, T lo, T hi) {                                                \
    return dlx_ewk_minimum_##n(dlx_ewk_maximum_##n(x, lo), hi);                                    \
  }                                                                                                \
  DLX_SHARED T dlx_ewk_lerp_##n(T a, T b, T w) {                                                   \
    return F(fabs)(w) < (T)0.5 ? a + w * (b - a) : b - (b - a) * ((T)1 - w);                       \
  }                                                                                                \
  DLX_SHARED T dlx_ewk_nan_to_num_##n(T x, T nan, T posinf, T neginf) {                            \
    return x != x ? nan : x == (T)INFINITY ? posinf : x == -(T)INFINITY ? neginf : x;              \
  }
DLX_EWK_FLOAT_TERNARY(float32, float, DLX_EWK_F)
DLX_EWK_FLOAT_TERNARY(float64, double, DLX_EWK_DOUBLE_FN)

/* ---- which ops each kernel dtype has: X(op code, element function, leading argument) */

/* lists several kernel dtypes share: the equality ops (complex ones too), the comparisons, tests
 * and rounding of the real dtypes, and the arithmetic of integers and floats (REAL_*) */
#define DLX_EWK_EQUALITY_OPS(X, a)                                                                 \
  X(DLX_EWK_EQ, eq, a)                                                                             \
  X(DLX_EWK_NE, ne, a)                                                                             \
  X(DLX_EWK_LOGICAL_AND, logical_and, a)                                                           \
  X(DLX_EWK_LOGICAL_OR, logical_or, a)                                                             \
  X(DLX_EWK_LOGICAL_XOR, logical_xor, a)
#define DLX_EWK_COMPARE_OPS(X, a)                                                                  \
  X(DLX_EWK_LT, lt, a)                                                                             \
  X(DLX_EWK_LE, le, a)                                                                             \
  X(DLX_EWK_GT, gt, a)                                                                             \
  X(DLX_EWK_GE, ge, a)                                                                             \
  DLX_EWK_EQUALITY_OPS(X, a)
#define DLX_EWK_TEST_OPS(X, a)                                                                     \
  X(DLX_EWK_LOGICAL_NOT, logical_not, a)                                                           \
  X(DLX_EWK_ISNAN, isnan, a)                                                                       \
  X(DLX_EWK_ISINF, isinf, a)                                                                       \
  X(DLX_EWK_ISFINITE, isfinite, a)
#define DLX_EWK_ROUNDING_OPS(X, a)                                                                 \
  X(DLX_EWK_FLOOR, floor, a)                                                                       \
  X(DLX_EWK_CEIL, ceil, a)                                                                         \
  X(DLX_EWK_TRUNC, trunc, a)                                                                       \
  X(DLX_EWK_ROUND, round, a)

#define DLX_EWK_REAL_BINARY(X, a)                                                                  \
  X(DLX_EWK_ADD, add, a)                                                                           \
  X(DLX_EWK_SUB, sub, a)                                                                           \
  X(DLX_EWK_MUL, mul, a)                                                                           \
  X(DLX_EWK_FLOOR_DIVIDE, floor_divide, a)                                                         \
  X(DLX_EWK_REMAINDER, remainder, a)                                                               \
  X(DLX_EWK_FMOD, fmod, a)                                                                         \
  X(DLX_EWK_POW, pow, a)                                                                           \
  X(DLX_EWK_MAXIMUM, maximum, a)                                                                   \
  X(DLX_EWK_MINIMUM, minimum, a)
#define DLX_EWK_INT_BINARY(X, a)                                                                   \
  X(DLX_EWK_BITWISE_AND, bitwise_and, a)                                                           \
  X(DLX_EWK_BITWISE_OR, bitwise_or, a)                                                             \
  X(DLX_EWK_BITWISE_XOR, bitwise_xor, a)                                                           \
  X(DLX_EWK_BITWISE_LEFT_SHIFT, bitwise_left_shift, a)                                             \
  X(DLX_EWK_BITWISE_RIGHT_SHIFT, bitwise_right_shift, a)                                           \
  DLX_EWK_REAL_BINARY(X, a)
#define DLX_EWK_REAL_UNARY(X, a)                                                                   \
  X(DLX_EWK_NEG, neg, a)                                                                           \
  X(DLX_EWK_ABS, abs, a)                                                                           \
  X(DLX_EWK_SIGN, sign, a)                                                                         \
  X(DLX_EWK_SQUARE, square, a)                                                                     \
  X(DLX_EWK_CONJ, conj, a)                                                                         \
  X(DLX_EWK_REAL, real, a)                                                                         \
  X(DLX_EWK_IMAG, imag, a)                                                                         \
  DLX_EWK_ROUNDING_OPS(X, a)
#define DLX_EWK_INT_UNARY(X, a)                                                                    \
  X(DLX_EWK_BITWISE_NOT, bitwise_not, a)                                                           \
  DLX_EWK_REAL_UNARY(X, a)

#define DLX_EWK_FLOAT_BINARY(X, a)                                                                 \
  X(DLX_EWK_DIV, div, a)                                                                           \
  X(DLX_EWK_ATAN2, atan2, a)                                                                       \
  X(DLX_EWK_HYPOT, hypot, a)                                                                       \
  X(DLX_EWK_COPYSIGN, copysign, a)                                                                 \
  DLX_EWK_REAL_BINARY(X, a)
#define DLX_EWK_FLOAT_UNARY(X, a)                                                                  \
  X(DLX_EWK_RECIPROCAL, reciprocal, a)                                                             \
  X(DLX_EWK_SQRT, sqrt, a)                                                                         \
  X(DLX_EWK_RSQRT, rsqrt, a)                                                                       \
  X(DLX_EWK_EXP, exp, a)                                                                           \
  X(DLX_EWK_EXP2, exp2, a)                                                                         \
  X(DLX_EWK_EXPM1, expm1, a)                                                                       \
  X(DLX_EWK_LOG, log, a)                                                                           \
  X(DLX_EWK_LOG2, log2, a)                                                                         \
  X(DLX_EWK_LOG10, log10, a)                                                                       \
  X(DLX_EWK_LOG1P, log1p, a)                                                                       \
  X(DLX_EWK_SIN, sin, a)                                                                           \
  X(DLX_EWK_COS, cos, a)                                                                           \
  X(DLX_EWK_TAN, tan, a)                                                                           \
  X(DLX_EWK_ASIN, asin, a)                                                                         \
  X(DLX_EWK_ACOS, acos, a)                                                                         \
  X(DLX_EWK_ATAN, atan, a)                                                                         \
  X(DLX_EWK_SINH, sinh, a)                                                                         \
  X(DLX_EWK_COSH, cosh, a)                                                                         \
  X(DLX_EWK_TANH, tanh, a)                                                                         \
  X(DLX_EWK_ASINH, asinh, a)                                                                       \
  X(DLX_EWK_ACOSH, acosh, a)                                                                       \
  X(DLX_EWK_ATANH, atanh, a)                                                                       \
  X(DLX_EWK_SIGMOID, sigmoid, a)                                                                   \
  X(DLX_EWK_ERF, erf, a)                                                                           \
  X(DLX_EWK_FRAC, frac, a)                                                                         \
  DLX_EWK_REAL_UNARY(X, a)

#define DLX_EWK_COMPLEX_BINARY(X, a)                                                               \
  X(DLX_EWK_ADD, add, a)                                                                           \
  X(DLX_EWK_SUB, sub, a)                                                                           \
  X(DLX_EWK_MUL, mul, a)                                                                           \
  X(DLX_EWK_DIV, div, a)                                                                           \
  X(DLX_EWK_POW, pow, a)
#define DLX_EWK_COMPLEX_UNARY(X, a)                                                                \
  X(DLX_EWK_NEG, neg, a)                                                                           \
  X(DLX_EWK_SQUARE, square, a)                                                                     \
  X(DLX_EWK_RECIPROCAL, reciprocal, a)                                                             \
  X(DLX_EWK_CONJ, conj, a)

/* bool: the element functions above are named by what they do, not by op */
#define DLX_EWK_BOOL_BINARY(X, a)                                                                  \
  X(DLX_EWK_ADD, either, a)                                                                        \
  X(DLX_EWK_MUL, both, a)                                                                          \
  X(DLX_EWK_MAXIMUM, either, a)                                                                    \
  X(DLX_EWK_MINIMUM, both, a)                                                                      \
  X(DLX_EWK_BITWISE_AND, both, a)                                                                  \
  X(DLX_EWK_BITWISE_OR, either, a)                                                                 \
  X(DLX_EWK_BITWISE_XOR, differ, a)
#define DLX_EWK_BOOL_UNARY(X, a)                                                                   \
  X(DLX_EWK_ABS, kept, a)                                                                          \
  X(DLX_EWK_BITWISE_NOT, none, a)                                                                  \
  X(DLX_EWK_FLOOR, kept, a)                                                                        \
  X(DLX_EWK_CEIL, kept, a)                                                                         \
  X(DLX_EWK_TRUNC, kept, a)                                                                        \
  X(DLX_EWK_ROUND, kept, a)                                                                        \
  X(DLX_EWK_CONJ, conj, a)                                                                         \
  X(DLX_EWK_REAL, real, a)                                                                         \
  X(DLX_EWK_IMAG, imag, a)
#define DLX_EWK_BOOL_COMPARE(X, a)                                                                 \
  X(DLX_EWK_EQ, eq, a)                                                                             \
  X(DLX_EWK_NE, ne, a)                                                                             \
  X(DLX_EWK_LT, lt, a)                                                                             \
  X(DLX_EWK_LE, le, a)                                                                             \
  X(DLX_EWK_GT, gt, a)                                                                             \
  X(DLX_EWK_GE, ge, a)                                                                             \
  X(DLX_EWK_LOGICAL_AND, both, a)                                                                  \
  X(DLX_EWK_LOGICAL_OR, either, a)                                                                 \
  X(DLX_EWK_LOGICAL_XOR, differ, a)
#define DLX_EWK_BOOL_TEST(X, a)                                                                    \
  X(DLX_EWK_LOGICAL_NOT, none, a)                                                                  \
  X(DLX_EWK_ISNAN, never, a)                                                                       \
  X(DLX_EWK_ISINF, never, a)                                                                       \
  X(DLX_EWK_ISFINITE, always, a)

/* ---- per kernel dtype n (storage type T): what op gives (dlx_ewk_result_<n>), its value when
 * it has n's dtype (dlx_ewk_same_<n>) or is a bool (dlx_ewk_test_<n>; y unused by unary ops),
 * and the whole step on bytes (dlx_ewk_apply_<n>: returns -1 for an op n does not have). */

#define DLX_EWK_CASE_BINARY(code, fn, n)                                                           \
  case code:                                                                                       \
    return dlx_ewk_##fn##_##n(x, y);
#define DLX_EWK_CASE_UNARY(code, fn, n)                                                            \
  case code:                                                                                       \
    return dlx_ewk_##fn##_##n(x);
#define DLX_EWK_CASE_RESULT(code, fn, result)                                                      \
  case code:                                                                                       \
    return result;

#define DLX_EWK_DISPATCH(d, n, T, BIN_SAME, UN_SAME, BIN_BOOL, UN_BOOL)                            \
  DLX_SHARED int dlx_ewk_result_##d(int op) {                                                      \
    switch (op) {                                                                                  \
      BIN_SAME(DLX_EWK_CASE_RESULT, DLX_EWK_RESULT_SAME)                                           \
      UN_SAME(DLX_EWK_CASE_RESULT, DLX_EWK_RESULT_SAME)                                            \
      BIN_BOOL(DLX_EWK_CASE_RESULT, DLX_EWK_RESULT_BOOL)                                           \
      UN_BOOL(DLX_EWK_CASE_RESULT, DLX_EWK_RESULT_BOOL)                                            \
    default:                                                                                       \
      return DLX_EWK_RESULT_NONE;                                                                  \
    }                                                                                              \
  }                                                                                                \
  DLX_SHARED T dlx_ewk_same_##d(int op, T x, T y) {                                                \
    switch (op) {                                                                                  \
      BIN_SAME(DLX_EWK_CASE_BINARY, n)                                                             \
      UN_SAME(DLX_EWK_CASE_UNARY, n)                                                               \
    default:                                                                                       \
      return x;                                                                                    \
    }                                                                                              \
  }                                                                                                \
  DLX_SHARED uint8_t dlx_ewk_test_##d(int op, T x, T y) {                                          \
    switch (op) {                                                                                  \
      BIN_BOOL(DLX_EWK_CASE_BINARY, n)                                                             \
      UN_BOOL(DLX_EWK_CASE_UNARY, n)                                                               \
    default:                                                                                       \
      return 0;                                                                                    \
    }                                                                                              \
  }

/* out, a and b: private or aligned memory of the kernel dtype (out: of the result's). */
#define DLX_EWK_APPLY(n, T, REAL_CASE)                                                             \
  DLX_SHARED int dlx_ewk_apply_##n(int op, char *out, const char *a, const char *b) {              \
    T x, y;                                                                                        \
    memcpy(&x, a, sizeof x);                                                                       \
    memcpy(&y, b, sizeof y);                                                                       \
    switch (dlx_ewk_result_##n(op)) {                                                              \
    case DLX_EWK_RESULT_SAME: {                                                                    \
      T r = dlx_ewk_same_##n(op, x, y);                                                            \
      memcpy(out, &r, sizeof r);                                                                   \
      return 0;                                                                                    \
    }                                                                                              \
    case DLX_EWK_RESULT_BOOL:                                                                      \
      out[0] = (char)dlx_ewk_test_##n(op, x, y);                                                   \
      return 0;                                                                                    \
      REAL_CASE                                                                                    \
    default:                                                                                       \
      return -1;                                                                                   \
    }                                                                                              \
  }

#define DLX_EWK_INTEGER(n, T)                                                                      \
  DLX_EWK_DISPATCH(n, n, T, DLX_EWK_INT_BINARY, DLX_EWK_INT_UNARY, DLX_EWK_COMPARE_OPS,            \
                   DLX_EWK_TEST_OPS)                                                               \
  DLX_EWK_APPLY(n, T, )
DLX_EWK_INTEGER(int8, int8_t)
DLX_EWK_INTEGER(int16, int16_t)
DLX_EWK_INTEGER(int32, int32_t)
DLX_EWK_INTEGER(int64, int64_t)
DLX_EWK_INTEGER(uint8, uint8_t)
DLX_EWK_INTEGER(uint16, uint16_t)
DLX_EWK_INTEGER(uint32, uint32_t)
DLX_EWK_INTEGER(uint64, uint64_t)

DLX_EWK_DISPATCH(boolean, boolean, uint8_t, DLX_EWK_BOOL_BINARY, DLX_EWK_BOOL_UNARY,
                 DLX_EWK_BOOL_COMPARE, DLX_EWK_BOOL_TEST)
DLX_EWK_APPLY(boolean, uint8_t, )

DLX_EWK_DISPATCH(float32, float32, float, DLX_EWK_FLOAT_BINARY, DLX_EWK_FLOAT_UNARY,
                 DLX_EWK_COMPARE_OPS, DLX_EWK_TEST_OPS)
DLX_EWK_APPLY(float32, float, )
DLX_EWK_DISPATCH(float64, float64, double, DLX_EWK_FLOAT_BINARY, DLX_EWK_FLOAT_UNARY,
                 DLX_EWK_COMPARE_OPS, DLX_EWK_TEST_OPS)
DLX_EWK_APPLY(float64, double, )

/* complex abs, real and imag give the real dtype of its precision */
#define DLX_EWK_REAL_CASE(n, R)                                                                    \
  case DLX_EWK_RESULT_REAL: {                                                                      \
    R r = dlx_ewk_part_##n(op, x);                                                                 \
                                                                                                   \
    memcpy(out, &r, sizeof r);                                                                     \
    return 0;                                                                                      \
  }
#define DLX_EWK_COMPLEX_KIND(n, C, R)                                                              \
  DLX_EWK_DISPATCH(n##_ops, n, C, DLX_EWK_COMPLEX_BINARY, DLX_EWK_COMPLEX_UNARY,                   \
                   DLX_EWK_EQUALITY_OPS, DLX_EWK_TEST_OPS)                                         \
  DLX_SHARED int dlx_ewk_result_##n(int op) {                                                      \
    return op == DLX_EWK_ABS || op == DLX_EWK_REAL || op == DLX_EWK_IMAG                           \
               ? (int)DLX_EWK_RESULT_REAL                                                          \
               : dlx_ewk_result_##n##_ops(op);                                                     \
  }                                                                                                \
  /* abs, real or imag */                                                                          \
  DLX_SHARED R dlx_ewk_part_##n(int op, C x) {                                                     \
    return op == DLX_EWK_REAL ? x.re : op == DLX_EWK_IMAG ? x.im : dlx_ewk_abs_##n(x);             \
  }                                                                                                \
  DLX_SHARED C dlx_ewk_same_##n(int op, C x, C y) { return dlx_ewk_same_##n##_ops(op, x, y); }     \
  DLX_SHARED uint8_t dlx_ewk_test_##n(int op, C x, C y) {                                          \
    return dlx_ewk_test_##n##_ops(op, x, y);                                                       \
  }                                                                                                \
  DLX_EWK_APPLY(n, C, DLX_EWK_REAL_CASE(n, R))
DLX_EWK_COMPLEX_KIND(complex64, dlx_c64, float)
DLX_EWK_COMPLEX_KIND(complex128, dlx_c128, double)

/* The step of op on one element of kernel dtype `dtype` (enum dlx_ewk_dtype) at a (and b; for
 * unary ops b is not read but must be readable: pass a), into out; -1 when the dtype does not
 * have the op. */
DLX_SHARED int dlx_ewk_apply(int op, int dtype, char *out, const char *a, const char *b) {
  switch (dtype) {
  case DLX_EWK_BOOL:
    return dlx_ewk_apply_boolean(op, out, a, b);
  case DLX_EWK_INT8:
    return dlx_ewk_apply_int8(op, out, a, b);
  case DLX_EWK_INT16:
    return dlx_ewk_apply_int16(op, out, a, b);
  case DLX_EWK_INT32:
    return dlx_ewk_apply_int32(op, out, a, b);
  case DLX_EWK_INT64:
    return dlx_ewk_apply_int64(op, out, a, b);
  case DLX_EWK_UINT8:
    return dlx_ewk_apply_uint8(op, out, a, b);
  case DLX_EWK_UINT16:
    return dlx_ewk_apply_uint16(op, out, a, b);
  case DLX_EWK_UINT32:
    return dlx_ewk_apply_uint32(op, out, a, b);
  case DLX_EWK_UINT64:
    return dlx_ewk_apply_uint64(op, out, a, b);
  case DLX_EWK_FLOAT32:
    return dlx_ewk_apply_float32(op, out, a, b);
  case DLX_EWK_FLOAT64:
    return dlx_ewk_apply_float64(op, out, a, b);
  case DLX_EWK_COMPLEX64:
    return dlx_ewk_apply_complex64(op, out, a, b);
  case DLX_EWK_COMPLEX128:
    return dlx_ewk_apply_complex128(op, out, a, b);
  default:
    return -1;
  }
}

/* What a three- or four-operand op gives for kernel dtype `dtype`. */
DLX_SHARED int dlx_ewk_result_n(int op, int dtype) {
  int real = dtype != DLX_EWK_COMPLEX64 && dtype != DLX_EWK_COMPLEX128;
  int floating = dtype == DLX_EWK_FLOAT32 || dtype == DLX_EWK_FLOAT64;
  switch (op) {
  case DLX_EWK_WHERE:
    return dtype >= DLX_EWK_BOOL && dtype <= DLX_EWK_COMPLEX128 ? DLX_EWK_RESULT_SAME
                                                                : DLX_EWK_RESULT_NONE;
  case DLX_EWK_CLAMP:
  case DLX_EWK_NAN_TO_NUM:
    return real ? DLX_EWK_RESULT_SAME : DLX_EWK_RESULT_NONE;
  case DLX_EWK_LERP:
    return floating ? DLX_EWK_RESULT_SAME : DLX_EWK_RESULT_NONE;
  default:
    return DLX_EWK_RESULT_NONE;
  }
}

/* What op gives for kernel dtype `dtype` (enum dlx_ewk_result). */
DLX_SHARED int dlx_ewk_result(int op, int dtype) {
  if (op >= DLX_EWK_WHERE) return dlx_ewk_result_n(op, dtype);
  switch (dtype) {
  case DLX_EWK_BOOL:
    return dlx_ewk_result_boolean(op);
  case DLX_EWK_INT8:
  case DLX_EWK_INT16:
  case DLX_EWK_INT32:
  case DLX_EWK_INT64:
  case DLX_EWK_UINT8:
  case DLX_EWK_UINT16:
  case DLX_EWK_UINT32:
  case DLX_EWK_UINT64:
    return dlx_ewk_result_int8(op);
  case DLX_EWK_FLOAT32:
  case DLX_EWK_FLOAT64:
    return dlx_ewk_result_float32(op);
  case DLX_EWK_COMPLEX64:
  case DLX_EWK_COMPLEX128:
    return dlx_ewk_result_complex64(op);
  default:
    return DLX_EWK_RESULT_NONE;
  }
}

/* ---- the ops of three and four operands, on bytes as dlx_ewk_apply: where(a, b, c) with a a
 * bool byte, clamp(a, b, c), lerp(a, b, c), nan_to_num(a, b, c, d); -1 for an op the dtype does
 * not have. The kernel dtype of input k is dlx_ewk_input_dtype. */

DLX_SHARED int dlx_ewk_input_dtype(int op, int k, int kdtype) {
  return op == DLX_EWK_WHERE && k == 0 ? (int)DLX_EWK_BOOL : kdtype;
}

#define DLX_EWK_APPLY3(n, T, CASES)                                                                \
  DLX_SHARED int dlx_ewk_apply3_##n(int op, char *out, const char *a, const char *b,               \
                                    const char *c, const char *d) {                                \
    T x, y, z, w, r;                                                                               \
    memcpy(&x, a, sizeof x); /* (where: the bool at a[0] is what counts) */                        \
    memcpy(&y, b, sizeof y);                                                                       \
    memcpy(&z, c, sizeof z);                                                                       \
    memcpy(&w, d, sizeof w);                                                                       \
    switch (op) {                                                                                  \
    case DLX_EWK_WHERE:                                                                            \
      r = a[0] != 0 ? y : z;                                                                       \
      break;                                                                                       \
      CASES                                                                                        \
    default:                                                                                       \
      return -1;                                                                                   \
    }                                                                                              \
    (void)w;                                                                                       \
    memcpy(out, &r, sizeof r);                                                                     \
    return 0;                                                                                      \
  }
#define DLX_EWK_INT_CASES(n)                                                                       \
  case DLX_EWK_CLAMP:                                                                              \
    r = dlx_ewk_clamp_##n(x, y, z);                                                                \
    break;                                                                                         \
  case DLX_EWK_NAN_TO_NUM: /* no NaN or infinity */                                                \
    r = x;                                                                                         \
    break;
#define DLX_EWK_FLOAT_CASES(n)                                                                     \
  case DLX_EWK_CLAMP:                                                                              \
    r = dlx_ewk_clamp_##n(x, y, z);                                                                \
    break;                                                                                         \
  case DLX_EWK_LERP:                                                                               \
    r = dlx_ewk_lerp_##n(x, y, z);                                                                 \
    break;                                                                                         \
  case DLX_EWK_NAN_TO_NUM:                                                                         \
    r = dlx_ewk_nan_to_num_##n(x, y, z, w);                                                        \
    break;
DLX_EWK_APPLY3(boolean, uint8_t, DLX_EWK_INT_CASES(boolean))
DLX_EWK_APPLY3(int8, int8_t, DLX_EWK_INT_CASES(int8))
DLX_EWK_APPLY3(int16, int16_t, DLX_EWK_INT_CASES(int16))
DLX_EWK_APPLY3(int32, int32_t, DLX_EWK_INT_CASES(int32))
DLX_EWK_APPLY3(int64, int64_t, DLX_EWK_INT_CASES(int64))
DLX_EWK_APPLY3(uint8, uint8_t, DLX_EWK_INT_CASES(uint8))
DLX_EWK_APPLY3(uint16, uint16_t, DLX_EWK_INT_CASES(uint16))
DLX_EWK_APPLY3(uint32, uint32_t, DLX_EWK_INT_CASES(uint32))
DLX_EWK_APPLY3(uint64, uint64_t, DLX_EWK_INT_CASES(uint64))
DLX_EWK_APPLY3(float32, float, DLX_EWK_FLOAT_CASES(float32))
DLX_EWK_APPLY3(float64, double, DLX_EWK_FLOAT_CASES(float64))
DLX_EWK_APPLY3(complex64, dlx_c64, )
DLX_EWK_APPLY3(complex128, dlx_c128, )

/* The step of any op on one element, with up to four inputs (unused ones are not read but must be
 * readable: pass a); -1 when the dtype does not have the op. */
DLX_SHARED int dlx_ewk_apply_n(int op, int dtype, char *out, const char *a, const char *b,
                               const char *c, const char *d) {
  if (op < DLX_EWK_WHERE) return dlx_ewk_apply(op, dtype, out, a, b);
  switch (dtype) {
  case DLX_EWK_BOOL:
    return dlx_ewk_apply3_boolean(op, out, a, b, c, d);
  case DLX_EWK_INT8:
    return dlx_ewk_apply3_int8(op, out, a, b, c, d);
  case DLX_EWK_INT16:
    return dlx_ewk_apply3_int16(op, out, a, b, c, d);
  case DLX_EWK_INT32:
    return dlx_ewk_apply3_int32(op, out, a, b, c, d);
  case DLX_EWK_INT64:
    return dlx_ewk_apply3_int64(op, out, a, b, c, d);
  case DLX_EWK_UINT8:
    return dlx_ewk_apply3_uint8(op, out, a, b, c, d);
  case DLX_EWK_UINT16:
  case DLX_EWK_FLOAT16: /* where alone, which moves the bits */
  case DLX_EWK_BFLOAT16:
    return dlx_ewk_apply3_uint16(op, out, a, b, c, d);
  case DLX_EWK_UINT32:
    return dlx_ewk_apply3_uint32(op, out, a, b, c, d);
  case DLX_EWK_UINT64:
    return dlx_ewk_apply3_uint64(op, out, a, b, c, d);
  case DLX_EWK_FLOAT32:
    return dlx_ewk_apply3_float32(op, out, a, b, c, d);
  case DLX_EWK_FLOAT64:
    return dlx_ewk_apply3_float64(op, out, a, b, c, d);
  case DLX_EWK_COMPLEX64:
    return dlx_ewk_apply3_complex64(op, out, a, b, c, d);
  case DLX_EWK_COMPLEX128:
    return dlx_ewk_apply3_complex128(op, out, a, b, c, d);
  default:
    return -1;
  }
}

#endif
