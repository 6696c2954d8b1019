/* indexing.c -- index_op on a CUDA device (kernels in indexing_kernels.cu, the walk of each op
 * from indexing_plan.h), on the calling thread's current stream. CHECK and COUNT wait for their
 * result, which the caller needs at once; the other ops are queued like any kernel. */
#include "cuda/cuda_internal.h"
#include "cuda/indexing_plan.h"
#include "cuda/kernels.h"

_Static_assert(DLX_CUDA_INDEX_CHECK == (int)DLX_INDEX_CHECK &&
                   DLX_CUDA_INDEX_GATHER == (int)DLX_INDEX_GATHER &&
                   DLX_CUDA_INDEX_SCATTER == (int)DLX_INDEX_SCATTER &&
                   DLX_CUDA_INDEX_SCATTER_ADD == (int)DLX_INDEX_SCATTER_ADD &&
                   DLX_CUDA_INDEX_MASKED_SELECT == (int)DLX_INDEX_MASKED_SELECT &&
                   DLX_CUDA_INDEX_MASKED_SCATTER == (int)DLX_INDEX_MASKED_SCATTER &&
                   DLX_CUDA_INDEX_NONZERO == (int)DLX_INDEX_NONZERO &&
                   DLX_CUDA_INDEX_COUNT == (int)DLX_INDEX_COUNT,
               "kernels.h's index ops follow dlx_index_op");

static int launch(dlx_index_request *r, const dlx_cuda_index_request *q, cudaStream_t stream,
                  dlx_error *err) {
  int64_t first, value;
  int status;
  switch (r->op) {
  case DLX_INDEX_CHECK:
    status = dlx_cuda_index_check(q, &first, &value, stream);
    if (status == cudaSuccess && first < q->numel) return dlx_cuda_index_bad(r, value, err);
    break;
  case DLX_INDEX_GATHER:
  case DLX_INDEX_SCATTER:
  case DLX_INDEX_SCATTER_ADD:
    status = dlx_cuda_index_move(q, stream);
    break;
  case DLX_INDEX_COUNT:
    status = dlx_cuda_index_count(q, &r->count, stream);
    break;
  default:
    status = dlx_cuda_index_masked(q, stream);
    break;
  }
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, (cudaError_t)status, "an indexing kernel");
}

int dlx_cuda_index_op_tensor(dlx_index_request *r, dlx_error *err) {
  int32_t id = r->index->buffer->device.device_id;
  dlx_cuda_index_request q;
  dlx_cuda_guard guard;
  int rc = dlx_cuda_enter(id, &guard, err);
  if (rc != 0) return rc;
  dlx_cuda_index_plan(r, &q);
  rc = launch(r, &q, dlx_cuda_current_stream(id), err);
  dlx_cuda_leave(&guard);
  return rc;
}
