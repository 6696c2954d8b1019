/* elementwise_kernels_loops.h -- one loop function per (op, kernel dtype), written once with
 * macros, and their table, for each instruction set: elementwise_kernels.c (plain x86-64, or any
 * other CPU) and elementwise_kernels_avx2.c include it after defining KERNEL_TABLE and
 * STREAM_TABLE, the names of the tables it defines (STREAM_TABLE: the streamed kernels at the
 * end). BINARY and UNARY below give each op's element expression (in x and y) its three loops,
 * plain enough for the compiler to vectorise for the instruction set it targets. Both files are
 * built with -ffp-contract=off, and the expressions use only IEEE's correctly rounded operations
 * and the C library's functions, so the tables compute the same bits
 * (tests/c/test_cpu_elementwise.c compares them). Integers compute in unsigned types where C's
 * signed arithmetic could overflow, so they wrap without undefined behaviour. */
#ifndef DLX_CPU_ELEMENTWISE_KERNELS_LOOPS_H
#define DLX_CPU_ELEMENTWISE_KERNELS_LOOPS_H

#include <complex.h>
#include <math.h>
#include <string.h>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "common/arith.h"
#include "common/convert.h"
#include "cpu/elementwise_kernels.h"

/* ---- loop shapes */

#define BINARY(fname, T, OT, EXPR)                                                                 \
  static void fname(char *out_, const char *a_, const char *b_, int64_t n, dlx_cpu_ew_mode mode) { \
    OT *out = (OT *)(void *)out_;                                                                  \
    const T *a = (const T *)(const void *)a_, *b = (const T *)(const void *)b_;                    \
    if (mode == DLX_CPU_EW_VV) {                                                                   \
      for (int64_t i = 0; i < n; i++) {                                                            \
        const T x = a[i], y = b[i];                                                                \
        out[i] = EXPR;                                                                             \
      }                                                                                            \
    } else if (mode == DLX_CPU_EW_VS) {                                                            \
      const T y = b[0];                                                                            \
      for (int64_t i = 0; i < n; i++) {                                                            \
        const T x = a[i];                                                                          \
        out[i] = EXPR;                                                                             \
      }                                                                                            \
    } else {                                                                                       \
      const T x = a[0];                                                                            \
      for (int64_t i = 0; i < n; i++) {                                                            \
        const T y = b[i];                                                                          \
        out[i] = EXPR;                                                                             \
      }                                                                                            \
    }                                                                                              \
  }

#define UNARY(fname, T, OT, EXPR)                                                                  \
  static void fname(char *out_, const char *a_, const char *b_, int64_t n, dlx_cpu_ew_mode mode) { \
    OT *out = (OT *)(void *)out_;                                                                  \
    const T *a = (const T *)(const void *)a_;                                                      \
    (void)b_;                                                                                      \
    (void)mode;                                                                                    \
    for (int64_t i = 0; i < n; i++) {                                                              \
      const T x = a[i];                                                                            \
      out[i] = EXPR;                                                                               \
    }                                                                                              \
  }

/* ---- the comparisons of a real type (integers, floats, bool) and its logical ops: 0 or 1 */

