/* reduce_extremes.c -- min, max, argmin, argmax.
 *
 * `better(v, best)` says v replaces best; for floats it is also true for a NaN v (every comparison
 * with NaN is false), which then ends the walk. Both keep the first position of the extreme, so min
 * and argmin (max and argmax) share a run function.
 *
 * Contiguous runs avoid the data-dependent branch per element: a piece of EXT_PIECE elements
 * goes through EXT_LANES lanes of branch-free compare-and-select (which vectorises) and NaN
 * flags. Of a chunk's pieces, only the first holding the chunk's extreme is searched again, from
 * L2, for the position (find_*), and only when it beats the best so far; a piece that may hold a
 * NaN sends the chunk back to the element loop. Long runs are cut into fixed chunks whose (value,
 * position) results, found in parallel, are folded in order with the same rule, so the result is
 * the serial one. */
#include <string.h>

#include "cpu/parallel.h"
#include "cpu/reduce_loops.h"

#define MIN_BETTER(v, best) (!((v) >= (best)))
#define MAX_BETTER(v, best) (!((v) <= (best)))
#define MIN_LANE(v, m) ((v) < (m))
#define MAX_LANE(v, m) ((v) > (m))
#define FLOAT_NAN(v) ((v) != (v))
#define INT_NAN(v) ((void)(v), 0)
/* z + v * 0 turns NaN for a NaN or an infinite v and stays so: a vectorisable flag for "this
 * piece may hold a NaN" (an infinity only costs a second look). Integers have no NaN. */
#define FLOAT_TRACK(z, v) ((z) + (v)*0)
#define INT_TRACK(z, v) (z)

#define EXT_LANES 16
#define EXT_PIECE 4096
#define EXT_CHUNK ((int64_t)1 << 16)
#define EXT_BATCH 1024

/* lanes_<op>_<name>(p, n, &top, &poison): the extreme of n >= EXT_LANES contiguous elements
 * (any of them when they are equal) and a poison that is NaN when one may be NaN. */
#define DEFINE_LANES(op, lane_better, track, name, T, C)                                           \
  static void lanes_##op##_##name(const char *p, int64_t n, C *top, C *poison) {                   \
    const ptrdiff_t size = (ptrdiff_t)sizeof(T);                                                   \
    C m[EXT_LANES], z[EXT_LANES], t, zz = 0;                                                       \
    int64_t i;                                                                                     \
    for (int j = 0; j < EXT_LANES; j++) {                                                          \
      m[j] = load_##name(p + j * size);                                                            \
      z[j] = 0;                                                                                    \
    }                                                                                              \
    for (i = 0; i + EXT_LANES <= n; i += EXT_LANES) {                                              \
      for (int j = 0; j < EXT_LANES; j++) {                                                        \
        C v = load_##name(p + (i + j) * size);                                                     \
        m[j] = lane_better(v, m[j]) ? v : m[j];                                                    \
        z[j] = track(z[j], v);                                                                     \
      }                                                                                            \
    }                                                                                              \
    for (; i < n; i++) {                                                                           \
      C v = load_##name(p + i * size);                                                             \
      m[0] = lane_better(v, m[0]) ? v : m[0];                                                      \
      z[0] = track(z[0], v);                                                                       \
    }                                                                                              \
    t = m[0];                                                                                      \
    for (int j = 0; j < EXT_LANES; j++) {                                                          \
      zz = track(zz, z[j]);                                                                        \
      t = lane_better(m[j], t) ? m[j] : t;                                                         \
    }                                                                                              \
    *top = t;                                                                                      \
    *poison = zz;                                                                                  \
  }

#if defined(__SSE2__)
#include <emmintrin.h>
/* The elements past a vector loop, one at a time, into the extreme t and the NaN flag zz. */
#define SIMD_TAIL(T, lane_better)                                                                  \
  for (; i < n; i++) {                                                                             \
    T v;                                                                                           \
    memcpy(&v, p + i * (ptrdiff_t)sizeof(T), sizeof v);                                            \
    t = lane_better(v, t) ? v : t;                                                                 \
    zz += v * 0;                                                                                   \
  }

/* gcc does not vectorise the compare-and-select above for floats; SSE2's max/min have exactly
 * its semantics (max(a, b) = a > b ? a : b), four accumulators deep. `track(z, v, zero)` is the
 * NaN flag, z + v * 0: one fused multiply-add where the CPU has FMA. Every instruction in this
 * loop costs read bandwidth on one core (see SIMD_CLONES), so the flag is one FMA rather than a
 * separate multiply and add (measured in bench/RESULTS.md). */
