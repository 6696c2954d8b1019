/* level_zero.c -- dlx_share_level_zero_context (dlx.h), for Level Zero and SYCL hosts: passed to
 * the share_context entry of the backend of oneapi devices, a DeviceError where this build has
 * none. */
#include "dlx.h"

#include "core/device.h"

int dlx_share_level_zero_context(void *driver, void *context) {
  const dlx_backend *backend = dlx_backend_for(kDLOneAPI);
  if (backend == NULL || backend->share_context == NULL) return DLX_DEVICE_ERROR; /* not built */
  return backend->share_context(driver, context);
}
