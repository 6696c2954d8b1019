/* builtin.c -- the backends compiled into this dlx, as Lua's linit.c lists its standard
 * libraries: the one place that knows which DLX_WITH_* a build has. It also describes the
 * backends that were left out. */
#include "backends/builtin.h"

#include "core/device.h"

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

/* Stand-ins for the backends this build left out: what their tables say of their memory, with
 * no entries, so that the core names their devices ("cuda_host", not "cuda_host:0") and refuses
 * misaligned CUDA imports the same in every build (c.test_cuda expects the same traits of them
 * as of the real tables). rocm_host, DLPack's pinned ROCm memory, is host memory that no backend
 * serves. */
static const dlx_backend left_out[] = {
#ifndef DLX_WITH_CUDA
    {.name = "cuda", .device_type = kDLCUDA, .aligned_elements = true},
    {.name = "cuda_host",
     .device_type = kDLCUDAHost,
     .host_accessible = true,
     .aligned_elements = true},
    {.name = "cuda_managed",
     .device_type = kDLCUDAManaged,
     .host_accessible = true,
     .aligned_elements = true},
#endif
    {.name = "rocm_host", .device_type = kDLROCMHost, .host_accessible = true},
};

const dlx_backend *dlx_backend_described(DLDeviceType type) {
  const dlx_backend *built = dlx_backend_for(type);
  if (built != NULL) return built;
  for (size_t i = 0; i < sizeof left_out / sizeof left_out[0]; i++)
    if (left_out[i].device_type == type) return &left_out[i];
  return NULL;
}
