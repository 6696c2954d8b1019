/* cuda_linalg_rules.c -- the CUDA backend's decompositions (src/cuda/linalg_run.h and the plans
 * it runs: the solver calls and dlx's own ops around them) run on the CPU, without a GPU: the
 * solver is LAPACK through LAPACKE (but getrf of a small real matrix is the CPU backend's own
 * getf2, as its entry calls it), called as the plan calls cuSOLVER and cuBLAS (getrf, getrs,
 * potrf, geqrf, orgqr/ungqr, ormqr/unmqr, gesvd, syevd/heevd, geev, trtrs standing for trsm, and
 * getrf, getrs and getri per matrix standing for cuBLAS's batched getrf, getrs and matinv), with
 * every matrix's leading dim, size and pivot type checked against its view. Each dlx.linalg
 * function runs twice through the core, once with the CPU backend's linalg entry and once with
 * the plan, over random batches, sizes, dtypes, singular, non positive definite, non-finite
 * matrices and bad pivots; results must agree (within a tolerance: gesvd is not the CPU's
 * gesdd, lstsq's QR not its gelsd, and the batches go to LAPACK in other orders), errors must be
 * the same class and message. SVDs are compared by their singular values and by how well
 * U diag(S) V^H rebuilds A and U's columns are orthonormal. Half the cases run with a solver
 * that has neither geev nor the batched routines (a cuSOLVER older than 11.7, no cuBLAS): the
 * looped routines, and eig's DeviceError naming cusolverDnXgeev. lstsq of a matrix with a zero
 * column (a zero row when wide) is the plan's LinAlgError where the CPU reports the lower rank;
 * elsewhere the plan gives what the CPU gives but no singular values (an empty tensor). A fifth
 * of the systems have no right-hand sides (B n x 0): the plan must fail a singular matrix as the
 * CPU does and never give the solver an empty operand (good_mats). */
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "check.h"
#include "core/core.h"
#include "core/linalg_decomp.h"
#include "cpu/lu_small.h"
#include "cuda/linalg_run.h"

static dlx_backend rules_backend;
static char case_name[200];
static int solver_calls, geev_calls, ormqr_calls, no_rhs_cases;
static int batched_calls[3]; /* getrfBatched, getrsBatched, matinvBatched */

/* ---- the solver: LAPACK on the CPU */

static void *first(const dlx_tensor *t) {
  return (char *)t->buffer->data + t->offset * (dlx_dtype_bits(t->dtype) / 8);
}
static size_t item(const dlx_tensor *t) { return (size_t)dlx_dtype_bits(t->dtype) / 8; }
/* Matrix i of a 3-d view (or vector i of a 2-d one). */
static void *nth(const dlx_tensor *t, int64_t i) {
  return (char *)first(t) + (size_t)(i * t->strides[0]) * item(t);
}

/* What the plan promises the solver: 3-d column-major views, none empty (cuSOLVER and cuBLAS
 * are never given a count, rows or cols of 0, nor a NULL array), their leading dim at least
 * their rows, each matrix in its own part of the buffer. */
static bool good_mats(const dlx_tensor *t) {
  if (t == NULL || t->ndim != 3 || t->shape[0] < 1 || t->shape[1] < 1 || t->shape[2] < 1 ||
      t->buffer->data == NULL || t->strides[1] != 1 || t->strides[2] < t->shape[1] ||
      t->strides[0] < t->strides[2] * t->shape[2])
    return false;
  int64_t last = t->offset + (t->shape[0] - 1) * t->strides[0] + (t->shape[2] - 1) * t->strides[2];
  return (size_t)(last + t->shape[1]) * item(t) <= t->buffer->nbytes;
}
/* The leading dim LAPACK is given. */
static int ld(const dlx_tensor *t) { return (int)t->strides[2]; }

#define BY_TYPE(t, s, d, c, z)                                                                     \
  ((t) == DLX_FLOAT32 ? (s) : (t) == DLX_FLOAT64 ? (d) : (t) == DLX_COMPLEX64 ? (c) : (z))

static int lapack_failed(const char *what, lapack_int info, dlx_error *err) {
  return dlx_fail(err, DLX_DEVICE_ERROR, "%s refused argument %d", what, (int)-info);
}

/* getrf of the m x n matrix at p (leading dim lda): LAPACK's, but for a small real matrix the
 * CPU's own getf2 (src/cpu/lu_small.c), which the CPU's entry calls in LAPACK's place. Whether a
 * matrix singular in exact arithmetic (a SINGULAR case) gets an exactly zero pivot depends on
 * the order of the operations, so both sides must factor alike. */
static lapack_int getrf_one(dlx_dtype t, int m, int n, void *p, int lda, lapack_int *piv) {
  if ((t == DLX_FLOAT32 || t == DLX_FLOAT64) && m <= DLX_CPU_LU_SMALL && n <= DLX_CPU_LU_SMALL) {
    size_t size = (size_t)dlx_dtype_bits(t) / 8, column = (size_t)m * size;
    double packed[DLX_CPU_LU_SMALL * DLX_CPU_LU_SMALL]; /* (float32 ones too) */
    char *q = (char *)packed;
    lapack_int r;
    for (int c = 0; c < n; c++) memcpy(q + c * column, (char *)p + c * lda * size, column);
    r = t == DLX_FLOAT32 ? dlx_cpu_getrf_small_f32((float *)(void *)packed, m, n, piv)
                         : dlx_cpu_getrf_small_f64(packed, m, n, piv);
    for (int c = 0; c < n; c++) memcpy((char *)p + c * lda * size, q + c * column, column);
    return r;
  }
  return BY_TYPE(t, LAPACKE_sgetrf(LAPACK_COL_MAJOR, m, n, p, lda, piv),
                 LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, n, p, lda, piv),
                 LAPACKE_cgetrf(LAPACK_COL_MAJOR, m, n, p, lda, piv),
                 LAPACKE_zgetrf(LAPACK_COL_MAJOR, m, n, p, lda, piv));
}

