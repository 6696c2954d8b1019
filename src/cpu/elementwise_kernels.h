/* elementwise_kernels.h -- the typed inner loops of the CPU's elementwise ops. A kernel works on
 * operands that already have its dtype: n elements of contiguous arrays, or one value standing
 * for all n (a scalar), and writes n contiguous results. Pointers are aligned for their type;
 * out may be exactly one of the inputs (in place), never partly overlap one. */
#ifndef DLX_CPU_ELEMENTWISE_KERNELS_H
#define DLX_CPU_ELEMENTWISE_KERNELS_H

#include <stdint.h>

#include "core/elementwise.h"

typedef enum dlx_cpu_ew_mode {
  DLX_CPU_EW_VV, /* a and b contiguous (unary ops: a contiguous) */
  DLX_CPU_EW_VS, /* a contiguous, b one value */
  DLX_CPU_EW_SV  /* a one value, b contiguous */
} dlx_cpu_ew_mode;

typedef void (*dlx_cpu_ew_kernel)(char *out, const char *a, const char *b, int64_t n,
                                  dlx_cpu_ew_mode mode);

/* The dtype a kernel computes in for a compute dtype: float32 for float16 and bfloat16 (which
 * round once when stored), the dtype itself otherwise. */
dlx_dtype dlx_cpu_ew_kernel_dtype(dlx_dtype compute);
/* The kernel of op for operands of kernel dtype kdtype; NULL when there is none. Its results
 * have the dtype dlx_ew_result_of(op, kdtype). */
dlx_cpu_ew_kernel dlx_cpu_ew_kernel_for(dlx_ew_op op, dlx_dtype kdtype);

#endif
