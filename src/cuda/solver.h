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

/* The batched routines the loaded cuSOLVER has: bit 0 potrfBatched (all four types), bit 1
 * XsyevBatched; 0 before a successful load. */
int dlx_cuda_solver_batched(void);

/* The backend entry linalg of cuda:N (backend.h's dlx_linalg_request): linalg_plan.h's mapping
 * with cuSOLVER and cuBLAS; eig and lstsq are a DeviceError (not mapped yet). */
int dlx_cuda_linalg_tensor(dlx_linalg_request *r, dlx_error *err);

#endif
