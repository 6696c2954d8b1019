/* linalg.c -- the CPU's linalg entry (dlx_linalg_request, core/backend.h): each matrix of the
 * batch through LAPACK (cpu/lapack.h), except the LU factors and solves (solve, inv, det,
 * slogdet, lu_factor, lu, lu_solve) and the Cholesky factor of real matrices of up to 16 rows
 * and columns, which dlx's own kernels compute (cpu/lu_small.h, cpu/cholesky_small.h): a
 * LAPACK call costs more than such a matrix's arithmetic. A batch of small matrices is split
 * over the pool's threads, each block with one workspace for all its matrices, OpenBLAS on one
 * thread; a big matrix runs on the calling thread and OpenBLAS uses dlx's thread count
 * (cpu/blas.h). The workspace sizes are asked once a request. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/linalg_decomp.h"
#include "cpu/blas.h"
#include "cpu/cholesky_small.h"
#include "cpu/kernels.h"
#include "cpu/lapack.h"
#include "cpu/lu_small.h"
#include "cpu/parallel.h"

/* Matrices whose rows and columns are all at most this are "small": a batch of them is split
 * over the pool's threads, each matrix on one thread. */
#define SMALL 64
/* The matrix info of a pivot out of range (LU_SOLVE), below LAPACK's own negative infos. */
#define BAD_PIVOT INT32_MIN
/* The largest inverse computed as solve(A, I) by the own getrs; larger ones (of the own factors
 * too) by LAPACK's getri, the faster from 6 x 6 on (10,000 float64 matrices on one thread: 0.8
 * against 2.0 ms at 4 x 4, 2.2 against 2.6 ms at 5 x 5, 3.8 against 3.3 ms at 6 x 6). */
#define INV_BY_SOLVE 5

typedef struct job {
  dlx_linalg_request *r;
  size_t item, ritem; /* bytes of an element, of its real part */
  dlx_li m, n, k, mn; /* mn = min(m, n) */
  dlx_li lwork, lrwork, liwork;
  size_t scratch; /* bytes of a block's workspace */
  int32_t *info;  /* each matrix's LAPACK info */
  atomic_bool out_of_memory;
} job;

/* One block's workspace. */
typedef struct space {
  void *work, *rwork, *extra;
  dlx_li *iwork;
} space;

/* ---- elements */

static size_t item_of(dlx_dtype t) { return (size_t)dlx_dtype_bits(t) / 8; }

static bool is_complex(dlx_dtype t) { return t == DLX_COMPLEX64 || t == DLX_COMPLEX128; }

/* Matrix (or vector) i of a tensor of the request. */
static void *at(const job *j, const dlx_tensor *t, int64_t i) {
  size_t item = item_of(t->dtype);
  int64_t per = dlx_tensor_numel(t) / j->r->batch;
  return (char *)t->buffer->data + (size_t)(t->offset + i * per) * item;
}

/* Element p of dtype t as a complex double, and back. */
static void get(dlx_dtype t, const void *p, double *re, double *im) {
  switch (t) {
  case DLX_FLOAT32:
    *re = *(const float *)p, *im = 0;
    break;
  case DLX_FLOAT64:
    *re = *(const double *)p, *im = 0;
    break;
  case DLX_COMPLEX64:
    *re = ((const float *)p)[0], *im = ((const float *)p)[1];
    break;
  default:
    *re = ((const double *)p)[0], *im = ((const double *)p)[1];
  }
}

static void put(dlx_dtype t, void *p, double re, double im) {
  switch (t) {
  case DLX_FLOAT32:
    *(float *)p = (float)re;
    break;
  case DLX_FLOAT64:
    *(double *)p = re;
    break;
  case DLX_COMPLEX64:
    ((float *)p)[0] = (float)re, ((float *)p)[1] = (float)im;
    break;
  default:
    ((double *)p)[0] = re, ((double *)p)[1] = im;
  }
}

