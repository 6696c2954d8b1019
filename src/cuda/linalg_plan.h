/* linalg_plan.h -- the decompositions of a dlx_linalg_request (src/core/backend.h) as calls of a
 * dense solver (dlx_cuda_solver: LAPACK's getrf, getrs, potrf, geqrf, orgqr, ormqr, gesvd,
 * syevd, geev and BLAS's trsm over a batch of matrices, and cuBLAS's batched LU routines for
 * many small matrices) and of dlx's own ops for the rest: the triangles of R, L and U and the
 * zeroed half of a Cholesky factor (a mask and `where`), P (a comparison of row numbers with the
 * permutation), the identity that inv solves for, the conjugate transposes of an SVD of a wide
 * matrix and of lstsq's wide A, the finite checks before the iterative solvers (isfinite and
 * `all`), NaN written into the results of a non-finite matrix, the complex eigenvectors of a
 * real matrix out of geev's packed pairs (index_select), lstsq's residuals (a sum of squares).
 * A few small things are read on the host: the infos, the pivots, U's and R's diagonals (det,
 * the zero-pivot and rank checks), Cholesky's diagonal (NaN), the finite flags, the imaginary
 * parts of a real matrix's eigenvalues (which columns pair up). The CUDA backend runs it with
 * cuSOLVER and cuBLAS (solver.c); tests/c/cuda_linalg_rules.c runs it with LAPACK on the CPU
 * against the CPU backend, so that every step but the library calls themselves is checked
 * without a GPU.
 *
 * The solver sees 3-d column-major views: [count, rows, cols] with strides [per matrix, 1, ld],
 * ld >= rows (a view of the top rows of a taller matrix has the taller one's ld); ipiv and tau
 * are [count, min(rows, cols)] (int64 pivots, 1-based as LAPACK's; int32 for the batched
 * routines), s and w [count, len] of the real dtype. Its info arrays (host, count entries) get
 * each matrix's info (> 0: the matrix failed, as LAPACK says). No call has an empty operand:
 * count, rows and cols are at least 1 (the core answers empty matrices and batches itself, and
 * the plan skips getrs and trsm when there are no right-hand sides, k = 0, after the checks that
 * make a singular matrix fail as on the CPU), since cuSOLVER and cuBLAS do not document that
 * they take a dimension of 0 or a NULL array. */
#ifndef DLX_CUDA_LINALG_PLAN_H
#define DLX_CUDA_LINALG_PLAN_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/elementwise.h"
#include "core/error.h"
#include "core/linalg.h"
#include "core/linalg_decomp.h"
#include "core/ops.h"
#include "core/tensor.h"

typedef struct dlx_cuda_solver {
  void *ctx;
  /* a (m x n) -> its LU factors, ipiv; info (> 0: U(info, info) is exactly zero) */
  int (*getrf)(void *ctx, const dlx_tensor *a, const dlx_tensor *ipiv, int32_t *info,
               dlx_error *err);
  /* a (n x n, getrf's factors), ipiv; b (n x k) -> X, A X = B */
  int (*getrs)(void *ctx, const dlx_tensor *a, const dlx_tensor *ipiv, const dlx_tensor *b,
               dlx_error *err);
  /* a (n x n) -> its Cholesky factor in the triangle read (the other left as it was); info */
  int (*potrf)(void *ctx, bool upper, const dlx_tensor *a, int32_t *info, dlx_error *err);
  /* a (m x n) -> R above the diagonal and the reflectors below; tau */
  int (*geqrf)(void *ctx, const dlx_tensor *a, const dlx_tensor *tau, dlx_error *err);
  /* q (m x cols) holding geqrf's first k reflectors in its first k columns -> the m x cols Q */
  int (*orgqr)(void *ctx, int64_t k, const dlx_tensor *q, const dlx_tensor *tau, dlx_error *err);
  /* q (m x k): geqrf's k reflectors, tau; c (m x cols) -> Q^H C (adjoint) or Q C, Q the m x m
   * product of the reflectors */
  int (*ormqr)(void *ctx, bool adjoint, const dlx_tensor *q, const dlx_tensor *tau,
               const dlx_tensor *c, dlx_error *err);
  /* a (m x n, m >= n, overwritten) -> s; job 'A' (u m x m, vt n x n), 'S' (u m x n, vt n x n)
   * or 'N' (u, vt NULL); info (> 0: no convergence) */
  int (*gesvd)(void *ctx, char job, const dlx_tensor *a, const dlx_tensor *s, const dlx_tensor *u,
               const dlx_tensor *vt, int32_t *info, dlx_error *err);
  /* a (n x n) Hermitian, the lower (upper) triangle read -> w ascending, and the eigenvectors
   * in a with vectors; info (> 0: no convergence) */
  int (*syevd)(void *ctx, bool vectors, bool upper, const dlx_tensor *a, const dlx_tensor *w,
               int32_t *info, dlx_error *err);
  /* a (n x n, overwritten) -> w and, unless v is NULL, the right eigenvectors in v (n x n, each
   * of 2-norm 1 with its largest component real), as LAPACK's geev. A real a: w real [count,
   * 2n], the real parts then the imaginary ones, and a conjugate pair (the one with the positive
   * imaginary part first) as the real and imaginary parts of its first vector in two columns of
   * v; a complex one: w [count, n]. info (> 0: no convergence). NULL: the library has none. */
  int (*geev)(void *ctx, const dlx_tensor *a, const dlx_tensor *w, const dlx_tensor *v,
              int32_t *info, dlx_error *err);
  /* a (n x n) triangular, b (n x k) -> X in b, A X = B, or A^H X = B with adjoint (no check of
   * the diagonal) */
  int (*trsm)(void *ctx, bool upper, bool adjoint, bool unit, const dlx_tensor *a,
              const dlx_tensor *b, dlx_error *err);
  /* The batched routines for many small square matrices (NULL: not there), one call for the
   * batch, int32 pivots [count, n]: getrf of a (n x n) with info as getrf's; getrs with its
   * factors; the inverse of a (n < DLX_CUDA_LP_MATINV) into out (n x n), a left as it was, info
   * as getrf's. */
  int (*getrf_batched)(void *ctx, const dlx_tensor *a, const dlx_tensor *ipiv, int32_t *info,
                       dlx_error *err);
  int (*getrs_batched)(void *ctx, const dlx_tensor *a, const dlx_tensor *ipiv, const dlx_tensor *b,
                       dlx_error *err);
  int (*matinv_batched)(void *ctx, const dlx_tensor *a, const dlx_tensor *out, int32_t *info,
                        dlx_error *err);
} dlx_cuda_solver;

