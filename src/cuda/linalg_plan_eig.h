/* linalg_plan_eig.h -- EIG (linalg.eig, eigvals) as the solver's geev (cusolverDnXgeev on CUDA)
 * and dlx's own ops, in the CPU's conventions (src/cpu/linalg.c): LAPACK's order of the
 * eigenvalues, right eigenvectors of 2-norm 1 with their largest component real, a conjugate
 * pair as v and conj(v). A complex matrix gets its complex results from geev as they are. A real
 * one gets geev's real parts and imaginary parts, and its vectors packed as LAPACK packs a pair
 * (two real columns: the real and the imaginary part of the first vector); the complex results
 * are made on the device: the values by copying the two halves into the real and imaginary parts
 * of w, the vectors by picking, for each column, the packed column that holds its real part and
 * the one that holds its imaginary part (index_select over all the batch's columns) and the sign
 * of the imaginary part (0 for a real eigenvalue). Which columns pair up is read on the host
 * from the imaginary parts of the values, as the CPU reads it. */
#ifndef DLX_CUDA_LINALG_PLAN_EIG_H
#define DLX_CUDA_LINALG_PLAN_EIG_H

#include "core/indexing.h"
#include "cuda/linalg_plan.h"

/* What a library without geev says (cusolverDnXgeev came with CUDA 12.6 Update 2). */
#define DLX_CUDA_LP_NO_GEEV                                                                        \
  "the loaded cuSOLVER has no cusolverDnXgeev, which this needs (cuSOLVER 11.7 of CUDA 12.6 "      \
  "Update 2 or later; or move the tensor to the CPU first, t:to(\"cpu\"), and back after)"

/* A borrowed view of the real (part 0) or imaginary (part 1) parts of a complex tensor's
 * elements, as a tensor of its real dtype. */
static inline dlx_tensor dlx_cuda_lp_part(const dlx_tensor *t, int part) {
  dlx_tensor v = *t;
  v.dtype = t->dtype == DLX_COMPLEX64 ? DLX_FLOAT32 : DLX_FLOAT64;
  v.offset = 2 * t->offset + part;
  for (int32_t d = 0; d < t->ndim; d++) v.strides[d] = 2 * t->strides[d];
  return v;
}

/* A borrowed 2-d view [count * n, n] of a batch of n x n column-major matrices: their columns,
 * the batch's one after the other, each a row here. */
static inline dlx_tensor dlx_cuda_lp_columns(const dlx_tensor *mats) {
  dlx_tensor v = *mats;
  int64_t n = mats->shape[1];
  v.ndim = 2;
  v.shape[0] = mats->shape[0] * n;
  v.shape[1] = n;
  v.strides[0] = mats->strides[2];
  v.strides[1] = 1;
  return v;
}

/* A fresh host tensor of len elements of dtype: [len] (ndim 1) or [len, 1] (ndim 2). */
static inline int dlx_cuda_lp_host(dlx_tensor *out, int64_t len, int32_t ndim, dlx_dtype dtype,
                                   dlx_error *err) {
  int64_t shape[2] = {len, 1};
  return dlx_tensor_empty(out, shape, ndim, dtype, (DLDevice){kDLCPU, 0}, err);
}

/* For the count * n columns of a real geev's vectors, from the imaginary parts wi (host,
 * float64): the 1-based packed column of each one's real part (re) and imaginary part (im),
 * and the sign of the imaginary part (0, 1, -1), as the CPU pairs them. */
static inline void dlx_cuda_lp_pairs(const double *wi, int64_t count, int64_t n, int64_t *re,
                                     int64_t *im, double *sign) {
  for (int64_t i = 0; i < count; i++)
    for (int64_t q = 0; q < n; q++) {
      int64_t at = i * n + q;
      bool pair = wi[at] != 0 && q + 1 < n;
      re[at] = im[at] = at + 1;
      sign[at] = 0;
      if (pair) { /* q and q + 1: v and conj(v), v = column q + i column q + 1 */
        re[at + 1] = at + 1;
        im[at] = im[at + 1] = at + 2;
        sign[at] = 1;
        sign[at + 1] = -1;
        q++;
      }
    }
}

/* The host's pairing (re, im, sign) of a real geev's vectors, moved to v's device: re and im
 * int64 [count * n], sign of the real dtype [count * n, 1]. */
static inline int dlx_cuda_lp_pairing(const dlx_tensor *wi, const dlx_tensor *v, dlx_tensor out[3],
                                      dlx_error *err) {
  int64_t count = wi->shape[0], n = wi->shape[1];
  dlx_tensor host[4];
  int made = 0, rc = dlx_clone_as(&host[0], wi, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, err);
  if (rc == 0) made++, rc = dlx_cuda_lp_host(&host[1], count * n, 1, DLX_INT64, err);
  if (rc == 0) made++, rc = dlx_cuda_lp_host(&host[2], count * n, 1, DLX_INT64, err);
  if (rc == 0) made++, rc = dlx_cuda_lp_host(&host[3], count * n, 2, DLX_FLOAT64, err);
  if (rc == 0) {
    made++;
    dlx_cuda_lp_pairs(host[0].buffer->data, count, n, host[1].buffer->data, host[2].buffer->data,
                      host[3].buffer->data);
  }
  int moved = 0;
  while (rc == 0 && moved < 3) {
    dlx_dtype dtype = moved < 2 ? DLX_INT64 : dlx_linalg_real_dtype(v->dtype);
    rc = dlx_clone_as(&out[moved], &host[moved + 1], dtype, dlx_tensor_device(v), err);
    if (rc == 0) moved++;
  }
  if (rc != 0)
    while (moved > 0) dlx_tensor_close(&out[--moved]);
  while (made > 0) dlx_tensor_close(&host[--made]);
  return rc;
}

