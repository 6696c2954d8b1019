/* cuda_linalg_rules.c -- the CUDA backend's decompositions (src/cuda/linalg_plan.h: the solver
 * calls and dlx's own ops around them) run on the CPU, without a GPU: the solver is LAPACK
 * through LAPACKE (but getrf of small real matrices is the CPU backend's own getf2, as its entry
 * calls it), called as the plan calls cuSOLVER (getrf, getrs, potrf, geqrf, orgqr/ungqr, gesvd,
 * syevd/heevd, trtrs standing for trsm), with every matrix's leading dim and size checked
 * against its view. Each dlx.linalg function runs twice through the core, once with the CPU
 * backend's linalg entry and once with the plan, over random batches, sizes, dtypes, singular,
 * non positive definite, non-finite matrices and bad pivots; results must agree (within a
 * tolerance: gesvd is not the CPU's gesdd, and the batches go to LAPACK in other orders), errors
 * must be the same class and message. SVDs are compared by their singular values and by how well
 * U diag(S) V^H rebuilds A and U's columns are orthonormal. */
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
#include "cuda/linalg_plan.h"

static dlx_backend rules_backend;
static char case_name[200];
static int solver_calls;

/* ---- the solver: LAPACK on the CPU */

static void *first(const dlx_tensor *t) {
  return (char *)t->buffer->data + t->offset * (dlx_dtype_bits(t->dtype) / 8);
}
static size_t item(const dlx_tensor *t) { return (size_t)dlx_dtype_bits(t->dtype) / 8; }
/* Matrix i of a 3-d view (or vector i of a 2-d one). */
static void *nth(const dlx_tensor *t, int64_t i) {
  return (char *)first(t) + (size_t)(i * t->strides[0]) * item(t);
}

/* What the plan promises the solver: 3-d column-major views whose leading dim is their rows. */
static bool good_mats(const dlx_tensor *t) {
  return t != NULL && t->ndim == 3 && t->strides[1] == 1 && t->strides[2] == t->shape[1] &&
         t->strides[0] >= t->shape[1] * t->shape[2];
}

#define BY_TYPE(t, s, d, c, z)                                                                     \
  ((t) == DLX_FLOAT32 ? (s) : (t) == DLX_FLOAT64 ? (d) : (t) == DLX_COMPLEX64 ? (c) : (z))

static int lapack_failed(const char *what, lapack_int info, dlx_error *err) {
  return dlx_fail(err, DLX_DEVICE_ERROR, "%s refused argument %d", what, (int)-info);
}

static int h_getrf(void *ctx, const dlx_tensor *a, const dlx_tensor *ipiv, int32_t *info,
                   dlx_error *err) {
  int m = (int)a->shape[1], n = (int)a->shape[2], mn = m < n ? m : n;
  lapack_int piv[64];
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && ipiv->ndim == 2 && ipiv->shape[1] == mn && ipiv->dtype == DLX_INT64);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i);
    dlx_dtype t = a->dtype;
    bool small = m <= DLX_CPU_LU_SMALL && n <= DLX_CPU_LU_SMALL;
    lapack_int r;
    /* A small real matrix: the CPU's own getf2 (src/cpu/lu_small.c), which its entry calls in
     * LAPACK's place. Whether a matrix singular in exact arithmetic (a SINGULAR case) gets an
     * exactly zero pivot depends on the order of the operations, so both sides use one. */
    if (small && t == DLX_FLOAT32)
      r = dlx_cpu_getrf_small_f32(p, m, n, piv);
    else if (small && t == DLX_FLOAT64)
      r = dlx_cpu_getrf_small_f64(p, m, n, piv);
    else
      r = BY_TYPE(t, LAPACKE_sgetrf(LAPACK_COL_MAJOR, m, n, p, m, piv),
                  LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, n, p, m, piv),
                  LAPACKE_cgetrf(LAPACK_COL_MAJOR, m, n, p, m, piv),
                  LAPACKE_zgetrf(LAPACK_COL_MAJOR, m, n, p, m, piv));
    if (r < 0) return lapack_failed("getrf", r, err);
    if (info != NULL) info[i] = r;
    for (int q = 0; q < mn; q++) ((int64_t *)nth(ipiv, i))[q] = piv[q];
  }
  return 0;
}