/* ---- views */

/* A borrowed 3-d view [count, rows, cols] of the first rows x cols of each matrix of t (a
 * request's batch of column-major matrices, each of ld rows): no reference is taken, and it is
 * never closed. */
static inline dlx_tensor dlx_cuda_lp_mats(const dlx_tensor *t, int64_t count, int64_t rows,
                                          int64_t cols) {
  dlx_tensor v;
  int64_t ld = t->shape[t->ndim - 2], per = ld * t->shape[t->ndim - 1];
  memset(&v, 0, sizeof v);
  v.buffer = t->buffer;
  v.dtype = t->dtype;
  v.ndim = 3;
  v.offset = t->offset;
  v.shape[0] = count;
  v.shape[1] = rows;
  v.shape[2] = cols;
  v.strides[0] = per;
  v.strides[1] = 1;
  v.strides[2] = ld;
  return v;
}

/* A borrowed 2-d view [count, len] of a request's vector tensor (C-contiguous). */
static inline dlx_tensor dlx_cuda_lp_vecs(const dlx_tensor *t, int64_t count) {
  dlx_tensor v;
  int64_t len = t->ndim > 0 ? t->shape[t->ndim - 1] : 1;
  memset(&v, 0, sizeof v);
  v.buffer = t->buffer;
  v.dtype = t->dtype;
  v.ndim = 2;
  v.offset = t->offset;
  v.shape[0] = count;
  v.shape[1] = len;
  v.strides[0] = len;
  v.strides[1] = 1;
  return v;
}

/* A fresh batch of column-major matrices [count, rows, cols] (strides [rows * cols, 1, rows])
 * of dtype on the device of like. */
static inline int dlx_cuda_lp_new_mats(dlx_tensor *out, const dlx_tensor *like, dlx_dtype dtype,
                                       int64_t count, int64_t rows, int64_t cols, dlx_error *err) {
  int64_t shape[3] = {count, cols, rows};
  int rc = dlx_tensor_empty(out, shape, 3, dtype, dlx_tensor_device(like), err);
  if (rc != 0) return rc;
  out->shape[1] = rows;
  out->shape[2] = cols;
  out->strides[1] = 1;
  out->strides[2] = rows;
  return 0;
}

static inline bool dlx_cuda_lp_complex(dlx_dtype t) {
  return t == DLX_COMPLEX64 || t == DLX_COMPLEX128;
}

/* ---- masks and small host tensors */

/* 0 .. n - 1 (int64) on like's device, as a column [n, 1] or a row [1, n]. */
static inline int dlx_cuda_lp_numbers(dlx_tensor *out, const dlx_tensor *like, int64_t n,
                                      bool column, int64_t first, dlx_error *err) {
  int64_t shape[2] = {column ? n : 1, column ? 1 : n};
  dlx_tensor host;
  int rc = dlx_tensor_empty(&host, shape, 2, DLX_INT64, (DLDevice){kDLCPU, 0}, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < n; i++) ((int64_t *)host.buffer->data)[i] = first + i;
  rc = dlx_clone_as(out, &host, DLX_INT64, dlx_tensor_device(like), err);
  dlx_tensor_close(&host);
  return rc;
}

/* The bool [rows, cols] mask of (row op col) on like's device: DLX_EW_GT the strictly lower
 * triangle, GE the lower, LT the strictly upper, LE the upper. */
static inline int dlx_cuda_lp_mask(dlx_tensor *mask, const dlx_tensor *like, int64_t rows,
                                   int64_t cols, dlx_ew_op op, dlx_error *err) {
  dlx_tensor r, c;
  dlx_operand a, b;
  int rc = dlx_cuda_lp_numbers(&r, like, rows, true, 0, err);
  if (rc != 0) return rc;
  rc = dlx_cuda_lp_numbers(&c, like, cols, false, 0, err);
  if (rc == 0) {
    a.tensor = &r;
    b.tensor = &c;
    rc = dlx_elementwise(op, &a, &b, NULL, mask, err);
    dlx_tensor_close(&c);
  }
  dlx_tensor_close(&r);
  return rc;
}

/* dst = src where the mask ([rows, cols], broadcast over the batch) is true, else 0. dst may be
 * src itself. */
static inline int dlx_cuda_lp_keep(const dlx_tensor *dst, const dlx_tensor *src, dlx_ew_op op,
                                   dlx_error *err) {
  dlx_tensor mask;
  dlx_operand in[3];
  int rc = dlx_cuda_lp_mask(&mask, dst, dst->shape[1], dst->shape[2], op, err);
  if (rc != 0) return rc;
  memset(in, 0, sizeof in);
  in[0].tensor = &mask;
  in[1].tensor = src;
  in[2].scalar.kind = DLX_KIND_INT;
  rc = dlx_elementwise_n(DLX_EW_WHERE, in, dst, NULL, err);
  dlx_tensor_close(&mask);
  return rc;
}

