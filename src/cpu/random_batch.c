/* random_batch.c -- Philox blocks, Box-Muller normals and exponentials in batches, on vectors. The
 * normals and exponentials are plain C that the compiler vectorizes: the operations of
 * dlx_rng_normal (src/common/philox.h) and of the exponentials of src/common/distributions.h in
 * the same order, with branches turned into selects and integer-to-double conversions into bit
 * operations (exact either way), so every lane rounds as the scalar definition does on every
 * device. Philox is AVX-512 or AVX2 intrinsics on x86-64 (the compiler's own vectorization of it
 * shuffles more than it computes). Each batch is built for AVX-512, AVX2 and the baseline ISA
 * (target attributes) and chosen at run time. Built with -ffp-contract=off (no fused
 * multiply-adds: they round differently) and -fno-math-errno (sqrt as one instruction; its result
 * is the same). */
#include "cpu/random_batch.h"

#include "common/philox.h"

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE static inline
#endif

ALWAYS_INLINE uint64_t double_bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

/* (double)k for 0 <= k < 2^52, exactly: (2^52 + k) - 2^52, from k's bits. */
ALWAYS_INLINE double exact_double(uint64_t k) {
  return dlx_rng_bits_double(UINT64_C(0x4330000000000000) | k) - 0x1p52;
}

/* -x when negate is the sign bit, x when it is 0: the sign bit flipped, as C's -x does. */
ALWAYS_INLINE double negate_if(double x, uint64_t negate) {
  return dlx_rng_bits_double(double_bits(x) ^ negate);
}

/* when_set where mask is all ones, when_clear where it is 0: a select of bits, which every ISA's
 * vectorizer takes (a ?: of doubles stays a branch without AVX-512's masks). */
ALWAYS_INLINE double select(uint64_t mask, double when_set, double when_clear) {
  return dlx_rng_bits_double((double_bits(when_set) & mask) | (double_bits(when_clear) & ~mask));
}

/* All ones when the condition holds, else 0. */
ALWAYS_INLINE uint64_t mask_of(int condition) { return (uint64_t)0 - (uint64_t)condition; }

/* dlx_rng_log(x) for x in [2^-53, 1]. */
ALWAYS_INLINE double log_lane(double x) {
  uint64_t bits = double_bits(x);
  double e = exact_double(bits >> 52) - 1023.0; /* x > 0: no sign bit */
  double m =
      dlx_rng_bits_double((bits & UINT64_C(0x000fffffffffffff)) | UINT64_C(0x3ff0000000000000));
  uint64_t big = mask_of(m > 1.4142135623730951);
  m = select(big, m * 0.5, m);
  e = select(big, e + 1.0, e);
  return e * 0.6931471805599453 + dlx_rng_log_mantissa((m - 1.0) / (m + 1.0));
}

/* (double)k for 0 <= k <= 2^53, exactly: its high and low 26 bits converted apart, and a sum
 * that is exact because the result is representable. */
ALWAYS_INLINE double exact_double53(uint64_t k) {
  return exact_double(k >> 26) * 0x1p26 + exact_double(k & ((UINT64_C(1) << 26) - 1));
}

/* One pair of dlx_rng_normal with `bits` bits (32, or 53 for the wide case): its r, and
 * dlx_rng_sincos_turn(k2, bits, ...) for both lanes. */
ALWAYS_INLINE void normal_pair(uint64_t k1, uint64_t k2, int bits, double a, double b, double *z) {
  const uint64_t quarter = UINT64_C(1) << (bits - 2);
  const double scale = bits == 32 ? 0x1p-32 : 0x1p-53; /* dlx_rng_pow2_neg(bits) */
  uint64_t q = k2 >> (bits - 2), r = k2 & (quarter - 1);
  uint64_t flip = mask_of(r > quarter / 2), odd = mask_of((int)(q & 1));
  double u1 = (bits == 32 ? exact_double(k1 + 1) : exact_double53(k1 + 1)) * scale;
  double radius = sqrt(-2.0 * log_lane(u1));
  double t = exact_double(((quarter - r) & flip) | (r & ~flip)) * scale;
  double s = dlx_rng_sin_turn(t), c = dlx_rng_cos_turn(t);
  double s1 = select(flip, c, s), c1 = select(flip, s, c);
  /* q quarter turns of (c1, s1): (c1, s1), (-s1, c1), (-c1, -s1), (s1, -c1) */
  double cos_q = negate_if(select(odd, s1, c1), ((q ^ q >> 1) & 1) << 63);
  double sin_q = negate_if(select(odd, c1, s1), (q >> 1) << 63);
  z[0] = a + b * (radius * cos_q);
  z[1] = a + b * (radius * sin_q);
}

