/* ze_runtime.c -- the Level Zero loader opened at run time, drivers and GPU devices found once
 * per process, and each device's immediate command list, event and kernels, and their
 * launches. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

/* Enough for any machine dlx will meet; devices beyond it are not listed. */
#define MAX_DRIVERS 8
#define MAX_DEVICES 64

static dlx_ze_api api;
static bool api_ok;
static dlx_ze_device devices[MAX_DEVICES];
static int device_count;
static ze_context_handle_t contexts[MAX_DRIVERS];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Contexts a host gave dlx (dlx_share_level_zero_context, the entry share_context), by driver: dlx
 * uses them for those drivers and never destroys them. They can be given until discovery begins. */
static struct {
  ze_driver_handle_t driver;
  ze_context_handle_t context;
} shared[MAX_DRIVERS];
static int shared_count;
static bool discovery_begun;
static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
/* Each thread's current stream per device; NULL: the device's own list. */
static _Thread_local ze_command_list_handle_t current_lists[MAX_DEVICES];

static const char *const kernel_names[DLX_ZE_NUM_KERNELS] = {
    [DLX_ZE_COPY_CAST] = DLX_ZE_KERNEL_COPY_CAST,
    [DLX_ZE_COPY_RAW] = DLX_ZE_KERNEL_COPY_RAW,
    [DLX_ZE_FILL] = DLX_ZE_KERNEL_FILL,
    [DLX_ZE_REDUCE_PARTIAL] = DLX_ZE_KERNEL_REDUCE_PARTIAL,
    [DLX_ZE_REDUCE_FINISH] = DLX_ZE_KERNEL_REDUCE_FINISH,
    [DLX_ZE_ELEMENTWISE] = DLX_ZE_KERNEL_ELEMENTWISE,
    [DLX_ZE_STAT_PARTIAL] = DLX_ZE_KERNEL_STAT_PARTIAL,
    [DLX_ZE_STAT_FINISH] = DLX_ZE_KERNEL_STAT_FINISH,
    [DLX_ZE_ALONG_DIM] = DLX_ZE_KERNEL_ALONG_DIM,
    [DLX_ZE_FILL_RANDOM] = DLX_ZE_KERNEL_FILL_RANDOM,
    [DLX_ZE_MULTINOMIAL] = DLX_ZE_KERNEL_MULTINOMIAL,
    [DLX_ZE_SORT_ROWS] = DLX_ZE_KERNEL_SORT_ROWS,
    [DLX_ZE_INDEX] = DLX_ZE_KERNEL_INDEX,
    [DLX_ZE_MATMUL] = DLX_ZE_KERNEL_MATMUL,
    [DLX_ZE_ROW_SCAN] = DLX_ZE_KERNEL_ROW_SCAN,
    [DLX_ZE_IMAGE] = DLX_ZE_KERNEL_IMAGE,
    [DLX_ZE_COUNT] = DLX_ZE_KERNEL_COUNT,
};

/* The loader is never closed: drivers may keep threads of their own until the process ends. */
static bool load_api(void) {
  void *lib = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) return false;
#define DLX_ZE_RESOLVE(name)                                                                       \
  *(void **)&api.name = dlsym(lib, #name);                                                         \
  if (api.name == NULL) return false;
  DLX_ZE_FUNCTIONS(DLX_ZE_RESOLVE)
#undef DLX_ZE_RESOLVE
  return true;
}

static bool is_gpu(ze_device_handle_t device) {
  ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
  return api.zeDeviceGetProperties(device, &props) == ZE_RESULT_SUCCESS &&
         props.type == ZE_DEVICE_TYPE_GPU;
}

/* An immediate command list in the device's first queue group, and one host-visible event. */
static bool open_device(dlx_ze_device *dev) {
  ze_command_queue_desc_t queue = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                   .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                   .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_event_pool_desc_t pool = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                               .count = 1};
  ze_event_desc_t event = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC,
                           .index = 0,
                           .signal = ZE_EVENT_SCOPE_FLAG_HOST,
                           .wait = ZE_EVENT_SCOPE_FLAG_HOST};
  ze_host_mem_alloc_desc_t host = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
  if (api.zeCommandListCreateImmediate(dev->context, dev->device, &queue, &dev->list) !=
      ZE_RESULT_SUCCESS)
    return false;
  if (api.zeEventPoolCreate(dev->context, &pool, 1, &dev->device, &dev->pool) ==
      ZE_RESULT_SUCCESS) {
    if (api.zeEventCreate(dev->pool, &event, &dev->done) == ZE_RESULT_SUCCESS) {
      if (api.zeMemAllocHost(dev->context, &host, DLX_ZE_ARGS_SIZE, 64, &dev->args) ==
          ZE_RESULT_SUCCESS) {
        pthread_mutex_init(&dev->lock, NULL);
        return true;
      }
      api.zeEventDestroy(dev->done);
    }
    api.zeEventPoolDestroy(dev->pool);
  }
  api.zeCommandListDestroy(dev->list);
  return false;
}