/* Whether the count reals (float or double, as real says) at p are all finite. */
static bool all_finite(const void *p, int64_t count, dlx_dtype real) {
  if (real == DLX_FLOAT32) {
    const float *f = p;
    float sum = 0;
    for (int64_t i = 0; i < count; i++) sum += f[i] * 0.0f; /* NaN for NaN and inf */
    return sum == 0;
  }
  const double *d = p;
  double sum = 0;
  for (int64_t i = 0; i < count; i++) sum += d[i] * 0.0;
  return sum == 0;
}

static void fill_nan(void *p, int64_t count, dlx_dtype real) {
  for (int64_t i = 0; i < count; i++) {
    if (real == DLX_FLOAT32)
      ((float *)p)[i] = NAN;
    else
      ((double *)p)[i] = NAN;
  }
}

/* Reals in the elements of matrix or vector i of t (two for complex elements). */
static int64_t reals_of(const job *j, const dlx_tensor *t) {
  return dlx_tensor_numel(t) / j->r->batch * (is_complex(t->dtype) ? 2 : 1);
}

/* Fills matrix or vector i of t with NaN (nothing when t is NULL). */
static void nan_out(const job *j, const dlx_tensor *t, int64_t i) {
  if (t != NULL) fill_nan(at(j, t, i), reals_of(j, t), dlx_linalg_real_dtype(t->dtype));
}

/* Whether the rows x cols matrix at p (leading dimension ld) is finite; tri: 0 every element,
 * 'L' or 'U' only that triangle. */
static bool matrix_finite(const job *j, const void *p, dlx_li rows, dlx_li cols, dlx_li ld,
                          char tri) {
  dlx_dtype real = dlx_linalg_real_dtype(j->r->dtype);
  int64_t per = is_complex(j->r->dtype) ? 2 : 1;
  for (dlx_li c = 0; c < cols; c++) {
    dlx_li first = tri == 'L' ? c : 0, last = tri == 'U' ? (c < rows ? c + 1 : rows) : rows;
    const char *col = (const char *)p + ((size_t)c * (size_t)ld + (size_t)first) * j->item;
    if (first < last && !all_finite(col, (last - first) * per, real)) return false;
  }
  return true;
}

static void *elem(const job *j, void *p, dlx_li row, dlx_li col, dlx_li ld) {
  return (char *)p + ((size_t)col * (size_t)ld + (size_t)row) * j->item;
}

/* ---- the ops, one matrix each: LAPACK's info (> 0: the matrix failed) */

/* P, L and U of getrf's factors in a and pivots. */
static void unpack_lu(const job *j, int64_t i, void *a, const dlx_li *ipiv, dlx_li *perm) {
  const dlx_linalg_request *r = j->r;
  dlx_li m = j->m, n = j->n, mn = j->mn;
  char *p = at(j, r->mats[0], i), *l = at(j, r->mats[1], i), *u = at(j, r->mats[2], i);
  for (dlx_li q = 0; q < m; q++) perm[q] = q;
  for (dlx_li q = 0; q < mn; q++) {
    dlx_li other = ipiv[q] - 1, keep = perm[q];
    perm[q] = perm[other];
    perm[other] = keep;
  }
  memset(p, 0, (size_t)m * (size_t)m * j->item);
  for (dlx_li q = 0; q < m; q++) put(r->dtype, elem(j, p, perm[q], q, m), 1, 0);
  for (dlx_li c = 0; c < mn; c++)
    for (dlx_li row = 0; row < m; row++) {
      void *dst = elem(j, l, row, c, m);
      if (row > c)
        memcpy(dst, elem(j, a, row, c, m), j->item);
      else
        put(r->dtype, dst, row == c ? 1 : 0, 0);
    }
  for (dlx_li c = 0; c < n; c++)
    for (dlx_li row = 0; row < mn; row++) {
      void *dst = elem(j, u, row, c, mn);
      if (row <= c)
        memcpy(dst, elem(j, a, row, c, m), j->item);
      else
        memset(dst, 0, j->item);
    }
}

/* ---- LU: dlx's own kernels for small real matrices (lu_small.c), LAPACK for the others */

