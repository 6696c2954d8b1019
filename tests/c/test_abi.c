/* test_abi.c -- include/dlpack/dlpack.h against the DLPack 1.3 ABI: the sizes and offsets of
 * every struct (LP64, reference/dlpack-spec.md section 2), the enum values, the flags, the
 * version macros and the signatures of the exchange API's function types. Also dlx's own
 * numbers that hosts hard-code (include/dlx_errclass.h, which needs no Lua headers). */
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "dlpack/dlpack.h"
#include "dlx_errclass.h"

#define CHECK_LAYOUT(type, field, offset, size)                                                    \
  do {                                                                                             \
    CHECK_EQ_INT(offsetof(type, field), offset);                                                   \
    CHECK_EQ_INT(sizeof(((type *)0)->field), size);                                                \
  } while (0)

/* The exact type of a field (C11 _Generic: no conversion happens in the selection). */
#define CHECK_TYPE(type, field, field_type)                                                        \
  CHECK(_Generic((((type *)0)->field), field_type : 1, default : 0))

/* Functions with the exact signatures of the exchange API. Assigning them to the header's
 * function pointer types fails to compile (-Werror) if a typedef differs from the spec. */
static void set_error(void *ctx, const char *kind, const char *message) {
  (void)ctx, (void)kind, (void)message;
}
static int allocator(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                     DLPackSetError set) {
  (void)prototype, (void)out, (void)error_ctx, (void)set;
  return -1;
}
static int from_object(void *object, DLManagedTensorVersioned **out) {
  (void)object, (void)out;
  return -1;
}
static int to_object(DLManagedTensorVersioned *tensor, void **out) {
  (void)tensor, (void)out;
  return -1;
}
static int view_object(void *object, DLTensor *out) {
  (void)object, (void)out;
  return -1;
}
static int work_stream(DLDeviceType type, int32_t id, void **out) {
  (void)type, (void)id, (void)out;
  return -1;
}
static void legacy_deleter(DLManagedTensor *self) { (void)self; }
static void versioned_deleter(DLManagedTensorVersioned *self) { (void)self; }

static void check_signatures(void) {
  DLPackExchangeAPI api = {
      .header = {.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, .prev_api = NULL},
      .managed_tensor_allocator = allocator,
      .managed_tensor_from_py_object_no_sync = from_object,
      .managed_tensor_to_py_object_no_sync = to_object,
      .dltensor_from_py_object_no_sync = view_object,
      .current_work_stream = work_stream,
  };
  DLPackSetError set = set_error;
  DLManagedTensor legacy = {.deleter = legacy_deleter};
  DLManagedTensorVersioned versioned = {.deleter = versioned_deleter};
  CHECK(api.managed_tensor_allocator(NULL, NULL, NULL, set) == -1);
  CHECK(api.header.version.major == 1 && api.header.version.minor == 3);
  CHECK(legacy.deleter == legacy_deleter && versioned.deleter == versioned_deleter);
}

static void check_versions(void) {
  CHECK_EQ_INT(DLPACK_MAJOR_VERSION, 1);
  CHECK_EQ_INT(DLPACK_MINOR_VERSION, 3);
#ifdef DLPACK_VERSION
  CHECK(!"DLPACK_VERSION is pre-1.0 and must not be defined");
#endif
#ifdef DLPACK_ABI_VERSION
  CHECK(!"DLPACK_ABI_VERSION is pre-1.0 and must not be defined");
#endif
}

