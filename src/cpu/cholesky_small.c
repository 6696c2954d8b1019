/* cholesky_small.c -- the Cholesky factor of a small real matrix without LAPACK: for a batch of
 * 8 x 8 matrices the call into LAPACK (argument checks, OpenBLAS's buffer allocation) costs more
 * than the factorisation. The algorithm is LAPACK's unblocked potf2 (a column at a time, the
 * same operations in the same order), with its info: the order of the first leading minor that
 * is not positive definite, NaN included. */
#include <math.h>

#include "cpu/cholesky_small.h"

/* Element (i, j) of the factor at a: rs and cs are the strides of a row and a column index. */
#define CHOLESKY_BODY(T, SQRT)                                                                     \
  for (int64_t j = 0; j < n; j++) {                                                                \
    T s = a[j * rs + j * cs], d, inv;                                                              \
    for (int64_t k = 0; k < j; k++) s -= a[j * rs + k * cs] * a[j * rs + k * cs];                  \
    if (!(s > 0)) return j + 1; /* NaN too */                                                      \
    d = SQRT(s);                                                                                   \
    a[j * rs + j * cs] = d;                                                                        \
    inv = 1 / d;                                                                                   \
    for (int64_t i = j + 1; i < n; i++) {                                                          \
      T t = a[i * rs + j * cs];                                                                    \
      for (int64_t k = 0; k < j; k++) t -= a[i * rs + k * cs] * a[j * rs + k * cs];                \
      a[i * rs + j * cs] = t * inv;                                                                \
    }                                                                                              \
  }                                                                                                \
  return 0;

int64_t dlx_cpu_cholesky_small_f32(float *a, int64_t n, bool upper) {
  int64_t rs = upper ? n : 1, cs = upper ? 1 : n;
  CHOLESKY_BODY(float, sqrtf)
}

int64_t dlx_cpu_cholesky_small_f64(double *a, int64_t n, bool upper) {
  int64_t rs = upper ? n : 1, cs = upper ? 1 : n;
  CHOLESKY_BODY(double, sqrt)
}
