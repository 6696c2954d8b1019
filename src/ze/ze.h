/* ze.h -- the Level Zero backend's runtime: the loader opened with dlopen, the drivers and GPU
 * devices it finds, and one device's means of execution (an immediate command list, an event, the
 * kernels). Every operation is queued on the device's immediate command list and waited for on
 * an event before it returns, so dlx's Level Zero operations are synchronous.
 *
 * oneapi:N numbering: N counts the GPU root devices of every Level Zero driver, in the loader's
 * driver order, then in each driver's device order (zeDriverGet, zeDeviceGet). Sub-devices are
 * not listed. This is NOT the SYCL global device index that dpctl and PyTorch XPU put into
 * kDLOneAPI device_id (it counts the devices of every SYCL backend, OpenCL ones included, in the
 * SYCL runtime's order); see docs/level-zero.md. */
#ifndef DLX_ZE_ZE_H
#define DLX_ZE_ZE_H

#include <level_zero/ze_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/error.h"
#include "core/plan.h"
#include "core/tensor.h"

/* The loader functions dlx uses, resolved with dlsym. */
#define DLX_ZE_FUNCTIONS(X)                                                                        \
  X(zeInit)                                                                                        \
  X(zeDriverGet)                                                                                   \
  X(zeDeviceGet)                                                                                   \
  X(zeDeviceGetProperties)                                                                         \
  X(zeContextCreate)                                                                               \
  X(zeContextDestroy)                                                                              \
  X(zeMemAllocDevice)                                                                              \
  X(zeMemAllocHost)                                                                                \
  X(zeMemAllocShared)                                                                              \
  X(zeMemFree)                                                                                     \
  X(zeMemGetAllocProperties)                                                                       \
  X(zeCommandListCreateImmediate)                                                                  \
  X(zeCommandListDestroy)                                                                          \
  X(zeCommandListAppendMemoryCopy)                                                                 \
  X(zeCommandListAppendMemoryCopyRegion)                                                           \
  X(zeCommandListAppendMemoryFill)                                                                 \
  X(zeCommandListAppendLaunchKernel)                                                               \
  X(zeCommandListAppendBarrier)                                                                    \
  X(zeEventPoolCreate)                                                                             \
  X(zeEventPoolDestroy)                                                                            \
  X(zeEventCreate)                                                                                 \
  X(zeEventDestroy)                                                                                \
  X(zeEventHostSynchronize)                                                                        \
  X(zeEventHostReset)                                                                              \
  X(zeModuleCreate)                                                                                \
  X(zeModuleDestroy)                                                                               \
  X(zeModuleBuildLogGetString)                                                                     \
  X(zeModuleBuildLogDestroy)                                                                       \
  X(zeKernelCreate)                                                                                \
  X(zeKernelDestroy)                                                                               \
  X(zeKernelSetGroupSize)                                                                          \
  X(zeKernelSetArgumentValue)

typedef struct dlx_ze_api {
#define DLX_ZE_POINTER(name) __typeof__(name) *name;
  DLX_ZE_FUNCTIONS(DLX_ZE_POINTER)
#undef DLX_ZE_POINTER
} dlx_ze_api;

enum dlx_ze_kernel_id {
  DLX_ZE_COPY_CAST,
  DLX_ZE_COPY_RAW,
  DLX_ZE_FILL,
  DLX_ZE_REDUCE_PARTIAL,
  DLX_ZE_REDUCE_FINISH,
  DLX_ZE_ELEMENTWISE,
  DLX_ZE_STAT_PARTIAL,
  DLX_ZE_STAT_FINISH,
  DLX_ZE_ALONG_DIM,
  DLX_ZE_FILL_RANDOM,
  DLX_ZE_MULTINOMIAL,
  DLX_ZE_SORT_ROWS,
  DLX_ZE_INDEX,
  DLX_ZE_MATMUL,
  DLX_ZE_ROW_SCAN,
  DLX_ZE_IMAGE,
  DLX_ZE_COUNT,
  DLX_ZE_NUM_KERNELS
};

