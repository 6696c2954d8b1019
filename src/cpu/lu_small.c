/* lu_small.c -- LU factors and solves of small real matrices without LAPACK (lu_small.h). The
 * algorithms are reference LAPACK's unblocked ones, the same operations in the same order:
 * getf2 (for each column: the pivot is the first entry of largest magnitude on or below the
 * diagonal; its row swapped up; the entries below it scaled by its reciprocal, or divided by it
 * when the reciprocal would overflow; the rank-1 update of the rest) and getrs (the row swaps on
 * b, then the unit lower and the upper triangular solves of trsm, a column of b at a time,
 * skipping the updates of a zero entry). A zero pivot is recorded and the factorisation goes on,
 * as LAPACK's does, so det reads a zero from U's diagonal. */
#include <float.h>
#include <math.h>

#include "cpu/lu_small.h"

#define INLINE static inline __attribute__((always_inline))

/* Element (i, j) of the column-major matrix at p with leading dim ld. */
#define AT(p, i, j, ld) (p)[(i) + (j) * (ld)]

/* TINY: sfmin of LAPACK's lamch, the least number whose reciprocal does not overflow. */
#define DEFINE_GETRF(NAME, T, ABS, TINY)                                                           \
  INLINE dlx_li NAME(T *a, dlx_li m, dlx_li n, dlx_li *ipiv) {                                     \
    dlx_li info = 0, mn = m < n ? m : n;                                                           \
    for (dlx_li j = 0; j < mn; j++) {                                                              \
      dlx_li p = j;                                                                                \
      T big = ABS(AT(a, j, j, m));                                                                 \
      for (dlx_li i = j + 1; i < m; i++) /* the first largest; NaN never compares larger */        \
        if (ABS(AT(a, i, j, m)) > big) big = ABS(AT(a, i, j, m)), p = i;                           \
      ipiv[j] = p + 1;                                                                             \
      if (AT(a, p, j, m) != 0) {                                                                   \
        if (p != j)                                                                                \
          for (dlx_li c = 0; c < n; c++) {                                                         \
            T t = AT(a, j, c, m);                                                                  \
            AT(a, j, c, m) = AT(a, p, c, m);                                                       \
            AT(a, p, c, m) = t;                                                                    \
          }                                                                                        \
        T d = AT(a, j, j, m);                                                                      \
        if (ABS(d) >= TINY) {                                                                      \
          T r = 1 / d;                                                                             \
          for (dlx_li i = j + 1; i < m; i++) AT(a, i, j, m) *= r;                                  \
        } else {                                                                                   \
          for (dlx_li i = j + 1; i < m; i++) AT(a, i, j, m) /= d;                                  \
        }                                                                                          \
      } else if (info == 0) {                                                                      \
        info = j + 1;                                                                              \
      }                                                                                            \
      for (dlx_li c = j + 1; c < n; c++) { /* ger: a[j+1:, j+1:] -= a[j+1:, j] a[j, j+1:] */       \
        T y = AT(a, j, c, m);                                                                      \
        if (y != 0)                                                                                \
          for (dlx_li i = j + 1; i < m; i++) AT(a, i, c, m) += -y * AT(a, i, j, m);                \
      }                                                                                            \
    }                                                                                              \
    return info;                                                                                   \
  }

DEFINE_GETRF(getrf_f32, float, fabsf, FLT_MIN)
DEFINE_GETRF(getrf_f64, double, fabs, DBL_MIN)

#define DEFINE_GETRS(NAME, T)                                                                      \
  INLINE void NAME(const T *lu, dlx_li n, const dlx_li *ipiv, T *b, dlx_li k) {                    \
    for (dlx_li i = 0; i < n; i++) /* laswp */                                                     \
      if (ipiv[i] - 1 != i)                                                                        \
        for (dlx_li c = 0; c < k; c++) {                                                           \
          T t = AT(b, i, c, n);                                                                    \
          AT(b, i, c, n) = AT(b, ipiv[i] - 1, c, n);                                               \
          AT(b, ipiv[i] - 1, c, n) = t;                                                            \
        }                                                                                          \
    for (dlx_li c = 0; c < k; c++) {                                                               \
      T *x = b + c * n;                                                                            \
      for (dlx_li q = 0; q < n; q++) /* L x = b, L unit lower */                                   \
        if (x[q] != 0)                                                                             \
          for (dlx_li i = q + 1; i < n; i++) x[i] -= x[q] * AT(lu, i, q, n);                       \
      for (dlx_li q = n - 1; q >= 0; q--) /* U x = y */                                            \
        if (x[q] != 0) {                                                                           \
          x[q] /= AT(lu, q, q, n);                                                                 \
          for (dlx_li i = 0; i < q; i++) x[i] -= x[q] * AT(lu, i, q, n);                           \
        }                                                                                          \
    }                                                                                              \
  }

DEFINE_GETRS(getrs_f32, float)
DEFINE_GETRS(getrs_f64, double)

/* The entries: square 2 x 2, 3 x 3 and 4 x 4 matrices get their own copies of the loops, which
 * the compiler unrolls. */
#define ENTRIES(T, GETRF, GETRS, GETRF_ENTRY, GETRS_ENTRY)                                         \
  dlx_li GETRF_ENTRY(T *a, dlx_li m, dlx_li n, dlx_li *ipiv) {                                     \
    if (m == n && n == 2) return GETRF(a, 2, 2, ipiv);                                             \
    if (m == n && n == 3) return GETRF(a, 3, 3, ipiv);                                             \
    if (m == n && n == 4) return GETRF(a, 4, 4, ipiv);                                             \
    return GETRF(a, m, n, ipiv);                                                                   \
  }                                                                                                \
  void GETRS_ENTRY(const T *lu, dlx_li n, const dlx_li *ipiv, T *b, dlx_li k) {                    \
    if (n == 2)                                                                                    \
      GETRS(lu, 2, ipiv, b, k);                                                                    \
    else if (n == 3)                                                                               \
      GETRS(lu, 3, ipiv, b, k);                                                                    \
    else if (n == 4)                                                                               \
      GETRS(lu, 4, ipiv, b, k);                                                                    \
    else                                                                                           \
      GETRS(lu, n, ipiv, b, k);                                                                    \
  }

ENTRIES(float, getrf_f32, getrs_f32, dlx_cpu_getrf_small_f32, dlx_cpu_getrs_small_f32)
ENTRIES(double, getrf_f64, getrs_f64, dlx_cpu_getrf_small_f64, dlx_cpu_getrs_small_f64)
