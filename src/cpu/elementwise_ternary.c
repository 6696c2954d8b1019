/* elementwise_ternary.c -- where, clamp, lerp and nan_to_num, one loop function per (op, kernel
 * dtype) written with TERNARY below: a loop for contiguous inputs, which the compiler
 * vectorises, and one for any mix of contiguous inputs and single values. */
#include "cpu/elementwise_ternary.h"

#include <math.h>

#include "common/convert.h"

/* out[i] = EXPR of x, y, z (inputs 0, 1, 2, of types TX, T, T) and the values v1..v3 of inputs
 * 1..3, which nan_to_num takes as single values. */
#define TERNARY(fname, TX, T, OT, EXPR)                                                            \
  static void fname(char *out_, const char *const *in, const bool *scalar, int64_t n) {            \
    OT *out = (OT *)(void *)out_;                                                                  \
    const TX *a = (const TX *)(const void *)in[0];                                                 \
    const T *b = (const T *)(const void *)in[1], *c = (const T *)(const void *)in[2];              \
    int64_t sa = scalar[0] ? 0 : 1, sb = scalar[1] ? 0 : 1, sc = scalar[2] ? 0 : 1;                \
    if (sa && sb && sc) {                                                                          \
      for (int64_t i = 0; i < n; i++) {                                                            \
        const TX x = a[i];                                                                         \
        const T y = b[i], z = c[i];                                                                \
        out[i] = EXPR;                                                                             \
      }                                                                                            \
    } else {                                                                                       \
      for (int64_t i = 0; i < n; i++) {                                                            \
        const TX x = a[i * sa];                                                                    \
        const T y = b[i * sb], z = c[i * sc];                                                      \
        out[i] = EXPR;                                                                             \
      }                                                                                            \
    }                                                                                              \
  }

/* nan_to_num: x and three single values. */
#define NAN_TO_NUM(fname, T)                                                                       \
  static void fname(char *out_, const char *const *in, const bool *scalar, int64_t n) {            \
    T *out = (T *)(void *)out_;                                                                    \
    const T *a = (const T *)(const void *)in[0];                                                   \
    const T nanv = *(const T *)(const void *)in[1], posv = *(const T *)(const void *)in[2],        \
            negv = *(const T *)(const void *)in[3];                                                \
    (void)scalar;                                                                                  \
    for (int64_t i = 0; i < n; i++) {                                                              \
      const T x = a[i];                                                                            \
      out[i] = x != x ? nanv : x == (T)INFINITY ? posv : x == -(T)INFINITY ? negv : x;             \
    }                                                                                              \
  }

/* Integers and bools have no NaN or infinity: nan_to_num copies. */
#define COPY_FIRST(fname, T)                                                                       \
  static void fname(char *out_, const char *const *in, const bool *scalar, int64_t n) {            \
    T *out = (T *)(void *)out_;                                                                    \
    const T *a = (const T *)(const void *)in[0];                                                   \
    (void)scalar;                                                                                  \
    for (int64_t i = 0; i < n; i++) out[i] = a[i];                                                 \
  }

/* ---- where: by item size (it only moves values) */

typedef struct bytes16 {
  uint64_t lo, hi;
} bytes16;

#define WHERE(name, T) TERNARY(where_##name, uint8_t, T, T, x ? y : z)
WHERE(1, uint8_t)
WHERE(2, uint16_t)
WHERE(4, uint32_t)
WHERE(8, uint64_t)
WHERE(16, bytes16)

/* ---- clamp: minimum(maximum(x, lo), hi), so hi wins when lo > hi (as PyTorch); floats
 * propagate NaN from any operand. */

#define CLAMP_INT(name, T)                                                                         \
  TERNARY(clamp_##name, T, T, T, x < y ? (y > z ? z : y) : (x > z ? z : x))                        \
  COPY_FIRST(nan_to_num_##name, T)

CLAMP_INT(bool, uint8_t)
CLAMP_INT(int8, int8_t)
CLAMP_INT(int16, int16_t)
CLAMP_INT(int32, int32_t)
CLAMP_INT(int64, int64_t)
CLAMP_INT(uint8, uint8_t)
CLAMP_INT(uint16, uint16_t)
CLAMP_INT(uint32, uint32_t)
CLAMP_INT(uint64, uint64_t)

static inline float max_f32(float x, float y) { return (x >= y || x != x) ? x : y; }
static inline float min_f32(float x, float y) { return (x <= y || x != x) ? x : y; }
static inline double max_f64(double x, double y) { return (x >= y || x != x) ? x : y; }
static inline double min_f64(double x, double y) { return (x <= y || x != x) ? x : y; }

/* lerp as PyTorch: from whichever end is nearer to w, so that w = 0 gives a and w = 1 gives b
 * exactly. */
#define FLOAT_TERNARY(name, T, SUFFIX)                                                             \
  TERNARY(clamp_##name, T, T, T, min_##name(max_##name(x, y), z))                                  \
  TERNARY(lerp_##name, T, T, T,                                                                    \
          fabs##SUFFIX(z) < (T)0.5 ? x + z * (y - x) : y - (y - x) * ((T)1 - z))                   \
  NAN_TO_NUM(nan_to_num_##name, T)

FLOAT_TERNARY(f32, float, f)
FLOAT_TERNARY(f64, double, )

/* ---- the table */

static dlx_cpu_ew_kernel_n where_kernel(dlx_dtype kdtype) {
  switch (dlx_itemsize(kdtype)) {
  case 1:
    return where_1;
  case 2:
    return where_2;
  case 4:
    return where_4;
  case 8:
    return where_8;
  case 16:
    return where_16;
  default:
    return NULL;
  }
}

#define ROW(name)                                                                                  \
  { clamp_##name, nan_to_num_##name }

dlx_cpu_ew_kernel_n dlx_cpu_ew_ternary_kernel(dlx_ew_op op, dlx_dtype kdtype) {
  /* clamp and nan_to_num of each dtype that has them */
  static const dlx_cpu_ew_kernel_n rows[DLX_COMPLEX128 + 1][2] = {
      [DLX_BOOL] = ROW(bool),     [DLX_INT8] = ROW(int8),     [DLX_INT16] = ROW(int16),
      [DLX_INT32] = ROW(int32),   [DLX_INT64] = ROW(int64),   [DLX_UINT8] = ROW(uint8),
      [DLX_UINT16] = ROW(uint16), [DLX_UINT32] = ROW(uint32), [DLX_UINT64] = ROW(uint64),
      [DLX_FLOAT32] = ROW(f32),   [DLX_FLOAT64] = ROW(f64),
  };
  if (op == DLX_EW_WHERE) return where_kernel(kdtype);
  if ((int)kdtype < 0 || kdtype > DLX_COMPLEX128) return NULL;
  if (op == DLX_EW_CLAMP) return rows[kdtype][0];
  if (op == DLX_EW_NAN_TO_NUM) return rows[kdtype][1];
  if (op == DLX_EW_LERP)
    return kdtype == DLX_FLOAT32 ? lerp_f32 : kdtype == DLX_FLOAT64 ? lerp_f64 : NULL;
  return NULL;
}
