/* test_random.c -- the random numbers' building blocks: Philox4x32-10 against Random123's
 * known-answer vectors, the conversions of src/common/philox.h (log, sin and cos written out,
 * uniform grids, 64-bit multiply-high) and distributions.h (e^x, ln Gamma, open uniforms, the
 * geometric ceiling), the CPU's fill_random against the per-element definition on 1 and several
 * threads, its vectorized exponentials, the generator's counter and randperm. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/distributions.h"
#include "common/half.h"
#include "common/philox.h"
#include "core/core.h"
#include "core/ops.h"
#include "core/random.h"
#include "cpu/parallel.h"
#include "cpu/random_batch.h"

/* Random123's kat_vectors for philox4x32_10 (counter, key, expected). */
static void known_answers(void) {
  static const uint32_t kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
       0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
       0x94fdcceb, 0x5001e420, 0x24126ea1},
  };
  for (int v = 0; v < 3; v++) {
    const uint32_t *k = kat[v];
    dlx_philox_block b = dlx_philox4x32_10(k[0], k[1], k[2], k[3], k[4], k[5]);
    for (int w = 0; w < 4; w++) CHECK_EQ_INT(b.w[w], k[6 + w]);
  }
  /* the generator's layout: counter {lo, hi, 0, 0}, key {lo, hi} */
  dlx_philox_block a = dlx_philox_at(UINT64_C(0x299f31d0a4093822), UINT64_C(0x85a308d3243f6a88));
  dlx_philox_block b = dlx_philox4x32_10(0x243f6a88, 0x85a308d3, 0, 0, 0xa4093822, 0x299f31d0);
  CHECK(memcmp(&a, &b, sizeof a) == 0);
}

static void conversions(void) {
  dlx_philox_block b = {{0xffffffffu, 0, 0x80000000u, 0x00000100u}};
  /* uniforms: the top bits of a word, a multiple of 2^-bits below 1 */
  CHECK(dlx_rng_unit(b, 0, 24) == 1.0 - 0x1p-24);
  CHECK(dlx_rng_unit(b, 1, 24) == 0.0);
  CHECK(dlx_rng_unit(b, 2, 24) == 0.5);
  CHECK(dlx_rng_unit(b, 3, 24) == 0x1p-24);
  CHECK(dlx_rng_unit(b, 0, 11) == 1.0 - 0x1p-11);
  CHECK(dlx_rng_unit(b, 0, 8) == 1.0 - 0x1p-8);
  CHECK(dlx_rng_unit(b, 0, 53) == (double)(UINT64_C(0xffffffff00000000) >> 11) * 0x1p-53);
  CHECK(dlx_rng_unit(b, 1, 53) == (double)(UINT64_C(0x8000000000000100) >> 11) * 0x1p-53);
  CHECK(dlx_rng_pow2_neg(53) == 0x1p-53 && dlx_rng_pow2_neg(0) == 1.0);
  /* log and sin/cos against the C library, across their ranges */
  double worst_log = 0, worst_trig = 0;
  for (int i = 1; i <= 200000; i++) {
    double x = (double)i / 200000.0 * pow(2.0, -(i % 60));
    double err = fabs(dlx_rng_log(x) - log(x)) / fabs(log(x) != 0 ? log(x) : 1.0);
    if (err > worst_log) worst_log = err;
  }
  CHECK(dlx_rng_log(1.0) == 0.0);
  CHECK(worst_log < 4e-16);
  for (uint64_t k = 0; k < (UINT64_C(1) << 32); k += 4099 * 4099) {
    double t = 2 * 3.14159265358979323846 * (double)k * 0x1p-32;
    double e1 = fabs(dlx_rng_sincos_turn(k, 32, 0) - cos(t));
    double e2 = fabs(dlx_rng_sincos_turn(k, 32, 1) - sin(t));
    if (e1 > worst_trig) worst_trig = e1;
    if (e2 > worst_trig) worst_trig = e2;
  }
  CHECK(worst_trig < 1e-15);
  CHECK(dlx_rng_sincos_turn(0, 32, 0) == 1.0 && dlx_rng_sincos_turn(0, 32, 1) == 0.0);
  CHECK(dlx_rng_sincos_turn(UINT64_C(1) << 31, 32, 0) == -1.0);
  /* multiply-high and integer ranges */
  uint64_t xs[] = {0, 1, UINT64_MAX, UINT64_C(0x123456789abcdef0), UINT64_C(1) << 63};
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++)
      CHECK(dlx_rng_mulhi64(xs[i], xs[j]) == (uint64_t)((unsigned __int128)xs[i] * xs[j] >> 64));
  CHECK(dlx_rng_int(b, 0, -5, 10) == 4); /* (2^32 - 1) * 10 >> 32 = 9 */
  CHECK(dlx_rng_int(b, 1, -5, 10) == -5);
  CHECK(dlx_rng_int_wide(UINT64_C(1) << 32) == 0 && dlx_rng_int_wide((UINT64_C(1) << 32) + 1));
}