static void check_enums(void) {
  /* DLDeviceType: 1-18, 5 and 6 unassigned. */
  CHECK_EQ_INT(sizeof(DLDeviceType), 4);
  CHECK_EQ_INT(kDLCPU, 1);
  CHECK_EQ_INT(kDLCUDA, 2);
  CHECK_EQ_INT(kDLCUDAHost, 3);
  CHECK_EQ_INT(kDLOpenCL, 4);
  CHECK_EQ_INT(kDLVulkan, 7);
  CHECK_EQ_INT(kDLMetal, 8);
  CHECK_EQ_INT(kDLVPI, 9);
  CHECK_EQ_INT(kDLROCM, 10);
  CHECK_EQ_INT(kDLROCMHost, 11);
  CHECK_EQ_INT(kDLExtDev, 12);
  CHECK_EQ_INT(kDLCUDAManaged, 13);
  CHECK_EQ_INT(kDLOneAPI, 14);
  CHECK_EQ_INT(kDLWebGPU, 15);
  CHECK_EQ_INT(kDLHexagon, 16);
  CHECK_EQ_INT(kDLMAIA, 17);
  CHECK_EQ_INT(kDLTrn, 18);

  /* DLDataTypeCode: 0-17. */
  CHECK_EQ_INT(kDLInt, 0);
  CHECK_EQ_INT(kDLUInt, 1);
  CHECK_EQ_INT(kDLFloat, 2);
  CHECK_EQ_INT(kDLOpaqueHandle, 3);
  CHECK_EQ_INT(kDLBfloat, 4);
  CHECK_EQ_INT(kDLComplex, 5);
  CHECK_EQ_INT(kDLBool, 6);
  CHECK_EQ_INT(kDLFloat8_e3m4, 7);
  CHECK_EQ_INT(kDLFloat8_e4m3, 8);
  CHECK_EQ_INT(kDLFloat8_e4m3b11fnuz, 9);
  CHECK_EQ_INT(kDLFloat8_e4m3fn, 10);
  CHECK_EQ_INT(kDLFloat8_e4m3fnuz, 11);
  CHECK_EQ_INT(kDLFloat8_e5m2, 12);
  CHECK_EQ_INT(kDLFloat8_e5m2fnuz, 13);
  CHECK_EQ_INT(kDLFloat8_e8m0fnu, 14);
  CHECK_EQ_INT(kDLFloat6_e2m3fn, 15);
  CHECK_EQ_INT(kDLFloat6_e3m2fn, 16);
  CHECK_EQ_INT(kDLFloat4_e2m1fn, 17);

  /* Flags. */
  CHECK_EQ_INT(DLPACK_FLAG_BITMASK_READ_ONLY, 0x1);
  CHECK_EQ_INT(DLPACK_FLAG_BITMASK_IS_COPIED, 0x2);
  CHECK_EQ_INT(DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED, 0x4);
}

/* Field types and the layouts that do not depend on the data model. */
static void check_fields(void) {
  CHECK_EQ_INT(sizeof(DLPackVersion), 8);
  CHECK_LAYOUT(DLPackVersion, major, 0, 4);
  CHECK_LAYOUT(DLPackVersion, minor, 4, 4);
  CHECK_TYPE(DLPackVersion, major, uint32_t);
  CHECK_TYPE(DLPackVersion, minor, uint32_t);

  CHECK_EQ_INT(sizeof(DLDevice), 8);
  CHECK_LAYOUT(DLDevice, device_type, 0, 4);
  CHECK_LAYOUT(DLDevice, device_id, 4, 4);
  CHECK_TYPE(DLDevice, device_type, DLDeviceType);
  CHECK_TYPE(DLDevice, device_id, int32_t);

  CHECK_EQ_INT(sizeof(DLDataType), 4);
  CHECK_LAYOUT(DLDataType, code, 0, 1);
  CHECK_LAYOUT(DLDataType, bits, 1, 1);
  CHECK_LAYOUT(DLDataType, lanes, 2, 2);
  CHECK_TYPE(DLDataType, code, uint8_t);
  CHECK_TYPE(DLDataType, bits, uint8_t);
  CHECK_TYPE(DLDataType, lanes, uint16_t);

  CHECK_TYPE(DLTensor, data, void *);
  CHECK_TYPE(DLTensor, device, DLDevice);
  CHECK_TYPE(DLTensor, ndim, int32_t);
  CHECK_TYPE(DLTensor, dtype, DLDataType);
  CHECK_TYPE(DLTensor, shape, int64_t *);
  CHECK_TYPE(DLTensor, strides, int64_t *);
  CHECK_TYPE(DLTensor, byte_offset, uint64_t);

  CHECK_TYPE(DLManagedTensor, dl_tensor, DLTensor);
  CHECK_TYPE(DLManagedTensor, manager_ctx, void *);
  CHECK_TYPE(DLManagedTensor, deleter, void (*)(struct DLManagedTensor *));

  CHECK_TYPE(DLManagedTensorVersioned, version, DLPackVersion);
  CHECK_TYPE(DLManagedTensorVersioned, manager_ctx, void *);
  CHECK_TYPE(DLManagedTensorVersioned, deleter, void (*)(struct DLManagedTensorVersioned *));
  CHECK_TYPE(DLManagedTensorVersioned, flags, uint64_t);
  CHECK_TYPE(DLManagedTensorVersioned, dl_tensor, DLTensor);

  CHECK_TYPE(DLPackExchangeAPIHeader, version, DLPackVersion);
  CHECK_TYPE(DLPackExchangeAPIHeader, prev_api, struct DLPackExchangeAPIHeader *);
  CHECK_TYPE(DLPackExchangeAPI, header, DLPackExchangeAPIHeader);
  CHECK_TYPE(DLPackExchangeAPI, managed_tensor_allocator, DLPackManagedTensorAllocator);
  CHECK_TYPE(DLPackExchangeAPI, managed_tensor_from_py_object_no_sync,
             DLPackManagedTensorFromPyObjectNoSync);
  CHECK_TYPE(DLPackExchangeAPI, managed_tensor_to_py_object_no_sync,
             DLPackManagedTensorToPyObjectNoSync);
  CHECK_TYPE(DLPackExchangeAPI, dltensor_from_py_object_no_sync, DLPackDLTensorFromPyObjectNoSync);
  CHECK_TYPE(DLPackExchangeAPI, current_work_stream, DLPackCurrentWorkStream);
}