static int h_getrs(void *ctx, const dlx_tensor *a, const dlx_tensor *ipiv, const dlx_tensor *b,
                   dlx_error *err) {
  int n = (int)a->shape[1], k = (int)b->shape[2];
  lapack_int piv[64];
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && good_mats(b) && a->shape[2] == n && b->shape[1] == n);
  CHECK(a->shape[0] == b->shape[0] && ipiv->shape[0] == a->shape[0]);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i), *x = nth(b, i);
    dlx_dtype t = a->dtype;
    for (int q = 0; q < n; q++) piv[q] = (lapack_int)((const int64_t *)nth(ipiv, i))[q];
    lapack_int r = BY_TYPE(t, LAPACKE_sgetrs(LAPACK_COL_MAJOR, 'N', n, k, p, n, piv, x, n),
                           LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, k, p, n, piv, x, n),
                           LAPACKE_cgetrs(LAPACK_COL_MAJOR, 'N', n, k, p, n, piv, x, n),
                           LAPACKE_zgetrs(LAPACK_COL_MAJOR, 'N', n, k, p, n, piv, x, n));
    if (r < 0) return lapack_failed("getrs", r, err);
  }
  return 0;
}

static int h_potrf(void *ctx, bool upper, const dlx_tensor *a, int32_t *info, dlx_error *err) {
  int n = (int)a->shape[1];
  char uplo = upper ? 'U' : 'L';
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && a->shape[2] == n && info != NULL);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i);
    dlx_dtype t = a->dtype;
    lapack_int r = BY_TYPE(t, LAPACKE_spotrf(LAPACK_COL_MAJOR, uplo, n, p, n),
                           LAPACKE_dpotrf(LAPACK_COL_MAJOR, uplo, n, p, n),
                           LAPACKE_cpotrf(LAPACK_COL_MAJOR, uplo, n, p, n),
                           LAPACKE_zpotrf(LAPACK_COL_MAJOR, uplo, n, p, n));
    if (r < 0) return lapack_failed("potrf", r, err);
    info[i] = r;
  }
  return 0;
}

static int h_geqrf(void *ctx, const dlx_tensor *a, const dlx_tensor *tau, dlx_error *err) {
  int m = (int)a->shape[1], n = (int)a->shape[2];
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && tau->ndim == 2 && tau->shape[1] == (m < n ? m : n));
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i), *t = nth(tau, i);
    dlx_dtype d = a->dtype;
    lapack_int r = BY_TYPE(d, LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, p, m, t),
                           LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, p, m, t),
                           LAPACKE_cgeqrf(LAPACK_COL_MAJOR, m, n, p, m, t),
                           LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, p, m, t));
    if (r < 0) return lapack_failed("geqrf", r, err);
  }
  return 0;
}

static int h_orgqr(void *ctx, int64_t k, const dlx_tensor *q, const dlx_tensor *tau,
                   dlx_error *err) {
  int m = (int)q->shape[1], cols = (int)q->shape[2];
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(q) && k <= cols && cols <= m && tau->shape[1] >= k);
  for (int64_t i = 0; i < q->shape[0]; i++) {
    void *p = nth(q, i), *t = nth(tau, i);
    dlx_dtype d = q->dtype;
    int kk = (int)k;
    lapack_int r = BY_TYPE(d, LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, cols, kk, p, m, t),
                           LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, cols, kk, p, m, t),
                           LAPACKE_cungqr(LAPACK_COL_MAJOR, m, cols, kk, p, m, t),
                           LAPACKE_zungqr(LAPACK_COL_MAJOR, m, cols, kk, p, m, t));
    if (r < 0) return lapack_failed("orgqr", r, err);
  }
  return 0;
}

static int h_gesvd(void *ctx, char job, const dlx_tensor *a, const dlx_tensor *s,
                   const dlx_tensor *u, const dlx_tensor *vt, int32_t *info, dlx_error *err) {
  int m = (int)a->shape[1], n = (int)a->shape[2];
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
    int ldu = job == 'N' ? 1 : m, ldv = job == 'N' ? 1 : n;
    dlx_dtype d = a->dtype;
    lapack_int r = BY_TYPE(
        d,
        LAPACKE_sgesvd(LAPACK_COL_MAJOR, job, job, m, n, p, m, sv, pu, ldu, pv, ldv,
                       (void *)superb),
        LAPACKE_dgesvd(LAPACK_COL_MAJOR, job, job, m, n, p, m, sv, pu, ldu, pv, ldv, superb),
        LAPACKE_cgesvd(LAPACK_COL_MAJOR, job, job, m, n, p, m, sv, pu, ldu, pv, ldv,
                       (void *)superb),
        LAPACKE_zgesvd(LAPACK_COL_MAJOR, job, job, m, n, p, m, sv, pu, ldu, pv, ldv, superb));
    if (r < 0) return lapack_failed("gesvd", r, err);
    info[i] = r;
  }
  return 0;
}

