/* cuda_internal.h -- what the C files of the CUDA backend share: errors, the device guard,
 * the calling thread's current streams and the caching allocator. */
#ifndef DLX_CUDA_INTERNAL_H
#define DLX_CUDA_INTERNAL_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/error.h"

#define DLX_CUDA_MAX_DEVICES 64

/* Devices usable now (0 without a driver or a GPU); asked once. */
int dlx_cuda_device_count(void);

/* Records a failed CUDA call: MemoryError for out-of-memory, DeviceError otherwise, naming
 * `what` and CUDA's message. Clears CUDA's last error. Returns the class. */
int dlx_cuda_fail(dlx_error *err, cudaError_t status, const char *what);

/* Makes device_id the current CUDA device for the calling thread until dlx_cuda_leave, which
 * restores the previous one: other code in the process (a host, PyTorch) keeps its device. */
typedef struct dlx_cuda_guard {
  int previous;
  bool changed;
} dlx_cuda_guard;
int dlx_cuda_enter(int32_t device_id, dlx_cuda_guard *guard, dlx_error *err);
void dlx_cuda_leave(const dlx_cuda_guard *guard);

/* The calling thread's current stream on the device (the legacy default stream, 0, until set). */
cudaStream_t dlx_cuda_current_stream(int32_t device_id);

/* ---- the caching allocator (allocator.c): device memory from cudaMalloc, kept in a pool per
 * device and stream when freed, reused for a later allocation on the same stream (work queued
 * on one stream runs in order, so a block freed there may be handed out again at once); on the
 * per-thread default stream, by the same thread only (pool_tags.h). */
void *dlx_cuda_pool_alloc(int32_t device_id, size_t nbytes, cudaStream_t stream, dlx_error *err);
void dlx_cuda_pool_free(int32_t device_id, void *ptr);

/* The tables of the three backends of CUDA memory (backends.c). */
extern const dlx_backend dlx_cuda_backend;         /* kDLCUDA: cuda:N */
extern const dlx_backend dlx_cuda_host_backend;    /* kDLCUDAHost: pinned host memory */
extern const dlx_backend dlx_cuda_managed_backend; /* kDLCUDAManaged: managed memory */

/* The stream operations of dlx_cuda_backend (streams.c). */
extern const dlx_stream_ops dlx_cuda_stream_ops;

/* A reduction of src over the dims in the bitmask as [outer, extent, inner] (sizes[0..2]) over
 * contiguous memory: src itself when its layout allows it, else a contiguous copy with the
 * reduced dims last (*is_packed set, *packed holds it: the caller closes it). reduce.c. */
int dlx_cuda_three_dims(const dlx_tensor *src, uint64_t dims, dlx_tensor *packed, bool *is_packed,
                        int64_t sizes[3], dlx_error *err);

/* Entries of dlx_cuda_backend, defined in allocator.c, runtime.c, copy.c, reduce.c,
 * elementwise.c, stats.c, random.c, sort.c and indexing.c. */
size_t dlx_cuda_memory_allocated(int32_t device_id);
size_t dlx_cuda_memory_cached(int32_t device_id);
int dlx_cuda_empty_cache(dlx_error *err);
int dlx_cuda_current_device(void);
int dlx_cuda_busy_wait(int32_t device_id, int64_t cycles, dlx_error *err);
int dlx_cuda_copy_tensor(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err);
int dlx_cuda_fill_tensor(const dlx_tensor *dst, const dlx_scalar *value, dlx_error *err);
int dlx_cuda_reduce_tensor(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims,
                           const dlx_tensor *dst, dlx_error *err);
int dlx_cuda_elementwise_tensor(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in,
                                dlx_dtype compute, dlx_error *err);
int dlx_cuda_reduce_stat_tensor(dlx_stat_op op, double param, const dlx_tensor *src, uint64_t dims,
                                const dlx_tensor *dst, dlx_error *err);
int dlx_cuda_along_dim_tensor(dlx_dim_op op, const dlx_tensor *src, int32_t dim,
                              const dlx_tensor *dst, dlx_error *err);
int dlx_cuda_fill_random_tensor(const dlx_tensor *dst, const dlx_random_request *r, dlx_error *err);
int dlx_cuda_multinomial_tensor(const dlx_multinomial_request *r, dlx_error *err);
int dlx_cuda_sort_rows_tensor(const dlx_tensor *src, bool descending, const dlx_tensor *values,
                              const dlx_tensor *indices, dlx_error *err);
int dlx_cuda_index_op_tensor(dlx_index_request *r, dlx_error *err);
/* row_op for the ops of DLX_CUDA_ROW_OPS, the scans (row_op.c). */
#define DLX_CUDA_ROW_OPS                                                                           \
  ((UINT32_C(1) << DLX_ROW_CUMMAX) | (UINT32_C(1) << DLX_ROW_CUMMIN) |                             \
   (UINT32_C(1) << DLX_ROW_LOGCUMSUMEXP))
int dlx_cuda_row_op_tensor(const dlx_row_request *r, dlx_error *err);
/* image_op: pooling and resizing (image.c). */
int dlx_cuda_image_op_tensor(const dlx_image_request *r, dlx_error *err);
/* count_op (count.c). */
int dlx_cuda_count_op_tensor(const dlx_count_request *r, dlx_error *err);
int dlx_cuda_copy_bytes_host(int32_t device_id, void *dst, const void *src, size_t nbytes,
                             bool to_device, dlx_error *err);
int dlx_cuda_copy_bytes_device(void *dst, int32_t dst_id, const void *src, int32_t src_id,
                               size_t nbytes, dlx_error *err);
/* Frees the pinned staging buffers of host copies (part of empty_cache). */
void dlx_cuda_free_staging(void);

#endif
