/* matmul_fixed.c -- batches of packed 4 x 4 float32 and float64 products (matmul.h): poses and
 * transforms, 100,000 at a time.
 *
 * One call runs a range of batch elements, so nothing is decided per element. Each element is
 * computed as the own loops (matmul_small.c) compute it, in the same order with the same
 * roundings: row i of c is 0 + a[i][0] * b[0] + a[i][1] * b[1] + a[i][2] * b[2] + a[i][3] * b[3],
 * the adds left to right, no fused multiply-add (this file and matmul_small.c are built with
 * -ffp-contract=off), so every ISA, every thread count and the general loops give the same bits
 * (tests/c/test_cpu_matmul.c compares them). The vector kernels put the rows of c side by side
 * in one register: with AVX-512, all four float32 rows (each a[i][l] spread over its row's lane
 * by an in-lane permute, b's row l repeated in every lane); with AVX2, two rows at a time. */
#include <string.h>

#include "cpu/matmul.h"

/* A loop over batch elements [begin, end) of r, with a, b and c each element's matrices (the
 * request read once: c's stores could alias it). */
#define FOR_ELEMENTS(T, r, begin, end)                                                             \
  const T *a = DLX_CPU_OPERAND(const T, &(r)->a, begin);                                           \
  const T *b = DLX_CPU_OPERAND(const T, &(r)->b, begin);                                           \
  T *c = DLX_CPU_OPERAND(T, &(r)->c, begin);                                                       \
  int64_t as = (r)->a.batch_stride, bs = (r)->b.batch_stride, cs = (r)->c.batch_stride;            \
  for (int64_t i = begin; i < end; i++, a += as, b += bs, c += cs)

#define PORTABLE_4X4(NAME, T)                                                                      \
  static void NAME(const dlx_matmul_request *r, int64_t begin, int64_t end) {                      \
    FOR_ELEMENTS(T, r, begin, end) {                                                               \
      for (int row = 0; row < 4; row++) {                                                          \
        T acc[4] = {0, 0, 0, 0};                                                                   \
        for (int l = 0; l < 4; l++)                                                                \
          for (int j = 0; j < 4; j++) acc[j] += a[row * 4 + l] * b[l * 4 + j];                     \
        memcpy(c + row * 4, acc, sizeof acc);                                                      \
      }                                                                                            \
    }                                                                                              \
  }

PORTABLE_4X4(f32_4x4_portable, float)
PORTABLE_4X4(f64_4x4_portable, double)

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>

#define TARGET_AVX512 __attribute__((target("avx512f")))
#define TARGET_AVX2 __attribute__((target("avx2")))

/* c's four rows in one register: lane i holds row i of a (av) and, after the permute by
 * PICK(l), a[i][l] four times. */
TARGET_AVX512 static void f32_4x4_avx512(const dlx_matmul_request *r, int64_t begin, int64_t end) {
  FOR_ELEMENTS(float, r, begin, end) {
    __m512 av = _mm512_loadu_ps(a), acc = _mm512_setzero_ps();
    acc = _mm512_add_ps(
        acc, _mm512_mul_ps(_mm512_permute_ps(av, 0x00), _mm512_broadcast_f32x4(_mm_loadu_ps(b))));
    acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_permute_ps(av, 0x55),
                                           _mm512_broadcast_f32x4(_mm_loadu_ps(b + 4))));
    acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_permute_ps(av, 0xAA),
                                           _mm512_broadcast_f32x4(_mm_loadu_ps(b + 8))));
    acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_permute_ps(av, 0xFF),
                                           _mm512_broadcast_f32x4(_mm_loadu_ps(b + 12))));
    _mm512_storeu_ps(c, acc);
  }
}

/* Rows 0 and 1 in one register, 2 and 3 in another (a 128-bit lane a row). */
TARGET_AVX2 static void f32_4x4_avx2(const dlx_matmul_request *r, int64_t begin, int64_t end) {
  FOR_ELEMENTS(float, r, begin, end) {
    __m256 b0 = _mm256_broadcast_ps((const __m128 *)(const void *)b);
    __m256 b1 = _mm256_broadcast_ps((const __m128 *)(const void *)(b + 4));
    __m256 b2 = _mm256_broadcast_ps((const __m128 *)(const void *)(b + 8));
    __m256 b3 = _mm256_broadcast_ps((const __m128 *)(const void *)(b + 12));
    for (int half = 0; half < 2; half++) {
      __m256 av = _mm256_loadu_ps(a + 8 * half), acc = _mm256_setzero_ps();
      acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_permute_ps(av, 0x00), b0));
      acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_permute_ps(av, 0x55), b1));
      acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_permute_ps(av, 0xAA), b2));
      acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_permute_ps(av, 0xFF), b3));
      _mm256_storeu_ps(c + 8 * half, acc);
    }
  }
}

