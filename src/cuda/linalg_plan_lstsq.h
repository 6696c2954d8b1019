/* linalg_plan_lstsq.h -- LSTSQ (linalg.lstsq) through QR, for matrices of full rank, as torch's
 * "gels" driver solves on CUDA (the CPU's gelsd, an SVD, has no cuSOLVER counterpart):
 * - m >= n: A = Q R (geqrf), B <- Q^H B (ormqr), R X = the top n rows (trsm); the residuals are
 *   the squared norms of the columns of the other m - n rows of Q^H B, as gelsd's;
 * - m < n, the minimum-norm solution: A^H = Q R (geqrf of a copy of A^H), R^H Y = B (trsm),
 *   X = Q [Y; 0] (ormqr).
 * A matrix whose R has an element on its diagonal at most rcond times the largest there in
 * magnitude is taken as rank-deficient and fails the request (the core's LinAlgError): that
 * route would give garbage for it. The test is one-sided: |R_ii| bounds the smallest singular
 * value from above, so every matrix it rejects is rank-deficient by the CPU's own test
 * (singular values at most rcond times the largest), but QR without pivoting can miss one that
 * the CPU finds. The request says lstsq_qr: the core returns no singular values; each rank is
 * min(m, n). A matrix holding NaN or an infinity (in A or B) is solved as the identity and zeros
 * instead, and gives NaN and rank 0, as on the CPU. */
#ifndef DLX_CUDA_LINALG_PLAN_LSTSQ_H
#define DLX_CUDA_LINALG_PLAN_LSTSQ_H

#include "cuda/linalg_plan.h"

/* A borrowed 3-d view of matrix i of a 3-d view. */
static inline dlx_tensor dlx_cuda_lp_one(const dlx_tensor *t, int64_t i) {
  dlx_tensor v = *t;
  v.shape[0] = 1;
  v.offset += i * t->strides[0];
  return v;
}

/* Which batch elements have A and B (its first m rows) finite, on the host. */
static inline int dlx_cuda_lp_lstsq_finite(const dlx_tensor *a, const dlx_tensor *b, bool **finite,
                                           dlx_error *err) {
  bool *fb;
  int rc = dlx_cuda_lp_finite(finite, a, DLX_EW_NUM_OPS, err);
  if (rc != 0 || b->shape[2] == 0) return rc;
  rc = dlx_cuda_lp_finite(&fb, b, DLX_EW_NUM_OPS, err);
  for (int64_t i = 0; rc == 0 && i < a->shape[0]; i++) (*finite)[i] = (*finite)[i] && fb[i];
  free(fb);
  return rc;
}

/* A non-finite batch element: A becomes the identity (its first min(m, n) diagonal elements
 * ones), B zeros; its results become NaN afterwards. */
static inline int dlx_cuda_lp_tame(const dlx_tensor *a, const dlx_tensor *b, const bool *finite,
                                   dlx_error *err) {
  int rc = 0;
  for (int64_t i = 0; i < a->shape[0] && rc == 0; i++) {
    if (finite[i]) continue;
    dlx_tensor ai = dlx_cuda_lp_one(a, i), bi = dlx_cuda_lp_one(b, i);
    rc = dlx_cuda_lp_fill(&ai, 0, err);
    if (rc == 0) rc = dlx_cuda_lp_fill_diagonal(&ai, 0, 1, err);
    if (rc == 0) rc = dlx_cuda_lp_fill(&bi, 0, err);
  }
  return rc;
}

/* The first finite matrix whose R (n x n, upper) has a diagonal element at most rcond times the
 * largest in magnitude becomes r's failure (bad_info: that element's place). */
static inline int dlx_cuda_lp_full_rank(dlx_linalg_request *r, const dlx_tensor *rr,
                                        const bool *finite, dlx_error *err) {
  int64_t n = rr->shape[1];
  double *d;
  int rc = dlx_cuda_lp_diagonals(&d, rr, err);
  for (int64_t i = 0; rc == 0 && i < r->batch && r->bad_batch < 0; i++) {
    const double *di = d + 2 * i * n;
    double big = 0;
    if (!finite[i]) continue;
    for (int64_t q = 0; q < n; q++) big = fmax(big, hypot(di[2 * q], di[2 * q + 1]));
    for (int64_t q = 0; q < n && r->bad_batch < 0; q++)
      if (hypot(di[2 * q], di[2 * q + 1]) <= r->rcond * big) {
        r->bad_batch = i;
        r->bad_info = q + 1;
      }
  }
  free(d);
  return rc;
}

/* vecs[1] = the squared 2-norms of the columns of rows n .. m - 1 of qb (Q^H B, m x k). */
static inline int dlx_cuda_lp_residuals(const dlx_linalg_request *r, const dlx_tensor *qb,
                                        dlx_error *err) {
  dlx_tensor rest = *qb, mag, squares, sums, res = dlx_cuda_lp_vecs(r->vecs[1], r->batch);
  dlx_operand x;
  int rc;
  rest.offset += r->n;
  rest.shape[1] = r->m - r->n;
  x.tensor = &rest;
  if (dlx_cuda_lp_complex(r->dtype)) { /* |z|, then squared */
    rc = dlx_elementwise(DLX_EW_ABS, &x, NULL, NULL, &mag, err);
    if (rc != 0) return rc;
    x.tensor = &mag;
  }
  rc = dlx_elementwise(DLX_EW_MUL, &x, &x, NULL, &squares, err);
  if (dlx_cuda_lp_complex(r->dtype)) dlx_tensor_close(&mag);
  if (rc != 0) return rc;
  rc = dlx_reduce(&sums, DLX_REDUCE_SUM, &squares, 1u << 1, false, err);
  dlx_tensor_close(&squares);
  if (rc != 0) return rc;
  rc = dlx_copy(&res, &sums, err);
  dlx_tensor_close(&sums);
  return rc;
}

