/* linalg_run.h -- a dlx_linalg_request run with a dense solver: the plan of each op
 * (linalg_plan.h, linalg_plan_eig.h, linalg_plan_lstsq.h). Used by solver.c (cuSOLVER and cuBLAS)
 * and by tests/c/cuda_linalg_rules.c (LAPACK on the CPU). */
#ifndef DLX_CUDA_LINALG_RUN_H
#define DLX_CUDA_LINALG_RUN_H

#include "cuda/linalg_plan.h"
#include "cuda/linalg_plan_eig.h"
#include "cuda/linalg_plan_lstsq.h"

/* Runs r with solver s. */
static inline int dlx_cuda_linalg_run(dlx_linalg_request *r, const dlx_cuda_solver *s,
                                      dlx_error *err) {
  switch (r->op) {
  case DLX_LINALG_LU:
    return dlx_cuda_lp_lu(r, s, err);
  case DLX_LINALG_LU_SOLVE:
  case DLX_LINALG_SOLVE:
  case DLX_LINALG_INV:
    return dlx_cuda_lp_solve(r, s, err);
  case DLX_LINALG_DET:
    return dlx_cuda_lp_det(r, s, err);
  case DLX_LINALG_CHOLESKY:
    return dlx_cuda_lp_cholesky(r, s, err);
  case DLX_LINALG_QR:
    return dlx_cuda_lp_qr(r, s, err);
  case DLX_LINALG_SVD:
    return dlx_cuda_lp_svd(r, s, err);
  case DLX_LINALG_EIGH:
    return dlx_cuda_lp_eigh(r, s, err);
  case DLX_LINALG_EIG:
    return dlx_cuda_lp_eig(r, s, err);
  case DLX_LINALG_LSTSQ:
    return dlx_cuda_lp_lstsq(r, s, err);
  case DLX_LINALG_TRIANGULAR:
    return dlx_cuda_lp_triangular(r, s, err);
  default:
    return dlx_fail(err, DLX_DEVICE_ERROR, "%s: no solver mapping for this op", r->name);
  }
}

#endif
