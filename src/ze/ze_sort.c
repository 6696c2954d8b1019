/* ze_sort.c -- the Level Zero backend's sort_rows: a bitonic sort of (key, position) pairs in
 * src/common/sort_keys.h's order (src/ze/kernels/sort.cl). */
#include <string.h>

#include "core/sort.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

/* The launches of one phase of dlx_sort_rows (ze_args.h) over `count` work-items. */
static int sort_phase(dlx_ze_device *dev, dlx_ze_sort_args *a, int64_t phase, int64_t count,
                      void *const *ptrs, dlx_error *err) {
  a->phase = phase;
  return dlx_ze_launch(dev, DLX_ZE_SORT_ROWS, dlx_ze_groups_for(count), a, sizeof *a, ptrs, 5, err);
}

/* A bitonic sort of (key, position) pairs, rows padded to a power of two: O(n log^2 n) work in
 * log2(padded) (log2(padded) + 1) / 2 launches of compare-exchange steps. */
int dlx_ze_sort_rows(const dlx_tensor *src, bool descending, const dlx_tensor *values,
                     const dlx_tensor *indices, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(src);
  int32_t id = src->buffer->device.device_id;
  int64_t n = src->shape[1], rows = src->shape[0], padded = 1;
  int bits = dlx_dtype_bits(src->dtype);
  dlx_ze_sort_args a;
  size_t scratch_bytes;
  void *scratch;
  int rc = 0;
  while (padded < n) padded *= 2;
  if (rows > INT64_MAX / 16 / padded)
    return dlx_fail(err, DLX_MEMORY_ERROR, "sort: %lld rows of %lld elements are too many",
                    (long long)rows, (long long)n);
  scratch_bytes = (size_t)(rows * padded) * 16; /* a ulong key and a long position each */
  scratch = dlx_ze_alloc(id, scratch_bytes, err);
  if (scratch == NULL) return DLX_MEMORY_ERROR;
  memset(&a, 0, sizeof a);
  a.key_kind = dlx_sort_key_kind(src->dtype);
  a.itemsize = bits / 8;
  a.flip = !descending ? 0 : bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
  a.rows = rows;
  a.n = n;
  a.padded = padded;
  {
    void *const ptrs[5] = {dlx_ze_first_element(src), dlx_ze_first_element(values),
                           dlx_ze_first_element(indices), scratch,
                           (char *)scratch + scratch_bytes / 2};
    pthread_mutex_lock(&dev->lock);
    rc = sort_phase(dev, &a, DLX_ZE_SORT_KEYS, rows * padded, ptrs, err);
    for (int64_t k = 2; rc == 0 && k <= padded; k *= 2) {
      for (int64_t j = k / 2; rc == 0 && j >= 1; j /= 2) {
        a.k = k;
        a.j = j;
        rc = sort_phase(dev, &a, DLX_ZE_SORT_STEP, rows * padded, ptrs, err);
      }
    }
    if (rc == 0) rc = sort_phase(dev, &a, DLX_ZE_SORT_GATHER, rows * n, ptrs, err);
    pthread_mutex_unlock(&dev->lock);
  }
  dlx_ze_free(id, scratch, scratch_bytes);
  return rc;
}