static bool lu_small(const job *j, dlx_li m, dlx_li n) {
  dlx_dtype t = j->r->dtype;
  return (t == DLX_FLOAT32 || t == DLX_FLOAT64) && m <= DLX_CPU_LU_SMALL && n <= DLX_CPU_LU_SMALL;
}

static dlx_li getrf(const job *j, dlx_li m, dlx_li n, void *a, dlx_li *ipiv) {
  if (!lu_small(j, m, n)) return dlx_lp_getrf(j->r->dtype, m, n, a, ipiv);
  if (j->r->dtype == DLX_FLOAT64) return dlx_cpu_getrf_small_f64(a, m, n, ipiv);
  return dlx_cpu_getrf_small_f32(a, m, n, ipiv);
}

static dlx_li getrs(const job *j, dlx_li n, dlx_li k, const void *lu, const dlx_li *ipiv, void *b) {
  if (!lu_small(j, n, n)) return dlx_lp_getrs(j->r->dtype, n, k, lu, ipiv, b);
  if (j->r->dtype == DLX_FLOAT64)
    dlx_cpu_getrs_small_f64(lu, n, ipiv, b, k);
  else
    dlx_cpu_getrs_small_f32(lu, n, ipiv, b, k);
  return 0;
}

static dlx_li op_lu(job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  void *a = at(j, r->a, i);
  dlx_li *ipiv = s->extra;
  int64_t *pivots = at(j, r->ints, i);
  dlx_li info = getrf(j, j->m, j->n, a, ipiv);
  if (info < 0) return info;
  for (dlx_li q = 0; q < j->mn; q++) pivots[q] = ipiv[q];
  if (r->flags & DLX_LINALG_VECTORS) unpack_lu(j, i, a, ipiv, ipiv + j->mn);
  return 0; /* a singular matrix has an LU too */
}

/* The first zero on the diagonal of the n x n matrix at a (1-based), 0 when none. */
static dlx_li zero_diagonal(const job *j, void *a) {
  for (dlx_li q = 0; q < j->n; q++) {
    double re, im;
    get(j->r->dtype, elem(j, a, q, q, j->n), &re, &im);
    if (re == 0 && im == 0) return q + 1;
  }
  return 0;
}

static dlx_li op_lu_solve(job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  void *a = at(j, r->a, i);
  dlx_li *ipiv = s->extra, info;
  const int64_t *pivots = at(j, r->ints, i);
  for (dlx_li q = 0; q < j->n; q++) {
    if (pivots[q] < 1 || pivots[q] > j->n) return BAD_PIVOT;
    ipiv[q] = (dlx_li)pivots[q];
  }
  info = zero_diagonal(j, a);
  if (info != 0) return info;
  return getrs(j, j->n, j->k, a, ipiv, at(j, r->b, i));
}

static dlx_li op_solve(job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  void *a = at(j, r->a, i);
  dlx_li info;
  /* (no right-hand sides: getrf alone, since OpenBLAS's gesv returns at once for nrhs = 0 and
   * a singular A must fail all the same, as in NumPy and PyTorch) */
  if (!lu_small(j, j->n, j->n) && j->k > 0)
    return dlx_lp_gesv(r->dtype, j->n, j->k, a, s->extra, at(j, r->b, i));
  info = getrf(j, j->n, j->n, a, s->extra);
  if (info != 0 || j->k == 0) return info;
  return getrs(j, j->n, j->k, a, s->extra, at(j, r->b, i));
}

/* a = the inverse of the matrix of up to INV_BY_SOLVE rows that getrf factored into a and ipiv:
 * solve(A, I), where getri's steps (a triangular inverse, then a solve by blocks) would only
 * slow it. */
static void inv_small(const job *j, void *a, const dlx_li *ipiv) {
  union {
    double d[INV_BY_SOLVE * INV_BY_SOLVE];
    float f[INV_BY_SOLVE * INV_BY_SOLVE];
  } x;
  size_t nn = (size_t)j->n * (size_t)j->n;
  memset(&x, 0, nn * j->item);
  for (dlx_li q = 0; q < j->n; q++) {
    if (j->r->dtype == DLX_FLOAT64)
      x.d[q * (j->n + 1)] = 1;
    else
      x.f[q * (j->n + 1)] = 1;
  }
  getrs(j, j->n, j->n, a, ipiv, &x);
  memcpy(a, &x, nn * j->item);
}