static int h_getrf(void *ctx, const dlx_tensor *a, const dlx_tensor *ipiv, int32_t *info,
                   dlx_error *err) {
  int m = (int)a->shape[1], n = (int)a->shape[2], mn = m < n ? m : n, lda = ld(a);
  lapack_int piv[64];
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && ipiv->ndim == 2 && ipiv->shape[1] == mn && ipiv->dtype == DLX_INT64);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i);
    dlx_dtype t = a->dtype;
    lapack_int r = getrf_one(t, m, n, p, lda, piv);
    if (r < 0) return lapack_failed("getrf", r, err);
    if (info != NULL) info[i] = r;
    for (int q = 0; q < mn; q++) ((int64_t *)nth(ipiv, i))[q] = piv[q];
  }
  return 0;
}

/* getrs of matrix i with pivots piv (LAPACK's) */
static lapack_int getrs_one(const dlx_tensor *a, const lapack_int *piv, const dlx_tensor *b,
                            int64_t i) {
  int n = (int)a->shape[1], k = (int)b->shape[2], lda = ld(a), ldb = ld(b);
  void *p = nth(a, i), *x = nth(b, i);
  return BY_TYPE(a->dtype, LAPACKE_sgetrs(LAPACK_COL_MAJOR, 'N', n, k, p, lda, piv, x, ldb),
                 LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, k, p, lda, piv, x, ldb),
                 LAPACKE_cgetrs(LAPACK_COL_MAJOR, 'N', n, k, p, lda, piv, x, ldb),
                 LAPACKE_zgetrs(LAPACK_COL_MAJOR, 'N', n, k, p, lda, piv, x, ldb));
}

static int h_getrs(void *ctx, const dlx_tensor *a, const dlx_tensor *ipiv, const dlx_tensor *b,
                   dlx_error *err) {
  int n = (int)a->shape[1];
  lapack_int piv[64];
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && good_mats(b) && a->shape[2] == n && b->shape[1] == n);
  CHECK(a->shape[0] == b->shape[0] && ipiv->shape[0] == a->shape[0] && ipiv->dtype == DLX_INT64);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    for (int q = 0; q < n; q++) piv[q] = (lapack_int)((const int64_t *)nth(ipiv, i))[q];
    lapack_int r = getrs_one(a, piv, b, i);
    if (r < 0) return lapack_failed("getrs", r, err);
  }
  return 0;
}

static int h_potrf(void *ctx, bool upper, const dlx_tensor *a, int32_t *info, dlx_error *err) {
  int n = (int)a->shape[1], lda = ld(a);
  char uplo = upper ? 'U' : 'L';
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && a->shape[2] == n && info != NULL);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i);
    dlx_dtype t = a->dtype;
    lapack_int r = BY_TYPE(t, LAPACKE_spotrf(LAPACK_COL_MAJOR, uplo, n, p, lda),
                           LAPACKE_dpotrf(LAPACK_COL_MAJOR, uplo, n, p, lda),
                           LAPACKE_cpotrf(LAPACK_COL_MAJOR, uplo, n, p, lda),
                           LAPACKE_zpotrf(LAPACK_COL_MAJOR, uplo, n, p, lda));
    if (r < 0) return lapack_failed("potrf", r, err);
    info[i] = r;
  }
  return 0;
}

static int h_geqrf(void *ctx, const dlx_tensor *a, const dlx_tensor *tau, dlx_error *err) {
  int m = (int)a->shape[1], n = (int)a->shape[2], lda = ld(a);
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && tau->ndim == 2 && tau->shape[1] == (m < n ? m : n));
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i), *t = nth(tau, i);
    dlx_dtype d = a->dtype;
    lapack_int r = BY_TYPE(d, LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, p, lda, t),
                           LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, p, lda, t),
                           LAPACKE_cgeqrf(LAPACK_COL_MAJOR, m, n, p, lda, t),
                           LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, p, lda, t));
    if (r < 0) return lapack_failed("geqrf", r, err);
  }
  return 0;
}

static int h_orgqr(void *ctx, int64_t k, const dlx_tensor *q, const dlx_tensor *tau,
                   dlx_error *err) {
  int m = (int)q->shape[1], cols = (int)q->shape[2], lda = ld(q);
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(q) && k <= cols && cols <= m && tau->shape[1] >= k);
  for (int64_t i = 0; i < q->shape[0]; i++) {
    void *p = nth(q, i), *t = nth(tau, i);
    dlx_dtype d = q->dtype;
    int kk = (int)k;
    lapack_int r = BY_TYPE(d, LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, cols, kk, p, lda, t),
                           LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, cols, kk, p, lda, t),
                           LAPACKE_cungqr(LAPACK_COL_MAJOR, m, cols, kk, p, lda, t),
                           LAPACKE_zungqr(LAPACK_COL_MAJOR, m, cols, kk, p, lda, t));
    if (r < 0) return lapack_failed("orgqr", r, err);
  }
  return 0;
}