static inline int dlx_cuda_lp_fill(const dlx_tensor *t, double value, dlx_error *err) {
  dlx_scalar s;
  memset(&s, 0, sizeof s);
  if (dlx_cuda_lp_complex(t->dtype)) {
    s.kind = DLX_KIND_COMPLEX;
    s.v.c[0] = value;
    s.v.c[1] = value != value ? value : 0; /* NaN fills both parts, as the CPU does */
  } else {
    s.kind = DLX_KIND_FLOAT;
    s.v.f = value;
  }
  return dlx_fill(t, &s, err);
}

/* The diagonal of every matrix of a 3-d view, set to value (offset: above the main one). */
static inline int dlx_cuda_lp_fill_diagonal(const dlx_tensor *t, int64_t offset, double value,
                                            dlx_error *err) {
  dlx_tensor d;
  int rc = dlx_diagonal(&d, t, offset, 1, 2, err);
  if (rc != 0) return rc;
  if (d.shape[1] > 0) rc = dlx_cuda_lp_fill(&d, value, err);
  dlx_tensor_close(&d);
  return rc;
}

/* Fills matrix (or vector) i of a view with value. */
static inline int dlx_cuda_lp_fill_one(const dlx_tensor *t, int64_t i, double value,
                                       dlx_error *err) {
  dlx_tensor one;
  int rc = dlx_select(&one, t, 0, i, err);
  if (rc != 0) return rc;
  rc = dlx_cuda_lp_fill(&one, value, err);
  dlx_tensor_close(&one);
  return rc;
}

/* A copy of t on the host, C-contiguous. */
static inline int dlx_cuda_lp_to_host(dlx_tensor *out, const dlx_tensor *t, dlx_error *err) {
  return dlx_clone_as(out, t, t->dtype, (DLDevice){kDLCPU, 0}, err);
}

/* The diagonals of a square 3-d view, on the host as complex doubles ([count][n][2]). */
static inline int dlx_cuda_lp_diagonals(double **out, const dlx_tensor *t, dlx_error *err) {
  dlx_tensor d, host, wide;
  int rc = dlx_diagonal(&d, t, 0, 1, 2, err);
  *out = NULL;
  if (rc != 0) return rc;
  rc = dlx_clone_as(&wide, &d, DLX_COMPLEX128, dlx_tensor_device(&d), err);
  dlx_tensor_close(&d);
  if (rc != 0) return rc;
  rc = dlx_cuda_lp_to_host(&host, &wide, err);
  dlx_tensor_close(&wide);
  if (rc != 0) return rc;
  size_t bytes = (size_t)dlx_tensor_numel(&host) * 2 * sizeof(double);
  *out = malloc(bytes > 0 ? bytes : 1);
  if (*out == NULL)
    rc = dlx_fail(err, DLX_MEMORY_ERROR, "linalg: no memory for the diagonals");
  else
    memcpy(*out, host.buffer->data, bytes);
  dlx_tensor_close(&host);
  return rc;
}

/* Whether each matrix of a 3-d view is finite (the lower or upper triangle only with tri
 * DLX_EW_GE or DLX_EW_LE, every element with DLX_EW_NUM_OPS), on the host: count flags. */
static inline int dlx_cuda_lp_finite(bool **flags, const dlx_tensor *a, dlx_ew_op tri,
                                     dlx_error *err) {
  dlx_tensor part, fin, all, host;
  const dlx_tensor *src = a;
  dlx_operand in;
  int rc = 0;
  *flags = NULL;
  if (tri != DLX_EW_NUM_OPS) {
    rc = dlx_cuda_lp_new_mats(&part, a, a->dtype, a->shape[0], a->shape[1], a->shape[2], err);
    if (rc == 0) rc = dlx_cuda_lp_keep(&part, a, tri, err);
    if (rc != 0) return rc;
    src = &part;
  }
  in.tensor = src;
  rc = dlx_elementwise(DLX_EW_ISFINITE, &in, NULL, NULL, &fin, err);
  if (tri != DLX_EW_NUM_OPS) dlx_tensor_close(&part);
  if (rc != 0) return rc;
  rc = dlx_reduce(&all, DLX_REDUCE_ALL, &fin, (1u << 1) | (1u << 2), false, err);
  dlx_tensor_close(&fin);
  if (rc != 0) return rc;
  rc = dlx_cuda_lp_to_host(&host, &all, err);
  dlx_tensor_close(&all);
  if (rc != 0) return rc;
  *flags = malloc((size_t)a->shape[0] + 1);
  if (*flags == NULL)
    rc = dlx_fail(err, DLX_MEMORY_ERROR, "linalg: no memory for the flags");
  else
    memcpy(*flags, host.buffer->data, (size_t)a->shape[0]);
  dlx_tensor_close(&host);
  return rc;
}

/* dst (3-d) = the conjugate transpose of src (3-d). */
static inline int dlx_cuda_lp_adjoint(const dlx_tensor *dst, const dlx_tensor *src,
                                      dlx_error *err) {
  dlx_tensor t;
  dlx_operand in;
  int rc = dlx_transpose(&t, src, 1, 2, err);
  if (rc != 0) return rc;
  rc = dlx_copy(dst, &t, err);
  dlx_tensor_close(&t);
  if (rc != 0 || !dlx_cuda_lp_complex(dst->dtype)) return rc;
  in.tensor = dst;
  return dlx_elementwise(DLX_EW_CONJ, &in, NULL, dst, NULL, err);
}

/* ---- the ops */

/* The first matrix whose info is > 0 becomes the request's failure. */
static inline void dlx_cuda_lp_first_bad(dlx_linalg_request *r, const int32_t *info) {
  for (int64_t i = 0; i < r->batch && r->bad_batch < 0; i++)
    if (info[i] > 0) {
      r->bad_batch = i;
      r->bad_info = info[i];
    }
}

