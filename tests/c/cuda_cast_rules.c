/* cuda_cast_rules.c -- the CUDA cast kernel's conversions against the CPU backend's, bit for bit.
 *
 * No GPU runs here, so cuda_cast_rules.cpp compiles the kernel's per-element code (src/cuda/
 * cast_element.h and the shared rules of src/common it calls) as host C++, the language nvcc
 * compiles it in. Every pair of computable dtypes is checked against dlx_cpu_cast_loop: every bit
 * pattern of the 1- and 2-byte dtypes; for the others edge values (NaN, inf, the integer bounds,
 * overflow), the float16 and bfloat16 values with their rounding ties and the doubles just off
 * them, subnormals, and random bits. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/half.h"
#include "core/core.h"
#include "cpu/cast_loops.h"
#include "cpu_test_util.h"
#include "cuda/kernels.h"

void cxx_cast_element(int dst_dtype, void *out, int src_dtype, const void *in);

_Static_assert(DLX_CUDA_BOOL == (int)DLX_BOOL && DLX_CUDA_FLOAT16 == (int)DLX_FLOAT16 &&
                   DLX_CUDA_COMPLEX128 == (int)DLX_COMPLEX128,
               "the CUDA kernels take dlx_dtype values as they are");

#define NCOMPUTABLE (DLX_COMPLEX128 + 1)

/* ---- source values, as doubles (floating sources) or as 64-bit patterns (integer sources) */

typedef struct values {
  double *d;
  uint64_t *bits;
  size_t n, cap;
} values;

static void add(values *v, double d, uint64_t bits) {
  if (v->n == v->cap) {
    v->cap = v->cap ? 2 * v->cap : 1024;
    v->d = realloc(v->d, v->cap * sizeof *v->d);
    v->bits = realloc(v->bits, v->cap * sizeof *v->bits);
  }
  v->d[v->n] = d;
  v->bits[v->n] = bits;
  v->n++;
}

static void add_double(values *v, double d) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  add(v, d, bits);
}

/* A value, its negation and its neighbours in float and double. */
static void add_around(values *v, double d) {
  for (int s = 0; s < 2; s++) {
    double x = s ? -d : d;
    add_double(v, x);
    add_double(v, nextafter(x, INFINITY));
    add_double(v, nextafter(x, -INFINITY));
    add_double(v, nextafterf((float)x, INFINITY));
    add_double(v, nextafterf((float)x, -INFINITY));
  }
}

static const double edges[] = {0.0,
                               0.5,
                               0.7,
                               1.0,
                               1.5,
                               2.5,
                               127.5,
                               128.0,
                               255.5,
                               256.0,
                               32767.5,
                               32768.0,
                               65504.0,
                               65519.99,
                               65520.0,
                               65536.0,
                               2147483647.0,
                               2147483648.0,
                               4294967295.5,
                               4294967296.0,
                               9223372036854775807.0,
                               9223372036854774784.0,
                               18446744073709549568.0,
                               18446744073709551616.0,
                               1e300,
                               INFINITY,
                               NAN,
                               1e-300,
                               DBL_MIN,
                               DBL_TRUE_MIN,
                               FLT_MAX,
                               FLT_MIN,
                               FLT_TRUE_MIN,
                               3.3961775e38,
                               3.3961776e38,
                               0x1p-24,
                               0x1p-25,
                               0x1.8p-24,
                               0x1p-134,
                               0x1p-149 * 0.75,
                               16777217.0,
                               0.1};

static const uint64_t edge_bits[] = {0,
                                     1,
                                     127,
                                     128,
                                     255,
                                     256,
                                     32767,
                                     32768,
                                     65504,
                                     65519,
                                     65520,
                                     65535,
                                     2049,
                                     2051,
                                     16777217,
                                     UINT64_C(9007199254740993),
                                     (UINT64_C(1) << 62) + (UINT64_C(1) << 54) + 1,
                                     (UINT64_C(1) << 62) + (UINT64_C(1) << 54),
                                     (UINT64_C(1) << 40) + 1,
                                     UINT64_C(2147483647),
                                     UINT64_C(2147483648),
                                     UINT64_C(4294967295),
                                     UINT64_C(0x8000008000000001),
                                     UINT64_C(1) << 63,
                                     (UINT64_C(1) << 63) + 1024,
                                     UINT64_MAX - 1023,
                                     UINT64_MAX - 1024,
                                     UINT64_MAX};

/* Values for the floating sources: edges, every float16 and bfloat16 value with the midpoint to
 * the next one (a rounding tie) and the doubles just off it, random magnitudes and random bits. */
static values float_sources(void) {
  values v = {0};
  for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) add_around(&v, edges[k]);
  for (size_t k = 0; k < sizeof edge_bits / sizeof edge_bits[0]; k++) {
    add_around(&v, (double)edge_bits[k]);
    add_around(&v, (double)(int64_t)edge_bits[k]);
  }
  for (uint32_t h = 0; h < 0x7c00; h++) {
    double x = dlx_half_to_float((uint16_t)h), mid = (x + dlx_half_to_float((uint16_t)(h + 1))) / 2;
    add_double(&v, x);
    add_around(&v, mid);
    add_double(&v, mid * (1 + 0x1p-40));
    add_double(&v, mid * (1 - 0x1p-40));
  }
  for (uint32_t b = 0; b < 0x7f80; b++) {
    double x = dlx_bf16_to_float((uint16_t)b), mid = (x + dlx_bf16_to_float((uint16_t)(b + 1))) / 2;
    add_double(&v, x);
    add_around(&v, mid);
    add_double(&v, mid * (1 + 0x1p-40));
  }
  for (int i = 0; i < 20000; i++) {
    add_double(&v, ldexp(rnd_unit() - 0.5, (int)(rnd() % 300) - 150));
    add(&v, 0, rnd()); /* random double bits (and float bits, below) */
  }
  return v;
}