#define DEFINE_SIMD_LANES(fn, attr, lane_better, T, V, W, setzero, loadu, opv, track, add, store)  \
  attr static void fn(const char *p, int64_t n, T *top, T *poison) {                               \
    enum { STEP = 4 * W };                                                                         \
    V m0 = loadu((const T *)(const void *)p), m1 = m0, m2 = m0, m3 = m0;                           \
    V z0 = setzero(), z1 = z0, z2 = z0, z3 = z0, zero = z0;                                        \
    T lanes[W], zl[W], t, zz = 0;                                                                  \
    int64_t i = 0;                                                                                 \
    for (; i + STEP <= n; i += STEP) {                                                             \
      const T *q = (const T *)(const void *)(p + i * (ptrdiff_t)sizeof(T));                        \
      V v0 = loadu(q), v1 = loadu(q + W), v2 = loadu(q + 2 * W), v3 = loadu(q + 3 * W);            \
      m0 = opv(v0, m0);                                                                            \
      m1 = opv(v1, m1);                                                                            \
      m2 = opv(v2, m2);                                                                            \
      m3 = opv(v3, m3);                                                                            \
      z0 = track(z0, v0, zero);                                                                    \
      z1 = track(z1, v1, zero);                                                                    \
      z2 = track(z2, v2, zero);                                                                    \
      z3 = track(z3, v3, zero);                                                                    \
    }                                                                                              \
    store(lanes, opv(opv(m0, m1), opv(m2, m3)));                                                   \
    store(zl, add(add(z0, z1), add(z2, z3)));                                                      \
    t = lanes[0];                                                                                  \
    for (int j = 0; j < W; j++) t = lane_better(lanes[j], t) ? lanes[j] : t;                       \
    for (int j = 0; j < W; j++) zz += zl[j];                                                       \
    SIMD_TAIL(T, lane_better)                                                                      \
    *top = t;                                                                                      \
    *poison = zz;                                                                                  \
  }
#define SSE_TRACK_PS(z, v, zero) _mm_add_ps(z, _mm_mul_ps(v, zero))
#define SSE_TRACK_PD(z, v, zero) _mm_add_pd(z, _mm_mul_pd(v, zero))
DEFINE_SIMD_LANES(sse_min_float32, , MIN_LANE, float, __m128, 4, _mm_setzero_ps, _mm_loadu_ps,
                  _mm_min_ps, SSE_TRACK_PS, _mm_add_ps, _mm_storeu_ps)
DEFINE_SIMD_LANES(sse_max_float32, , MAX_LANE, float, __m128, 4, _mm_setzero_ps, _mm_loadu_ps,
                  _mm_max_ps, SSE_TRACK_PS, _mm_add_ps, _mm_storeu_ps)
DEFINE_SIMD_LANES(sse_min_float64, , MIN_LANE, double, __m128d, 2, _mm_setzero_pd, _mm_loadu_pd,
                  _mm_min_pd, SSE_TRACK_PD, _mm_add_pd, _mm_storeu_pd)
DEFINE_SIMD_LANES(sse_max_float64, , MAX_LANE, double, __m128d, 2, _mm_setzero_pd, _mm_loadu_pd,
                  _mm_max_pd, SSE_TRACK_PD, _mm_add_pd, _mm_storeu_pd)

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* The same with AVX2 and FMA, and with AVX-512, where the CPU has them (chosen at run time: the
 * build targets plain x86-64). Wider vectors mean fewer instructions per byte, and so a faster
 * read on one core (bench/RESULTS.md). AVX-512 lanes load 16 floats at once, which EXT_LANES (the
 * shortest run they get) allows. */
#define AVX2 __attribute__((target("avx2,fma")))
#define AVX512 __attribute__((target("avx512f")))
#define AVX2_TRACK_PS(z, v, zero) _mm256_fmadd_ps(v, zero, z)
#define AVX2_TRACK_PD(z, v, zero) _mm256_fmadd_pd(v, zero, z)
DEFINE_SIMD_LANES(avx2_min_float32, AVX2, MIN_LANE, float, __m256, 8, _mm256_setzero_ps,
                  _mm256_loadu_ps, _mm256_min_ps, AVX2_TRACK_PS, _mm256_add_ps, _mm256_storeu_ps)
