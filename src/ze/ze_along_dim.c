/* ze_along_dim.c -- the Level Zero backend's cumsum, cumprod, softmax and log_softmax: a
 * work-item or a work-group per line along the dim, the lines walked over the other dims as the
 * core's plan lays them out (the kernel dlx_along_dim, src/ze/kernels/stats.cl). */
#include <string.h>

#include "core/plan.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

_Static_assert(DLX_ZE_DIM_CUMSUM == DLX_DIM_CUMSUM && DLX_ZE_DIM_CUMPROD == DLX_DIM_CUMPROD &&
                   DLX_ZE_DIM_SOFTMAX == DLX_DIM_SOFTMAX &&
                   DLX_ZE_DIM_LOG_SOFTMAX == DLX_DIM_LOG_SOFTMAX,
               "the kernels' numbers of the ops along a dim must be dlx_dim_op's");

/* A work-group per line when the lines are long, or few and not short; a work-item per line
 * otherwise. Chosen from the sizes alone, as the results depend on it (the order of the sums). */
static bool line_per_group(int64_t lines, int64_t len) {
  return len >= 4 * DLX_ZE_GROUP_SIZE || (len >= 64 && lines < DLX_ZE_GROUP_SIZE);
}

int dlx_ze_along_dim(dlx_dim_op op, const dlx_tensor *src, int32_t dim, const dlx_tensor *dst,
                     dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(src);
  int64_t ssize = dlx_itemsize(src->dtype), dsize = dlx_itemsize(dst->dtype);
  dlx_ze_dim_args a;
  dlx_plan p;
  uint32_t groups;
  int32_t n = 0;
  int rc;
  memset(&a, 0, sizeof a);
  a.op = op;
  a.src_dtype = src->dtype;
  a.dst_dtype = dst->dtype;
  a.len = src->shape[dim];
  a.src_step = src->strides[dim] * ssize;
  a.dst_step = dst->strides[dim] * dsize;
  a.lines = 1;
  /* the lines: every dim but `dim`, in byte strides */
  for (int32_t d = 0; d < src->ndim; d++) {
    if (d == dim) continue;
    a.outer_shape[n] = src->shape[d];
    a.src_strides[n] = src->strides[d] * ssize;
    a.dst_strides[n++] = dst->strides[d] * dsize;
    a.lines *= src->shape[d];
  }
  dlx_plan_start(&p, n, a.outer_shape);
  dlx_plan_add(&p, a.src_strides, 0);
  dlx_plan_add(&p, a.dst_strides, 0);
  if (a.len == 0 || !dlx_plan_finish(&p, 0)) return 0; /* no lines, or empty ones */
  a.outer_ndim = dlx_ze_put_walk(
      &p, a.outer_shape, (int64_t *const[]){a.src_strides, a.dst_strides}, (const int64_t[]){1, 1});
  a.per_group = line_per_group(a.lines, a.len);
  groups = a.per_group ? (uint32_t)(a.lines < DLX_ZE_MAX_GROUPS ? a.lines : DLX_ZE_MAX_GROUPS)
                       : dlx_ze_groups_for(a.lines);
  pthread_mutex_lock(&dev->lock);
  rc = dlx_ze_launch(dev, DLX_ZE_ALONG_DIM, groups, &a, sizeof a,
                     (void *const[]){dlx_ze_first_element(dst), dlx_ze_first_element(src)}, 2, err);
  pthread_mutex_unlock(&dev->lock);
  return rc;
}
