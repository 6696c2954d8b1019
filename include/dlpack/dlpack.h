/*
 * dlpack.h -- the DLPack 1.3 ABI (structs, enums, flags, the C exchange API).
 *
 * Written for dlx from the DLPack specification (dmlc/dlpack, v1.3). It uses the standard
 * include guard DLPACK_DLPACK_H_, so a host that includes its own copy of dlpack.h first gets
 * that copy, and the two agree on every layout (tests/c/test_abi.c checks the sizes and offsets,
 * tests/abi_compat/test_abi_compat.c checks them against Debian's libdlpack-dev 0.6 header).
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif

/* A major bump changes the layout of DLManagedTensorVersioned; a minor bump only adds values. */
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 3

#ifdef _WIN32
#ifdef DLPACK_EXPORTS
#define DLPACK_DLL __declspec(dllexport)
#else
#define DLPACK_DLL __declspec(dllimport)
#endif
#else
#define DLPACK_DLL
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of a DLManagedTensorVersioned or of an exchange API table. */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/* Where the data lives. Values 5 and 6 are unassigned. */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3, /* pinned host memory from cudaMallocHost */
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11, /* pinned host memory from hipMallocHost */
  kDLExtDev = 12,
  kDLCUDAManaged = 13, /* managed memory from cudaMallocManaged */
  kDLOneAPI = 14,      /* USM on a non-partitioned oneAPI device */
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
  kDLTrn = 18,
} DLDeviceType;

/* device_id is 0 for CPU, pinned and managed memory; otherwise the producer's ordinal. */
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

/* The values stored in DLDataType.code. */
typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U, /* (re, im) pairs; bits is the size of the pair */
  kDLBool = 6U,    /* bits = 8 */
  kDLFloat8_e3m4 = 7U,
  kDLFloat8_e4m3 = 8U,
  kDLFloat8_e4m3b11fnuz = 9U,
  kDLFloat8_e4m3fn = 10U,
  kDLFloat8_e4m3fnuz = 11U,
  kDLFloat8_e5m2 = 12U,
  kDLFloat8_e5m2fnuz = 13U,
  kDLFloat8_e8m0fnu = 14U,
  kDLFloat6_e2m3fn = 15U, /* bits must be 6, packed unless IS_SUBBYTE_TYPE_PADDED */
  kDLFloat6_e3m2fn = 16U,
  kDLFloat4_e2m1fn = 17U, /* bits must be 4, packed unless IS_SUBBYTE_TYPE_PADDED */
} DLDataTypeCode;

/* An element type: float32 is (kDLFloat, 32, 1). Data is always in native byte order;
 * packed sub-byte data puts element i at bit offset i * bits, little bit-endian. */
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

/* A strided view of memory. The first element is at (char *)data + byte_offset; data may be
 * an opaque handle on some devices. strides count elements, are signed, and must be non-NULL
 * when ndim != 0 (from 1.2; older producers may send NULL for row-major). shape and strides
 * may be NULL when ndim == 0; data may be NULL when the tensor has no elements. */
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;

/* Legacy (pre-1.0) managed tensor: no version, no flags. The deleter, which may be NULL,
 * frees manager_ctx and the struct itself. */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* Flags of DLManagedTensorVersioned. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* Versioned managed tensor (1.0+). Everything up to and including flags stays where it is in
 * every future version, so version and deleter can always be found; a consumer whose major
 * differs calls the deleter and reads nothing else. */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* ---- The DLPack C exchange API (1.2+; published in 1.3 as the capsule
 * "dlpack_exchange_api" under the type attribute __dlpack_c_exchange_api__). Every function
 * returns 0 on success and -1 on failure. */

/* Reports an error of the given kind ("BufferError", "MemoryError", ...) from the allocator. */
typedef void (*DLPackSetError)(void *error_ctx, const char *kind, const char *message);

/* Allocates a new tensor like the prototype (dtype, ndim, shape and device are used). */
typedef int (*DLPackManagedTensorAllocator)(DLTensor *prototype, DLManagedTensorVersioned **out,
                                            void *error_ctx, DLPackSetError SetError);

/* Owning export of py_object, without stream synchronization. */
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(void *py_object,
                                                     DLManagedTensorVersioned **out);

/* Import: wraps tensor as the producer's own object, stealing the reference. */
typedef int (*DLPackManagedTensorToPyObjectNoSync)(DLManagedTensorVersioned *tensor,
                                                   void **out_py_object);

/* Non-owning view of py_object, valid until control returns to the producer. */
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void *py_object, DLTensor *out);

/* The producer's current work stream for the device (NULL allowed for kDLCPU). */
typedef int (*DLPackCurrentWorkStream)(DLDeviceType device_type, int32_t device_id,
                                       void **out_current_stream);

typedef struct DLPackExchangeAPIHeader {
  DLPackVersion version;
  struct DLPackExchangeAPIHeader *prev_api; /* an older-version table, or NULL */
} DLPackExchangeAPIHeader;

typedef struct DLPackExchangeAPI {
  DLPackExchangeAPIHeader header;
  DLPackManagedTensorAllocator managed_tensor_allocator;
  DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
  DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
  DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync; /* may be NULL */
  DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* DLPACK_DLPACK_H_ */