DEFINE_SIMD_LANES(avx2_max_float32, AVX2, MAX_LANE, float, __m256, 8, _mm256_setzero_ps,
                  _mm256_loadu_ps, _mm256_max_ps, AVX2_TRACK_PS, _mm256_add_ps, _mm256_storeu_ps)
DEFINE_SIMD_LANES(avx2_min_float64, AVX2, MIN_LANE, double, __m256d, 4, _mm256_setzero_pd,
                  _mm256_loadu_pd, _mm256_min_pd, AVX2_TRACK_PD, _mm256_add_pd, _mm256_storeu_pd)
DEFINE_SIMD_LANES(avx2_max_float64, AVX2, MAX_LANE, double, __m256d, 4, _mm256_setzero_pd,
                  _mm256_loadu_pd, _mm256_max_pd, AVX2_TRACK_PD, _mm256_add_pd, _mm256_storeu_pd)
/* AVX-512 lanes as NumPy's: a max (min) that keeps NaN in two instructions, so no separate
 * flag is needed, and eight loads per step combined in a tree, into one accumulator: fewer
 * instructions per byte than the FMA-flagged loop above (bench/RESULTS.md). */
#define STICKY(op, cmp, a, b) op(a, cmp(a, a, _CMP_ORD_Q), a, b) /* a if NaN, else op(a, b) */
#define DEFINE_AVX512_LANES(fn, lane_better, T, V, W, loadu, op, cmp, store)                       \
  AVX512 static void fn(const char *p, int64_t n, T *top, T *poison) {                             \
    enum { STEP = 8 * W };                                                                         \
    V acc = loadu((const T *)(const void *)p);                                                     \
    T lanes[W], t, zz = 0;                                                                         \
    int64_t i = 0;                                                                                 \
    for (; i + STEP <= n; i += STEP) {                                                             \
      const T *q = (const T *)(const void *)(p + i * (ptrdiff_t)sizeof(T));                        \
      V r01 = STICKY(op, cmp, loadu(q), loadu(q + W));                                             \
      V r23 = STICKY(op, cmp, loadu(q + 2 * W), loadu(q + 3 * W));                                 \
      V r45 = STICKY(op, cmp, loadu(q + 4 * W), loadu(q + 5 * W));                                 \
      V r67 = STICKY(op, cmp, loadu(q + 6 * W), loadu(q + 7 * W));                                 \
      V r = STICKY(op, cmp, STICKY(op, cmp, r01, r23), STICKY(op, cmp, r45, r67));                 \
      acc = STICKY(op, cmp, acc, r);                                                               \
    }                                                                                              \
    store(lanes, acc);                                                                             \
    t = lanes[0];                                                                                  \
    for (int j = 0; j < W; j++) {                                                                  \
      t = lane_better(lanes[j], t) ? lanes[j] : t;                                                 \
      zz += lanes[j] * 0;                                                                          \
    }                                                                                              \
    SIMD_TAIL(T, lane_better)                                                                      \
    *top = t;                                                                                      \
    *poison = zz;                                                                                  \
  }
DEFINE_AVX512_LANES(avx512_min_float32, MIN_LANE, float, __m512, 16, _mm512_loadu_ps,
                    _mm512_mask_min_ps, _mm512_cmp_ps_mask, _mm512_storeu_ps)
DEFINE_AVX512_LANES(avx512_max_float32, MAX_LANE, float, __m512, 16, _mm512_loadu_ps,
                    _mm512_mask_max_ps, _mm512_cmp_ps_mask, _mm512_storeu_ps)
DEFINE_AVX512_LANES(avx512_min_float64, MIN_LANE, double, __m512d, 8, _mm512_loadu_pd,
                    _mm512_mask_min_pd, _mm512_cmp_pd_mask, _mm512_storeu_pd)
DEFINE_AVX512_LANES(avx512_max_float64, MAX_LANE, double, __m512d, 8, _mm512_loadu_pd,
                    _mm512_mask_max_pd, _mm512_cmp_pd_mask, _mm512_storeu_pd)
