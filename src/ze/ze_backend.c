/* ze_backend.c -- the Level Zero backend's table: device USM, copies (plain, pitched region,
 * or a kernel), fills, reductions and byte moves to and from the host. Each entry holds the
 * device's lock, queues its commands on the immediate command list and waits for them. */
#include <string.h>

#include "common/philox.h"
#include "core/alloc.h"
#include "core/backend.h"
#include "core/device.h"
#include "core/elementwise_kernels.h"
#include "core/random.h"
#include "core/sort.h"
#include "core/stats_kernels.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

_Static_assert(DLX_ZE_OP_SUM == DLX_REDUCE_SUM && DLX_ZE_OP_PROD == DLX_REDUCE_PROD &&
                   DLX_ZE_OP_MEAN == DLX_REDUCE_MEAN && DLX_ZE_OP_MIN == DLX_REDUCE_MIN &&
                   DLX_ZE_OP_MAX == DLX_REDUCE_MAX && DLX_ZE_OP_ARGMIN == DLX_REDUCE_ARGMIN &&
                   DLX_ZE_OP_ARGMAX == DLX_REDUCE_ARGMAX && DLX_ZE_OP_ALL == DLX_REDUCE_ALL &&
                   DLX_ZE_OP_ANY == DLX_REDUCE_ANY,
               "the kernels' reduction numbers must be dlx_reduce_op's");
_Static_assert(DLX_ZE_DIM_CUMSUM == DLX_DIM_CUMSUM && DLX_ZE_DIM_CUMPROD == DLX_DIM_CUMPROD &&
                   DLX_ZE_DIM_SOFTMAX == DLX_DIM_SOFTMAX &&
                   DLX_ZE_DIM_LOG_SOFTMAX == DLX_DIM_LOG_SOFTMAX,
               "the kernels' numbers of the ops along a dim must be dlx_dim_op's");
_Static_assert(DLX_ZE_MAX_NDIM == DLX_MAX_NDIM, "the kernels take tensors of any dlx ndim");
_Static_assert(sizeof(dlx_ze_copy_args) <= DLX_ZE_ARGS_SIZE &&
                   sizeof(dlx_ze_fill_args) <= DLX_ZE_ARGS_SIZE &&
                   sizeof(dlx_ze_reduce_args) <= DLX_ZE_ARGS_SIZE &&
                   sizeof(dlx_ze_ew_args) <= DLX_ZE_ARGS_SIZE &&
                   sizeof(dlx_ze_stat_args) <= DLX_ZE_ARGS_SIZE &&
                   sizeof(dlx_ze_dim_args) <= DLX_ZE_ARGS_SIZE &&
                   sizeof(dlx_ze_random_args) <= DLX_ZE_ARGS_SIZE &&
                   sizeof(dlx_ze_multinomial_args) <= DLX_ZE_ARGS_SIZE &&
                   sizeof(dlx_ze_sort_args) <= DLX_ZE_ARGS_SIZE &&
                   sizeof(dlx_ze_index_args) <= DLX_ZE_ARGS_SIZE,
               "dlx_ze_device.args holds the largest argument block");

/* Grid-stride kernels need no more groups than this to keep a GPU busy. */
#define MAX_GROUPS 65536

static int ze_device_count(void) { return dlx_ze_device_count(); }

static dlx_ze_device *device_of(const dlx_tensor *t) {
  return dlx_ze_device_get(t->buffer->device.device_id);
}

static char *first_element(const dlx_tensor *t) {
  return (char *)t->buffer->data + t->offset * dlx_itemsize(t->dtype);
}

/* ---- memory */

/* Device USM by default; host USM belongs to the context (every device of the driver reaches
 * it), shared USM migrates between the host and the device. All count towards the device's
 * memory_allocated, as allocations dlx made for tensors of that device. A zero-byte request
 * still gets memory, so that data pointers are never NULL. */