static dlx_li op_inv(job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  void *a = at(j, r->a, i);
  dlx_li info = getrf(j, j->n, j->n, a, s->extra);
  if (info != 0) return info;
  if (!lu_small(j, j->n, j->n) || j->n > INV_BY_SOLVE)
    return dlx_lp_getri(r->dtype, j->n, a, s->extra, s->work, j->lwork);
  inv_small(j, a, s->extra);
  return 0;
}

/* det, or sign and log |det|, from getrf's factors: the product of U's diagonal, negated for
 * an odd number of row swaps (in double precision). */
static dlx_li op_det(job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  void *a = at(j, r->a, i);
  dlx_li *ipiv = s->extra;
  dlx_li info = getrf(j, j->n, j->n, a, ipiv);
  double re = 1, im = 0, logabs = 0;
  bool want_log = (r->flags & DLX_LINALG_LOG) != 0;
  if (info < 0) return info;
  for (dlx_li q = 0; q < j->n; q++) {
    double dr, di, t;
    get(r->dtype, elem(j, a, q, q, j->n), &dr, &di);
    if (ipiv[q] != q + 1) re = -re, im = -im;
    if (want_log) { /* the sign collects d / |d|, the log |d| */
      double mag = hypot(dr, di);
      logabs += log(mag);
      if (mag == 0 || mag != mag) {
        dr = mag == 0 ? 0 : NAN, di = 0;
      } else
        dr /= mag, di /= mag;
    }
    t = re * dr - im * di;
    im = re * di + im * dr;
    re = t;
  }
  put(r->dtype, at(j, r->vecs[0], i), re, im);
  if (want_log) put(dlx_linalg_real_dtype(r->dtype), at(j, r->vecs[1], i), logabs, 0);
  return 0;
}

static dlx_li op_cholesky(job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  bool upper = (r->flags & DLX_LINALG_UPPER) != 0;
  void *a = at(j, r->a, i);
  dlx_li info;
  (void)s;
  if (j->n <= DLX_CPU_CHOLESKY_SMALL && r->dtype == DLX_FLOAT64)
    info = (dlx_li)dlx_cpu_cholesky_small_f64(a, j->n, upper);
  else if (j->n <= DLX_CPU_CHOLESKY_SMALL && r->dtype == DLX_FLOAT32)
    info = (dlx_li)dlx_cpu_cholesky_small_f32(a, j->n, upper);
  else
    info = dlx_lp_potrf(r->dtype, upper ? 'U' : 'L', j->n, a);
  if (info != 0) return info;
  for (dlx_li q = 0; q < j->n; q++) { /* NaN passes OpenBLAS's test (ajj <= 0): not ours */
    double re, im;
    get(r->dtype, elem(j, a, q, q, j->n), &re, &im);
    if (re != re) return q + 1;
  }
  for (dlx_li c = 0; c < j->n; c++) { /* the other triangle */
    dlx_li first = upper ? c + 1 : 0, count = upper ? j->n - c - 1 : c;
    memset(elem(j, a, first, c, j->n), 0, (size_t)count * j->item);
  }
  return 0;
}

static dlx_li op_qr(job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  bool full = (r->flags & DLX_LINALG_FULL) != 0;
  dlx_li m = j->m, n = j->n, rows = full ? m : j->mn, info;
  void *a = at(j, r->a, i), *tau = s->extra;
  char *rr = at(j, r->mats[1], i);
  info = dlx_lp_geqrf(r->dtype, m, n, a, tau, s->work, j->lwork);
  if (info != 0) return info;
  for (dlx_li c = 0; c < n; c++)
    for (dlx_li row = 0; row < rows; row++) {
      void *dst = elem(j, rr, row, c, rows);
      if (row <= c)
        memcpy(dst, elem(j, a, row, c, m), j->item);
      else
        memset(dst, 0, j->item);
    }
  if (r->mats[0] != NULL) {
    dlx_li cols = full ? m : j->mn;
    char *q = at(j, r->mats[0], i);
    memcpy(q, a, (size_t)m * (size_t)(cols < n ? cols : n) * j->item);
    info = dlx_lp_orgqr(r->dtype, m, cols, j->mn, q, tau, s->work, j->lwork);
  }
  return info;
}

