/* reduce_kernels.c -- per-dtype run and finish functions of the CPU reductions.
 *
 * Sums are pairwise: each run is summed by pw_* (blocks of PW_BLOCK elements in 8 interleaved
 * accumulators, halves recursively above that, like NumPy), and the partial sums of the runs
 * go onto a binary-counter stack (push_partial) that only adds partials of equal weight, so a
 * reduction split into many runs stays pairwise too. Integers sum and multiply in uint64_t
 * (wrapping, no UB); integer means sum in double, as NumPy does, so they cannot wrap. */
#include "cpu/reduce_kernels.h"

#include <math.h>

#include "common/convert.h"
#include "cpu/parallel.h"

/* Runs the statements after n for i in [0, n) with q at element i. Contiguous runs get a
 * constant step, which lets the compiler vectorise. */
#define EACH(T, p, step, n, ...)                                                                   \
  do {                                                                                             \
    if ((step) == (ptrdiff_t)sizeof(T)) {                                                          \
      for (int64_t i = 0; i < (n); i++) {                                                          \
        const char *q = (p) + i * (ptrdiff_t)sizeof(T);                                            \
        __VA_ARGS__                                                                                \
      }                                                                                            \
    } else {                                                                                       \
      for (int64_t i = 0; i < (n); i++) {                                                          \
        const char *q = (p) + i * (step);                                                          \
        __VA_ARGS__                                                                                \
      }                                                                                            \
    }                                                                                              \
  } while (0)

/* X(name, enum, storage type, compare class, its acc field, sum dtype enum, sum dtype name) */
#define INT_TYPES(X)                                                                               \
  X(boolean, DLX_BOOL, uint8_t, int64_t, i, DLX_INT64, int64)                                      \
  X(int8, DLX_INT8, int8_t, int64_t, i, DLX_INT64, int64)                                          \
  X(int16, DLX_INT16, int16_t, int64_t, i, DLX_INT64, int64)                                       \
  X(int32, DLX_INT32, int32_t, int64_t, i, DLX_INT64, int64)                                       \
  X(int64, DLX_INT64, int64_t, int64_t, i, DLX_INT64, int64)                                       \
  X(uint8, DLX_UINT8, uint8_t, uint64_t, u, DLX_INT64, int64)                                      \
  X(uint16, DLX_UINT16, uint16_t, uint64_t, u, DLX_INT64, int64)                                   \
  X(uint32, DLX_UINT32, uint32_t, uint64_t, u, DLX_INT64, int64)                                   \
  X(uint64, DLX_UINT64, uint64_t, uint64_t, u, DLX_UINT64, uint64)

/* X(name, enum, storage type, accumulator type, its acc field) */
#define FLOAT_TYPES(X)                                                                             \
  X(float16, DLX_FLOAT16, uint16_t, float, f[0])                                                   \
  X(bfloat16, DLX_BFLOAT16, uint16_t, float, f[0])                                                 \
  X(float32, DLX_FLOAT32, float, float, f[0])                                                      \
  X(float64, DLX_FLOAT64, double, double, d[0])

/* X(name, enum, storage type, part dtype name, part type, acc field (two parts)) */
#define COMPLEX_TYPES(X)                                                                           \
  X(complex64, DLX_COMPLEX64, dlx_c64, float32, float, f)                                          \
  X(complex128, DLX_COMPLEX128, dlx_c128, float64, double, d)

/* The streaming loops of the sums are compiled for plain x86-64, AVX2 and AVX-512, and the CPU
 * picks at load time. One core's read bandwidth is limited by how many loads it keeps in
 * flight, so fewer instructions per byte read faster even when memory is the bottleneck: one
 * core sums 256 MiB in ~25 ms with SSE2 (a load and an add per 16 bytes), ~18.5 ms with AVX2
 * (one fused load-add per 32 bytes), ~17 ms with AVX-512. The lanes stay independent
 * accumulators, so every variant computes the same bits. Not under gcc's ThreadSanitizer, whose
 * instrumented ifunc resolvers crash before main. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SIMD_CLONES
#endif
/* For helpers of a SIMD_CLONES function: a copy that is not inlined is built for plain x86-64. */
#if defined(__GNUC__)
#define CLONE_INLINE inline __attribute__((always_inline))
#else
#define CLONE_INLINE inline
#endif

/* ---- pairwise summation of one run */

