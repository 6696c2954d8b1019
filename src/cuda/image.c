/* image.c -- image_op on a CUDA device (kernels in image_kernels.cu): the request's sizes and
 * parameters handed to the kernel, on the device's current stream. */
#include "core/dtype.h"
#include "cuda/cuda_internal.h"
#include "cuda/kernels.h"

_Static_assert(DLX_CUDA_IMAGE_MAX_POOL == DLX_IMAGE_MAX_POOL &&
                   DLX_CUDA_IMAGE_AVG_POOL == DLX_IMAGE_AVG_POOL &&
                   DLX_CUDA_IMAGE_NEAREST == DLX_IMAGE_NEAREST &&
                   DLX_CUDA_IMAGE_BILINEAR == DLX_IMAGE_BILINEAR &&
                   DLX_CUDA_IMAGE_BICUBIC == DLX_IMAGE_BICUBIC,
               "the kernels' numbers of the image ops must be dlx_image_op's");

int dlx_cuda_image_op_tensor(const dlx_image_request *r, dlx_error *err) {
  int32_t device_id = r->src->buffer->device.device_id;
  dlx_cuda_image_request q = {
      .op = (int)r->op,
      .is_double = r->src->dtype == DLX_FLOAT64,
      .src = dlx_tensor_first_byte(r->src),
      .dst = dlx_tensor_first_byte(r->dst),
      .indices = r->indices != NULL ? dlx_tensor_first_byte(r->indices) : NULL,
      .planes = r->src->shape[0],
      .in_h = r->src->shape[1],
      .in_w = r->src->shape[2],
      .out_h = r->dst->shape[1],
      .out_w = r->dst->shape[2],
      .count_include_pad = r->count_include_pad,
      .divisor = r->divisor,
      .align_corners = r->align_corners,
  };
  dlx_cuda_guard guard;
  int status, rc;
  for (int d = 0; d < 2; d++) {
    q.kernel[d] = r->kernel[d];
    q.stride[d] = r->stride[d];
    q.padding[d] = r->padding[d];
    q.dilation[d] = r->dilation[d];
    q.scale[d] = r->scale[d];
  }
  rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = dlx_cuda_image(&q, dlx_cuda_current_stream(device_id));
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, (cudaError_t)status, "an image op");
}
