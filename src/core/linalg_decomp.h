/* linalg_decomp.h -- the decompositions of dlx.linalg: the checks, the dtype and the layout of
 * each request to the backends' linalg entry (src/core/backend.h), and the LinAlgError of a
 * failed matrix. Every function is batched over the leading dims (broadcast between A and B);
 * the matrices are the last two dims. Matrix results are batches of column-major matrices
 * (strides [..., 1, rows], as LAPACK and torch.linalg give them); vectors are C-contiguous.
 *
 * Dtypes: float32, float64, complex64 and complex128 compute as they are; bool and integers
 * are converted to float64 (as NumPy does); float16, bfloat16 and the storage-only dtypes are a
 * TypeError. Two operands promote to a common dtype first. Results are on A's device. */
#ifndef DLX_CORE_LINALG_DECOMP_H
#define DLX_CORE_LINALG_DECOMP_H

#include <stdbool.h>

#include "core/tensor.h"

typedef enum dlx_qr_mode { DLX_QR_REDUCED, DLX_QR_COMPLETE, DLX_QR_R } dlx_qr_mode;

/* The dtype a linalg function computes in for an input of dtype `in` (see above). */
int dlx_linalg_dtype(const char *name, dlx_dtype in, dlx_dtype *out, dlx_error *err);
/* The real dtype of a float or complex dtype (float32 for complex64). */
dlx_dtype dlx_linalg_real_dtype(dlx_dtype dtype);

/* X of A X = B: A (..., n, n), B (..., n, k) or (n,) (a vector). LinAlgError for a singular A. */
int dlx_linalg_solve(dlx_tensor *x, const dlx_tensor *a, const dlx_tensor *b, dlx_error *err);
/* The inverse of A (..., n, n). LinAlgError for a singular A. */
int dlx_linalg_inv(dlx_tensor *out, const dlx_tensor *a, dlx_error *err);
/* det(A) of A (..., n, n), shape (...). */
int dlx_linalg_det(dlx_tensor *det, const dlx_tensor *a, dlx_error *err);
/* sign and log |det(A)| (real), shape (...): sign 0 and -inf for a singular A. */
int dlx_linalg_slogdet(dlx_tensor *sign, dlx_tensor *logabs, const dlx_tensor *a, dlx_error *err);
/* L with A = L L^H (upper: U with A = U^H U). LinAlgError when A is not positive definite. */
int dlx_linalg_cholesky(dlx_tensor *l, const dlx_tensor *a, bool upper, dlx_error *err);
/* Q and R of A (..., m, n); for DLX_QR_R (R only) q is an empty tensor of shape (0,). */
int dlx_linalg_qr(dlx_tensor *q, dlx_tensor *r, const dlx_tensor *a, dlx_qr_mode mode,
                  dlx_error *err);
/* U, S, V^H of A (..., m, n); u and vh NULL: the singular values only. */
int dlx_linalg_svd(dlx_tensor *u, dlx_tensor *s, dlx_tensor *vh, const dlx_tensor *a, bool full,
                   dlx_error *err);
/* w (ascending) and V of a Hermitian A, its lower (upper) triangle read; v NULL: values only. */
int dlx_linalg_eigh(dlx_tensor *w, dlx_tensor *v, const dlx_tensor *a, bool upper, dlx_error *err);
/* w and V (complex) of A; v NULL: values only. */
int dlx_linalg_eig(dlx_tensor *w, dlx_tensor *v, const dlx_tensor *a, dlx_error *err);
/* The least squares solution x of A (..., m, n) x = B (..., m, k) or (m,), its residuals (the
 * squared norm of each column of B - A x: (..., k), or (...) for a vector B, when m > n and every
 * A has rank n; else an empty tensor (0,)), the ranks (int64, (...)) and the singular values
 * (..., min(m, n)). rcond < 0: the default, eps * max(m, n). */
int dlx_linalg_lstsq(dlx_tensor *x, dlx_tensor *residuals, dlx_tensor *rank, dlx_tensor *s,
                     const dlx_tensor *a, const dlx_tensor *b, double rcond, dlx_error *err);
/* LU (..., m, n) and the 1-based pivots (int64, (..., min(m, n))) of A. */
int dlx_linalg_lu_factor(dlx_tensor *lu, dlx_tensor *pivots, const dlx_tensor *a, dlx_error *err);
/* P, L, U with A = P L U. */
int dlx_linalg_lu(dlx_tensor *p, dlx_tensor *l, dlx_tensor *u, const dlx_tensor *a, dlx_error *err);
/* X of A X = B from lu_factor's LU and pivots. LinAlgError for a zero on U's diagonal. */
int dlx_linalg_lu_solve(dlx_tensor *x, const dlx_tensor *lu, const dlx_tensor *pivots,
                        const dlx_tensor *b, dlx_error *err);
/* X of A X = B (left) or X A = B, A triangular. LinAlgError for a zero on A's diagonal. */
int dlx_linalg_solve_triangular(dlx_tensor *x, const dlx_tensor *a, const dlx_tensor *b, bool upper,
                                bool left, bool unit, dlx_error *err);

#endif