#define PW_BLOCK 128
/* Contiguous runs: blocks of WIDE_BLOCK elements summed in WIDE_LANES interleaved accumulators
 * (wide enough to keep the adder busy and the loads streaming), the lanes combined as a binary
 * tree, blocks combined pairwise. Each lane adds WIDE_BLOCK / WIDE_LANES = 64 values naively,
 * so the error bound is about u * (64 + log2(n)) * sum|x|: NumPy's scheme is u * (16 + log2 n). */
#define WIDE_LANES 32
#define WIDE_BLOCK 2048

#define DEFINE_PAIRWISE(fn, T, ACC, load)                                                          \
  static inline ACC fn##_block(const char *p, ptrdiff_t step, int64_t n) {                         \
    ACC r[8], s;                                                                                   \
    int64_t i;                                                                                     \
    if (n < 8) {                                                                                   \
      s = (ACC)-0.0; /* so that a sum of -0.0s stays -0.0 */                                       \
      for (i = 0; i < n; i++) s += load(p + i * step);                                             \
      return s;                                                                                    \
    }                                                                                              \
    for (int j = 0; j < 8; j++) r[j] = load(p + j * step);                                         \
    for (i = 8; i + 8 <= n; i += 8) {                                                              \
      for (int j = 0; j < 8; j++) r[j] += load(p + (i + j) * step);                                \
    }                                                                                              \
    s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));                         \
    for (; i < n; i++) s += load(p + i * step);                                                    \
    return s;                                                                                      \
  }                                                                                                \
  static ACC fn##_strided(const char *p, ptrdiff_t step, int64_t n) {                              \
    if (n <= PW_BLOCK) return fn##_block(p, step, n);                                              \
    int64_t half = n / 2;                                                                          \
    half -= half % 8;                                                                              \
    return fn##_strided(p, step, half) + fn##_strided(p + half * step, step, n - half);            \
  }                                                                                                \
  SIMD_CLONES static ACC fn##_lanes(const char *p, int64_t n) {                                    \
    const ptrdiff_t size = (ptrdiff_t)sizeof(T);                                                   \
    ACC r[WIDE_LANES], s;                                                                          \
    int64_t i;                                                                                     \
    if (n < WIDE_LANES) return fn##_block(p, size, n);                                             \
    for (int j = 0; j < WIDE_LANES; j++) r[j] = load(p + j * size);                                \
    for (i = WIDE_LANES; i + WIDE_LANES <= n; i += WIDE_LANES) {                                   \
      for (int j = 0; j < WIDE_LANES; j++) r[j] += load(p + (i + j) * size);                       \
    }                                                                                              \
    for (int w = WIDE_LANES / 2; w >= 1; w /= 2) {                                                 \
      for (int j = 0; j < w; j++) r[j] += r[j + w];                                                \
    }                                                                                              \
    s = r[0];                                                                                      \
    for (; i < n; i++) s += load(p + i * size);                                                    \
    return s;                                                                                      \
  }                                                                                                \
  static ACC fn##_wide(const char *p, int64_t n) {                                                 \
    if (n <= WIDE_BLOCK) return fn##_lanes(p, n);                                                  \
    int64_t half = n / 2;                                                                          \
    half -= half % WIDE_LANES;                                                                     \
    return fn##_wide(p, half) + fn##_wide(p + half * (ptrdiff_t)sizeof(T), n - half);              \
  }                                                                                                \
  static ACC fn(const char *p, ptrdiff_t step, int64_t n) {                                        \
    if (step == (ptrdiff_t)sizeof(T)) return fn##_wide(p, n);                                      \
    return fn##_strided(p, step, n);                                                               \
  }

#define DEFINE_FLOAT_PAIRWISE(name, e, T, ACC, field)                                              \
  DEFINE_PAIRWISE(pw_##name, T, ACC, load_##name)                                                  \
  static double dpw_##name(const char *p, ptrdiff_t step, int64_t n) {                             \
    return pw_##name(p, step, n);                                                                  \
  }
FLOAT_TYPES(DEFINE_FLOAT_PAIRWISE)