static void add_driver_devices(ze_driver_handle_t driver, ze_context_handle_t context) {
  ze_device_handle_t found[MAX_DEVICES];
  uint32_t count = MAX_DEVICES;
  if (api.zeDeviceGet(driver, &count, found) != ZE_RESULT_SUCCESS) return;
  for (uint32_t i = 0; i < count && device_count < MAX_DEVICES; i++) {
    dlx_ze_device *dev = &devices[device_count];
    if (!is_gpu(found[i])) continue;
    memset(dev, 0, sizeof *dev);
    dev->id = device_count;
    dev->driver = driver;
    dev->device = found[i];
    dev->context = context;
    if (open_device(dev)) device_count++;
  }
}

/* share_context (backend.h): makes discovery use the host's context (which dlx never destroys)
 * for the devices of its driver instead of a context of dlx's own. */
int dlx_ze_share_context(void *driver, void *context) {
  int rc = DLX_DEVICE_ERROR; /* discovery has begun, a NULL argument, or too many drivers */
  pthread_mutex_lock(&share_lock);
  if (!discovery_begun && driver != NULL && context != NULL && shared_count < MAX_DRIVERS) {
    shared[shared_count].driver = (ze_driver_handle_t)driver;
    shared[shared_count].context = (ze_context_handle_t)context;
    shared_count++;
    rc = 0;
  }
  pthread_mutex_unlock(&share_lock);
  return rc;
}

static ze_context_handle_t shared_context_of(ze_driver_handle_t driver) {
  for (int i = 0; i < shared_count; i++) {
    if (shared[i].driver == driver) return shared[i].context;
  }
  return NULL;
}

/* Runs once: opens the loader, initialises it for GPUs, takes a context per driver (the host's,
 * when it shared one, else a new one). A missing loader, driver or device leaves zero devices;
 * nothing here fails `require "dlx"`. */
static void discover(void) {
  ze_driver_handle_t drivers[MAX_DRIVERS];
  uint32_t count = MAX_DRIVERS;
  pthread_mutex_lock(&share_lock);
  discovery_begun = true;
  pthread_mutex_unlock(&share_lock);
  api_ok = load_api();
  if (!api_ok || api.zeInit(ZE_INIT_FLAG_GPU_ONLY) != ZE_RESULT_SUCCESS) return;
  if (api.zeDriverGet(&count, drivers) != ZE_RESULT_SUCCESS) return;
  for (uint32_t d = 0; d < count; d++) {
    ze_context_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_context_handle_t host_context = shared_context_of(drivers[d]);
    int before = device_count;
    contexts[d] = host_context;
    if (host_context == NULL &&
        api.zeContextCreate(drivers[d], &desc, &contexts[d]) != ZE_RESULT_SUCCESS)
      continue;
    add_driver_devices(drivers[d], contexts[d]);
    if (device_count == before) {
      if (host_context == NULL) api.zeContextDestroy(contexts[d]);
      contexts[d] = NULL;
    }
  }
}

const dlx_ze_api *dlx_ze_api_get(void) {
  pthread_once(&init_once, discover);
  return api_ok ? &api : NULL;
}

int dlx_ze_device_count(void) {
  pthread_once(&init_once, discover);
  return device_count;
}

dlx_ze_device *dlx_ze_device_get(int32_t id) {
  if (id < 0 || id >= dlx_ze_device_count()) return NULL;
  return &devices[id];
}

/* The device of `owner` among those sharing context c, or -1. */
static int32_t id_of(ze_context_handle_t c, ze_device_handle_t owner) {
  for (int32_t id = 0; id < device_count; id++) {
    if (devices[id].context == c && devices[id].device == owner) return id;
  }
  return -1;
}

