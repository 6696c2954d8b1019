/* matmul_fixed.c -- batches of 3 x 3, 4 x 4 and 6 x 6 float32 and float64 products (matmul.h):
 * rotations, poses, transforms and the 6 x 6 blocks of robotics, 100,000 at a time.
 *
 * One call runs a range of batch elements, so nothing is decided per element. Each element is
 * computed as the own loops (matmul_small.c) compute it, in the same order with the same
 * roundings: row i of c is 0 + a[i][0] * b[0] + a[i][1] * b[1] + ... + a[i][N-1] * b[N-1], the
 * adds left to right, no fused multiply-add (this file and matmul_small.c are built with
 * -ffp-contract=off), so every ISA, every thread count and the general loops give the same bits
 * (tests/c/test_cpu_matmul.c compares them). Only the layout of the lanes differs from kernel
 * to kernel:
 * - AVX-512 puts several rows of c side by side in one register: each a[i][l] spread over its
 *   row's lanes and b's row l repeated for every row, by permutes (all of a 3 x 3 or 4 x 4
 *   float32 product in one register; two rows of a float64 one, or of a 6 x 6 float32 one);
 *   a 6 x 6 float64 row fills six lanes, a[i][l] broadcast from memory;
 * - AVX2 keeps a row of c a register (two rows of a 4 x 4 float32 product), a[i][l] broadcast.
 * The float32 and float64 kernels that share a layout (the 3 x 3 rows of AVX2, four rows side by
 * side at 4 x 4, a 6 x 6 row in 8 lanes) are written once, over a vector "set" of macros that
 * names the type and the few operations of a lane width (F32X4 ... F64X8 below).
 * Loads and stores stay inside the element's matrices, without masks (masked ones that miss the
 * cache made the 6 x 6 float32 kernel three times slower on Zen 5): the last values are loaded
 * from a few places earlier and shifted down (or picked by a permute), and the rows of c are
 * stored in order, each store's lanes past its row rewritten by the next row's store, the last
 * row in pieces.
 *
 * Operands that are not packed (a transposed or padded a or b, which the core passes as they
 * are, any c the backend contract allows) are copied element by element into packed matrices
 * on the stack first (c back out after): the products are the same, the loops' order does not
 * depend on the strides. */
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

static bool packed(const dlx_matrix_operand *o, int64_t n) {
  return o->row_stride == n && o->col_stride == 1;
}

/* dst (packed) = the N x N matrix at src with operand o's strides. */
#define PACK(dst, src, o, N)                                                                       \
  for (int row = 0; row < N; row++)                                                                \
    for (int col = 0; col < N; col++)                                                              \
      (dst)[row * N + col] = (src)[row * (o).row_stride + col * (o).col_stride];

/* The batch function NAME over elements of N x N matrices of T, ONE(a, b, c) computing one
 * element on packed matrices. Operands that are not packed go through packed copies. */
#define BATCH(NAME, TARGET, T, N, ONE)                                                             \
  TARGET static void NAME(const dlx_matmul_request *r, int64_t begin, int64_t end) {               \
    bool pa = packed(&r->a, N), pb = packed(&r->b, N), pc = packed(&r->c, N);                      \
    T ta[N * N], tb[N * N], tc[N * N];                                                             \
    if (pa && pb && pc) {                                                                          \
      FOR_ELEMENTS(T, r, begin, end) ONE(a, b, c);                                                 \
      return;                                                                                      \
    }                                                                                              \
    FOR_ELEMENTS(T, r, begin, end) {                                                               \
      if (!pa) PACK(ta, a, r->a, N);                                                               \
      if (!pb) PACK(tb, b, r->b, N);                                                               \
      ONE(pa ? a : ta, pb ? b : tb, pc ? c : tc);                                                  \
      if (!pc)                                                                                     \
        for (int row = 0; row < N; row++)                                                          \
          for (int col = 0; col < N; col++)                                                        \
            c[row * r->c.row_stride + col * r->c.col_stride] = tc[row * N + col];                  \
    }                                                                                              \
  }

/* ---- portable C: the own loops' order, at fixed sizes */