/* The first zero on each matrix's diagonal (U's, or a triangular A's): the first matrix that has
 * one fails with its 1-based place. */
static inline int dlx_cuda_lp_zero_pivot(dlx_linalg_request *r, const dlx_tensor *a,
                                         dlx_error *err) {
  double *d;
  int64_t n = a->shape[1];
  int rc = dlx_cuda_lp_diagonals(&d, a, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < r->batch && r->bad_batch < 0; i++)
    for (int64_t q = 0; q < n; q++)
      if (d[2 * (i * n + q)] == 0 && d[2 * (i * n + q) + 1] == 0) {
        r->bad_batch = i;
        r->bad_info = q + 1;
        break;
      }
  free(d);
  return 0;
}

/* A fresh int64 [count, len] on like's device. */
static inline int dlx_cuda_lp_new_ints(dlx_tensor *out, const dlx_tensor *like, int64_t count,
                                       int64_t len, dlx_dtype dtype, dlx_error *err) {
  int64_t shape[2] = {count, len};
  return dlx_tensor_empty(out, shape, 2, dtype, dlx_tensor_device(like), err);
}

static inline int32_t *dlx_cuda_lp_infos(const dlx_linalg_request *r, dlx_error *err) {
  int32_t *info = calloc((size_t)r->batch, sizeof *info);
  if (info == NULL) dlx_fail(err, DLX_MEMORY_ERROR, "%s: no memory for the infos", r->name);
  return info;
}

/* P (m x m) of the pivots: column q has its one in row perm[q], perm being the rows' order
 * after the swaps. The permutation is made on the host; P is a comparison on the device. */
static inline int dlx_cuda_lp_permutation(const dlx_linalg_request *r, const dlx_tensor *pmat,
                                          int64_t m, int64_t mn, dlx_error *err) {
  dlx_tensor piv = dlx_cuda_lp_vecs(r->ints, r->batch), host, perm, dev, rows;
  dlx_operand a, b;
  int64_t shape[3] = {r->batch, 1, m};
  int rc = dlx_cuda_lp_to_host(&host, &piv, err);
  if (rc != 0) return rc;
  rc = dlx_tensor_empty(&perm, shape, 3, DLX_INT64, (DLDevice){kDLCPU, 0}, err);
  if (rc == 0) {
    const int64_t *ipiv = host.buffer->data;
    int64_t *p = perm.buffer->data;
    for (int64_t i = 0; i < r->batch; i++, p += m, ipiv += mn) {
      for (int64_t q = 0; q < m; q++) p[q] = q;
      for (int64_t q = 0; q < mn; q++) {
        int64_t other = ipiv[q] - 1, keep = p[q];
        p[q] = p[other];
        p[other] = keep;
      }
    }
    rc = dlx_clone_as(&dev, &perm, DLX_INT64, dlx_tensor_device(pmat), err);
    dlx_tensor_close(&perm);
  }
  dlx_tensor_close(&host);
  if (rc != 0) return rc;
  rc = dlx_cuda_lp_numbers(&rows, pmat, m, true, 0, err);
  if (rc == 0) {
    a.tensor = &rows;
    b.tensor = &dev;
    rc = dlx_elementwise(DLX_EW_EQ, &a, &b, pmat, NULL, err);
    dlx_tensor_close(&rows);
  }
  dlx_tensor_close(&dev);
  return rc;
}

/* ---- LU: cuSOLVER for one matrix or large ones, cuBLAS's batched routines for many small ones */

/* A batch of 2 or more square matrices up to this size goes to cuBLAS's batched LU routines (one
 * launch for the whole batch) instead of one cuSOLVER call a matrix: cuSOLVER's getrf and getrs
 * are made for one large matrix, and a loop over many small ones pays a launch, and getrf a
 * workspace, per matrix. PyTorch measured the crossover (its get_lu_factor_solver_backend):
 * cuBLAS's batched getrf stays the faster while n^2 <= 2200 * batch for float64 at a batch of 2
 * (n up to 66), and further for larger batches and for float32; 64 lies inside that for every
 * dtype and batch size. */
#define DLX_CUDA_LP_BATCHED_LU 64
/* cuBLAS's matinvBatched (factor and inverse in one call) takes n < 32 only. */
#define DLX_CUDA_LP_MATINV 32

static inline bool dlx_cuda_lp_batched_lu(const dlx_cuda_solver *s, int64_t count, int64_t m,
                                          int64_t n) {
  return s->getrf_batched != NULL && s->getrs_batched != NULL && count > 1 && count <= INT32_MAX &&
         m == n && n <= DLX_CUDA_LP_BATCHED_LU;
}

/* getrf into int64 pivots (ipiv), the batched routine's int32 ones widened when it is used. */
static inline int dlx_cuda_lp_getrf(const dlx_cuda_solver *s, const dlx_tensor *a,
                                    const dlx_tensor *ipiv, int32_t *info, dlx_error *err) {
  dlx_tensor p32;
  int rc;
  if (!dlx_cuda_lp_batched_lu(s, a->shape[0], a->shape[1], a->shape[2]))
    return s->getrf(s->ctx, a, ipiv, info, err);
  rc = dlx_cuda_lp_new_ints(&p32, a, a->shape[0], a->shape[1], DLX_INT32, err);
  if (rc != 0) return rc;
  rc = s->getrf_batched(s->ctx, a, &p32, info, err);
  if (rc == 0) rc = dlx_copy(ipiv, &p32, err);
  dlx_tensor_close(&p32);
  return rc;
}

