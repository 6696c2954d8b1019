/* softmax.c -- softmax and log_softmax of one contiguous line, in float32 and float64.
 *
 * Three passes over the line, which stays in cache: its max, the exponentials of x - max (the exp
 * kernel of the elementwise op, SLEEF's vector exp, faithful, on the best ISA) with their sum in
 * float64, then the quotients (or x - max - log(sum)). A NaN, or +inf (inf - inf), makes the sum
 * NaN, and so every result of the line, as PyTorch. */
#include <math.h>
#include <stdbool.h>

#include "cpu/elementwise_math.h"
#include "cpu/reduce_loops.h"
#include "cpu/softmax.h"

#define CHUNK 256 /* log_softmax: exponentials summed a chunk at a time, never stored */
#define LANES 8

#define DEFINE_SOFTMAX(name, T, DTYPE)                                                             \
  SIMD_CLONES static T max_##name(const T *x, int64_t n) {                                         \
    T m[LANES];                                                                                    \
    int64_t i = 0;                                                                                 \
    for (int j = 0; j < LANES; j++) m[j] = -INFINITY;                                              \
    for (; i + LANES <= n; i += LANES)                                                             \
      for (int j = 0; j < LANES; j++) m[j] = x[i + j] > m[j] ? x[i + j] : m[j];                    \
    for (; i < n; i++) m[0] = x[i] > m[0] ? x[i] : m[0];                                           \
    for (int j = 1; j < LANES; j++) m[0] = m[j] > m[0] ? m[j] : m[0];                              \
    return m[0];                                                                                   \
  }                                                                                                \
  SIMD_CLONES static void subtract_##name(const T *x, T *y, int64_t n, T max) {                    \
    for (int64_t i = 0; i < n; i++) y[i] = x[i] - max;                                             \
  }                                                                                                \
  /* y = exp(x - max); y may be x */                                                               \
  static void exp_##name(const T *x, T *y, int64_t n, T max) {                                     \
    subtract_##name(x, y, n, max);                                                                 \
    dlx_cpu_math_kernel(DLX_EW_EXP, DTYPE)((char *)y, (const char *)y, NULL, n, DLX_CPU_EW_VV);    \
  }                                                                                                \
  SIMD_CLONES static double sum_##name(const T *y, int64_t n) {                                    \
    double s[LANES];                                                                               \
    int64_t i = 0;                                                                                 \
    for (int j = 0; j < LANES; j++) s[j] = 0;                                                      \
    for (; i + LANES <= n; i += LANES)                                                             \
      for (int j = 0; j < LANES; j++) s[j] += (double)y[i + j];                                    \
    for (; i < n; i++) s[0] += (double)y[i];                                                       \
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));                      \
  }                                                                                                \
  SIMD_CLONES static void divide_##name(T *y, int64_t n, T sum) {                                  \
    for (int64_t i = 0; i < n; i++) y[i] = y[i] / sum;                                             \
  }                                                                                                \
  SIMD_CLONES static void shift_##name(const T *x, T *y, int64_t n, T max, T log_sum) {            \
    for (int64_t i = 0; i < n; i++) y[i] = (x[i] - max) - log_sum;                                 \
  }                                                                                                \
  void dlx_cpu_softmax_##name(const T *x, T *y, int64_t n, bool log_result) {                      \
    T max = max_##name(x, n);                                                                      \
    if (!log_result) {                                                                             \
      exp_##name(x, y, n, max);                                                                    \
      divide_##name(y, n, (T)sum_##name(y, n));                                                    \
      return;                                                                                      \
    }                                                                                              \
    T chunk[CHUNK]; /* x may be y: the exponentials must not overwrite it */                       \
    double sum = 0;                                                                                \
    for (int64_t i = 0; i < n; i += CHUNK) {                                                       \
      int64_t len = n - i < CHUNK ? n - i : CHUNK;                                                 \
      exp_##name(x + i, chunk, len, max);                                                          \
      sum += sum_##name(chunk, len);                                                               \
    }                                                                                              \
    shift_##name(x, y, n, max, (T)log(sum));                                                       \
  }

DEFINE_SOFTMAX(float32, float, DLX_FLOAT32)
DEFINE_SOFTMAX(float64, double, DLX_FLOAT64)
