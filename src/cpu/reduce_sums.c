/* reduce_sums.c -- sum, mean and product of every computable dtype.
 *
 * Sums are pairwise: each run is summed by pw_* (blocks of PW_BLOCK elements in 8 interleaved
 * accumulators, halves recursively above that, like NumPy), and the partial sums of the runs
 * go onto a binary-counter stack (push_partial) that only adds partials of equal weight, so a
 * reduction split into many runs stays pairwise too. Integers sum and multiply in uint64_t
 * (wrapping, no UB); integer means sum in double, as NumPy does, so they cannot wrap. */
#include "cpu/parallel.h"
#include "cpu/reduce_loops.h"

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

#define INT_SUM_ENTRY(name, e, T, C, field, se, sname) ENTRY(e, sum_##name, sum_finish_##name, se)
#define INT_PROD_ENTRY(name, e, T, C, field, se, sname) ENTRY(e, prod_##name, sum_finish_##name, se)
#define INT_MEAN_ENTRY(name, e, T, C, field, se, sname)                                            \
  ENTRY(e, mean_##name, mean_finish_float64, DLX_FLOAT64)
#define FLOAT_SUM_ENTRY(name, e, ...) FLOAT_ENTRY(sum, sum_finish, name, e)
#define FLOAT_MEAN_ENTRY(name, e, ...) FLOAT_ENTRY(sum, mean_finish, name, e)
#define FLOAT_PROD_ENTRY(name, e, ...) FLOAT_ENTRY(prod, prod_finish, name, e)

const dlx_reduce_kernel dlx_cpu_sum_kernels[NTYPES] = {
    INT_TYPES(INT_SUM_ENTRY) FLOAT_TYPES(FLOAT_SUM_ENTRY) COMPLEX_TYPES(FLOAT_SUM_ENTRY)};
const dlx_reduce_kernel dlx_cpu_prod_kernels[NTYPES] = {
    INT_TYPES(INT_PROD_ENTRY) FLOAT_TYPES(FLOAT_PROD_ENTRY) COMPLEX_TYPES(FLOAT_PROD_ENTRY)};
const dlx_reduce_kernel dlx_cpu_mean_kernels[NTYPES] = {
    INT_TYPES(INT_MEAN_ENTRY) FLOAT_TYPES(FLOAT_MEAN_ENTRY) COMPLEX_TYPES(FLOAT_MEAN_ENTRY)};
