/* row_op.c -- row_op on a CUDA device for the scans cummax, cummin and logcumsumexp (kernels in
 * row_kernels.cu). The selections and mode are not in its row_ops: the core sorts the rows for
 * them (src/core/order_stats.c). */
#include "core/dtype.h"
#include "core/sort.h"
#include "cuda/cuda_internal.h"
#include "cuda/kernels.h"

_Static_assert(DLX_CUDA_ROW_CUMMAX == DLX_ROW_CUMMAX && DLX_CUDA_ROW_CUMMIN == DLX_ROW_CUMMIN &&
                   DLX_CUDA_ROW_LOGCUMSUMEXP == DLX_ROW_LOGCUMSUMEXP,
               "the kernels' numbers of the row scans must be dlx_row_op's");

int dlx_cuda_row_op_tensor(const dlx_row_request *r, dlx_error *err) {
  int32_t device_id = r->src->buffer->device.device_id;
  dlx_cuda_row_request q;
  dlx_cuda_guard guard;
  int status, rc;
  if ((DLX_CUDA_ROW_OPS & (UINT32_C(1) << r->op)) == 0)
    return dlx_fail(err, DLX_DEVICE_ERROR, "row_op %d is not a scan of the CUDA backend",
                    (int)r->op);
  q = (dlx_cuda_row_request){.op = (int)r->op,
                             .src_dtype = (int)r->src->dtype,
                             .values_dtype = (int)r->values->dtype,
                             .key_kind = dlx_sort_key_kind(r->src->dtype),
                             .is_float = dlx_dtype_kind(r->src->dtype) == DLX_KIND_FLOAT,
                             .elem_size = dlx_dtype_bits(r->src->dtype) / 8,
                             .src = dlx_tensor_first_byte(r->src),
                             .values = dlx_tensor_first_byte(r->values),
                             .indices =
                                 r->indices != NULL ? dlx_tensor_first_byte(r->indices) : NULL,
                             .rows = r->src->shape[0],
                             .n = r->src->shape[1]};
  rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = dlx_cuda_row_scan(&q, dlx_cuda_current_stream(device_id));
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, (cudaError_t)status, "a row scan");
}