static void *ze_alloc_memory(int32_t device_id, size_t nbytes, dlx_memory memory, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_get(device_id);
  ze_host_mem_alloc_desc_t host = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
  ze_device_mem_alloc_desc_t device = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
  const dlx_ze_api *api = dlx_ze_api_get();
  void *ptr = NULL;
  size_t size = nbytes ? nbytes : 1;
  ze_result_t rc;
  const char *call;
  switch (memory) {
  case DLX_MEMORY_HOST:
    call = "zeMemAllocHost";
    rc = api->zeMemAllocHost(dev->context, &host, size, 64, &ptr);
    break;
  case DLX_MEMORY_SHARED:
    call = "zeMemAllocShared";
    rc = api->zeMemAllocShared(dev->context, &device, &host, size, 64, dev->device, &ptr);
    break;
  default:
    call = "zeMemAllocDevice";
    rc = api->zeMemAllocDevice(dev->context, &device, size, 64, dev->device, &ptr);
    break;
  }
  if (dlx_ze_check(rc, call, err) != 0) return NULL;
  atomic_fetch_add(&dev->allocated, nbytes);
  return ptr;
}

static void *ze_alloc(int32_t device_id, size_t nbytes, dlx_error *err) {
  return ze_alloc_memory(device_id, nbytes, DLX_MEMORY_DEVICE, err);
}