static int h_ormqr(void *ctx, bool adjoint, const dlx_tensor *q, const dlx_tensor *tau,
                   const dlx_tensor *c, dlx_error *err) {
  int m = (int)c->shape[1], cols = (int)c->shape[2], k = (int)q->shape[2];
  int lda = ld(q), ldc = ld(c);
  bool cx = q->dtype == DLX_COMPLEX64 || q->dtype == DLX_COMPLEX128;
  char trans = !adjoint ? 'N' : cx ? 'C' : 'T';
  (void)ctx;
  solver_calls++;
  ormqr_calls++;
  CHECK(good_mats(q) && good_mats(c) && q->shape[1] == m && k <= m && tau->shape[1] >= k);
  CHECK(q->shape[0] == c->shape[0] && tau->shape[0] == c->shape[0] && c->dtype == q->dtype);
  for (int64_t i = 0; i < q->shape[0]; i++) {
    void *p = nth(q, i), *t = nth(tau, i), *x = nth(c, i);
    lapack_int r = BY_TYPE(
        q->dtype, LAPACKE_sormqr(LAPACK_COL_MAJOR, 'L', trans, m, cols, k, p, lda, t, x, ldc),
        LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', trans, m, cols, k, p, lda, t, x, ldc),
        LAPACKE_cunmqr(LAPACK_COL_MAJOR, 'L', trans, m, cols, k, p, lda, t, x, ldc),
        LAPACKE_zunmqr(LAPACK_COL_MAJOR, 'L', trans, m, cols, k, p, lda, t, x, ldc));
    if (r < 0) return lapack_failed("ormqr", r, err);
  }
  return 0;
}

static int h_gesvd(void *ctx, char job, const dlx_tensor *a, const dlx_tensor *s,
                   const dlx_tensor *u, const dlx_tensor *vt, int32_t *info, dlx_error *err) {
  int m = (int)a->shape[1], n = (int)a->shape[2], lda = ld(a);
  double superb[128];
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && m >= n && s->shape[1] == n && info != NULL);
  if (job == 'N') {
    CHECK(u == NULL && vt == NULL);
  } else {
    CHECK(good_mats(u) && good_mats(vt) && u->shape[1] == m && vt->shape[1] == n &&
          vt->shape[2] == n && u->shape[2] == (job == 'A' ? m : n));
  }
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i), *sv = nth(s, i);
    void *pu = job == 'N' ? superb : nth(u, i), *pv = job == 'N' ? superb : nth(vt, i);
    int ldu = job == 'N' ? 1 : ld(u), ldv = job == 'N' ? 1 : ld(vt);
    dlx_dtype d = a->dtype;
    lapack_int r = BY_TYPE(
        d,
        LAPACKE_sgesvd(LAPACK_COL_MAJOR, job, job, m, n, p, lda, sv, pu, ldu, pv, ldv,
                       (void *)superb),
        LAPACKE_dgesvd(LAPACK_COL_MAJOR, job, job, m, n, p, lda, sv, pu, ldu, pv, ldv, superb),
        LAPACKE_cgesvd(LAPACK_COL_MAJOR, job, job, m, n, p, lda, sv, pu, ldu, pv, ldv,
                       (void *)superb),
        LAPACKE_zgesvd(LAPACK_COL_MAJOR, job, job, m, n, p, lda, sv, pu, ldu, pv, ldv, superb));
    if (r < 0) return lapack_failed("gesvd", r, err);
    info[i] = r;
  }
  return 0;
}

static int h_syevd(void *ctx, bool vectors, bool upper, const dlx_tensor *a, const dlx_tensor *w,
                   int32_t *info, dlx_error *err) {
  int n = (int)a->shape[1], lda = ld(a);
  char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && a->shape[2] == n && w->shape[1] == n && info != NULL);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i), *ev = nth(w, i);
    dlx_dtype d = a->dtype;
    lapack_int r = BY_TYPE(d, LAPACKE_ssyevd(LAPACK_COL_MAJOR, jobz, uplo, n, p, lda, ev),
                           LAPACKE_dsyevd(LAPACK_COL_MAJOR, jobz, uplo, n, p, lda, ev),
                           LAPACKE_cheevd(LAPACK_COL_MAJOR, jobz, uplo, n, p, lda, ev),
                           LAPACKE_zheevd(LAPACK_COL_MAJOR, jobz, uplo, n, p, lda, ev));
    if (r < 0) return lapack_failed("syevd", r, err);
    info[i] = r;
  }
  return 0;
}

/* geev as cusolverDnXgeev with every data type the matrix's: a real w holds 2n reals. */
static int h_geev(void *ctx, const dlx_tensor *a, const dlx_tensor *w, const dlx_tensor *v,
                  int32_t *info, dlx_error *err) {
  int n = (int)a->shape[1], lda = ld(a), ldv = v != NULL ? ld(v) : 1;
  char jobvr = v != NULL ? 'V' : 'N';
  bool cx = a->dtype == DLX_COMPLEX64 || a->dtype == DLX_COMPLEX128;
  (void)ctx;
  solver_calls++;
  geev_calls++;
  CHECK(good_mats(a) && a->shape[2] == n && info != NULL && w->dtype == a->dtype);
  CHECK(w->ndim == 2 && w->shape[0] == a->shape[0] && w->shape[1] == (cx ? n : 2 * n));
  if (v != NULL)
    CHECK(good_mats(v) && v->shape[1] == n && v->shape[2] == n && v->dtype == a->dtype);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    char *p = nth(a, i), *wr = nth(w, i), *wi = wr + (size_t)n * item(w);
    void *vr = v != NULL ? nth(v, i) : NULL;
    lapack_int r = BY_TYPE(a->dtype,
                           LAPACKE_sgeev(LAPACK_COL_MAJOR, 'N', jobvr, n, (void *)p, lda,
                                         (void *)wr, (void *)wi, NULL, 1, vr, ldv),
                           LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', jobvr, n, (void *)p, lda,
                                         (void *)wr, (void *)wi, NULL, 1, vr, ldv),
                           LAPACKE_cgeev(LAPACK_COL_MAJOR, 'N', jobvr, n, (void *)p, lda,
                                         (void *)wr, NULL, 1, vr, ldv),
                           LAPACKE_zgeev(LAPACK_COL_MAJOR, 'N', jobvr, n, (void *)p, lda,
                                         (void *)wr, NULL, 1, vr, ldv));
    if (r < 0) return lapack_failed("geev", r, err);
    info[i] = r;
  }
  return 0;
}

