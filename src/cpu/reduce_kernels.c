/* reduce_kernels.c -- per-dtype run and finish functions of the CPU reductions.
 *
 * Sums are pairwise: each run is summed by pw_* (blocks of PW_BLOCK elements in 8 interleaved
 * accumulators, halves recursively above that, like NumPy), and the partial sums of the runs
 * go onto a binary-counter stack (push_partial) that only adds partials of equal weight, so a
 * reduction split into many runs stays pairwise too. Integers sum and multiply in uint64_t
 * (wrapping, no UB); integer means sum in double, as NumPy does, so they cannot wrap. */
#include "cpu/reduce_kernels.h"

#include <math.h>

#include "cpu/convert.h"

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

/* ---- pairwise summation of one run */

#define PW_BLOCK 128

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
  static ACC fn(const char *p, ptrdiff_t step, int64_t n) {                                        \
    if (n <= PW_BLOCK) {                                                                           \
      if (step == (ptrdiff_t)sizeof(T)) return fn##_block(p, (ptrdiff_t)sizeof(T), n);             \
      return fn##_block(p, step, n);                                                               \
    }                                                                                              \
    int64_t half = n / 2;                                                                          \
    half -= half % 8;                                                                              \
    return fn(p, step, half) + fn(p + half * step, step, n - half);                                \
  }

#define DEFINE_FLOAT_PAIRWISE(name, e, T, ACC, field)                                              \
  DEFINE_PAIRWISE(pw_##name, T, ACC, load_##name)
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
    push_partial(a, pw_##name(p, step, n), 0);                                                     \
  }
INT_TYPES(DEFINE_INT_SUM)

/* ---- sum, mean and product of floats */

#define DEFINE_FLOAT_SUM(name, e, T, ACC, field)                                                   \
  static void sum_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {            \
    push_partial(a, pw_##name(p, step, n), 0);                                                     \
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
    push_partial(a, pw_##part(p, step, n), pw_##part(p + sizeof(R), step, n));                     \
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

/* ---- min, max, argmin, argmax. `better(v, best)` says v replaces best; for floats it is also
 * true for a NaN v (every comparison with NaN is false), which then ends the walk. */

#define MIN_BETTER(v, best) (!((v) >= (best)))
#define MAX_BETTER(v, best) (!((v) <= (best)))
#define FLOAT_NAN(v) ((v) != (v))
#define INT_NAN(v) 0

#define DEFINE_EXTREME(op, better, is_nan, name, T, C, field)                                      \
  static void op##_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {           \
    C best = a->has ? a->field : load_##name(p);                                                   \
    a->has = true;                                                                                 \
    EACH(T, p, step, n, {                                                                          \
      C v = load_##name(q);                                                                        \
      if (better(v, best)) {                                                                       \
        best = v;                                                                                  \
        if (is_nan(v)) {                                                                           \
          a->stop = true;                                                                          \
          break;                                                                                   \
        }                                                                                          \
      }                                                                                            \
    });                                                                                            \
    a->field = best;                                                                               \
  }                                                                                                \
  static void arg##op##_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {      \
    C best = a->has ? a->field : load_##name(p);                                                   \
    int64_t index = a->has ? a->index : a->seen;                                                   \
    a->has = true;                                                                                 \
    EACH(T, p, step, n, {                                                                          \
      C v = load_##name(q);                                                                        \
      if (better(v, best)) {                                                                       \
        best = v;                                                                                  \
        index = a->seen + i;                                                                       \
        if (is_nan(v)) {                                                                           \
          a->stop = true;                                                                          \
          break;                                                                                   \
        }                                                                                          \
      }                                                                                            \
    });                                                                                            \
    a->field = best;                                                                               \
    a->index = index;                                                                              \
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
DLX_CPU_TYPES(DEFINE_LOGICAL)

static void flag_finish(const dlx_reduce_acc *a, char *out, int64_t count) {
  (void)count;
  store_boolean(out, a->flag);
}

/* ---- the tables: one per op, indexed by the source dtype; {NULL} where unsupported */

#define NTYPES (DLX_COMPLEX128 + 1)

#define INT_SUM_ENTRY(name, e, T, C, field, se, sname) [e] = {sum_##name, sum_finish_##name, se},
#define INT_PROD_ENTRY(name, e, T, C, field, se, sname) [e] = {prod_##name, sum_finish_##name, se},
#define INT_MEAN_ENTRY(name, e, T, C, field, se, sname)                                            \
  [e] = {mean_##name, mean_finish_float64, DLX_FLOAT64},
#define FLOAT_ENTRY(run, fin, name, e, ...) [e] = {run##_##name, fin##_##name, e},
#define FLOAT_SUM_ENTRY(name, e, ...) FLOAT_ENTRY(sum, sum_finish, name, e)
#define FLOAT_MEAN_ENTRY(name, e, ...) FLOAT_ENTRY(sum, mean_finish, name, e)
#define FLOAT_PROD_ENTRY(name, e, ...) FLOAT_ENTRY(prod, prod_finish, name, e)
#define MIN_ENTRY(name, e, ...) FLOAT_ENTRY(min, extreme_finish, name, e)
#define MAX_ENTRY(name, e, ...) FLOAT_ENTRY(max, extreme_finish, name, e)
#define ARGMIN_ENTRY(name, e, ...) [e] = {argmin_##name, arg_finish, DLX_INT64},
#define ARGMAX_ENTRY(name, e, ...) [e] = {argmax_##name, arg_finish, DLX_INT64},
#define ALL_ENTRY(name, e, T) [e] = {all_##name, flag_finish, DLX_BOOL},
#define ANY_ENTRY(name, e, T) [e] = {any_##name, flag_finish, DLX_BOOL},

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
static const dlx_reduce_kernel all_kernels[NTYPES] = {DLX_CPU_TYPES(ALL_ENTRY)};
static const dlx_reduce_kernel any_kernels[NTYPES] = {DLX_CPU_TYPES(ANY_ENTRY)};

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
