/* runtime.c -- device discovery, errors and the device guard of the CUDA backend. */
#include <stdatomic.h>
#include <stdio.h>

#include "cuda/cuda_internal.h"

int dlx_cuda_device_count(void) {
  /* -1: not asked yet. Asking twice from two threads at once is harmless. */
  static atomic_int count = -1;
  int n = atomic_load(&count);
  if (n < 0) {
    /* Without a driver (the static runtime finds no libcuda) or a GPU this fails: zero
     * devices, never an error, so that require "dlx" works on any machine. */
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      n = 0;
      (void)cudaGetLastError();
    }
    if (n > DLX_CUDA_MAX_DEVICES) n = DLX_CUDA_MAX_DEVICES;
    atomic_store(&count, n);
  }
  return n;
}

int dlx_cuda_fail(dlx_error *err, cudaError_t status, const char *what) {
  dlx_errclass code = status == cudaErrorMemoryAllocation ? DLX_MEMORY_ERROR : DLX_DEVICE_ERROR;
  (void)cudaGetLastError();
  return dlx_fail(err, code, "%s failed: %s (%s)", what, cudaGetErrorString(status),
                  cudaGetErrorName(status));
}

int dlx_cuda_enter(int32_t device_id, dlx_cuda_guard *guard, dlx_error *err) {
  cudaError_t status = cudaGetDevice(&guard->previous);
  guard->changed = false;
  if (status != cudaSuccess) return dlx_cuda_fail(err, status, "cudaGetDevice");
  if (guard->previous == device_id) return 0;
  status = cudaSetDevice(device_id);
  if (status != cudaSuccess) return dlx_cuda_fail(err, status, "cudaSetDevice");
  guard->changed = true;
  return 0;
}

void dlx_cuda_leave(const dlx_cuda_guard *guard) {
  if (guard->changed) (void)cudaSetDevice(guard->previous);
}

int dlx_cuda_current_device(void) {
  int device;
  if (dlx_cuda_device_count() == 0 || cudaGetDevice(&device) != cudaSuccess) return -1;
  return device;
}
