/* reduce_loops.h -- what the families of CPU reduction loops share (reduce_sums.c,
 * reduce_columns.c, reduce_extremes.c, reduce_logical.c): the dtype lists they expand, the
 * element loop, the SIMD attributes, and the tables each family gives the dispatch
 * (reduce_kernels.c). Private to src/cpu. */
#ifndef DLX_CPU_REDUCE_LOOPS_H
#define DLX_CPU_REDUCE_LOOPS_H

#include <math.h>

#include "common/convert.h"
#include "core/dtype.h"
#include "cpu/reduce_kernels.h"

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
 * flight, so fewer instructions per byte read faster even when memory is the bottleneck: SSE2
 * takes a load and an add per 16 bytes, AVX2 one fused load-add per 32 (bench/RESULTS.md has the
 * measurements). The lanes stay independent
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

static inline double mean_of(double sum, int64_t count) {
  return count > 0 ? sum / (double)count : NAN;
}

/* ---- the tables: one per op, indexed by the source dtype; {NULL} where unsupported */

#define NTYPES (DLX_COMPLEX128 + 1)

/* Designated, so that the column-sum fields (dlx_cpu_reduce_columns_of) start out NULL without
 * a warning. */
#define ENTRY(e, run_fn, finish_fn, out_dtype)                                                     \
  [e] = {.run = run_fn, .finish = finish_fn, .out = out_dtype},
#define FLOAT_ENTRY(run, fin, name, e, ...) ENTRY(e, run##_##name, fin##_##name, e)

/* reduce_sums.c */
extern const dlx_reduce_kernel dlx_cpu_sum_kernels[NTYPES];
extern const dlx_reduce_kernel dlx_cpu_prod_kernels[NTYPES];
extern const dlx_reduce_kernel dlx_cpu_mean_kernels[NTYPES];
/* reduce_extremes.c */
extern const dlx_reduce_kernel dlx_cpu_min_kernels[NTYPES];
extern const dlx_reduce_kernel dlx_cpu_max_kernels[NTYPES];
extern const dlx_reduce_kernel dlx_cpu_argmin_kernels[NTYPES];
extern const dlx_reduce_kernel dlx_cpu_argmax_kernels[NTYPES];
/* reduce_logical.c */
extern const dlx_reduce_kernel dlx_cpu_all_kernels[NTYPES];
extern const dlx_reduce_kernel dlx_cpu_any_kernels[NTYPES];
/* reduce_columns.c: fills k's column-sum fields for (op, src) (sum and mean of floats). */
void dlx_cpu_reduce_columns_of(dlx_reduce_op op, dlx_dtype src, dlx_reduce_kernel *k);

#endif
