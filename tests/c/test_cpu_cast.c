/* test_cpu_cast.c -- the CPU backend's conversions: float16/bfloat16 rounding (half.h) and the
 * cast of every pair of computable dtypes through dlx_cpu_backend.copy, against a reference
 * written independently here (exact values in long double, nearest-even by table search). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/half.h"
#include "core/core.h"
#include "cpu_test_util.h"

#define NCOMPUTABLE (DLX_COMPLEX128 + 1)

/* ---- the reference: small binary formats by search over their (monotonic) bit patterns */

typedef struct small_format {
  int p;             /* significand bits, implicit bit included */
  int emin;          /* minimum normal exponent */
  uint32_t inf_bits; /* bits of +inf */
} small_format;

static const small_format half_format = {11, -14, 0x7c00};
static const small_format bf16_format = {8, -126, 0x7f80};

/* The value of positive bits h; inf_bits decodes to 2^(emax+1), the first value too large. */
static long double small_value(const small_format *f, uint32_t h) {
  uint32_t field = h >> (f->p - 1), mant = h & ((1u << (f->p - 1)) - 1);
  if (field == 0) return ldexpl((long double)mant, f->emin - (f->p - 1));
  return ldexpl((long double)(mant | (1u << (f->p - 1))), (int)field - (1 - f->emin) - (f->p - 1));
}

/* Nearest-even bits of x (not NaN). */
static uint16_t small_round(const small_format *f, long double x) {
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  long double a = fabsl(x);
  if (a >= small_value(f, f->inf_bits)) return sign | (uint16_t)f->inf_bits;
  uint32_t lo = 0, hi = f->inf_bits; /* value(lo) <= a < value(hi) */
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;
    if (small_value(f, mid) <= a)
      lo = mid;
    else
      hi = mid;
  }
  long double middle = (small_value(f, lo) + small_value(f, hi)) / 2;
  uint32_t r = a < middle ? lo : a > middle ? hi : (lo % 2 == 0 ? lo : hi);
  return sign | (uint16_t)r;
}

static long double small_decode(const small_format *f, uint16_t h) {
  uint32_t mag = h & 0x7fffu;
  long double v;
  if (mag > f->inf_bits)
    v = NAN;
  else if (mag == f->inf_bits)
    v = INFINITY;
  else
    v = small_value(f, mag);
  return (h & 0x8000u) ? -v : v;
}

static int is_nan16(const small_format *f, uint16_t h) { return (h & 0x7fffu) > f->inf_bits; }

/* ---- half.h against the reference */

static int half_errors;

static void expect16(const small_format *f, uint16_t got, long double x, const char *what) {
  int ok = isnan(x) ? is_nan16(f, got) && ((got & 0x8000) != 0) == (signbit(x) != 0)
                    : got == small_round(f, x);
  if (!ok && half_errors++ < 10)
    fprintf(stderr, "%s(%.21Lg) = 0x%04x, expected 0x%04x\n", what, x, got,
            isnan(x) ? 0x7e00u : small_round(f, x));
  CHECK(ok);
}

static void test_decode_all(void) {
  for (uint32_t h = 0; h < 0x10000; h++) {
    long double want = small_decode(&half_format, (uint16_t)h);
    float got = dlx_half_to_float((uint16_t)h);
    if (isnan(want))
      CHECK(isnan(got) && !signbit(got) == !(h & 0x8000));
    else
      CHECK(got == want && !signbit(got) == !(h & 0x8000));
    want = small_decode(&bf16_format, (uint16_t)h);
    got = dlx_bf16_to_float((uint16_t)h);
    if (isnan(want))
      CHECK(isnan(got));
    else
      CHECK(got == want && !signbit(got) == !(h & 0x8000));
  }
}

/* Every representable value, every midpoint and the floats/doubles next to them. */
static void test_round_points(const small_format *f, uint16_t (*from_float)(float),
                              uint16_t (*from_double)(double), const char *name) {
  for (uint32_t h = 0; h < f->inf_bits; h++) {
    long double v = small_value(f, h), mid = (v + small_value(f, h + 1)) / 2;
    long double points[] = {v, mid, nextafterf((float)mid, 0), nextafterf((float)mid, INFINITY)};
    for (int k = 0; k < 4; k++) {
      for (int s = 0; s < 2; s++) {
        long double x = s ? -points[k] : points[k];
        expect16(f, from_float((float)x), (float)x, name);
        expect16(f, from_double((double)x), (double)x, name);
      }
    }
    /* just off the midpoint by less than a float ulp: a double rounded to float first would
     * land on the midpoint and round to even, which is wrong half of the time */
    double above = (double)mid * (1 + 0x1p-40), below = (double)mid * (1 - 0x1p-40);
    expect16(f, from_double(above), above, name);
    expect16(f, from_double(below), below, name);
  }
}