/* A contiguous tensor of n elements filled from (seed 7, offset 3). */
static dlx_tensor filled(dlx_dtype dtype, int64_t n, dlx_random_request r) {
  dlx_tensor t;
  dlx_generator g = {7, 3};
  dlx_error err;
  CHECK_EQ_INT(dlx_tensor_empty(&t, &n, 1, dtype, (DLDevice){kDLCPU, 0}, &err), 0);
  CHECK_EQ_INT(dlx_random_fill(&g, &t, &r, "test", &err), 0);
  return t;
}

/* The value element i must have, as its dtype's bytes. */
static void expected(dlx_dtype dtype, const dlx_random_request *r, int64_t i, void *out) {
  int wide = r->kind == DLX_RANDOM_INT ? dlx_rng_int_wide(r->range) : dtype == DLX_FLOAT64;
  int lanes = dlx_rng_lanes(wide), lane = (int)(i % lanes);
  dlx_philox_block b = dlx_philox_at(7, 3 + (uint64_t)(i / lanes));
  if (r->kind == DLX_RANDOM_INT) {
    int64_t v = dlx_rng_int(b, lane, r->low, r->range);
    memcpy(out, &v, (size_t)dlx_itemsize(dtype)); /* little-endian: the low bytes */
    return;
  }
  double v = dlx_rng_real((int)r->kind, b, lane, dlx_random_float_bits(dtype), r->a, r->b);
  float f = (float)v;
  uint16_t h = dtype == DLX_FLOAT16 ? dlx_double_to_half(v) : dlx_double_to_bf16(v);
  memcpy(out,
         dtype == DLX_FLOAT64   ? (void *)&v
         : dtype == DLX_FLOAT32 ? (void *)&f
                                : (void *)&h,
         (size_t)dlx_itemsize(dtype));
}

/* fill_random gives each element its definition, whatever the thread count. */
static void cpu_fill(void) {
  const dlx_random_request requests[] = {
      {.kind = DLX_RANDOM_UNIFORM, .a = 0, .b = 1},
      {.kind = DLX_RANDOM_UNIFORM, .a = -2.5, .b = 7},
      {.kind = DLX_RANDOM_NORMAL, .a = 1, .b = 3},
      {.kind = DLX_RANDOM_INT, .low = -100, .range = 1000},
      {.kind = DLX_RANDOM_INT, .low = 5, .range = UINT64_C(1) << 40},
  };
  const dlx_dtype floats[] = {DLX_FLOAT32, DLX_FLOAT64, DLX_FLOAT16, DLX_BFLOAT16};
  const dlx_dtype ints[] = {DLX_INT16, DLX_INT32, DLX_INT64};
  const int64_t n = 1000003; /* several blocks per thread, and a partial last block */
  int threads = dlx_cpu_num_threads();
  for (size_t q = 0; q < sizeof requests / sizeof requests[0]; q++) {
    dlx_random_request r = requests[q];
    bool is_int = r.kind == DLX_RANDOM_INT;
    for (int d = 0; d < (is_int ? 3 : 4); d++) {
      dlx_dtype dtype = is_int ? ints[d] : floats[d];
      size_t size = (size_t)dlx_itemsize(dtype);
      if (is_int && r.range > 60000 && dtype != DLX_INT64) continue;
      dlx_cpu_set_num_threads(1);
      dlx_tensor one = filled(dtype, n, r);
      dlx_cpu_set_num_threads(4);
      dlx_tensor four = filled(dtype, n, r);
      CHECK(memcmp(one.buffer->data, four.buffer->data, (size_t)n * size) == 0);
      int bad = 0;
      for (int64_t i = 0; i < n; i += (i < 100 ? 1 : 997)) {
        char want[8];
        expected(dtype, &r, i, want);
        bad += memcmp(want, (char *)one.buffer->data + (size_t)i * size, size) != 0;
      }
      CHECK_EQ_INT(bad, 0);
      {
        char want[8];
        expected(dtype, &r, n - 1, want);
        CHECK(memcmp(want, (char *)one.buffer->data + (size_t)(n - 1) * size, size) == 0);
      }
      dlx_tensor_close(&one);
      dlx_tensor_close(&four);
    }
  }
  dlx_cpu_set_num_threads(threads);
}

