/* sort.c -- sort_rows on a CUDA device (kernels in sort_kernels.cu, CUB's radix sorts). */
#include <stdbool.h>

#include "core/dtype.h"
#include "core/sort.h"
#include "cuda/cuda_internal.h"
#include "cuda/kernels.h"

int dlx_cuda_sort_rows_tensor(const dlx_tensor *src, bool descending, const dlx_tensor *values,
                              const dlx_tensor *indices, dlx_error *err) {
  int32_t device_id = src->buffer->device.device_id;
  dlx_cuda_sort_request r = {.src = dlx_tensor_first_byte(src),
                             .values = dlx_tensor_first_byte(values),
                             .indices = dlx_tensor_first_byte(indices),
                             .elem_size = dlx_dtype_bits(src->dtype) / 8,
                             .key_kind = dlx_sort_key_kind(src->dtype),
                             .descending = descending,
                             .rows = src->shape[0],
                             .n = src->shape[1]};
  dlx_cuda_guard guard;
  int status, rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = dlx_cuda_sort_rows(&r, dlx_cuda_current_stream(device_id));
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, (cudaError_t)status, "a sort");
}