static values int_sources(void) {
  values v = {0};
  for (size_t k = 0; k < sizeof edge_bits / sizeof edge_bits[0]; k++) {
    for (int64_t delta = -2; delta <= 2; delta++) {
      add(&v, 0, edge_bits[k] + (uint64_t)delta);
      add(&v, 0, 0 - edge_bits[k] + (uint64_t)delta);
    }
  }
  for (int i = 0; i < 20000; i++) add(&v, 0, rnd() >> (rnd() % 64));
  return v;
}

/* Element i of dtype t from value k of v (random bits stand as they are: d == 0 with bits set). */
static void put(dlx_dtype t, unsigned char *p, const values *v, size_t k) {
  double d = v->d[k], y = v->d[(k * 7 + 3) % v->n];
  uint64_t bits = v->bits[k];
  int random_bits = d == 0 && bits != 0 && bits != UINT64_C(0x8000000000000000);
  float f[2] = {(float)d, (float)y};
  double two[2] = {d, y};
  uint16_t h;
  uint32_t low = (uint32_t)bits;
  switch (t) {
  case DLX_FLOAT16:
  case DLX_BFLOAT16:
    h = random_bits        ? (uint16_t)bits
        : t == DLX_FLOAT16 ? dlx_double_to_half(d)
                           : dlx_double_to_bf16(d);
    memcpy(p, &h, 2);
    break;
  case DLX_FLOAT32:
  case DLX_COMPLEX64:
    if (random_bits) memcpy(&f[0], &low, 4);
    memcpy(p, f, t == DLX_FLOAT32 ? 4 : 8);
    break;
  case DLX_FLOAT64:
  case DLX_COMPLEX128:
    memcpy(p, two, t == DLX_FLOAT64 ? 8 : 16); /* random bits: bits == d's own */
    if (random_bits) memcpy(p, &bits, 8);
    break;
  default:
    memcpy(p, &bits, (size_t)dlx_itemsize(t)); /* the low bytes: little-endian */
    break;
  }
}

/* ---- the check */

static int errors;

static void check_pair(dlx_dtype st, dlx_dtype dt, const unsigned char *src, size_t n,
                       unsigned char *cpu, unsigned char *cxx) {
  size_t ssize = (size_t)dlx_itemsize(st), dsize = (size_t)dlx_itemsize(dt);
  dlx_cpu_loop_fn loop = dlx_cpu_cast_loop(st, dt);
  CHECK(loop != NULL);
  memset(cpu, 0xA5, n * dsize);
  memset(cxx, 0x5A, n * dsize);
  loop((char *)cpu, (ptrdiff_t)dsize, (const char *)src, (ptrdiff_t)ssize, (int64_t)n);
  for (size_t i = 0; i < n; i++) cxx_cast_element(dt, cxx + i * dsize, st, src + i * ssize);
  int64_t differ = 0;
  for (size_t i = 0; i < n; i++) {
    int same = memcmp(cpu + i * dsize, cxx + i * dsize, dsize) == 0;
    differ += !same;
    if (!same && errors++ < 20) {
      fprintf(stderr, "%s -> %s, src", dlx_dtype_info_of(st)->name, dlx_dtype_info_of(dt)->name);
      for (size_t b = 0; b < ssize; b++) fprintf(stderr, " %02x", src[i * ssize + b]);
      fprintf(stderr, ": cpu");
      for (size_t b = 0; b < dsize; b++) fprintf(stderr, " %02x", cpu[i * dsize + b]);
      fprintf(stderr, ", cuda rules");
      for (size_t b = 0; b < dsize; b++) fprintf(stderr, " %02x", cxx[i * dsize + b]);
      fprintf(stderr, "\n");
    }
  }
  CHECK_EQ_INT(differ, 0);
}

static void test_all_pairs(void) {
  values floats = float_sources(), ints = int_sources();
  size_t cap = floats.n > ints.n ? floats.n : ints.n;
  cap = cap > 65536 ? cap : 65536;
  unsigned char *src = malloc(cap * 16), *cpu = malloc(cap * 16), *cxx = malloc(cap * 16);
  for (int st = 0; st < NCOMPUTABLE; st++) {
    int64_t size = dlx_itemsize((dlx_dtype)st);
    dlx_kind kind = dlx_dtype_kind((dlx_dtype)st);
    const values *v = kind == DLX_KIND_FLOAT || kind == DLX_KIND_COMPLEX ? &floats : &ints;
    size_t n = v->n;
    if (size <= 2) { /* every bit pattern */
      n = size == 1 ? 256 : 65536;
      for (size_t i = 0; i < n; i++) memcpy(src + i * (size_t)size, &i, (size_t)size);
    } else {
      for (size_t i = 0; i < n; i++) put((dlx_dtype)st, src + i * (size_t)size, v, i);
    }
    for (int dt = 0; dt < NCOMPUTABLE; dt++) check_pair(st, dt, src, n, cpu, cxx);
  }
  free(src);
  free(cpu);
  free(cxx);
  free(floats.d);
  free(floats.bits);
  free(ints.d);
  free(ints.bits);
}

int main(void) {
  rnd_seed("cuda_cast_rules", UINT64_C(0x9E3779B97F4A7C15));
  test_all_pairs();
  return check_report("cuda_cast_rules");
}
