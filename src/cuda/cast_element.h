/* cast_element.h -- one element of the CUDA cast kernel (copy_kernels.cu): the source is loaded
 * into its exact class and converted once to the destination with the shared rules of
 * src/common/convert.h, as the CPU and Level Zero backends do.
 *
 * CUDA C++, host and device: tests/c/cuda_cast_rules.cpp compiles this same header with the host
 * C++ compiler and checks it against the CPU backend, since a GPU is not always at hand.
 * Elements are aligned to their size (complex128 to 8 bytes), so they are read and written as
 * their storage type, not byte by byte. */
#ifndef DLX_CUDA_CAST_ELEMENT_H
#define DLX_CUDA_CAST_ELEMENT_H

#include "common/convert.h"
#include "cuda/kernels.h"

/* The computable dtypes: X(leading argument, kernels.h's code, convert.h's name, storage). */
#define DLX_CUDA_TYPES_WITH(X, a)                                                                  \
  X(a, DLX_CUDA_BOOL, boolean, uint8_t)                                                            \
  X(a, DLX_CUDA_INT8, int8, int8_t)                                                                \
  X(a, DLX_CUDA_INT16, int16, int16_t)                                                             \
  X(a, DLX_CUDA_INT32, int32, int32_t)                                                             \
  X(a, DLX_CUDA_INT64, int64, int64_t)                                                             \
  X(a, DLX_CUDA_UINT8, uint8, uint8_t)                                                             \
  X(a, DLX_CUDA_UINT16, uint16, uint16_t)                                                          \
  X(a, DLX_CUDA_UINT32, uint32, uint32_t)                                                          \
  X(a, DLX_CUDA_UINT64, uint64, uint64_t)                                                          \
  X(a, DLX_CUDA_FLOAT16, float16, uint16_t)                                                        \
  X(a, DLX_CUDA_BFLOAT16, bfloat16, uint16_t)                                                      \
  X(a, DLX_CUDA_FLOAT32, float32, float)                                                           \
  X(a, DLX_CUDA_FLOAT64, float64, double)                                                          \
  X(a, DLX_CUDA_COMPLEX64, complex64, dlx_c64)                                                     \
  X(a, DLX_CUDA_COMPLEX128, complex128, dlx_c128)

#define DLX_CUDA_SIZE_CASE(unused, E, name, T)                                                     \
  case E:                                                                                          \
    return (int)sizeof(T);
DLX_SHARED int dlx_cuda_itemsize(int dtype) {
  switch (dtype) {
    DLX_CUDA_TYPES_WITH(DLX_CUDA_SIZE_CASE, 0)
  default:
    return 1;
  }
}
#undef DLX_CUDA_SIZE_CASE

/* dlx_cuda_store_from_<class>(dtype, p, v): v converted to dtype, stored at p. */
#define DLX_CUDA_STORE_CASE(cls, E, name, T)                                                       \
  case E:                                                                                          \
    *(T *)p = to_##name##_from_##cls(v);                                                           \
    break;
#define DLX_CUDA_DEFINE_STORE_FROM(cls, C)                                                         \
  DLX_SHARED void dlx_cuda_store_from_##cls(int dtype, char *p, C v) {                             \
    switch (dtype) {                                                                               \
      DLX_CUDA_TYPES_WITH(DLX_CUDA_STORE_CASE, cls)                                                \
    default:                                                                                       \
      break;                                                                                       \
    }                                                                                              \
  }
DLX_CUDA_DEFINE_STORE_FROM(i, int64_t)
DLX_CUDA_DEFINE_STORE_FROM(u, uint64_t)
DLX_CUDA_DEFINE_STORE_FROM(f, float)
DLX_CUDA_DEFINE_STORE_FROM(d, double)
DLX_CUDA_DEFINE_STORE_FROM(cf, dlx_c64)
DLX_CUDA_DEFINE_STORE_FROM(cd, dlx_c128)
#undef DLX_CUDA_DEFINE_STORE_FROM
#undef DLX_CUDA_STORE_CASE

/* out (dst_dtype) = in (src_dtype) converted, for two computable dtypes. */
DLX_SHARED void dlx_cuda_cast_element(int dst_dtype, char *out, int src_dtype, const char *in) {
  switch (src_dtype) {
  case DLX_CUDA_BOOL:
    dlx_cuda_store_from_i(dst_dtype, out, *(const uint8_t *)in != 0);
    break;
  case DLX_CUDA_INT8:
    dlx_cuda_store_from_i(dst_dtype, out, *(const int8_t *)in);
    break;
  case DLX_CUDA_INT16:
    dlx_cuda_store_from_i(dst_dtype, out, *(const int16_t *)in);
    break;
  case DLX_CUDA_INT32:
    dlx_cuda_store_from_i(dst_dtype, out, *(const int32_t *)in);
    break;
  case DLX_CUDA_INT64:
    dlx_cuda_store_from_i(dst_dtype, out, *(const int64_t *)in);
    break;
  case DLX_CUDA_UINT8:
    dlx_cuda_store_from_u(dst_dtype, out, *(const uint8_t *)in);
    break;
  case DLX_CUDA_UINT16:
    dlx_cuda_store_from_u(dst_dtype, out, *(const uint16_t *)in);
    break;
  case DLX_CUDA_UINT32:
    dlx_cuda_store_from_u(dst_dtype, out, *(const uint32_t *)in);
    break;
  case DLX_CUDA_UINT64:
    dlx_cuda_store_from_u(dst_dtype, out, *(const uint64_t *)in);
    break;
  case DLX_CUDA_FLOAT16:
    dlx_cuda_store_from_f(dst_dtype, out, dlx_half_to_float(*(const uint16_t *)in));
    break;
  case DLX_CUDA_BFLOAT16:
    dlx_cuda_store_from_f(dst_dtype, out, dlx_bf16_to_float(*(const uint16_t *)in));
    break;
  case DLX_CUDA_FLOAT32:
    dlx_cuda_store_from_f(dst_dtype, out, *(const float *)in);
    break;
  case DLX_CUDA_FLOAT64:
    dlx_cuda_store_from_d(dst_dtype, out, *(const double *)in);
    break;
  case DLX_CUDA_COMPLEX64:
    dlx_cuda_store_from_cf(dst_dtype, out, *(const dlx_c64 *)in);
    break;
  case DLX_CUDA_COMPLEX128:
    dlx_cuda_store_from_cd(dst_dtype, out, *(const dlx_c128 *)in);
    break;
  default:
    break;
  }
}

#endif
