/* ze_count.c -- the Level Zero backend's count_op: the kernel dlx_count (src/ze/kernels/count.cl),
 * which zeroes the bins and then counts into them by atomics (or sums the weights on one
 * work-item, in the CPU's order), or searches each value's position. */
#include <string.h>

#include "core/sort.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

_Static_assert(DLX_ZE_COUNT_OP_BINCOUNT == DLX_COUNT_BINCOUNT &&
                   DLX_ZE_COUNT_OP_LINEAR == DLX_COUNT_LINEAR &&
                   DLX_ZE_COUNT_OP_EDGES == DLX_COUNT_EDGES &&
                   DLX_ZE_COUNT_OP_SEARCH == DLX_COUNT_SEARCH,
               "the kernel's numbers of the count ops must be dlx_count_op's");

int dlx_ze_count_op(const dlx_count_request *r, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(r->src);
  bool search = r->op == DLX_COUNT_SEARCH;
  dlx_ze_count_args a;
  char *out = dlx_ze_first_element(r->out), *src = dlx_ze_first_element(r->src);
  int rc;
  memset(&a, 0, sizeof a);
  a.op = r->op;
  a.is64 = r->src->dtype == DLX_FLOAT64;
  a.uniform = r->uniform;
  a.has_weights = r->weights != NULL;
  a.right = r->right;
  a.key_kind = dlx_sort_key_kind(r->src->dtype);
  a.shared_row = search && r->edges->shape[0] == 1;
  a.n = search ? r->edges->shape[1] : r->src->shape[0];
  a.nbins = r->nbins;
  a.rows = search ? r->src->shape[0] : 1;
  a.m = search ? r->src->shape[1] : r->src->shape[0];
  a.lo = r->lo;
  a.hi = r->hi;
  {
    /* the pointers a phase does not read are src */
    void *const ptrs[4] = {out, src, r->edges != NULL ? dlx_ze_first_element(r->edges) : src,
                           r->weights != NULL ? dlx_ze_first_element(r->weights) : src};
    pthread_mutex_lock(&dev->lock);
    if (search) {
      a.phase = DLX_ZE_COUNT_SEARCH;
      rc = dlx_ze_launch(dev, DLX_ZE_COUNT, dlx_ze_groups_for(a.rows * a.m), &a, sizeof a, ptrs, 4,
                         err);
    } else {
      a.phase = DLX_ZE_COUNT_ZERO;
      rc = dlx_ze_launch(dev, DLX_ZE_COUNT, dlx_ze_groups_for(a.nbins), &a, sizeof a, ptrs, 4, err);
      a.phase = DLX_ZE_COUNT_BINS;
      if (rc == 0)
        rc = dlx_ze_launch(dev, DLX_ZE_COUNT, a.has_weights ? 1 : dlx_ze_groups_for(a.n), &a,
                           sizeof a, ptrs, 4, err);
    }
    pthread_mutex_unlock(&dev->lock);
  }
  return rc;
}
