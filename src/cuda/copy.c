/* copy.c -- copies, casts and fills on a CUDA device, and the byte moves between the host and
 * the devices. Everything is queued on the calling thread's current stream of the device. */
#include <pthread.h>
#include <string.h>

#include "core/alloc.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/ops.h"
#include "core/plan.h"
#include "core/scalar.h"
#include "cuda/cuda_internal.h"
#include "cuda/kernels.h"

/* ---- layouts */

/* The loop over dst and src (same shape): the core's plan with dims ordered by dst's strides
 * (largest first; no flips, so element 0 of each side is where the walk starts), in the
 * kernels' layout. Returns false when there is nothing to copy. */
static bool make_layout(const dlx_tensor *dst, const dlx_tensor *src, dlx_cuda_layout *l) {
  dlx_plan p;
  dlx_plan_start(&p, dst->ndim, dst->shape);
  dlx_plan_add_tensor(&p, dst);
  dlx_plan_add_tensor(&p, src);
  if (!dlx_plan_finish(&p, DLX_PLAN_ORDER)) return false;
  l->ndim = p.ndim;
  for (int32_t d = 0; d < p.ndim; d++) {
    l->shape[d] = p.shape[d];
    l->dst_strides[d] = p.strides[0][d];
    l->src_strides[d] = p.strides[1][d];
  }
  return true;
}

/* The dim to tile against the last one when the copy is a (batched) transpose: dst's last dim
 * is contiguous, src is contiguous along another dim, and both are long enough for tiles. */
static int32_t transpose_dim(const dlx_cuda_layout *l) {
  int32_t a = l->ndim - 1;
  if (l->ndim < 2 || l->dst_strides[a] != 1 || l->shape[a] < 16) return -1;
  for (int32_t c = 0; c < a; c++)
    if (l->src_strides[c] == 1 && l->shape[c] >= 16) return c;
  return -1;
}

static int check_launch(int status, const char *what, dlx_error *err) {
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, (cudaError_t)status, what);
}

/* ---- copies through the host, for what the kernels do not handle (packed fp4/fp6) */

/* The bytes a view touches, relative to its buffer's data, starting at a byte where an element
 * starts too (every 3 bytes for fp6), so that the view's offset stays whole in elements. */
static void byte_range(const dlx_tensor *t, size_t *first, size_t *count) {
  int64_t lo, hi, bits = dlx_dtype_bits(t->dtype);
  int64_t per_unit = bits % 8 == 0 ? 1 : (bits == 6 ? 4 : 8 / bits); /* elements per whole bytes */
  dlx_tensor_extent(t, &lo, &hi);
  *first = (size_t)(lo / per_unit * per_unit * bits / 8);
  *count = (size_t)((hi * bits + 7) / 8) - *first;
}

/* A host copy of the bytes t touches, and a CPU view of them with t's layout. */
static int stage_on_host(const dlx_tensor *t, dlx_tensor *host, void **bytes, dlx_error *err) {
  DLDevice cpu = {kDLCPU, 0};
  size_t first, count;
  int rc;
  byte_range(t, &first, &count);
  *bytes = dlx_malloc(count > 0 ? count : 1);
  if (*bytes == NULL) return dlx_fail(err, DLX_MEMORY_ERROR, "out of memory staging a copy");
  rc = dlx_cuda_copy_bytes_host(t->buffer->device.device_id, *bytes,
                                (char *)t->buffer->data + first, count, false, err);
  if (rc == 0) {
    *host = *t;
    host->offset -= (int64_t)first * 8 / dlx_dtype_bits(t->dtype);
    host->buffer = dlx_buffer_wrap(cpu, *bytes, count, NULL, NULL, err);
    if (host->buffer == NULL) rc = DLX_MEMORY_ERROR;
  }
  if (rc != 0) dlx_free(*bytes);
  return rc;
}

static void unstage(dlx_tensor *host, void *bytes) {
  dlx_tensor_close(host);
  dlx_free(bytes);
}