static void test_round_specials(void) {
  float fs[] = {INFINITY,        -INFINITY,       NAN,          -NAN,       0.0f,
                -0.0f,           FLT_MAX,         -FLT_MAX,     FLT_MIN,    FLT_TRUE_MIN,
                65504.0f,        65519.996f,      65520.0f,     65536.0f,   0x1p-24f,
                0x1p-25f,        0x1.000002p-25f, 0x1.8p-24f,   0x1.4p-24f, 1.0f + 0x1p-8f,
                1.0f + 0x1p-11f, 3.3961775e38f,   3.3961776e38f};
  for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++) {
    expect16(&half_format, dlx_float_to_half(fs[i]), fs[i], "float_to_half");
    expect16(&bf16_format, dlx_float_to_bf16(fs[i]), fs[i], "float_to_bf16");
    expect16(&half_format, dlx_double_to_half(fs[i]), fs[i], "double_to_half");
    expect16(&bf16_format, dlx_double_to_bf16(fs[i]), fs[i], "double_to_bf16");
  }
  double ds[] = {DBL_MAX,         -DBL_MAX,
                 DBL_MIN,         DBL_TRUE_MIN,
                 1e300,           0x1p-25 * (1 + 0x1p-50),
                 0x1p-134,        0x1p-134 * (1 + 0x1p-52),
                 0x1p-149 * 0.75, 3.4028235677973366e38};
  for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
    expect16(&half_format, dlx_double_to_half(ds[i]), ds[i], "double_to_half");
    expect16(&bf16_format, dlx_double_to_bf16(ds[i]), ds[i], "double_to_bf16");
  }
  CHECK_EQ_INT(dlx_float_to_half(1.0f), 0x3c00);
  CHECK_EQ_INT(dlx_float_to_half(65520.0f), 0x7c00); /* a tie with 65504 (odd): to inf */
  CHECK_EQ_INT(dlx_float_to_half(0x1p-25f), 0);      /* a tie with 2^-24: to even 0 */
  CHECK_EQ_INT(dlx_float_to_half(0x1.8p-24f), 2);    /* 1.5 ulp: to even 2 */
  CHECK_EQ_INT(dlx_float_to_bf16(1.0f + 0x1p-8f), 0x3f80);
  CHECK_EQ_INT(dlx_float_to_bf16(1.0f + 0x1p-8f + 0x1p-23f), 0x3f81);
}

static void test_round_random(void) {
  for (int i = 0; i < 200000; i++) {
    uint32_t bits = (uint32_t)rnd();
    float x;
    memcpy(&x, &bits, sizeof x);
    expect16(&half_format, dlx_float_to_half(x), x, "float_to_half");
    expect16(&bf16_format, dlx_float_to_bf16(x), x, "float_to_bf16");
    double d = ldexp(rnd_unit() - 0.5, (int)(rnd() % 300) - 150);
    expect16(&half_format, dlx_double_to_half(d), d, "double_to_half");
    expect16(&bf16_format, dlx_double_to_bf16(d), d, "double_to_bf16");
  }
}

static void test_round_integers(void) {
  int64_t is[] = {0,
                  1,
                  -1,
                  2049,
                  2051,
                  65504,
                  65519,
                  65520,
                  -65520,
                  16777217,
                  INT64_MAX,
                  INT64_MIN,
                  INT64_MIN + 1,
                  (INT64_C(1) << 62) + (INT64_C(1) << 54) + 1,
                  (INT64_C(1) << 62) + (INT64_C(1) << 54),
                  (INT64_C(1) << 40) + 1};
  for (size_t i = 0; i < sizeof is / sizeof is[0]; i++) {
    expect16(&half_format, dlx_int64_to_half(is[i]), is[i], "int64_to_half");
    expect16(&bf16_format, dlx_int64_to_bf16(is[i]), is[i], "int64_to_bf16");
  }
  for (int i = 0; i < 100000; i++) {
    uint64_t u = rnd() >> (rnd() % 64);
    expect16(&half_format, dlx_uint64_to_half(u), u, "uint64_to_half");
    expect16(&bf16_format, dlx_uint64_to_bf16(u), u, "uint64_to_bf16");
    expect16(&bf16_format, dlx_int64_to_bf16((int64_t)u), (long double)(int64_t)u, "int64_to_bf16");
  }
  CHECK_EQ_INT(dlx_uint64_to_bf16(UINT64_MAX), 0x5f80); /* 2^64 */
}