/* The counter moves by the blocks used; a strided view gets the row-major order's values. */
static void generator_and_views(void) {
  dlx_generator g;
  dlx_error err;
  dlx_random_request r = {.kind = DLX_RANDOM_UNIFORM, .a = 0, .b = 1};
  int64_t shape[2] = {3, 5}, n = 15;
  dlx_tensor t, tt, flat;
  dlx_generator_seed(&g, 42);
  CHECK(dlx_tensor_empty(&t, shape, 2, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, &err) == 0);
  CHECK(dlx_random_fill(&g, &t, &r, "test", &err) == 0);
  CHECK_EQ_INT(g.offset, 8); /* 15 float64 elements, 2 a block */
  r.kind = DLX_RANDOM_UNIFORM;
  CHECK(dlx_random_fill(&g, &t, &r, "test", &err) == 0);
  CHECK_EQ_INT(g.offset, 16);
  /* the transpose of a fresh (5, 3) tensor, filled, against a contiguous fill from the same
   * state */
  CHECK(dlx_tensor_empty(&flat, &n, 1, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, &err) == 0);
  CHECK(dlx_transpose(&tt, &t, 0, 1, &err) == 0);
  dlx_generator_seed(&g, 42);
  CHECK(dlx_random_fill(&g, &tt, &r, "test", &err) == 0);
  dlx_generator_seed(&g, 42);
  CHECK(dlx_random_fill(&g, &flat, &r, "test", &err) == 0);
  int bad = 0;
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 3; j++)
      bad += ((double *)t.buffer->data)[j * 5 + i] != ((double *)flat.buffer->data)[i * 3 + j];
  CHECK_EQ_INT(bad, 0);
  /* errors */
  r.a = 2;
  r.b = 1;
  CHECK_EQ_INT(dlx_random_fill(&g, &t, &r, "uniform_", &err), DLX_VALUE_ERROR);
  /* integers into a float dtype (random_): exactly, and only where every one is exact */
  r.kind = DLX_RANDOM_INT;
  r.low = -3;
  r.range = 10;
  CHECK_EQ_INT(dlx_random_fill(&g, &t, &r, "random_", &err), 0);
  bad = 0;
  for (int i = 0; i < 15; i++) {
    double v = ((double *)t.buffer->data)[i];
    bad += v != (double)(int64_t)v || v < -3 || v > 6;
  }
  CHECK_EQ_INT(bad, 0);
  r.low = 0;
  r.range = (UINT64_C(1) << 53) + 2; /* 2^53 + 1 is not a float64 */
  CHECK_EQ_INT(dlx_random_fill(&g, &t, &r, "random_", &err), DLX_VALUE_ERROR);
  r.range = (UINT64_C(1) << 53) + 1;
  CHECK_EQ_INT(dlx_random_fill(&g, &t, &r, "random_", &err), 0);
  r.kind = DLX_RANDOM_EXPONENTIAL;
  r.a = 0; /* lambda must be > 0 */
  CHECK_EQ_INT(dlx_random_fill(&g, &t, &r, "exponential_", &err), DLX_VALUE_ERROR);
  dlx_tensor_close(&t);
  dlx_tensor_close(&tt);
  dlx_tensor_close(&flat);
}