static dlx_memory ze_memory_of(int32_t device_id, const void *ptr) {
  ze_memory_allocation_properties_t props = {.stype =
                                                 ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
  ze_device_handle_t owner = NULL;
  if (dlx_ze_api_get()->zeMemGetAllocProperties(dlx_ze_device_get(device_id)->context, ptr, &props,
                                                &owner) != ZE_RESULT_SUCCESS)
    return DLX_MEMORY_DEFAULT;
  switch (props.type) {
  case ZE_MEMORY_TYPE_DEVICE:
    return DLX_MEMORY_DEVICE;
  case ZE_MEMORY_TYPE_HOST:
    return DLX_MEMORY_HOST;
  case ZE_MEMORY_TYPE_SHARED:
    return DLX_MEMORY_SHARED;
  default:
    return DLX_MEMORY_DEFAULT;
  }
}

static void ze_free(int32_t device_id, void *ptr, size_t nbytes) {
  dlx_ze_device *dev = dlx_ze_device_get(device_id);
  if (ptr == NULL) return;
  dlx_ze_api_get()->zeMemFree(dev->context, ptr);
  atomic_fetch_sub(&dev->allocated, nbytes);
}

static size_t ze_memory_allocated(int32_t device_id) {
  return atomic_load(&dlx_ze_device_get(device_id)->allocated);
}

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

static int ze_copy_bytes_host(int32_t device_id, void *dst, const void *src, size_t nbytes,
                              bool to_device, dlx_error *err) {
  (void)to_device; /* USM pointers tell the driver which side is which */
  return copy_and_wait(dlx_ze_device_get(device_id), dst, src, nbytes, err);
}

/* Devices of one driver share its context and copy directly; others go through the host. */
static int ze_copy_bytes_device(void *dst, int32_t dst_id, const void *src, int32_t src_id,
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

/* ---- kernel launches */

/* Launches kernel id over n elements with the argument block (copied into the device's host
 * USM) and the given pointers, then waits. Called with the device's lock held. */
int dlx_ze_launch(dlx_ze_device *dev, enum dlx_ze_kernel_id id, uint32_t groups, const void *block,
                  size_t block_size, void *const *ptrs, int nptrs, dlx_error *err) {
  const dlx_ze_api *ze = dlx_ze_api_get();
  ze_group_count_t count = {groups, 1, 1};
  ze_kernel_handle_t kernel;
  void *args = dev->args;
  int rc = dlx_ze_kernel(dev, id, &kernel, err);
  for (int i = 0; rc == 0 && i < nptrs; i++)
    rc = dlx_ze_check(ze->zeKernelSetArgumentValue(kernel, (uint32_t)i, sizeof(void *), &ptrs[i]),
                      "zeKernelSetArgumentValue", err);
  if (rc != 0) return rc;
  memcpy(args, block, block_size);
  rc = dlx_ze_check(ze->zeKernelSetArgumentValue(kernel, (uint32_t)nptrs, sizeof args, &args),
                    "zeKernelSetArgumentValue", err);
  if (rc == 0)
    rc = dlx_ze_check(ze->zeCommandListAppendLaunchKernel(dlx_ze_current_list(dev), kernel, &count,
                                                          dev->done, 0, NULL),
                      "zeCommandListAppendLaunchKernel", err);
  if (rc == 0) rc = dlx_ze_wait(dev, err);
  return rc;
}

uint32_t dlx_ze_groups_for(int64_t n) {
  int64_t groups = (n + DLX_ZE_GROUP_SIZE - 1) / DLX_ZE_GROUP_SIZE;
  return (uint32_t)(groups < 1 ? 1 : groups > MAX_GROUPS ? MAX_GROUPS : groups);
}

/* ---- copies */

/* Drops size-1 dims and merges neighbours that are contiguous in both layouts (byte strides),
 * so that a contiguous or pitched copy is recognised whatever the view's history. */
static int64_t simplify(int64_t *shape, int64_t *a, int64_t *b, int32_t ndim) {
  int64_t n = 0;
  for (int32_t d = 0; d < ndim; d++) {
    if (shape[d] == 1) continue;
    if (n > 0 && a[n - 1] == a[d] * shape[d] && b[n - 1] == b[d] * shape[d]) {
      shape[n - 1] *= shape[d];
      a[n - 1] = a[d];
      b[n - 1] = b[d];
      continue;
    }
    shape[n] = shape[d];
    a[n] = a[d];
    b[n] = b[d];
    n++;
  }
  return n;
}

static void byte_layout(const dlx_tensor *dst, const dlx_tensor *src, dlx_ze_copy_args *a) {
  int64_t dsize = dlx_itemsize(dst->dtype), ssize = dlx_itemsize(src->dtype);
  memset(a, 0, sizeof *a);
  a->n = dlx_tensor_numel(dst);
  a->dst_dtype = dst->dtype;
  a->src_dtype = src->dtype;
  a->itemsize = dsize;
  for (int32_t d = 0; d < dst->ndim; d++) {
    a->shape[d] = dst->shape[d];
    a->dst_strides[d] = dst->strides[d] * dsize;
    a->src_strides[d] = src->strides[d] * ssize;
  }
  a->ndim = simplify(a->shape, a->dst_strides, a->src_strides, dst->ndim);
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
      rc = copy_and_wait(device_of(sides[k]), mem[k], (char *)sides[k]->buffer->data + first[k],
                         bytes[k], err);
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
      rc = copy_and_wait(device_of(dst), (char *)dst->buffer->data + first[0], mem[0], bytes[0],
                         err);
    dlx_buffer_release(wrap[0]);
    dlx_buffer_release(wrap[1]);
  }
  dlx_free(mem[0]);
  dlx_free(mem[1]);
  return rc;
}

static int ze_copy(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  dlx_ze_device *dev = device_of(dst);
  dlx_ze_copy_args a;
  int rc;
  if (dlx_itemsize(dst->dtype) == 0) return copy_subbyte_via_host(dst, src, err);
  byte_layout(dst, src, &a);
  pthread_mutex_lock(&dev->lock);
  if (dst->dtype == src->dtype)
    rc = copy_same_dtype(dev, first_element(dst), first_element(src), &a, err);
  else
    rc = dlx_ze_launch(dev, DLX_ZE_COPY_CAST, dlx_ze_groups_for(a.n), &a, sizeof a,
                       (void *const[]){first_element(dst), first_element(src)}, 2, err);
  pthread_mutex_unlock(&dev->lock);
  return rc;
}

/* ---- fill */

/* The value in dst's dtype, converted on the host by the host backend (the same rules). */
static int value_bytes(dlx_dtype dtype, const dlx_scalar *value, uint64_t out[2], dlx_error *err) {
  DLDevice cpu = {kDLCPU, 0};
  dlx_tensor one;
  int rc = dlx_tensor_empty(&one, NULL, 0, dtype, cpu, err);
  if (rc != 0) return rc;
  rc = dlx_host_backend()->fill(&one, value, err);
  out[0] = out[1] = 0;
  if (rc == 0) memcpy(out, one.buffer->data, (size_t)dlx_itemsize(dtype));
  dlx_tensor_close(&one);
  return rc;
}

static int ze_fill(const dlx_tensor *dst, const dlx_scalar *value, dlx_error *err) {
  dlx_ze_device *dev = device_of(dst);
  dlx_ze_fill_args a = {0};
  int64_t size = dlx_itemsize(dst->dtype), unused[DLX_MAX_NDIM];
  int rc = value_bytes(dst->dtype, value, a.value, err);
  if (rc != 0) return rc;
  a.n = dlx_tensor_numel(dst);
  a.itemsize = size;
  for (int32_t d = 0; d < dst->ndim; d++) {
    a.shape[d] = dst->shape[d];
    a.strides[d] = unused[d] = dst->strides[d] * size;
  }
  a.ndim = simplify(a.shape, a.strides, unused, dst->ndim);
  pthread_mutex_lock(&dev->lock);
  if (a.ndim == 0 || (a.ndim == 1 && a.strides[0] == size)) {
    rc = dlx_ze_check(dlx_ze_api_get()->zeCommandListAppendMemoryFill(
                          dlx_ze_current_list(dev), first_element(dst), a.value, (size_t)size,
                          (size_t)(a.n * size), dev->done, 0, NULL),
                      "zeCommandListAppendMemoryFill", err);
    if (rc == 0) rc = dlx_ze_wait(dev, err);
  } else {
    rc = dlx_ze_launch(dev, DLX_ZE_FILL, dlx_ze_groups_for(a.n), &a, sizeof a,
                       (void *const[]){first_element(dst)}, 1, err);
  }
  pthread_mutex_unlock(&dev->lock);
  return rc;
}

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

static int ze_reduce(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims, const dlx_tensor *dst,
                     dlx_error *err) {
  dlx_ze_device *dev = device_of(src);
  dlx_ze_reduce_args a = {.op = op, .src_dtype = src->dtype, .dst_dtype = dst->dtype};
  void *partials;
  size_t bytes;
  int rc;
  reduce_layout(src, dims, &a);
  choose_chunks(&a);
  if (a.n_out * a.chunks > UINT32_MAX)
    return dlx_fail(err, DLX_VALUE_ERROR, "too many outputs for one Level Zero reduction");
  bytes = (size_t)(a.n_out * a.chunks) * sizeof(dlx_ze_acc);
  partials = ze_alloc(src->buffer->device.device_id, bytes, err);
  if (partials == NULL) return DLX_MEMORY_ERROR;
  pthread_mutex_lock(&dev->lock);
  rc = dlx_ze_launch(dev, DLX_ZE_REDUCE_PARTIAL, (uint32_t)(a.n_out * a.chunks), &a, sizeof a,
                     (void *const[]){first_element(src), partials}, 2, err);
  if (rc == 0)
    rc = dlx_ze_launch(dev, DLX_ZE_REDUCE_FINISH, (uint32_t)a.n_out, &a, sizeof a,
                       (void *const[]){first_element(dst), partials}, 2, err);
  pthread_mutex_unlock(&dev->lock);
  ze_free(src->buffer->device.device_id, partials, bytes); /* as counted by ze_alloc */
  return rc;
}

/* ---- var, std, logsumexp, norm */

/* The two passes of the reductions (chunks chosen from the sizes alone), with the partials of
 * src/common/stats_ops.h merged in a fixed order: the results do not depend on the device. */
static int ze_reduce_stat(dlx_stat_op op, double param, const dlx_tensor *src, uint64_t dims,
                          const dlx_tensor *dst, dlx_error *err) {
  dlx_ze_device *dev = device_of(src);
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
  partials = ze_alloc(id, bytes, err);
  if (partials == NULL) return DLX_MEMORY_ERROR;
  pthread_mutex_lock(&dev->lock);
  rc = dlx_ze_launch(dev, DLX_ZE_STAT_PARTIAL, (uint32_t)(a.n_out * a.chunks), &a, sizeof a,
                     (void *const[]){first_element(src), partials}, 2, err);
  if (rc == 0)
    rc = dlx_ze_launch(dev, DLX_ZE_STAT_FINISH, (uint32_t)a.n_out, &a, sizeof a,
                       (void *const[]){first_element(dst), partials}, 2, err);
  pthread_mutex_unlock(&dev->lock);
  ze_free(id, partials, bytes);
  return rc;
}

/* ---- cumsum, cumprod, softmax, log_softmax */

/* A work-group per line when the lines are long, or few and not short; a work-item per line
 * otherwise. Chosen from the sizes alone, as the results depend on it (the order of the sums). */
static bool line_per_group(int64_t lines, int64_t len) {
  return len >= 4 * DLX_ZE_GROUP_SIZE || (len >= 64 && lines < DLX_ZE_GROUP_SIZE);
}

static int ze_along_dim(dlx_dim_op op, const dlx_tensor *src, int32_t dim, const dlx_tensor *dst,
                        dlx_error *err) {
  dlx_ze_device *dev = device_of(src);
  int64_t ssize = dlx_itemsize(src->dtype), dsize = dlx_itemsize(dst->dtype);
  dlx_ze_dim_args a;
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
  for (int32_t d = 0; d < src->ndim; d++) {
    if (d == dim) continue;
    a.outer_shape[n] = src->shape[d];
    a.src_strides[n] = src->strides[d] * ssize;
    a.dst_strides[n++] = dst->strides[d] * dsize;
    a.lines *= src->shape[d];
  }
  if (a.lines == 0 || a.len == 0) return 0;
  a.outer_ndim = simplify(a.outer_shape, a.src_strides, a.dst_strides, n);
  a.per_group = line_per_group(a.lines, a.len);
  groups = a.per_group ? (uint32_t)(a.lines < MAX_GROUPS ? a.lines : MAX_GROUPS)
                       : dlx_ze_groups_for(a.lines);
  pthread_mutex_lock(&dev->lock);
  rc = dlx_ze_launch(dev, DLX_ZE_ALONG_DIM, groups, &a, sizeof a,
                     (void *const[]){first_element(dst), first_element(src)}, 2, err);
  pthread_mutex_unlock(&dev->lock);
  return rc;
}

/* ---- elementwise ops */

/* The simplify of copies for dst and the inputs of an elementwise op (byte strides): size-1 dims
 * dropped, neighbours contiguous in every layout merged. */
static int64_t simplify_ew(dlx_ze_ew_args *a, int32_t ndim) {
  int64_t n = 0;
  for (int32_t k = 0; k < ndim; k++) {
    int64_t size = a->shape[k];
    bool merge = n > 0 && a->dst_strides[n - 1] == a->dst_strides[k] * size;
    if (size == 1) continue;
    for (int m = 0; m < DLX_ZE_EW_INPUTS; m++)
      merge = merge && a->in_strides[m][n - 1] == a->in_strides[m][k] * size;
    if (merge) {
      a->shape[n - 1] *= size;
      a->dst_strides[n - 1] = a->dst_strides[k];
      for (int m = 0; m < DLX_ZE_EW_INPUTS; m++) a->in_strides[m][n - 1] = a->in_strides[m][k];
      continue;
    }
    a->shape[n] = size;
    a->dst_strides[n] = a->dst_strides[k];
    for (int m = 0; m < DLX_ZE_EW_INPUTS; m++) a->in_strides[m][n] = a->in_strides[m][k];
    n++;
  }
  return n;
}

/* One kernel for every op, dtype and layout (src/ze/kernels/elementwise.cl): the inputs are cast
 * to their kernel dtype as they are loaded, scalars travel in the argument block, converted on
 * the host with the CPU's rules, and the result is cast to dst's dtype as it is stored. */
static int ze_elementwise(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in,
                          dlx_dtype compute, dlx_error *err) {
  dlx_ze_device *dev = device_of(dst);
  dlx_ze_ew_args a;
  dlx_dtype kdtype = dlx_ewk_kernel_dtype_of(op, compute);
  int64_t dsize = dlx_itemsize(dst->dtype);
  /* unread pointers: the block */
  void *ptrs[1 + DLX_ZE_EW_INPUTS] = {first_element(dst), dev->args, dev->args, dev->args,
                                      dev->args};
  char name[48];
  int code, rc = dlx_ewk_check(
                op, kdtype, dlx_device_format(dst->buffer->device, name, sizeof name), &code, err);
  if (rc != 0) return rc;
  memset(&a, 0, sizeof a);
  a.n = dlx_tensor_numel(dst);
  a.op = code;
  a.nin = dlx_ew_arity(op);
  a.kdtype = kdtype;
  a.kout = dlx_ew_result_of(op, kdtype);
  a.dst_dtype = dst->dtype;
  for (int k = 0; k < a.nin; k++) {
    const dlx_tensor *t = in[k].tensor;
    a.in_dtype[k] = t != NULL ? (int)t->dtype : dlx_ewk_input_dtype(code, k, (int)kdtype);
    a.in_scalar[k] = t == NULL;
    if (t == NULL) rc = dlx_ewk_scalar_bytes(op, k, compute, &in[k].scalar, a.scalar[k], err);
    if (rc != 0) return rc;
    if (t != NULL) ptrs[k + 1] = first_element(t);
    for (int32_t d = 0; t != NULL && d < dst->ndim; d++)
      a.in_strides[k][d] = t->strides[d] * dlx_itemsize(t->dtype);
  }
  for (int32_t d = 0; d < dst->ndim; d++) {
    a.shape[d] = dst->shape[d];
    a.dst_strides[d] = dst->strides[d] * dsize;
  }
  a.ndim = simplify_ew(&a, dst->ndim);
  pthread_mutex_lock(&dev->lock);
  rc = dlx_ze_launch(dev, DLX_ZE_ELEMENTWISE, dlx_ze_groups_for(a.n), &a, sizeof a, ptrs,
                     1 + DLX_ZE_EW_INPUTS, err);
  pthread_mutex_unlock(&dev->lock);
  return rc;
}

/* ---- random numbers */

static int ze_fill_random(const dlx_tensor *dst, const dlx_random_request *r, dlx_error *err) {
  dlx_ze_device *dev = device_of(dst);
  dlx_ze_random_args a;
  void *out = first_element(dst);
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
    void *const ptrs[3] = {out, r->ta != NULL ? first_element(r->ta) : out,
                           r->tb != NULL ? first_element(r->tb) : out};
    pthread_mutex_lock(&dev->lock);
    rc = dlx_ze_launch(dev, DLX_ZE_FILL_RANDOM, dlx_ze_groups_for((a.n + a.lanes - 1) / a.lanes),
                       &a, sizeof a, ptrs, 3, err);
    pthread_mutex_unlock(&dev->lock);
  }
  return rc;
}