static int h_trsm(void *ctx, bool upper, bool adjoint, bool unit, const dlx_tensor *a,
                  const dlx_tensor *b, dlx_error *err) {
  int n = (int)a->shape[1], k = (int)b->shape[2], lda = ld(a), ldb = ld(b);
  bool cx = a->dtype == DLX_COMPLEX64 || a->dtype == DLX_COMPLEX128;
  char uplo = upper ? 'U' : 'L', diag = unit ? 'U' : 'N', tr = !adjoint ? 'N' : cx ? 'C' : 'T';
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && good_mats(b) && a->shape[2] == n && b->shape[1] == n);
  CHECK(a->shape[0] == b->shape[0]);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i), *x = nth(b, i);
    dlx_dtype d = a->dtype;
    lapack_int r =
        BY_TYPE(d, LAPACKE_strtrs(LAPACK_COL_MAJOR, uplo, tr, diag, n, k, p, lda, x, ldb),
                LAPACKE_dtrtrs(LAPACK_COL_MAJOR, uplo, tr, diag, n, k, p, lda, x, ldb),
                LAPACKE_ctrtrs(LAPACK_COL_MAJOR, uplo, tr, diag, n, k, p, lda, x, ldb),
                LAPACKE_ztrtrs(LAPACK_COL_MAJOR, uplo, tr, diag, n, k, p, lda, x, ldb));
    if (r < 0) return lapack_failed("trsm", r, err);
    CHECK(r == 0); /* the plan checked the diagonal first */
  }
  return 0;
}

/* cuBLAS's batched routines take what the plan gives them only for 2 or more square matrices
 * up to its threshold, pivots int32 [count, n] one row after the other. */
static void check_batched(int which, const dlx_tensor *a, const dlx_tensor *ipiv) {
  int64_t n = a->shape[1];
  batched_calls[which]++;
  CHECK(good_mats(a) && a->shape[2] == n && a->shape[0] > 1 && n <= DLX_CUDA_LP_BATCHED_LU);
  if (ipiv != NULL)
    CHECK(ipiv->dtype == DLX_INT32 && ipiv->ndim == 2 && ipiv->shape[0] == a->shape[0] &&
          ipiv->shape[1] == n && ipiv->strides[0] == n && ipiv->strides[1] == 1);
}

static int h_getrf_batched(void *ctx, const dlx_tensor *a, const dlx_tensor *ipiv, int32_t *info,
                           dlx_error *err) {
  int n = (int)a->shape[1], lda = ld(a);
  lapack_int piv[64];
  (void)ctx;
  check_batched(0, a, ipiv);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i);
    lapack_int r = getrf_one(a->dtype, n, n, p, lda, piv);
    if (r < 0) return lapack_failed("getrfBatched", r, err);
    if (info != NULL) info[i] = r;
    for (int q = 0; q < n; q++) ((int32_t *)nth(ipiv, i))[q] = (int32_t)piv[q];
  }
  return 0;
}

static int h_getrs_batched(void *ctx, const dlx_tensor *a, const dlx_tensor *ipiv,
                           const dlx_tensor *b, dlx_error *err) {
  int n = (int)a->shape[1];
  lapack_int piv[64];
  (void)ctx;
  check_batched(1, a, ipiv);
  CHECK(good_mats(b) && b->shape[0] == a->shape[0] && b->shape[1] == n);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    for (int q = 0; q < n; q++) piv[q] = ((const int32_t *)nth(ipiv, i))[q];
    lapack_int r = getrs_one(a, piv, b, i);
    if (r < 0) return lapack_failed("getrsBatched", r, err);
  }
  return 0;
}

/* matinvBatched: getrf and getri of a copy in out, a left as it was. */
static int h_matinv_batched(void *ctx, const dlx_tensor *a, const dlx_tensor *out, int32_t *info,
                            dlx_error *err) {
  int n = (int)a->shape[1], ldo = ld(out);
  lapack_int piv[64];
  (void)ctx;
  check_batched(2, a, NULL);
  CHECK(n < DLX_CUDA_LP_MATINV && info != NULL && good_mats(out) && out->shape[1] == n &&
        out->shape[2] == n && out->shape[0] == a->shape[0]);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    char *p = nth(out, i);
    for (int c = 0; c < n; c++)
      memcpy(p + (size_t)c * (size_t)ldo * item(a),
             (char *)nth(a, i) + (size_t)(c * ld(a)) * item(a), (size_t)n * item(a));
    lapack_int r = getrf_one(a->dtype, n, n, p, ldo, piv);
    if (r == 0)
      r = BY_TYPE(a->dtype, LAPACKE_sgetri(LAPACK_COL_MAJOR, n, (void *)p, ldo, piv),
                  LAPACKE_dgetri(LAPACK_COL_MAJOR, n, (void *)p, ldo, piv),
                  LAPACKE_cgetri(LAPACK_COL_MAJOR, n, (void *)p, ldo, piv),
                  LAPACKE_zgetri(LAPACK_COL_MAJOR, n, (void *)p, ldo, piv));
    if (r < 0) return lapack_failed("matinvBatched", r, err);
    info[i] = r;
  }
  return 0;
}

/* Every routine (a CUDA 13 machine), and only the looped ones (no geev, no cuBLAS), which main
 * makes of the first. */
