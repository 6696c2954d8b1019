/* ze_driver.c -- a test double of a Level Zero GPU driver, backed by host memory, for running
 * dlx's oneapi specs where no Intel GPU is. The real loader (libze_loader.so.1) loads it when
 * ZE_ENABLE_ALT_DRIVERS names this library, through the DDI-table entry points of
 * level_zero/ze_ddi.h; the loader's validation layer may sit in between.
 *
 * It stands in for the hardware only and is strict about what real drivers leave undefined:
 * - device USM is mapped PROT_NONE except while a command of the double runs, so host code that
 *   touches device memory directly crashes instead of passing;
 * - copies, fills and kernel arguments must lie inside USM allocations of the command list's
 *   context (host memory is allowed for copies);
 * - a signal event must be reset before it is signalled again, and a wait on an event nobody
 *   signalled fails (a GPU would hang);
 * - kernels must exist in the module's SPIR-V (OpEntryPoint), take their arguments with the sizes
 *   they declare, all set, in work-groups of DLX_ZE_GROUP_SIZE, with the group counts the
 *   argument block implies. They run as reference C implementations keyed by kernel name, on
 *   dlx's CPU backend.
 * Every misuse prints "ze_driver: ..." on stderr and returns an error, which dlx reports.
 *
 * Commands execute when they are appended, so an event is signalled by the time its append
 * returns. DLX_ZE_DRIVER_DEVICES (default 2) sets how many GPUs the driver has. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ze_kernels_ref.h"

#define MAX_DEVICES 4
#define MAX_ALLOCS 4096
#define MAX_ARGS 6
#define MAX_OBJECTS 4096

struct _ze_driver_handle_t {
  int unused;
};
struct _ze_device_handle_t {
  int index;
};
struct _ze_context_handle_t {
  int alive;
};
struct _ze_command_list_handle_t {
  ze_context_handle_t context;
  ze_device_handle_t device;
};
struct _ze_event_pool_handle_t {
  ze_context_handle_t context;
  uint32_t count;
};
struct _ze_event_handle_t {
  ze_event_pool_handle_t pool;
  int signalled;
};
struct _ze_module_handle_t {
  ze_context_handle_t context;
  uint32_t *spirv;
  size_t words;
};
struct _ze_module_build_log_handle_t {
  int unused;
};
struct _ze_kernel_handle_t {
  ze_module_handle_t module;
  const dlx_ze_ref_kernel *ref;
  uint32_t group[3];
  int set[MAX_ARGS];
  void *args[MAX_ARGS];
};

typedef struct allocation {
  char *base;
  size_t size, mapped;
  ze_memory_type_t type;
  ze_context_handle_t context;
  ze_device_handle_t device;
} allocation;

static struct _ze_driver_handle_t driver;
static struct _ze_device_handle_t devices[MAX_DEVICES];
static int device_count;
static allocation allocs[MAX_ALLOCS];
static int alloc_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* the allocation and object tables */

/* Every driver object lives in this table until it is destroyed, as a real driver tracks its
 * objects: handles an application keeps until exit are not leaks (LeakSanitizer agrees). */
static void *objects[MAX_OBJECTS];
static int object_count;

static void *new_object(size_t size) {
  void *p = calloc(1, size);
  pthread_mutex_lock(&lock);
  if (p != NULL && object_count < MAX_OBJECTS) {
    objects[object_count++] = p;
  } else {
    free(p);
    p = NULL;
  }
  pthread_mutex_unlock(&lock);
  return p;
}

static void free_object(void *p) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < object_count; i++) {
    if (objects[i] == p) objects[i] = objects[--object_count];
  }
  pthread_mutex_unlock(&lock);
  free(p);
}

