/* device.c -- the backend registry and device names. The backends built in are listed by
 * src/backends/builtin.c (dlx_backends); one that finds no driver or device reports zero
 * devices. */
#include "core/device.h"

#include <stdio.h>
#include <string.h>

static const char *const type_names[] = {
    [kDLCPU] = "cpu",
    [kDLCUDA] = "cuda",
    [kDLCUDAHost] = "cuda_host",
    [kDLOpenCL] = "opencl",
    [kDLVulkan] = "vulkan",
    [kDLMetal] = "metal",
    [kDLVPI] = "vpi",
    [kDLROCM] = "rocm",
    [kDLROCMHost] = "rocm_host",
    [kDLExtDev] = "ext_dev",
    [kDLCUDAManaged] = "cuda_managed",
    [kDLOneAPI] = "oneapi",
    [kDLWebGPU] = "webgpu",
    [kDLHexagon] = "hexagon",
    [kDLMAIA] = "maia",
    [kDLTrn] = "trn",
};
#define NUM_TYPE_NAMES ((int)(sizeof type_names / sizeof type_names[0]))

const dlx_backend *dlx_backend_for(DLDeviceType type) {
  int count;
  const dlx_backend *const *all = dlx_backends(&count);
  for (int i = 0; i < count; i++) {
    if (all[i]->device_type == type) return all[i];
  }
  return NULL;
}

const dlx_backend *dlx_host_backend(void) { return dlx_backend_for(kDLCPU); }

int dlx_device_check(DLDevice device, dlx_error *err) {
  const char *name = dlx_device_type_name(device.device_type);
  const dlx_backend *backend = dlx_backend_for(device.device_type);
  int count;
  if (name == NULL)
    return dlx_fail(err, DLX_DEVICE_ERROR, "unknown device type %d", (int)device.device_type);
  if (backend == NULL)
    return dlx_fail(err, DLX_DEVICE_ERROR,
                    "device '%s' is not available: dlx was built without a %s backend", name, name);
  count = backend->device_count();
  if (device.device_id < 0 || device.device_id >= count) {
    char buf[48];
    return dlx_fail(err, DLX_DEVICE_ERROR, "device '%s' is not available (%d %s device%s found)",
                    dlx_device_format(device, buf, sizeof buf), count, name, count == 1 ? "" : "s");
  }
  return 0;
}

const char *dlx_device_type_name(int32_t type) {
  if (type < 0 || type >= NUM_TYPE_NAMES) return NULL;
  return type_names[type];
}

int dlx_device_type_from_name(const char *name, DLDeviceType *out) {
  for (int i = 0; i < NUM_TYPE_NAMES; i++) {
    if (type_names[i] != NULL && strcmp(type_names[i], name) == 0) {
      *out = (DLDeviceType)i;
      return 0;
    }
  }
  return -1;
}

bool dlx_device_type_is_host_like(int32_t type) {
  const dlx_backend *backend = dlx_backend_described((DLDeviceType)type);
  return backend != NULL && backend->host_accessible;
}

const char *dlx_device_format(DLDevice device, char *buf, size_t size) {
  const char *name = dlx_device_type_name(device.device_type);
  if (name == NULL)
    snprintf(buf, size, "device_type_%d:%d", (int)device.device_type, (int)device.device_id);
  else if (dlx_device_type_is_host_like(device.device_type) && device.device_id == 0)
    snprintf(buf, size, "%s", name);
  else
    snprintf(buf, size, "%s:%d", name, (int)device.device_id);
  return buf;
}

int dlx_not_implemented(dlx_error *err, const char *what, DLDevice device) {
  char name[48];
  return dlx_fail(err, DLX_DEVICE_ERROR, "%s is not implemented on %s yet" DLX_MOVE_TO_CPU_HINT,
                  what, dlx_device_format(device, name, sizeof name));
}