ALWAYS_INLINE void normal_pairs_loop(const uint32_t *restrict words, int64_t pairs, double a,
                                     double b, double *restrict z) {
  for (int64_t p = 0; p < pairs; p++)
    normal_pair(words[2 * p], words[2 * p + 1], 32, a, b, z + 2 * p);
}

/* The wide pairs: a block's words 0 and 1 (k1) and 2 and 3 (k2), the first word high, 53 bits. */
ALWAYS_INLINE void normal_pairs_wide_loop(const uint32_t *restrict words, int64_t pairs, double a,
                                          double b, double *restrict z) {
  for (int64_t p = 0; p < pairs; p++) {
    const uint32_t *w = words + 4 * p;
    uint64_t k1 = ((uint64_t)w[0] << 32 | w[1]) >> 11, k2 = ((uint64_t)w[2] << 32 | w[3]) >> 11;
    normal_pair(k1, k2, 53, a, b, z + 2 * p);
  }
}

/* The wide exponentials: element i from words 2i (high) and 2i + 1, v = (2k + 1) 2^-53 with k
 * their top 52 bits (dlx_rng_open_unit), e = -ln v. */
ALWAYS_INLINE void exponentials_wide_loop(const uint32_t *restrict words, int64_t count,
                                          double *restrict e) {
  for (int64_t i = 0; i < count; i++) {
    uint64_t k = ((uint64_t)words[2 * i] << 32 | words[2 * i + 1]) >> 12;
    e[i] = -log_lane(exact_double53(2 * k + 1) * 0x1p-53);
  }
}

ALWAYS_INLINE void philox_loop(uint64_t seed, uint64_t counter, int64_t count,
                               dlx_philox_block *restrict out) {
  for (int64_t k = 0; k < count; k++) out[k] = dlx_philox_at(seed, counter + (uint64_t)k);
}

/* The loops built for one ISA (TARGET: a target attribute, or nothing for the baseline). */
#define DEFINE_BATCHES(isa, TARGET)                                                                \
  TARGET static void normal_pairs_##isa(const uint32_t *words, int64_t pairs, double a, double b,  \
                                        double *z) {                                               \
    normal_pairs_loop(words, pairs, a, b, z);                                                      \
  }                                                                                                \
  TARGET static void normal_pairs_wide_##isa(const uint32_t *words, int64_t pairs, double a,       \
                                             double b, double *z) {                                \
    normal_pairs_wide_loop(words, pairs, a, b, z);                                                 \
  }                                                                                                \
  TARGET static void exponentials_wide_##isa(const uint32_t *words, int64_t count, double *e) {    \
    exponentials_wide_loop(words, count, e);                                                       \
  }

DEFINE_BATCHES(portable, )

static void philox_portable(uint64_t seed, uint64_t counter, int64_t count, dlx_philox_block *out) {
  philox_loop(seed, counter, count, out);
}
static const dlx_cpu_random_batch portable = {"portable", normal_pairs_portable,
                                              normal_pairs_wide_portable,
                                              exponentials_wide_portable, philox_portable};

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>

#if defined(__clang__)
#define TARGET_AVX512 __attribute__((target("avx512f,avx512dq")))
#else
#define TARGET_AVX512 __attribute__((target("avx512f,avx512dq,prefer-vector-width=512")))
#endif
#define TARGET_AVX2 __attribute__((target("avx2")))
DEFINE_BATCHES(avx512, TARGET_AVX512)
DEFINE_BATCHES(avx2, TARGET_AVX2)

/* Philox on vectors of 64-bit lanes, one block per lane, each word in the low half of its lane:
 * mul_epu32 multiplies the low halves into the full 64-bit product (its high half is the round's
 * mulhi, its low half the mullo) and ignores the high halves that the xors leave. */
#define PHILOX_ROUNDS(V, c0, c1, c2, c3, seed)                                                     \
  do {                                                                                             \
    uint32_t k0 = (uint32_t)(seed), k1 = (uint32_t)((seed) >> 32);                                 \
    for (int round = 0; round < 10; round++) {                                                     \
      V##_si p0 = V##_mul_epu32(c0, V##_set1_epi64x(0xD2511F53)),                                  \
             p1 = V##_mul_epu32(c2, V##_set1_epi64x(0xCD9E8D57));                                  \
      c0 = V##_xor_si(V##_xor_si(V##_srli_epi64(p1, 32), c1), V##_set1_epi64x(k0));                \
      c2 = V##_xor_si(V##_xor_si(V##_srli_epi64(p0, 32), c3), V##_set1_epi64x(k1));                \
      c1 = p1;                                                                                     \
      c3 = p0;                                                                                     \
      k0 += 0x9E3779B9u;                                                                           \
      k1 += 0xBB67AE85u;                                                                           \
    }                                                                                              \
  } while (0)