static int copy_through_host(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  dlx_tensor hdst, hsrc;
  void *dbytes, *sbytes;
  size_t first, count;
  int rc = stage_on_host(dst, &hdst, &dbytes, err);
  if (rc != 0) return rc;
  rc = stage_on_host(src, &hsrc, &sbytes, err);
  if (rc == 0) {
    rc = dlx_host_backend()->copy(&hdst, &hsrc, err);
    byte_range(dst, &first, &count);
    if (rc == 0)
      rc = dlx_cuda_copy_bytes_host(dst->buffer->device.device_id,
                                    (char *)dst->buffer->data + first, dbytes, count, true, err);
    unstage(&hsrc, sbytes);
  }
  unstage(&hdst, dbytes);
  return rc;
}

/* ---- the backend's copy and fill */

static int copy_same_dtype(const dlx_tensor *dst, const dlx_tensor *src, const dlx_cuda_layout *l,
                           cudaStream_t stream, dlx_error *err) {
  int size = dlx_dtype_bits(dst->dtype) / 8;
  int64_t numel = dlx_tensor_numel(dst);
  int32_t c;
  if (l->ndim == 0 || (l->ndim == 1 && l->dst_strides[0] == 1 && l->src_strides[0] == 1))
    return check_launch(cudaMemcpyAsync(dlx_tensor_first_byte(dst), dlx_tensor_first_byte(src),
                                        (size_t)(numel * size), cudaMemcpyDeviceToDevice, stream),
                        "cudaMemcpyAsync", err);
  c = transpose_dim(l);
  if (c >= 0)
    return check_launch(dlx_cuda_transpose_copy(dlx_tensor_first_byte(dst),
                                                dlx_tensor_first_byte(src), l, c, size, stream),
                        "the transpose kernel", err);
  return check_launch(dlx_cuda_strided_copy(dlx_tensor_first_byte(dst), dlx_tensor_first_byte(src),
                                            l, numel, size, stream),
                      "the strided copy kernel", err);
}

int dlx_cuda_copy_tensor(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  int32_t device_id = dst->buffer->device.device_id;
  cudaStream_t stream = dlx_cuda_current_stream(device_id);
  dlx_cuda_layout l;
  dlx_cuda_guard guard;
  int rc;
  if (dlx_dtype_bits(dst->dtype) % 8 != 0) return copy_through_host(dst, src, err);
  if (!make_layout(dst, src, &l)) return 0; /* no elements */
  rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  if (dst->dtype == src->dtype)
    rc = copy_same_dtype(dst, src, &l, stream, err);
  else
    rc = check_launch(dlx_cuda_cast_copy(dlx_tensor_first_byte(dst), (int)dst->dtype,
                                         dlx_tensor_first_byte(src), (int)src->dtype, &l,
                                         dlx_tensor_numel(dst), stream),
                      "the cast kernel", err);
  dlx_cuda_leave(&guard);
  return rc;
}

static bool all_zero(const unsigned char *bytes, int n) {
  for (int i = 0; i < n; i++)
    if (bytes[i] != 0) return false;
  return true;
}

int dlx_cuda_fill_tensor(const dlx_tensor *dst, const dlx_scalar *value, dlx_error *err) {
  int32_t device_id = dst->buffer->device.device_id;
  cudaStream_t stream = dlx_cuda_current_stream(device_id);
  int size = dlx_dtype_bits(dst->dtype) / 8;
  int64_t numel = dlx_tensor_numel(dst);
  _Alignas(16) unsigned char pattern[16];
  dlx_cuda_guard guard;
  dlx_cuda_layout l;
  int rc = dlx_scalar_to_bytes(dst->dtype, value, pattern, err);
  if (rc != 0 || !make_layout(dst, dst, &l)) return rc;
  rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  if (all_zero(pattern, size) && (l.ndim == 0 || (l.ndim == 1 && l.dst_strides[0] == 1)))
    rc =
        check_launch(cudaMemsetAsync(dlx_tensor_first_byte(dst), 0, (size_t)(numel * size), stream),
                     "cudaMemsetAsync", err);
  else
    rc = check_launch(dlx_cuda_fill(dlx_tensor_first_byte(dst), &l, numel, pattern, size, stream),
                      "the fill kernel", err);
  dlx_cuda_leave(&guard);
  return rc;
}