/* ---- the cast of every pair through the backend */

typedef struct ref_value {
  int is_int;    /* bool and integer sources: wrap is exact on `bits` */
  uint64_t bits; /* two's complement of an integer source */
  long double re, im;
} ref_value;

static ref_value decode(dlx_dtype t, const unsigned char *p) {
  ref_value v = {1, 0, 0, 0};
  switch (t) {
#define SIGNED(E, T)                                                                               \
  case E: {                                                                                        \
    T x;                                                                                           \
    memcpy(&x, p, sizeof x);                                                                       \
    v.bits = (uint64_t)(int64_t)x;                                                                 \
    v.re = x;                                                                                      \
    return v;                                                                                      \
  }
#define UNSIGNED(E, T)                                                                             \
  case E: {                                                                                        \
    T x;                                                                                           \
    memcpy(&x, p, sizeof x);                                                                       \
    v.bits = x;                                                                                    \
    v.re = x;                                                                                      \
    return v;                                                                                      \
  }
    SIGNED(DLX_INT8, int8_t)
    SIGNED(DLX_INT16, int16_t)
    SIGNED(DLX_INT32, int32_t)
    SIGNED(DLX_INT64, int64_t)
    UNSIGNED(DLX_UINT8, uint8_t)
    UNSIGNED(DLX_UINT16, uint16_t)
    UNSIGNED(DLX_UINT32, uint32_t)
    UNSIGNED(DLX_UINT64, uint64_t)
  case DLX_BOOL:
    v.bits = p[0] != 0;
    v.re = p[0] != 0;
    return v;
  default:
    break;
  }
  v.is_int = 0;
  uint16_t h;
  float f[2];
  double d[2];
  switch (t) {
  case DLX_FLOAT16:
    memcpy(&h, p, 2);
    v.re = small_decode(&half_format, h);
    break;
  case DLX_BFLOAT16:
    memcpy(&h, p, 2);
    v.re = small_decode(&bf16_format, h);
    break;
  case DLX_FLOAT32:
    memcpy(f, p, 4);
    v.re = f[0];
    break;
  case DLX_FLOAT64:
    memcpy(d, p, 8);
    v.re = d[0];
    break;
  case DLX_COMPLEX64:
    memcpy(f, p, 8);
    v.re = f[0];
    v.im = f[1];
    break;
  case DLX_COMPLEX128:
    memcpy(d, p, 16);
    v.re = d[0];
    v.im = d[1];
    break;
  default:
    break;
  }
  return v;
}

/* Float to integer: NaN 0, truncate, saturate. */
static uint64_t to_int_bits(const ref_value *v, long double lo, long double hi) {
  if (v->is_int) return v->bits;
  if (isnan(v->re)) return 0;
  long double t = truncl(v->re);
  if (t < lo) t = lo;
  if (t > hi) t = hi;
  return t < 0 ? (uint64_t)(int64_t)t : (uint64_t)t;
}

/* Expected bytes of v as t; *nan_mask gets bit k for part k that must be a NaN (any NaN). */
static void encode(dlx_dtype t, const ref_value *v, unsigned char *out, int *nan_mask) {
  float f[2] = {(float)v->re, (float)v->im};
  double d[2] = {(double)v->re, (double)v->im};
  uint64_t u = 0;
  uint16_t h;
  *nan_mask = (isnan(v->re) ? 1 : 0) | (isnan(v->im) ? 2 : 0);
  switch (t) {
  case DLX_BOOL:
    out[0] = v->re != 0 || v->im != 0;
    *nan_mask = 0;
    return;
  case DLX_INT8:
    u = to_int_bits(v, INT8_MIN, INT8_MAX);
    break;
  case DLX_INT16:
    u = to_int_bits(v, INT16_MIN, INT16_MAX);
    break;
  case DLX_INT32:
    u = to_int_bits(v, INT32_MIN, INT32_MAX);
    break;
  case DLX_INT64:
    u = to_int_bits(v, INT64_MIN, INT64_MAX);
    break;
  case DLX_UINT8:
    u = to_int_bits(v, 0, UINT8_MAX);
    break;
  case DLX_UINT16:
    u = to_int_bits(v, 0, UINT16_MAX);
    break;
  case DLX_UINT32:
    u = to_int_bits(v, 0, UINT32_MAX);
    break;
  case DLX_UINT64:
    u = to_int_bits(v, 0, UINT64_MAX);
    break;
  case DLX_FLOAT16:
    h = isnan(v->re) ? 0 : small_round(&half_format, v->re);
    memcpy(out, &h, 2);
    *nan_mask &= 1;
    return;
  case DLX_BFLOAT16:
    h = isnan(v->re) ? 0 : small_round(&bf16_format, v->re);
    memcpy(out, &h, 2);
    *nan_mask &= 1;
    return;
  case DLX_FLOAT32:
    memcpy(out, f, 4);
    *nan_mask &= 1;
    return;
  case DLX_FLOAT64:
    memcpy(out, d, 8);
    *nan_mask &= 1;
    return;
  case DLX_COMPLEX64:
    memcpy(out, f, 8);
    return;
  case DLX_COMPLEX128:
    memcpy(out, d, 16);
    return;
  default:
    return;
  }
  *nan_mask = 0;
  memcpy(out, &u, (size_t)dlx_itemsize(t)); /* little-endian: the low bytes */
}