#define PORTABLE_ONE(NAME, T, N)                                                                   \
  static inline void NAME(const T *a, const T *b, T *c) {                                          \
    for (int row = 0; row < N; row++) {                                                            \
      T acc[N];                                                                                    \
      for (int j = 0; j < N; j++) acc[j] = 0;                                                      \
      for (int l = 0; l < N; l++)                                                                  \
        for (int j = 0; j < N; j++) acc[j] += a[row * N + l] * b[l * N + j];                       \
      memcpy(c + row * N, acc, sizeof acc);                                                        \
    }                                                                                              \
  }

/* Both dtypes' portable kernels of size N. */
#define PORTABLE_ONES(N)                                                                           \
  PORTABLE_ONE(f32_##N##_portable_one, float, N)                                                   \
  PORTABLE_ONE(f64_##N##_portable_one, double, N)

PORTABLE_ONES(3)
PORTABLE_ONES(4)
PORTABLE_ONES(6)

/* The batch functions f32_3_ISA ... f64_6_ISA over the kernels f32_3_ISA_one ... */
#define BATCHES(ISA, TARGET)                                                                       \
  BATCH(f32_3_##ISA, TARGET, float, 3, f32_3_##ISA##_one)                                          \
  BATCH(f64_3_##ISA, TARGET, double, 3, f64_3_##ISA##_one)                                         \
  BATCH(f32_4_##ISA, TARGET, float, 4, f32_4_##ISA##_one)                                          \
  BATCH(f64_4_##ISA, TARGET, double, 4, f64_4_##ISA##_one)                                         \
  BATCH(f32_6_##ISA, TARGET, float, 6, f32_6_##ISA##_one)                                          \
  BATCH(f64_6_##ISA, TARGET, double, 6, f64_6_##ISA##_one)

#define NO_TARGET
BATCHES(portable, NO_TARGET)

/* The row of the kernels table (below) of an ISA's batch functions. */
#define KERNELS(ISA)                                                                               \
  {                                                                                                \
    {f32_3_##ISA, f64_3_##ISA}, {f32_4_##ISA, f64_4_##ISA}, { f32_6_##ISA, f64_6_##ISA }           \
  }

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>

#define TARGET_AVX512 __attribute__((target("avx512f")))
#define TARGET_AVX2 __attribute__((target("avx2")))
#define ONE_AVX512 TARGET_AVX512 static inline __attribute__((always_inline))
#define ONE_AVX2 TARGET_AVX2 static inline __attribute__((always_inline))

/* ---- vector sets: a type (V_T), its lanes (V_LANES) and what the shared kernels do with it */

/* float32, 4 lanes (SSE, in the AVX2 kernels) */
#define F32X4_T __m128
#define F32X4_LOAD(p) _mm_loadu_ps(p)
#define F32X4_ZERO() _mm_setzero_ps()
#define F32X4_ADD(x, y) _mm_add_ps(x, y)
#define F32X4_MUL(x, y) _mm_mul_ps(x, y)
#define F32X4_BCAST(p) _mm_broadcast_ss(p)
#define F32X4_DOWN1(v) _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 3, 2, 1)) /* lanes 1-3 to 0-2 */
#define F32X4_STORE(p, v) _mm_storeu_ps(p, v)
#define F32X4_STORE2(p, v) _mm_storel_pi((__m64 *)(void *)(p), v) /* lanes 0-1 */
#define F32X4_STORE_LANE2(p, v) _mm_store_ss(p, _mm_movehl_ps(v, v))

/* float64, 4 lanes (AVX2) */
#define F64X4_T __m256d
#define F64X4_LOAD(p) _mm256_loadu_pd(p)
#define F64X4_ZERO() _mm256_setzero_pd()
#define F64X4_ADD(x, y) _mm256_add_pd(x, y)
#define F64X4_MUL(x, y) _mm256_mul_pd(x, y)
#define F64X4_BCAST(p) _mm256_broadcast_sd(p)
#define F64X4_DOWN1(v) _mm256_permute4x64_pd(v, _MM_SHUFFLE(3, 3, 2, 1))
#define F64X4_STORE(p, v) _mm256_storeu_pd(p, v)
#define F64X4_STORE2(p, v) _mm_storeu_pd(p, _mm256_castpd256_pd128(v))
#define F64X4_STORE_LANE2(p, v) _mm_store_sd(p, _mm256_extractf128_pd(v, 1))

/* float32, 8 lanes (AVX2); ROW4 repeats b's row of 4 in each group of 4 lanes, SPLAT4 picks one
 * lane of each group for the whole group (imm 0x00, 0x55, 0xAA, 0xFF: lane 0, 1, 2, 3) */
#define F32X8_T __m256
#define F32X8_LANES 8
#define F32X8_LOAD(p) _mm256_loadu_ps(p)
#define F32X8_ZERO() _mm256_setzero_ps()
#define F32X8_ADD(x, y) _mm256_add_ps(x, y)
#define F32X8_MUL(x, y) _mm256_mul_ps(x, y)
#define F32X8_BCAST(p) _mm256_broadcast_ss(p)
#define F32X8_ROW4(p) _mm256_broadcast_ps((const __m128 *)(const void *)(p))
#define F32X8_SPLAT4(v, imm) _mm256_permute_ps(v, imm)
#define F32X8_DOWN2(v) _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(2, 3, 4, 5, 6, 7, 7, 7))
#define F32X8_STORE(p, v) _mm256_storeu_ps(p, v)
#define F32X8_STORE4(p, v) _mm_storeu_ps(p, _mm256_castps256_ps128(v)) /* lanes 0-3 */
#define F32X8_STORE_HI2(p, v)                                          /* lanes 4-5 */             \
  _mm_storel_pi((__m64 *)(void *)(p), _mm256_extractf128_ps(v, 1))

/* float64, 8 lanes (AVX-512) */
#define F64X8_T __m512d
#define F64X8_LANES 8
#define F64X8_LOAD(p) _mm512_loadu_pd(p)
#define F64X8_ZERO() _mm512_setzero_pd()
#define F64X8_ADD(x, y) _mm512_add_pd(x, y)
#define F64X8_MUL(x, y) _mm512_mul_pd(x, y)
#define F64X8_BCAST(p) _mm512_set1_pd(*(p))
#define F64X8_ROW4(p) _mm512_broadcast_f64x4(_mm256_loadu_pd(p))
#define F64X8_SPLAT4(v, imm) _mm512_permutex_pd(v, imm)
#define F64X8_DOWN2(v) _mm512_permutexvar_pd(_mm512_setr_epi64(2, 3, 4, 5, 6, 7, 7, 7), v)
#define F64X8_STORE(p, v) _mm512_storeu_pd(p, v)
#define F64X8_STORE4(p, v) _mm256_storeu_pd(p, _mm512_castpd512_pd256(v))
#define F64X8_STORE_HI2(p, v) _mm_storeu_pd(p, _mm256_castpd256_pd128(_mm512_extractf64x4_pd(v, 1)))

/* float32, 16 lanes (AVX-512) */
#define F32X16_T __m512
#define F32X16_LANES 16
#define F32X16_LOAD(p) _mm512_loadu_ps(p)
#define F32X16_ZERO() _mm512_setzero_ps()
#define F32X16_ADD(x, y) _mm512_add_ps(x, y)
#define F32X16_MUL(x, y) _mm512_mul_ps(x, y)
#define F32X16_ROW4(p) _mm512_broadcast_f32x4(_mm_loadu_ps(p))
#define F32X16_SPLAT4(v, imm) _mm512_permute_ps(v, imm)
#define F32X16_STORE(p, v) _mm512_storeu_ps(p, v)

/* ---- the layouts that several sets share */

/* 3 x 3 in 4 lanes: a row of c in lanes 0-2, a[i][l] broadcast; b's last row loaded from b[5]
 * and shifted down one lane; c's last row stored in pieces. */
#define ROWS3_X4(NAME, ONE, T, V)                                                                  \
  ONE void NAME(const T *a, const T *b, T *c) {                                                    \
    V##_T b0 = V##_LOAD(b), b1 = V##_LOAD(b + 3), b2 = V##_LOAD(b + 5);                            \
    V##_T row[3];                                                                                  \
    b2 = V##_DOWN1(b2);                                                                            \
    for (int i = 0; i < 3; i++) {                                                                  \
      V##_T acc = V##_ZERO();                                                                      \
      acc = V##_ADD(acc, V##_MUL(V##_BCAST(a + 3 * i), b0));                                       \
      acc = V##_ADD(acc, V##_MUL(V##_BCAST(a + 3 * i + 1), b1));                                   \
      acc = V##_ADD(acc, V##_MUL(V##_BCAST(a + 3 * i + 2), b2));                                   \
      row[i] = acc;                                                                                \
    }                                                                                              \
    V##_STORE(c, row[0]);                                                                          \
    V##_STORE(c + 3, row[1]);                                                                      \
    V##_STORE2(c + 6, row[2]);                                                                     \
    V##_STORE_LANE2(c + 8, row[2]);                                                                \
  }

/* 4 x 4 with the rows side by side, 4 lanes a row (two rows a register of 8 lanes, all four in
 * one of 16): b's row l in every row's lanes, a[i][l] spread over row i's lanes by SPLAT4. */
#define ROWS4(NAME, ONE, T, V)                                                                     \
  ONE void NAME(const T *a, const T *b, T *c) {                                                    \
    V##_T b0 = V##_ROW4(b), b1 = V##_ROW4(b + 4), b2 = V##_ROW4(b + 8), b3 = V##_ROW4(b + 12);     \
    for (int part = 0; part < 16; part += V##_LANES) {                                             \
      V##_T av = V##_LOAD(a + part), acc = V##_ZERO();                                             \
      acc = V##_ADD(acc, V##_MUL(V##_SPLAT4(av, 0x00), b0));                                       \
      acc = V##_ADD(acc, V##_MUL(V##_SPLAT4(av, 0x55), b1));                                       \
      acc = V##_ADD(acc, V##_MUL(V##_SPLAT4(av, 0xAA), b2));                                       \
      acc = V##_ADD(acc, V##_MUL(V##_SPLAT4(av, 0xFF), b3));                                       \
      V##_STORE(c + part, acc);                                                                    \
    }                                                                                              \
  }

/* 6 x 6 in 8 lanes: a row of c in lanes 0-5, a[i][l] broadcast; b's last row loaded from b[28]
 * and moved down two lanes; each row's store rewritten past lane 5 by the next, the last row
 * stored in pieces. */
#define ROWS6_X8(NAME, ONE, T, V)                                                                  \
  ONE void NAME(const T *a, const T *b, T *c) {                                                    \
    V##_T bl[6];                                                                                   \
    for (int l = 0; l < 5; l++) bl[l] = V##_LOAD(b + 6 * l);                                       \
    bl[5] = V##_DOWN2(V##_LOAD(b + 28));                                                           \
    for (int row = 0; row < 6; row++) {                                                            \
      V##_T acc = V##_ZERO();                                                                      \
      for (int l = 0; l < 6; l++) acc = V##_ADD(acc, V##_MUL(V##_BCAST(a + 6 * row + l), bl[l]));  \
      if (row < 5) {                                                                               \
        V##_STORE(c + 6 * row, acc);                                                               \
      } else {                                                                                     \
        V##_STORE4(c + 30, acc);                                                                   \
        V##_STORE_HI2(c + 34, acc);                                                                \
      }                                                                                            \
    }                                                                                              \
  }

/* ---- AVX-512 */

/* The 9 values at p in lanes 0-8 (the ninth broadcast into lanes 8-15). */
ONE_AVX512 __m512 load9_ps(const float *p) {
  return _mm512_mask_broadcastss_ps(_mm512_castps256_ps512(_mm256_loadu_ps(p)), 0xFF00,
                                    _mm_load_ss(p + 8));
}

/* c in lanes 0-8: lane 3 i + j adds a[i][l] (av permuted by (i, l)) times b[l][j] (bv permuted
 * by (l, j)). */
ONE_AVX512 void f32_3_avx512_one(const float *a, const float *b, float *c) {
  const __m512i arow = _mm512_setr_epi32(0, 0, 0, 3, 3, 3, 6, 6, 6, 0, 0, 0, 0, 0, 0, 0);
  const __m512i bcol = _mm512_setr_epi32(0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0);
  __m512 av = load9_ps(a), bv = load9_ps(b), acc = _mm512_setzero_ps();
  for (int l = 0; l < 3; l++) {
    __m512 x = _mm512_permutexvar_ps(_mm512_add_epi32(arow, _mm512_set1_epi32(l)), av);
    __m512 y = _mm512_permutexvar_ps(_mm512_add_epi32(bcol, _mm512_set1_epi32(3 * l)), bv);
    acc = _mm512_add_ps(acc, _mm512_mul_ps(x, y));
  }
  _mm256_storeu_ps(c, _mm512_castps512_ps256(acc));
  _mm_store_ss(c + 8, _mm512_extractf32x4_ps(acc, 2));
}

/* Rows 0 and 1 in lanes 0-5 of one register (b's row l picked from b[0..8] by a two-source
 * permute), row 2 in lanes 0-2 of another. */
ONE_AVX512 void f64_3_avx512_one(const double *a, const double *b, double *c) {
  const __m512i arow = _mm512_setr_epi64(0, 0, 0, 3, 3, 3, 0, 0);
  const __m512i bcol = _mm512_setr_epi64(0, 1, 2, 0, 1, 2, 0, 0);
  __m512d a01 = _mm512_loadu_pd(a), blo = _mm512_loadu_pd(b), bhi = _mm512_set1_pd(b[8]);
  __m512d acc01 = _mm512_setzero_pd(), acc2 = _mm512_setzero_pd();
  for (int l = 0; l < 3; l++) {
    __m512d bl = _mm512_permutex2var_pd(blo, _mm512_add_epi64(bcol, _mm512_set1_epi64(3 * l)), bhi);
    __m512d x = _mm512_permutexvar_pd(_mm512_add_epi64(arow, _mm512_set1_epi64(l)), a01);
    acc01 = _mm512_add_pd(acc01, _mm512_mul_pd(x, bl));
    acc2 = _mm512_add_pd(acc2, _mm512_mul_pd(_mm512_set1_pd(a[6 + l]), bl));
  }
  _mm512_storeu_pd(c, acc01); /* lanes 6 and 7 rewritten below */
  _mm_storeu_pd(c + 6, _mm512_castpd512_pd128(acc2));
  _mm_store_sd(c + 8, _mm256_extractf128_pd(_mm512_castpd512_pd256(acc2), 1));
}

/* c's four rows in one register. */
ROWS4(f32_4_avx512_one, ONE_AVX512, float, F32X16)

/* Rows 0 and 1 in one register, 2 and 3 in another (a 256-bit lane a row). */
ROWS4(f64_4_avx512_one, ONE_AVX512, double, F64X8)

/* Rows 2p and 2p + 1 in lanes 0-11 of one register: b's row l twice (bl), a[2p][l] six times and
 * a[2p + 1][l] six times, each picked by a permute from the matrices' values 0-15, 16-31 and
 * 20-35 (three loads that stay inside the matrix). */
ONE_AVX512 void f32_6_avx512_one(const float *a, const float *b, float *c) {
  const __m512i twice = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 0, 0, 0);
  const __m512i arow = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 6, 0, 0, 0, 0);
  __m512 a0 = _mm512_loadu_ps(a), a1 = _mm512_loadu_ps(a + 16), a2 = _mm512_loadu_ps(a + 20);
  __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16), b2 = _mm512_loadu_ps(b + 20);
  __m512 bl[6];
  for (int l = 0; l < 4; l++) /* b[6 l ..] from values 0-31 */
    bl[l] = _mm512_permutex2var_ps(b0, _mm512_add_epi32(twice, _mm512_set1_epi32(6 * l)), b1);
  for (int l = 4; l < 6; l++) /* from values 20-35 */
    bl[l] = _mm512_permutexvar_ps(_mm512_add_epi32(twice, _mm512_set1_epi32(6 * l - 20)), b2);
  for (int p = 0; p < 3; p++) {
    __m512 acc = _mm512_setzero_ps();
    for (int l = 0; l < 6; l++) {
      __m512 x;
      if (p == 0)
        x = _mm512_permutexvar_ps(_mm512_add_epi32(arow, _mm512_set1_epi32(l)), a0);
      else if (p == 1)
        x = _mm512_permutex2var_ps(a0, _mm512_add_epi32(arow, _mm512_set1_epi32(12 + l)), a1);
      else
        x = _mm512_permutexvar_ps(_mm512_add_epi32(arow, _mm512_set1_epi32(4 + l)), a2);
      acc = _mm512_add_ps(acc, _mm512_mul_ps(x, bl[l]));
    }
    if (p < 2) { /* lanes 12-15 rewritten by the next store */
      _mm512_storeu_ps(c + 12 * p, acc);
    } else {
      _mm256_storeu_ps(c + 24, _mm512_castps512_ps256(acc));
      _mm_storeu_ps(c + 32, _mm512_extractf32x4_ps(acc, 2));
    }
  }
}

ROWS6_X8(f64_6_avx512_one, ONE_AVX512, double, F64X8)

/* ---- AVX2 */

ROWS3_X4(f32_3_avx2_one, ONE_AVX2, float, F32X4)
ROWS3_X4(f64_3_avx2_one, ONE_AVX2, double, F64X4)

/* Rows 0 and 1 in one register, 2 and 3 in another (a 128-bit lane a row). */
ROWS4(f32_4_avx2_one, ONE_AVX2, float, F32X8)

/* One row a register, a[i][l] broadcast from memory. */
ONE_AVX2 void f64_4_avx2_one(const double *a, const double *b, double *c) {
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

ROWS6_X8(f32_6_avx2_one, ONE_AVX2, float, F32X8)

/* Columns 0-3 of a row in one register, 4-5 in another. */
ONE_AVX2 void f64_6_avx2_one(const double *a, const double *b, double *c) {
  __m256d lo[6];
  __m128d hi[6];
  for (int l = 0; l < 6; l++) {
    lo[l] = _mm256_loadu_pd(b + 6 * l);
    hi[l] = _mm_loadu_pd(b + 6 * l + 4);
  }
  for (int row = 0; row < 6; row++) {
    __m256d acc = _mm256_setzero_pd();
    __m128d acc2 = _mm_setzero_pd();
    for (int l = 0; l < 6; l++) {
      acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_broadcast_sd(a + 6 * row + l), lo[l]));
      acc2 = _mm_add_pd(acc2, _mm_mul_pd(_mm_set1_pd(a[6 * row + l]), hi[l]));
    }
    _mm256_storeu_pd(c + 6 * row, acc);
    _mm_storeu_pd(c + 6 * row + 4, acc2);
  }
}

BATCHES(avx512, TARGET_AVX512)
BATCHES(avx2, TARGET_AVX2)

static bool has_avx512(void) { return __builtin_cpu_supports("avx512f"); }
static bool has_avx2(void) { return __builtin_cpu_supports("avx2"); }

#define X86_KERNELS(ISA) KERNELS(ISA)
#else
static bool has_avx512(void) { return false; }
static bool has_avx2(void) { return false; }

#define X86_KERNELS(ISA)                                                                           \
  {                                                                                                \
    {NULL, NULL}, {NULL, NULL}, { NULL, NULL }                                                     \
  }
#endif

enum { PORTABLE, AVX2, AVX512, ISAS };

/* [isa][size: 3, 4, 6][float32, float64] */
static const dlx_cpu_batch_fn kernels[ISAS][3][2] = {
    KERNELS(portable),
    X86_KERNELS(avx2),
    X86_KERNELS(avx512),
};

/* The size's row of kernels (3, 4 or 6), -1 for other sizes. */
static int size_index(int64_t n) { return n == 3 ? 0 : n == 4 ? 1 : n == 6 ? 2 : -1; }

/* Whether r is a batch of square 3 x 3, 4 x 4 or 6 x 6 products of alpha 1 and beta 0 in
 * float32 or float64 (any strides). */
static bool fixed_size(const dlx_matmul_request *r) {
  if (r->dtype != DLX_FLOAT32 && r->dtype != DLX_FLOAT64) return false;
  if (r->m != r->n || r->n != r->k || size_index(r->m) < 0) return false;
  return r->alpha.kind == DLX_KIND_FLOAT && r->alpha.v.f == 1 && r->beta.kind == DLX_KIND_FLOAT &&
         r->beta.v.f == 0;
}

static dlx_cpu_batch_fn pick(const dlx_matmul_request *r, int isa) {
  return kernels[isa][size_index(r->m)][r->dtype == DLX_FLOAT64];
}

dlx_cpu_batch_fn dlx_cpu_fixed_batch_isa(const dlx_matmul_request *r, const char *isa) {
  if (!fixed_size(r)) return NULL;
  if (strcmp(isa, "portable") == 0) return pick(r, PORTABLE);
  if (strcmp(isa, "avx2") == 0 && has_avx2()) return pick(r, AVX2);
  if (strcmp(isa, "avx512") == 0 && has_avx512()) return pick(r, AVX512);
  return NULL;
}

dlx_cpu_batch_fn dlx_cpu_fixed_batch(const dlx_matmul_request *r) {
  if (!fixed_size(r)) return NULL;
  return pick(r, has_avx512() ? AVX512 : has_avx2() ? AVX2 : PORTABLE);
}
