/* blas.c -- OpenBLAS's thread count and ?gemm over any layout the core allows (blas.h). */
#include "cpu/blas.h"

#include <cblas.h>
#include <stdatomic.h>

static atomic_int blas_threads; /* what OpenBLAS was last set to; 0: not yet */

void dlx_cpu_blas_use_threads(int n) {
  if (atomic_exchange(&blas_threads, n) != n) openblas_set_num_threads(n);
}

/* How BLAS takes x (rows x cols) as an operand of a row-major product: as stored (NoTrans,
 * ld = rs) when its rows are contiguous, else transposed (ld = cs). The stride of a dim of size 1
 * is never used, so ld is raised to what BLAS checks (at least the other dim). OpenBLAS's CBLAS
 * takes CblasConjNoTrans too, so a conjugate is never copied. */
static enum CBLAS_TRANSPOSE op_of(const dlx_blas_matrix *x, int64_t rows, int64_t cols, int *ld) {
  if (x->cs == 1 || cols == 1) {
    *ld = (int)(x->rs > cols ? x->rs : (cols > 1 ? cols : 1));
    return x->conj ? CblasConjNoTrans : CblasNoTrans;
  }
  *ld = (int)(x->cs > rows ? x->cs : (rows > 1 ? rows : 1));
  return x->conj ? CblasConjTrans : CblasTrans;
}

static void gemm_rowmajor(dlx_dtype dtype, int m, int n, int k, const void *alpha,
                          const dlx_blas_matrix *a, const dlx_blas_matrix *b, const void *beta,
                          void *c, int ldc) {
  int lda, ldb;
  enum CBLAS_TRANSPOSE ta = op_of(a, m, k, &lda), tb = op_of(b, k, n, &ldb);
  switch (dtype) {
  case DLX_FLOAT32:
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, *(const float *)alpha, a->data, lda, b->data, ldb,
                *(const float *)beta, c, ldc);
    break;
  case DLX_FLOAT64:
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, *(const double *)alpha, a->data, lda, b->data, ldb,
                *(const double *)beta, c, ldc);
    break;
  case DLX_COMPLEX64:
    cblas_cgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a->data, lda, b->data, ldb, beta, c, ldc);
    break;
  default: /* DLX_COMPLEX128 */
    cblas_zgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a->data, lda, b->data, ldb, beta, c, ldc);
  }
}

void dlx_cpu_gemm(dlx_dtype dtype, int64_t m, int64_t n, int64_t k, const void *alpha,
                  const dlx_blas_matrix *a, const dlx_blas_matrix *b, const void *beta, void *c,
                  int64_t crs, int64_t ccs) {
  if (ccs == 1 || n == 1) {
    gemm_rowmajor(dtype, (int)m, (int)n, (int)k, alpha, a, b, beta, c, (int)(crs > n ? crs : n));
    return;
  }
  /* c is column-major: its transpose is row-major, and c^T = b^T @ a^T */
  dlx_blas_matrix at = {a->data, a->cs, a->rs, a->conj}, bt = {b->data, b->cs, b->rs, b->conj};
  gemm_rowmajor(dtype, (int)n, (int)m, (int)k, alpha, &bt, &at, beta, c, (int)(ccs > m ? ccs : m));
}
