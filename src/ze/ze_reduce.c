/* ze_reduce.c -- the Level Zero backend's reductions (the nine of dlx_reduce_op) and statistics
 * (var, std, logsumexp, norm): two passes, the first a work-group per chunk of one output's
 * reduced elements, the second combining each output's chunks. The reduced and the kept dims are
 * walked as they are (no merging): each output's position comes from the kept dims. */
#include <string.h>

#include "core/stats_kernels.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

_Static_assert(DLX_ZE_OP_SUM == DLX_REDUCE_SUM && DLX_ZE_OP_PROD == DLX_REDUCE_PROD &&
                   DLX_ZE_OP_MEAN == DLX_REDUCE_MEAN && DLX_ZE_OP_MIN == DLX_REDUCE_MIN &&
                   DLX_ZE_OP_MAX == DLX_REDUCE_MAX && DLX_ZE_OP_ARGMIN == DLX_REDUCE_ARGMIN &&
                   DLX_ZE_OP_ARGMAX == DLX_REDUCE_ARGMAX && DLX_ZE_OP_ALL == DLX_REDUCE_ALL &&
                   DLX_ZE_OP_ANY == DLX_REDUCE_ANY,
               "the kernels' reduction numbers must be dlx_reduce_op's");

/* ---- reductions */

static void reduce_layout(const dlx_tensor *src, uint64_t dims, dlx_ze_reduce_args *a) {
  int64_t size = dlx_itemsize(src->dtype);
  a->n_out = a->n_red = 1;
  for (int32_t d = 0; d < src->ndim; d++) {
    if (dims & (UINT64_C(1) << d)) {
      a->red_shape[a->red_ndim] = src->shape[d];
      a->red_strides[a->red_ndim++] = src->strides[d] * size;
      a->n_red *= src->shape[d];
    } else {
      a->out_shape[a->out_ndim] = src->shape[d];
      a->out_strides[a->out_ndim++] = src->strides[d] * size;
      a->n_out *= src->shape[d];
    }
  }
}

/* First pass: each output's reduced elements split into chunks, one work-group per chunk, many
 * chunks when there are few outputs so that a full reduction still fills the GPU. */
static void choose_chunks(dlx_ze_reduce_args *a) {
  int64_t per_group = DLX_ZE_GROUP_SIZE * 16, chunks = (a->n_red + per_group - 1) / per_group;
  int64_t limit = a->n_out >= 1024 ? 1 : 1024 / a->n_out;
  a->chunks = chunks < 1 ? 1 : chunks > limit ? limit : chunks;
  a->chunk_len = (a->n_red + a->chunks - 1) / a->chunks;
}

int dlx_ze_reduce(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims, const dlx_tensor *dst,
                  dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(src);
  dlx_ze_reduce_args a = {.op = op, .src_dtype = src->dtype, .dst_dtype = dst->dtype};
  void *partials;
  size_t bytes;
  int rc;
  reduce_layout(src, dims, &a);
  choose_chunks(&a);
  if (a.n_out * a.chunks > UINT32_MAX)
    return dlx_fail(err, DLX_VALUE_ERROR, "too many outputs for one Level Zero reduction");
  bytes = (size_t)(a.n_out * a.chunks) * sizeof(dlx_ze_acc);
  partials = dlx_ze_alloc(src->buffer->device.device_id, bytes, err);
  if (partials == NULL) return DLX_MEMORY_ERROR;
  pthread_mutex_lock(&dev->lock);
  rc = dlx_ze_launch(dev, DLX_ZE_REDUCE_PARTIAL, (uint32_t)(a.n_out * a.chunks), &a, sizeof a,
                     (void *const[]){dlx_ze_first_element(src), partials}, 2, err);
  if (rc == 0)
    rc = dlx_ze_launch(dev, DLX_ZE_REDUCE_FINISH, (uint32_t)a.n_out, &a, sizeof a,
                       (void *const[]){dlx_ze_first_element(dst), partials}, 2, err);
  pthread_mutex_unlock(&dev->lock);
  dlx_ze_free(src->buffer->device.device_id, partials, bytes); /* as counted by dlx_ze_alloc */
  return rc;
}

/* ---- var, std, logsumexp, norm */

/* The two passes of the reductions (chunks chosen from the sizes alone), with the partials of
 * src/common/stats_ops.h merged in a fixed order: the results do not depend on the device. */
int dlx_ze_reduce_stat(dlx_stat_op op, double param, const dlx_tensor *src, uint64_t dims,
                       const dlx_tensor *dst, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(src);
  int32_t id = src->buffer->device.device_id;
  dlx_ze_reduce_args r = {0};
  dlx_ze_stat_args a;
  size_t bytes;
  void *partials;
  int rc;
  reduce_layout(src, dims, &r);
  choose_chunks(&r);
  if (r.n_out * r.chunks > UINT32_MAX)
    return dlx_fail(err, DLX_VALUE_ERROR, "too many outputs for one Level Zero reduction");
  memset(&a, 0, sizeof a);
  a.kind = dlx_stat_kind(op, param);
  a.param = param;
  a.src_dtype = src->dtype;
  a.dst_dtype = dst->dtype;
  a.n_out = r.n_out;
  a.n_red = r.n_red;
  a.chunks = r.chunks;
  a.chunk_len = r.chunk_len;
  a.out_ndim = r.out_ndim;
  a.red_ndim = r.red_ndim;
  memcpy(a.out_shape, r.out_shape, sizeof a.out_shape);
  memcpy(a.out_strides, r.out_strides, sizeof a.out_strides);
  memcpy(a.red_shape, r.red_shape, sizeof a.red_shape);
  memcpy(a.red_strides, r.red_strides, sizeof a.red_strides);
  bytes = (size_t)(a.n_out * a.chunks) * sizeof(dlx_stat_acc);
  partials = dlx_ze_alloc(id, bytes, err);
  if (partials == NULL) return DLX_MEMORY_ERROR;
  pthread_mutex_lock(&dev->lock);
  rc = dlx_ze_launch(dev, DLX_ZE_STAT_PARTIAL, (uint32_t)(a.n_out * a.chunks), &a, sizeof a,
                     (void *const[]){dlx_ze_first_element(src), partials}, 2, err);
  if (rc == 0)
    rc = dlx_ze_launch(dev, DLX_ZE_STAT_FINISH, (uint32_t)a.n_out, &a, sizeof a,
                       (void *const[]){dlx_ze_first_element(dst), partials}, 2, err);
  pthread_mutex_unlock(&dev->lock);
  dlx_ze_free(id, partials, bytes);
  return rc;
}
