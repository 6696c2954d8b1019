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
} dlx_reduce_acc;

/* Adds the run of n elements at p, p + step, ... (step in bytes, n >= 1) to acc. */
typedef void (*dlx_reduce_run_fn)(dlx_reduce_acc *acc, const char *p, ptrdiff_t step, int64_t n);
/* Writes the result for count reduced elements to out (in the kernel's output dtype). */
typedef void (*dlx_reduce_finish_fn)(const dlx_reduce_acc *acc, char *out, int64_t count);

typedef struct dlx_reduce_kernel {
  dlx_reduce_run_fn run;
  dlx_reduce_finish_fn finish;
  dlx_dtype out; /* the output dtype it writes */
} dlx_reduce_kernel;

/* 0 and *out for a supported (op, dtype) pair; -1 otherwise (storage-only dtypes; min, max,
 * argmin and argmax of complex). */
int dlx_cpu_reduce_kernel(dlx_reduce_op op, dlx_dtype src, dlx_reduce_kernel *out);
void dlx_cpu_reduce_acc_init(dlx_reduce_acc *acc, dlx_reduce_op op);

#endif
