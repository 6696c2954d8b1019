/* convert.h -- scalar conversions between the computable dtypes: the casting rules of backend.h's
 * copy, written once for the kernels of every backend (C, OpenCL C and CUDA C++; see portable.h).
 *
 * A value is loaded from memory into one of six "classes" that hold every value of its dtype
 * exactly: int64_t (bool and signed ints), uint64_t (unsigned ints), float (float16, bfloat16,
 * float32), double, dlx_c64 and dlx_c128. DLX_CONVERT(name, value) then picks, with _Generic,
 * the conversion from that class to the named dtype, so each (source, destination) pair is one
 * direct conversion that rounds at most once. (In OpenCL C and C++, which have no _Generic, the
 * caller picks to_<name>_from_<class> itself.) */
#ifndef DLX_COMMON_CONVERT_H
#define DLX_COMMON_CONVERT_H

#include "common/half.h"
#include "common/portable.h"

typedef struct dlx_c64 {
  float re, im;
} dlx_c64;

typedef struct dlx_c128 {
  double re, im;
} dlx_c128;

/* (Compound literals are C only.) */
DLX_SHARED dlx_c64 dlx_c64_of(float re, float im) {
  dlx_c64 c;
  c.re = re;
  c.im = im;
  return c;
}

DLX_SHARED dlx_c128 dlx_c128_of(double re, double im) {
  dlx_c128 c;
  c.re = re;
  c.im = im;
  return c;
}

/* The computable dtypes: X(name, enum, storage type). The enum is dlx_dtype's (core/dtype.h),
 * which a file expanding the list includes itself. */
#define DLX_COMPUTABLE_TYPES(X)                                                                    \
  X(boolean, DLX_BOOL, uint8_t)                                                                    \
  X(int8, DLX_INT8, int8_t)                                                                        \
  X(int16, DLX_INT16, int16_t)                                                                     \
  X(int32, DLX_INT32, int32_t)                                                                     \
  X(int64, DLX_INT64, int64_t)                                                                     \
  X(uint8, DLX_UINT8, uint8_t)                                                                     \
  X(uint16, DLX_UINT16, uint16_t)                                                                  \
  X(uint32, DLX_UINT32, uint32_t)                                                                  \
  X(uint64, DLX_UINT64, uint64_t)                                                                  \
  X(float16, DLX_FLOAT16, uint16_t)                                                                \
  X(bfloat16, DLX_BFLOAT16, uint16_t)                                                              \
  X(float32, DLX_FLOAT32, float)                                                                   \
  X(float64, DLX_FLOAT64, double)                                                                  \
  X(complex64, DLX_COMPLEX64, dlx_c64)                                                             \
  X(complex128, DLX_COMPLEX128, dlx_c128)

/* The same list, passing leading arguments through (for pairs of dtypes). */
#define DLX_COMPUTABLE_TYPES_WITH(X, ...)                                                          \
  X(__VA_ARGS__, boolean, DLX_BOOL, uint8_t)                                                       \
  X(__VA_ARGS__, int8, DLX_INT8, int8_t)                                                           \
  X(__VA_ARGS__, int16, DLX_INT16, int16_t)                                                        \
  X(__VA_ARGS__, int32, DLX_INT32, int32_t)                                                        \
  X(__VA_ARGS__, int64, DLX_INT64, int64_t)                                                        \
  X(__VA_ARGS__, uint8, DLX_UINT8, uint8_t)                                                        \
  X(__VA_ARGS__, uint16, DLX_UINT16, uint16_t)                                                     \
  X(__VA_ARGS__, uint32, DLX_UINT32, uint32_t)                                                     \
  X(__VA_ARGS__, uint64, DLX_UINT64, uint64_t)                                                     \
  X(__VA_ARGS__, float16, DLX_FLOAT16, uint16_t)                                                   \
  X(__VA_ARGS__, bfloat16, DLX_BFLOAT16, uint16_t)                                                 \
  X(__VA_ARGS__, float32, DLX_FLOAT32, float)                                                      \
  X(__VA_ARGS__, float64, DLX_FLOAT64, double)                                                     \
  X(__VA_ARGS__, complex64, DLX_COMPLEX64, dlx_c64)                                                \
  X(__VA_ARGS__, complex128, DLX_COMPLEX128, dlx_c128)

/* ---- loads: memory (any alignment) -> class value */

#define DLX_DEFINE_LOAD(name, T, C, expr)                                                          \
  DLX_SHARED C load_##name(const char *p) {                                                        \
    T v;                                                                                           \
    memcpy(&v, p, sizeof v);                                                                       \
    return expr;                                                                                   \
  }
