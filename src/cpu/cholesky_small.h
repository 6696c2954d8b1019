/* cholesky_small.h -- the Cholesky factor of a small real column-major n x n matrix in place
 * (cholesky_small.c): the lower factor (upper: the upper one), read from that triangle; the
 * other triangle is left as it was. Returns 0, or LAPACK's info: the order of the first leading
 * minor that is not positive definite (NaN included). */
#ifndef DLX_CPU_CHOLESKY_SMALL_H
#define DLX_CPU_CHOLESKY_SMALL_H

#include <stdbool.h>
#include <stdint.h>

/* Matrices up to this size go through these kernels rather than LAPACK. */
#define DLX_CPU_CHOLESKY_SMALL 16

int64_t dlx_cpu_cholesky_small_f32(float *a, int64_t n, bool upper);
int64_t dlx_cpu_cholesky_small_f64(double *a, int64_t n, bool upper);

#endif