static ze_result_t misuse(ze_result_t rc, const char *fmt, ...) {
  va_list ap;
  fputs("ze_driver: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return rc;
}

/* ---- global, driver, device */

static ze_result_t ZE_APICALL drv_init(ze_init_flags_t flags) {
  const char *env = getenv("DLX_ZE_DRIVER_DEVICES");
  if (flags != 0 && !(flags & ZE_INIT_FLAG_GPU_ONLY)) return ZE_RESULT_ERROR_UNINITIALIZED;
  device_count = env != NULL ? atoi(env) : 2;
  if (device_count < 0) device_count = 0;
  if (device_count > MAX_DEVICES) device_count = MAX_DEVICES;
  for (int i = 0; i < device_count; i++) devices[i].index = i;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL drv_driver_get(uint32_t *count, ze_driver_handle_t *out) {
  if (*count == 0 || out == NULL) {
    *count = 1;
    return ZE_RESULT_SUCCESS;
  }
  *count = 1;
  out[0] = &driver;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL drv_api_version(ze_driver_handle_t d, ze_api_version_t *version) {
  (void)d;
  *version = ZE_API_VERSION_1_4;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL drv_properties(ze_driver_handle_t d, ze_driver_properties_t *props) {
  (void)d;
  memset(&props->uuid, 0x5a, sizeof props->uuid);
  props->driverVersion = 1;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL drv_extensions(ze_driver_handle_t d, uint32_t *count,
                                             ze_driver_extension_properties_t *props) {
  (void)d;
  (void)props;
  *count = 0;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL dev_get(ze_driver_handle_t d, uint32_t *count,
                                      ze_device_handle_t *out) {
  if (d != &driver) return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeDeviceGet: bad driver");
  if (*count == 0 || out == NULL) {
    *count = (uint32_t)device_count;
    return ZE_RESULT_SUCCESS;
  }
  if (*count > (uint32_t)device_count) *count = (uint32_t)device_count;
  for (uint32_t i = 0; i < *count; i++) out[i] = &devices[i];
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL dev_sub_devices(ze_device_handle_t d, uint32_t *count,
                                              ze_device_handle_t *out) {
  (void)d;
  (void)out;
  *count = 0;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL dev_properties(ze_device_handle_t d, ze_device_properties_t *p) {
  if (p->stype != ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeDeviceGetProperties: wrong stype");
  p->type = ZE_DEVICE_TYPE_GPU;
  p->vendorId = 0x8086;
  p->deviceId = 0xd1c0 + (uint32_t)d->index;
  p->maxMemAllocSize = (uint64_t)1 << 34;
  snprintf(p->name, sizeof p->name, "dlx Level Zero test double GPU %d", d->index);
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL dev_compute(ze_device_handle_t d, ze_device_compute_properties_t *p) {
  (void)d;
  p->maxTotalGroupSize = 1024;
  p->maxGroupSizeX = p->maxGroupSizeY = p->maxGroupSizeZ = 1024;
  p->maxGroupCountX = p->maxGroupCountY = p->maxGroupCountZ = UINT32_MAX;
  p->maxSharedLocalMemory = 65536;
  p->numSubGroupSizes = 1;
  p->subGroupSizes[0] = 16;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL dev_queue_groups(ze_device_handle_t d, uint32_t *count,
                                               ze_command_queue_group_properties_t *p) {
  (void)d;
  if (*count == 0 || p == NULL) {
    *count = 1;
    return ZE_RESULT_SUCCESS;
  }
  *count = 1;
  p[0].flags =
      ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
  p[0].maxMemoryFillPatternSize = 128;
  p[0].numQueues = 1;
  return ZE_RESULT_SUCCESS;
}

/* ---- contexts and memory */

static ze_result_t ZE_APICALL ctx_create(ze_driver_handle_t d, const ze_context_desc_t *desc,
                                         ze_context_handle_t *out) {
  ze_context_handle_t c;
  if (d != &driver || desc->stype != ZE_STRUCTURE_TYPE_CONTEXT_DESC)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeContextCreate: bad driver or desc");
  c = new_object(sizeof *c);
  if (c == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  c->alive = 1;
  *out = c;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL ctx_destroy(ze_context_handle_t c) {
  c->alive = 0; /* kept, so that a use after destroy is caught rather than undefined */
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL ctx_status(ze_context_handle_t c) {
  return c->alive ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_DEVICE_LOST;
}

/* The allocation holding [p, p + n) in context c, or NULL. Callers hold `lock`. */
static allocation *find(ze_context_handle_t c, const void *p, size_t n) {
  const char *q = p;
  for (int i = 0; i < alloc_count; i++) {
    allocation *a = &allocs[i];
    if (a->context == c && q >= a->base && q <= a->base + a->size &&
        n <= (size_t)(a->base + a->size - q))
      return a;
  }
  return NULL;
}

/* Device USM is readable only while the double executes a command. */
static void expose_device_memory(int on) {
  for (int i = 0; i < alloc_count; i++) {
    if (allocs[i].type == ZE_MEMORY_TYPE_DEVICE)
      mprotect(allocs[i].base, allocs[i].mapped, on ? PROT_READ | PROT_WRITE : PROT_NONE);
  }
}

static ze_result_t add_alloc(ze_context_handle_t c, size_t size, size_t alignment,
                             ze_memory_type_t type, ze_device_handle_t device, void **out) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), mapped = (size + page - 1) / page * page;
  char *base;
  if (!c->alive) return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "allocation in a dead context");
  if (size == 0) return misuse(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, "zeMemAlloc* of 0 bytes");
  if (alignment != 0 && (alignment & (alignment - 1)) != 0)
    return misuse(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT, "alignment %zu", alignment);
  if (size > ((size_t)1 << 34)) return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
  base = mmap(NULL, mapped, type == ZE_MEMORY_TYPE_DEVICE ? PROT_NONE : PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
  pthread_mutex_lock(&lock);
  if (alloc_count == MAX_ALLOCS) {
    pthread_mutex_unlock(&lock);
    munmap(base, mapped);
    return misuse(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "more than %d live allocations (a leak?)",
                  MAX_ALLOCS);
  }
  allocs[alloc_count++] = (allocation){base, size, mapped, type, c, device};
  pthread_mutex_unlock(&lock);
  *out = base;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL mem_alloc_device(ze_context_handle_t c,
                                               const ze_device_mem_alloc_desc_t *desc, size_t size,
                                               size_t alignment, ze_device_handle_t d, void **out) {
  if (desc->stype != ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemAllocDevice: wrong stype");
  return add_alloc(c, size, alignment, ZE_MEMORY_TYPE_DEVICE, d, out);
}

static ze_result_t ZE_APICALL mem_alloc_host(ze_context_handle_t c,
                                             const ze_host_mem_alloc_desc_t *desc, size_t size,
                                             size_t alignment, void **out) {
  if (desc->stype != ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemAllocHost: wrong stype");
  return add_alloc(c, size, alignment, ZE_MEMORY_TYPE_HOST, NULL, out);
}

static ze_result_t ZE_APICALL mem_alloc_shared(ze_context_handle_t c,
                                               const ze_device_mem_alloc_desc_t *ddesc,
                                               const ze_host_mem_alloc_desc_t *hdesc, size_t size,
                                               size_t alignment, ze_device_handle_t d, void **out) {
  if (ddesc->stype != ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC ||
      hdesc->stype != ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemAllocShared: wrong stype");
  return add_alloc(c, size, alignment, ZE_MEMORY_TYPE_SHARED, d, out);
}

static ze_result_t ZE_APICALL mem_free(ze_context_handle_t c, void *p) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < alloc_count; i++) {
    if (allocs[i].context == c && allocs[i].base == p) {
      munmap(allocs[i].base, allocs[i].mapped);
      allocs[i] = allocs[--alloc_count];
      pthread_mutex_unlock(&lock);
      return ZE_RESULT_SUCCESS;
    }
  }
  pthread_mutex_unlock(&lock);
  return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemFree of %p, not an allocation base", p);
}

static ze_result_t ZE_APICALL mem_properties(ze_context_handle_t c, const void *p,
                                             ze_memory_allocation_properties_t *props,
                                             ze_device_handle_t *device) {
  allocation *a;
  if (props->stype != ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeMemGetAllocProperties: wrong stype");
  pthread_mutex_lock(&lock);
  a = find(c, p, 1);
  props->type = a != NULL ? a->type : ZE_MEMORY_TYPE_UNKNOWN;
  props->id = a != NULL ? (uint64_t)(uintptr_t)a->base : 0;
  props->pageSize = (uint64_t)sysconf(_SC_PAGESIZE);
  if (device != NULL) *device = a != NULL ? a->device : NULL;
  pthread_mutex_unlock(&lock);
  return ZE_RESULT_SUCCESS;
}

/* ---- events */

static ze_result_t ZE_APICALL pool_create(ze_context_handle_t c, const ze_event_pool_desc_t *desc,
                                          uint32_t ndevices, ze_device_handle_t *devs,
                                          ze_event_pool_handle_t *out) {
  ze_event_pool_handle_t pool;
  (void)ndevices;
  (void)devs;
  if (desc->stype != ZE_STRUCTURE_TYPE_EVENT_POOL_DESC || desc->count == 0)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeEventPoolCreate: bad desc");
  if (!(desc->flags & ZE_EVENT_POOL_FLAG_HOST_VISIBLE))
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  "zeEventPoolCreate: the host waits on these events, the pool must be "
                  "HOST_VISIBLE");
  pool = new_object(sizeof *pool);
  if (pool == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  pool->context = c;
  pool->count = desc->count;
  *out = pool;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL pool_destroy(ze_event_pool_handle_t pool) {
  free_object(pool);
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL event_create(ze_event_pool_handle_t pool, const ze_event_desc_t *desc,
                                           ze_event_handle_t *out) {
  ze_event_handle_t e;
  if (desc->stype != ZE_STRUCTURE_TYPE_EVENT_DESC || desc->index >= pool->count)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeEventCreate: bad desc or index");
  e = new_object(sizeof *e);
  if (e == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  e->pool = pool;
  *out = e;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL event_destroy(ze_event_handle_t e) {
  free_object(e);
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL event_sync(ze_event_handle_t e, uint64_t timeout) {
  (void)timeout;
  if (!e->signalled)
    return misuse(ZE_RESULT_NOT_READY,
                  "zeEventHostSynchronize on an event no command signals (a GPU would hang)");
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL event_query(ze_event_handle_t e) {
  return e->signalled ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

static ze_result_t ZE_APICALL event_reset(ze_event_handle_t e) {
  e->signalled = 0;
  return ZE_RESULT_SUCCESS;
}

/* Checks a command's events before it runs; signals after. */
static ze_result_t check_events(ze_command_list_handle_t list, ze_event_handle_t signal,
                                uint32_t nwait, ze_event_handle_t *waits, const char *call) {
  if (signal != NULL && signal->pool->context != list->context)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: signal event of another context", call);
  if (signal != NULL && signal->signalled)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  "%s: signal event still signalled (zeEventHostReset it first)", call);
  for (uint32_t i = 0; i < nwait; i++) {
    if (!waits[i]->signalled)
      return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: waits on an event nothing has signalled",
                    call);
  }
  return ZE_RESULT_SUCCESS;
}

static ze_result_t done(ze_event_handle_t signal) {
  if (signal != NULL) signal->signalled = 1;
  return ZE_RESULT_SUCCESS;
}

/* ---- command lists */

static ze_result_t ZE_APICALL list_create_immediate(ze_context_handle_t c, ze_device_handle_t d,
                                                    const ze_command_queue_desc_t *desc,
                                                    ze_command_list_handle_t *out) {
  ze_command_list_handle_t list;
  if (desc->stype != ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC || desc->ordinal != 0)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeCommandListCreateImmediate: bad desc");
  list = new_object(sizeof *list);
  if (list == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  list->context = c;
  list->device = d;
  *out = list;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL list_destroy(ze_command_list_handle_t list) {
  free_object(list);
  return ZE_RESULT_SUCCESS;
}

/* A copy side: inside an allocation of the list's context, or host memory of no context. */
static int copy_side_ok(ze_command_list_handle_t list, const void *p, size_t n) {
  if (find(list->context, p, n) != NULL) return 1;
  for (int i = 0; i < alloc_count; i++) {
    const char *q = p;
    if (q + n > allocs[i].base && q < allocs[i].base + allocs[i].mapped) return 0;
  }
  return 1; /* plain host memory (pageable): immediate lists may copy it */
}

static ze_result_t ZE_APICALL list_copy(ze_command_list_handle_t list, void *dst, const void *src,
                                        size_t n, ze_event_handle_t signal, uint32_t nwait,
                                        ze_event_handle_t *waits) {
  ze_result_t rc = check_events(list, signal, nwait, waits, "zeCommandListAppendMemoryCopy");
  if (rc != ZE_RESULT_SUCCESS) return rc;
  pthread_mutex_lock(&lock);
  if (!copy_side_ok(list, dst, n) || !copy_side_ok(list, src, n)) {
    pthread_mutex_unlock(&lock);
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  "zeCommandListAppendMemoryCopy: %zu bytes %p <- %p outside the context's "
                  "allocations",
                  n, dst, src);
  }
  expose_device_memory(1);
  memmove(dst, src, n);
  expose_device_memory(0);
  pthread_mutex_unlock(&lock);
  return done(signal);
}

/* Bytes from the region's start to one past its last byte. */
static size_t region_span(const ze_copy_region_t *r, uint32_t pitch, uint32_t slice) {
  size_t depth = r->depth ? r->depth : 1;
  return (size_t)r->originZ * slice + (size_t)r->originY * pitch + r->originX +
         (depth - 1) * slice + (size_t)(r->height - 1) * pitch + r->width;
}

static ze_result_t ZE_APICALL list_copy_region(ze_command_list_handle_t list, void *dst,
                                               const ze_copy_region_t *dr, uint32_t dpitch,
                                               uint32_t dslice, const void *src,
                                               const ze_copy_region_t *sr, uint32_t spitch,
                                               uint32_t sslice, ze_event_handle_t signal,
                                               uint32_t nwait, ze_event_handle_t *waits) {
  ze_result_t rc = check_events(list, signal, nwait, waits, "zeCommandListAppendMemoryCopyRegion");
  size_t depth = dr->depth ? dr->depth : 1;
  if (rc != ZE_RESULT_SUCCESS) return rc;
  if (dr->width != sr->width || dr->height != sr->height || dr->depth != sr->depth ||
      dr->width == 0 || dr->height == 0 || dpitch < dr->width || spitch < sr->width ||
      (dr->depth > 1 && (dslice < dpitch * dr->height || sslice < spitch * sr->height)))
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  "zeCommandListAppendMemoryCopyRegion: inconsistent regions or pitches");
  pthread_mutex_lock(&lock);
  if (!copy_side_ok(list, dst, region_span(dr, dpitch, dslice)) ||
      !copy_side_ok(list, src, region_span(sr, spitch, sslice))) {
    pthread_mutex_unlock(&lock);
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  "zeCommandListAppendMemoryCopyRegion: region outside the allocations");
  }
  expose_device_memory(1);
  for (size_t z = 0; z < depth; z++) {
    for (size_t y = 0; y < dr->height; y++) {
      char *d = (char *)dst + (dr->originZ + z) * dslice + (dr->originY + y) * dpitch + dr->originX;
      const char *s =
          (const char *)src + (sr->originZ + z) * sslice + (sr->originY + y) * spitch + sr->originX;
      memmove(d, s, dr->width);
    }
  }
  expose_device_memory(0);
  pthread_mutex_unlock(&lock);
  return done(signal);
}

static ze_result_t ZE_APICALL list_fill(ze_command_list_handle_t list, void *dst,
                                        const void *pattern, size_t psize, size_t n,
                                        ze_event_handle_t signal, uint32_t nwait,
                                        ze_event_handle_t *waits) {
  ze_result_t rc = check_events(list, signal, nwait, waits, "zeCommandListAppendMemoryFill");
  if (rc != ZE_RESULT_SUCCESS) return rc;
  if (psize == 0 || psize > 128 || (psize & (psize - 1)) != 0 || n % psize != 0)
    return misuse(ZE_RESULT_ERROR_INVALID_SIZE,
                  "zeCommandListAppendMemoryFill: pattern of %zu bytes for %zu bytes", psize, n);
  pthread_mutex_lock(&lock);
  if (find(list->context, dst, n) == NULL) {
    pthread_mutex_unlock(&lock);
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                  "zeCommandListAppendMemoryFill: destination outside the allocations");
  }
  expose_device_memory(1);
  for (size_t k = 0; k < n; k += psize) memcpy((char *)dst + k, pattern, psize);
  expose_device_memory(0);
  pthread_mutex_unlock(&lock);
  return done(signal);
}

static ze_result_t ZE_APICALL list_barrier(ze_command_list_handle_t list, ze_event_handle_t signal,
                                           uint32_t nwait, ze_event_handle_t *waits) {
  ze_result_t rc = check_events(list, signal, nwait, waits, "zeCommandListAppendBarrier");
  return rc != ZE_RESULT_SUCCESS ? rc : done(signal);
}

/* ---- modules and kernels */

/* True when the SPIR-V declares an OpEntryPoint named name. */
static int has_entry_point(ze_module_handle_t m, const char *name) {
  for (size_t w = 5; w < m->words;) {
    uint32_t count = m->spirv[w] >> 16, opcode = m->spirv[w] & 0xffff;
    if (count == 0) break;
    if (opcode == 15 && count > 3 && w + count <= m->words &&
        strncmp((const char *)&m->spirv[w + 3], name, (count - 3) * 4) == 0)
      return 1;
    w += count;
  }
  return 0;
}

static ze_result_t ZE_APICALL module_create(ze_context_handle_t c, ze_device_handle_t d,
                                            const ze_module_desc_t *desc, ze_module_handle_t *out,
                                            ze_module_build_log_handle_t *log) {
  ze_module_handle_t m;
  uint32_t magic = 0;
  (void)d;
  if (log != NULL) *log = NULL;
  if (desc->stype != ZE_STRUCTURE_TYPE_MODULE_DESC || desc->format != ZE_MODULE_FORMAT_IL_SPIRV ||
      desc->inputSize < 20 || desc->inputSize % 4 != 0)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeModuleCreate: not a SPIR-V module desc");
  memcpy(&magic, desc->pInputModule, 4);
  if (magic != 0x07230203)
    return misuse(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, "zeModuleCreate: bad SPIR-V magic");
  m = new_object(sizeof *m);
  if (m != NULL) m->spirv = malloc(desc->inputSize);
  if (m == NULL || m->spirv == NULL) {
    if (m != NULL) free_object(m);
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  }
  memcpy(m->spirv, desc->pInputModule, desc->inputSize);
  m->words = desc->inputSize / 4;
  m->context = c;
  *out = m;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL module_destroy(ze_module_handle_t m) {
  free(m->spirv);
  free_object(m);
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL log_destroy(ze_module_build_log_handle_t log) {
  (void)log;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL log_string(ze_module_build_log_handle_t log, size_t *size,
                                         char *text) {
  (void)log;
  if (text != NULL && *size > 0) text[0] = '\0';
  *size = 1;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL kernel_create(ze_module_handle_t m, const ze_kernel_desc_t *desc,
                                            ze_kernel_handle_t *out) {
  const dlx_ze_ref_kernel *ref = dlx_ze_ref_find(desc->pKernelName);
  ze_kernel_handle_t k;
  if (desc->stype != ZE_STRUCTURE_TYPE_KERNEL_DESC)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zeKernelCreate: wrong stype");
  if (!has_entry_point(m, desc->pKernelName))
    return misuse(ZE_RESULT_ERROR_INVALID_KERNEL_NAME,
                  "zeKernelCreate: the module has no kernel '%s'", desc->pKernelName);
  if (ref == NULL)
    return misuse(ZE_RESULT_ERROR_INVALID_KERNEL_NAME,
                  "zeKernelCreate: no reference implementation of '%s'", desc->pKernelName);
  k = new_object(sizeof *k);
  if (k == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  k->module = m;
  k->ref = ref;
  *out = k;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL kernel_destroy(ze_kernel_handle_t k) {
  free_object(k);
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL kernel_group_size(ze_kernel_handle_t k, uint32_t x, uint32_t y,
                                                uint32_t z) {
  if (x != DLX_ZE_GROUP_SIZE || y != 1 || z != 1)
    return misuse(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION,
                  "zeKernelSetGroupSize(%s, %u, %u, %u): the kernel requires (%d, 1, 1)",
                  k->ref->name, x, y, z, DLX_ZE_GROUP_SIZE);
  k->group[0] = x;
  k->group[1] = y;
  k->group[2] = z;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL kernel_suggest(ze_kernel_handle_t k, uint32_t gx, uint32_t gy,
                                             uint32_t gz, uint32_t *x, uint32_t *y, uint32_t *z) {
  (void)k;
  (void)gx;
  (void)gy;
  (void)gz;
  *x = DLX_ZE_GROUP_SIZE;
  *y = *z = 1;
  return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL kernel_arg(ze_kernel_handle_t k, uint32_t index, size_t size,
                                         const void *value) {
  if ((int)index >= k->ref->nargs)
    return misuse(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX,
                  "zeKernelSetArgumentValue(%s): index %u of %d arguments", k->ref->name, index,
                  k->ref->nargs);
  if (size != sizeof(void *) || value == NULL)
    return misuse(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE,
                  "zeKernelSetArgumentValue(%s): argument %u is a pointer (%zu bytes), got %zu",
                  k->ref->name, index, sizeof(void *), size);
  memcpy(&k->args[index], value, sizeof(void *));
  k->set[index] = 1;
  return ZE_RESULT_SUCCESS;
}

/* Pointer arguments must lie in allocations of the context: the reference says how far. */
static int args_in_memory(ze_command_list_handle_t list, ze_kernel_handle_t k) {
  for (int i = k->ref->nargs - 1; i >= 0; i--) { /* the argument block first */
    size_t lo = 0, hi = 0;
    k->ref->extent(k->args, i, &lo, &hi);
    if (find(list->context, (char *)k->args[i] - lo, lo + hi) == NULL) {
      misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT,
             "%s: argument %d (%p, bytes -%zu..+%zu) is outside the context's allocations",
             k->ref->name, i, k->args[i], lo, hi);
      return 0;
    }
  }
  return 1;
}

static ze_result_t ZE_APICALL list_launch(ze_command_list_handle_t list, ze_kernel_handle_t k,
                                          const ze_group_count_t *groups, ze_event_handle_t signal,
                                          uint32_t nwait, ze_event_handle_t *waits) {
  ze_result_t rc = check_events(list, signal, nwait, waits, "zeCommandListAppendLaunchKernel");
  const char *why;
  if (rc != ZE_RESULT_SUCCESS) return rc;
  if (k->module->context != list->context)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: module of another context", k->ref->name);
  if (k->group[0] == 0)
    return misuse(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, "%s: no group size set",
                  k->ref->name);
  for (int i = 0; i < k->ref->nargs; i++) {
    if (!k->set[i])
      return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: argument %d not set", k->ref->name, i);
  }
  if (groups->groupCountX == 0 || groups->groupCountY != 1 || groups->groupCountZ != 1)
    return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: group count (%u, %u, %u)", k->ref->name,
                  groups->groupCountX, groups->groupCountY, groups->groupCountZ);
  pthread_mutex_lock(&lock);
  expose_device_memory(1);
  why = args_in_memory(list, k) ? k->ref->run(k->args, groups->groupCountX) : "bad arguments";
  expose_device_memory(0);
  pthread_mutex_unlock(&lock);
  if (why != NULL) return misuse(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: %s", k->ref->name, why);
  return done(signal);
}

/* ---- the DDI tables the loader asks for */

#define CHECK_VERSION(version)                                                                     \
  if (ZE_MAJOR_VERSION(version) != 1) return ZE_RESULT_ERROR_UNSUPPORTED_VERSION

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetGlobalProcAddrTable(ze_api_version_t version,
                                                             ze_global_dditable_t *t) {
  CHECK_VERSION(version);
  t->pfnInit = drv_init;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetDriverProcAddrTable(ze_api_version_t version,
                                                             ze_driver_dditable_t *t) {
  CHECK_VERSION(version);
  t->pfnGet = drv_driver_get;
  t->pfnGetApiVersion = drv_api_version;
  t->pfnGetProperties = drv_properties;
  t->pfnGetExtensionProperties = drv_extensions;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetDeviceProcAddrTable(ze_api_version_t version,
                                                             ze_device_dditable_t *t) {
  CHECK_VERSION(version);
  t->pfnGet = dev_get;
  t->pfnGetSubDevices = dev_sub_devices;
  t->pfnGetProperties = dev_properties;
  t->pfnGetComputeProperties = dev_compute;
  t->pfnGetCommandQueueGroupProperties = dev_queue_groups;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetContextProcAddrTable(ze_api_version_t version,
                                                              ze_context_dditable_t *t) {
  CHECK_VERSION(version);
  t->pfnCreate = ctx_create;
  t->pfnDestroy = ctx_destroy;
  t->pfnGetStatus = ctx_status;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetMemProcAddrTable(ze_api_version_t version,
                                                          ze_mem_dditable_t *t) {
  CHECK_VERSION(version);
  t->pfnAllocShared = mem_alloc_shared;
  t->pfnAllocDevice = mem_alloc_device;
  t->pfnAllocHost = mem_alloc_host;
  t->pfnFree = mem_free;
  t->pfnGetAllocProperties = mem_properties;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetCommandListProcAddrTable(ze_api_version_t version,
                                                                  ze_command_list_dditable_t *t) {
  CHECK_VERSION(version);
  t->pfnCreateImmediate = list_create_immediate;
  t->pfnDestroy = list_destroy;
  t->pfnAppendMemoryCopy = list_copy;
  t->pfnAppendMemoryCopyRegion = list_copy_region;
  t->pfnAppendMemoryFill = list_fill;
  t->pfnAppendLaunchKernel = list_launch;
  t->pfnAppendBarrier = list_barrier;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetEventPoolProcAddrTable(ze_api_version_t version,
                                                                ze_event_pool_dditable_t *t) {
  CHECK_VERSION(version);
  t->pfnCreate = pool_create;
  t->pfnDestroy = pool_destroy;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetEventProcAddrTable(ze_api_version_t version,
                                                            ze_event_dditable_t *t) {
  CHECK_VERSION(version);
  t->pfnCreate = event_create;
  t->pfnDestroy = event_destroy;
  t->pfnHostSynchronize = event_sync;
  t->pfnQueryStatus = event_query;
  t->pfnHostReset = event_reset;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetModuleProcAddrTable(ze_api_version_t version,
                                                             ze_module_dditable_t *t) {
  CHECK_VERSION(version);
  t->pfnCreate = module_create;
  t->pfnDestroy = module_destroy;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zeGetModuleBuildLogProcAddrTable(ze_api_version_t version, ze_module_build_log_dditable_t *t) {
  CHECK_VERSION(version);
  t->pfnDestroy = log_destroy;
  t->pfnGetString = log_string;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zeGetKernelProcAddrTable(ze_api_version_t version,
                                                             ze_kernel_dditable_t *t) {
  CHECK_VERSION(version);
  t->pfnCreate = kernel_create;
  t->pfnDestroy = kernel_destroy;
  t->pfnSetGroupSize = kernel_group_size;
  t->pfnSuggestGroupSize = kernel_suggest;
  t->pfnSetArgumentValue = kernel_arg;
  return ZE_RESULT_SUCCESS;
}

/* Tables of features the double does not have: empty, so the loader reports them missing. */
#define EMPTY_TABLE(name, type)                                                                    \
  ZE_DLLEXPORT ze_result_t ZE_APICALL name(ze_api_version_t version, type *t) {                    \
    CHECK_VERSION(version);                                                                        \
    memset(t, 0, sizeof *t);                                                                       \
    return ZE_RESULT_SUCCESS;                                                                      \
  }
EMPTY_TABLE(zeGetCommandQueueProcAddrTable, ze_command_queue_dditable_t)
EMPTY_TABLE(zeGetFenceProcAddrTable, ze_fence_dditable_t)
EMPTY_TABLE(zeGetImageProcAddrTable, ze_image_dditable_t)
EMPTY_TABLE(zeGetSamplerProcAddrTable, ze_sampler_dditable_t)
EMPTY_TABLE(zeGetPhysicalMemProcAddrTable, ze_physical_mem_dditable_t)
EMPTY_TABLE(zeGetVirtualMemProcAddrTable, ze_virtual_mem_dditable_t)
EMPTY_TABLE(zeGetDeviceExpProcAddrTable, ze_device_exp_dditable_t)
EMPTY_TABLE(zeGetImageExpProcAddrTable, ze_image_exp_dditable_t)
EMPTY_TABLE(zeGetEventExpProcAddrTable, ze_event_exp_dditable_t)
EMPTY_TABLE(zeGetKernelExpProcAddrTable, ze_kernel_exp_dditable_t)
EMPTY_TABLE(zeGetFabricVertexExpProcAddrTable, ze_fabric_vertex_exp_dditable_t)
EMPTY_TABLE(zeGetFabricEdgeExpProcAddrTable, ze_fabric_edge_exp_dditable_t)

/* Tools (zet) and sysman (zes) tables: the loader requires the entry points; all empty. */
EMPTY_TABLE(zetGetDeviceProcAddrTable, zet_device_dditable_t)
EMPTY_TABLE(zetGetContextProcAddrTable, zet_context_dditable_t)
EMPTY_TABLE(zetGetCommandListProcAddrTable, zet_command_list_dditable_t)
EMPTY_TABLE(zetGetModuleProcAddrTable, zet_module_dditable_t)
EMPTY_TABLE(zetGetKernelProcAddrTable, zet_kernel_dditable_t)
EMPTY_TABLE(zetGetMetricGroupProcAddrTable, zet_metric_group_dditable_t)
EMPTY_TABLE(zetGetMetricGroupExpProcAddrTable, zet_metric_group_exp_dditable_t)
EMPTY_TABLE(zetGetMetricProcAddrTable, zet_metric_dditable_t)
EMPTY_TABLE(zetGetMetricStreamerProcAddrTable, zet_metric_streamer_dditable_t)
EMPTY_TABLE(zetGetMetricQueryPoolProcAddrTable, zet_metric_query_pool_dditable_t)
EMPTY_TABLE(zetGetMetricQueryProcAddrTable, zet_metric_query_dditable_t)
EMPTY_TABLE(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t)
EMPTY_TABLE(zetGetDebugProcAddrTable, zet_debug_dditable_t)
EMPTY_TABLE(zesGetDriverProcAddrTable, zes_driver_dditable_t)
EMPTY_TABLE(zesGetDeviceProcAddrTable, zes_device_dditable_t)
EMPTY_TABLE(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t)
EMPTY_TABLE(zesGetPerformanceFactorProcAddrTable, zes_performance_factor_dditable_t)
EMPTY_TABLE(zesGetPowerProcAddrTable, zes_power_dditable_t)
EMPTY_TABLE(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t)
EMPTY_TABLE(zesGetEngineProcAddrTable, zes_engine_dditable_t)
EMPTY_TABLE(zesGetStandbyProcAddrTable, zes_standby_dditable_t)
EMPTY_TABLE(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t)
EMPTY_TABLE(zesGetMemoryProcAddrTable, zes_memory_dditable_t)
EMPTY_TABLE(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t)
EMPTY_TABLE(zesGetTemperatureProcAddrTable, zes_temperature_dditable_t)
EMPTY_TABLE(zesGetPsuProcAddrTable, zes_psu_dditable_t)
EMPTY_TABLE(zesGetFanProcAddrTable, zes_fan_dditable_t)
EMPTY_TABLE(zesGetLedProcAddrTable, zes_led_dditable_t)
EMPTY_TABLE(zesGetRasProcAddrTable, zes_ras_dditable_t)
EMPTY_TABLE(zesGetDiagnosticsProcAddrTable, zes_diagnostics_dditable_t)