/* Rows 0 and 1 in one register, 2 and 3 in another (a 256-bit lane a row). */
TARGET_AVX512 static void f64_4x4_avx512(const dlx_matmul_request *r, int64_t begin, int64_t end) {
  FOR_ELEMENTS(double, r, begin, end) {
    __m512d b0 = _mm512_broadcast_f64x4(_mm256_loadu_pd(b));
    __m512d b1 = _mm512_broadcast_f64x4(_mm256_loadu_pd(b + 4));
    __m512d b2 = _mm512_broadcast_f64x4(_mm256_loadu_pd(b + 8));
    __m512d b3 = _mm512_broadcast_f64x4(_mm256_loadu_pd(b + 12));
    for (int half = 0; half < 2; half++) {
      __m512d av = _mm512_loadu_pd(a + 8 * half), acc = _mm512_setzero_pd();
      acc = _mm512_add_pd(acc, _mm512_mul_pd(_mm512_permutex_pd(av, 0x00), b0));
      acc = _mm512_add_pd(acc, _mm512_mul_pd(_mm512_permutex_pd(av, 0x55), b1));
      acc = _mm512_add_pd(acc, _mm512_mul_pd(_mm512_permutex_pd(av, 0xAA), b2));
      acc = _mm512_add_pd(acc, _mm512_mul_pd(_mm512_permutex_pd(av, 0xFF), b3));
      _mm512_storeu_pd(c + 8 * half, acc);
    }
  }
}

/* One row a register, a[i][l] broadcast from memory. */
TARGET_AVX2 static void f64_4x4_avx2(const dlx_matmul_request *r, int64_t begin, int64_t end) {
  FOR_ELEMENTS(double, r, begin, end) {
    __m256d b0 = _mm256_loadu_pd(b), b1 = _mm256_loadu_pd(b + 4);
    __m256d b2 = _mm256_loadu_pd(b + 8), b3 = _mm256_loadu_pd(b + 12);
    for (int row = 0; row < 4; row++) {
      const double *ar = a + 4 * row;
      __m256d acc = _mm256_setzero_pd();
      acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_broadcast_sd(ar), b0));
      acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_broadcast_sd(ar + 1), b1));
      acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_broadcast_sd(ar + 2), b2));
      acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_broadcast_sd(ar + 3), b3));
      _mm256_storeu_pd(c + 4 * row, acc);
    }
  }
}

static bool has_avx512(void) { return __builtin_cpu_supports("avx512f"); }
static bool has_avx2(void) { return __builtin_cpu_supports("avx2"); }
#else
#define f32_4x4_avx512 NULL
#define f32_4x4_avx2 NULL
#define f64_4x4_avx512 NULL
#define f64_4x4_avx2 NULL
static bool has_avx512(void) { return false; }
static bool has_avx2(void) { return false; }
#endif

/* Whether r is a batch of packed 4 x 4 products (rows contiguous, strides {4, 1}) of alpha 1 and
 * beta 0 in float32 or float64. */
static bool fixed_4x4(const dlx_matmul_request *r) {
  const dlx_matrix_operand *ops[3] = {&r->a, &r->b, &r->c};
  if (r->dtype != DLX_FLOAT32 && r->dtype != DLX_FLOAT64) return false;
  if (r->m != 4 || r->n != 4 || r->k != 4) return false;
  for (int o = 0; o < 3; o++)
    if (ops[o]->row_stride != 4 || ops[o]->col_stride != 1) return false;
  return r->alpha.kind == DLX_KIND_FLOAT && r->alpha.v.f == 1 && r->beta.kind == DLX_KIND_FLOAT &&
         r->beta.v.f == 0;
}

dlx_cpu_batch_fn dlx_cpu_fixed_batch_isa(const dlx_matmul_request *r, const char *isa) {
  bool f32 = r->dtype == DLX_FLOAT32;
  if (!fixed_4x4(r)) return NULL;
  if (strcmp(isa, "portable") == 0) return f32 ? f32_4x4_portable : f64_4x4_portable;
  if (strcmp(isa, "avx2") == 0 && has_avx2()) return f32 ? f32_4x4_avx2 : f64_4x4_avx2;
  if (strcmp(isa, "avx512") == 0 && has_avx512()) return f32 ? f32_4x4_avx512 : f64_4x4_avx512;
  return NULL;
}

dlx_cpu_batch_fn dlx_cpu_fixed_batch(const dlx_matmul_request *r) {
  if (!fixed_4x4(r)) return NULL;
  if (has_avx512()) return dlx_cpu_fixed_batch_isa(r, "avx512");
  if (has_avx2()) return dlx_cpu_fixed_batch_isa(r, "avx2");
  return dlx_cpu_fixed_batch_isa(r, "portable");
}
