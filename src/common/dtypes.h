/* dtypes.h -- the numbers of the element types, which the kernels of every language (C, OpenCL C,
 * CUDA C++) and their host code share: a kernel's argument block names a dtype by its dlx_dtype
 * value. Their names, kinds and DLPack codes are the core's (core/dtype.h). */
#ifndef DLX_COMMON_DTYPES_H
#define DLX_COMMON_DTYPES_H

typedef enum dlx_dtype {
  DLX_BOOL,
  DLX_INT8,
  DLX_INT16,
  DLX_INT32,
  DLX_INT64,
  DLX_UINT8,
  DLX_UINT16,
  DLX_UINT32,
  DLX_UINT64,
  DLX_FLOAT16,
  DLX_BFLOAT16,
  DLX_FLOAT32,
  DLX_FLOAT64,
  DLX_COMPLEX64,
  DLX_COMPLEX128,
  /* storage-only types (DLPack 1.1+): exchanged, viewed and copied bit for bit, never computed */
  DLX_FLOAT8_E3M4,
  DLX_FLOAT8_E4M3,
  DLX_FLOAT8_E4M3B11FNUZ,
  DLX_FLOAT8_E4M3FN,
  DLX_FLOAT8_E4M3FNUZ,
  DLX_FLOAT8_E5M2,
  DLX_FLOAT8_E5M2FNUZ,
  DLX_FLOAT8_E8M0FNU,
  DLX_FLOAT6_E2M3FN,    /* 6 bits an element, packed */
  DLX_FLOAT6_E3M2FN,    /* 6 bits an element, packed */
  DLX_FLOAT4_E2M1FN,    /* 4 bits an element, packed: DLPack (17, 4, 1), the header's form */
  DLX_FLOAT4_E2M1FN_X2, /* one byte holding two fp4: DLPack (17, 4, 2), PyTorch's form */
  DLX_NUM_DTYPES
} dlx_dtype;

#endif
