/* dtype.c -- the dtype table: names, DLPack codes, storage bits. */
#include "core/dtype.h"

#include <string.h>

const dlx_dtype_info dlx_dtype_table[DLX_NUM_DTYPES] = {
    [DLX_BOOL] = {"bool", {kDLBool, 8, 1}, 8, DLX_KIND_BOOL},
    [DLX_INT8] = {"int8", {kDLInt, 8, 1}, 8, DLX_KIND_INT},
    [DLX_INT16] = {"int16", {kDLInt, 16, 1}, 16, DLX_KIND_INT},
    [DLX_INT32] = {"int32", {kDLInt, 32, 1}, 32, DLX_KIND_INT},
    [DLX_INT64] = {"int64", {kDLInt, 64, 1}, 64, DLX_KIND_INT},
    [DLX_UINT8] = {"uint8", {kDLUInt, 8, 1}, 8, DLX_KIND_UINT},
    [DLX_UINT16] = {"uint16", {kDLUInt, 16, 1}, 16, DLX_KIND_UINT},
    [DLX_UINT32] = {"uint32", {kDLUInt, 32, 1}, 32, DLX_KIND_UINT},
    [DLX_UINT64] = {"uint64", {kDLUInt, 64, 1}, 64, DLX_KIND_UINT},
    [DLX_FLOAT16] = {"float16", {kDLFloat, 16, 1}, 16, DLX_KIND_FLOAT},
    [DLX_BFLOAT16] = {"bfloat16", {kDLBfloat, 16, 1}, 16, DLX_KIND_FLOAT},
    [DLX_FLOAT32] = {"float32", {kDLFloat, 32, 1}, 32, DLX_KIND_FLOAT},
    [DLX_FLOAT64] = {"float64", {kDLFloat, 64, 1}, 64, DLX_KIND_FLOAT},
    [DLX_COMPLEX64] = {"complex64", {kDLComplex, 64, 1}, 64, DLX_KIND_COMPLEX},
    [DLX_COMPLEX128] = {"complex128", {kDLComplex, 128, 1}, 128, DLX_KIND_COMPLEX},
    [DLX_FLOAT8_E3M4] = {"float8_e3m4", {kDLFloat8_e3m4, 8, 1}, 8, DLX_KIND_STORAGE},
    [DLX_FLOAT8_E4M3] = {"float8_e4m3", {kDLFloat8_e4m3, 8, 1}, 8, DLX_KIND_STORAGE},
    [DLX_FLOAT8_E4M3B11FNUZ] = {"float8_e4m3b11fnuz",
                                {kDLFloat8_e4m3b11fnuz, 8, 1},
                                8,
                                DLX_KIND_STORAGE},
    [DLX_FLOAT8_E4M3FN] = {"float8_e4m3fn", {kDLFloat8_e4m3fn, 8, 1}, 8, DLX_KIND_STORAGE},
    [DLX_FLOAT8_E4M3FNUZ] = {"float8_e4m3fnuz", {kDLFloat8_e4m3fnuz, 8, 1}, 8, DLX_KIND_STORAGE},
    [DLX_FLOAT8_E5M2] = {"float8_e5m2", {kDLFloat8_e5m2, 8, 1}, 8, DLX_KIND_STORAGE},
    [DLX_FLOAT8_E5M2FNUZ] = {"float8_e5m2fnuz", {kDLFloat8_e5m2fnuz, 8, 1}, 8, DLX_KIND_STORAGE},
    [DLX_FLOAT8_E8M0FNU] = {"float8_e8m0fnu", {kDLFloat8_e8m0fnu, 8, 1}, 8, DLX_KIND_STORAGE},
    [DLX_FLOAT6_E2M3FN] = {"float6_e2m3fn", {kDLFloat6_e2m3fn, 6, 1}, 6, DLX_KIND_STORAGE},
    [DLX_FLOAT6_E3M2FN] = {"float6_e3m2fn", {kDLFloat6_e3m2fn, 6, 1}, 6, DLX_KIND_STORAGE},
    [DLX_FLOAT4_E2M1FN] = {"float4_e2m1fn", {kDLFloat4_e2m1fn, 4, 1}, 4, DLX_KIND_STORAGE},
    [DLX_FLOAT4_E2M1FN_X2] = {"float4_e2m1fn_x2", {kDLFloat4_e2m1fn, 4, 2}, 8, DLX_KIND_STORAGE},
};

int dlx_dtype_from_name(const char *name, dlx_dtype *out) {
  for (int i = 0; i < DLX_NUM_DTYPES; i++) {
    /* the first letter rules out most names before a call to strcmp (dlx.empty's dtype option) */
    if (dlx_dtype_table[i].name[0] == name[0] && strcmp(dlx_dtype_table[i].name, name) == 0) {
      *out = (dlx_dtype)i;
      return 0;
    }
  }
  return -1;
}

int dlx_dtype_from_dl(DLDataType dl, dlx_dtype *out) {
  for (int i = 0; i < DLX_NUM_DTYPES; i++) {
    const DLDataType *d = &dlx_dtype_table[i].dl;
    if (d->code == dl.code && d->bits == dl.bits && d->lanes == dl.lanes) {
      *out = (dlx_dtype)i;
      return 0;
    }
  }
  return -1;
}

dlx_dtype dlx_wide_dtype(dlx_kind kind) {
  switch (kind) {
  case DLX_KIND_BOOL:
    return DLX_BOOL;
  case DLX_KIND_INT:
    return DLX_INT64;
  case DLX_KIND_UINT:
    return DLX_UINT64;
  case DLX_KIND_COMPLEX:
    return DLX_COMPLEX128;
  default:
    return DLX_FLOAT64;
  }
}

dlx_dtype dlx_default_dtype(dlx_kind kind) {
  switch (kind) {
  case DLX_KIND_BOOL:
    return DLX_BOOL;
  case DLX_KIND_INT:
  case DLX_KIND_UINT:
    return DLX_INT64;
  case DLX_KIND_COMPLEX:
    return DLX_COMPLEX64;
  default:
    return DLX_FLOAT32;
  }
}
