/* ze_backend.c -- the Level Zero backend's table, its device memory (the three kinds of USM) and
 * its DLPack import check. The other entries have a file each (ze.h lists them): each holds the
 * device's lock, queues its commands on the current immediate command list and waits for
 * them. */
#include "core/backend.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

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

static int ze_device_count(void) { return dlx_ze_device_count(); }

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

void *dlx_ze_alloc(int32_t device_id, size_t nbytes, dlx_error *err) {
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

void dlx_ze_free(int32_t device_id, void *ptr, size_t nbytes) {
  dlx_ze_device *dev = dlx_ze_device_get(device_id);
  if (ptr == NULL) return;
  dlx_ze_api_get()->zeMemFree(dev->context, ptr);
  atomic_fetch_sub(&dev->allocated, nbytes);
}

static size_t ze_memory_allocated(int32_t device_id) {
  return atomic_load(&dlx_ze_device_get(device_id)->allocated);
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
    .alloc = dlx_ze_alloc,
    .free = dlx_ze_free,
    .memory_allocated = ze_memory_allocated,
    .alloc_memory = ze_alloc_memory,
    .memory_of = ze_memory_of,
    .copy = dlx_ze_copy,
    .fill = dlx_ze_fill,
    .reduce = dlx_ze_reduce,
    .reduce_stat = dlx_ze_reduce_stat,
    .along_dim = dlx_ze_along_dim,
    .elementwise = dlx_ze_elementwise,
    .synchronize = NULL, /* every entry waits for its commands before it returns */
    .copy_bytes_host = dlx_ze_copy_bytes_host,
    .copy_bytes_device = dlx_ze_copy_bytes_device,
    .stream = &dlx_ze_stream_ops,
    .refine_import = ze_refine_import,
    .fill_random = dlx_ze_fill_random,
    .multinomial = dlx_ze_multinomial,
    .sort_rows = dlx_ze_sort_rows,
    .row_op = dlx_ze_row_op,
    .row_ops = DLX_ZE_ROW_OPS,
    .image_op = dlx_ze_image_op,
    .count_op = dlx_ze_count_op,
    .index_op = dlx_ze_index_op,
    .share_context = dlx_ze_share_context,
    .matmul = dlx_ze_matmul,
};