static void randperm(void) {
  enum { N = 100001 };
  static int64_t perm[N];
  static char seen[N + 1];
  CHECK_EQ_INT(dlx_randperm_host(perm, N, 1, 0), (N + 1) / 2);
  int bad = 0, fixed = 0;
  for (int i = 0; i < N; i++) {
    bad += perm[i] < 1 || perm[i] > N || seen[perm[i]];
    if (perm[i] >= 1 && perm[i] <= N) seen[perm[i]] = 1;
    fixed += perm[i] == i + 1;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(fixed < 10); /* a random permutation has about one fixed point */
  int64_t one[1];
  CHECK_EQ_INT(dlx_randperm_host(one, 1, 1, 0), 1);
  CHECK_EQ_INT(one[0], 1);
  CHECK_EQ_INT(dlx_randperm_host(one, 0, 1, 0), 0);
}

/* The ISAs whose batches random_batch.c may build. */
static const char *const isas[] = {"portable", "avx2", "avx512"};

/* The CPU's batched Philox (random_batch.c, vectorized) is dlx_philox_at block for block, on
 * every ISA this CPU runs, across a counter whose low word wraps. */
static void philox_blocks(void) {
  enum { COUNT = 1003 }; /* and a tail shorter than a vector */
  static dlx_philox_block got[COUNT];
  const uint64_t seed = UINT64_C(0x0123456789abcdef), first = UINT64_C(0xffffffff) - 500;
  for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
    const dlx_cpu_random_batch *batch = dlx_cpu_random_batch_for(isas[i]);
    int bad = 0;
    if (batch == NULL) continue;
    batch->philox_blocks(seed, first, COUNT, got);
    for (int k = 0; k < COUNT; k++) {
      dlx_philox_block want = dlx_philox_at(seed, first + (uint64_t)k);
      bad += memcmp(&want, &got[k], sizeof want) != 0;
    }
    CHECK_EQ_INT(bad, 0);
  }
  CHECK(dlx_cpu_random_batch_for("portable") != NULL);
  CHECK(dlx_cpu_random_batch_for("sse9") == NULL);
}

/* Words per pair of normals: 2, or 4 when wide (float64). */
static int words_per_pair(int wide) { return wide ? 4 : 2; }

/* The pair of normals from the words of pair p by the per-element definition, as bits. */
static void normal_definition(const uint32_t *words, int wide, double a, double b,
                              uint64_t out[2]) {
  dlx_philox_block blk = {{words[0], words[1], wide ? words[2] : 0, wide ? words[3] : 0}};
  for (int lane = 0; lane < 2; lane++) {
    double v = dlx_rng_real(DLX_RNG_NORMAL, blk, lane, wide ? 53 : 24, a, b);
    memcpy(&out[lane], &v, sizeof v);
  }
}

/* Counts the pairs whose batched normals differ from the definition in any bit, on every ISA
 * this CPU runs. */
static int normal_pairs_mismatches(const uint32_t *words, int64_t pairs, int wide, double a,
                                   double b) {
  double *z = malloc((size_t)pairs * 2 * sizeof *z);
  int bad = 0;
  CHECK(z != NULL);
  if (z == NULL) return 1;
  for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
    const dlx_cpu_random_batch *batch = dlx_cpu_random_batch_for(isas[i]);
    if (batch == NULL) continue;
    (wide ? batch->normal_pairs_wide : batch->normal_pairs)(words, pairs, a, b, z);
    for (int64_t p = 0; p < pairs; p++) {
      uint64_t want[2];
      normal_definition(words + words_per_pair(wide) * p, wide, a, b, want);
      bad += memcmp(want, z + 2 * p, sizeof want) != 0;
    }
  }
  free(z);
  return bad;
}