#define HAVE_AVX512() __builtin_cpu_supports("avx512f")
#define HAVE_AVX2() (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
#else
#define HAVE_AVX512() 0
#define HAVE_AVX2() 0
#define avx512_min_float32 sse_min_float32
#define avx512_max_float32 sse_max_float32
#define avx512_min_float64 sse_min_float64
#define avx512_max_float64 sse_max_float64
#define avx2_min_float32 sse_min_float32
#define avx2_max_float32 sse_max_float32
#define avx2_min_float64 sse_min_float64
#define avx2_max_float64 sse_max_float64
#endif

#define DEFINE_DISPATCH_LANES(op, name, T)                                                         \
  static void lanes_##op##_##name(const char *p, int64_t n, T *top, T *poison) {                   \
    if (HAVE_AVX512()) {                                                                           \
      avx512_##op##_##name(p, n, top, poison);                                                     \
    } else if (HAVE_AVX2()) {                                                                      \
      avx2_##op##_##name(p, n, top, poison);                                                       \
    } else {                                                                                       \
      sse_##op##_##name(p, n, top, poison);                                                        \
    }                                                                                              \
  }
DEFINE_DISPATCH_LANES(min, float32, float)
DEFINE_DISPATCH_LANES(max, float32, float)
DEFINE_DISPATCH_LANES(min, float64, double)
DEFINE_DISPATCH_LANES(max, float64, double)
#else
DEFINE_LANES(min, MIN_LANE, FLOAT_TRACK, float32, float, float)
DEFINE_LANES(max, MAX_LANE, FLOAT_TRACK, float32, float, float)
DEFINE_LANES(min, MIN_LANE, FLOAT_TRACK, float64, double, double)
DEFINE_LANES(max, MAX_LANE, FLOAT_TRACK, float64, double, double)
#endif
DEFINE_LANES(min, MIN_LANE, FLOAT_TRACK, float16, uint16_t, float)
DEFINE_LANES(max, MAX_LANE, FLOAT_TRACK, float16, uint16_t, float)
DEFINE_LANES(min, MIN_LANE, FLOAT_TRACK, bfloat16, uint16_t, float)
DEFINE_LANES(max, MAX_LANE, FLOAT_TRACK, bfloat16, uint16_t, float)
#define DEFINE_INT_LANES(name, e, T, C, field, se, sname)                                          \
  DEFINE_LANES(min, MIN_LANE, INT_TRACK, name, T, C)                                               \
  DEFINE_LANES(max, MAX_LANE, INT_TRACK, name, T, C)
INT_TYPES(DEFINE_INT_LANES)

/* find_<name>(p, n, top): the first i < n with element i == top (top is one of the n elements;
 * n if not). The piece that holds a run's extreme is searched again for its position; a branch
 * per element made that search a visible share of the whole pass, so blocks of FIND_BLOCK
 * elements are first tested without branches (which vectorises), and only the block that holds
 * top is walked. The first element equal to the extreme is the one the element loop picks. */
#define FIND_BLOCK 64
#define DEFINE_FIND(name, T, C)                                                                    \
  static int64_t find_##name(const char *p, int64_t n, C top) {                                    \
    const ptrdiff_t size = (ptrdiff_t)sizeof(T);                                                   \
    int64_t b = 0;                                                                                 \
    for (; b + FIND_BLOCK <= n; b += FIND_BLOCK) {                                                 \
      int hit = 0;                                                                                 \
      for (int j = 0; j < FIND_BLOCK; j++) hit |= load_##name(p + (b + j) * size) == top;          \
      if (hit) break;                                                                              \
    }                                                                                              \
    for (; b < n; b++) {                                                                           \
      if (load_##name(p + b * size) == top) return b;                                              \
    }                                                                                              \
    return n;                                                                                      \
  }
#define DEFINE_INT_FIND(name, e, T, C, ...) DEFINE_FIND(name, T, C)
#define DEFINE_FLOAT_FIND(name, e, T, ACC, ...) DEFINE_FIND(name, T, ACC)
INT_TYPES(DEFINE_INT_FIND)
FLOAT_TYPES(DEFINE_FLOAT_FIND)

