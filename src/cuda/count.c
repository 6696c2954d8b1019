/* count.c -- count_op on a CUDA device: histograms by atomics and searchsorted by a binary search
 * a value (kernels in count_kernels.cu, element code in count_element.h, the request made by
 * count_plan.h). */
#include "cuda/count_plan.h"
#include "cuda/cuda_internal.h"

int dlx_cuda_count_op_tensor(const dlx_count_request *r, dlx_error *err) {
  int32_t device_id = r->src->buffer->device.device_id;
  dlx_cuda_count_request q = dlx_cuda_count_plan(r);
  dlx_cuda_guard guard;
  int status, rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = dlx_cuda_count(&q, dlx_cuda_current_stream(device_id));
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, (cudaError_t)status, "a count");
}
