/* ze_copy.c -- the Level Zero backend's copies: bytes between the host and a device and between
 * devices (zeCommandListAppendMemoryCopy, through the host across drivers), and tensor copies on
 * a device -- one plain copy when both sides are contiguous, a pitched region copy, or a kernel
 * (raw, or casting with the CPU's rules) over the core's plan of the two layouts. Each holds the
 * device's lock, queues its commands on the current command list and waits for them. */
#include <string.h>

#include "core/alloc.h"
#include "core/device.h"
#include "core/plan.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

/* ---- byte moves */

static int copy_and_wait(dlx_ze_device *dev, void *dst, const void *src, size_t nbytes,
                         dlx_error *err) {
  int rc;
  if (nbytes == 0) return 0;
  pthread_mutex_lock(&dev->lock);
  rc = dlx_ze_check(dlx_ze_api_get()->zeCommandListAppendMemoryCopy(
                        dlx_ze_current_list(dev), dst, src, nbytes, dev->done, 0, NULL),
                    "zeCommandListAppendMemoryCopy", err);
  if (rc == 0) rc = dlx_ze_wait(dev, err);
  pthread_mutex_unlock(&dev->lock);
  return rc;
}

int dlx_ze_copy_bytes_host(int32_t device_id, void *dst, const void *src, size_t nbytes,
                           bool to_device, dlx_error *err) {
  (void)to_device; /* USM pointers tell the driver which side is which */
  return copy_and_wait(dlx_ze_device_get(device_id), dst, src, nbytes, err);
}

/* Devices of one driver share its context and copy directly; others go through the host. */
int dlx_ze_copy_bytes_device(void *dst, int32_t dst_id, const void *src, int32_t src_id,
                             size_t nbytes, dlx_error *err) {
  dlx_ze_device *d = dlx_ze_device_get(dst_id), *s = dlx_ze_device_get(src_id);
  void *bounce;
  int rc;
  if (d->context == s->context) return copy_and_wait(s, dst, src, nbytes, err);
  bounce = dlx_malloc(nbytes ? nbytes : 1);
  if (bounce == NULL) return dlx_fail(err, DLX_MEMORY_ERROR, "out of memory copying between GPUs");
  rc = copy_and_wait(s, bounce, src, nbytes, err);
  if (rc == 0) rc = copy_and_wait(d, dst, bounce, nbytes, err);
  dlx_free(bounce);
  return rc;
}

/* ---- tensor copies */

/* The copy's walk in bytes: the core's plan over dst and src (row-major, size-1 dims dropped,
 * neighbours contiguous in both merged), so that a contiguous or pitched copy is recognised
 * whatever the views' history. Returns false when there is nothing to copy. */
static bool byte_layout(const dlx_tensor *dst, const dlx_tensor *src, dlx_ze_copy_args *a) {
  int64_t sizes[2] = {dlx_itemsize(dst->dtype), dlx_itemsize(src->dtype)};
  dlx_plan p;
  memset(a, 0, sizeof *a);
  a->n = dlx_tensor_numel(dst);
  a->dst_dtype = dst->dtype;
  a->src_dtype = src->dtype;
  a->itemsize = sizes[0];
  dlx_plan_start(&p, dst->ndim, dst->shape);
  dlx_plan_add_tensor(&p, dst);
  dlx_plan_add_tensor(&p, src);
  if (!dlx_plan_finish(&p, 0)) return false;
  a->ndim =
      dlx_ze_put_walk(&p, a->shape, (int64_t *const[]){a->dst_strides, a->src_strides}, sizes);
  return true;
}

/* Rows of a pitched 2-D or 3-D layout (contiguous rows, non-negative pitches that do not overlap
 * rows or slices) on both sides: what zeCommandListAppendMemoryCopyRegion can do. Returns false
 * when the layout needs a kernel. */
static bool region_of(const dlx_ze_copy_args *a, ze_copy_region_t *dr, ze_copy_region_t *sr,
                      uint32_t *dpitch, uint32_t *spitch, uint32_t *dslice, uint32_t *sslice) {
  int64_t n = a->ndim, size = a->itemsize, width, rows, depth;
  if (n < 2 || n > 3 || a->dst_strides[n - 1] != size || a->src_strides[n - 1] != size)
    return false;
  width = a->shape[n - 1] * size;
  rows = a->shape[n - 2];
  depth = n == 3 ? a->shape[0] : 1;
  if (a->dst_strides[n - 2] < width || a->src_strides[n - 2] < width) return false;
  if (n == 3 && (a->dst_strides[0] < a->dst_strides[1] * rows ||
                 a->src_strides[0] < a->src_strides[1] * rows))
    return false;
  /* the region API counts in 32 bits: widths, pitches and slice pitches */
  if (width > UINT32_MAX || a->dst_strides[0] * (n == 2 ? rows : 1) > UINT32_MAX ||
      a->src_strides[0] * (n == 2 ? rows : 1) > UINT32_MAX)
    return false;
  *dr = *sr = (ze_copy_region_t){0, 0, 0, (uint32_t)width, (uint32_t)rows, (uint32_t)depth};
  *dpitch = (uint32_t)a->dst_strides[n - 2];
  *spitch = (uint32_t)a->src_strides[n - 2];
  *dslice = n == 3 ? (uint32_t)a->dst_strides[0] : *dpitch * (uint32_t)rows;
  *sslice = n == 3 ? (uint32_t)a->src_strides[0] : *spitch * (uint32_t)rows;
  return true;
}

