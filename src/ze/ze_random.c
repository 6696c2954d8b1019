/* ze_random.c -- the Level Zero backend's random numbers (element i is what src/common/philox.h
 * makes of the request for i, bit for bit as on every backend) and multinomial sampling
 * (src/ze/kernels/random.cl). */
#include <string.h>

#include "common/philox.h"
#include "core/random.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

int dlx_ze_fill_random(const dlx_tensor *dst, const dlx_random_request *r, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(dst);
  dlx_ze_random_args a;
  void *out = dlx_ze_first_element(dst);
  int rc;
  memset(&a, 0, sizeof a);
  a.n = dlx_tensor_numel(dst);
  a.kind = r->kind;
  a.dtype = dst->dtype;
  a.lanes = r->lanes;
  a.bits = dlx_random_float_bits(dst->dtype);
  a.seed = r->seed;
  a.offset = r->offset;
  a.a = r->a;
  a.b = r->b;
  a.has_a = r->ta != NULL;
  a.has_b = r->tb != NULL;
  a.low = r->low;
  a.range = r->range;
  {
    /* a parameter not given: dst in its place, never read */
    void *const ptrs[3] = {out, r->ta != NULL ? dlx_ze_first_element(r->ta) : out,
                           r->tb != NULL ? dlx_ze_first_element(r->tb) : out};
    pthread_mutex_lock(&dev->lock);
    rc = dlx_ze_launch(dev, DLX_ZE_FILL_RANDOM, dlx_ze_groups_for((a.n + a.lanes - 1) / a.lanes),
                       &a, sizeof a, ptrs, 3, err);
    pthread_mutex_unlock(&dev->lock);
  }
  return rc;
}

/* A work-item per row, each with scratch of its own (the cdf, or the heap's keys). */
int dlx_ze_multinomial(const dlx_multinomial_request *r, dlx_error *err) {
  const dlx_tensor *w = r->weights;
  dlx_ze_device *dev = dlx_ze_device_of(w);
  int32_t id = w->buffer->device.device_id;
  dlx_ze_multinomial_args a;
  size_t scratch_bytes;
  void *scratch;
  int rc;
  memset(&a, 0, sizeof a);
  a.rows = w->shape[0];
  a.k = w->shape[1];
  a.n = r->n;
  a.replacement = r->replacement;
  a.is64 = w->dtype == DLX_FLOAT64;
  a.seed = r->seed;
  a.offset = r->offset;
  if ((a.replacement ? a.k : a.n) > INT64_MAX / 8 / a.rows)
    return dlx_fail(err, DLX_MEMORY_ERROR, "multinomial: scratch for %lld rows is too large",
                    (long long)a.rows);
  scratch_bytes = (size_t)(a.rows * (a.replacement ? a.k : a.n)) * 8;
  scratch = dlx_ze_alloc(id, scratch_bytes > 0 ? scratch_bytes : 8, err);
  if (scratch == NULL) return DLX_MEMORY_ERROR;
  {
    void *const ptrs[4] = {dlx_ze_first_element(r->out), dlx_ze_first_element(w),
                           dlx_ze_first_element(r->status), scratch};
    pthread_mutex_lock(&dev->lock);
    rc = dlx_ze_launch(dev, DLX_ZE_MULTINOMIAL, dlx_ze_groups_for(a.rows), &a, sizeof a, ptrs, 4,
                       err);
    pthread_mutex_unlock(&dev->lock);
  }
  dlx_ze_free(id, scratch, scratch_bytes > 0 ? scratch_bytes : 8);
  return rc;
}