typedef struct dlx_ze_device {
  int32_t id; /* N of oneapi:N */
  ze_driver_handle_t driver;
  ze_device_handle_t device;
  ze_context_handle_t context;   /* one per driver, shared by its devices */
  ze_command_list_handle_t list; /* the default stream */
  ze_event_pool_handle_t pool;
  ze_event_handle_t done; /* signalled by the last command of each operation */
  ze_module_handle_t module;
  ze_kernel_handle_t kernels[DLX_ZE_NUM_KERNELS];
  void *args; /* host USM holding the kernels' argument blocks (one operation at a time) */
  pthread_mutex_t lock;    /* one operation at a time on the list, the event and the kernels */
  atomic_size_t allocated; /* bytes of live device allocations (dlx.memory_allocated) */
} dlx_ze_device;

/* Bytes of dlx_ze_device.args: the largest argument block of ze_args.h fits. */
#define DLX_ZE_ARGS_SIZE 2048

/* The loader's functions, or NULL when it could not be opened (then there are no devices). */
const dlx_ze_api *dlx_ze_api_get(void);
int dlx_ze_device_count(void);
dlx_ze_device *dlx_ze_device_get(int32_t id);
/* The oneapi id of the device that owns USM pointer ptr (for host USM, `preferred` when it
 * shares the allocation's context, else the context's first device), or -1 when no context of
 * dlx knows ptr. */
int32_t dlx_ze_device_of_pointer(const void *ptr, int32_t preferred);

/* The calling thread's current stream on dev (an immediate command list): dev->list unless
 * dlx_ze_set_current_list chose another for this thread. */
ze_command_list_handle_t dlx_ze_current_list(const dlx_ze_device *dev);
void dlx_ze_set_current_list(const dlx_ze_device *dev, ze_command_list_handle_t list);

/* A DeviceError (MemoryError for out-of-memory results) naming the call, or 0 on success. */
int dlx_ze_check(ze_result_t rc, const char *call, dlx_error *err);

/* Waits for the command just appended with dev->done as its signal event, then resets it. */
int dlx_ze_wait(dlx_ze_device *dev, dlx_error *err);
/* The kernel, created (with its module) on first use. */
int dlx_ze_kernel(dlx_ze_device *dev, enum dlx_ze_kernel_id id, ze_kernel_handle_t *out,
                  dlx_error *err);

/* Launches kernel id on `groups` work-groups with the pointers ptrs[0 .. nptrs - 1] and then the
 * argument block (copied into dev->args), and waits for it. Called with dev->lock held. */
int dlx_ze_launch(dlx_ze_device *dev, enum dlx_ze_kernel_id id, uint32_t groups, const void *block,
                  size_t block_size, void *const *ptrs, int nptrs, dlx_error *err);

/* Grid-stride kernels need no more work-groups than this to keep a GPU busy. */
#define DLX_ZE_MAX_GROUPS 65536

/* Work-groups of DLX_ZE_GROUP_SIZE for n work-items: at least 1, at most DLX_ZE_MAX_GROUPS (the
 * kernels loop over the rest). */
uint32_t dlx_ze_groups_for(int64_t n);

/* The device of t's memory, and t's first element (whole-byte dtypes). */
static inline dlx_ze_device *dlx_ze_device_of(const dlx_tensor *t) {
  return dlx_ze_device_get(t->buffer->device.device_id);
}
static inline char *dlx_ze_first_element(const dlx_tensor *t) {
  return (char *)t->buffer->data + t->offset * dlx_itemsize(t->dtype);
}

/* A kernel's walk (the shape and strides of an argument block of ze_args.h) from the core's
 * plan p: its shape into shape, and operand k's strides times scale[k] (its item size, for the
 * byte strides the kernels take; 1 when the plan was made of byte strides) into strides[k].
 * Returns the dims. */