static inline int dlx_cuda_lp_lu(dlx_linalg_request *r, const dlx_cuda_solver *s, dlx_error *err) {
  int64_t m = r->m, n = r->n, mn = m < n ? m : n;
  dlx_tensor a = dlx_cuda_lp_mats(r->a, r->batch, m, n), ipiv = dlx_cuda_lp_vecs(r->ints, r->batch);
  int rc = dlx_cuda_lp_getrf(s, &a, &ipiv, NULL, err); /* a singular matrix has an LU too */
  if (rc != 0 || !(r->flags & DLX_LINALG_VECTORS)) return rc;
  dlx_tensor p = dlx_cuda_lp_mats(r->mats[0], r->batch, m, m);
  dlx_tensor l = dlx_cuda_lp_mats(r->mats[1], r->batch, m, mn);
  dlx_tensor u = dlx_cuda_lp_mats(r->mats[2], r->batch, mn, n);
  dlx_tensor al = dlx_cuda_lp_mats(r->a, r->batch, m, mn),
             au = dlx_cuda_lp_mats(r->a, r->batch, mn, n);
  rc = dlx_cuda_lp_permutation(r, &p, m, mn, err);
  if (rc == 0) rc = dlx_cuda_lp_keep(&l, &al, DLX_EW_GT, err);
  if (rc == 0) rc = dlx_cuda_lp_fill_diagonal(&l, 0, 1, err);
  if (rc == 0) rc = dlx_cuda_lp_keep(&u, &au, DLX_EW_LE, err);
  return rc;
}

/* The pivots of LU_SOLVE in 1..n (ValueError naming the first batch element that has one out of
 * range, before any zero pivot of a later one), then the zeros on U's diagonal. */
static inline int dlx_cuda_lp_check_lu(dlx_linalg_request *r, const dlx_tensor *a, dlx_error *err) {
  dlx_tensor piv = dlx_cuda_lp_vecs(r->ints, r->batch), host;
  double *d;
  int64_t n = r->n;
  int rc = dlx_cuda_lp_to_host(&host, &piv, err);
  if (rc != 0) return rc;
  rc = dlx_cuda_lp_diagonals(&d, a, err);
  if (rc != 0) {
    dlx_tensor_close(&host);
    return rc;
  }
  const int64_t *p = host.buffer->data;
  for (int64_t i = 0; i < r->batch && rc == 0 && r->bad_batch < 0; i++) {
    for (int64_t q = 0; q < n && rc == 0; q++)
      if (p[i * n + q] < 1 || p[i * n + q] > n)
        rc = dlx_fail(err, DLX_VALUE_ERROR,
                      "%s: the pivots of batch element %lld are not all in 1..%d (give the "
                      "pivots linalg.lu_factor made)",
                      r->name, (long long)i + 1, (int)n);
    for (int64_t q = 0; q < n && rc == 0; q++)
      if (d[2 * (i * n + q)] == 0 && d[2 * (i * n + q) + 1] == 0) {
        r->bad_batch = i;
        r->bad_info = q + 1;
        break;
      }
  }
  free(d);
  dlx_tensor_close(&host);
  return rc;
}

/* The factors of a SOLVE or INV request's a into ipiv (int32 for the batched routine, int64
 * otherwise); the first singular matrix becomes r's failure. */
static inline int dlx_cuda_lp_factor(dlx_linalg_request *r, const dlx_cuda_solver *s,
                                     const dlx_tensor *a, const dlx_tensor *ipiv, bool batched,
                                     dlx_error *err) {
  int32_t *info = dlx_cuda_lp_infos(r, err);
  int rc = info == NULL ? DLX_MEMORY_ERROR
           : batched    ? s->getrf_batched(s->ctx, a, ipiv, info, err)
                        : s->getrf(s->ctx, a, ipiv, info, err);
  if (rc == 0) dlx_cuda_lp_first_bad(r, info);
  free(info);
  return rc;
}

/* The pivots of a solve: LU_SOLVE's own (checked first; an int32 copy for the batched routine),
 * else fresh ones that getrf fills. Closed by the caller, unless the check failed a matrix. */
static inline int dlx_cuda_lp_pivots(dlx_linalg_request *r, const dlx_tensor *a, dlx_tensor *ipiv,
                                     bool batched, dlx_error *err) {
  dlx_dtype dtype = batched ? DLX_INT32 : DLX_INT64;
  dlx_tensor given;
  int rc;
  if (r->op != DLX_LINALG_LU_SOLVE)
    return dlx_cuda_lp_new_ints(ipiv, a, r->batch, r->n, dtype, err);
  rc = dlx_cuda_lp_check_lu(r, a, err);
  if (rc != 0 || r->bad_batch >= 0) return rc; /* nothing made: a failure already */
  given = dlx_cuda_lp_vecs(r->ints, r->batch);
  return dlx_clone_as(ipiv, &given, dtype, dlx_tensor_device(a), err);
}

/* b = A^-1 b from the factors. */
static inline int dlx_cuda_lp_getrs(const dlx_cuda_solver *s, bool batched, const dlx_tensor *a,
                                    const dlx_tensor *ipiv, const dlx_tensor *b, dlx_error *err) {
  return batched ? s->getrs_batched(s->ctx, a, ipiv, b, err) : s->getrs(s->ctx, a, ipiv, b, err);
}

/* The inverse into a from its factors: A X = I (cuSOLVER has no getri), then X into a. */
static inline int dlx_cuda_lp_inverse(const dlx_linalg_request *r, const dlx_cuda_solver *s,
                                      bool batched, const dlx_tensor *a, const dlx_tensor *ipiv,
                                      dlx_error *err) {
  dlx_tensor ident;
  int rc = dlx_cuda_lp_new_mats(&ident, r->a, r->dtype, r->batch, r->n, r->n, err);
  if (rc != 0) return rc;
  rc = dlx_cuda_lp_fill(&ident, 0, err);
  if (rc == 0) rc = dlx_cuda_lp_fill_diagonal(&ident, 0, 1, err);
  if (rc == 0) rc = dlx_cuda_lp_getrs(s, batched, a, ipiv, &ident, err);
  if (rc == 0) rc = dlx_copy(a, &ident, err);
  dlx_tensor_close(&ident);
  return rc;
}