#define DEFINE_EXTREME(op, better, is_nan, name, T, C, field)                                      \
  /* The element loop: true when it stopped at a NaN. */                                           \
  static bool scan_##op##_##name(const char *p, ptrdiff_t step, int64_t n, C *best, int64_t *at,   \
                                 int64_t base) {                                                   \
    C b = *best;                                                                                   \
    int64_t where = *at;                                                                           \
    bool nan = false;                                                                              \
    EACH(T, p, step, n, {                                                                          \
      C v = load_##name(q);                                                                        \
      if (better(v, b)) {                                                                          \
        b = v;                                                                                     \
        where = base + i;                                                                          \
        if (is_nan(v)) {                                                                           \
          nan = true;                                                                              \
          break;                                                                                   \
        }                                                                                          \
      }                                                                                            \
    });                                                                                            \
    *best = b;                                                                                     \
    *at = where;                                                                                   \
    return nan;                                                                                    \
  }                                                                                                \
  /* n <= EXT_CHUNK elements: the tops of all pieces first, then one scan, of the first piece      \
   * holding the overall top, when that beats the best so far. A piece that may hold a NaN         \
   * sends the walk back to scanning pieces in order. */                                           \
  static bool pieces_##op##_##name(const char *p, int64_t n, C *best, int64_t *at, int64_t base) { \
    const ptrdiff_t size = (ptrdiff_t)sizeof(T);                                                   \
    C tops[EXT_CHUNK / EXT_PIECE] = {0}, poison = 0, top;                                          \
    int64_t pieces = (n + EXT_PIECE - 1) / EXT_PIECE, first = 0;                                   \
    int64_t tail = n - (pieces - 1) * EXT_PIECE; /* the last piece's length */                     \
    if (tail < EXT_LANES) pieces--;              /* too short for lanes: scanned at the end */     \
    if (pieces == 0) return scan_##op##_##name(p, size, n, best, at, base);                        \
    for (int64_t k = 0; k < pieces; k++) {                                                         \
      int64_t len = n - k * EXT_PIECE < EXT_PIECE ? n - k * EXT_PIECE : EXT_PIECE;                 \
      C z = 0;                                                                                     \
      lanes_##op##_##name(p + k * EXT_PIECE * size, len, &tops[k], &z);                            \
      poison += z;                                                                                 \
      if (better(tops[k], tops[first])) first = k;                                                 \
    }                                                                                              \
    if (is_nan(poison)) {                                                                          \
      for (int64_t i = 0; i < n; i += EXT_PIECE) {                                                 \
        int64_t len = n - i < EXT_PIECE ? n - i : EXT_PIECE;                                       \
        if (scan_##op##_##name(p + i * size, size, len, best, at, base + i)) return true;          \
      }                                                                                            \
      return false;                                                                                \
    }                                                                                              \
    top = tops[first];                                                                             \
    if (better(top, *best)) {                                                                      \
      int64_t piece = first * EXT_PIECE, len = n - piece < EXT_PIECE ? n - piece : EXT_PIECE;      \
      int64_t i = piece + find_##name(p + piece * size, len, top);                                 \
      *best = load_##name(p + i * size); /* not top: -0.0 and 0.0 compare equal */                 \
      *at = base + i;                                                                              \
    }                                                                                              \
    if (pieces * EXT_PIECE >= n) return false;                                                     \
    int64_t i = pieces * EXT_PIECE;                                                                \
    return scan_##op##_##name(p + i * size, size, n - i, best, at, base + i);                      \
  }                                                                                                \
  typedef struct chunks_##op##_##name {                                                            \
    const char *p;                                                                                 \
    int64_t n, base;                                                                               \
    C best[EXT_BATCH];                                                                             \
    int64_t at[EXT_BATCH];                                                                         \
  } chunks_##op##_##name;                                                                          \
  static void chunk_##op##_##name(void *ctx, int64_t begin, int64_t end) {                         \
    chunks_##op##_##name *job = ctx;                                                               \
    for (int64_t c = begin; c < end; c++) {                                                        \
      const char *q = job->p + c * EXT_CHUNK * (ptrdiff_t)sizeof(T);                               \
      int64_t len = job->n - c * EXT_CHUNK < EXT_CHUNK ? job->n - c * EXT_CHUNK : EXT_CHUNK;       \
      job->best[c] = load_##name(q);                                                               \
      job->at[c] = job->base + c * EXT_CHUNK;                                                      \
      pieces_##op##_##name(q, len, &job->best[c], &job->at[c], job->at[c]);                        \
    }                                                                                              \
  }                                                                                                \
  static bool contiguous_##op##_##name(const char *p, int64_t n, C *best, int64_t *at,             \
                                       int64_t base) {                                             \
    int64_t chunks = (n + EXT_CHUNK - 1) / EXT_CHUNK;                                              \
    if (chunks < 2) return pieces_##op##_##name(p, n, best, at, base);                             \
    chunks_##op##_##name job;                                                                      \
    for (int64_t c0 = 0; c0 < chunks; c0 += EXT_BATCH) {                                           \
      int64_t count = chunks - c0 < EXT_BATCH ? chunks - c0 : EXT_BATCH;                           \
      job.p = p + c0 * EXT_CHUNK * (ptrdiff_t)sizeof(T);                                           \
      job.n = n - c0 * EXT_CHUNK;                                                                  \
      job.base = base + c0 * EXT_CHUNK;                                                            \
      int64_t grain = dlx_cpu_grain_items(EXT_CHUNK * (int64_t)sizeof(T));                         \
      dlx_cpu_parallel_for(count, grain, chunk_##op##_##name, &job);                               \
      for (int64_t c = 0; c < count; c++) {                                                        \
        if (better(job.best[c], *best)) {                                                          \
          *best = job.best[c];                                                                     \
          *at = job.at[c];                                                                         \
          if (is_nan(job.best[c])) return true;                                                    \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    return false;                                                                                  \
  }                                                                                                \
  static void op##_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {           \
    C best = a->has ? a->field : load_##name(p);                                                   \
    int64_t at = a->has ? a->index : a->seen;                                                      \
    a->has = true;                                                                                 \
    if (step == (ptrdiff_t)sizeof(T)) {                                                            \
      a->stop = contiguous_##op##_##name(p, n, &best, &at, a->seen);                               \
    } else {                                                                                       \
      a->stop = scan_##op##_##name(p, step, n, &best, &at, a->seen);                               \
    }                                                                                              \
    a->field = best;                                                                               \
    a->index = at;                                                                                 \
    a->seen += n;                                                                                  \
  }

/* min and max of dtype name, and their finish; IS_NAN: INT_NAN or FLOAT_NAN. */
#define DEFINE_EXTREMES(name, IS_NAN, T, C, field)                                                 \
  DEFINE_EXTREME(min, MIN_BETTER, IS_NAN, name, T, C, field)                                       \
  DEFINE_EXTREME(max, MAX_BETTER, IS_NAN, name, T, C, field)                                       \
  static void extreme_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {           \
    (void)count;                                                                                   \
    store_##name(out, DLX_CONVERT(name, a->field));                                                \
  }
#define DEFINE_INT_EXTREMES(name, e, T, C, field, se, sname)                                       \
  DEFINE_EXTREMES(name, INT_NAN, T, C, field)
#define DEFINE_FLOAT_EXTREMES(name, e, T, ACC, field)                                              \
  DEFINE_EXTREMES(name, FLOAT_NAN, T, ACC, field)
INT_TYPES(DEFINE_INT_EXTREMES)
FLOAT_TYPES(DEFINE_FLOAT_EXTREMES)

static void arg_finish(const dlx_reduce_acc *a, char *out, int64_t count) {
  (void)count;
  store_int64(out, a->index + 1); /* 1-based */
}

#define MIN_ENTRY(name, e, ...) FLOAT_ENTRY(min, extreme_finish, name, e)
#define MAX_ENTRY(name, e, ...) FLOAT_ENTRY(max, extreme_finish, name, e)
#define ARGMIN_ENTRY(name, e, ...) ENTRY(e, min_##name, arg_finish, DLX_INT64)
#define ARGMAX_ENTRY(name, e, ...) ENTRY(e, max_##name, arg_finish, DLX_INT64)

const dlx_reduce_kernel dlx_cpu_min_kernels[NTYPES] = {INT_TYPES(MIN_ENTRY) FLOAT_TYPES(MIN_ENTRY)};
const dlx_reduce_kernel dlx_cpu_max_kernels[NTYPES] = {INT_TYPES(MAX_ENTRY) FLOAT_TYPES(MAX_ENTRY)};
const dlx_reduce_kernel dlx_cpu_argmin_kernels[NTYPES] = {INT_TYPES(ARGMIN_ENTRY)
                                                              FLOAT_TYPES(ARGMIN_ENTRY)};
const dlx_reduce_kernel dlx_cpu_argmax_kernels[NTYPES] = {INT_TYPES(ARGMAX_ENTRY)
                                                              FLOAT_TYPES(ARGMAX_ENTRY)};
