/* random.c -- fill_random on a CUDA device (random_kernels.cu), on the calling thread's current
 * stream. */
#include "core/random.h"
#include "common/philox.h"
#include "cuda/cuda_internal.h"
#include "cuda/kernels.h"

int dlx_cuda_fill_random_tensor(const dlx_tensor *dst, const dlx_random_request *r,
                                dlx_error *err) {
  int32_t id = dst->buffer->device.device_id;
  int wide = r->kind == DLX_RANDOM_INT ? dlx_rng_int_wide(r->range) : dst->dtype == DLX_FLOAT64;
  dlx_cuda_random_request q = {
      .dst = (char *)dst->buffer->data + dst->offset * dlx_itemsize(dst->dtype),
      .dtype = (int)dst->dtype,
      .kind = (int)r->kind,
      .lanes = dlx_rng_lanes(wide),
      .bits = dlx_random_float_bits(dst->dtype),
      .n = dlx_tensor_numel(dst),
      .seed = r->seed,
      .offset = r->offset,
      .a = r->a,
      .b = r->b,
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