/* INV of many matrices under 32 x 32: matinvBatched, the inverse into a fresh batch, then a. */
static inline int dlx_cuda_lp_matinv(dlx_linalg_request *r, const dlx_cuda_solver *s,
                                     const dlx_tensor *a, dlx_error *err) {
  dlx_tensor out;
  int32_t *info = dlx_cuda_lp_infos(r, err);
  int rc = info == NULL ? DLX_MEMORY_ERROR
                        : dlx_cuda_lp_new_mats(&out, r->a, r->dtype, r->batch, r->n, r->n, err);
  if (rc == 0) {
    rc = s->matinv_batched(s->ctx, a, &out, info, err);
    if (rc == 0) dlx_cuda_lp_first_bad(r, info);
    if (rc == 0 && r->bad_batch < 0) rc = dlx_copy(a, &out, err);
    dlx_tensor_close(&out);
  }
  free(info);
  return rc;
}

static inline int dlx_cuda_lp_solve(dlx_linalg_request *r, const dlx_cuda_solver *s,
                                    dlx_error *err) {
  int64_t n = r->n;
  bool batched = dlx_cuda_lp_batched_lu(s, r->batch, n, n);
  dlx_tensor a = dlx_cuda_lp_mats(r->a, r->batch, n, n), b, ipiv;
  int rc;
  if (r->op == DLX_LINALG_INV && batched && n < DLX_CUDA_LP_MATINV && s->matinv_batched != NULL)
    return dlx_cuda_lp_matinv(r, s, &a, err);
  rc = dlx_cuda_lp_pivots(r, &a, &ipiv, batched, err);
  if (rc != 0 || r->bad_batch >= 0) return rc; /* (no pivots made then) */
  if (r->op != DLX_LINALG_LU_SOLVE) rc = dlx_cuda_lp_factor(r, s, &a, &ipiv, batched, err);
  if (rc == 0 && r->bad_batch < 0 && r->op == DLX_LINALG_INV)
    rc = dlx_cuda_lp_inverse(r, s, batched, &a, &ipiv, err);
  else if (rc == 0 && r->bad_batch < 0 && r->k > 0) { /* (no right-hand sides: nothing to do) */
    b = dlx_cuda_lp_mats(r->b, r->batch, n, r->k);
    rc = dlx_cuda_lp_getrs(s, batched, &a, &ipiv, &b, err);
  }
  dlx_tensor_close(&ipiv);
  return rc;
}

/* det, or sign and log |det|, from getrf's factors on the host: the product of U's diagonal,
 * negated for each row swap, in double precision, as the CPU computes it. */
static inline void dlx_cuda_lp_det_of(const double *d, const int64_t *p, int64_t n, bool want_log,
                                      double *val, double *logs) {
  double re = 1, im = 0, logabs = 0;
  for (int64_t q = 0; q < n; q++) {
    double dr = d[2 * q], di = d[2 * q + 1], t;
    if (p[q] != q + 1) re = -re, im = -im;
    if (want_log) { /* the sign collects d / |d|, the log |d| */
      double mag = hypot(dr, di);
      logabs += log(mag);
      if (mag == 0 || mag != mag) {
        dr = mag == 0 ? 0 : NAN, di = 0;
      } else {
        dr /= mag, di /= mag;
      }
    }
    t = re * dr - im * di;
    im = re * di + im * dr;
    re = t;
  }
  val[0] = re;
  val[1] = im;
  *logs = logabs;
}

/* The host's values (complex128 [batch] and float64 [batch]) into the request's vectors
 * ([batch..., 1] each), cast on the way. */
static inline int dlx_cuda_lp_det_out(dlx_linalg_request *r, const dlx_tensor *vals,
                                      const dlx_tensor *logs, dlx_error *err) {
  dlx_tensor v0 = dlx_cuda_lp_vecs(r->vecs[0], r->batch), src = *vals;
  int rc;
  src.ndim = 2;
  src.shape[1] = v0.shape[1];
  src.strides[1] = 0;
  if (!dlx_cuda_lp_complex(r->dtype)) { /* the real parts */
    src.dtype = DLX_FLOAT64;
    src.strides[0] = 2;
  }
  rc = dlx_copy(&v0, &src, err);
  if (rc == 0 && (r->flags & DLX_LINALG_LOG)) {
    dlx_tensor v1 = dlx_cuda_lp_vecs(r->vecs[1], r->batch);
    src = *logs;
    src.ndim = 2;
    src.shape[1] = v1.shape[1];
    src.strides[1] = 0;
    rc = dlx_copy(&v1, &src, err);
  }
  return rc;
}

static inline int dlx_cuda_lp_det(dlx_linalg_request *r, const dlx_cuda_solver *s, dlx_error *err) {
  int64_t n = r->n, shape[1] = {r->batch};
  dlx_tensor a = dlx_cuda_lp_mats(r->a, r->batch, n, n), ipiv, hpiv, vals, logs;
  double *d = NULL;
  int rc = dlx_cuda_lp_new_ints(&ipiv, r->a, r->batch, n, DLX_INT64, err);
  if (rc != 0) return rc;
  rc = dlx_cuda_lp_getrf(s, &a, &ipiv, NULL, err); /* a singular matrix has a determinant too */
  if (rc == 0) rc = dlx_cuda_lp_diagonals(&d, &a, err);
  if (rc == 0) rc = dlx_cuda_lp_to_host(&hpiv, &ipiv, err);
  dlx_tensor_close(&ipiv);
  if (rc != 0) {
    free(d);
    return rc;
  }
  rc = dlx_tensor_empty(&vals, shape, 1, DLX_COMPLEX128, (DLDevice){kDLCPU, 0}, err);
  if (rc == 0) {
    rc = dlx_tensor_empty(&logs, shape, 1, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, err);
    if (rc == 0) {
      const int64_t *p = hpiv.buffer->data;
      double *v = vals.buffer->data, *l = logs.buffer->data;
      for (int64_t i = 0; i < r->batch; i++)
        dlx_cuda_lp_det_of(d + 2 * i * n, p + i * n, n, (r->flags & DLX_LINALG_LOG) != 0, v + 2 * i,
                           l + i);
      rc = dlx_cuda_lp_det_out(r, &vals, &logs, err);
      dlx_tensor_close(&logs);
    }
    dlx_tensor_close(&vals);
  }
  dlx_tensor_close(&hpiv);
  free(d);
  return rc;
}