DLX_DEFINE_LOAD(boolean, uint8_t, int64_t, v != 0)
DLX_DEFINE_LOAD(int8, int8_t, int64_t, v)
DLX_DEFINE_LOAD(int16, int16_t, int64_t, v)
DLX_DEFINE_LOAD(int32, int32_t, int64_t, v)
DLX_DEFINE_LOAD(int64, int64_t, int64_t, v)
DLX_DEFINE_LOAD(uint8, uint8_t, uint64_t, v)
DLX_DEFINE_LOAD(uint16, uint16_t, uint64_t, v)
DLX_DEFINE_LOAD(uint32, uint32_t, uint64_t, v)
DLX_DEFINE_LOAD(uint64, uint64_t, uint64_t, v)
DLX_DEFINE_LOAD(float16, uint16_t, float, dlx_half_to_float(v))
DLX_DEFINE_LOAD(bfloat16, uint16_t, float, dlx_bf16_to_float(v))
DLX_DEFINE_LOAD(float32, float, float, v)
DLX_DEFINE_LOAD(float64, double, double, v)
DLX_DEFINE_LOAD(complex64, dlx_c64, dlx_c64, v)
DLX_DEFINE_LOAD(complex128, dlx_c128, dlx_c128, v)
#undef DLX_DEFINE_LOAD

/* ---- stores: storage value -> memory */

#define DLX_DEFINE_STORE(name, e, T)                                                               \
  DLX_SHARED void store_##name(char *p, T v) { memcpy(p, &v, sizeof v); }
DLX_COMPUTABLE_TYPES(DLX_DEFINE_STORE)
#undef DLX_DEFINE_STORE

/* ---- integer helpers */

/* Two's complement wrap of u into a signed type, without implementation-defined conversions. */
#define DLX_WRAP_SIGNED(T, UT, MIN, u)                                                             \
  ((UT)(u) <= (UT)(-((MIN) + 1)) ? (T)(UT)(u) : (T)((T)((UT)(u) - (UT)(MIN)) + (MIN)))

/* Float to integer: truncate toward zero, NaN -> 0, saturate out of range. lo and hi are the
 * exclusive bounds of the values whose truncation fits (MIN - 1 and MAX + 1, as doubles). */
#define DLX_SATURATE(T, x, lo, hi, MIN, MAX)                                                       \
  ((x) > (lo) && (x) < (hi) ? (T)(x) : (x) != (x) ? (T)0 : (x) > 0 ? (MAX) : (MIN))

/* ---- conversions to each dtype: to_<name>_from_{i,u,f,d,cf,cd} */

#define DLX_REAL_FROM_COMPLEX(name, T)                                                             \
  DLX_SHARED T to_##name##_from_cf(dlx_c64 c) { return to_##name##_from_f(c.re); }                 \
  DLX_SHARED T to_##name##_from_cd(dlx_c128 c) { return to_##name##_from_d(c.re); }

DLX_SHARED uint8_t to_boolean_from_i(int64_t x) { return x != 0; }
DLX_SHARED uint8_t to_boolean_from_u(uint64_t x) { return x != 0; }
DLX_SHARED uint8_t to_boolean_from_f(float x) { return x != 0; } /* NaN != 0: true */
DLX_SHARED uint8_t to_boolean_from_d(double x) { return x != 0; }
DLX_SHARED uint8_t to_boolean_from_cf(dlx_c64 c) { return c.re != 0 || c.im != 0; }
DLX_SHARED uint8_t to_boolean_from_cd(dlx_c128 c) { return c.re != 0 || c.im != 0; }

#define DLX_DEFINE_TO_SIGNED(name, T, UT, MIN, MAX, LO, HI)                                        \
  DLX_SHARED T to_##name##_from_u(uint64_t x) { return DLX_WRAP_SIGNED(T, UT, MIN, x); }           \
  DLX_SHARED T to_##name##_from_i(int64_t x) { return to_##name##_from_u((uint64_t)x); }           \
  DLX_SHARED T to_##name##_from_d(double x) { return DLX_SATURATE(T, x, LO, HI, MIN, MAX); }       \
  DLX_SHARED T to_##name##_from_f(float x) { return to_##name##_from_d(x); }                       \
  DLX_REAL_FROM_COMPLEX(name, T)
DLX_DEFINE_TO_SIGNED(int8, int8_t, uint8_t, INT8_MIN, INT8_MAX, -129.0, 128.0)
DLX_DEFINE_TO_SIGNED(int16, int16_t, uint16_t, INT16_MIN, INT16_MAX, -32769.0, 32768.0)
DLX_DEFINE_TO_SIGNED(int32, int32_t, uint32_t, INT32_MIN, INT32_MAX, -2147483649.0, 2147483648.0)
/* -2^63 - 1 is not a double: the bound -2^63 excludes -2^63 itself, which saturates to MIN. */
DLX_DEFINE_TO_SIGNED(int64, int64_t, uint64_t, INT64_MIN, INT64_MAX, -9223372036854775808.0,
                     9223372036854775808.0)
#undef DLX_DEFINE_TO_SIGNED