/* Same dtype: one plain copy when both are contiguous, a region copy when pitched, otherwise the
 * raw kernel. Called with the lock held. */
static int copy_same_dtype(dlx_ze_device *dev, char *dst, const char *src,
                           const dlx_ze_copy_args *a, dlx_error *err) {
  const dlx_ze_api *ze = dlx_ze_api_get();
  ze_copy_region_t dr, sr;
  uint32_t dpitch, spitch, dslice, sslice;
  int rc;
  if (a->ndim == 0 ||
      (a->ndim == 1 && a->dst_strides[0] == a->itemsize && a->src_strides[0] == a->itemsize)) {
    rc = dlx_ze_check(ze->zeCommandListAppendMemoryCopy(dlx_ze_current_list(dev), dst, src,
                                                        (size_t)(a->n * a->itemsize), dev->done, 0,
                                                        NULL),
                      "zeCommandListAppendMemoryCopy", err);
    return rc == 0 ? dlx_ze_wait(dev, err) : rc;
  }
  if (region_of(a, &dr, &sr, &dpitch, &spitch, &dslice, &sslice)) {
    rc = dlx_ze_check(ze->zeCommandListAppendMemoryCopyRegion(dlx_ze_current_list(dev), dst, &dr,
                                                              dpitch, dslice, src, &sr, spitch,
                                                              sslice, dev->done, 0, NULL),
                      "zeCommandListAppendMemoryCopyRegion", err);
    return rc == 0 ? dlx_ze_wait(dev, err) : rc;
  }
  return dlx_ze_launch(dev, DLX_ZE_COPY_RAW, dlx_ze_groups_for(a->n), a, sizeof *a,
                       (void *const[]){dst, (void *)src}, 2, err);
}

/* Packed fp4/fp6 elements share bytes, which work-items cannot write independently: such copies
 * go through the host, over the bytes each view touches, with the host backend. */
static int copy_subbyte_via_host(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  const dlx_tensor *sides[2] = {dst, src};
  dlx_tensor host[2];
  void *mem[2] = {NULL, NULL};
  size_t bytes[2];
  int64_t first[2];
  int rc = 0;
  for (int k = 0; k < 2 && rc == 0; k++) {
    int64_t lo, hi, bits = dlx_dtype_bits(sides[k]->dtype);
    dlx_tensor_extent(sides[k], &lo, &hi);
    first[k] = lo * bits / 8;
    bytes[k] = (size_t)((hi * bits + 7) / 8 - first[k]);
    mem[k] = dlx_malloc(bytes[k]);
    if (mem[k] == NULL) rc = dlx_fail(err, DLX_MEMORY_ERROR, "out of memory copying fp4/fp6 data");
    if (rc == 0)
      rc = copy_and_wait(dlx_ze_device_of(sides[k]), mem[k],
                         (char *)sides[k]->buffer->data + first[k], bytes[k], err);
  }
  if (rc == 0) {
    dlx_buffer *wrap[2];
    for (int k = 0; k < 2; k++) {
      DLDevice cpu = {kDLCPU, 0};
      host[k] = *sides[k];
      wrap[k] = dlx_buffer_wrap(cpu, mem[k], bytes[k], NULL, NULL, err);
      host[k].buffer = wrap[k];
      host[k].offset -= first[k] * 8 / dlx_dtype_bits(sides[k]->dtype);
    }
    if (wrap[0] == NULL || wrap[1] == NULL)
      rc = DLX_MEMORY_ERROR;
    else
      rc = dlx_host_backend()->copy(&host[0], &host[1], err);
    if (rc == 0)
      rc = copy_and_wait(dlx_ze_device_of(dst), (char *)dst->buffer->data + first[0], mem[0],
                         bytes[0], err);
    dlx_buffer_release(wrap[0]);
    dlx_buffer_release(wrap[1]);
  }
  dlx_free(mem[0]);
  dlx_free(mem[1]);
  return rc;
}

int dlx_ze_copy(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(dst);
  dlx_ze_copy_args a;
  int rc;
  if (dlx_itemsize(dst->dtype) == 0) return copy_subbyte_via_host(dst, src, err);
  if (!byte_layout(dst, src, &a)) return 0; /* no elements */
  pthread_mutex_lock(&dev->lock);
  if (dst->dtype == src->dtype)
    rc = copy_same_dtype(dev, dlx_ze_first_element(dst), dlx_ze_first_element(src), &a, err);
  else
    rc = dlx_ze_launch(dev, DLX_ZE_COPY_CAST, dlx_ze_groups_for(a.n), &a, sizeof a,
                       (void *const[]){dlx_ze_first_element(dst), dlx_ze_first_element(src)}, 2,
                       err);
  pthread_mutex_unlock(&dev->lock);
  return rc;
}