static int h_syevd(void *ctx, bool vectors, bool upper, const dlx_tensor *a, const dlx_tensor *w,
                   int32_t *info, dlx_error *err) {
  int n = (int)a->shape[1];
  char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && a->shape[2] == n && w->shape[1] == n && info != NULL);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i), *ev = nth(w, i);
    dlx_dtype d = a->dtype;
    lapack_int r = BY_TYPE(d, LAPACKE_ssyevd(LAPACK_COL_MAJOR, jobz, uplo, n, p, n, ev),
                           LAPACKE_dsyevd(LAPACK_COL_MAJOR, jobz, uplo, n, p, n, ev),
                           LAPACKE_cheevd(LAPACK_COL_MAJOR, jobz, uplo, n, p, n, ev),
                           LAPACKE_zheevd(LAPACK_COL_MAJOR, jobz, uplo, n, p, n, ev));
    if (r < 0) return lapack_failed("syevd", r, err);
    info[i] = r;
  }
  return 0;
}

static int h_trsm(void *ctx, bool upper, bool unit, const dlx_tensor *a, const dlx_tensor *b,
                  dlx_error *err) {
  int n = (int)a->shape[1], k = (int)b->shape[2];
  char uplo = upper ? 'U' : 'L', diag = unit ? 'U' : 'N';
  (void)ctx;
  solver_calls++;
  CHECK(good_mats(a) && good_mats(b) && b->shape[1] == n && a->shape[0] == b->shape[0]);
  for (int64_t i = 0; i < a->shape[0]; i++) {
    void *p = nth(a, i), *x = nth(b, i);
    dlx_dtype d = a->dtype;
    lapack_int r = BY_TYPE(d, LAPACKE_strtrs(LAPACK_COL_MAJOR, uplo, 'N', diag, n, k, p, n, x, n),
                           LAPACKE_dtrtrs(LAPACK_COL_MAJOR, uplo, 'N', diag, n, k, p, n, x, n),
                           LAPACKE_ctrtrs(LAPACK_COL_MAJOR, uplo, 'N', diag, n, k, p, n, x, n),
                           LAPACKE_ztrtrs(LAPACK_COL_MAJOR, uplo, 'N', diag, n, k, p, n, x, n));
    if (r < 0) return lapack_failed("trsm", r, err);
    CHECK(r == 0); /* the plan checked the diagonal first */
  }
  return 0;
}

static const dlx_cuda_solver host_solver = {NULL,    h_getrf, h_getrs, h_potrf, h_geqrf,
                                            h_orgqr, h_gesvd, h_syevd, h_trsm};