static dlx_li op_svd(job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  bool vectors = (r->flags & DLX_LINALG_VECTORS) != 0, full = (r->flags & DLX_LINALG_FULL) != 0;
  char jobz = vectors ? (full ? 'A' : 'S') : 'N';
  void *a = at(j, r->a, i), *u = NULL, *vt = NULL;
  double dummy[4];
  if (vectors) {
    u = at(j, r->mats[0], i);
    vt = at(j, r->mats[1], i);
  }
  if (!matrix_finite(j, a, j->m, j->n, j->m, 0)) {
    nan_out(j, r->vecs[0], i);
    if (vectors) {
      nan_out(j, r->mats[0], i);
      nan_out(j, r->mats[1], i);
    }
    return 0;
  }
  return dlx_lp_gesdd(r->dtype, jobz, j->m, j->n, a, at(j, r->vecs[0], i), vectors ? u : dummy,
                      vectors ? j->m : 1, vectors ? vt : dummy, vectors ? (full ? j->n : j->mn) : 1,
                      s->work, j->lwork, s->rwork, s->iwork);
}

static dlx_li op_eigh(job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  bool vectors = (r->flags & DLX_LINALG_VECTORS) != 0;
  char uplo = (r->flags & DLX_LINALG_UPPER) ? 'U' : 'L';
  void *a = at(j, r->a, i), *w = at(j, r->vecs[0], i);
  if (!matrix_finite(j, a, j->n, j->n, j->n, uplo)) {
    nan_out(j, r->vecs[0], i);
    if (vectors) nan_out(j, r->a, i);
    return 0;
  }
  return dlx_lp_syevd(r->dtype, vectors ? 'V' : 'N', uplo, j->n, a, w, s->work, j->lwork, s->rwork,
                      j->lrwork, s->iwork, j->liwork);
}

/* The complex eigenvalues and vectors of a real geev: conjugate pairs come as (re, im > 0) then
 * (re, -im), their vectors as the columns re and im. */
static void complex_eig(const job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  dlx_dtype real = r->dtype, cx = r->vecs[0]->dtype;
  size_t ri = j->ritem, ci = 2 * j->ritem;
  dlx_li n = j->n;
  char *wr = s->extra, *wi = wr + (size_t)n * ri, *vr = wi + (size_t)n * ri;
  char *w = at(j, r->vecs[0], i), *v = r->mats[0] != NULL ? at(j, r->mats[0], i) : NULL;
  for (dlx_li q = 0; q < n; q++) {
    double re, im;
    get(real, wr + (size_t)q * ri, &re, &im);
    get(real, wi + (size_t)q * ri, &im, &(double){0});
    put(cx, w + (size_t)q * ci, re, im);
  }
  if (v == NULL) return;
  for (dlx_li q = 0; q < n; q++) {
    double im;
    get(real, wi + (size_t)q * ri, &im, &(double){0});
    for (dlx_li row = 0; row < n; row++) {
      double x, y = 0, dummy;
      get(real, vr + ((size_t)q * (size_t)n + (size_t)row) * ri, &x, &dummy);
      if (im != 0 && q + 1 < n)
        get(real, vr + ((size_t)(q + 1) * n + (size_t)row) * ri, &y, &dummy);
      put(cx, v + ((size_t)q * n + (size_t)row) * ci, x, y);
      if (im != 0 && q + 1 < n) put(cx, v + ((size_t)(q + 1) * n + (size_t)row) * ci, x, -y);
    }
    if (im != 0) q++;
  }
}