#define COMPARE(name, T)                                                                           \
  BINARY(eq_##name, T, uint8_t, x == y)                                                            \
  BINARY(ne_##name, T, uint8_t, x != y)                                                            \
  BINARY(lt_##name, T, uint8_t, x < y)                                                             \
  BINARY(le_##name, T, uint8_t, x <= y)                                                            \
  BINARY(gt_##name, T, uint8_t, x > y)                                                             \
  BINARY(ge_##name, T, uint8_t, x >= y)

#define LOGICAL(name, T)                                                                           \
  BINARY(logical_and_##name, T, uint8_t, x != 0 && y != 0)                                         \
  BINARY(logical_or_##name, T, uint8_t, x != 0 || y != 0)                                          \
  BINARY(logical_xor_##name, T, uint8_t, (x != 0) != (y != 0))

/* ---- integers. WU is the unsigned type the arithmetic wraps in (at least unsigned int, so that
 * narrow types are not promoted to int, where a product could overflow); floor_divide, remainder,
 * fmod and pow are common/arith.h's, the definition the GPUs share. */

/* Ops shared by signed and unsigned integers. */
#define INT_KERNELS(name, T, WU, BITS)                                                             \
  BINARY(add_##name, T, T, (T)((WU)x + (WU)y))                                                     \
  BINARY(sub_##name, T, T, (T)((WU)x - (WU)y))                                                     \
  BINARY(mul_##name, T, T, (T)((WU)x * (WU)y))                                                     \
  BINARY(floor_divide_##name, T, T, dlx_floor_divide_##name(x, y))                                 \
  BINARY(remainder_##name, T, T, dlx_remainder_##name(x, y))                                       \
  BINARY(fmod_##name, T, T, dlx_fmod_##name(x, y))                                                 \
  BINARY(pow_##name, T, T, dlx_pow_##name(x, y))                                                   \
  BINARY(maximum_##name, T, T, x > y ? x : y)                                                      \
  BINARY(minimum_##name, T, T, x < y ? x : y)                                                      \
  COMPARE(name, T)                                                                                 \
  LOGICAL(name, T)                                                                                 \
  BINARY(bitwise_and_##name, T, T, (T)(x & y))                                                     \
  BINARY(bitwise_or_##name, T, T, (T)(x | y))                                                      \
  BINARY(bitwise_xor_##name, T, T, (T)(x ^ y))                                                     \
  BINARY(bitwise_left_shift_##name, T, T, (WU)y >= (BITS) ? (T)0 : (T)((WU)x << (WU)y))            \
  UNARY(neg_##name, T, T, (T)(0u - (WU)x))                                                         \
  UNARY(square_##name, T, T, (T)((WU)x * (WU)x))                                                   \
  UNARY(identity_##name, T, T, x)                                                                  \
  UNARY(logical_not_##name, T, uint8_t, x == 0)                                                    \
  UNARY(bitwise_not_##name, T, T, (T)~x)                                                           \
  UNARY(false_##name, T, uint8_t, (uint8_t)(0 * x))                                                \
  UNARY(true_##name, T, uint8_t, (uint8_t)(1 + 0 * x))

/* Shifts by a negative amount or by the width or more: 0, or -1 for a negative signed value
 * shifted right (NumPy's rule); (WU)y makes a negative amount huge. */
#define SIGNED_KERNELS(name, T, WU, BITS)                                                          \
  DLX_DEFINE_SIGNED_ARITH(name, T, WU)                                                             \
  INT_KERNELS(name, T, WU, BITS)                                                                   \
  BINARY(bitwise_right_shift_##name, T, T, (WU)y >= (BITS) ? (T)(x < 0 ? -1 : 0) : (T)(x >> y))    \
  UNARY(abs_##name, T, T, x < 0 ? (T)(0u - (WU)x) : x)                                             \
  UNARY(sign_##name, T, T, (T)((x > 0) - (x < 0)))

#define UNSIGNED_KERNELS(name, T, WU, BITS)                                                        \
  DLX_DEFINE_UNSIGNED_ARITH(name, T, WU)                                                           \
  INT_KERNELS(name, T, WU, BITS)                                                                   \
  BINARY(bitwise_right_shift_##name, T, T, (WU)y >= (BITS) ? (T)0 : (T)(x >> y))                   \
  UNARY(abs_##name, T, T, x)                                                                       \
  UNARY(sign_##name, T, T, (T)(x > 0))

SIGNED_KERNELS(int8, int8_t, uint32_t, 8)
SIGNED_KERNELS(int16, int16_t, uint32_t, 16)
SIGNED_KERNELS(int32, int32_t, uint32_t, 32)
SIGNED_KERNELS(int64, int64_t, uint64_t, 64)
UNSIGNED_KERNELS(uint8, uint8_t, uint32_t, 8)
UNSIGNED_KERNELS(uint16, uint16_t, uint32_t, 16)
UNSIGNED_KERNELS(uint32, uint32_t, uint32_t, 32)
UNSIGNED_KERNELS(uint64, uint64_t, uint64_t, 64)

/* ---- bool (0 or 1 in a byte): add is or, mul and, as NumPy */

BINARY(or_bool, uint8_t, uint8_t, (uint8_t)(x | y))
BINARY(and_bool, uint8_t, uint8_t, (uint8_t)(x &y))
BINARY(xor_bool, uint8_t, uint8_t, (uint8_t)(x ^ y))
COMPARE(bool, uint8_t)
UNARY(not_bool, uint8_t, uint8_t, (uint8_t)(x == 0))
UNARY(identity_bool, uint8_t, uint8_t, x)
UNARY(false_bool, uint8_t, uint8_t, (uint8_t)(0 * x))
UNARY(true_bool, uint8_t, uint8_t, (uint8_t)(1 + 0 * x))

/* ---- floats. floor_divide and remainder follow NumPy's divmod (common/arith.h, the
 * definition the GPUs share). NaN-propagating maximum and minimum: when x is NaN it wins, when y
 * is NaN the comparison is false and y wins. sign keeps +-0 and NaN. */
#define FLOAT_KERNELS(name, T, SUFFIX)                                                             \
  BINARY(add_##name, T, T, x + y)                                                                  \
  BINARY(sub_##name, T, T, x - y)                                                                  \
  BINARY(mul_##name, T, T, x *y)                                                                   \
  BINARY(div_##name, T, T, x / y)                                                                  \
  BINARY(floor_divide_##name, T, T, dlx_floor_divide_##name(x, y))                                 \
  BINARY(remainder_##name, T, T, dlx_remainder_##name(x, y))                                       \
  BINARY(fmod_##name, T, T, fmod##SUFFIX(x, y))                                                    \
  BINARY(pow_##name, T, T, pow##SUFFIX(x, y))                                                      \
  BINARY(maximum_##name, T, T, (x >= y || x != x) ? x : y)                                         \
  BINARY(minimum_##name, T, T, (x <= y || x != x) ? x : y)                                         \
  BINARY(atan2_##name, T, T, atan2##SUFFIX(x, y))                                                  \
  BINARY(hypot_##name, T, T, hypot##SUFFIX(x, y))                                                  \
  BINARY(copysign_##name, T, T, copysign##SUFFIX(x, y))                                            \
  COMPARE(name, T)                                                                                 \
  LOGICAL(name, T)                                                                                 \
  UNARY(neg_##name, T, T, -x)                                                                      \
  UNARY(abs_##name, T, T, fabs##SUFFIX(x))                                                         \
  UNARY(sign_##name, T, T, x > 0 ? (T)1 : x < 0 ? (T)-1 : x)                                       \
  UNARY(square_##name, T, T, x *x)                                                                 \
  UNARY(reciprocal_##name, T, T, 1 / x)                                                            \
  UNARY(logical_not_##name, T, uint8_t, x == 0)                                                    \
  UNARY(floor_##name, T, T, floor##SUFFIX(x))                                                      \
  UNARY(ceil_##name, T, T, ceil##SUFFIX(x))                                                        \
  UNARY(trunc_##name, T, T, trunc##SUFFIX(x))                                                      \
  UNARY(frac_##name, T, T, x - trunc##SUFFIX(x))                                                   \
  UNARY(round_##name, T, T, nearbyint##SUFFIX(x)) /* the default mode: half to even */             \
  UNARY(isnan_##name, T, uint8_t, x != x)                                                          \
  UNARY(isinf_##name, T, uint8_t, fabs##SUFFIX(x) == (T)INFINITY)                                  \
  UNARY(isfinite_##name, T, uint8_t, x - x == 0)

FLOAT_KERNELS(float32, float, f)
FLOAT_KERNELS(float64, double, )

/* ---- complex: arithmetic from common/arith.h (Smith's division, as NumPy), C99's cpow */

#define COMPLEX_HELPERS(name, C, R, SUFFIX, CT)                                                    \
  static inline C make_##name(R re, R im) {                                                        \
    C z;                                                                                           \
    z.re = re;                                                                                     \
    z.im = im;                                                                                     \
    return z;                                                                                      \
  }                                                                                                \
  static inline C cpow_##name(C a, C b) {                                                          \
    CT z = cpow##SUFFIX(a.re + a.im * (CT)I, b.re + b.im * (CT)I);                                 \
    return make_##name(creal##SUFFIX(z), cimag##SUFFIX(z));                                        \
  }                                                                                                \
  static inline int nonzero_##name(C a) { return a.re != 0 || a.im != 0; }

#define COMPLEX_KERNELS(name, C, R, SUFFIX, CT)                                                    \
  COMPLEX_HELPERS(name, C, R, SUFFIX, CT)                                                          \
  BINARY(add_##name, C, C, dlx_cadd_##name(x, y))                                                  \
  BINARY(sub_##name, C, C, dlx_csub_##name(x, y))                                                  \
  BINARY(mul_##name, C, C, dlx_cmul_##name(x, y))                                                  \
  BINARY(div_##name, C, C, dlx_cdiv_##name(x, y))                                                  \
  BINARY(pow_##name, C, C, cpow_##name(x, y))                                                      \
  BINARY(eq_##name, C, uint8_t, x.re == y.re && x.im == y.im)                                      \
  BINARY(ne_##name, C, uint8_t, x.re != y.re || x.im != y.im)                                      \
  BINARY(logical_and_##name, C, uint8_t, nonzero_##name(x) && nonzero_##name(y))                   \
  BINARY(logical_or_##name, C, uint8_t, nonzero_##name(x) || nonzero_##name(y))                    \
  BINARY(logical_xor_##name, C, uint8_t, nonzero_##name(x) != nonzero_##name(y))                   \
  UNARY(neg_##name, C, C, make_##name(-x.re, -x.im))                                               \
  UNARY(abs_##name, C, R, hypot##SUFFIX(x.re, x.im))                                               \
  UNARY(square_##name, C, C, dlx_cmul_##name(x, x))                                                \
  UNARY(reciprocal_##name, C, C, dlx_cdiv_##name(make_##name(1, 0), x))                            \
  UNARY(logical_not_##name, C, uint8_t, !nonzero_##name(x))                                        \
  UNARY(isnan_##name, C, uint8_t, x.re != x.re || x.im != x.im)                                    \
  UNARY(isinf_##name, C, uint8_t,                                                                  \
        fabs##SUFFIX(x.re) == (R)INFINITY || fabs##SUFFIX(x.im) == (R)INFINITY)                    \
  UNARY(isfinite_##name, C, uint8_t, x.re - x.re == 0 && x.im - x.im == 0)

COMPLEX_KERNELS(complex64, dlx_c64, float, f, float complex)
COMPLEX_KERNELS(complex128, dlx_c128, double, , double complex)

/* ---- the table */

#define INT_ENTRIES(name, E)                                                                       \
  [DLX_EW_ADD][E] = add_##name, [DLX_EW_SUB][E] = sub_##name, [DLX_EW_MUL][E] = mul_##name,        \
  [DLX_EW_FLOOR_DIVIDE][E] = floor_divide_##name, [DLX_EW_REMAINDER][E] = remainder_##name,        \
  [DLX_EW_FMOD][E] = fmod_##name, [DLX_EW_POW][E] = pow_##name,                                    \
  [DLX_EW_MAXIMUM][E] = maximum_##name, [DLX_EW_MINIMUM][E] = minimum_##name,                      \
  [DLX_EW_EQ][E] = eq_##name, [DLX_EW_NE][E] = ne_##name, [DLX_EW_LT][E] = lt_##name,              \
  [DLX_EW_LE][E] = le_##name, [DLX_EW_GT][E] = gt_##name, [DLX_EW_GE][E] = ge_##name,              \
  [DLX_EW_LOGICAL_AND][E] = logical_and_##name, [DLX_EW_LOGICAL_OR][E] = logical_or_##name,        \
  [DLX_EW_LOGICAL_XOR][E] = logical_xor_##name, [DLX_EW_BITWISE_AND][E] = bitwise_and_##name,      \
  [DLX_EW_BITWISE_OR][E] = bitwise_or_##name, [DLX_EW_BITWISE_XOR][E] = bitwise_xor_##name,        \
  [DLX_EW_BITWISE_LEFT_SHIFT][E] = bitwise_left_shift_##name,                                      \
  [DLX_EW_BITWISE_RIGHT_SHIFT][E] = bitwise_right_shift_##name, [DLX_EW_NEG][E] = neg_##name,      \
  [DLX_EW_ABS][E] = abs_##name, [DLX_EW_SIGN][E] = sign_##name,                                    \
  [DLX_EW_SQUARE][E] = square_##name, [DLX_EW_LOGICAL_NOT][E] = logical_not_##name,                \
  [DLX_EW_BITWISE_NOT][E] = bitwise_not_##name, [DLX_EW_FLOOR][E] = identity_##name,               \
  [DLX_EW_CEIL][E] = identity_##name, [DLX_EW_TRUNC][E] = identity_##name,                         \
  [DLX_EW_ROUND][E] = identity_##name, [DLX_EW_ISNAN][E] = false_##name,                           \
  [DLX_EW_ISINF][E] = false_##name, [DLX_EW_ISFINITE][E] = true_##name,

#define FLOAT_ENTRIES(name, E)                                                                     \
  [DLX_EW_ADD][E] = add_##name, [DLX_EW_SUB][E] = sub_##name, [DLX_EW_MUL][E] = mul_##name,        \
  [DLX_EW_DIV][E] = div_##name, [DLX_EW_FLOOR_DIVIDE][E] = floor_divide_##name,                    \
  [DLX_EW_REMAINDER][E] = remainder_##name, [DLX_EW_FMOD][E] = fmod_##name,                        \
  [DLX_EW_POW][E] = pow_##name, [DLX_EW_MAXIMUM][E] = maximum_##name,                              \
  [DLX_EW_MINIMUM][E] = minimum_##name, [DLX_EW_ATAN2][E] = atan2_##name,                          \
  [DLX_EW_HYPOT][E] = hypot_##name, [DLX_EW_COPYSIGN][E] = copysign_##name,                        \
  [DLX_EW_EQ][E] = eq_##name, [DLX_EW_NE][E] = ne_##name, [DLX_EW_LT][E] = lt_##name,              \
  [DLX_EW_LE][E] = le_##name, [DLX_EW_GT][E] = gt_##name, [DLX_EW_GE][E] = ge_##name,              \
  [DLX_EW_LOGICAL_AND][E] = logical_and_##name, [DLX_EW_LOGICAL_OR][E] = logical_or_##name,        \
  [DLX_EW_LOGICAL_XOR][E] = logical_xor_##name, [DLX_EW_NEG][E] = neg_##name,                      \
  [DLX_EW_ABS][E] = abs_##name, [DLX_EW_SIGN][E] = sign_##name,                                    \
  [DLX_EW_SQUARE][E] = square_##name, [DLX_EW_RECIPROCAL][E] = reciprocal_##name,                  \
  [DLX_EW_LOGICAL_NOT][E] = logical_not_##name, [DLX_EW_FLOOR][E] = floor_##name,                  \
  [DLX_EW_CEIL][E] = ceil_##name, [DLX_EW_TRUNC][E] = trunc_##name,                                \
  [DLX_EW_FRAC][E] = frac_##name, [DLX_EW_ROUND][E] = round_##name,                                \
  [DLX_EW_ISNAN][E] = isnan_##name, [DLX_EW_ISINF][E] = isinf_##name,                              \
  [DLX_EW_ISFINITE][E] = isfinite_##name,

#define COMPLEX_ENTRIES(name, E)                                                                   \
  [DLX_EW_ADD][E] = add_##name, [DLX_EW_SUB][E] = sub_##name, [DLX_EW_MUL][E] = mul_##name,        \
  [DLX_EW_DIV][E] = div_##name, [DLX_EW_POW][E] = pow_##name, [DLX_EW_EQ][E] = eq_##name,          \
  [DLX_EW_NE][E] = ne_##name, [DLX_EW_LOGICAL_AND][E] = logical_and_##name,                        \
  [DLX_EW_LOGICAL_OR][E] = logical_or_##name, [DLX_EW_LOGICAL_XOR][E] = logical_xor_##name,        \
  [DLX_EW_NEG][E] = neg_##name, [DLX_EW_ABS][E] = abs_##name, [DLX_EW_SQUARE][E] = square_##name,  \
  [DLX_EW_RECIPROCAL][E] = reciprocal_##name, [DLX_EW_LOGICAL_NOT][E] = logical_not_##name,        \
  [DLX_EW_ISNAN][E] = isnan_##name, [DLX_EW_ISINF][E] = isinf_##name,                              \
  [DLX_EW_ISFINITE][E] = isfinite_##name,

const dlx_cpu_ew_kernel KERNEL_TABLE[DLX_EW_NUM_OPS][DLX_COMPLEX128 + 1] = {
    [DLX_EW_ADD][DLX_BOOL] = or_bool,
    [DLX_EW_MUL][DLX_BOOL] = and_bool,
    [DLX_EW_MAXIMUM][DLX_BOOL] = or_bool,
    [DLX_EW_MINIMUM][DLX_BOOL] = and_bool,
    [DLX_EW_EQ][DLX_BOOL] = eq_bool,
    [DLX_EW_NE][DLX_BOOL] = ne_bool,
    [DLX_EW_LT][DLX_BOOL] = lt_bool,
    [DLX_EW_LE][DLX_BOOL] = le_bool,
    [DLX_EW_GT][DLX_BOOL] = gt_bool,
    [DLX_EW_GE][DLX_BOOL] = ge_bool,
    [DLX_EW_LOGICAL_AND][DLX_BOOL] = and_bool,
    [DLX_EW_LOGICAL_OR][DLX_BOOL] = or_bool,
    [DLX_EW_LOGICAL_XOR][DLX_BOOL] = xor_bool,
    [DLX_EW_BITWISE_AND][DLX_BOOL] = and_bool,
    [DLX_EW_BITWISE_OR][DLX_BOOL] = or_bool,
    [DLX_EW_BITWISE_XOR][DLX_BOOL] = xor_bool,
    [DLX_EW_ABS][DLX_BOOL] = identity_bool,
    [DLX_EW_LOGICAL_NOT][DLX_BOOL] = not_bool,
    [DLX_EW_BITWISE_NOT][DLX_BOOL] = not_bool,
    [DLX_EW_FLOOR][DLX_BOOL] = identity_bool,
    [DLX_EW_CEIL][DLX_BOOL] = identity_bool,
    [DLX_EW_TRUNC][DLX_BOOL] = identity_bool,
    [DLX_EW_ROUND][DLX_BOOL] = identity_bool,
    [DLX_EW_ISNAN][DLX_BOOL] = false_bool,
    [DLX_EW_ISINF][DLX_BOOL] = false_bool,
    [DLX_EW_ISFINITE][DLX_BOOL] = true_bool,
    INT_ENTRIES(int8, DLX_INT8) INT_ENTRIES(int16, DLX_INT16) INT_ENTRIES(int32, DLX_INT32)
        INT_ENTRIES(int64, DLX_INT64) INT_ENTRIES(uint8, DLX_UINT8) INT_ENTRIES(uint16, DLX_UINT16)
            INT_ENTRIES(uint32, DLX_UINT32) INT_ENTRIES(uint64, DLX_UINT64)
                FLOAT_ENTRIES(float32, DLX_FLOAT32) FLOAT_ENTRIES(float64, DLX_FLOAT64)
                    COMPLEX_ENTRIES(complex64, DLX_COMPLEX64)
                        COMPLEX_ENTRIES(complex128, DLX_COMPLEX128)};

/* ---- streamed kernels: the same results, written with non-temporal stores.
 *
 * For results far larger than the caches (elementwise.c decides). A plain store to a line that is
 * not in the cache reads the line from memory first, so an add into an existing tensor moves 16
 * bytes per float32 element instead of 12; a non-temporal store writes the whole line without
 * reading it. The stores go straight from the vector registers, between the loads: results
 * gathered in an L1 buffer and streamed out in bursts were slower than plain stores (a burst
 * stalls on the write-combining buffers while no load is in flight; bench/RESULTS.md). Only the
 * cheap arithmetic ops, whose speed is memory's, have one. Each element is the plain kernel's
 * expression on GCC vector types, the same IEEE operation (or the same wrapping integer one) lane
 * by lane, so the bytes are the plain kernel's, which also does the unaligned head and the tail.
 * Each call ends with a store fence: its results are ordered before whatever the thread does next
 * (the pool's completion count). x86-64 only (SSE2, or AVX in the AVX2 build). */
#if defined(__SSE2__)

#if defined(__AVX__)
#define STREAM_VEC_BYTES 32
#define STREAM_VEC(p, v) _mm256_stream_si256((__m256i *)(void *)(p), (__m256i)(v))
#else
#define STREAM_VEC_BYTES 16
#define STREAM_VEC(p, v) _mm_stream_si128((__m128i *)(void *)(p), (__m128i)(v))
#endif

/* x OP y on vectors of T; plain: the kernel of the same op (head and tail). */
#define STREAMED(fname, plain, T, OP)                                                              \
  static void fname(char *out_, const char *a_, const char *b_, int64_t n, dlx_cpu_ew_mode mode) { \
    typedef T vec __attribute__((vector_size(STREAM_VEC_BYTES)));                                  \
    enum { W = STREAM_VEC_BYTES / sizeof(T) };                                                     \
    T *out = (T *)(void *)out_;                                                                    \
    const T *a = (const T *)(const void *)a_, *b = (const T *)(const void *)b_;                    \
    int64_t head = (int64_t)((-(uintptr_t)out_ & (STREAM_VEC_BYTES - 1)) / sizeof(T)), i;          \
    vec x, y;                                                                                      \
    if (head > n) head = n;                                                                        \
    plain(out_, a_, b_, head, mode);                                                               \
    i = head;                                                                                      \
    if (mode == DLX_CPU_EW_VV) {                                                                   \
      for (; i + W <= n; i += W) {                                                                 \
        memcpy(&x, a + i, sizeof x);                                                               \
        memcpy(&y, b + i, sizeof y);                                                               \
        STREAM_VEC(out + i, x OP y);                                                               \
      }                                                                                            \
    } else if (mode == DLX_CPU_EW_VS) {                                                            \
      for (int k = 0; k < W; k++) y[k] = b[0];                                                     \
      for (; i + W <= n; i += W) {                                                                 \
        memcpy(&x, a + i, sizeof x);                                                               \
        STREAM_VEC(out + i, x OP y);                                                               \
      }                                                                                            \
    } else {                                                                                       \
      for (int k = 0; k < W; k++) x[k] = a[0];                                                     \
      for (; i + W <= n; i += W) {                                                                 \
        memcpy(&y, b + i, sizeof y);                                                               \
        STREAM_VEC(out + i, x OP y);                                                               \
      }                                                                                            \
    }                                                                                              \
    plain((char *)(out + i), mode == DLX_CPU_EW_SV ? a_ : (const char *)(a + i),                   \
          mode == DLX_CPU_EW_VS ? b_ : (const char *)(b + i), n - i, mode);                        \
    _mm_sfence();                                                                                  \
  }

/* Integers in their unsigned type: the plain kernels' wrapping arithmetic. */
#define STREAMED_ARITH(name, T)                                                                    \
  STREAMED(add_##name##_streamed, add_##name, T, +)                                                \
  STREAMED(sub_##name##_streamed, sub_##name, T, -)                                                \
  STREAMED(mul_##name##_streamed, mul_##name, T, *)
STREAMED_ARITH(int32, uint32_t)
STREAMED_ARITH(int64, uint64_t)
STREAMED_ARITH(uint32, uint32_t)
STREAMED_ARITH(uint64, uint64_t)
STREAMED_ARITH(float32, float)
STREAMED_ARITH(float64, double)
STREAMED(div_float32_streamed, div_float32, float, /)
STREAMED(div_float64_streamed, div_float64, double, /)

#define STREAM_ENTRIES(name, E)                                                                    \
  [DLX_EW_ADD][E] = add_##name##_streamed, [DLX_EW_SUB][E] = sub_##name##_streamed,                \
  [DLX_EW_MUL][E] = mul_##name##_streamed,

const dlx_cpu_ew_kernel STREAM_TABLE[DLX_EW_NUM_OPS][DLX_COMPLEX128 + 1] = {
    [DLX_EW_DIV][DLX_FLOAT32] = div_float32_streamed,
    [DLX_EW_DIV][DLX_FLOAT64] = div_float64_streamed,
    STREAM_ENTRIES(int32, DLX_INT32) STREAM_ENTRIES(int64, DLX_INT64)
        STREAM_ENTRIES(uint32, DLX_UINT32) STREAM_ENTRIES(uint64, DLX_UINT64)
            STREAM_ENTRIES(float32, DLX_FLOAT32) STREAM_ENTRIES(float64, DLX_FLOAT64)};

#else
const dlx_cpu_ew_kernel STREAM_TABLE[DLX_EW_NUM_OPS][DLX_COMPLEX128 + 1] = {{NULL}};
#endif

#endif