/* The AVX-512 and AVX2 names PHILOX_ROUNDS uses. */
#define mm512_si __m512i
#define mm512_mul_epu32 _mm512_mul_epu32
#define mm512_set1_epi64x _mm512_set1_epi64
#define mm512_xor_si _mm512_xor_si512
#define mm512_srli_epi64 _mm512_srli_epi64
#define mm256_si __m256i
#define mm256_mul_epu32 _mm256_mul_epu32
#define mm256_set1_epi64x _mm256_set1_epi64x
#define mm256_xor_si _mm256_xor_si256
#define mm256_srli_epi64 _mm256_srli_epi64

/* Eight blocks at a time; each lane's words 0 and 1 (and 2 and 3) joined into one 64-bit lane,
 * then interleaved into the blocks' memory order. */
TARGET_AVX512 static void philox_avx512(uint64_t seed, uint64_t counter, int64_t count,
                                        dlx_philox_block *out) {
  const __m512i low = _mm512_set1_epi64(0xffffffff),
                lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i first4 = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
  const __m512i last4 = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  int64_t k = 0;
  for (; k + 8 <= count; k += 8) {
    __m512i c0 = _mm512_add_epi64(_mm512_set1_epi64((long long)(counter + (uint64_t)k)), lane);
    __m512i c1 = _mm512_srli_epi64(c0, 32), c2 = _mm512_setzero_si512(), c3 = c2;
    PHILOX_ROUNDS(mm512, c0, c1, c2, c3, seed);
    __m512i w01 = _mm512_or_si512(_mm512_and_si512(c0, low), _mm512_slli_epi64(c1, 32));
    __m512i w23 = _mm512_or_si512(_mm512_and_si512(c2, low), _mm512_slli_epi64(c3, 32));
    _mm512_storeu_si512((void *)(out + k), _mm512_permutex2var_epi64(w01, first4, w23));
    _mm512_storeu_si512((void *)(out + k + 4), _mm512_permutex2var_epi64(w01, last4, w23));
  }
  philox_loop(seed, counter + (uint64_t)k, count - k, out + k);
}

/* Four blocks at a time, as philox_avx512. */
TARGET_AVX2 static void philox_avx2(uint64_t seed, uint64_t counter, int64_t count,
                                    dlx_philox_block *out) {
  const __m256i low = _mm256_set1_epi64x(0xffffffff), lane = _mm256_set_epi64x(3, 2, 1, 0);
  int64_t k = 0;
  for (; k + 4 <= count; k += 4) {
    __m256i c0 = _mm256_add_epi64(_mm256_set1_epi64x((long long)(counter + (uint64_t)k)), lane);
    __m256i c1 = _mm256_srli_epi64(c0, 32), c2 = _mm256_setzero_si256(), c3 = c2;
    PHILOX_ROUNDS(mm256, c0, c1, c2, c3, seed);
    __m256i w01 = _mm256_or_si256(_mm256_and_si256(c0, low), _mm256_slli_epi64(c1, 32));
    __m256i w23 = _mm256_or_si256(_mm256_and_si256(c2, low), _mm256_slli_epi64(c3, 32));
    /* in each 128-bit half: blocks 0 and 2, then blocks 1 and 3 */
    __m256i even = _mm256_unpacklo_epi64(w01, w23), odd = _mm256_unpackhi_epi64(w01, w23);
    _mm256_storeu_si256((__m256i *)(void *)(out + k), _mm256_permute2x128_si256(even, odd, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(out + k + 2),
                        _mm256_permute2x128_si256(even, odd, 0x31));
  }
  philox_loop(seed, counter + (uint64_t)k, count - k, out + k);
}
static const dlx_cpu_random_batch avx512 = {"avx512", normal_pairs_avx512, normal_pairs_wide_avx512,
                                            exponentials_wide_avx512, philox_avx512};
static const dlx_cpu_random_batch avx2 = {"avx2", normal_pairs_avx2, normal_pairs_wide_avx2,
                                          exponentials_wide_avx2, philox_avx2};

const dlx_cpu_random_batch *dlx_cpu_random_batch_for(const char *isa) {
  if (strcmp(isa, "avx512") == 0)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") ? &avx512 : NULL;
  if (strcmp(isa, "avx2") == 0) return __builtin_cpu_supports("avx2") ? &avx2 : NULL;
  return strcmp(isa, "portable") == 0 ? &portable : NULL;
}

const dlx_cpu_random_batch *dlx_cpu_random_batch_best(void) {
  const dlx_cpu_random_batch *best = dlx_cpu_random_batch_for("avx512");
  if (best == NULL) best = dlx_cpu_random_batch_for("avx2");
  return best != NULL ? best : &portable;
}
#else
const dlx_cpu_random_batch *dlx_cpu_random_batch_for(const char *isa) {
  return strcmp(isa, "portable") == 0 ? &portable : NULL;
}

const dlx_cpu_random_batch *dlx_cpu_random_batch_best(void) { return &portable; }
#endif