int dlx_cuda_busy_wait(int32_t device_id, int64_t cycles, dlx_error *err) {
  dlx_cuda_guard guard;
  int rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  rc = check_launch(dlx_cuda_spin(cycles, dlx_cuda_current_stream(device_id)), "the spin kernel",
                    err);
  dlx_cuda_leave(&guard);
  return rc;
}

/* ---- bytes between the host and a device */

#define STAGING_BYTES ((size_t)8 << 20)

/* Two pinned buffers per device: the CPU fills (or drains) one while the copy engine moves the
 * other, so pageable copies overlap the memcpy with the transfer. */
typedef struct staging {
  void *buffer[2];
  cudaEvent_t done[2];
  bool ready;
} staging;

static staging stagings[DLX_CUDA_MAX_DEVICES];
static pthread_mutex_t staging_lock = PTHREAD_MUTEX_INITIALIZER;

static cudaError_t staging_open(staging *st) {
  cudaError_t status = cudaSuccess;
  if (st->ready) return cudaSuccess;
  for (int k = 0; k < 2 && status == cudaSuccess; k++) {
    status = cudaHostAlloc(&st->buffer[k], STAGING_BYTES, cudaHostAllocDefault);
    if (status == cudaSuccess)
      status = cudaEventCreateWithFlags(&st->done[k], cudaEventDisableTiming);
  }
  st->ready = status == cudaSuccess;
  return status;
}

void dlx_cuda_free_staging(void) {
  pthread_mutex_lock(&staging_lock);
  for (int id = 0; id < DLX_CUDA_MAX_DEVICES; id++) {
    staging *st = &stagings[id];
    if (!st->ready) continue;
    for (int k = 0; k < 2; k++) {
      (void)cudaFreeHost(st->buffer[k]);
      (void)cudaEventDestroy(st->done[k]);
    }
    st->ready = false;
  }
  pthread_mutex_unlock(&staging_lock);
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

static cudaError_t staged_to_device(staging *st, char *dst, const char *src, size_t n,
                                    cudaStream_t stream) {
  cudaError_t status = cudaSuccess;
  for (size_t off = 0, i = 0; off < n && status == cudaSuccess; off += STAGING_BYTES, i++) {
    int k = (int)(i % 2);
    size_t len = min_size(STAGING_BYTES, n - off);
    status = cudaEventSynchronize(st->done[k]); /* its previous transfer is over */
    if (status != cudaSuccess) break;
    memcpy(st->buffer[k], src + off, len);
    status = cudaMemcpyAsync(dst + off, st->buffer[k], len, cudaMemcpyHostToDevice, stream);
    if (status == cudaSuccess) status = cudaEventRecord(st->done[k], stream);
  }
  return status;
}

static cudaError_t queue_to_staging(staging *st, int k, const char *src, size_t len,
                                    cudaStream_t stream) {
  cudaError_t status = cudaMemcpyAsync(st->buffer[k], src, len, cudaMemcpyDeviceToHost, stream);
  return status == cudaSuccess ? cudaEventRecord(st->done[k], stream) : status;
}

static cudaError_t staged_to_host(staging *st, char *dst, const char *src, size_t n,
                                  cudaStream_t stream) {
  cudaError_t status = queue_to_staging(st, 0, src, min_size(STAGING_BYTES, n), stream);
  for (size_t off = 0, i = 0; off < n && status == cudaSuccess; off += STAGING_BYTES, i++) {
    int k = (int)(i % 2);
    size_t len = min_size(STAGING_BYTES, n - off), next = off + STAGING_BYTES;
    if (next < n) /* the next chunk moves while this one is copied out */
      status = queue_to_staging(st, 1 - k, src + next, min_size(STAGING_BYTES, n - next), stream);
    if (status == cudaSuccess) status = cudaEventSynchronize(st->done[k]);
    if (status == cudaSuccess) memcpy(dst + off, st->buffer[k], len);
  }
  return status;
}

/* Pinned and managed memory can be the direct end of a DMA transfer; pageable memory cannot. */
static bool direct_host_memory(const void *ptr) {
  struct cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost || attributes.type == cudaMemoryTypeManaged;
}

static cudaError_t move_host_bytes(int32_t device_id, void *dst, const void *src, size_t nbytes,
                                   bool to_device, cudaStream_t stream) {
  cudaError_t status;
  staging *st = &stagings[device_id];
  if (direct_host_memory(to_device ? src : dst)) {
    status = cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, stream);
    return status == cudaSuccess ? cudaStreamSynchronize(stream) : status;
  }
  pthread_mutex_lock(&staging_lock);
  status = staging_open(st);
  if (status == cudaSuccess)
    status = to_device ? staged_to_device(st, dst, src, nbytes, stream)
                       : staged_to_host(st, dst, src, nbytes, stream);
  if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
  pthread_mutex_unlock(&staging_lock);
  return status;
}

