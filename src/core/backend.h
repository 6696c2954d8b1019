/* backend.h -- the table of operations every device backend provides. The core validates and
 * prepares arguments (shapes, dtypes, broadcasting, overlap, read-only) before it calls a
 * backend, so kernels only see well-formed requests, documented per entry below. */
#ifndef DLX_CORE_BACKEND_H
#define DLX_CORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dlpack/dlpack.h"
#include "error.h"
#include "scalar.h"
#include "tensor.h"

typedef enum dlx_reduce_op {
  DLX_REDUCE_SUM,
  DLX_REDUCE_PROD,
  DLX_REDUCE_MEAN,
  DLX_REDUCE_MIN,
  DLX_REDUCE_MAX,
  DLX_REDUCE_ARGMIN,
  DLX_REDUCE_ARGMAX,
  DLX_REDUCE_ALL,
  DLX_REDUCE_ANY
} dlx_reduce_op;

typedef struct dlx_backend {
  const char *name; /* "cpu", "cuda", ... */
  DLDeviceType device_type;
  bool host_accessible; /* the CPU can read and write its memory directly */

  /* Devices of this type that can be used now; 0 when the driver or device is missing. */
  int (*device_count)(void);

  /* nbytes may be 0 (may then return NULL without error). Returns NULL and sets err
   * (MemoryError) on failure. */
  void *(*alloc)(int32_t device_id, size_t nbytes, dlx_error *err);
  void (*free)(int32_t device_id, void *ptr, size_t nbytes);

  /* Element-wise copy dst[i] = cast(src[i]).
   * - dst and src live on this backend's device, have the same ndim and shape (the core has
   *   already broadcast src: its strides may be 0), and any strides, negative ones included;
   * - dst has no internal overlap and does not overlap src (the core copies through a
   *   temporary otherwise);
   * - dtypes differ only when both are computable (not DLX_KIND_STORAGE); storage-only dtypes
   *   are copied bit for bit between identical dtypes, sub-byte ones element by element.
   * Casting rules: round to nearest even (float16, bfloat16, float32); int to int wraps
   * (two's complement); float to int truncates toward zero, NaN gives 0 and out-of-range values
   * saturate; anything to bool is != 0 (NaN is true, complex is true when either part is);
   * bool to number is 0 or 1; complex to real drops the imaginary part. */
  int (*copy)(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err);

  /* Sets every element of dst (any strides; stride-0 dims allowed) to value, cast to dst's
   * computable dtype with the rules of copy. */
  int (*fill)(const dlx_tensor *dst, const dlx_scalar *value, dlx_error *err);

  /* Reduces src over the dims in the bitmask `dims` (bit d = dim d, 0-based) into dst.
   * - dst is fresh, C-contiguous, ndim == src->ndim, dst->shape[d] == 1 for reduced dims and
   *   src->shape[d] otherwise; dst->dtype is dlx_reduce_dtype(op, src->dtype);
   * - src has a computable dtype and any strides;
   * - SUM/PROD/MEAN: float16 and bfloat16 accumulate in float32, float32 sums at least as
   *   accurately as a pairwise sum; integers accumulate in 64 bits and wrap; MEAN of an empty
   *   extent is NaN, SUM 0, PROD 1;
   * - MIN/MAX propagate NaN; ARGMIN/ARGMAX give the first position of the extreme (or of the
   *   first NaN) as a 1-based index, flattened in row-major order over the reduced dims;
   *   the core only calls them with a non-empty reduced extent;
   * - ALL/ANY: element != 0, into bool; ALL of nothing is true, ANY false. */
  int (*reduce)(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims, const dlx_tensor *dst,
                dlx_error *err);

  /* Waits until all queued work on the device has finished (NULL for synchronous backends). */
  int (*synchronize)(int32_t device_id, dlx_error *err);

  /* ---- Entries of backends whose memory the CPU cannot address (NULL for host_accessible
   * ones). The core builds every cross-device copy from these and `copy`: it makes the source
   * contiguous on its own device, moves the bytes, then casts and scatters on the destination. */

  /* Copies nbytes between host memory and memory of device device_id: into the device when
   * to_device, out of it otherwise. Host memory may be pageable. When it returns, the host side
   * may be reused (to_device) or read (from the device). */
  int (*copy_bytes_host)(int32_t device_id, void *dst, const void *src, size_t nbytes,
                         bool to_device, dlx_error *err);
  /* Copies nbytes between two devices of this backend (the same one included). */
  int (*copy_bytes_device)(void *dst, int32_t dst_id, const void *src, int32_t src_id,
                           size_t nbytes, dlx_error *err);
} dlx_backend;

/* The CPU backend, always present (src/cpu). */
extern const dlx_backend dlx_cpu_backend;

#endif