/* The words of a pair whose uniforms' integers are k1 and k2 (w bits each: 32, or 53 when
 * wide, then below them 11 bits that the conversion drops). */
static void pair_words(uint64_t k1, uint64_t k2, int wide, uint32_t *words) {
  if (!wide) {
    words[0] = (uint32_t)k1;
    words[1] = (uint32_t)k2;
    return;
  }
  uint64_t x1 = k1 << 11 | 0x5a5, x2 = k2 << 11 | 0x2d3;
  words[0] = (uint32_t)(x1 >> 32);
  words[1] = (uint32_t)x1;
  words[2] = (uint32_t)(x2 >> 32);
  words[3] = (uint32_t)x2;
}

/* The pairs of k1s x k2s's words where the batched conversion's selects and exact conversions
 * turn: u1 = 1, the smallest u1, u1 around 1/2 and 1/sqrt(2) where the log's exponent and
 * halving change (and, wide, around 2^52 where the conversion splits), every quarter turn and
 * the 1/8 turn where sin and cos swap. */
static int normal_edge_mismatches(int wide, double a, double b) {
  const int w = wide ? 53 : 32;
  const uint64_t top = UINT64_C(1) << w, half = top >> 1,
                 rsqrt2 = wide ? UINT64_C(0x16a09e667f3bcc) : UINT64_C(0xb504f333);
  const uint64_t k1s[] = {0,          1,       2,       half - 1, half,    half + 1,    rsqrt2,
                          rsqrt2 + 1, top / 4, top - 3, top - 2,  top - 1, top >> 2 | 1};
  const uint64_t quarter = top >> 2,
                 in_quarter[] = {0, 1, quarter / 2 - 1, quarter / 2, quarter / 2 + 1, quarter - 1};
  enum { N1 = sizeof k1s / sizeof k1s[0], N2 = 4 * 6 };
  uint32_t words[N1 * N2 * 4];
  int pairs = 0;
  for (int i = 0; i < N1; i++)
    for (uint64_t q = 0; q < 4; q++)
      for (int j = 0; j < 6; j++)
        pair_words(k1s[i], q * quarter | in_quarter[j], wide,
                   words + words_per_pair(wide) * pairs++);
  return normal_pairs_mismatches(words, pairs, wide, a, b);
}

/* The CPU's batched Box-Muller (random_batch.c, vectorized) is the definition bit for bit, on the
 * edge words and on a few million random words, narrow and wide. */
static void normal_pairs(void) {
  enum { RANDOM_BLOCKS = 1 << 20 };
  uint32_t *words = malloc((size_t)RANDOM_BLOCKS * 4 * sizeof *words);
  for (int wide = 0; wide <= 1; wide++) {
    CHECK_EQ_INT(normal_edge_mismatches(wide, 0, 1), 0);
    CHECK_EQ_INT(normal_edge_mismatches(wide, -0.0, 1), 0);
    CHECK_EQ_INT(normal_edge_mismatches(wide, 1, 3), 0);
  }
  CHECK(words != NULL);
  if (words == NULL) return;
  for (int blk = 0; blk < RANDOM_BLOCKS; blk++) {
    dlx_philox_block b = dlx_philox_at(11, (uint64_t)blk);
    memcpy(words + 4 * blk, b.w, sizeof b.w);
  }
  CHECK_EQ_INT(normal_pairs_mismatches(words, 2 * RANDOM_BLOCKS, 0, 0, 1), 0);
  CHECK_EQ_INT(normal_pairs_mismatches(words, RANDOM_BLOCKS, 1, 0, 1), 0);
  CHECK_EQ_INT(normal_pairs_mismatches(words, 4099, 0, -2.5, 0.75), 0); /* an odd count */
  CHECK_EQ_INT(normal_pairs_mismatches(words, 4099, 1, -2.5, 0.75), 0);
  free(words);
  printf("random batches: the best ISA here is %s\n", dlx_cpu_random_batch_best()->isa);
}

/* e^x, ln Gamma and the open uniforms of distributions.h against the C library and their
 * definitions. */
