/* ze_row_op.c -- the Level Zero backend's row_op for the scans cummax, cummin and logcumsumexp:
 * a work-item per row (the kernel dlx_row_scan, src/ze/kernels/rows.cl). The selections and mode
 * are not in row_ops: the core sorts the rows for them (src/core/order_stats.c). */
#include <string.h>

#include "core/sort.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

_Static_assert(DLX_ZE_ROW_CUMMAX == DLX_ROW_CUMMAX && DLX_ZE_ROW_CUMMIN == DLX_ROW_CUMMIN &&
                   DLX_ZE_ROW_LOGCUMSUMEXP == DLX_ROW_LOGCUMSUMEXP,
               "the kernel's numbers of the row scans must be dlx_row_op's");

int dlx_ze_row_op(const dlx_row_request *r, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(r->src);
  dlx_ze_row_scan_args a;
  int rc;
  if ((DLX_ZE_ROW_OPS & (UINT32_C(1) << r->op)) == 0)
    return dlx_fail(err, DLX_DEVICE_ERROR, "row_op %d is not a scan of the Level Zero backend",
                    (int)r->op);
  memset(&a, 0, sizeof a);
  a.op = r->op;
  a.src_dtype = r->src->dtype;
  a.values_dtype = r->values->dtype;
  a.key_kind = dlx_sort_key_kind(r->src->dtype);
  a.is_float = dlx_dtype_kind(r->src->dtype) == DLX_KIND_FLOAT;
  a.rows = r->src->shape[0];
  a.n = r->src->shape[1];
  {
    /* LOGCUMSUMEXP has no indices: the kernel does not touch the pointer */
    void *values = dlx_ze_first_element(r->values);
    void *const ptrs[3] = {values, r->indices != NULL ? dlx_ze_first_element(r->indices) : values,
                           dlx_ze_first_element(r->src)};
    pthread_mutex_lock(&dev->lock);
    rc = dlx_ze_launch(dev, DLX_ZE_ROW_SCAN, dlx_ze_groups_for(a.rows), &a, sizeof a, ptrs, 3, err);
    pthread_mutex_unlock(&dev->lock);
  }
  return rc;
}
