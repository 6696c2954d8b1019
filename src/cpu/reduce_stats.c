/* reduce_stats.c -- var, std, logsumexp and norm of bool, integers and real floats, for the CPU
 * reduce driver (reduce.c).
 *
 * Every run is converted to float64 a block of STAT_BLOCK elements at a time, and each block is
 * summarised on its own, then merged into the accumulator in order:
 * - var: the block's mean and sum of squared deviations (two passes over the block, which is in
 *   cache), merged by Chan's formula, so large means do not cancel the deviations away;
 * - logsumexp: the block's max and the sum of exp(x - max), merged by rescaling the smaller side;
 * - norm 2: the block's sum of squares scaled by a power of two (exact) chosen from its largest
 *   magnitude, so squares neither overflow nor underflow; the accumulator keeps its own power;
 * - norm 1 and inf: the sum and the max of the magnitudes.
 * The blocks depend only on the runs, never on threads. */
#include <string.h>

#include "cpu/elementwise_math.h"
#include "cpu/reduce_loops.h"

#define STAT_BLOCK 256

typedef void (*gather_fn)(double *buf, const char *p, ptrdiff_t step, int64_t n);
typedef void (*block_fn)(dlx_reduce_acc *a, const double *x, int64_t n);

/* Runs block on each converted block of the run. */
static inline void run_blocks(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n,
                              gather_fn gather, block_fn block) {
  double buf[STAT_BLOCK];
  for (int64_t i = 0; i < n; i += STAT_BLOCK) {
    int64_t len = n - i < STAT_BLOCK ? n - i : STAT_BLOCK;
    gather(buf, p + i * step, step, len);
    block(a, buf, len);
  }
}