static int part_is_nan(dlx_dtype t, const unsigned char *p, int part) {
  uint16_t h;
  float f;
  double d;
  switch (t) {
  case DLX_FLOAT16:
    memcpy(&h, p, 2);
    return is_nan16(&half_format, h);
  case DLX_BFLOAT16:
    memcpy(&h, p, 2);
    return is_nan16(&bf16_format, h);
  case DLX_FLOAT32:
  case DLX_COMPLEX64:
    memcpy(&f, p + 4 * part, 4);
    return isnan(f);
  default:
    memcpy(&d, p + 8 * part, 8);
    return isnan(d);
  }
}

/* Compares got with the expectation for src element s; NaN parts only need to be NaN. */
static int matches(dlx_dtype st, const unsigned char *s, dlx_dtype dt, const unsigned char *got) {
  unsigned char want[16];
  int nan_mask, size = (int)dlx_itemsize(dt), half = size / 2;
  if (st == dt) return memcmp(s, got, (size_t)size) == 0; /* bit for bit */
  ref_value v = decode(st, s);
  encode(dt, &v, want, &nan_mask);
  if (dlx_dtype_kind(dt) != DLX_KIND_COMPLEX) {
    return nan_mask & 1 ? part_is_nan(dt, got, 0) : memcmp(want, got, (size_t)size) == 0;
  }
  for (int k = 0; k < 2; k++) {
    int ok = nan_mask & (1 << k) ? part_is_nan(dt, got, k)
                                 : memcmp(want + k * half, got + k * half, (size_t)half) == 0;
    if (!ok) return 0;
  }
  return 1;
}

/* ---- source data: edge values first, then random bits and random magnitudes */

static const double edge_doubles[] = {0.0,
                                      -0.0,
                                      1.0,
                                      -1.0,
                                      0.5,
                                      -0.5,
                                      0.7,
                                      -0.7,
                                      1.5,
                                      2.5,
                                      -2.5,
                                      127.5,
                                      128.0,
                                      -128.5,
                                      -129.0,
                                      255.5,
                                      256.0,
                                      32767.5,
                                      32768.0,
                                      -32768.9,
                                      -32769.0,
                                      65504.0,
                                      65519.99,
                                      65520.0,
                                      65536.0,
                                      2147483647.0,
                                      2147483648.0,
                                      -2147483648.0,
                                      -2147483649.0,
                                      4294967295.5,
                                      4294967296.0,
                                      9223372036854775807.0,
                                      9223372036854774784.0,
                                      -9223372036854775808.0,
                                      -9223372036854777856.0,
                                      18446744073709549568.0,
                                      18446744073709551616.0,
                                      1e300,
                                      -1e300,
                                      INFINITY,
                                      -INFINITY,
                                      NAN,
                                      -NAN,
                                      1e-300,
                                      0x1p-24,
                                      0x1p-25,
                                      0x1.8p-24,
                                      6.1e-5,
                                      1.0 + 0x1p-8,
                                      1.0 + 0x1p-8 + 0x1p-30,
                                      1.0 + 0x1p-11 + 0x1p-40,
                                      FLT_MAX,
                                      3.4e38,
                                      3.3961e38,
                                      DBL_TRUE_MIN,
                                      16777217.0,
                                      0.1,
                                      -1e-9};

