/* ze_fill.c -- the Level Zero backend's fill: the value converted on the host as every backend
 * converts it (core/scalar.h), then zeCommandListAppendMemoryFill for a contiguous tensor, or a
 * kernel over the core's plan of its layout. */
#include "core/plan.h"
#include "core/scalar.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

int dlx_ze_fill(const dlx_tensor *dst, const dlx_scalar *value, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(dst);
  dlx_ze_fill_args a = {0};
  int64_t size = dlx_itemsize(dst->dtype);
  dlx_plan p;
  int rc = dlx_scalar_to_bytes(dst->dtype, value, a.value, err);
  if (rc != 0) return rc;
  a.n = dlx_tensor_numel(dst);
  a.itemsize = size;
  dlx_plan_start(&p, dst->ndim, dst->shape);
  dlx_plan_add_tensor(&p, dst);
  if (!dlx_plan_finish(&p, 0)) return 0; /* no elements */
  a.ndim = dlx_ze_put_walk(&p, a.shape, (int64_t *const[]){a.strides}, &size);
  pthread_mutex_lock(&dev->lock);
  if (dlx_plan_is_contiguous(&p)) {
    rc = dlx_ze_check(dlx_ze_api_get()->zeCommandListAppendMemoryFill(
                          dlx_ze_current_list(dev), dlx_ze_first_element(dst), a.value,
                          (size_t)size, (size_t)(a.n * size), dev->done, 0, NULL),
                      "zeCommandListAppendMemoryFill", err);
    if (rc == 0) rc = dlx_ze_wait(dev, err);
  } else {
    rc = dlx_ze_launch(dev, DLX_ZE_FILL, dlx_ze_groups_for(a.n), &a, sizeof a,
                       (void *const[]){dlx_ze_first_element(dst)}, 1, err);
  }
  pthread_mutex_unlock(&dev->lock);
  return rc;
}