/* A work-item per row, each with scratch of its own (the cdf, or the heap's keys). */
static int ze_multinomial(const dlx_multinomial_request *r, dlx_error *err) {
  const dlx_tensor *w = r->weights;
  dlx_ze_device *dev = device_of(w);
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
  scratch = ze_alloc(id, scratch_bytes > 0 ? scratch_bytes : 8, err);
  if (scratch == NULL) return DLX_MEMORY_ERROR;
  {
    void *const ptrs[4] = {first_element(r->out), first_element(w), first_element(r->status),
                           scratch};
    pthread_mutex_lock(&dev->lock);
    rc = dlx_ze_launch(dev, DLX_ZE_MULTINOMIAL, dlx_ze_groups_for(a.rows), &a, sizeof a, ptrs, 4,
                       err);
    pthread_mutex_unlock(&dev->lock);
  }
  ze_free(id, scratch, scratch_bytes > 0 ? scratch_bytes : 8);
  return rc;
}

/* ---- sort */

/* The launches of one phase of dlx_sort_rows (ze_args.h) over `count` work-items. */
static int sort_phase(dlx_ze_device *dev, dlx_ze_sort_args *a, int64_t phase, int64_t count,
                      void *const *ptrs, dlx_error *err) {
  a->phase = phase;
  return dlx_ze_launch(dev, DLX_ZE_SORT_ROWS, dlx_ze_groups_for(count), a, sizeof *a, ptrs, 5, err);
}

