/* random.c -- fill_random and multinomial on a CUDA device (random_kernels.cu), on the calling
 * thread's current stream. */
#include "core/random.h"
#include "cuda/cuda_internal.h"
#include "cuda/kernels.h"

int dlx_cuda_fill_random_tensor(const dlx_tensor *dst, const dlx_random_request *r,
                                dlx_error *err) {
  int32_t id = dst->buffer->device.device_id;
  dlx_cuda_random_request q = {
      .dst = dlx_tensor_first_byte(dst),
      .dtype = (int)dst->dtype,
      .kind = (int)r->kind,
      .lanes = r->lanes,
      .bits = dlx_random_float_bits(dst->dtype),
      .n = dlx_tensor_numel(dst),
      .seed = r->seed,
      .offset = r->offset,
      .a = r->a,
      .b = r->b,
      .pa = r->ta != NULL ? (const double *)dlx_tensor_first_byte(r->ta) : NULL,
      .pb = r->tb != NULL ? (const double *)dlx_tensor_first_byte(r->tb) : NULL,
      .low = r->low,
      .range = r->range,
  };
  dlx_cuda_guard guard;
  int status, rc = dlx_cuda_enter(id, &guard, err);
  if (rc != 0) return rc;
  status = dlx_cuda_fill_random(&q, dlx_cuda_current_stream(id));
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, (cudaError_t)status, "random numbers");
}

/* A thread per row, each with scratch of its own (the cdf, or the heap's keys) from the caching
 * allocator on the current stream. */
int dlx_cuda_multinomial_tensor(const dlx_multinomial_request *r, dlx_error *err) {
  const dlx_tensor *w = r->weights;
  int32_t id = w->buffer->device.device_id;
  dlx_cuda_multinomial_request q = {
      .weights = dlx_tensor_first_byte(w),
      .out = (int64_t *)dlx_tensor_first_byte(r->out),
      .status = (int64_t *)dlx_tensor_first_byte(r->status),
      .rows = w->shape[0],
      .k = w->shape[1],
      .n = r->n,
      .replacement = r->replacement,
      .is64 = w->dtype == DLX_FLOAT64,
      .seed = r->seed,
      .offset = r->offset,
  };
  int64_t per_row = q.replacement ? q.k : q.n;
  dlx_cuda_guard guard;
  cudaStream_t stream;
  int status, rc;
  if (per_row > INT64_MAX / 8 / q.rows)
    return dlx_fail(err, DLX_MEMORY_ERROR, "multinomial: scratch for %lld rows is too large",
                    (long long)q.rows);
  rc = dlx_cuda_enter(id, &guard, err);
  if (rc != 0) return rc;
  stream = dlx_cuda_current_stream(id);
  q.scratch = dlx_cuda_pool_alloc(id, (size_t)(q.rows * per_row) * 8, stream, err);
  if (q.scratch == NULL && q.rows * per_row > 0) {
    dlx_cuda_leave(&guard);
    return DLX_MEMORY_ERROR;
  }
  status = dlx_cuda_multinomial(&q, stream);
  if (q.scratch != NULL) dlx_cuda_pool_free(id, q.scratch);
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, (cudaError_t)status, "multinomial");
}