static const dlx_cuda_solver full_solver = {.getrf = h_getrf,
                                            .getrs = h_getrs,
                                            .potrf = h_potrf,
                                            .geqrf = h_geqrf,
                                            .orgqr = h_orgqr,
                                            .ormqr = h_ormqr,
                                            .gesvd = h_gesvd,
                                            .syevd = h_syevd,
                                            .geev = h_geev,
                                            .trsm = h_trsm,
                                            .getrf_batched = h_getrf_batched,
                                            .getrs_batched = h_getrs_batched,
                                            .matinv_batched = h_matinv_batched};
static dlx_cuda_solver plain_solver;
static const dlx_cuda_solver *solver = &full_solver;

static int rules_linalg(dlx_linalg_request *r, dlx_error *err) {
  return dlx_cuda_linalg_run(r, solver, err);
}

/* ---- random inputs */

static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);
static uint64_t next(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * UINT64_C(0x2545f4914f6cdd1d);
}
static int64_t below(int64_t n) { return (int64_t)(next() % (uint64_t)n); }
static double unit(void) { return (double)(next() >> 11) * 0x1p-53 * 2 - 1; }

static const dlx_dtype dtypes[] = {DLX_FLOAT32, DLX_FLOAT64, DLX_COMPLEX64, DLX_COMPLEX128};

enum kind { GENERAL, DOMINANT, SPD, SINGULAR, HERMITIAN, NONFINITE };

/* A random [batch..., rows, cols] tensor in CPU memory (C-contiguous or transposed), entries in
 * [-1, 1]; DOMINANT adds rows to the diagonal, SPD makes A A^H + I, HERMITIAN (A + A^H) / 2,
 * SINGULAR copies the first column into the last (of a random batch element), NONFINITE puts a
 * NaN or an infinity in one. */
static void make(dlx_tensor *t, dlx_dtype d, const int64_t *batch, int32_t nb, int64_t rows,
                 int64_t cols, enum kind kind) {
  int64_t shape[DLX_MAX_NDIM];
  int32_t nd = nb + 2;
  memcpy(shape, batch, sizeof(int64_t) * (size_t)nb);
  shape[nb] = rows;
  shape[nb + 1] = cols;
  CHECK(dlx_tensor_empty(t, shape, nd, d, (DLDevice){kDLCPU, 0}, NULL) == 0);
  int64_t count = dlx_tensor_numel(t) / (rows * cols > 0 ? rows * cols : 1);
  bool cx = d == DLX_COMPLEX64 || d == DLX_COMPLEX128;
  double complex *tmp = malloc(sizeof(double complex) * (size_t)(rows * cols + 1));
  for (int64_t b = 0; b < count; b++) {
    for (int64_t i = 0; i < rows * cols; i++) tmp[i] = unit() + (cx ? unit() * I : 0);
    if (kind == SPD || kind == HERMITIAN) {
      double complex *h = malloc(sizeof(double complex) * (size_t)(rows * cols + 1));
      for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
          double complex sum = 0;
          if (kind == SPD) {
            for (int64_t l = 0; l < cols; l++) sum += tmp[i * cols + l] * conj(tmp[j * cols + l]);
            sum += i == j ? 1 : 0;
          } else {
            sum = (tmp[i * cols + j] + conj(tmp[j * cols + i])) / 2;
          }
          h[i * cols + j] = sum;
        }
      memcpy(tmp, h, sizeof(double complex) * (size_t)(rows * cols));
      free(h);
    }
    if (kind == DOMINANT)
      for (int64_t i = 0; i < rows && i < cols; i++) tmp[i * cols + i] += (double)cols;
    if (kind == SINGULAR && cols > 1 && b == count - 1)
      for (int64_t i = 0; i < rows; i++) tmp[i * cols + cols - 1] = tmp[i * cols];
    if (kind == SINGULAR && cols == 1 && b == count - 1) tmp[0] = 0;
    if (kind == NONFINITE && b == count / 2) tmp[below(rows * cols)] = below(2) ? NAN : INFINITY;
    for (int64_t i = 0; i < rows * cols; i++) {
      char *p = (char *)t->buffer->data + (size_t)((b * rows * cols + i) * (int64_t)item(t));
      double re = creal(tmp[i]), im = cimag(tmp[i]);
      if (d == DLX_FLOAT32) *(float *)p = (float)re;
      if (d == DLX_FLOAT64) *(double *)p = re;
      if (d == DLX_COMPLEX64) ((float *)p)[0] = (float)re, ((float *)p)[1] = (float)im;
      if (d == DLX_COMPLEX128) ((double *)p)[0] = re, ((double *)p)[1] = im;
    }
  }
  free(tmp);
}

