/* test_shared_context.c -- dlx_share_level_zero_context (dlx.h): a host's own Level Zero
 * context, as a SYCL application has one, given to dlx before it looks for devices. dlx then
 * imports the host's memory, allocates its own and runs its kernels in that context, and still
 * refuses memory of a context it was not given. Run by ctest on the test driver behind the real
 * loader and its validation layer, which fail any work that mixes contexts. */
#include <dlfcn.h>
#include <level_zero/ze_api.h>
#include <stdio.h>

#include "check.h"
#include "core/core.h"
#include "dlx.h"
#include "producer.h"

/* The host's side: the loader's functions it calls itself. */
#define HOST_FUNCTIONS(X)                                                                          \
  X(zeInit)                                                                                        \
  X(zeDriverGet)                                                                                   \
  X(zeDeviceGet)                                                                                   \
  X(zeContextCreate)                                                                               \
  X(zeMemAllocDevice)                                                                              \
  X(zeMemFree)                                                                                     \
  X(zeMemGetAllocProperties)
#define DECLARE(name) static __typeof__(name) *host_##name;
HOST_FUNCTIONS(DECLARE)
#undef DECLARE

static int load_host_api(void) {
  void *lib = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) return -1;
#define RESOLVE(name)                                                                              \
  *(void **)&host_##name = dlsym(lib, #name);                                                      \
  if (host_##name == NULL) return -1;
  HOST_FUNCTIONS(RESOLVE)
#undef RESOLVE
  return 0;
}

static void *host_alloc(ze_context_handle_t context, ze_device_handle_t device, size_t n) {
  ze_device_mem_alloc_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
  void *p = NULL;
  CHECK(host_zeMemAllocDevice(context, &desc, n, 64, device, &p) == ZE_RESULT_SUCCESS);
  return p;
}

/* Imports 16 float32 at data (labelled oneapi device 5: dlx must find the device itself). */
static int import16(producer *p, void *data, dlx_tensor *out, dlx_error *err) {
  producer_make(p, (DLDataType){kDLFloat, 32, 1}, 1, 16, 16, 1, 0);
  producer_point_at(p, data, (DLDevice){kDLOneAPI, 5});
  return dlx_import_versioned(&p->mt, out, err);
}

int main(void) {
  ze_driver_handle_t driver;
  ze_device_handle_t devices[2];
  ze_context_handle_t mine, other;
  ze_context_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
  ze_memory_allocation_properties_t props = {.stype =
                                                 ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
  ze_device_handle_t owner = NULL;
  uint32_t count = 1, ndev = 2;
  const dlx_backend *ze = dlx_backend_for(kDLOneAPI);
  dlx_tensor t, sum, made;
  dlx_scalar value = {.kind = DLX_KIND_FLOAT, .v.f = 2.5}, got;
  dlx_error err;
  producer imported, refused;
  void *p, *q;
  if (ze == NULL || load_host_api() != 0) {
    fprintf(stderr, "test_shared_context: needs dlx with Level Zero and the loader\n");
    return 1;
  }
  CHECK(host_zeInit(ZE_INIT_FLAG_GPU_ONLY) == ZE_RESULT_SUCCESS);
  CHECK(host_zeDriverGet(&count, &driver) == ZE_RESULT_SUCCESS && count == 1);
  CHECK(host_zeDeviceGet(driver, &ndev, devices) == ZE_RESULT_SUCCESS && ndev == 2);
  CHECK(host_zeContextCreate(driver, &desc, &mine) == ZE_RESULT_SUCCESS);
  CHECK(host_zeContextCreate(driver, &desc, &other) == ZE_RESULT_SUCCESS);
  if (check_failures > 0) return check_report("test_shared_context");

  CHECK_EQ_INT(dlx_share_level_zero_context(driver, NULL), DLX_DEVICE_ERROR);
  CHECK_EQ_INT(dlx_share_level_zero_context(driver, mine), 0);
  CHECK_EQ_INT(ze->device_count(), 2); /* dlx looks for devices now, with the host's context */
  CHECK_EQ_INT(dlx_share_level_zero_context(driver, other), DLX_DEVICE_ERROR); /* too late */

  /* the host's memory comes in without a copy, and dlx's kernels work on it */
  p = host_alloc(mine, devices[1], 16 * sizeof(float));
  CHECK_EQ_INT(import16(&imported, p, &t, &err), 0);
  CHECK_EQ_INT(t.buffer->device.device_id, 1);
  CHECK(t.buffer->data == p);
  CHECK_EQ_INT(dlx_fill(&t, &value, &err), 0);
  CHECK_EQ_INT(dlx_reduce(&sum, DLX_REDUCE_SUM, &t, 3, false, &err), 0);
  CHECK_EQ_INT(dlx_get_element(&sum, NULL, &got, &err), 0);
  CHECK(got.v.f == 40.0);
  dlx_tensor_close(&sum);
  dlx_tensor_close(&t);
  CHECK_EQ_INT(imported.deleted, 1);

  /* dlx's own memory lives in the host's context, on the device asked for */
  CHECK_EQ_INT(
      dlx_tensor_empty(&made, (int64_t[]){8}, 1, DLX_FLOAT32, (DLDevice){kDLOneAPI, 0}, &err), 0);
  CHECK(host_zeMemGetAllocProperties(mine, made.buffer->data, &props, &owner) == ZE_RESULT_SUCCESS);
  CHECK(props.type == ZE_MEMORY_TYPE_DEVICE && owner == devices[0]);
  dlx_tensor_close(&made);

  /* memory of a context dlx was not given is still refused, its deleter run once */
  q = host_alloc(other, devices[0], 16 * sizeof(float));
  CHECK(import16(&refused, q, &t, &err) != 0);
  CHECK_EQ_INT(err.code, DLX_BUFFER_ERROR);
  CHECK_EQ_INT(refused.deleted, 1);

  host_zeMemFree(mine, p);
  host_zeMemFree(other, q);
  return check_report("test_shared_context");
}