/* Sum of x[i] in four lanes. */
static CLONE_INLINE double lane_sum(const double *x, int64_t n) {
  double s[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int j = 0; j < 4; j++) s[j] += x[i + j];
  for (; i < n; i++) s[0] += x[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

/* Max of x[i] and -inf in four lanes, NaN ignored; *nan is set when x holds a NaN. */
static CLONE_INLINE double lane_max(const double *x, int64_t n, bool *nan) {
  double m[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
  int64_t bad[4] = {0, 0, 0, 0}, i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int j = 0; j < 4; j++) {
      m[j] = x[i + j] > m[j] ? x[i + j] : m[j];
      bad[j] += x[i + j] != x[i + j];
    }
  }
  for (; i < n; i++) {
    m[0] = x[i] > m[0] ? x[i] : m[0];
    bad[0] += x[i] != x[i];
  }
  *nan |= (bad[0] | bad[1] | bad[2] | bad[3]) != 0;
  double a = m[0] > m[1] ? m[0] : m[1], b = m[2] > m[3] ? m[2] : m[3];
  return a > b ? a : b;
}

/* ---- var and std */

static void var_block(dlx_reduce_acc *a, const double *x, int64_t n) {
  double mean = lane_sum(x, n) / (double)n, dev[STAT_BLOCK];
  for (int64_t i = 0; i < n; i++) dev[i] = (x[i] - mean) * (x[i] - mean);
  double m2 = lane_sum(dev, n);
  if (a->n == 0) {
    a->m = mean;
    a->s = m2;
  } else {
    double na = (double)a->n, total = na + (double)n, delta = mean - a->m;
    a->m += delta * ((double)n / total);
    a->s += m2 + delta * delta * (na * (double)n / total);
  }
  a->n += n;
}

static double var_result(const dlx_reduce_acc *a, int64_t count) {
  double divisor = (double)count - a->param;
  if (count == 0) return NAN;
  return a->s / (divisor > 0 ? divisor : 0.0);
}

/* ---- logsumexp */

/* 2^k for -1023 <= k <= 1023, from its bits where it is normal. */
static double power_of_two(int k) {
  if (k < -1022) return ldexp(1.0, k);
  uint64_t bits = (uint64_t)(k + 1023) << 52;
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

SIMD_CLONES static void lse_block(dlx_reduce_acc *a, const double *x, int64_t n) {
  double e[STAT_BLOCK], max = lane_max(x, n, &a->nan);
  if (a->nan || max == -INFINITY || a->m == INFINITY) return;
  if (max == INFINITY) {
    a->m = INFINITY;
    return;
  }
  for (int64_t i = 0; i < n; i++) e[i] = x[i] - max;
  /* SLEEF's vector exp (faithful), the elementwise op's kernel */
  dlx_cpu_math_kernel(DLX_EW_EXP, DLX_FLOAT64)((char *)e, (const char *)e, NULL, n, DLX_CPU_EW_VV);
  double sum = lane_sum(e, n);
  if (max > a->m) {
    a->s = a->s * exp(a->m - max) + sum;
    a->m = max;
  } else {
    a->s += sum * exp(max - a->m);
  }
}

static double lse_result(const dlx_reduce_acc *a, int64_t count) {
  (void)count;
  if (a->nan) return NAN;
  if (a->m == INFINITY || a->m == -INFINITY) return a->m;
  return a->m + log(a->s);
}

/* ---- norms */

static void norm1_block(dlx_reduce_acc *a, const double *x, int64_t n) {
  double mag[STAT_BLOCK];
  for (int64_t i = 0; i < n; i++) mag[i] = fabs(x[i]);
  a->s += lane_sum(mag, n);
}

static double norm1_result(const dlx_reduce_acc *a, int64_t count) {
  (void)count;
  return a->s;
}

/* The largest magnitude of the block (0 when empty of numbers), noting NaN in *nan. */
static CLONE_INLINE double max_magnitude(const double *x, int64_t n, bool *nan) {
  double mag[STAT_BLOCK];
  for (int64_t i = 0; i < n; i++) mag[i] = fabs(x[i]);
  double max = lane_max(mag, n, nan);
  return max > 0 ? max : 0.0;
}

static void norminf_block(dlx_reduce_acc *a, const double *x, int64_t n) {
  double max = max_magnitude(x, n, &a->nan);
  a->m = max > a->m ? max : a->m;
}

static double norminf_result(const dlx_reduce_acc *a, int64_t count) {
  (void)count;
  return a->nan ? NAN : a->m;
}

static void norm2_block(dlx_reduce_acc *a, const double *x, int64_t n) {
  double sq[STAT_BLOCK], max = max_magnitude(x, n, &a->nan);
  if (max == INFINITY) a->inf = true;
  if (a->nan || a->inf || max == 0) return;
  /* 2^-e, exact: 1 <= max * scale < 2 (e >= -1022 keeps 2^-e finite for subnormal blocks) */
  int e = ilogb(max) < -1022 ? -1022 : ilogb(max);
  double scale = power_of_two(-e);
  for (int64_t i = 0; i < n; i++) sq[i] = (x[i] * scale) * (x[i] * scale);
  double s = lane_sum(sq, n);
  if (a->n == 0) {
    a->s = s;
    a->e = e;
  } else if (e > a->e) {
    a->s = ldexp(a->s, (int)(2 * (a->e - e))) + s; /* exact unless it underflows: negligible */
    a->e = e;
  } else {
    a->s += ldexp(s, (int)(2 * (e - a->e)));
  }
  a->n = 1;
}

static double norm2_result(const dlx_reduce_acc *a, int64_t count) {
  (void)count;
  if (a->nan) return NAN;
  if (a->inf) return INFINITY;
  return a->n == 0 ? 0.0 : ldexp(sqrt(a->s), (int)a->e);
}

/* ---- the kernels: a gather and the runs per input dtype, a finish per op and output dtype */

/* op's run over a line of dtype name: the elements gathered as doubles, a block at a time. */
#define DEFINE_RUN(op, name)                                                                       \
  static void op##_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {           \
    run_blocks(a, p, step, n, gather_##name, op##_block);                                          \
  }
#define DEFINE_GATHER(name, T, CAST)                                                               \
  static void gather_##name(double *buf, const char *p, ptrdiff_t step, int64_t n) {               \
    EACH(T, p, step, n, buf[i] = (double)(CAST)load_##name(q););                                   \
  }                                                                                                \
  DEFINE_RUN(var, name)                                                                            \
  DEFINE_RUN(lse, name)                                                                            \
  DEFINE_RUN(norm1, name)                                                                          \
  DEFINE_RUN(norm2, name)                                                                          \
  DEFINE_RUN(norminf, name)
#define INT_GATHER(name, e, T, C, ...) DEFINE_GATHER(name, T, C)
#define FLOAT_GATHER(name, e, T, ACC, field) DEFINE_GATHER(name, T, ACC)
INT_TYPES(INT_GATHER)
FLOAT_TYPES(FLOAT_GATHER)

#define DEFINE_FINISH(name, e, T, ACC, field)                                                      \
  static void var_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {               \
    store_##name(out, DLX_CONVERT(name, var_result(a, count)));                                    \
  }                                                                                                \
  static void std_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {               \
    store_##name(out, DLX_CONVERT(name, sqrt(var_result(a, count))));                              \
  }                                                                                                \
  static void lse_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {               \
    store_##name(out, DLX_CONVERT(name, lse_result(a, count)));                                    \
  }                                                                                                \
  static void norm1_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {             \
    store_##name(out, DLX_CONVERT(name, norm1_result(a, count)));                                  \
  }                                                                                                \
  static void norm2_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {             \
    store_##name(out, DLX_CONVERT(name, norm2_result(a, count)));                                  \
  }                                                                                                \
  static void norminf_finish_##name(const dlx_reduce_acc *a, char *out, int64_t count) {           \
    store_##name(out, DLX_CONVERT(name, norminf_result(a, count)));                                \
  }
FLOAT_TYPES(DEFINE_FINISH)

/* Which run and finish an (op, p) pair takes, by name. */
enum { K_VAR, K_STD, K_LSE, K_NORM1, K_NORM2, K_NORMINF, K_COUNT };

#define INT_ROW(name, e, ...)                                                                      \
  [e] = {{var_##name, var_finish_float32},     {var_##name, std_finish_float32},                   \
         {lse_##name, lse_finish_float32},     {norm1_##name, norm1_finish_float32},               \
         {norm2_##name, norm2_finish_float32}, {norminf_##name, norminf_finish_float32}},
#define FLOAT_ROW(name, e, ...)                                                                    \
  [e] = {{var_##name, var_finish_##name},     {var_##name, std_finish_##name},                     \
         {lse_##name, lse_finish_##name},     {norm1_##name, norm1_finish_##name},                 \
         {norm2_##name, norm2_finish_##name}, {norminf_##name, norminf_finish_##name}},

static const struct {
  dlx_reduce_run_fn run;
  dlx_reduce_finish_fn finish;
} stat_kernels[NTYPES][K_COUNT] = {INT_TYPES(INT_ROW) FLOAT_TYPES(FLOAT_ROW)};

static int kernel_index(dlx_stat_op op, double param) {
  switch (op) {
  case DLX_STAT_VAR:
    return K_VAR;
  case DLX_STAT_STD:
    return K_STD;
  case DLX_STAT_LOGSUMEXP:
    return K_LSE;
  case DLX_STAT_NORM:
    return param == 1 ? K_NORM1 : param == 2 ? K_NORM2 : param == INFINITY ? K_NORMINF : -1;
  }
  return -1;
}

int dlx_cpu_stat_kernel(dlx_stat_op op, double param, dlx_dtype src, dlx_reduce_kernel *out) {
  int k = kernel_index(op, param);
  if (k < 0 || (int)src < 0 || src >= NTYPES || stat_kernels[src][k].run == NULL) return -1;
  *out = (dlx_reduce_kernel){.run = stat_kernels[src][k].run,
                             .finish = stat_kernels[src][k].finish,
                             .out = dlx_dtype_kind(src) == DLX_KIND_FLOAT ? src : DLX_FLOAT32};
  return 0;
}

void dlx_cpu_stat_acc_init(dlx_reduce_acc *acc, dlx_stat_op op, double param) {
  acc->stop = false;
  acc->param = param;
  acc->n = 0;
  acc->e = 0;
  acc->m = op == DLX_STAT_LOGSUMEXP ? -INFINITY : 0.0;
  acc->s = 0.0;
  acc->nan = false;
  acc->inf = false;
}
