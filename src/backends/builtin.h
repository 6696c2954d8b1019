/* builtin.h -- every backend dlx can be built with: one table each, as Lua's lualib.h declares
 * its standard libraries. builtin.c lists the ones this build has and describes the others. The
 * core reaches them only through that list (dlx_backends, dlx_backend_described, core/device.h)
 * and their tables (core/backend.h). */
#ifndef DLX_BACKENDS_BUILTIN_H
#define DLX_BACKENDS_BUILTIN_H

#include "core/backend.h"

/* src/cpu: always built. The GPU backends compute on host memory with it too. */
extern const dlx_backend dlx_cpu_backend;

/* src/cuda: built with DLX_WITH_CUDA. */
extern const dlx_backend dlx_cuda_backend;         /* kDLCUDA: cuda:N */
extern const dlx_backend dlx_cuda_host_backend;    /* kDLCUDAHost: pinned host memory */
extern const dlx_backend dlx_cuda_managed_backend; /* kDLCUDAManaged: managed memory */

/* src/ze: built with DLX_WITH_LEVEL_ZERO. */
extern const dlx_backend dlx_ze_backend; /* kDLOneAPI: oneapi:N */

#endif
