/* solver.h -- the CUDA backend's decompositions through cuSOLVER, opened at run time
 * (solver.c). No CUDA header: the C tests include it. */
#ifndef DLX_CUDA_SOLVER_H
#define DLX_CUDA_SOLVER_H

#include "core/backend.h"
#include "core/error.h"

/* Opens cuSOLVER once per process ($DLX_CUSOLVER_LIBRARY when set, else libcusolver.so.12,
 * .11, .so) and resolves the functions dlx uses: 0, or the DeviceError "cuSOLVER not found ..."
 * (every call after a failure gives it again). Needs no GPU. */
int dlx_cuda_solver_load(dlx_error *err);

/* The optional routines the loaded cuSOLVER has: bit 0 potrfBatched (all four types), bit 1
 * XsyevBatched, bit 2 Xgeev (eig); 0 before a successful load. */
int dlx_cuda_solver_batched(void);

/* The backend entry linalg of cuda:N (backend.h's dlx_linalg_request): linalg_run.h's mapping
 * with cuSOLVER and cuBLAS (lstsq through QR, for matrices of full rank; eig a DeviceError
 * where the library has no cusolverDnXgeev). */
int dlx_cuda_linalg_tensor(dlx_linalg_request *r, dlx_error *err);

#endif
