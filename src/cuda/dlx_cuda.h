/* dlx_cuda.h -- the CUDA backend's own entry points beyond the dlx_backend tables, for the Lua
 * binding (dlx.cuda.*). Free of CUDA headers: the binding compiles without the toolkit. Only
 * present when dlx is built with DLX_WITH_CUDA. */
#ifndef DLX_CUDA_DLX_CUDA_H
#define DLX_CUDA_DLX_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "backends/builtin.h"
#include "core/backend.h"

/* Bytes of device memory in use by tensors, and held in the caching allocator's pool. */
size_t dlx_cuda_memory_allocated(int32_t device_id);
size_t dlx_cuda_memory_cached(int32_t device_id);
/* Returns the pooled blocks of every device to CUDA. */
int dlx_cuda_empty_cache(dlx_error *err);
/* The calling thread's current CUDA device (cudaGetDevice), -1 when there is none. dlx makes
 * a tensor's device current around each call and restores this one afterwards. */
int dlx_cuda_current_device(void);
/* Queues a kernel that keeps the device busy for about `cycles` clock cycles on the current
 * stream: for tests that check the order of work across streams. */
int dlx_cuda_busy_wait(int32_t device_id, int64_t cycles, dlx_error *err);

#endif
