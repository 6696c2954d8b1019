/* reduce_kernels.h -- typed pieces of the CPU reductions. For each output element the driver
 * (reduce.c) initialises an accumulator, hands it every 1-D run of the reduced elements, and
 * lets the kernel write the result. */
#ifndef DLX_CPU_REDUCE_KERNELS_H
#define DLX_CPU_REDUCE_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"

/* Levels of the pairwise stack: level k holds the partial sum of 2^k runs; the top level
 * absorbs everything beyond 2^31 runs. */
#define DLX_REDUCE_LEVELS 32

typedef struct dlx_reduce_acc {
  bool stop;     /* the result is known: the remaining runs may be skipped */
  bool has;      /* min, max, argmin, argmax: a first value has been taken */
  bool flag;     /* all, any */
  int64_t seen;  /* argmin, argmax: elements walked before this run */
  int64_t index; /* argmin, argmax: 0-based position of the extreme so far */
  int64_t i;     /* min, max of signed integers and bool */
  uint64_t u;    /* min, max of unsigned integers; integer sum and product (wrapping) */
  float f[2];    /* float16, bfloat16, float32, complex64: min, max, product */
  double d[2];   /* float64, complex128: min, max, product */
  uint32_t used; /* sum, mean: bit k set when stack[k] holds a partial sum */
  double stack[DLX_REDUCE_LEVELS][2];
  /* var, std, logsumexp, norm (reduce_stats.c) */
  double param; /* var, std: the correction */
  int64_t n;    /* var: elements taken; norm 2: 1 once a nonzero block was taken */
  int64_t e;    /* norm 2: the sum of squares is s * 2^(2e) */
  double m;     /* var: the mean; logsumexp: the max; norm inf: the max */
  double s;     /* var: the sum of squared deviations; logsumexp: sum of exp(x - m); norms */
  bool nan;     /* a NaN was seen (logsumexp, norms) */
  bool inf;     /* an infinite magnitude was seen (norm 2) */
} dlx_reduce_acc;

/* Adds the run of n elements at p, p + step, ... (step in bytes, n >= 1) to acc. */
typedef void (*dlx_reduce_run_fn)(dlx_reduce_acc *acc, const char *p, ptrdiff_t step, int64_t n);
/* Writes the result for count reduced elements to out (in the kernel's output dtype). */
typedef void (*dlx_reduce_finish_fn)(const dlx_reduce_acc *acc, char *out, int64_t count);

/* Column sums, for reductions over outer axes (the outputs lie side by side in memory): a
 * strip of up to DLX_REDUCE_STRIP neighbouring outputs takes src rows, so the adds vectorise
 * across outputs. Rows are summed as a cascade: DLX_REDUCE_ROW_BLOCK rows naively in the
 * accumulator type, then the blocks pairwise, in a binary counter of double levels. A whole
 * block of rows is summed in registers, a few vectors of columns at a time (its rows read as
 * DLX_REDUCE_ROW_BLOCK streams), so the block's partial sums never go through memory. */
#define DLX_REDUCE_STRIP 2048
#define DLX_REDUCE_ROW_BLOCK 16
#define DLX_REDUCE_COLUMN_LEVELS 32

typedef struct dlx_reduce_columns {
  int64_t rows;                     /* rows added */
  uint64_t used;                    /* bit k set when level[k] holds a partial sum */
  float block_f[DLX_REDUCE_STRIP];  /* the current block: float16, bfloat16, float32 */
  double block_d[DLX_REDUCE_STRIP]; /* float64 */
  double level[DLX_REDUCE_COLUMN_LEVELS][DLX_REDUCE_STRIP];
} dlx_reduce_columns;

/* Adds the nrows rows of width elements (each contiguous) at rows, rows + row_step, ... (in
 * bytes) to the strip's sums. */
typedef void (*dlx_reduce_rows_fn)(dlx_reduce_columns *c, const char *rows, ptrdiff_t row_step,
                                   int64_t nrows, int64_t width);
/* Writes the strip's sums (or means: sums / count) to out, out + out_step, ... */
typedef void (*dlx_reduce_columns_finish_fn)(dlx_reduce_columns *c, char *out, ptrdiff_t out_step,
                                             int64_t width, int64_t count);

typedef struct dlx_reduce_kernel {
  dlx_reduce_run_fn run;
  dlx_reduce_finish_fn finish;
  dlx_dtype out; /* the output dtype it writes */
  /* Column sums (sum and mean of floats; NULL otherwise). */
  dlx_reduce_rows_fn add_rows;
  dlx_reduce_columns_finish_fn finish_columns;
} dlx_reduce_kernel;

/* 0 and *out for a supported (op, dtype) pair; -1 otherwise (storage-only dtypes; min, max,
 * argmin and argmax of complex). */
int dlx_cpu_reduce_kernel(dlx_reduce_op op, dlx_dtype src, dlx_reduce_kernel *out);
void dlx_cpu_reduce_acc_init(dlx_reduce_acc *acc, dlx_reduce_op op);
void dlx_cpu_reduce_columns_init(dlx_reduce_columns *c);

/* reduce_stats.c: the kernel of var, std, logsumexp and norm (param: p) for src (0, or -1 when
 * not supported), and their accumulators' start. */
int dlx_cpu_stat_kernel(dlx_stat_op op, double param, dlx_dtype src, dlx_reduce_kernel *out);
void dlx_cpu_stat_acc_init(dlx_reduce_acc *acc, dlx_stat_op op, double param);

#endif
