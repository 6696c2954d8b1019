/* abi_items.h -- the layout facts that DLPack 0.6 (Debian's libdlpack-dev) and our 1.3 header
 * must agree on, as X-macro lists. legacy_layout.c evaluates them under the 0.x header and
 * test_abi_compat.c under ours; each fact is compared by its spelling. This file includes no
 * dlpack.h itself: each translation unit brings its own. */
#ifndef DLX_TESTS_ABI_ITEMS_H
#define DLX_TESTS_ABI_ITEMS_H

/* A fact: its C expression as text and its value in one translation unit. */
typedef struct dlx_abi_item {
  const char *expr;
  long long value;
} dlx_abi_item;

#define DLX_ABI_FIELD(X, type, field)                                                              \
  X(offsetof(type, field))                                                                         \
  X(sizeof(((type *)0)->field))

/* The structs of 0.6, which 1.x keeps unchanged. */
#define DLX_ABI_LEGACY_LAYOUT(X)                                                                   \
  X(sizeof(DLDeviceType))                                                                          \
  X(sizeof(DLDevice))                                                                              \
  DLX_ABI_FIELD(X, DLDevice, device_type)                                                          \
  DLX_ABI_FIELD(X, DLDevice, device_id)                                                            \
  X(sizeof(DLDataType))                                                                            \
  DLX_ABI_FIELD(X, DLDataType, code)                                                               \
  DLX_ABI_FIELD(X, DLDataType, bits)                                                               \
  DLX_ABI_FIELD(X, DLDataType, lanes)                                                              \
  X(sizeof(DLTensor))                                                                              \
  DLX_ABI_FIELD(X, DLTensor, data)                                                                 \
  DLX_ABI_FIELD(X, DLTensor, device)                                                               \
  DLX_ABI_FIELD(X, DLTensor, ndim)                                                                 \
  DLX_ABI_FIELD(X, DLTensor, dtype)                                                                \
  DLX_ABI_FIELD(X, DLTensor, shape)                                                                \
  DLX_ABI_FIELD(X, DLTensor, strides)                                                              \
  DLX_ABI_FIELD(X, DLTensor, byte_offset)                                                          \
  X(sizeof(DLManagedTensor))                                                                       \
  DLX_ABI_FIELD(X, DLManagedTensor, dl_tensor)                                                     \
  DLX_ABI_FIELD(X, DLManagedTensor, manager_ctx)                                                   \
  DLX_ABI_FIELD(X, DLManagedTensor, deleter)

/* Enum values by the version that introduced them (DLPACK_VERSION 60, 70, 80 in 0.x). */
#define DLX_ABI_ENUMS_V06(X)                                                                       \
  X(kDLCPU)                                                                                        \
  X(kDLCUDA)                                                                                       \
  X(kDLCUDAHost)                                                                                   \
  X(kDLOpenCL)                                                                                     \
  X(kDLVulkan)                                                                                     \
  X(kDLMetal)                                                                                      \
  X(kDLVPI)                                                                                        \
  X(kDLROCM)                                                                                       \
  X(kDLROCMHost)                                                                                   \
  X(kDLExtDev)                                                                                     \
  X(kDLCUDAManaged)                                                                                \
  X(kDLInt)                                                                                        \
  X(kDLUInt)                                                                                       \
  X(kDLFloat)                                                                                      \
  X(kDLOpaqueHandle)                                                                               \
  X(kDLBfloat)                                                                                     \
  X(kDLComplex)
#define DLX_ABI_ENUMS_V07(X)                                                                       \
  X(kDLOneAPI)                                                                                     \
  X(kDLWebGPU)                                                                                     \
  X(kDLHexagon)
#define DLX_ABI_ENUMS_V08(X) X(kDLBool)

#define DLX_ABI_ITEM(expr) {#expr, (long long)(expr)},
#define DLX_ABI_COUNT(expr) +1

/* Known values that a DLTensor written by one header and read by the other carries. */
#define DLX_ABI_PROBE_DATA ((void *)0x1000)
#define DLX_ABI_PROBE_DEVICE_ID 3
#define DLX_ABI_PROBE_NDIM 2
#define DLX_ABI_PROBE_LANES 4
#define DLX_ABI_PROBE_OFFSET 4096u

#endif