static dlx_li op_eig(job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  bool vectors = r->mats[0] != NULL;
  void *a = at(j, r->a, i);
  dlx_li info, n = j->n;
  if (!matrix_finite(j, a, n, n, n, 0)) {
    nan_out(j, r->vecs[0], i);
    if (vectors) nan_out(j, r->mats[0], i);
    return 0;
  }
  if (is_complex(r->dtype))
    return dlx_lp_geev(r->dtype, vectors ? 'V' : 'N', n, a, at(j, r->vecs[0], i), NULL,
                       vectors ? at(j, r->mats[0], i) : NULL, s->work, j->lwork, s->rwork);
  {
    char *wr = s->extra, *wi = wr + (size_t)n * j->ritem, *vr = wi + (size_t)n * j->ritem;
    info = dlx_lp_geev(r->dtype, vectors ? 'V' : 'N', n, a, wr, wi, vectors ? vr : NULL, s->work,
                       j->lwork, NULL);
  }
  if (info == 0) complex_eig(j, i, s);
  return info;
}

static dlx_li op_lstsq(job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  dlx_li m = j->m, n = j->n, k = j->k, ldb = m > n ? m : n, rank = 0, info;
  void *a = at(j, r->a, i);
  char *b = at(j, r->b, i);
  int64_t *ranks = at(j, r->ints, i);
  if (!matrix_finite(j, a, m, n, m, 0) || !matrix_finite(j, b, m, k, ldb, 0)) {
    nan_out(j, r->b, i);
    nan_out(j, r->vecs[0], i);
    nan_out(j, r->vecs[1], i);
    *ranks = 0;
    return 0;
  }
  info = dlx_lp_gelsd(r->dtype, m, n, k, a, b, ldb, at(j, r->vecs[0], i), r->rcond, &rank, s->work,
                      j->lwork, s->rwork, s->iwork);
  *ranks = rank;
  if (info == 0 && r->vecs[1] != NULL) { /* the residuals: rows n .. m - 1 of each column */
    char *res = at(j, r->vecs[1], i);
    for (dlx_li c = 0; c < k; c++) {
      double sum = 0;
      for (dlx_li row = n; row < m; row++) {
        double re, im;
        get(r->dtype, elem(j, b, row, c, ldb), &re, &im);
        sum += re * re + im * im;
      }
      put(dlx_linalg_real_dtype(r->dtype), res + (size_t)c * j->ritem, sum, 0);
    }
  }
  return info;
}

static dlx_li op_triangular(job *j, int64_t i, space *s) {
  const dlx_linalg_request *r = j->r;
  char uplo = (r->flags & DLX_LINALG_UPPER) ? 'U' : 'L';
  char diag = (r->flags & DLX_LINALG_UNIT) ? 'U' : 'N';
  (void)s;
  return dlx_lp_trtrs(r->dtype, uplo, diag, j->n, j->k, at(j, r->a, i), at(j, r->b, i));
}

typedef dlx_li (*op_fn)(job *j, int64_t i, space *s);

static op_fn op_of(dlx_linalg_op op) {
  switch (op) {
  case DLX_LINALG_LU:
    return op_lu;
  case DLX_LINALG_LU_SOLVE:
    return op_lu_solve;
  case DLX_LINALG_SOLVE:
    return op_solve;
  case DLX_LINALG_INV:
    return op_inv;
  case DLX_LINALG_DET:
    return op_det;
  case DLX_LINALG_CHOLESKY:
    return op_cholesky;
  case DLX_LINALG_QR:
    return op_qr;
  case DLX_LINALG_SVD:
    return op_svd;
  case DLX_LINALG_EIGH:
    return op_eigh;
  case DLX_LINALG_EIG:
    return op_eig;
  case DLX_LINALG_LSTSQ:
    return op_lstsq;
  default:
    return op_triangular;
  }
}

/* ---- workspaces */

/* A size LAPACK gave in a work array's first element (a float or double, the real part of a
 * complex one), rounded up; -1 when it does not fit LAPACK's integers. */
static dlx_li size_from(const void *work, dlx_dtype real) {
  double v =
      real == DLX_FLOAT32 ? (double)*(const float *)work * (1 + 1e-6) + 1 : *(const double *)work;
  return v > 2147483647.0 ? -1 : (dlx_li)ceil(v);
}