#define DLX_DEFINE_TO_UNSIGNED(name, T, MAX, HI)                                                   \
  DLX_SHARED T to_##name##_from_u(uint64_t x) { return (T)x; }                                     \
  DLX_SHARED T to_##name##_from_i(int64_t x) { return (T)(uint64_t)x; }                            \
  DLX_SHARED T to_##name##_from_d(double x) { return DLX_SATURATE(T, x, -1.0, HI, 0, MAX); }       \
  DLX_SHARED T to_##name##_from_f(float x) { return to_##name##_from_d(x); }                       \
  DLX_REAL_FROM_COMPLEX(name, T)
DLX_DEFINE_TO_UNSIGNED(uint8, uint8_t, UINT8_MAX, 256.0)
DLX_DEFINE_TO_UNSIGNED(uint16, uint16_t, UINT16_MAX, 65536.0)
DLX_DEFINE_TO_UNSIGNED(uint32, uint32_t, UINT32_MAX, 4294967296.0)
DLX_DEFINE_TO_UNSIGNED(uint64, uint64_t, UINT64_MAX, 18446744073709551616.0)
#undef DLX_DEFINE_TO_UNSIGNED

DLX_SHARED uint16_t to_float16_from_i(int64_t x) { return dlx_int64_to_half(x); }
DLX_SHARED uint16_t to_float16_from_u(uint64_t x) { return dlx_uint64_to_half(x); }
DLX_SHARED uint16_t to_float16_from_f(float x) { return dlx_float_to_half(x); }
DLX_SHARED uint16_t to_float16_from_d(double x) { return dlx_double_to_half(x); }
DLX_REAL_FROM_COMPLEX(float16, uint16_t)

DLX_SHARED uint16_t to_bfloat16_from_i(int64_t x) { return dlx_int64_to_bf16(x); }
DLX_SHARED uint16_t to_bfloat16_from_u(uint64_t x) { return dlx_uint64_to_bf16(x); }
DLX_SHARED uint16_t to_bfloat16_from_f(float x) { return dlx_float_to_bf16(x); }
DLX_SHARED uint16_t to_bfloat16_from_d(double x) { return dlx_double_to_bf16(x); }
DLX_REAL_FROM_COMPLEX(bfloat16, uint16_t)

/* C's integer-to-floating conversions round once (to nearest even) from the exact value. */
DLX_SHARED float to_float32_from_i(int64_t x) { return (float)x; }
DLX_SHARED float to_float32_from_u(uint64_t x) { return (float)x; }
DLX_SHARED float to_float32_from_f(float x) { return x; }
DLX_SHARED float to_float32_from_d(double x) { return (float)x; }
DLX_REAL_FROM_COMPLEX(float32, float)

DLX_SHARED double to_float64_from_i(int64_t x) { return (double)x; }
DLX_SHARED double to_float64_from_u(uint64_t x) { return (double)x; }
DLX_SHARED double to_float64_from_f(float x) { return x; }
DLX_SHARED double to_float64_from_d(double x) { return x; }
DLX_REAL_FROM_COMPLEX(float64, double)

#define DLX_DEFINE_TO_COMPLEX(name, T, R)                                                          \
  DLX_SHARED T to_##name##_from_i(int64_t x) { return T##_of(to_##R##_from_i(x), 0); }             \
  DLX_SHARED T to_##name##_from_u(uint64_t x) { return T##_of(to_##R##_from_u(x), 0); }            \
  DLX_SHARED T to_##name##_from_f(float x) { return T##_of(to_##R##_from_f(x), 0); }               \
  DLX_SHARED T to_##name##_from_d(double x) { return T##_of(to_##R##_from_d(x), 0); }              \
  DLX_SHARED T to_##name##_from_cf(dlx_c64 c) {                                                    \
    return T##_of(to_##R##_from_f(c.re), to_##R##_from_f(c.im));                                   \
  }                                                                                                \
  DLX_SHARED T to_##name##_from_cd(dlx_c128 c) {                                                   \
    return T##_of(to_##R##_from_d(c.re), to_##R##_from_d(c.im));                                   \
  }
DLX_DEFINE_TO_COMPLEX(complex64, dlx_c64, float32)
DLX_DEFINE_TO_COMPLEX(complex128, dlx_c128, float64)
#undef DLX_DEFINE_TO_COMPLEX
#undef DLX_REAL_FROM_COMPLEX

#if !defined(__cplusplus) && !defined(__OPENCL_C_VERSION__)
/* The storage value of dtype `name` for a class value v. (clang-format 14 garbles _Generic.) */
/* clang-format off */
#define DLX_CONVERT(name, v)                                                                       \
  _Generic((v),                                                                                    \
      int64_t: to_##name##_from_i,                                                                 \
      uint64_t: to_##name##_from_u,                                                                \
      float: to_##name##_from_f,                                                                   \
      double: to_##name##_from_d,                                                                  \
      dlx_c64: to_##name##_from_cf,                                                                \
      dlx_c128: to_##name##_from_cd)(v)
/* clang-format on */
#endif

#endif
