/* lu_small.h -- the LU factorisation with partial pivoting of a small real column-major matrix,
 * and the solves with its factors, without LAPACK (lu_small.c): for a batch of 3 x 3 or 4 x 4
 * matrices a call into LAPACK costs more than the arithmetic. They give what getrf and getrs
 * give: the factors in place, 1-based pivots, and getrf's info. */
#ifndef DLX_CPU_LU_SMALL_H
#define DLX_CPU_LU_SMALL_H

#include <stdint.h>

#include "cpu/lapack.h"

/* Matrices whose rows and columns are all at most this go through these kernels rather than
 * LAPACK. */
#define DLX_CPU_LU_SMALL 16

/* a (m x n, column-major, leading dim m) = P L U in place: L unit lower (below the diagonal),
 * U upper, row i swapped with row ipiv[i] - 1 in turn (min(m, n) pivots). Returns 0, or the
 * 1-based index of the first exactly zero pivot (the factorisation is completed). */
dlx_li dlx_cpu_getrf_small_f32(float *a, dlx_li m, dlx_li n, dlx_li *ipiv);
dlx_li dlx_cpu_getrf_small_f64(double *a, dlx_li m, dlx_li n, dlx_li *ipiv);

/* b (n x k, column-major, leading dim n) = A^-1 b, A given by getrf's n x n factors lu and
 * ipiv. */
void dlx_cpu_getrs_small_f32(const float *lu, dlx_li n, const dlx_li *ipiv, float *b, dlx_li k);
void dlx_cpu_getrs_small_f64(const double *lu, dlx_li n, const dlx_li *ipiv, double *b, dlx_li k);

#endif