/* v (complex) from a real geev's packed vectors vr and the imaginary parts wi: the real parts
 * are vr's columns re, the imaginary parts its columns im times sign. */
static inline int dlx_cuda_lp_unpack(const dlx_tensor *vr, const dlx_tensor *wi,
                                     const dlx_tensor *v, dlx_error *err) {
  dlx_tensor idx[3], cols = dlx_cuda_lp_columns(vr), vc = dlx_cuda_lp_columns(v), picked;
  dlx_tensor dst_re = dlx_cuda_lp_part(&vc, 0), dst_im = dlx_cuda_lp_part(&vc, 1);
  dlx_operand x, y;
  int rc = dlx_cuda_lp_pairing(wi, v, idx, err);
  if (rc != 0) return rc;
  rc = dlx_index_select(&picked, &cols, 0, &idx[0], err);
  if (rc == 0) {
    rc = dlx_copy(&dst_re, &picked, err);
    dlx_tensor_close(&picked);
  }
  if (rc == 0) rc = dlx_index_select(&picked, &cols, 0, &idx[1], err);
  if (rc == 0) {
    x.tensor = &picked;
    y.tensor = &idx[2];
    rc = dlx_elementwise(DLX_EW_MUL, &x, &y, &dst_im, NULL, err);
    dlx_tensor_close(&picked);
  }
  for (int i = 0; i < 3; i++) dlx_tensor_close(&idx[i]);
  return rc;
}

/* geev of real matrices into the complex w and (unless NULL) v. */
static inline int dlx_cuda_lp_eig_real(const dlx_linalg_request *r, const dlx_cuda_solver *s,
                                       const dlx_tensor *a, const dlx_tensor *w,
                                       const dlx_tensor *v, int32_t *info, dlx_error *err) {
  int64_t count = r->batch, n = r->n;
  dlx_tensor parts, vr, wr, wi;
  int rc = dlx_cuda_lp_new_ints(&parts, r->a, count, 2 * n, r->dtype, err);
  if (rc != 0) return rc;
  if (v != NULL) rc = dlx_cuda_lp_new_mats(&vr, r->a, r->dtype, count, n, n, err);
  if (rc == 0) {
    rc = s->geev(s->ctx, a, &parts, v != NULL ? &vr : NULL, info, err);
    wr = wi = parts;
    wr.shape[1] = wi.shape[1] = n;
    wi.offset += n;
    dlx_tensor w_re = dlx_cuda_lp_part(w, 0), w_im = dlx_cuda_lp_part(w, 1);
    if (rc == 0) rc = dlx_copy(&w_re, &wr, err);
    if (rc == 0) rc = dlx_copy(&w_im, &wi, err);
    if (rc == 0 && v != NULL) rc = dlx_cuda_lp_unpack(&vr, &wi, v, err);
    if (v != NULL) dlx_tensor_close(&vr);
  }
  dlx_tensor_close(&parts);
  return rc;
}

static inline int dlx_cuda_lp_eig(dlx_linalg_request *r, const dlx_cuda_solver *s, dlx_error *err) {
  int64_t n = r->n;
  bool vectors = r->mats[0] != NULL;
  dlx_tensor a = dlx_cuda_lp_mats(r->a, r->batch, n, n), w = dlx_cuda_lp_vecs(r->vecs[0], r->batch);
  dlx_tensor v = vectors ? dlx_cuda_lp_mats(r->mats[0], r->batch, n, n) : a;
  bool *finite = NULL;
  int32_t *info = NULL;
  int rc;
  if (s->geev == NULL)
    return dlx_fail(err, DLX_DEVICE_ERROR, "%s: %s", r->name, DLX_CUDA_LP_NO_GEEV);
  rc = dlx_cuda_lp_finite(&finite, &a, DLX_EW_NUM_OPS, err);
  if (rc == 0) rc = dlx_cuda_lp_zero_bad(&a, finite, r->batch, err);
  if (rc == 0 && (info = dlx_cuda_lp_infos(r, err)) == NULL) rc = DLX_MEMORY_ERROR;
  if (rc == 0 && dlx_cuda_lp_complex(r->dtype))
    rc = s->geev(s->ctx, &a, &w, vectors ? &v : NULL, info, err);
  else if (rc == 0)
    rc = dlx_cuda_lp_eig_real(r, s, &a, &w, vectors ? &v : NULL, info, err);
  if (rc == 0) dlx_cuda_lp_first_bad(r, info);
  if (rc == 0) {
    const dlx_tensor *outs[2] = {&w, vectors ? &v : NULL};
    rc = dlx_cuda_lp_nan_bad(outs, 2, finite, r->batch, err);
  }
  free(info);
  free(finite);
  return rc;
}

#endif