/* Integer means sum the values as doubles. */
#define DEFINE_INT_PAIRWISE(name, e, T, C, field, se, sname)                                       \
  static inline double dload_##name(const char *p) { return (double)load_##name(p); }              \
  DEFINE_PAIRWISE(pw_##name, T, double, dload_##name)
INT_TYPES(DEFINE_INT_PAIRWISE)

/* Adds a run's partial sum to the stack the way a binary counter increments: equal-weight
 * partials merge and carry upwards, so only sums of similar size are ever added. */
static void push_partial(dlx_reduce_acc *a, double re, double im) {
  int k = 0;
  for (; k < DLX_REDUCE_LEVELS - 1 && ((a->used >> k) & 1); k++) {
    re += a->stack[k][0];
    im += a->stack[k][1];
    a->used &= ~(UINT32_C(1) << k);
  }
  if ((a->used >> k) & 1) { /* the top level accumulates */
    re += a->stack[k][0];
    im += a->stack[k][1];
  }
  a->stack[k][0] = re;
  a->stack[k][1] = im;
  a->used |= UINT32_C(1) << k;
}

/* ---- long runs: summed in pieces of SUM_PIECE elements whose partial sums go onto the stack
 * in order. The pieces are fixed, whatever the thread count, and a batch of them is summed in
 * parallel before its partials are pushed, so threads never change a sum. */

#define SUM_PIECE ((int64_t)1 << 16)
#define SUM_BATCH 1024

typedef double (*piece_sum_fn)(const char *p, ptrdiff_t step, int64_t n);

typedef struct piece_job {
  piece_sum_fn sum;
  const char *p;
  ptrdiff_t step;
  ptrdiff_t second; /* byte offset of a complex number's imaginary part; 0 for real types */
  int64_t n;
  double (*out)[2];
} piece_job;

static void sum_pieces(void *ctx, int64_t begin, int64_t end) {
  const piece_job *job = ctx;
  for (int64_t c = begin; c < end; c++) {
    const char *q = job->p + c * SUM_PIECE * job->step;
    int64_t len = job->n - c * SUM_PIECE < SUM_PIECE ? job->n - c * SUM_PIECE : SUM_PIECE;
    job->out[c][0] = job->sum(q, job->step, len);
    job->out[c][1] = job->second != 0 ? job->sum(q + job->second, job->step, len) : 0.0;
  }
}

static void push_run(dlx_reduce_acc *a, piece_sum_fn sum, ptrdiff_t second, int64_t item_bytes,
                     const char *p, ptrdiff_t step, int64_t n) {
  double out[SUM_BATCH][2];
  int64_t pieces = (n + SUM_PIECE - 1) / SUM_PIECE;
  for (int64_t c0 = 0; c0 < pieces; c0 += SUM_BATCH) {
    int64_t count = pieces - c0 < SUM_BATCH ? pieces - c0 : SUM_BATCH;
    piece_job job = {sum, p + c0 * SUM_PIECE * step, step, second, n - c0 * SUM_PIECE, out};
    dlx_cpu_parallel_for(count, dlx_cpu_grain_items(SUM_PIECE * item_bytes), sum_pieces, &job);
    for (int64_t c = 0; c < count; c++) push_partial(a, out[c][0], out[c][1]);
  }
}

static void pairwise_total(const dlx_reduce_acc *a, double *re, double *im) {
  *re = a->used != 0 ? -0.0 : 0.0; /* a sum of -0.0s is -0.0; the sum of nothing is +0 */
  *im = *re;
  for (int k = 0; k < DLX_REDUCE_LEVELS; k++) {
    if ((a->used >> k) & 1) {
      *re += a->stack[k][0];
      *im += a->stack[k][1];
    }
  }
}

static double mean_of(double sum, int64_t count) { return count > 0 ? sum / (double)count : NAN; }

/* ---- sum, mean and product of bool and integers */

#define DEFINE_INT_SUM(name, e, T, C, field, se, sname)                                            \
  static void sum_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {            \
    uint64_t s = a->u;                                                                             \
    EACH(T, p, step, n, s += (uint64_t)load_##name(q););                                           \
    a->u = s;                                                                                      \
  }                                                                                                \
  static void prod_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {           \
    uint64_t s = a->u;                                                                             \
    EACH(T, p, step, n, s *= (uint64_t)load_##name(q););                                           \
    a->u = s;                                                                                      \
  }                                                                                                \
  static void sum_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {               \
    (void)count;                                                                                   \
    store_##sname(out, DLX_CONVERT(sname, a->u));                                                  \
  }                                                                                                \
  static void mean_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {           \
    push_run(a, pw_##name, 0, (int64_t)sizeof(T), p, step, n);                                     \
  }
INT_TYPES(DEFINE_INT_SUM)

/* ---- sum, mean and product of floats */

#define DEFINE_FLOAT_SUM(name, e, T, ACC, field)                                                   \
  static void sum_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {            \
    push_run(a, dpw_##name, 0, (int64_t)sizeof(T), p, step, n);                                    \
  }                                                                                                \
  static void sum_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {               \
    double re, im;                                                                                 \
    (void)count;                                                                                   \
    pairwise_total(a, &re, &im);                                                                   \
    store_##name(out, DLX_CONVERT(name, re));                                                      \
  }                                                                                                \
  static void mean_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {              \
    double re, im;                                                                                 \
    pairwise_total(a, &re, &im);                                                                   \
    store_##name(out, DLX_CONVERT(name, mean_of(re, count)));                                      \
  }                                                                                                \
  static void prod_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {           \
    ACC s = a->field;                                                                              \
    EACH(T, p, step, n, s *= load_##name(q););                                                     \
    a->field = s;                                                                                  \
  }                                                                                                \
  static void prod_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {              \
    (void)count;                                                                                   \
    store_##name(out, DLX_CONVERT(name, a->field));                                                \
  }
FLOAT_TYPES(DEFINE_FLOAT_SUM)

/* ---- sum, mean and product of complex numbers: sums run over each part separately */

#define DEFINE_COMPLEX_SUM(name, e, T, part, R, field)                                             \
  static void sum_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {            \
    push_run(a, dpw_##part, (ptrdiff_t)sizeof(R), (int64_t)sizeof(T), p, step, n);                 \
  }                                                                                                \
  static void sum_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {               \
    double re, im;                                                                                 \
    (void)count;                                                                                   \
    pairwise_total(a, &re, &im);                                                                   \
    store_##name(out, DLX_CONVERT(name, ((dlx_c128){re, im})));                                    \
  }                                                                                                \
  static void mean_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {              \
    double re, im;                                                                                 \
    pairwise_total(a, &re, &im);                                                                   \
    store_##name(out, DLX_CONVERT(name, ((dlx_c128){mean_of(re, count), mean_of(im, count)})));    \
  }                                                                                                \
  static void prod_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {           \
    R re = a->field[0], im = a->field[1];                                                          \
    EACH(T, p, step, n, {                                                                          \
      T c = load_##name(q);                                                                        \
      R t = re * c.re - im * c.im;                                                                 \
      im = re * c.im + im * c.re;                                                                  \
      re = t;                                                                                      \
    });                                                                                            \
    a->field[0] = re;                                                                              \
    a->field[1] = im;                                                                              \
  }                                                                                                \
  static void prod_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {              \
    (void)count;                                                                                   \
    store_##name(out, (T){a->field[0], a->field[1]});                                              \
  }
COMPLEX_TYPES(DEFINE_COMPLEX_SUM)

/* ---- column sums of floats (reduce_kernels.h) */

void dlx_cpu_reduce_columns_init(dlx_reduce_columns *c) {
  c->rows = 0;
  c->used = 0;
}

/* The levels work as a binary counter: a full block lands on level columns_land(c) after the
 * levels below it (all in use) are added to it, lightest first; when every level below the top
 * is in use, the top one accumulates (it is added too). columns_landed updates the counter. */
static int columns_land(const dlx_reduce_columns *c) {
  int k = 0;
  while (k < DLX_REDUCE_COLUMN_LEVELS - 1 && ((c->used >> k) & 1)) k++;
  return k;
}

static int columns_carries(const dlx_reduce_columns *c, int land) {
  return land + (int)((c->used >> land) & 1);
}

static void columns_landed(dlx_reduce_columns *c, int land) {
  c->used &= ~((UINT64_C(1) << land) - 1);
  c->used |= UINT64_C(1) << land;
}

/* Moves a full block (in block_d) onto the levels. */
static void columns_push(dlx_reduce_columns *c, int64_t width) {
  int land = columns_land(c), carries = columns_carries(c, land);
  for (int64_t j = 0; j < width; j++) {
    double t = c->block_d[j];
    for (int m = 0; m < carries; m++) t += c->level[m][j];
    c->level[land][j] = t;
  }
  columns_landed(c, land);
}

/* The total of column j: the partial block first, then the levels from the lightest up. */
static double columns_total(const dlx_reduce_columns *c, int64_t j, double partial_block) {
  double t = c->rows % DLX_REDUCE_ROW_BLOCK != 0 ? partial_block : -0.0;
  for (int k = 0; k < DLX_REDUCE_COLUMN_LEVELS; k++) {
    if ((c->used >> k) & 1) t += c->level[k][j];
  }
  return t;
}

/* The first row of a block is assigned (so that a sum of -0.0s stays -0.0), the others added
 * in row order. Rows that start or end a block part-way go one at a time (add_row), through the
 * accumulators in block. Whole blocks (rows_block) are summed COLUMN_CHUNK_BYTES of
 * accumulators at a time, each a register, over the block's rows in the same order, and go
 * onto the levels in the same pass. That gives the same bits as row by row (for float16 and
 * bfloat16 up to which NaN survives when a column holds several: the compiler's operand order
 * never fixed that), but reads faster: a row by row pass loaded and stored the accumulators
 * once per vector of each row, then walked them again to push the block, and one thread summed
 * an 8192^2 float32 matrix over its rows ~1.3x slower (bench/RESULTS.md). */
#define COLUMN_CHUNK_BYTES 256
#define DEFINE_COLUMNS(name, e, T, ACC, block)                                                     \
  static CLONE_INLINE void add_row_##name(dlx_reduce_columns *c, const char *row, int64_t width) { \
    ACC *acc = c->block;                                                                           \
    const ptrdiff_t size = (ptrdiff_t)sizeof(T);                                                   \
    if (c->rows % DLX_REDUCE_ROW_BLOCK == 0) {                                                     \
      for (int64_t j = 0; j < width; j++) acc[j] = load_##name(row + j * size);                    \
    } else {                                                                                       \
      for (int64_t j = 0; j < width; j++) acc[j] += load_##name(row + j * size);                   \
    }                                                                                              \
    c->rows++;                                                                                     \
    if (c->rows % DLX_REDUCE_ROW_BLOCK == 0) {                                                     \
      for (int64_t j = 0; j < width; j++) c->block_d[j] = (double)acc[j];                          \
      columns_push(c, width);                                                                      \
    }                                                                                              \
  }                                                                                                \
  static CLONE_INLINE void rows_block_##name(dlx_reduce_columns *c, const char *rows,              \
                                             ptrdiff_t step, int64_t width) {                      \
    const ptrdiff_t size = (ptrdiff_t)sizeof(T);                                                   \
    enum { COLUMN_CHUNK = COLUMN_CHUNK_BYTES / sizeof(ACC) };                                      \
    int land = columns_land(c), carries = columns_carries(c, land);                                \
    int64_t j = 0;                                                                                 \
    for (; j + COLUMN_CHUNK <= width; j += COLUMN_CHUNK) {                                         \
      const char *q = rows + j * size;                                                             \
      ACC s[COLUMN_CHUNK];                                                                         \
      double t[COLUMN_CHUNK];                                                                      \
      for (int i = 0; i < COLUMN_CHUNK; i++) s[i] = load_##name(q + i * size);                     \
      for (int k = 1; k < DLX_REDUCE_ROW_BLOCK; k++) {                                             \
        for (int i = 0; i < COLUMN_CHUNK; i++) s[i] += load_##name(q + k * step + i * size);       \
      }                                                                                            \
      for (int i = 0; i < COLUMN_CHUNK; i++) t[i] = (double)s[i];                                  \
      for (int m = 0; m < carries; m++) {                                                          \
        for (int i = 0; i < COLUMN_CHUNK; i++) t[i] += c->level[m][j + i];                         \
      }                                                                                            \
      for (int i = 0; i < COLUMN_CHUNK; i++) c->level[land][j + i] = t[i];                         \
    }                                                                                              \
    for (; j < width; j++) {                                                                       \
      const char *q = rows + j * size;                                                             \
      ACC s = load_##name(q);                                                                      \
      for (int k = 1; k < DLX_REDUCE_ROW_BLOCK; k++) s += load_##name(q + k * step);               \
      double t = (double)s;                                                                        \
      for (int m = 0; m < carries; m++) t += c->level[m][j];                                       \
      c->level[land][j] = t;                                                                       \
    }                                                                                              \
    c->rows += DLX_REDUCE_ROW_BLOCK;                                                               \
    columns_landed(c, land);                                                                       \
  }                                                                                                \
  SIMD_CLONES static void add_rows_##name(dlx_reduce_columns *c, const char *rows, ptrdiff_t step, \
                                          int64_t nrows, int64_t width) {                          \
    for (; nrows > 0 && c->rows % DLX_REDUCE_ROW_BLOCK != 0; nrows--, rows += step) {              \
      add_row_##name(c, rows, width);                                                              \
    }                                                                                              \
    for (; nrows >= DLX_REDUCE_ROW_BLOCK; nrows -= DLX_REDUCE_ROW_BLOCK) {                         \
      rows_block_##name(c, rows, step, width);                                                     \
      rows += DLX_REDUCE_ROW_BLOCK * step;                                                         \
    }                                                                                              \
    for (; nrows > 0; nrows--, rows += step) add_row_##name(c, rows, width);                       \
  }                                                                                                \
  static void finish_columns_##name(dlx_reduce_columns *c, char *out, ptrdiff_t out_step,          \
                                    int64_t width, int64_t count) {                                \
    for (int64_t j = 0; j < width; j++) {                                                          \
      store_##name(out + j * out_step, DLX_CONVERT(name, columns_total(c, j, c->block[j])));       \
    }                                                                                              \
    (void)count;                                                                                   \
  }                                                                                                \
  static void finish_column_means_##name(dlx_reduce_columns *c, char *out, ptrdiff_t out_step,     \
                                         int64_t width, int64_t count) {                           \
    for (int64_t j = 0; j < width; j++) {                                                          \
      double mean = mean_of(columns_total(c, j, c->block[j]), count);                              \
      store_##name(out + j * out_step, DLX_CONVERT(name, mean));                                   \
    }                                                                                              \
  }
DEFINE_COLUMNS(float16, DLX_FLOAT16, uint16_t, float, block_f)
DEFINE_COLUMNS(bfloat16, DLX_BFLOAT16, uint16_t, float, block_f)
DEFINE_COLUMNS(float32, DLX_FLOAT32, float, float, block_f)
DEFINE_COLUMNS(float64, DLX_FLOAT64, double, double, block_d)

static void columns_of(dlx_reduce_op op, dlx_dtype src, dlx_reduce_kernel *k) {
  bool mean = op == DLX_REDUCE_MEAN;
  if (op != DLX_REDUCE_SUM && !mean) return;
  switch (src) {
#define COLUMNS_CASE(name, e)                                                                      \
  case e:                                                                                          \
    k->add_rows = add_rows_##name;                                                                 \
    k->finish_columns = mean ? finish_column_means_##name : finish_columns_##name;                 \
    break;
    COLUMNS_CASE(float16, DLX_FLOAT16)
    COLUMNS_CASE(bfloat16, DLX_BFLOAT16)
    COLUMNS_CASE(float32, DLX_FLOAT32)
    COLUMNS_CASE(float64, DLX_FLOAT64)
#undef COLUMNS_CASE
  default:
    break;
  }
}

/* ---- min, max, argmin, argmax. `better(v, best)` says v replaces best; for floats it is also
 * true for a NaN v (every comparison with NaN is false), which then ends the walk. Both keep
 * the first position of the extreme, so min and argmin (max and argmax) share a run function.
 *
 * Contiguous runs avoid the data-dependent branch per element: a piece of EXT_PIECE elements
 * goes through EXT_LANES lanes of branch-free compare-and-select (which vectorises) and NaN
 * flags. Of a chunk's pieces, only the first holding the chunk's extreme is searched again, from
 * L2, for the position (find_*), and only when it beats the best so far; a piece that may hold a
 * NaN sends the chunk back to the element loop. Long runs are cut into fixed chunks whose (value,
 * position) results, found in parallel, are folded in order with the same rule, so the result is
 * the serial one. */

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
/* gcc does not vectorise the compare-and-select above for floats; SSE2's max/min have exactly
 * its semantics (max(a, b) = a > b ? a : b), four accumulators deep. `track(z, v, zero)` is the
 * NaN flag, z + v * 0: one fused multiply-add where the CPU has FMA. Every instruction in this
 * loop costs read bandwidth on one core (see SIMD_CLONES): over 256 MiB, the AVX2 compares alone
 * take ~18 ms, with the flag as a separate multiply and add ~22 ms, as one FMA ~20.5 ms. */
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
    for (; i < n; i++) {                                                                           \
      T v;                                                                                         \
      memcpy(&v, p + i * (ptrdiff_t)sizeof(T), sizeof v);                                          \
      t = lane_better(v, t) ? v : t;                                                               \
      zz += v * 0;                                                                                 \
    }                                                                                              \
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
 * build targets plain x86-64). Wider vectors mean fewer instructions per byte: one core takes
 * 256 MiB in ~20.5 ms with AVX2, ~17 ms with AVX-512 (NumPy's loop: 16-20 ms). AVX-512 lanes
 * load 16 floats at once, which EXT_LANES (the shortest run they get) allows. */
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
 * flag is needed, and eight loads per step combined in a tree, into one accumulator. Over 256
 * MiB this runs in ~17 ms where the FMA-flagged loop above takes ~18 ms. */
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
    for (; i < n; i++) {                                                                           \
      T v;                                                                                         \
      memcpy(&v, p + i * (ptrdiff_t)sizeof(T), sizeof v);                                          \
      t = lane_better(v, t) ? v : t;                                                               \
      zz += v * 0;                                                                                 \
    }                                                                                              \
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
 * per element made that search add ~4 ms to a ~22 ms pass over 256 MiB, so blocks of FIND_BLOCK
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

#define DEFINE_INT_EXTREMES(name, e, T, C, field, se, sname)                                       \
  DEFINE_EXTREME(min, MIN_BETTER, INT_NAN, name, T, C, field)                                      \
  DEFINE_EXTREME(max, MAX_BETTER, INT_NAN, name, T, C, field)                                      \
  static void extreme_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {           \
    (void)count;                                                                                   \
    store_##name(out, DLX_CONVERT(name, a->field));                                                \
  }
INT_TYPES(DEFINE_INT_EXTREMES)

#define DEFINE_FLOAT_EXTREMES(name, e, T, ACC, field)                                              \
  DEFINE_EXTREME(min, MIN_BETTER, FLOAT_NAN, name, T, ACC, field)                                  \
  DEFINE_EXTREME(max, MAX_BETTER, FLOAT_NAN, name, T, ACC, field)                                  \
  static void extreme_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {           \
    (void)count;                                                                                   \
    store_##name(out, DLX_CONVERT(name, a->field));                                                \
  }
FLOAT_TYPES(DEFINE_FLOAT_EXTREMES)

static void arg_finish(const dlx_reduce_acc *a, char *out, int64_t count) {
  (void)count;
  store_int64(out, a->index + 1); /* 1-based */
}

/* ---- all, any: element != 0 (NaN counts as non-zero, complex when either part is) */

#define DEFINE_LOGICAL(name, e, T)                                                                 \
  static void all_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {            \
    EACH(T, p, step, n, {                                                                          \
      if (!DLX_CONVERT(boolean, load_##name(q))) {                                                 \
        a->flag = false;                                                                           \
        a->stop = true;                                                                            \
        break;                                                                                     \
      }                                                                                            \
    });                                                                                            \
  }                                                                                                \
  static void any_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {            \
    EACH(T, p, step, n, {                                                                          \
      if (DLX_CONVERT(boolean, load_##name(q))) {                                                  \
        a->flag = true;                                                                            \
        a->stop = true;                                                                            \
        break;                                                                                     \
      }                                                                                            \
    });                                                                                            \
  }
DLX_COMPUTABLE_TYPES(DEFINE_LOGICAL)

static void flag_finish(const dlx_reduce_acc *a, char *out, int64_t count) {
  (void)count;
  store_boolean(out, a->flag);
}

/* ---- the tables: one per op, indexed by the source dtype; {NULL} where unsupported */

#define NTYPES (DLX_COMPLEX128 + 1)

/* Designated, so that the column-sum fields (columns_of) start out NULL without a warning. */
#define ENTRY(e, run_fn, finish_fn, out_dtype)                                                     \
  [e] = {.run = run_fn, .finish = finish_fn, .out = out_dtype},
#define INT_SUM_ENTRY(name, e, T, C, field, se, sname) ENTRY(e, sum_##name, sum_finish_##name, se)
#define INT_PROD_ENTRY(name, e, T, C, field, se, sname) ENTRY(e, prod_##name, sum_finish_##name, se)
#define INT_MEAN_ENTRY(name, e, T, C, field, se, sname)                                            \
  ENTRY(e, mean_##name, mean_finish_float64, DLX_FLOAT64)
#define FLOAT_ENTRY(run, fin, name, e, ...) ENTRY(e, run##_##name, fin##_##name, e)
#define FLOAT_SUM_ENTRY(name, e, ...) FLOAT_ENTRY(sum, sum_finish, name, e)
#define FLOAT_MEAN_ENTRY(name, e, ...) FLOAT_ENTRY(sum, mean_finish, name, e)
#define FLOAT_PROD_ENTRY(name, e, ...) FLOAT_ENTRY(prod, prod_finish, name, e)
#define MIN_ENTRY(name, e, ...) FLOAT_ENTRY(min, extreme_finish, name, e)
#define MAX_ENTRY(name, e, ...) FLOAT_ENTRY(max, extreme_finish, name, e)
#define ARGMIN_ENTRY(name, e, ...) ENTRY(e, min_##name, arg_finish, DLX_INT64)
#define ARGMAX_ENTRY(name, e, ...) ENTRY(e, max_##name, arg_finish, DLX_INT64)
#define ALL_ENTRY(name, e, T) ENTRY(e, all_##name, flag_finish, DLX_BOOL)
#define ANY_ENTRY(name, e, T) ENTRY(e, any_##name, flag_finish, DLX_BOOL)

static const dlx_reduce_kernel sum_kernels[NTYPES] = {
    INT_TYPES(INT_SUM_ENTRY) FLOAT_TYPES(FLOAT_SUM_ENTRY) COMPLEX_TYPES(FLOAT_SUM_ENTRY)};
static const dlx_reduce_kernel prod_kernels[NTYPES] = {
    INT_TYPES(INT_PROD_ENTRY) FLOAT_TYPES(FLOAT_PROD_ENTRY) COMPLEX_TYPES(FLOAT_PROD_ENTRY)};
static const dlx_reduce_kernel mean_kernels[NTYPES] = {
    INT_TYPES(INT_MEAN_ENTRY) FLOAT_TYPES(FLOAT_MEAN_ENTRY) COMPLEX_TYPES(FLOAT_MEAN_ENTRY)};
static const dlx_reduce_kernel min_kernels[NTYPES] = {INT_TYPES(MIN_ENTRY) FLOAT_TYPES(MIN_ENTRY)};
static const dlx_reduce_kernel max_kernels[NTYPES] = {INT_TYPES(MAX_ENTRY) FLOAT_TYPES(MAX_ENTRY)};
static const dlx_reduce_kernel argmin_kernels[NTYPES] = {INT_TYPES(ARGMIN_ENTRY)
                                                             FLOAT_TYPES(ARGMIN_ENTRY)};
static const dlx_reduce_kernel argmax_kernels[NTYPES] = {INT_TYPES(ARGMAX_ENTRY)
                                                             FLOAT_TYPES(ARGMAX_ENTRY)};
static const dlx_reduce_kernel all_kernels[NTYPES] = {DLX_COMPUTABLE_TYPES(ALL_ENTRY)};
static const dlx_reduce_kernel any_kernels[NTYPES] = {DLX_COMPUTABLE_TYPES(ANY_ENTRY)};

static const dlx_reduce_kernel *table_of(dlx_reduce_op op) {
  switch (op) {
  case DLX_REDUCE_SUM:
    return sum_kernels;
  case DLX_REDUCE_PROD:
    return prod_kernels;
  case DLX_REDUCE_MEAN:
    return mean_kernels;
  case DLX_REDUCE_MIN:
    return min_kernels;
  case DLX_REDUCE_MAX:
    return max_kernels;
  case DLX_REDUCE_ARGMIN:
    return argmin_kernels;
  case DLX_REDUCE_ARGMAX:
    return argmax_kernels;
  case DLX_REDUCE_ALL:
    return all_kernels;
  case DLX_REDUCE_ANY:
    return any_kernels;
  }
  return NULL;
}

int dlx_cpu_reduce_kernel(dlx_reduce_op op, dlx_dtype src, dlx_reduce_kernel *out) {
  const dlx_reduce_kernel *table = table_of(op);
  if (table == NULL || (int)src < 0 || src >= NTYPES || table[src].run == NULL) return -1;
  *out = table[src];
  columns_of(op, src, out);
  return 0;
}

void dlx_cpu_reduce_acc_init(dlx_reduce_acc *acc, dlx_reduce_op op) {
  bool prod = op == DLX_REDUCE_PROD;
  acc->stop = false;
  acc->has = false;
  acc->flag = op == DLX_REDUCE_ALL;
  acc->seen = 0;
  acc->index = 0;
  acc->i = 0;
  acc->u = prod ? 1 : 0;
  acc->f[0] = prod ? 1.0f : 0.0f;
  acc->f[1] = 0.0f;
  acc->d[0] = prod ? 1.0 : 0.0;
  acc->d[1] = 0.0;
  acc->used = 0;
}