/* Asks LAPACK for the op's workspace (j->lwork, lrwork, liwork); -1 in one of them when a size
 * does not fit LAPACK's integers. */
static void query_workspace(job *j) {
  const dlx_linalg_request *r = j->r;
  dlx_dtype t = r->dtype, real = dlx_linalg_real_dtype(t);
  double work[2] = {0, 0}, rwork[2] = {0, 0}, a[2] = {0, 0};
  dlx_li iwork[2] = {0, 0}, m = j->m, n = j->n, mn = j->mn, ipiv[1] = {1}, rank;
  bool vectors = (r->flags & DLX_LINALG_VECTORS) != 0, full = (r->flags & DLX_LINALG_FULL) != 0;
  j->lwork = j->lrwork = j->liwork = 0;
  switch (r->op) {
  case DLX_LINALG_INV:
    dlx_lp_getri(t, n, a, ipiv, work, -1);
    j->lwork = size_from(work, real);
    break;
  case DLX_LINALG_QR: {
    dlx_li second;
    dlx_lp_geqrf(t, m, n, a, a, work, -1);
    j->lwork = size_from(work, real);
    dlx_lp_orgqr(t, m, full ? m : mn, mn, a, a, work, -1);
    second = size_from(work, real);
    if (second > j->lwork || second < 0) j->lwork = second;
    break;
  }
  case DLX_LINALG_SVD: {
    char jobz = vectors ? (full ? 'A' : 'S') : 'N';
    int64_t big = m > n ? m : n;
    int64_t lr = vectors
                     ? mn * (5 * mn + 7 > 2 * big + 2 * mn + 1 ? 5 * mn + 7 : 2 * big + 2 * mn + 1)
                     : 7 * (int64_t)mn;
    dlx_lp_gesdd(t, jobz, m, n, a, a, a, vectors ? m : 1, a, vectors ? (full ? n : mn) : 1, work,
                 -1, rwork, iwork);
    j->lwork = size_from(work, real);
    j->lrwork = is_complex(t) ? (lr > 2147483647 ? -1 : (dlx_li)lr) : 0;
    j->liwork = 8 * mn;
    break;
  }
  case DLX_LINALG_EIGH:
    dlx_lp_syevd(t, vectors ? 'V' : 'N', 'L', n, a, a, work, -1, rwork, -1, iwork, -1);
    j->lwork = size_from(work, real);
    j->lrwork = is_complex(t) ? size_from(rwork, real) : 0;
    j->liwork = iwork[0];
    break;
  case DLX_LINALG_EIG:
    dlx_lp_geev(t, vectors ? 'V' : 'N', n, a, a, a, a, work, -1, rwork);
    j->lwork = size_from(work, real);
    j->lrwork = is_complex(t) ? 2 * n : 0;
    break;
  case DLX_LINALG_LSTSQ:
    dlx_lp_gelsd(t, m, n, j->k, a, a, m > n ? m : n, a, r->rcond, &rank, work, -1, rwork, iwork);
    j->lwork = size_from(work, real);
    j->lrwork = is_complex(t) ? size_from(rwork, real) : 0;
    j->liwork = iwork[0];
    break;
  default:
    break;
  }
}

/* Bytes of the op's own scratch a matrix: pivots, tau, a real geev's values and vectors. */
static size_t extra_bytes(const job *j) {
  size_t n = (size_t)j->n, li = sizeof(dlx_li);
  switch (j->r->op) {
  case DLX_LINALG_LU:
    return ((size_t)j->mn + (size_t)j->m) * li;
  case DLX_LINALG_LU_SOLVE:
  case DLX_LINALG_SOLVE:
  case DLX_LINALG_INV:
  case DLX_LINALG_DET:
    return n * li;
  case DLX_LINALG_QR:
    return (size_t)j->mn * j->item;
  case DLX_LINALG_EIG:
    return is_complex(j->r->dtype) ? 0 : (2 * n + n * n) * j->ritem;
  default:
    return 0;
  }
}