int32_t dlx_ze_device_of_pointer(const void *ptr, int32_t preferred) {
  for (int32_t id = 0; id < dlx_ze_device_count(); id++) {
    ze_memory_allocation_properties_t props = {.stype =
                                                   ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ze_device_handle_t owner = NULL;
    ze_context_handle_t c = devices[id].context;
    if (id > 0 && devices[id - 1].context == c) continue; /* one query per context */
    if (api.zeMemGetAllocProperties(c, ptr, &props, &owner) != ZE_RESULT_SUCCESS ||
        props.type == ZE_MEMORY_TYPE_UNKNOWN)
      continue;
    if (owner != NULL) return id_of(c, owner); /* device and shared USM */
    /* host USM belongs to the context: any of its devices reaches it */
    if (preferred >= 0 && preferred < device_count && devices[preferred].context == c)
      return preferred;
    return id;
  }
  return -1;
}

ze_command_list_handle_t dlx_ze_current_list(const dlx_ze_device *dev) {
  ze_command_list_handle_t list = current_lists[dev->id];
  return list != NULL ? list : dev->list;
}

void dlx_ze_set_current_list(const dlx_ze_device *dev, ze_command_list_handle_t list) {
  current_lists[dev->id] = list == dev->list ? NULL : list;
}

int dlx_ze_check(ze_result_t rc, const char *call, dlx_error *err) {
  if (rc == ZE_RESULT_SUCCESS) return 0;
  if (rc == ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY || rc == ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
    return dlx_fail(err, DLX_MEMORY_ERROR, "Level Zero is out of %s memory (%s)",
                    rc == ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY ? "device" : "host", call);
  return dlx_fail(err, DLX_DEVICE_ERROR, "Level Zero call %s failed (ze_result_t 0x%x)", call,
                  (unsigned)rc);
}

int dlx_ze_wait(dlx_ze_device *dev, dlx_error *err) {
  int rc = dlx_ze_check(api.zeEventHostSynchronize(dev->done, UINT64_MAX), "zeEventHostSynchronize",
                        err);
  int reset =
      dlx_ze_check(api.zeEventHostReset(dev->done), "zeEventHostReset", rc == 0 ? err : NULL);
  return rc != 0 ? rc : reset;
}

static int build_module(dlx_ze_device *dev, dlx_error *err) {
  ze_module_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                           .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = dlx_ze_spirv_size,
                           .pInputModule = dlx_ze_spirv,
                           /* float32 division correctly rounded, as on the CPU (OpenCL
                            * allows 2.5 ulp without it) */
                           .pBuildFlags = "-cl-fp32-correctly-rounded-divide-sqrt"};
  ze_module_build_log_handle_t log = NULL;
  ze_result_t rc = api.zeModuleCreate(dev->context, dev->device, &desc, &dev->module, &log);
  if (rc != ZE_RESULT_SUCCESS) {
    char text[200] = "";
    size_t size = sizeof text;
    if (log != NULL && api.zeModuleBuildLogGetString(log, &size, text) != ZE_RESULT_SUCCESS)
      text[0] = '\0';
    dev->module = NULL;
    if (log != NULL) api.zeModuleBuildLogDestroy(log);
    return dlx_fail(err, DLX_DEVICE_ERROR,
                    "the device cannot build dlx's SPIR-V kernels (ze_result_t 0x%x; the kernels "
                    "need cl_khr_fp64): %s",
                    (unsigned)rc, text);
  }
  if (log != NULL) api.zeModuleBuildLogDestroy(log);
  return 0;
}

int dlx_ze_kernel(dlx_ze_device *dev, enum dlx_ze_kernel_id id, ze_kernel_handle_t *out,
                  dlx_error *err) {
  ze_kernel_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = kernel_names[id]};
  int rc = 0;
  if (dev->kernels[id] == NULL) {
    if (dev->module == NULL) rc = build_module(dev, err);
    if (rc == 0)
      rc = dlx_ze_check(api.zeKernelCreate(dev->module, &desc, &dev->kernels[id]), "zeKernelCreate",
                        err);
    if (rc == 0) {
      rc = dlx_ze_check(api.zeKernelSetGroupSize(dev->kernels[id], DLX_ZE_GROUP_SIZE, 1, 1),
                        "zeKernelSetGroupSize", err);
      if (rc != 0) api.zeKernelDestroy(dev->kernels[id]);
    }
    if (rc != 0) {
      dev->kernels[id] = NULL;
      return rc;
    }
  }
  *out = dev->kernels[id];
  return 0;
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
  return (uint32_t)(groups < 1 ? 1 : groups > DLX_ZE_MAX_GROUPS ? DLX_ZE_MAX_GROUPS : groups);
}