/* Cholesky: potrf, a NaN on the factor's diagonal as a failure (it passes LAPACK's positivity
 * test), the other triangle zeroed. */
static inline int dlx_cuda_lp_cholesky(dlx_linalg_request *r, const dlx_cuda_solver *s,
                                       dlx_error *err) {
  int64_t n = r->n;
  bool upper = (r->flags & DLX_LINALG_UPPER) != 0;
  dlx_tensor a = dlx_cuda_lp_mats(r->a, r->batch, n, n);
  int32_t *info = dlx_cuda_lp_infos(r, err);
  double *d = NULL;
  int rc = info == NULL ? DLX_MEMORY_ERROR : s->potrf(s->ctx, upper, &a, info, err);
  if (rc == 0) rc = dlx_cuda_lp_diagonals(&d, &a, err);
  for (int64_t i = 0; rc == 0 && i < r->batch && r->bad_batch < 0; i++) {
    if (info[i] > 0) {
      r->bad_batch = i;
      r->bad_info = info[i];
    }
    for (int64_t q = 0; q < n && r->bad_batch < 0; q++)
      if (d[2 * (i * n + q)] != d[2 * (i * n + q)]) {
        r->bad_batch = i;
        r->bad_info = q + 1;
      }
  }
  if (rc == 0 && r->bad_batch < 0)
    rc = dlx_cuda_lp_keep(&a, &a, upper ? DLX_EW_LE : DLX_EW_GE, err);
  free(d);
  free(info);
  return rc;
}

static inline int dlx_cuda_lp_qr(dlx_linalg_request *r, const dlx_cuda_solver *s, dlx_error *err) {
  bool full = (r->flags & DLX_LINALG_FULL) != 0;
  int64_t m = r->m, n = r->n, mn = m < n ? m : n, rows = full ? m : mn;
  dlx_tensor a = dlx_cuda_lp_mats(r->a, r->batch, m, n), tau;
  int rc = dlx_cuda_lp_new_ints(&tau, r->a, r->batch, mn, r->dtype, err);
  if (rc != 0) return rc;
  rc = s->geqrf(s->ctx, &a, &tau, err);
  if (rc == 0) {
    dlx_tensor rr = dlx_cuda_lp_mats(r->mats[1], r->batch, rows, n);
    dlx_tensor top = dlx_cuda_lp_mats(r->a, r->batch, rows, n);
    rc = dlx_cuda_lp_keep(&rr, &top, DLX_EW_LE, err);
  }
  if (rc == 0 && r->mats[0] != NULL) {
    int64_t cols = full ? m : mn, first = cols < n ? cols : n;
    dlx_tensor q = dlx_cuda_lp_mats(r->mats[0], r->batch, m, cols);
    dlx_tensor qa = dlx_cuda_lp_mats(r->mats[0], r->batch, m, first);
    dlx_tensor src = dlx_cuda_lp_mats(r->a, r->batch, m, first);
    rc = dlx_copy(&qa, &src, err);
    if (rc == 0 && cols > first) { /* the columns past n: the identity's, for orgqr to start */
      dlx_tensor rest;
      rc = dlx_cuda_lp_new_mats(&rest, r->a, r->dtype, r->batch, m, cols - first, err);
      if (rc == 0) {
        rc = dlx_cuda_lp_fill(&rest, 0, err);
        if (rc == 0) rc = dlx_cuda_lp_fill_diagonal(&rest, -first, 1, err);
        if (rc == 0) {
          dlx_tensor dst = q;
          dst.offset += first * m;
          dst.shape[2] = cols - first;
          rc = dlx_copy(&dst, &rest, err);
        }
        dlx_tensor_close(&rest);
      }
    }
    if (rc == 0) rc = s->orgqr(s->ctx, mn, &q, &tau, err);
  }
  dlx_tensor_close(&tau);
  return rc;
}

/* Matrices holding NaN or an infinity (flags false) are zeroed before the solver sees them (an
 * iterative solver may loop on NaN), and their results become NaN afterwards. */
static inline int dlx_cuda_lp_zero_bad(const dlx_tensor *a, const bool *finite, int64_t count,
                                       dlx_error *err) {
  int rc = 0;
  for (int64_t i = 0; i < count && rc == 0; i++)
    if (!finite[i]) rc = dlx_cuda_lp_fill_one(a, i, 0, err);
  return rc;
}

static inline int dlx_cuda_lp_nan_bad(const dlx_tensor *const *outs, int nouts, const bool *finite,
                                      int64_t count, dlx_error *err) {
  int rc = 0;
  for (int64_t i = 0; i < count && rc == 0; i++)
    for (int o = 0; o < nouts && rc == 0 && !finite[i]; o++)
      if (outs[o] != NULL) rc = dlx_cuda_lp_fill_one(outs[o], i, NAN, err);
  return rc;
}

/* gesvd of A^H (n x m, tall) for a wide A: A^H = V S U^H, so U and V^H are the adjoints of its
 * V^H and U. */