static size_t round_up(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/* Carves a block's workspace from one allocation. */
static void lay_out(const job *j, char *base, space *s) {
  s->work = base;
  base += round_up((size_t)j->lwork * j->item);
  s->rwork = base;
  base += round_up((size_t)j->lrwork * j->ritem);
  s->iwork = (dlx_li *)(void *)base;
  base += round_up((size_t)j->liwork * sizeof(dlx_li));
  s->extra = base;
}

/* ---- the batch */

static void run_block(void *ctx, int64_t begin, int64_t end) {
  job *j = ctx;
  op_fn fn = op_of(j->r->op);
  char *base = malloc(j->scratch);
  space s;
  if (base == NULL) {
    atomic_store(&j->out_of_memory, true);
    return;
  }
  lay_out(j, base, &s);
  for (int64_t i = begin; i < end; i++) j->info[i] = (int32_t)fn(j, i, &s);
  free(base);
}

/* Reads the matrices' infos: the first failure into r, or an error of the entry. */
static int collect(job *j, dlx_error *err) {
  dlx_linalg_request *r = j->r;
  for (int64_t i = 0; i < r->batch; i++) {
    int32_t info = j->info[i];
    if (info == 0) continue;
    if (info == BAD_PIVOT)
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "%s: the pivots of batch element %lld are not all in 1..%d (give the "
                      "pivots linalg.lu_factor made)",
                      r->name, (long long)i + 1, (int)j->n);
    if (info < 0)
      return dlx_fail(err, DLX_DEVICE_ERROR, "%s: LAPACK refused its argument %d", r->name,
                      (int)-info);
    r->bad_batch = i;
    r->bad_info = info;
    return 0;
  }
  return 0;
}

static bool fits(int64_t v) { return v >= 0 && v <= 2147483647; }

int dlx_cpu_linalg(dlx_linalg_request *r, dlx_error *err) {
  job j;
  int64_t cost, big;
  int rc;
  if (!fits(r->m) || !fits(r->n) || !fits(r->k) || !fits(r->m * r->n))
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: matrices of %lld x %lld are too large for LAPACK",
                    r->name, (long long)r->m, (long long)r->n);
  memset(&j, 0, sizeof j);
  j.r = r;
  j.item = item_of(r->dtype);
  j.ritem = item_of(dlx_linalg_real_dtype(r->dtype));
  j.m = (dlx_li)r->m, j.n = (dlx_li)r->n, j.k = (dlx_li)r->k;
  j.mn = j.m < j.n ? j.m : j.n;
  query_workspace(&j);
  if (j.lwork < 0 || j.lrwork < 0 || j.liwork < 0)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "%s: the workspace of %lld x %lld matrices is too "
                    "large for LAPACK",
                    r->name, (long long)r->m, (long long)r->n);
  j.scratch = round_up((size_t)j.lwork * j.item) + round_up((size_t)j.lrwork * j.ritem) +
              round_up((size_t)j.liwork * sizeof(dlx_li)) + extra_bytes(&j) + 64;
  j.info = calloc((size_t)r->batch, sizeof *j.info);
  if (j.info == NULL) return dlx_fail(err, DLX_MEMORY_ERROR, "%s: out of memory", r->name);
  atomic_init(&j.out_of_memory, false);
  big = r->m > r->n ? r->m : r->n;
  cost = r->m * r->n * (r->m < r->n ? r->m : r->n) + r->n * r->n * r->k;
  if (big <= SMALL && r->k <= SMALL && r->batch > 1) { /* each matrix on one thread */
    dlx_cpu_blas_use_threads(1);
    dlx_cpu_parallel_for(r->batch, 1 + 100000 / (cost + 1000), run_block, &j);
  } else { /* one matrix after the other, each on OpenBLAS's threads */
    dlx_cpu_blas_use_threads(dlx_cpu_num_threads());
    run_block(&j, 0, r->batch);
  }
  if (atomic_load(&j.out_of_memory))
    rc = dlx_fail(err, DLX_MEMORY_ERROR, "%s: cannot allocate a workspace of %zu bytes", r->name,
                  j.scratch);
  else
    rc = collect(&j, err);
  free(j.info);
  return rc;
}