static const int64_t edge_ints[] = {0,
                                    1,
                                    -1,
                                    2,
                                    127,
                                    128,
                                    255,
                                    256,
                                    -128,
                                    -129,
                                    32767,
                                    32768,
                                    65535,
                                    65536,
                                    -32769,
                                    65519,
                                    65520,
                                    2147483647,
                                    2147483648,
                                    -2147483648,
                                    4294967295,
                                    16777217,
                                    INT64_C(9007199254740993),
                                    (INT64_C(1) << 62) + (INT64_C(1) << 54) + 1,
                                    INT64_MAX,
                                    INT64_MIN,
                                    INT64_MIN + 1,
                                    INT64_MAX - 1023,
                                    INT64_MAX - 512,
                                    -1024};

static const uint64_t edge_uints[] = {UINT64_MAX,
                                      UINT64_MAX - 1023,
                                      UINT64_MAX - 1024,
                                      UINT64_C(1) << 63,
                                      (UINT64_C(1) << 63) + 1,
                                      (UINT64_C(1) << 63) + 1024,
                                      UINT64_C(18446744073709549568),
                                      UINT64_C(0x8000008000000001)};

#define NEDGE_D (sizeof edge_doubles / sizeof edge_doubles[0])
#define NEDGE_I (sizeof edge_ints / sizeof edge_ints[0])
#define NEDGE_U (sizeof edge_uints / sizeof edge_uints[0])

/* Stores a double as any dtype, for making inputs (edge values only need to be close). */
static void put_double(dlx_dtype t, unsigned char *p, double x, double y) {
  float f[2] = {(float)x, (float)y};
  double d[2] = {x, y};
  uint16_t h;
  switch (t) {
  case DLX_FLOAT16:
    h = dlx_double_to_half(x);
    memcpy(p, &h, 2);
    break;
  case DLX_BFLOAT16:
    h = dlx_double_to_bf16(x);
    memcpy(p, &h, 2);
    break;
  case DLX_FLOAT32:
  case DLX_COMPLEX64:
    memcpy(p, f, t == DLX_FLOAT32 ? 4 : 8);
    break;
  default:
    memcpy(p, d, t == DLX_FLOAT64 ? 8 : 16);
    break;
  }
}

static void fill_source(dlx_dtype t, unsigned char *data, int64_t n) {
  int64_t size = dlx_itemsize(t), i = 0;
  int is_float = dlx_dtype_kind(t) == DLX_KIND_FLOAT || dlx_dtype_kind(t) == DLX_KIND_COMPLEX;
  if (is_float) {
    for (size_t k = 0; k < NEDGE_D && i < n; k++, i++)
      put_double(t, data + i * size, edge_doubles[k], edge_doubles[(k * 7) % NEDGE_D]);
    for (size_t k = 0; k < NEDGE_I && i < n; k++, i++)
      put_double(t, data + i * size, (double)edge_ints[k], 0.0);
    for (; i < n; i++) {
      if (i % 2 == 0) {
        for (int64_t b = 0; b < size; b++) data[i * size + b] = (unsigned char)rnd();
      } else {
        double m = ldexp(rnd_unit() - 0.5, (int)(rnd() % 140) - 70);
        put_double(t, data + i * size, i % 4 == 1 ? m : trunc(m * 4) / 4, m);
      }
    }
  } else {
    for (size_t k = 0; k < NEDGE_I && i < n; k++, i++)
      memcpy(data + i * size, &edge_ints[k], (size_t)size); /* the low bytes: wrapped */
    for (size_t k = 0; k < NEDGE_U && i < n; k++, i++)
      memcpy(data + i * size, &edge_uints[k], (size_t)size);
    for (; i < n; i++) {
      uint64_t u = rnd() >> (rnd() % 64);
      memcpy(data + i * size, &u, (size_t)size);
    }
  }
  if (t == DLX_BOOL) { /* bool storage other than 0/1 reads as true */
    for (i = 0; i < n; i++) data[i] = i % 5 == 0 ? 0 : i % 7 == 0 ? 2 : (data[i] & 1);
  }
}

/* ---- tensors over the backend's memory */

static dlx_tensor view1(dlx_buffer *b, dlx_dtype t, int64_t n, int64_t stride, int64_t offset) {
  dlx_tensor v;
  memset(&v, 0, sizeof v);
  v.buffer = b;
  v.dtype = t;
  v.ndim = 1;
  v.shape[0] = n;
  v.strides[0] = stride;
  v.offset = offset;
  return v;
}

#define N 1000

static int pair_errors;

