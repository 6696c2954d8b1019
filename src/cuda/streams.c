/* streams.c -- the current stream of each device (per thread, like PyTorch's) and the stream
 * operations of backend.h for CUDA, with DLPack's stream values (dlpack-spec.md 6.2). */
#include "cuda/cuda_internal.h"

/* NULL (0) is the legacy default stream until a thread sets another. */
static _Thread_local cudaStream_t current_streams[DLX_CUDA_MAX_DEVICES];

static bool valid_device(int32_t device_id) {
  return device_id >= 0 && device_id < DLX_CUDA_MAX_DEVICES;
}

cudaStream_t dlx_cuda_current_stream(int32_t device_id) {
  return valid_device(device_id) ? current_streams[device_id] : NULL;
}

static dlx_stream_handle stream_current(int32_t device_id) {
  return (dlx_stream_handle)dlx_cuda_current_stream(device_id);
}

static void stream_set_current(int32_t device_id, dlx_stream_handle stream) {
  if (valid_device(device_id)) current_streams[device_id] = (cudaStream_t)stream;
}

/* Non-blocking: a dlx stream does not wait for the legacy default stream implicitly; every
 * order dlx needs is made explicit with events. */
static int stream_create(int32_t device_id, dlx_stream_handle *out, dlx_error *err) {
  dlx_cuda_guard guard;
  cudaStream_t stream;
  cudaError_t status;
  int rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  dlx_cuda_leave(&guard);
  if (status != cudaSuccess) return dlx_cuda_fail(err, status, "cudaStreamCreate");
  *out = (dlx_stream_handle)stream;
  return 0;
}

static void stream_destroy(int32_t device_id, dlx_stream_handle stream) {
  dlx_cuda_guard guard;
  if (dlx_cuda_enter(device_id, &guard, NULL) != 0) return;
  /* Its queued work finishes first: the allocator keeps blocks freed on this stream under its
   * handle, and a stream made later may get the same handle value and reuse them at once. */
  (void)cudaStreamSynchronize((cudaStream_t)stream);
  (void)cudaStreamDestroy((cudaStream_t)stream);
  dlx_cuda_leave(&guard);
}

static int stream_synchronize(int32_t device_id, dlx_stream_handle stream, dlx_error *err) {
  dlx_cuda_guard guard;
  cudaError_t status;
  int rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = cudaStreamSynchronize((cudaStream_t)stream);
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, status, "cudaStreamSynchronize");
}

/* The legacy default stream has two names: 0 and cudaStreamLegacy (1). */
static bool same_stream(dlx_stream_handle a, dlx_stream_handle b) {
  dlx_stream_handle legacy = (dlx_stream_handle)cudaStreamLegacy;
  if (a == 0) a = legacy;
  if (b == 0) b = legacy;
  return a == b;
}

/* An event recorded on our current stream, waited for by the consumer's: the consumer's
 * queue holds back until our work is done, and the host never blocks. */
static int stream_wait_for_current(int32_t device_id, dlx_stream_handle consumer, dlx_error *err) {
  cudaStream_t producer = dlx_cuda_current_stream(device_id);
  dlx_cuda_guard guard;
  cudaEvent_t event;
  cudaError_t status;
  int rc;
  if (same_stream((dlx_stream_handle)producer, consumer)) return 0;
  rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  if (status == cudaSuccess) {
    status = cudaEventRecord(event, producer);
    if (status == cudaSuccess) status = cudaStreamWaitEvent((cudaStream_t)consumer, event, 0);
    (void)cudaEventDestroy(event); /* released once the wait is over */
  }
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, status, "ordering the consumer's stream");
}

/* None: the legacy default stream; -1: no synchronisation; 0: ambiguous, refused; 1: legacy
 * default; 2: per-thread default; above: a cudaStream_t. (1 and 2 are also the values of
 * cudaStreamLegacy and cudaStreamPerThread, so they pass through as handles.) */
static int stream_from_dlpack(int32_t device_id, bool given, int64_t value, dlx_stream_request *out,
                              dlx_error *err) {
  (void)device_id;
  out->sync = true;
  out->stream = (dlx_stream_handle)cudaStreamLegacy;
  if (!given) return 0;
  if (value == -1) {
    out->sync = false;
    return 0;
  }
  if (value == 0)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "stream = 0 is not allowed for CUDA (it is ambiguous): pass 1 for the legacy "
                    "default stream, 2 for the per-thread default stream, a stream handle, or -1 "
                    "for no synchronisation");
  if (value < -1)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "stream = %lld: a CUDA stream value is -1, 1, 2 or a stream handle",
                    (long long)value);
  out->stream = (dlx_stream_handle)value;
  return 0;
}

static int64_t stream_to_dlpack(int32_t device_id, dlx_stream_handle stream) {
  (void)device_id;
  return stream == 0 ? 1 : (int64_t)stream;
}

const dlx_stream_ops dlx_cuda_stream_ops = {
    .create = stream_create,
    .destroy = stream_destroy,
    .current = stream_current,
    .set_current = stream_set_current,
    .synchronize = stream_synchronize,
    .wait_for_current = stream_wait_for_current,
    .from_dlpack = stream_from_dlpack,
    .to_dlpack = stream_to_dlpack,
    .busy_wait = dlx_cuda_busy_wait,
};
