/* backends.c -- the three backends of CUDA memory: device memory (cuda:N), pinned host memory
 * (cuda_host) and managed memory (cuda_managed). Pinned and managed memory are host memory for
 * dlx: the host backend computes on them once every device is idle (prepare_host_access: the
 * core calls it, then the host backend's entries), and the GPU reaches them through copies. */
#include "core/ops.h"
#include "cuda/blas.h"
#include "cuda/cuda_internal.h"
#include "cuda/solver.h"

/* ---- cuda:N */

static void *device_alloc(int32_t device_id, size_t nbytes, dlx_error *err) {
  return dlx_cuda_pool_alloc(device_id, nbytes, dlx_cuda_current_stream(device_id), err);
}

static void device_free(int32_t device_id, void *ptr, size_t nbytes) {
  (void)nbytes;
  dlx_cuda_pool_free(device_id, ptr);
}

static int device_synchronize(int32_t device_id, dlx_error *err) {
  dlx_cuda_guard guard;
  cudaError_t status;
  int rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = cudaDeviceSynchronize();
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, status, "cudaDeviceSynchronize");
}

/* A producer may label managed memory kDLCUDA or kDLCUDAHost (dlpack-spec.md 8.1); the driver
 * knows better. */
static void device_refine_import(DLDevice *device, const void *data) {
  struct cudaPointerAttributes attributes;
  if (data == NULL || cudaPointerGetAttributes(&attributes, data) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  if (attributes.type == cudaMemoryTypeManaged) {
    device->device_type = kDLCUDAManaged;
    device->device_id = 0;
  }
}

const dlx_backend dlx_cuda_backend = {
    .name = "cuda",
    .device_type = kDLCUDA,
    .host_accessible = false,
    .aligned_elements = true,
    .device_count = dlx_cuda_device_count,
    .alloc = device_alloc,
    .free = device_free,
    .memory_allocated = dlx_cuda_memory_allocated,
    .memory_cached = dlx_cuda_memory_cached,
    .empty_cache = dlx_cuda_empty_cache,
    .current_device = dlx_cuda_current_device,
    .copy = dlx_cuda_copy_tensor,
    .fill = dlx_cuda_fill_tensor,
    .reduce = dlx_cuda_reduce_tensor,
    .elementwise = dlx_cuda_elementwise_tensor,
    .reduce_stat = dlx_cuda_reduce_stat_tensor,
    .along_dim = dlx_cuda_along_dim_tensor,
    .synchronize = device_synchronize,
    .copy_bytes_host = dlx_cuda_copy_bytes_host,
    .copy_bytes_device = dlx_cuda_copy_bytes_device,
    .stream = &dlx_cuda_stream_ops,
    .refine_import = device_refine_import,
    .fill_random = dlx_cuda_fill_random_tensor,
    .multinomial = dlx_cuda_multinomial_tensor,
    .sort_rows = dlx_cuda_sort_rows_tensor,
    .row_op = dlx_cuda_row_op_tensor,
    .row_ops = DLX_CUDA_ROW_OPS,
    .image_op = dlx_cuda_image_op_tensor,
    .count_op = dlx_cuda_count_op_tensor,
    .index_op = dlx_cuda_index_op_tensor,
    .matmul = dlx_cuda_matmul_tensor,
    .linalg = dlx_cuda_linalg_tensor,
};

/* ---- host-like memory: one device (id 0) as soon as there is a GPU */

static int host_like_count(void) { return dlx_cuda_device_count() > 0 ? 1 : 0; }

/* The GPU may still be writing host-like memory (a copy, a kernel on managed memory): the CPU
 * reads and writes it after every device is idle (prepare_host_access), and synchronize waits
 * for the same. device_id is 0, the one host-like device. */
static int wait_all_devices(int32_t device_id, dlx_error *err) {
  int count = dlx_cuda_device_count();
  (void)device_id;
  for (int32_t id = 0; id < count; id++) {
    int rc = device_synchronize(id, err);
    if (rc != 0) return rc;
  }
  return 0;
}

static void *pinned_alloc(int32_t device_id, size_t nbytes, dlx_error *err) {
  void *ptr = NULL;
  cudaError_t status;
  (void)device_id;
  if (nbytes == 0) return NULL;
  /* portable: pinned for every device, not only the current one */
  status = cudaHostAlloc(&ptr, nbytes, cudaHostAllocPortable);
  if (status != cudaSuccess) {
    dlx_cuda_fail(err, status, "cudaHostAlloc");
    return NULL;
  }
  return ptr;
}

static void pinned_free(int32_t device_id, void *ptr, size_t nbytes) {
  (void)device_id;
  (void)nbytes;
  if (ptr != NULL) (void)cudaFreeHost(ptr);
}

const dlx_backend dlx_cuda_host_backend = {
    .name = "cuda_host",
    .device_type = kDLCUDAHost,
    .host_accessible = true,
    .aligned_elements = true,
    .device_count = host_like_count,
    .alloc = pinned_alloc,
    .free = pinned_free,
    .synchronize = wait_all_devices,
    .prepare_host_access = wait_all_devices,
};

static void *managed_alloc(int32_t device_id, size_t nbytes, dlx_error *err) {
  void *ptr = NULL;
  cudaError_t status;
  (void)device_id;
  if (nbytes == 0) return NULL;
  status = cudaMallocManaged(&ptr, nbytes, cudaMemAttachGlobal);
  if (status != cudaSuccess) {
    dlx_cuda_fail(err, status, "cudaMallocManaged");
    return NULL;
  }
  return ptr;
}

static void managed_free(int32_t device_id, void *ptr, size_t nbytes) {
  (void)device_id;
  (void)nbytes;
  if (ptr != NULL) (void)cudaFree(ptr);
}

const dlx_backend dlx_cuda_managed_backend = {
    .name = "cuda_managed",
    .device_type = kDLCUDAManaged,
    .host_accessible = true,
    .aligned_elements = true,
    .device_count = host_like_count,
    .alloc = managed_alloc,
    .free = managed_free,
    .synchronize = wait_all_devices,
    .prepare_host_access = wait_all_devices,
    .refine_import = device_refine_import,
};
