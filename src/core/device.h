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
/* The built-in backend of this device type, or else the stand-in of one this build left out:
 * its table's name, device type and memory traits (host_accessible, aligned_elements) but no
 * entries, so that devices are named and imports checked the same with and without it. NULL
 * for a device type no backend of dlx describes. Defined by src/backends/builtin.c. */
const dlx_backend *dlx_backend_described(DLDeviceType type);
/* 0 when device exists now; DeviceError naming what is missing otherwise. */
int dlx_device_check(DLDevice device, dlx_error *err);

/* The backend that computes on host memory (the CPU's), from the registry. The core runs it on
 * the memory of backends with prepare_host_access; a backend that stages work through host
 * memory (a copy of packed fp4 data, a complex sum, the bytes of a scalar) calls it too, and
 * never names another backend's table. */
const dlx_backend *dlx_host_backend(void);

/* The backend whose compute entries (backend.h) run on the memory of `buffer`: the buffer's own,
 * or the host backend for memory it computes on for another backend (one with
 * prepare_host_access). No waiting: this is for the checks of optional entries. */
static inline const dlx_backend *dlx_compute_backend(const dlx_buffer *buffer) {
  const dlx_backend *own = buffer->backend;
  return own->prepare_host_access == NULL ? own : dlx_host_backend();
}

/* Every call of a compute entry goes through here: *backend = dlx_compute_backend(t->buffer),
 * once t's memory is ready for it (after its backend's prepare_host_access, for memory the host
 * backend computes on). */
static inline int dlx_compute_on(const dlx_tensor *t, const dlx_backend **backend, dlx_error *err) {
  const dlx_backend *own = t->buffer->backend;
  *backend = dlx_compute_backend(t->buffer);
  return own->prepare_host_access == NULL
             ? 0
             : own->prepare_host_access(t->buffer->device.device_id, err);
}

/* "cpu", "cuda", "cuda_host", "opencl", ..., "trn"; NULL for a value DLPack does not define. */
const char *dlx_device_type_name(int32_t type);
/* 0 and *out on success, -1 for an unknown name. */
int dlx_device_type_from_name(const char *name, DLDeviceType *out);
/* Device types of host memory (their backend's host_accessible, built or not), whose id is
 * always 0. */
bool dlx_device_type_is_host_like(int32_t type);
/* Writes "cpu", "cuda:0", "cuda_host", ... into buf; returns buf. */
const char *dlx_device_format(DLDevice device, char *buf, size_t size);
/* The DeviceError of an op whose backend entry the device's backend lacks: "<what> is not
 * implemented on <device> yet: move the tensor to the CPU first (t:to("cpu"))" (the CPU backend
 * has every entry). Returns DLX_DEVICE_ERROR. */
int dlx_not_implemented(dlx_error *err, const char *what, DLDevice device);
/* What the DeviceErrors of a missing entry or kernel end with. */
#define DLX_MOVE_TO_CPU_HINT ": move the tensor to the CPU first (t:to(\"cpu\"))"
static inline bool dlx_device_equal(DLDevice a, DLDevice b) {
  return a.device_type == b.device_type && a.device_id == b.device_id;
}

#endif