static inline int64_t dlx_ze_put_walk(const dlx_plan *p, int64_t *shape, int64_t *const *strides,
                                      const int64_t *scale) {
  for (int32_t d = 0; d < p->ndim; d++) {
    shape[d] = p->shape[d];
    for (int k = 0; k < p->nops; k++) strides[k][d] = p->strides[k][d] * scale[k];
  }
  return p->ndim;
}

/* ---- the backend's entries, a file each, gathered in its table (src/ze/ze_backend.c) */

/* Device USM, counted in memory_allocated (ze_backend.c). */
void *dlx_ze_alloc(int32_t device_id, size_t nbytes, dlx_error *err);
void dlx_ze_free(int32_t device_id, void *ptr, size_t nbytes);

/* Copies and the byte moves to, from and between devices (ze_copy.c). */
int dlx_ze_copy(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err);
int dlx_ze_copy_bytes_host(int32_t device_id, void *dst, const void *src, size_t nbytes,
                           bool to_device, dlx_error *err);
int dlx_ze_copy_bytes_device(void *dst, int32_t dst_id, const void *src, int32_t src_id,
                             size_t nbytes, dlx_error *err);

/* ze_fill.c, ze_random.c, ze_reduce.c (with reduce_stat), ze_along_dim.c, ze_elementwise.c,
 * ze_sort.c, ze_indexing.c, ze_matmul.c. */
int dlx_ze_fill(const dlx_tensor *dst, const dlx_scalar *value, dlx_error *err);
int dlx_ze_fill_random(const dlx_tensor *dst, const dlx_random_request *r, dlx_error *err);
int dlx_ze_multinomial(const dlx_multinomial_request *r, dlx_error *err);
int dlx_ze_reduce(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims, const dlx_tensor *dst,
                  dlx_error *err);
int dlx_ze_reduce_stat(dlx_stat_op op, double param, const dlx_tensor *src, uint64_t dims,
                       const dlx_tensor *dst, dlx_error *err);
int dlx_ze_along_dim(dlx_dim_op op, const dlx_tensor *src, int32_t dim, const dlx_tensor *dst,
                     dlx_error *err);
int dlx_ze_elementwise(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in,
                       dlx_dtype compute, dlx_error *err);
int dlx_ze_sort_rows(const dlx_tensor *src, bool descending, const dlx_tensor *values,
                     const dlx_tensor *indices, dlx_error *err);
int dlx_ze_index_op(dlx_index_request *r, dlx_error *err);
int dlx_ze_matmul(const dlx_matmul_request *r, dlx_error *err);
/* row_op for the ops of DLX_ZE_ROW_OPS (ze_row_op.c). */
#define DLX_ZE_ROW_OPS                                                                             \
  ((UINT32_C(1) << DLX_ROW_CUMMAX) | (UINT32_C(1) << DLX_ROW_CUMMIN) |                             \
   (UINT32_C(1) << DLX_ROW_LOGCUMSUMEXP))
int dlx_ze_row_op(const dlx_row_request *r, dlx_error *err);
/* image_op: pooling and resizing (ze_image.c). */
int dlx_ze_image_op(const dlx_image_request *r, dlx_error *err);
/* count_op (ze_count.c). */
int dlx_ze_count_op(const dlx_count_request *r, dlx_error *err);

/* The backend's share_context (src/ze/ze_runtime.c). */
int dlx_ze_share_context(void *driver, void *context);

/* The backend's table (src/ze/ze_backend.c). */
extern const dlx_backend dlx_ze_backend;

/* The stream entries of backend.h for Level Zero (src/ze/ze_stream.c). */
extern const dlx_stream_ops dlx_ze_stream_ops;

/* The SPIR-V module built from src/ze/kernels (generated at build time). */
extern const unsigned char dlx_ze_spirv[];
extern const size_t dlx_ze_spirv_size;

#endif
