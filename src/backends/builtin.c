/* builtin.c -- the backends compiled into this dlx, as Lua's linit.c lists its standard
 * libraries: the one place that knows which DLX_WITH_* a build has. It also answers the public
 * calls of backends that were left out. */
#include "backends/builtin.h"

#include "core/device.h"
#include "dlx.h"

static const dlx_backend *const builtin[] = {
    &dlx_cpu_backend,
#ifdef DLX_WITH_CUDA
    &dlx_cuda_backend, &dlx_cuda_host_backend, &dlx_cuda_managed_backend,
#endif
#ifdef DLX_WITH_LEVEL_ZERO
    &dlx_ze_backend,
#endif
};

const dlx_backend *const *dlx_backends(int *count) {
  *count = (int)(sizeof builtin / sizeof builtin[0]);
  return builtin;
}

#ifndef DLX_WITH_LEVEL_ZERO
/* dlx.h; src/ze/ze_runtime.c has the real one. */
int dlx_share_level_zero_context(void *driver, void *context) {
  (void)driver;
  (void)context;
  return DLX_DEVICE_ERROR; /* not built */
}
#endif
