/* sort_keys.h -- the order of sort, argsort, topk and unique as unsigned integer keys, shared by
 * the CPU (src/cpu/sort.c), the core (unique) and the CUDA kernels, so that a radix sort of the
 * keys orders the elements the same way everywhere.
 *
 * An element's key is an unsigned integer of the element's width whose unsigned order is the
 * element's numeric order: integers flip their sign bit; floats flip every bit when negative
 * and only the sign bit otherwise. -0.0 takes +0.0's key (they are equal keys, so a stable sort
 * keeps them in their order), and every NaN (either sign, any payload) takes the largest key,
 * above +inf, so NaN sorts last ascending as in NumPy. A descending sort complements the keys:
 * the order reverses (NaN first, as in PyTorch) while equal keys stay equal, so a stable sort
 * still keeps them in their order. */
#ifndef DLX_COMMON_SORT_KEYS_H
#define DLX_COMMON_SORT_KEYS_H

#include <stdint.h>

#include "common/portable.h"

DLX_SHARED uint8_t dlx_sort_key_bool(uint8_t x) { return x != 0; }
DLX_SHARED uint8_t dlx_sort_key_u8(uint8_t x) { return x; }
DLX_SHARED uint8_t dlx_sort_key_i8(uint8_t x) { return (uint8_t)(x ^ 0x80u); }
DLX_SHARED uint16_t dlx_sort_key_u16(uint16_t x) { return x; }
DLX_SHARED uint16_t dlx_sort_key_i16(uint16_t x) { return (uint16_t)(x ^ 0x8000u); }
DLX_SHARED uint32_t dlx_sort_key_u32(uint32_t x) { return x; }
DLX_SHARED uint32_t dlx_sort_key_i32(uint32_t x) { return x ^ 0x80000000u; }
DLX_SHARED uint64_t dlx_sort_key_u64(uint64_t x) { return x; }
DLX_SHARED uint64_t dlx_sort_key_i64(uint64_t x) { return x ^ UINT64_C(0x8000000000000000); }

/* A float's bits -> its key; inf_bits is +inf's pattern (the exponent all ones). */
#define DLX_SORT_FLOAT_KEY(T, x, sign, inf_bits)                                                   \
  ((((x) & ~(T)(sign)) > (T)(inf_bits)) ? (T) ~(T)0 /* NaN */                                      \
   : ((x) == (T)(sign))                 ? (T)(sign) /* -0.0 as +0.0 */                             \
   : ((x) & (T)(sign))                  ? (T) ~(x)  /* negative */                                 \
                                        : (T)((x) | (T)(sign)))      /* positive */

DLX_SHARED uint16_t dlx_sort_key_f16(uint16_t x) {
  return DLX_SORT_FLOAT_KEY(uint16_t, x, 0x8000u, 0x7c00u);
}
DLX_SHARED uint16_t dlx_sort_key_bf16(uint16_t x) {
  return DLX_SORT_FLOAT_KEY(uint16_t, x, 0x8000u, 0x7f80u);
}
DLX_SHARED uint32_t dlx_sort_key_f32(uint32_t x) {
  return DLX_SORT_FLOAT_KEY(uint32_t, x, 0x80000000u, 0x7f800000u);
}
DLX_SHARED uint64_t dlx_sort_key_f64(uint64_t x) {
  return DLX_SORT_FLOAT_KEY(uint64_t, x, UINT64_C(0x8000000000000000),
                            UINT64_C(0x7ff0000000000000));
}

/* Which key function a dtype takes, numbered for the kernels (-1: not sortable). The dtype
 * numbers are src/core/dtype.h's dlx_dtype. */
enum {
  DLX_SORT_KEY_BOOL,
  DLX_SORT_KEY_U8,
  DLX_SORT_KEY_I8,
  DLX_SORT_KEY_U16,
  DLX_SORT_KEY_I16,
  DLX_SORT_KEY_F16,
  DLX_SORT_KEY_BF16,
  DLX_SORT_KEY_U32,
  DLX_SORT_KEY_I32,
  DLX_SORT_KEY_F32,
  DLX_SORT_KEY_U64,
  DLX_SORT_KEY_I64,
  DLX_SORT_KEY_F64
};

/* Every key kind as X(kind, T, KEY): T the unsigned type of an element's bits, KEY its key
 * function; for the code that dispatches on a kind (dlx_sort_key_at, the searches of count_op). */
#define DLX_SORT_KEY_KINDS(X)                                                                      \
  X(DLX_SORT_KEY_BOOL, uint8_t, dlx_sort_key_bool)                                                 \
  X(DLX_SORT_KEY_U8, uint8_t, dlx_sort_key_u8)                                                     \
  X(DLX_SORT_KEY_I8, uint8_t, dlx_sort_key_i8)                                                     \
  X(DLX_SORT_KEY_U16, uint16_t, dlx_sort_key_u16)                                                  \
  X(DLX_SORT_KEY_I16, uint16_t, dlx_sort_key_i16)                                                  \
  X(DLX_SORT_KEY_F16, uint16_t, dlx_sort_key_f16)                                                  \
  X(DLX_SORT_KEY_BF16, uint16_t, dlx_sort_key_bf16)                                                \
  X(DLX_SORT_KEY_U32, uint32_t, dlx_sort_key_u32)                                                  \
  X(DLX_SORT_KEY_I32, uint32_t, dlx_sort_key_i32)                                                  \
  X(DLX_SORT_KEY_F32, uint32_t, dlx_sort_key_f32)                                                  \
  X(DLX_SORT_KEY_U64, uint64_t, dlx_sort_key_u64)                                                  \
  X(DLX_SORT_KEY_I64, uint64_t, dlx_sort_key_i64)                                                  \
  X(DLX_SORT_KEY_F64, uint64_t, dlx_sort_key_f64)

/* The key of the element at p of key kind `kind`, widened to 64 bits (the host's unique). */
DLX_SHARED uint64_t dlx_sort_key_at(int kind, const void *p) {
  switch (kind) {
#define DLX_SORT_KEY_AT_CASE(K, T, KEY)                                                            \
  case K:                                                                                          \
    return KEY(*(const T *)p);
    DLX_SORT_KEY_KINDS(DLX_SORT_KEY_AT_CASE)
#undef DLX_SORT_KEY_AT_CASE
  default:
    return dlx_sort_key_f64(*(const uint64_t *)p);
  }
}

#endif