/* layout 0: both contiguous; 1: src reversed, dst every other element; 2: src broadcast. */
static void check_pair(dlx_dtype st, dlx_dtype dt, int layout, dlx_buffer *src, dlx_buffer *dst) {
  int64_t ssize = dlx_itemsize(st), dsize = dlx_itemsize(dt);
  dlx_tensor s = view1(src, st, N,
                       layout == 0   ? 1
                       : layout == 1 ? -1
                                     : 0,
                       layout == 1   ? N - 1
                       : layout == 2 ? 17
                                     : 0);
  dlx_tensor d = view1(dst, dt, N, layout == 1 ? 2 : 1, 0);
  dlx_error err;
  memset(dst->data, 0xA5, dst->nbytes);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&d, &s, &err), 0);
  for (int64_t i = 0; i < N; i++) {
    const unsigned char *sp = (unsigned char *)src->data + (s.offset + i * s.strides[0]) * ssize;
    const unsigned char *dp = (unsigned char *)dst->data + i * d.strides[0] * dsize;
    int ok = matches(st, sp, dt, dp);
    if (!ok && pair_errors++ < 20) {
      fprintf(stderr, "cast %s -> %s, layout %d, element %" PRId64 ": src",
              dlx_dtype_info_of(st)->name, dlx_dtype_info_of(dt)->name, layout, i);
      for (int64_t b = 0; b < ssize; b++) fprintf(stderr, " %02x", sp[b]);
      fprintf(stderr, " dst");
      for (int64_t b = 0; b < dsize; b++) fprintf(stderr, " %02x", dp[b]);
      fprintf(stderr, "\n");
    }
    CHECK(ok);
  }
  if (layout == 1) { /* the gaps are untouched */
    for (int64_t b = 0; b < dsize; b++) CHECK(((unsigned char *)dst->data)[dsize + b] == 0xA5);
  }
}

static void test_all_pairs(void) {
  dlx_buffer *src = new_buffer(N * 16), *dst = new_buffer(2 * N * 16);
  for (int st = 0; st < NCOMPUTABLE; st++) {
    fill_source((dlx_dtype)st, src->data, N);
    for (int dt = 0; dt < NCOMPUTABLE; dt++) {
      for (int layout = 0; layout < 3; layout++) check_pair(st, dt, layout, src, dst);
    }
  }
  free_buffer(src);
  free_buffer(dst);
}

/* A few casts spelled out, so that the expectations are visible. */
static void test_known_casts(void) {
  dlx_buffer *src = new_buffer(64), *dst = new_buffer(64);
  dlx_error err;
  dlx_tensor s = view1(src, DLX_FLOAT64, 6, 1, 0), d = view1(dst, DLX_INT32, 6, 1, 0);
  double in[6] = {-2.9, 2.9, NAN, 1e10, -1e10, -0.0};
  int32_t out[6];
  memcpy(src->data, in, sizeof in);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&d, &s, &err), 0);
  memcpy(out, dst->data, sizeof out);
  CHECK(out[0] == -2 && out[1] == 2 && out[2] == 0 && out[3] == INT32_MAX && out[4] == INT32_MIN);
  CHECK(out[5] == 0);

  int64_t big[2] = {300, -1};
  uint8_t bytes[2];
  s = view1(src, DLX_INT64, 2, 1, 0);
  d = view1(dst, DLX_UINT8, 2, 1, 0);
  memcpy(src->data, big, sizeof big);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&d, &s, &err), 0);
  memcpy(bytes, dst->data, 2);
  CHECK(bytes[0] == 44 && bytes[1] == 255); /* wraps */

  uint64_t u = UINT64_MAX;
  float f;
  s = view1(src, DLX_UINT64, 1, 1, 0);
  d = view1(dst, DLX_FLOAT32, 1, 1, 0);
  memcpy(src->data, &u, 8);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&d, &s, &err), 0);
  memcpy(&f, dst->data, 4);
  CHECK(f == 0x1p64f);
  free_buffer(src);
  free_buffer(dst);
}

int main(void) {
  rnd_seed("test_cpu_cast", UINT64_C(0x2545F4914F6CDD1D));
  test_decode_all();
  test_round_specials();
  test_round_points(&half_format, dlx_float_to_half, dlx_double_to_half, "half");
  test_round_points(&bf16_format, dlx_float_to_bf16, dlx_double_to_bf16, "bf16");
  test_round_random();
  test_round_integers();
  test_all_pairs();
  test_known_casts();
  return check_report("test_cpu_cast");
}
