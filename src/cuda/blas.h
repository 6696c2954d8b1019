/* blas.h -- the CUDA backend's matrix products through cuBLAS, opened at run time (blas.c). No
 * CUDA header: the C tests include it. */
#ifndef DLX_CUDA_BLAS_H
#define DLX_CUDA_BLAS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/dtype.h"
#include "core/error.h"

/* Opens cuBLAS once per process ($DLX_CUBLAS_LIBRARY when set, else libcublas.so.13, .12, .so)
 * and resolves the functions dlx uses: 0, or the DeviceError "cuBLAS not found ..." (every call
 * after a failure gives it again). Needs no GPU. */
int dlx_cuda_blas_load(dlx_error *err);

/* The backend entry matmul of cuda:N (backend.h's dlx_matmul_request): TypeError for dtypes
 * cuBLAS has no product for (bool, integers), then dlx_cuda_blas_load's DeviceError. */
int dlx_cuda_matmul_tensor(const dlx_matmul_request *r, dlx_error *err);

/* X of A X = B (A^H X = B with adjoint) on the current stream of device_id (current): a (n x n,
 * leading dim lda) triangular, upper or lower, unit diagonal or not; b (n x k, ldb)
 * overwritten. float32, float64, complex64, complex128. Loads cuBLAS (its DeviceError
 * otherwise). */
int dlx_cuda_blas_trsm(int32_t device_id, dlx_dtype dtype, bool upper, bool adjoint, bool unit,
                       int64_t n, int64_t k, const void *a, int64_t lda, void *b, int64_t ldb,
                       dlx_error *err);

/* cuBLAS's batched LU routines for count small n x n matrices, on the current stream of
 * device_id (current): a, b and out are arrays on the device of the count matrices' addresses,
 * ipiv the count * n int32 pivots (1-based, as LAPACK's), info count ints on the device (> 0:
 * U(info, info) is exactly zero, the factorisation completed). getrf factors a in place; getrs
 * overwrites each b (n x k) with A^-1 b from getrf's factors; matinv writes A^-1 to out (n <
 * 32), a left as it was. */
int dlx_cuda_blas_getrf_batched(int32_t device_id, dlx_dtype dtype, int n, void *const *a, int lda,
                                int *ipiv, int *info, int count, dlx_error *err);
int dlx_cuda_blas_getrs_batched(int32_t device_id, dlx_dtype dtype, int n, int k, void *const *a,
                                int lda, const int *ipiv, void *const *b, int ldb, int count,
                                dlx_error *err);
int dlx_cuda_blas_matinv_batched(int32_t device_id, dlx_dtype dtype, int n, void *const *a, int lda,
                                 void *const *out, int ldo, int *info, int count, dlx_error *err);

#endif
