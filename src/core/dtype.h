/* dtype.h -- the element types dlx knows, their names and DLPack codes. */
#ifndef DLX_CORE_DTYPE_H
#define DLX_CORE_DTYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "dlpack/dlpack.h"

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

typedef enum dlx_kind {
  DLX_KIND_BOOL,
  DLX_KIND_INT,   /* signed integer */
  DLX_KIND_UINT,  /* unsigned integer */
  DLX_KIND_FLOAT, /* float16, bfloat16, float32, float64 */
  DLX_KIND_COMPLEX,
  DLX_KIND_STORAGE /* fp8/fp6/fp4: no arithmetic */
} dlx_kind;

typedef struct dlx_dtype_info {
  const char *name; /* "float32", "float8_e4m3fn", ... */
  DLDataType dl;    /* what DLPack calls it */
  int bits;         /* storage bits of one element: 4, 6, 8, 16, 32, 64 or 128 */
  dlx_kind kind;
} dlx_dtype_info;

#ifdef __OPENCL_C_VERSION__
/* The Level Zero kernels include this header for its enums; the table is not theirs to read. */
const dlx_dtype_info *dlx_dtype_info_of(dlx_dtype dtype);
#else
/* The table, indexed by dtype; read through dlx_dtype_info_of, which every hot path calls, so it
 * is inline. */
extern const dlx_dtype_info dlx_dtype_table[DLX_NUM_DTYPES];
static inline const dlx_dtype_info *dlx_dtype_info_of(dlx_dtype dtype) {
  return &dlx_dtype_table[dtype];
}
#endif
/* 0 and *out on success, -1 when the name is unknown. */
int dlx_dtype_from_name(const char *name, dlx_dtype *out);
/* 0 and *out on success, -1 when dlx has no dtype for (code, bits, lanes). */
int dlx_dtype_from_dl(DLDataType dl, dlx_dtype *out);

static inline int dlx_dtype_bits(dlx_dtype dtype) { return dlx_dtype_info_of(dtype)->bits; }
static inline dlx_kind dlx_dtype_kind(dlx_dtype dtype) { return dlx_dtype_info_of(dtype)->kind; }
/* The widest computable dtype of a kind, in which values travel to and from Lua: bool, int64,
 * uint64, float64 or complex128 (DLX_KIND_STORAGE gives float64; storage-only data has no
 * values). */
dlx_dtype dlx_wide_dtype(dlx_kind kind);
/* Bytes per element for whole-byte types; 0 for the packed sub-byte types (fp4, fp6). */
static inline int64_t dlx_itemsize(dlx_dtype dtype) {
  int bits = dlx_dtype_bits(dtype);
  return bits % 8 == 0 ? bits / 8 : 0;
}
static inline bool dlx_dtype_is_storage_only(dlx_dtype dtype) {
  return dlx_dtype_kind(dtype) == DLX_KIND_STORAGE;
}

#endif
