/* ze_random.c -- the Level Zero backend's random numbers: element i is what src/common/philox.h
 * makes of the request for i, bit for bit as on every backend (src/ze/kernels/random.cl). */
#include <string.h>

#include "common/philox.h"
#include "core/random.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

int dlx_ze_fill_random(const dlx_tensor *dst, const dlx_random_request *r, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(dst);
  dlx_ze_random_args a;
  int wide = r->kind == DLX_RANDOM_INT ? dlx_rng_int_wide(r->range) : dst->dtype == DLX_FLOAT64;
  int rc;
  memset(&a, 0, sizeof a);
  a.n = dlx_tensor_numel(dst);
  a.kind = r->kind;
  a.dtype = dst->dtype;
  a.lanes = dlx_rng_lanes(wide);
  a.bits = dlx_random_float_bits(dst->dtype);
  a.seed = r->seed;
  a.offset = r->offset;
  a.a = r->a;
  a.b = r->b;
  a.low = r->low;
  a.range = r->range;
  pthread_mutex_lock(&dev->lock);
  rc = dlx_ze_launch(dev, DLX_ZE_FILL_RANDOM, dlx_ze_groups_for((a.n + a.lanes - 1) / a.lanes), &a,
                     sizeof a, (void *const[]){dlx_ze_first_element(dst)}, 1, err);
  pthread_mutex_unlock(&dev->lock);
  return rc;
}