/* A copy of t whose buffer belongs to the rules backend (so that the core calls its entry). */
static void twin(dlx_tensor *out, const dlx_tensor *t) {
  CHECK(dlx_clone_as(out, t, t->dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  out->buffer->backend = &rules_backend;
}

/* ---- comparing */

static double tol_of(dlx_dtype d) { return d == DLX_FLOAT32 || d == DLX_COMPLEX64 ? 2e-3 : 1e-9; }

/* The values of t as complex128, on the host, C-contiguous. */
static double *values(const dlx_tensor *t, int64_t *n) {
  dlx_tensor w;
  CHECK(dlx_clone_as(&w, t, DLX_COMPLEX128, (DLDevice){kDLCPU, 0}, NULL) == 0);
  *n = dlx_tensor_numel(&w);
  double *v = malloc(sizeof(double) * 2 * (size_t)(*n + 1));
  memcpy(v, w.buffer->data, sizeof(double) * 2 * (size_t)*n);
  dlx_tensor_close(&w);
  return v;
}

static void close_enough(const char *what, const dlx_tensor *want, const dlx_tensor *got,
                         dlx_dtype d) {
  int64_t n1, n2;
  CHECK_EQ_INT(want->ndim, got->ndim);
  if (want->ndim == got->ndim)
    CHECK(memcmp(want->shape, got->shape, sizeof(int64_t) * (size_t)want->ndim) == 0);
  double *x = values(want, &n1), *y = values(got, &n2), scale = 1;
  CHECK_EQ_INT(n1, n2);
  for (int64_t i = 0; i < 2 * n1; i++)
    if (isfinite(x[i]) && fabs(x[i]) > scale) scale = fabs(x[i]);
  for (int64_t i = 0; i < 2 * n1 && n1 == n2; i++) {
    bool same = x[i] == y[i] || (isnan(x[i]) && isnan(y[i]));
    if (!same && !(fabs(x[i] - y[i]) <= tol_of(d) * scale)) {
      fprintf(stderr, "%s: %s differs at %lld: %g, the CPU %g\n", case_name, what,
              (long long)(i / 2), y[i], x[i]);
      CHECK(0);
      break;
    }
  }
  free(x);
  free(y);
}

/* The same outcome both ways: the same error (class and message), or both succeeded. */
static bool same_outcome(int rc_cpu, const dlx_error *e_cpu, int rc_plan, const dlx_error *e_plan) {
  if (rc_cpu != rc_plan || (rc_cpu != 0 && strcmp(e_cpu->message, e_plan->message) != 0)) {
    fprintf(stderr, "%s: the CPU gives %d (%s), the plan %d (%s)\n", case_name, rc_cpu,
            rc_cpu ? e_cpu->message : "", rc_plan, rc_plan ? e_plan->message : "");
    CHECK(0);
    return false;
  }
  CHECK(1);
  return rc_cpu == 0;
}

/* ||U diag(S) V^H - A|| and ||U^H U - I|| small (within the plan's result). */
static void check_svd(const dlx_tensor *u, const dlx_tensor *s, const dlx_tensor *vh,
                      const dlx_tensor *a, dlx_dtype d) {
  int64_t k = s->shape[s->ndim - 1];
  dlx_tensor us, rec, tmp, uh, uhu;
  dlx_tensor sv = *s, un = *u;
  dlx_operand x, y;
  /* the first k columns of U, times S (as a row) */
  un.shape[un.ndim - 1] = k;
  sv.ndim++;
  sv.shape[sv.ndim - 1] = sv.shape[sv.ndim - 2];
  sv.strides[sv.ndim - 1] = sv.strides[sv.ndim - 2];
  sv.shape[sv.ndim - 2] = 1;
  sv.strides[sv.ndim - 2] = 0;
  x.tensor = &un;
  y.tensor = &sv;
  CHECK(dlx_elementwise(DLX_EW_MUL, &x, &y, NULL, &us, NULL) == 0);
  dlx_tensor vk = *vh;
  vk.shape[vk.ndim - 2] = k;
  dlx_matmul_args args = dlx_matmul_args_of("matmul", &us, &vk);
  CHECK(dlx_matmul(&rec, &args, NULL) == 0);
  close_enough("U diag(S) V^H", a, &rec, d);
  CHECK(dlx_transpose(&tmp, u, u->ndim - 2, u->ndim - 1, NULL) == 0);
  x.tensor = &tmp;
  CHECK(dlx_elementwise(DLX_EW_CONJ, &x, NULL, NULL, &uh, NULL) == 0);
  args = dlx_matmul_args_of("matmul", &uh, u);
  CHECK(dlx_matmul(&uhu, &args, NULL) == 0);
  int64_t cols = u->shape[u->ndim - 1];
  double *v = values(&uhu, &(int64_t){0});
  bool ok = true;
  for (int64_t b = 0; b < dlx_tensor_numel(&uhu) / (cols * cols); b++)
    for (int64_t i = 0; i < cols; i++)
      for (int64_t j = 0; j < cols; j++) {
        double *e = v + 2 * (b * cols * cols + i * cols + j);
        if (fabs(e[0] - (i == j)) > tol_of(d) * 10 || fabs(e[1]) > tol_of(d) * 10) ok = false;
      }
  if (!ok) fprintf(stderr, "%s: U's columns are not orthonormal\n", case_name);
  CHECK(ok);
  free(v);
  dlx_tensor_close(&us);
  dlx_tensor_close(&rec);
  dlx_tensor_close(&tmp);
  dlx_tensor_close(&uh);
  dlx_tensor_close(&uhu);
}

/* ---- the cases */

enum {
  SOLVE,
  INV,
  DET,
  SLOGDET,
  CHOLESKY,
  QR,
  SVD,
  EIGH,
  LU_FACTOR,
  LU,
  LU_SOLVE,
  TRIANGULAR,
  SVDVALS,
  EIG,
  EIGVALS,
  LSTSQ,
  NUM_OPS
};
static const char *const names[NUM_OPS] = {
    "solve",     "inv", "det",      "slogdet",          "cholesky", "qr",  "svd",     "eigh",
    "lu_factor", "lu",  "lu_solve", "solve_triangular", "svdvals",  "eig", "eigvals", "lstsq"};

/* One case's choices. */
typedef struct pick {
  int op;
  dlx_dtype d;
  int64_t m, n, k;
  enum kind kind;
  bool flag, flag2, left, vector_b;
} pick;

/* Zeroes column j (row j when the matrices are wide) of t's last matrix: its R has an exact zero
 * on the diagonal, on either lstsq route. */
static void zero_line(const dlx_tensor *t, int64_t rows, int64_t cols) {
  int64_t count = dlx_tensor_numel(t) / (rows * cols), j = below(rows < cols ? rows : cols);
  char *base = (char *)first(t) + (size_t)((count - 1) * rows * cols) * item(t);
  for (int64_t i = 0; i < (rows < cols ? cols : rows); i++) {
    int64_t at = rows >= cols ? i * cols + j : j * cols + i; /* C-contiguous */
    memset(base + (size_t)at * item(t), 0, item(t));
  }
}

static void make_inputs(const pick *p, dlx_tensor a[2], dlx_tensor b[2], const int64_t *batch,
                        int32_t nb) {
  make(&a[0], p->d, batch, nb, p->m, p->n,
       p->kind == SINGULAR && p->op == LSTSQ ? DOMINANT : p->kind);
  if (p->kind == SINGULAR && p->op == LSTSQ) zero_line(&a[0], p->m, p->n);
  twin(&a[1], &a[0]);
  if (p->op == TRIANGULAR && !p->left)
    make(&b[0], p->d, batch, nb, p->k, p->n, GENERAL);
  else if (p->vector_b) { /* (m,) */
    make(&b[0], p->d, batch, 0, 1, p->m, GENERAL);
    b[0].ndim = 1;
    b[0].shape[0] = p->m;
    b[0].strides[0] = 1;
  } else
    make(&b[0], p->d, batch, nb, p->op == LSTSQ ? p->m : p->n, p->k, GENERAL);
  twin(&b[1], &b[0]);
}

static int run_op(const pick *p, dlx_tensor *a, dlx_tensor *b, dlx_tensor *o, dlx_error *e,
                  bool cpu) {
  switch (p->op) {
  case SOLVE:
    return dlx_linalg_solve(&o[0], a, b, e);
  case INV:
    return dlx_linalg_inv(&o[0], a, e);
  case DET:
    return dlx_linalg_det(&o[0], a, e);
  case SLOGDET:
    return dlx_linalg_slogdet(&o[0], &o[1], a, e);
  case CHOLESKY:
    return dlx_linalg_cholesky(&o[0], a, p->flag, e);
  case QR:
    return dlx_linalg_qr(&o[0], &o[1], a,
                         p->flag    ? DLX_QR_COMPLETE
                         : p->flag2 ? DLX_QR_R
                                    : DLX_QR_REDUCED,
                         e);
  case SVD:
    return dlx_linalg_svd(&o[0], &o[1], &o[2], a, p->flag, e);
  case SVDVALS:
    return dlx_linalg_svd(NULL, &o[1], NULL, a, false, e);
  case EIGH:
    return dlx_linalg_eigh(&o[0], p->flag2 ? &o[1] : NULL, a, p->flag, e);
  case EIG:
  case EIGVALS:
    return dlx_linalg_eig(&o[0], p->op == EIG ? &o[1] : NULL, a, e);
  case LSTSQ:
    return dlx_linalg_lstsq(&o[0], &o[1], &o[2], &o[3], a, b,
                            p->flag && p->kind != SINGULAR ? 0 : -1, e);
  case LU_FACTOR:
    return dlx_linalg_lu_factor(&o[0], &o[1], a, e);
  case LU:
    return dlx_linalg_lu(&o[0], &o[1], &o[2], a, e);
  case LU_SOLVE: { /* with the CPU's factors, pivots made bad now and then */
    dlx_tensor lu, piv, lut, pivt;
    int rc;
    CHECK(dlx_linalg_lu_factor(&lu, &piv, a, NULL) == 0);
    if (p->flag && p->flag2 && dlx_tensor_numel(&piv) > 0)
      ((int64_t *)piv.buffer->data)[0] = p->n + 1;
    twin(&lut, &lu);
    twin(&pivt, &piv);
    rc = dlx_linalg_lu_solve(&o[0], cpu ? &lu : &lut, cpu ? &piv : &pivt, b, e);
    dlx_tensor_close(&lu);
    dlx_tensor_close(&piv);
    dlx_tensor_close(&lut);
    dlx_tensor_close(&pivt);
    return rc;
  }
  default: /* solve_triangular: a's lower or upper triangle, sometimes with a zero pivot */
    return dlx_linalg_solve_triangular(&o[0], a, b, p->flag, p->left, p->flag2, e);
  }
}

/* The min(m, n) ranks of lstsq's last batch element (the CPU's, for a zero line) is less. */
static int64_t last_rank(const dlx_tensor *rank) {
  int64_t count;
  double *v = values(rank, &count);
  int64_t r = count > 0 ? (int64_t)v[2 * (count - 1)] : -1;
  free(v);
  return r;
}

/* lstsq where the plan takes a matrix as rank-deficient (a zero line): its LinAlgError, where
 * the CPU gives the lower rank. */
static void check_rank_deficient(const pick *p, int32_t nb, const int *rc, const dlx_error *e,
                                 dlx_tensor o[2][4]) {
  CHECK_EQ_INT(rc[0], 0);
  CHECK_EQ_INT(rc[1], DLX_LINALG_ERROR);
  if (rc[0] == 0) CHECK(last_rank(&o[0][2]) < (p->m < p->n ? p->m : p->n));
  if (rc[1] != DLX_LINALG_ERROR) return;
  CHECK(strstr(e[1].message, "does not have full rank") != NULL);
  CHECK(strstr(e[1].message, "linalg.lstsq:") == e[1].message);
  if (nb > 0) CHECK(strstr(e[1].message, "(Batch element ") != NULL);
}

static void compare(const pick *p, dlx_tensor o[2][4], const dlx_tensor *a) {
  dlx_dtype d = p->d;
  if (p->op == SVD) {
    close_enough("S", &o[0][1], &o[1][1], d);
    if (p->kind != NONFINITE) check_svd(&o[1][0], &o[1][1], &o[1][2], a, d);
    return;
  }
  if (p->op == EIGH && p->flag2) { /* eigenvectors: up to a sign or phase per column */
    close_enough("w", &o[0][0], &o[1][0], d);
    return;
  }
  if (p->op == LSTSQ) { /* no singular values on the QR route: an empty tensor */
    CHECK(o[1][3].ndim == 1 && o[1][3].shape[0] == 0 && o[1][3].dtype == o[0][3].dtype);
  }
  for (int i = 0; i < 3; i++)
    if (o[0][i].buffer != NULL && (dlx_tensor_numel(&o[0][i]) > 0 || p->op == LSTSQ))
      close_enough(i == 0   ? "the first result"
                   : i == 1 ? "the second"
                            : "the third",
                   &o[0][i], &o[1][i], d);
}

static pick pick_case(void) {
  pick p;
  memset(&p, 0, sizeof p);
  p.d = dtypes[below(4)];
  p.op = (int)below(NUM_OPS);
  p.n = 1 + below(6), p.m = 1 + below(6), p.k = below(5) == 0 ? 0 : 1 + below(3);
  p.kind = DOMINANT;
  int kind = (int)below(10);
  if (kind == 0) p.kind = SINGULAR;
  if (kind == 1) p.kind = NONFINITE;
  if (kind == 2 && p.op != LSTSQ) p.kind = GENERAL;
  if (p.op == CHOLESKY && kind > 2) p.kind = below(4) ? SPD : GENERAL; /* often positive definite */
  if (p.op == EIGH && kind > 1) p.kind = HERMITIAN;
  if (p.op != QR && p.op != SVD && p.op != LU && p.op != SVDVALS && p.op != LU_FACTOR &&
      p.op != LSTSQ)
    p.m = p.n;
  if (p.op == INV && below(8) == 0) p.m = p.n = 31 + below(4); /* matinv's limit, getrs's route */
  p.flag = below(2) == 0, p.flag2 = below(2) == 0;
  p.left = below(3) != 0; /* solve_triangular: X A = B with left false, B then k x n */
  p.vector_b = p.op == LSTSQ && below(4) == 0;
  return p;
}

static void one_case(int iteration) {
  int64_t batch[2] = {1 + below(3), 1 + below(2)};
  int32_t nb = (int32_t)below(3);
  pick p = pick_case();
  dlx_tensor a[2], b[2], o[2][4];
  dlx_error e[2];
  int rc[2];
  solver = below(2) ? &full_solver : &plain_solver;
  if (p.k == 0 && !p.vector_b &&
      (p.op == SOLVE || p.op == LU_SOLVE || p.op == TRIANGULAR || p.op == LSTSQ))
    no_rhs_cases++;
  make_inputs(&p, a, b, batch, nb);
  snprintf(case_name, sizeof case_name,
           "case %d: %s, %s, %d batch dims, %lld x %lld, kind %d%s%s%s", iteration, names[p.op],
           dlx_dtype_info_of(p.d)->name, (int)nb, (long long)p.m, (long long)p.n, (int)p.kind,
           p.flag ? ", flag" : "", p.left ? "" : ", right",
           solver == &full_solver ? "" : ", looped solver");
  memset(o, 0, sizeof o);
  for (int w = 0; w < 2; w++) rc[w] = run_op(&p, &a[w], &b[w], o[w], &e[w], w == 0);
  /* singular and non-finite matrices: the same outcome, but the values of the direct methods
   * need not agree (rounding amplified, infinities through other operations) */
  bool all_values = (p.kind != SINGULAR && p.kind != NONFINITE) || p.op == SVD || p.op == EIGH ||
                    p.op == SVDVALS || p.op == EIG || p.op == EIGVALS || p.op == LSTSQ;
  if ((p.op == EIG || p.op == EIGVALS) && solver == &plain_solver) {
    CHECK_EQ_INT(rc[0], 0);
    CHECK_EQ_INT(rc[1], DLX_DEVICE_ERROR);
    CHECK(rc[1] != 0 && strstr(e[1].message, "has no cusolverDnXgeev") != NULL);
  } else if (p.op == LSTSQ && p.kind == SINGULAR) {
    check_rank_deficient(&p, nb, rc, e, o);
  } else if (same_outcome(rc[0], &e[0], rc[1], &e[1]) && all_values) {
    dlx_tensor a64;
    CHECK(dlx_clone_as(&a64, &a[0], p.d, (DLDevice){kDLCPU, 0}, NULL) == 0);
    compare(&p, o, &a64);
    dlx_tensor_close(&a64);
  }
  for (int w = 0; w < 2; w++) {
    dlx_tensor_close(&a[w]);
    dlx_tensor_close(&b[w]);
    for (int i = 0; i < 4; i++)
      if (o[w][i].buffer != NULL) dlx_tensor_close(&o[w][i]);
  }
}

int main(void) {
  LAPACKE_set_nancheck(0);
  rules_backend = dlx_cpu_backend;
  rules_backend.linalg = rules_linalg;
  plain_solver = full_solver;
  plain_solver.geev = NULL;
  plain_solver.getrf_batched = NULL;
  plain_solver.getrs_batched = NULL;
  plain_solver.matinv_batched = NULL;
  for (int i = 0; i < 3000; i++) one_case(i);
  printf("cuda_linalg_rules: %d solver calls; batched getrf %d, getrs %d, matinv %d; geev %d, "
         "ormqr %d; %d cases without right-hand sides\n",
         solver_calls, batched_calls[0], batched_calls[1], batched_calls[2], geev_calls,
         ormqr_calls, no_rhs_cases);
  CHECK(solver_calls > 1000 && geev_calls > 50 && ormqr_calls > 50 && no_rhs_cases > 50);
  CHECK(batched_calls[0] > 50 && batched_calls[1] > 50 && batched_calls[2] > 20);
  return check_report("cuda_linalg_rules");
}