static inline int dlx_cuda_lp_svd_wide(dlx_linalg_request *r, const dlx_cuda_solver *s, char job,
                                       const dlx_tensor *a, const dlx_tensor *sv,
                                       const dlx_tensor *u, const dlx_tensor *vh, int32_t *info,
                                       dlx_error *err) {
  int64_t m = r->m, n = r->n;
  bool vectors = job != 'N';
  dlx_tensor at, tu, tvt;
  int rc = dlx_cuda_lp_new_mats(&at, r->a, r->dtype, r->batch, n, m, err);
  if (rc != 0) return rc;
  rc = dlx_cuda_lp_adjoint(&at, a, err);
  if (rc == 0 && !vectors) rc = s->gesvd(s->ctx, job, &at, sv, NULL, NULL, info, err);
  if (rc == 0 && vectors) {
    rc = dlx_cuda_lp_new_mats(&tu, r->a, r->dtype, r->batch, n, job == 'A' ? n : m, err);
    if (rc == 0) {
      rc = dlx_cuda_lp_new_mats(&tvt, r->a, r->dtype, r->batch, m, m, err);
      if (rc == 0) {
        rc = s->gesvd(s->ctx, job, &at, sv, &tu, &tvt, info, err);
        if (rc == 0) rc = dlx_cuda_lp_adjoint(u, &tvt, err);
        if (rc == 0) rc = dlx_cuda_lp_adjoint(vh, &tu, err);
        dlx_tensor_close(&tvt);
      }
      dlx_tensor_close(&tu);
    }
  }
  dlx_tensor_close(&at);
  return rc;
}

static inline int dlx_cuda_lp_svd(dlx_linalg_request *r, const dlx_cuda_solver *s, dlx_error *err) {
  bool vectors = (r->flags & DLX_LINALG_VECTORS) != 0, full = (r->flags & DLX_LINALG_FULL) != 0;
  int64_t m = r->m, n = r->n, mn = m < n ? m : n;
  char job = vectors ? (full ? 'A' : 'S') : 'N';
  dlx_tensor a = dlx_cuda_lp_mats(r->a, r->batch, m, n),
             sv = dlx_cuda_lp_vecs(r->vecs[0], r->batch);
  dlx_tensor u, vh;
  bool *finite = NULL;
  int32_t *info = NULL;
  int rc;
  memset(&u, 0, sizeof u);
  memset(&vh, 0, sizeof vh);
  if (vectors) {
    u = dlx_cuda_lp_mats(r->mats[0], r->batch, m, full ? m : mn);
    vh = dlx_cuda_lp_mats(r->mats[1], r->batch, full ? n : mn, n);
  }
  rc = dlx_cuda_lp_finite(&finite, &a, DLX_EW_NUM_OPS, err);
  if (rc == 0) rc = dlx_cuda_lp_zero_bad(&a, finite, r->batch, err);
  if (rc == 0) {
    info = dlx_cuda_lp_infos(r, err);
    if (info == NULL) rc = DLX_MEMORY_ERROR;
  }
  if (rc == 0 && m >= n)
    rc = s->gesvd(s->ctx, job, &a, &sv, vectors ? &u : NULL, vectors ? &vh : NULL, info, err);
  else if (rc == 0)
    rc = dlx_cuda_lp_svd_wide(r, s, job, &a, &sv, &u, &vh, info, err);
  if (rc == 0) dlx_cuda_lp_first_bad(r, info);
  if (rc == 0) {
    const dlx_tensor *outs[3] = {&sv, vectors ? &u : NULL, vectors ? &vh : NULL};
    rc = dlx_cuda_lp_nan_bad(outs, 3, finite, r->batch, err);
  }
  free(info);
  free(finite);
  return rc;
}

static inline int dlx_cuda_lp_eigh(dlx_linalg_request *r, const dlx_cuda_solver *s,
                                   dlx_error *err) {
  bool vectors = (r->flags & DLX_LINALG_VECTORS) != 0, upper = (r->flags & DLX_LINALG_UPPER) != 0;
  int64_t n = r->n;
  dlx_tensor a = dlx_cuda_lp_mats(r->a, r->batch, n, n), w = dlx_cuda_lp_vecs(r->vecs[0], r->batch);
  bool *finite = NULL;
  int32_t *info = NULL;
  int rc = dlx_cuda_lp_finite(&finite, &a, upper ? DLX_EW_LE : DLX_EW_GE, err);
  if (rc == 0) rc = dlx_cuda_lp_zero_bad(&a, finite, r->batch, err);
  if (rc == 0) info = dlx_cuda_lp_infos(r, err);
  if (rc == 0 && info == NULL) rc = DLX_MEMORY_ERROR;
  if (rc == 0) rc = s->syevd(s->ctx, vectors, upper, &a, &w, info, err);
  if (rc == 0) dlx_cuda_lp_first_bad(r, info);
  if (rc == 0) {
    const dlx_tensor *outs[2] = {&w, vectors ? &a : NULL};
    rc = dlx_cuda_lp_nan_bad(outs, 2, finite, r->batch, err);
  }
  free(info);
  free(finite);
  return rc;
}

static inline int dlx_cuda_lp_triangular(dlx_linalg_request *r, const dlx_cuda_solver *s,
                                         dlx_error *err) {
  bool upper = (r->flags & DLX_LINALG_UPPER) != 0, unit = (r->flags & DLX_LINALG_UNIT) != 0;
  dlx_tensor a = dlx_cuda_lp_mats(r->a, r->batch, r->n, r->n);
  dlx_tensor b = dlx_cuda_lp_mats(r->b, r->batch, r->n, r->k);
  int rc = unit ? 0 : dlx_cuda_lp_zero_pivot(r, &a, err);
  if (rc != 0 || r->bad_batch >= 0 || r->k == 0) return rc; /* k = 0: checked, nothing to solve */
  return s->trsm(s->ctx, upper, false, unit, &a, &b, err);
}

#endif
