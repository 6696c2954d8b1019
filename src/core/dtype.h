/* dtype.h -- the element types dlx knows (their numbers: common/dtypes.h), their names, kinds and
 * DLPack codes. */
#ifndef DLX_CORE_DTYPE_H
#define DLX_CORE_DTYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/dtypes.h"
#include "dlpack/dlpack.h"

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

/* The table, indexed by dtype; read through dlx_dtype_info_of, which every hot path calls, so it
 * is inline. */
extern const dlx_dtype_info dlx_dtype_table[DLX_NUM_DTYPES];
static inline const dlx_dtype_info *dlx_dtype_info_of(dlx_dtype dtype) {
  return &dlx_dtype_table[dtype];
}
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
/* The dtype a value of a kind takes where nothing else decides it (dlx.tensor(1.5), dlx.full,
 * where(mask, 1, 0)): bool, int64 (for uint too), float32 or complex64 (DLX_KIND_STORAGE gives
 * float32). */
dlx_dtype dlx_default_dtype(dlx_kind kind);
/* Bytes per element for whole-byte types; 0 for the packed sub-byte types (fp4, fp6). */
static inline int64_t dlx_itemsize(dlx_dtype dtype) {
  int bits = dlx_dtype_bits(dtype);
  return bits % 8 == 0 ? bits / 8 : 0;
}
static inline bool dlx_dtype_is_storage_only(dlx_dtype dtype) {
  return dlx_dtype_kind(dtype) == DLX_KIND_STORAGE;
}

#endif
