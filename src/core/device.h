/* device.h -- the registry of backends and the names of device types. */
#ifndef DLX_CORE_DEVICE_H
#define DLX_CORE_DEVICE_H

#include <stdbool.h>

#include "core/backend.h"
#include "core/error.h"
#include "dlpack/dlpack.h"

/* The backend serving this device type, or NULL when dlx has none built in. */
const dlx_backend *dlx_backend_for(DLDeviceType type);
/* All built-in backends, CPU first; *count receives their number. Defined by the list of
 * backends, src/backends/builtin.c. */
const dlx_backend *const *dlx_backends(int *count);
/* 0 when device exists now; DeviceError naming what is missing otherwise. */
int dlx_device_check(DLDevice device, dlx_error *err);

/* "cpu", "cuda", "cuda_host", "opencl", ..., "trn"; NULL for a value DLPack does not define. */
const char *dlx_device_type_name(int32_t type);
/* 0 and *out on success, -1 for an unknown name. */
int dlx_device_type_from_name(const char *name, DLDeviceType *out);
/* Device types whose id is always 0 (CPU, pinned and managed memory). */
bool dlx_device_type_is_host_like(int32_t type);
/* Writes "cpu", "cuda:0", "cuda_host", ... into buf; returns buf. */
const char *dlx_device_format(DLDevice device, char *buf, size_t size);
/* The DeviceError of an op whose backend entry the device's backend lacks: "<what> is not
 * implemented on <device> yet". Returns DLX_DEVICE_ERROR. */
int dlx_not_implemented(dlx_error *err, const char *what, DLDevice device);
static inline bool dlx_device_equal(DLDevice a, DLDevice b) {
  return a.device_type == b.device_type && a.device_id == b.device_id;
}

#endif