int dlx_cuda_copy_bytes_host(int32_t device_id, void *dst, const void *src, size_t nbytes,
                             bool to_device, dlx_error *err) {
  dlx_cuda_guard guard;
  cudaError_t status;
  int rc;
  if (nbytes == 0) return 0;
  rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status =
      move_host_bytes(device_id, dst, src, nbytes, to_device, dlx_cuda_current_stream(device_id));
  dlx_cuda_leave(&guard);
  return status == cudaSuccess
             ? 0
             : dlx_cuda_fail(err, status,
                             to_device ? "a copy to the device" : "a copy to the host");
}

/* ---- bytes between devices */

/* `waiter` (a stream of waiter_id) holds back until the work queued so far on `signal` (a
 * stream of signal_id) is done. The record and the wait each run with their stream's device
 * current: the default stream handles (0, cudaStreamLegacy, cudaStreamPerThread) name the
 * stream of the *current* device, so a wait queued with the signal's device current would land
 * on the wrong device's default stream and order nothing. Leaves waiter_id current on success. */
static cudaError_t order_after(int32_t waiter_id, cudaStream_t waiter, int32_t signal_id,
                               cudaStream_t signal) {
  cudaEvent_t event;
  cudaError_t status = cudaSetDevice(signal_id);
  if (status != cudaSuccess) return status;
  status = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  if (status != cudaSuccess) return status;
  status = cudaEventRecord(event, signal);
  if (status == cudaSuccess) status = cudaSetDevice(waiter_id);
  if (status == cudaSuccess) status = cudaStreamWaitEvent(waiter, event, 0);
  (void)cudaEventDestroy(event); /* released once the wait is over */
  return status;
}

/* A peer copy runs on the destination's stream after the source's pending work, and the
 * source's stream then waits for it: the source block may go back to its stream's pool. */
static cudaError_t peer_copy(void *dst, int32_t dst_id, const void *src, int32_t src_id,
                             size_t nbytes) {
  cudaStream_t dst_stream = dlx_cuda_current_stream(dst_id);
  cudaStream_t src_stream = dlx_cuda_current_stream(src_id);
  cudaError_t status = order_after(dst_id, dst_stream, src_id, src_stream);
  if (status == cudaSuccess)
    status = cudaMemcpyPeerAsync(dst, dst_id, src, src_id, nbytes, dst_stream);
  if (status == cudaSuccess) status = order_after(src_id, src_stream, dst_id, dst_stream);
  /* end on dst_id on every path: the caller's guard entered dst_id and restores from there
   * (it changes nothing when dst_id was already the caller's device) */
  (void)cudaSetDevice(dst_id);
  return status;
}

int dlx_cuda_copy_bytes_device(void *dst, int32_t dst_id, const void *src, int32_t src_id,
                               size_t nbytes, dlx_error *err) {
  dlx_cuda_guard guard;
  cudaError_t status;
  int rc;
  if (nbytes == 0) return 0;
  rc = dlx_cuda_enter(dst_id, &guard, err);
  if (rc != 0) return rc;
  if (dst_id == src_id)
    status = cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice,
                             dlx_cuda_current_stream(dst_id));
  else
    status = peer_copy(dst, dst_id, src, src_id, nbytes);
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, status, "a copy between devices");
}