static void distribution_blocks(void) {
  double worst = 0, worst_sub = 0;
  for (int i = 0; i <= 400000; i++) {
    double x = -745.0 + (709.7 + 745.0) * i / 400000.0, want = exp(x), got = dlx_rng_exp(x);
    if (want >= 0x1p-1022)
      worst = fmax(worst, fabs(got - want) / want);
    else
      worst_sub = fmax(worst_sub, fabs(got - want) / 0x1p-1074); /* in subnormal ulps */
  }
  CHECK(worst < 4e-16);
  CHECK(worst_sub <= 1.0);
  CHECK(dlx_rng_exp(0) == 1.0 && fabs(dlx_rng_exp(1) - exp(1)) <= 0x1p-51);
  CHECK(dlx_rng_exp(709.79) == HUGE_VAL && dlx_rng_exp(-746) == 0.0);
  CHECK(isnan(dlx_rng_exp(NAN)));
  CHECK(dlx_rng_exp(-745.1) > 0); /* the smallest subnormal */
  worst = 0;
  for (int x = 1; x <= 5000; x++) {
    double want = lgamma((double)x), got = dlx_rng_loggam((double)x);
    worst = fmax(worst, fabs(got - want) / fmax(1.0, fabs(want)));
  }
  CHECK(worst < 1e-14);
  {
    dlx_philox_block lo = {{0, 0, 0, 0}}, hi = {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0}};
    CHECK(dlx_rng_open_unit(lo, 0, 0) == 0x1p-33 && dlx_rng_open_unit(lo, 0, 1) == 0x1p-53);
    CHECK(dlx_rng_open_unit(hi, 0, 0) == 1 - 0x1p-33 && dlx_rng_open_unit(hi, 0, 1) == 1 - 0x1p-53);
  }
  CHECK(dlx_rng_ceil_positive(0) == 1 && dlx_rng_ceil_positive(0.25) == 1);
  CHECK(dlx_rng_ceil_positive(2) == 2 && dlx_rng_ceil_positive(2.0000001) == 3);
  CHECK(dlx_rng_ceil_positive(0x1p60) == 0x1p60 && dlx_rng_ceil_positive(HUGE_VAL) == HUGE_VAL);
}

/* The CPU's vectorized exponentials (random_batch.c) are -ln of the open uniforms bit for bit, on
 * every ISA, for random words and the edges (all zeros, all ones, 1/2, 1/sqrt(2)). */
static void exponentials(void) {
  enum { COUNT = 100003 };
  static uint32_t words[2 * COUNT + 2]; /* whole blocks */
  static double got[COUNT];
  for (int i = 0; i < (COUNT + 1) / 2; i++) {
    dlx_philox_block b = dlx_philox_at(5, (uint64_t)i);
    memcpy(words + 4 * i, b.w, sizeof b.w);
  }
  for (int i = 0; i < 8; i++)
    words[2 * (COUNT - 1) - 2 * i] = words[2 * (COUNT - 1) - 2 * i + 1] = 0;
  words[0] = words[1] = 0xffffffffu;
  words[2] = 0x80000000u;
  words[3] = 0;
  words[4] = 0xb504f333u;
  words[5] = 0xf9de6484u;
  for (size_t v = 0; v < sizeof isas / sizeof isas[0]; v++) {
    const dlx_cpu_random_batch *batch = dlx_cpu_random_batch_for(isas[v]);
    int bad = 0;
    if (batch == NULL) continue;
    batch->exponentials_wide(words, COUNT, got);
    for (int i = 0; i < COUNT; i++) {
      dlx_philox_block b;
      double want;
      memcpy(b.w, words + 4 * (i / 2), sizeof b.w);
      want = -dlx_rng_log(dlx_rng_open_unit(b, i % 2, 1));
      bad += memcmp(&want, &got[i], sizeof want) != 0;
    }
    CHECK_EQ_INT(bad, 0);
  }
}

int main(void) {
  known_answers();
  distribution_blocks();
  exponentials();
  conversions();
  cpu_fill();
  philox_blocks();
  normal_pairs();
  generator_and_views();
  randperm();
  return check_report("test_random");
}
