/* blas.h -- the CPU backend's use of OpenBLAS (cmake/DlxBlas.cmake finds it; docs/cpu.md says why
 * OpenBLAS): its thread count, and general matrix products in row-major CBLAS terms.
 *
 * One thread count for dlx and the BLAS: the matrix products cut C into tiles that dlx's pool
 * hands out, each a single-threaded BLAS call, so OpenBLAS's own threads stay asleep while
 * dlx's pool runs, and a core kept busy by another process takes fewer tiles instead of holding
 * up a static split. Code that calls a threaded BLAS or LAPACK routine itself (the
 * decompositions) first calls dlx_cpu_blas_use_threads(dlx_cpu_num_threads()) on the calling
 * thread, outside any block of the pool. */
#ifndef DLX_CPU_BLAS_H
#define DLX_CPU_BLAS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dtype.h"

/* Sets OpenBLAS's thread count to n, when it is not n already (cheap to call often). */
void dlx_cpu_blas_use_threads(int n);

/* A BLAS operand in row-major terms: element (r, c) at data + r * rs + c * cs elements, with
 * cs == 1 or rs == 1 (the core's layout rule), conj for complex conjugation. */
typedef struct dlx_blas_matrix {
  const void *data;
  int64_t rs, cs;
  bool conj;
} dlx_blas_matrix;

/* c (m x n, element (r, col) at c + r * crs + col * ccs, crs == 1 or ccs == 1) =
 * alpha * a @ b + beta * c through ?gemm, on the calling thread, for float32, float64, complex64
 * and complex128 (alpha and beta: float, double, or pairs of them as complex values). */
void dlx_cpu_gemm(dlx_dtype dtype, int64_t m, int64_t n, int64_t k, const void *alpha,
                  const dlx_blas_matrix *a, const dlx_blas_matrix *b, const void *beta, void *c,
                  int64_t crs, int64_t ccs);

#endif