static int rules_linalg(dlx_linalg_request *r, dlx_error *err) {
  if (r->op == DLX_LINALG_EIG || r->op == DLX_LINALG_LSTSQ) return dlx_cpu_backend.linalg(r, err);
  return dlx_cuda_linalg_run(r, &host_solver, err);
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

static void one_case(int iteration) {
  dlx_dtype d = dtypes[below(4)];
  int64_t batch[2] = {1 + below(3), 1 + below(2)};
  int32_t nb = (int32_t)below(3);
  int64_t n = 1 + below(6), m = 1 + below(6), k = 1 + below(3);
  int op = (int)below(13);
  dlx_tensor a[2], b[2], o[2][3];
  dlx_error e[2];
  int rc[2];
  enum kind kind = DOMINANT;
  static const char *const names[] = {
      "solve", "inv",       "det", "slogdet",  "cholesky",         "qr",     "svd",
      "eigh",  "lu_factor", "lu",  "lu_solve", "solve_triangular", "svdvals"};
  int pick = (int)below(10);
  if (pick == 0) kind = SINGULAR;
  if (pick == 1) kind = NONFINITE;
  if (pick == 2) kind = GENERAL;
  if (op == 4 && pick > 2) kind = below(4) ? SPD : GENERAL; /* cholesky: often positive definite */
  if (op == 7 && pick > 1) kind = HERMITIAN;
  bool square = op != 5 && op != 6 && op != 9 && op != 12 && op != 8;
  if (square) m = n;
  make(&a[0], d, batch, nb, m, n, kind);
  twin(&a[1], &a[0]);
  bool left = below(3) != 0; /* solve_triangular: X A = B with left false, B then k x n */
  if (op == 11 && !left)
    make(&b[0], d, batch, nb, k, n, GENERAL);
  else
    make(&b[0], d, batch, nb, n, k, GENERAL);
  twin(&b[1], &b[0]);
  bool flag = below(2) == 0, flag2 = below(2) == 0;
  snprintf(case_name, sizeof case_name, "case %d: %s, %s, %d batch dims, %lld x %lld, kind %d%s%s",
           iteration, names[op], dlx_dtype_info_of(d)->name, (int)nb, (long long)m, (long long)n,
           (int)kind, flag ? ", flag" : "", left ? "" : ", right");
  memset(o, 0, sizeof o);
  for (int w = 0; w < 2; w++) {
    switch (op) {
    case 0:
      rc[w] = dlx_linalg_solve(&o[w][0], &a[w], &b[w], &e[w]);
      break;
    case 1:
      rc[w] = dlx_linalg_inv(&o[w][0], &a[w], &e[w]);
      break;
    case 2:
      rc[w] = dlx_linalg_det(&o[w][0], &a[w], &e[w]);
      break;
    case 3:
      rc[w] = dlx_linalg_slogdet(&o[w][0], &o[w][1], &a[w], &e[w]);
      break;
    case 4:
      rc[w] = dlx_linalg_cholesky(&o[w][0], &a[w], flag, &e[w]);
      break;
    case 5:
      rc[w] = dlx_linalg_qr(&o[w][0], &o[w][1], &a[w],
                            flag    ? DLX_QR_COMPLETE
                            : flag2 ? DLX_QR_R
                                    : DLX_QR_REDUCED,
                            &e[w]);
      break;
    case 6:
      rc[w] = dlx_linalg_svd(&o[w][0], &o[w][1], &o[w][2], &a[w], flag, &e[w]);
      break;
    case 12:
      rc[w] = dlx_linalg_svd(NULL, &o[w][1], NULL, &a[w], false, &e[w]);
      break;
    case 7:
      rc[w] = dlx_linalg_eigh(&o[w][0], flag2 ? &o[w][1] : NULL, &a[w], flag, &e[w]);
      break;
    case 8:
      rc[w] = dlx_linalg_lu_factor(&o[w][0], &o[w][1], &a[w], &e[w]);
      break;
    case 9:
      rc[w] = dlx_linalg_lu(&o[w][0], &o[w][1], &o[w][2], &a[w], &e[w]);
      break;
    case 10: { /* lu_solve with the CPU's factors, pivots made bad now and then */
      dlx_tensor lu, piv, lut, pivt;
      CHECK(dlx_linalg_lu_factor(&lu, &piv, &a[0], NULL) == 0);
      if (flag && flag2 && dlx_tensor_numel(&piv) > 0) ((int64_t *)piv.buffer->data)[0] = n + 1;
      twin(&lut, &lu);
      twin(&pivt, &piv);
      rc[w] =
          dlx_linalg_lu_solve(&o[w][0], w == 0 ? &lu : &lut, w == 0 ? &piv : &pivt, &b[w], &e[w]);
      dlx_tensor_close(&lu);
      dlx_tensor_close(&piv);
      dlx_tensor_close(&lut);
      dlx_tensor_close(&pivt);
      break;
    }
    default: /* solve_triangular: a's lower or upper triangle, sometimes with a zero pivot */
      rc[w] = dlx_linalg_solve_triangular(&o[w][0], &a[w], &b[w], flag, left, flag2, &e[w]);
      break;
    }
  }
  /* singular and non-finite matrices: the same outcome, but the values of the direct methods
   * need not agree (rounding amplified, infinities through other operations) */
  bool compare = (kind != SINGULAR && kind != NONFINITE) || op == 6 || op == 7 || op == 12;
  if (same_outcome(rc[0], &e[0], rc[1], &e[1]) && compare) {
    if (op == 6) {
      close_enough("S", &o[0][1], &o[1][1], d);
      dlx_tensor a64;
      CHECK(dlx_clone_as(&a64, &a[0], d, (DLDevice){kDLCPU, 0}, NULL) == 0);
      bool finite = kind != NONFINITE;
      if (finite) check_svd(&o[1][0], &o[1][1], &o[1][2], &a64, d);
      dlx_tensor_close(&a64);
    } else if (op == 7 && flag2) { /* eigenvectors: up to a sign or phase per column */
      close_enough("w", &o[0][0], &o[1][0], d);
    } else {
      for (int i = 0; i < 3; i++)
        if (o[0][i].buffer != NULL && dlx_tensor_numel(&o[0][i]) > 0)
          close_enough(i == 0   ? "the first result"
                       : i == 1 ? "the second"
                                : "the third",
                       &o[0][i], &o[1][i], d);
    }
  }
  for (int w = 0; w < 2; w++) {
    dlx_tensor_close(&a[w]);
    dlx_tensor_close(&b[w]);
    for (int i = 0; i < 3; i++)
      if (o[w][i].buffer != NULL) dlx_tensor_close(&o[w][i]);
  }
}

int main(void) {
  LAPACKE_set_nancheck(0);
  rules_backend = dlx_cpu_backend;
  rules_backend.linalg = rules_linalg;
  for (int i = 0; i < 2500; i++) one_case(i);
  printf("cuda_linalg_rules: %d solver calls\n", solver_calls);
  CHECK(solver_calls > 1000);
  return check_report("cuda_linalg_rules");
}
