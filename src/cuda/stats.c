/* stats.c -- var, std, logsumexp and norm, and cumsum, cumprod, softmax and log_softmax along a
 * dim, on a CUDA device (kernels in stats_kernels.cu). The reductions take the shape
 * [outer, extent, inner] over contiguous memory as the other reductions do (reduce.c); the ops
 * along a dim take src contiguous (a copy when it is not) as [outer, len, inner], and a few long
 * lines across the memory are first copied into rows (stats_plan.h chooses). */
#include <stdbool.h>

#include "core/dtype.h"
#include "core/ops.h"
#include "core/stats_kernels.h"
#include "cuda/cuda_internal.h"
#include "cuda/kernels.h"
#include "cuda/stats_plan.h"

/* ---- var, std, logsumexp, norm */

static int launch_stat(const dlx_cuda_stat_request *r, int32_t device_id, dlx_error *err) {
  dlx_cuda_guard guard;
  int status, rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = dlx_cuda_reduce_stat(r, dlx_cuda_current_stream(device_id));
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0 : dlx_cuda_fail(err, (cudaError_t)status, "a reduction");
}

int dlx_cuda_reduce_stat_tensor(dlx_stat_op op, double param, const dlx_tensor *src, uint64_t dims,
                                const dlx_tensor *dst, dlx_error *err) {
  int64_t sizes[3];
  dlx_tensor packed;
  bool is_packed;
  dlx_cuda_stat_request r;
  dlx_cuda_stat_plan plan;
  int rc = dlx_cuda_three_dims(src, dims, &packed, &is_packed, sizes, err);
  if (rc != 0) return rc;
  plan = dlx_cuda_plan_stat(sizes[0], sizes[1], sizes[2]);
  r = (dlx_cuda_stat_request){.kind = dlx_stat_kind(op, param),
                              .param = param,
                              .src = dlx_tensor_first_byte(is_packed ? &packed : src),
                              .src_dtype = (int)src->dtype,
                              .dst = dlx_tensor_first_byte(dst),
                              .dst_dtype = (int)dst->dtype,
                              .outer = sizes[0],
                              .extent = sizes[1],
                              .inner = sizes[2],
                              .mode = plan.mode,
                              .parts = plan.parts,
                              .part_len = plan.part_len};
  rc = launch_stat(&r, src->buffer->device.device_id, err);
  if (is_packed) dlx_tensor_close(&packed);
  return rc;
}

/* ---- cumsum, cumprod, softmax, log_softmax */

static int launch_lines(dlx_dim_op op, const dlx_tensor *src, const dlx_tensor *dst,
                        const int64_t sizes[3], int mode, dlx_error *err) {
  int32_t device_id = src->buffer->device.device_id;
  dlx_cuda_line_request r = {.op = (int)op,
                             .src = dlx_tensor_first_byte(src),
                             .src_dtype = (int)src->dtype,
                             .dst = dlx_tensor_first_byte(dst),
                             .dst_dtype = (int)dst->dtype,
                             .outer = sizes[0],
                             .len = sizes[1],
                             .inner = sizes[2],
                             .mode = mode};
  dlx_cuda_guard guard;
  int status, rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = dlx_cuda_along_dim(&r, dlx_cuda_current_stream(device_id));
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0
                               : dlx_cuda_fail(err, (cudaError_t)status, "a kernel along a dim");
}

/* The lines of a C-contiguous tensor along dim as [outer, len, inner]. */
static void line_sizes(const dlx_tensor *t, int32_t dim, int64_t sizes[3]) {
  sizes[0] = sizes[2] = 1;
  sizes[1] = t->shape[dim];
  for (int32_t d = 0; d < t->ndim; d++)
    if (d != dim) sizes[d < dim ? 0 : 2] *= t->shape[d];
}

/* The order of dims that puts dim last. */
static void dim_last(int32_t ndim, int32_t dim, int32_t *order) {
  int32_t n = 0;
  for (int32_t d = 0; d < ndim; d++)
    if (d != dim) order[n++] = d;
  order[n] = dim;
}

/* Few long lines across the memory: src copied with dim last (rows), a block per row into a
 * scratch tensor of dst's dtype, copied into dst through the same permutation. */
static int along_rows(dlx_dim_op op, const dlx_tensor *src, int32_t dim, const dlx_tensor *dst,
                      dlx_error *err) {
  int32_t order[DLX_MAX_NDIM];
  int64_t sizes[3];
  dlx_tensor src_view, rows, out_rows, dst_view;
  int rc;
  dim_last(src->ndim, dim, order);
  rc = dlx_permute(&src_view, src, order, err);
  if (rc != 0) return rc;
  rc = dlx_clone_as(&rows, &src_view, src->dtype, src->buffer->device, err);
  dlx_tensor_close(&src_view);
  if (rc != 0) return rc;
  rc = dlx_tensor_empty(&out_rows, rows.shape, rows.ndim, dst->dtype, dst->buffer->device, err);
  if (rc == 0) {
    line_sizes(&rows, rows.ndim - 1, sizes);
    rc = launch_lines(op, &rows, &out_rows, sizes, DLX_CUDA_LINE_BLOCK, err);
    if (rc == 0) rc = dlx_permute(&dst_view, dst, order, err);
    if (rc == 0) {
      rc = dlx_copy(&dst_view, &out_rows, err);
      dlx_tensor_close(&dst_view);
    }
    dlx_tensor_close(&out_rows);
  }
  dlx_tensor_close(&rows);
  return rc;
}

int dlx_cuda_along_dim_tensor(dlx_dim_op op, const dlx_tensor *src, int32_t dim,
                              const dlx_tensor *dst, dlx_error *err) {
  int64_t sizes[3];
  dlx_tensor packed;
  int mode, rc;
  line_sizes(src, dim, sizes);
  mode = dlx_cuda_plan_line(sizes[0], sizes[1], sizes[2]);
  if (mode == DLX_CUDA_LINE_TRANSPOSE) return along_rows(op, src, dim, dst, err);
  if (dlx_tensor_is_contiguous(src)) return launch_lines(op, src, dst, sizes, mode, err);
  rc = dlx_clone_as(&packed, src, src->dtype, src->buffer->device, err);
  if (rc != 0) return rc;
  rc = launch_lines(op, &packed, dst, sizes, mode, err);
  dlx_tensor_close(&packed);
  return rc;
}