/* A bitonic sort of (key, position) pairs, rows padded to a power of two: O(n log^2 n) work in
 * log2(padded) (log2(padded) + 1) / 2 launches of compare-exchange steps. */
static int ze_sort_rows(const dlx_tensor *src, bool descending, const dlx_tensor *values,
                        const dlx_tensor *indices, dlx_error *err) {
  dlx_ze_device *dev = device_of(src);
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
  scratch = ze_alloc(id, scratch_bytes, err);
  if (scratch == NULL) return DLX_MEMORY_ERROR;
  memset(&a, 0, sizeof a);
  a.key_kind = dlx_sort_key_kind(src->dtype);
  a.itemsize = bits / 8;
  a.flip = !descending ? 0 : bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
  a.rows = rows;
  a.n = n;
  a.padded = padded;
  {
    void *const ptrs[5] = {first_element(src), first_element(values), first_element(indices),
                           scratch, (char *)scratch + scratch_bytes / 2};
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
  ze_free(id, scratch, scratch_bytes);
  return rc;
}

/* ---- DLPack import */

/* Asks the driver which device owns the producer's pointer: the id a producer writes into a
 * kDLOneAPI device_id is often the SYCL global index (docs/level-zero.md), not ours, so the
 * owner found here wins; memory no context of ours knows gets id -1, which the import refuses. */
static void ze_refine_import(DLDevice *device, const void *data) {
  if (data == NULL) return; /* a zero-size tensor: nothing to read */
  device->device_id = dlx_ze_device_of_pointer(data, device->device_id);
}

const dlx_backend dlx_ze_backend = {
    .name = "oneapi",
    .device_type = kDLOneAPI,
    .host_accessible = false,
    .device_count = ze_device_count,
    .alloc = ze_alloc,
    .free = ze_free,
    .memory_allocated = ze_memory_allocated,
    .alloc_memory = ze_alloc_memory,
    .memory_of = ze_memory_of,
    .copy = ze_copy,
    .fill = ze_fill,
    .reduce = ze_reduce,
    .reduce_stat = ze_reduce_stat,
    .along_dim = ze_along_dim,
    .elementwise = ze_elementwise,
    .synchronize = NULL, /* every entry waits for its commands before it returns */
    .copy_bytes_host = ze_copy_bytes_host,
    .copy_bytes_device = ze_copy_bytes_device,
    .stream = &dlx_ze_stream_ops,
    .refine_import = ze_refine_import,
    .fill_random = ze_fill_random,
    .multinomial = ze_multinomial,
    .sort_rows = ze_sort_rows,
    .index_op = dlx_ze_index_op,
    .share_context = dlx_ze_share_context,
    .matmul = dlx_ze_matmul,
};