/* The table of reference/dlpack-spec.md section 2, which is for LP64 (x86-64 and aarch64
 * Linux): 8-byte pointers and 8-byte alignment of 64-bit integers. */
static void check_lp64_layout(void) {
  CHECK_EQ_INT(sizeof(DLTensor), 48);
  CHECK_LAYOUT(DLTensor, data, 0, 8);
  CHECK_LAYOUT(DLTensor, device, 8, 8);
  CHECK_LAYOUT(DLTensor, ndim, 16, 4);
  CHECK_LAYOUT(DLTensor, dtype, 20, 4);
  CHECK_LAYOUT(DLTensor, shape, 24, 8);
  CHECK_LAYOUT(DLTensor, strides, 32, 8);
  CHECK_LAYOUT(DLTensor, byte_offset, 40, 8);

  CHECK_EQ_INT(sizeof(DLManagedTensor), 64);
  CHECK_LAYOUT(DLManagedTensor, dl_tensor, 0, 48);
  CHECK_LAYOUT(DLManagedTensor, manager_ctx, 48, 8);
  CHECK_LAYOUT(DLManagedTensor, deleter, 56, 8);

  CHECK_EQ_INT(sizeof(DLManagedTensorVersioned), 80);
  CHECK_LAYOUT(DLManagedTensorVersioned, version, 0, 8);
  CHECK_LAYOUT(DLManagedTensorVersioned, manager_ctx, 8, 8);
  CHECK_LAYOUT(DLManagedTensorVersioned, deleter, 16, 8);
  CHECK_LAYOUT(DLManagedTensorVersioned, flags, 24, 8);
  CHECK_LAYOUT(DLManagedTensorVersioned, dl_tensor, 32, 48);

  CHECK_EQ_INT(sizeof(DLPackExchangeAPIHeader), 16);
  CHECK_LAYOUT(DLPackExchangeAPIHeader, version, 0, 8);
  CHECK_LAYOUT(DLPackExchangeAPIHeader, prev_api, 8, 8);

  CHECK_EQ_INT(sizeof(DLPackExchangeAPI), 56);
  CHECK_LAYOUT(DLPackExchangeAPI, header, 0, 16);
  CHECK_LAYOUT(DLPackExchangeAPI, managed_tensor_allocator, 16, 8);
  CHECK_LAYOUT(DLPackExchangeAPI, managed_tensor_from_py_object_no_sync, 24, 8);
  CHECK_LAYOUT(DLPackExchangeAPI, managed_tensor_to_py_object_no_sync, 32, 8);
  CHECK_LAYOUT(DLPackExchangeAPI, dltensor_from_py_object_no_sync, 40, 8);
  CHECK_LAYOUT(DLPackExchangeAPI, current_work_stream, 48, 8);
}

/* The error classes that dlx's host functions return: hosts in other languages (the ctypes
 * host of examples/python) write these numbers down. */
static void check_error_classes(void) {
  CHECK_EQ_INT(DLX_OK, 0);
  CHECK_EQ_INT(DLX_TYPE_ERROR, 1);
  CHECK_EQ_INT(DLX_VALUE_ERROR, 2);
  CHECK_EQ_INT(DLX_BUFFER_ERROR, 3);
  CHECK_EQ_INT(DLX_DEVICE_ERROR, 4);
  CHECK_EQ_INT(DLX_MEMORY_ERROR, 5);
  CHECK_EQ_INT(DLX_LUA_ERROR, 6);
}

int main(void) {
  check_versions();
  check_error_classes();
  check_enums();
  check_fields();
  if (sizeof(void *) == 8 && sizeof(long) == 8 && _Alignof(int64_t) == 8)
    check_lp64_layout();
  else
    printf("test_abi: not an LP64 target, the offset table is skipped\n");
  check_signatures();
  return check_report("test_abi");
}