/* m >= n: A = Q R, B <- Q^H B, R X = its top n rows. */
static inline int dlx_cuda_lp_lstsq_tall(dlx_linalg_request *r, const dlx_cuda_solver *s,
                                         const dlx_tensor *a, const dlx_tensor *tau,
                                         const bool *finite, dlx_error *err) {
  dlx_tensor rr = dlx_cuda_lp_mats(r->a, r->batch, r->n, r->n);
  dlx_tensor b = dlx_cuda_lp_mats(r->b, r->batch, r->m, r->k);
  dlx_tensor top = dlx_cuda_lp_mats(r->b, r->batch, r->n, r->k);
  int rc = s->geqrf(s->ctx, a, tau, err);
  if (rc == 0) rc = dlx_cuda_lp_full_rank(r, &rr, finite, err);
  if (rc != 0 || r->bad_batch >= 0 || r->k == 0) return rc;
  rc = s->ormqr(s->ctx, true, a, tau, &b, err);
  if (rc == 0 && r->m > r->n) rc = dlx_cuda_lp_residuals(r, &b, err);
  if (rc == 0) rc = s->trsm(s->ctx, true, false, false, &rr, &top, err);
  return rc;
}

/* m < n: A^H = Q R, R^H Y = B, X = Q [Y; 0]. */
static inline int dlx_cuda_lp_lstsq_wide(dlx_linalg_request *r, const dlx_cuda_solver *s,
                                         const dlx_tensor *a, const dlx_tensor *tau,
                                         const bool *finite, dlx_error *err) {
  int64_t m = r->m, n = r->n;
  dlx_tensor at, rr, x = dlx_cuda_lp_mats(r->b, r->batch, n, r->k);
  dlx_tensor top = dlx_cuda_lp_mats(r->b, r->batch, m, r->k), rest = x;
  int rc = dlx_cuda_lp_new_mats(&at, r->a, r->dtype, r->batch, n, m, err);
  if (rc != 0) return rc;
  rr = dlx_cuda_lp_mats(&at, r->batch, m, m);
  rest.offset += m;
  rest.shape[1] = n - m;
  rc = dlx_cuda_lp_adjoint(&at, a, err);
  if (rc == 0) rc = s->geqrf(s->ctx, &at, tau, err);
  if (rc == 0) rc = dlx_cuda_lp_full_rank(r, &rr, finite, err);
  if (rc == 0 && r->bad_batch < 0 && r->k > 0) {
    rc = s->trsm(s->ctx, true, true, false, &rr, &top, err);
    if (rc == 0) rc = dlx_cuda_lp_fill(&rest, 0, err);
    if (rc == 0) rc = s->ormqr(s->ctx, false, &at, tau, &x, err);
  }
  dlx_tensor_close(&at);
  return rc;
}

/* The ranks: min(m, n), 0 for a non-finite matrix, whose results become NaN. */
static inline int dlx_cuda_lp_lstsq_finish(const dlx_linalg_request *r, const bool *finite,
                                           dlx_error *err) {
  dlx_tensor ranks = dlx_cuda_lp_vecs(r->ints, r->batch);
  dlx_tensor b = dlx_cuda_lp_mats(r->b, r->batch, r->m > r->n ? r->m : r->n, r->k), res;
  dlx_scalar value;
  int rc;
  memset(&value, 0, sizeof value);
  value.kind = DLX_KIND_INT;
  value.v.i = r->m < r->n ? r->m : r->n;
  rc = dlx_fill(&ranks, &value, err);
  value.v.i = 0;
  for (int64_t i = 0; i < r->batch && rc == 0; i++) {
    dlx_tensor one;
    if (finite[i]) continue;
    rc = dlx_select(&one, &ranks, 0, i, err);
    if (rc == 0) {
      rc = dlx_fill(&one, &value, err);
      dlx_tensor_close(&one);
    }
  }
  if (r->vecs[1] != NULL) res = dlx_cuda_lp_vecs(r->vecs[1], r->batch);
  const dlx_tensor *outs[2] = {&b, r->vecs[1] != NULL ? &res : NULL};
  if (rc == 0) rc = dlx_cuda_lp_nan_bad(outs, 2, finite, r->batch, err);
  return rc;
}

static inline int dlx_cuda_lp_lstsq(dlx_linalg_request *r, const dlx_cuda_solver *s,
                                    dlx_error *err) {
  int64_t m = r->m, n = r->n;
  dlx_tensor a = dlx_cuda_lp_mats(r->a, r->batch, m, n), tau;
  dlx_tensor b = dlx_cuda_lp_mats(r->b, r->batch, m, r->k);
  bool *finite = NULL;
  int rc = dlx_cuda_lp_lstsq_finite(&a, &b, &finite, err);
  r->lstsq_qr = true;
  if (rc == 0) rc = dlx_cuda_lp_tame(&a, &b, finite, err);
  if (rc == 0) rc = dlx_cuda_lp_new_ints(&tau, r->a, r->batch, m < n ? m : n, r->dtype, err);
  if (rc == 0) {
    rc = m >= n ? dlx_cuda_lp_lstsq_tall(r, s, &a, &tau, finite, err)
                : dlx_cuda_lp_lstsq_wide(r, s, &a, &tau, finite, err);
    dlx_tensor_close(&tau);
  }
  if (rc == 0 && r->bad_batch < 0) rc = dlx_cuda_lp_lstsq_finish(r, finite, err);
  free(finite);
  return rc;
}

#endif
