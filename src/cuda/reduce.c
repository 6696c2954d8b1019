/* reduce.c -- reductions on a CUDA device: the request is brought to the shape
 * [outer, extent, inner] over contiguous memory (a copy with the reduced dims last when the
 * layout does not allow it), then handed to the kernels. Complex data is reduced by the CPU
 * backend on a host copy. */
#include "core/alloc.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/ops.h"
#include "cuda/cuda_internal.h"
#include "cuda/kernels.h"

static bool reduced(uint64_t dims, int32_t d) { return (dims & (UINT64_C(1) << d)) != 0; }

/* True, with the three sizes, when src is C-contiguous and its reduced dims (ignoring size-1
 * dims) are one run: kept dims, reduced dims, kept dims. */
static bool as_three_dims(const dlx_tensor *src, uint64_t dims, int64_t *outer, int64_t *extent,
                          int64_t *inner) {
  int part = 0; /* 0: before the run, 1: in it, 2: after it */
  *outer = *extent = *inner = 1;
  if (!dlx_tensor_is_contiguous(src)) return false;
  for (int32_t d = 0; d < src->ndim; d++) {
    int64_t n = src->shape[d];
    if (n == 1) continue;
    if (reduced(dims, d)) {
      if (part == 2) return false;
      part = 1;
      *extent *= n;
    } else {
      if (part == 1) part = 2;
      if (part == 0)
        *outer *= n;
      else
        *inner *= n;
    }
  }
  return true;
}

static int launch(dlx_reduce_op op, const dlx_tensor *src, int64_t outer, int64_t extent,
                  int64_t inner, const dlx_tensor *dst, dlx_error *err) {
  int32_t device_id = src->buffer->device.device_id;
  dlx_cuda_guard guard;
  int status, rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = dlx_cuda_reduce((int)op, dlx_tensor_first_byte(src), (int)src->dtype, outer, extent,
                           inner, dlx_tensor_first_byte(dst), (int)dst->dtype,
                           dlx_cuda_current_stream(device_id));
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, (cudaError_t)status, "a reduction");
}

/* src with the kept dims first and the reduced ones last (both in their order), as a new
 * contiguous tensor: the reduction is then over the inner extent. */
static int reduced_dims_last(const dlx_tensor *src, uint64_t dims, dlx_tensor *out,
                             dlx_error *err) {
  int32_t order[DLX_MAX_NDIM], n = 0;
  dlx_tensor view;
  int rc;
  for (int32_t d = 0; d < src->ndim; d++)
    if (!reduced(dims, d)) order[n++] = d;
  for (int32_t d = 0; d < src->ndim; d++)
    if (reduced(dims, d)) order[n++] = d;
  rc = dlx_permute(&view, src, order, err);
  if (rc != 0) return rc;
  rc = dlx_clone_as(out, &view, view.dtype, view.buffer->device, err);
  dlx_tensor_close(&view);
  return rc;
}

/* The reduced dims of the tensor reduced_dims_last made: its last ones. */
static uint64_t dims_after_packing(int32_t ndim, uint64_t dims) {
  int32_t count = 0;
  uint64_t mask = 0;
  for (int32_t d = 0; d < ndim; d++) count += reduced(dims, d);
  for (int32_t d = ndim - count; d < ndim; d++) mask |= UINT64_C(1) << d;
  return mask;
}

/* Complex sums and products: on the host with the host backend, the result copied back. */
static int reduce_on_host(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims,
                          const dlx_tensor *dst, dlx_error *err) {
  DLDevice cpu = {kDLCPU, 0};
  dlx_tensor hsrc, hdst;
  int rc = dlx_clone_as(&hsrc, src, src->dtype, cpu, err);
  if (rc != 0) return rc;
  rc = dlx_tensor_empty(&hdst, dst->shape, dst->ndim, dst->dtype, cpu, err);
  if (rc == 0) {
    rc = dlx_host_backend()->reduce(op, &hsrc, dims, &hdst, err);
    if (rc == 0) rc = dlx_copy(dst, &hdst, err);
    dlx_tensor_close(&hdst);
  }
  dlx_tensor_close(&hsrc);
  return rc;
}

int dlx_cuda_three_dims(const dlx_tensor *src, uint64_t dims, dlx_tensor *packed, bool *is_packed,
                        int64_t sizes[3], dlx_error *err) {
  int rc;
  *is_packed = false;
  if (as_three_dims(src, dims, &sizes[0], &sizes[1], &sizes[2])) return 0;
  rc = reduced_dims_last(src, dims, packed, err);
  if (rc != 0) return rc;
  *is_packed = true;
  as_three_dims(packed, dims_after_packing(src->ndim, dims), &sizes[0], &sizes[1], &sizes[2]);
  return 0;
}

int dlx_cuda_reduce_tensor(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims,
                           const dlx_tensor *dst, dlx_error *err) {
  int64_t sizes[3];
  dlx_tensor packed;
  bool is_packed;
  int rc;
  if (dlx_dtype_kind(src->dtype) == DLX_KIND_COMPLEX)
    return reduce_on_host(op, src, dims, dst, err);
  rc = dlx_cuda_three_dims(src, dims, &packed, &is_packed, sizes, err);
  if (rc != 0) return rc;
  rc = launch(op, is_packed ? &packed : src, sizes[0], sizes[1], sizes[2], dst, err);
  if (is_packed) dlx_tensor_close(&packed);
  return rc;
}
