/* elementwise_kernels.h -- the typed inner loops of the CPU's elementwise ops. A kernel works on
 * operands that already have its dtype: n elements of contiguous arrays, or one value standing
 * for all n (a scalar), and writes n contiguous results. Pointers are aligned for their type;
 * out may be exactly one of the inputs (in place), never partly overlap one. */
#ifndef DLX_CPU_ELEMENTWISE_KERNELS_H
#define DLX_CPU_ELEMENTWISE_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/elementwise.h"

typedef enum dlx_cpu_ew_mode {
  DLX_CPU_EW_VV, /* a and b contiguous (unary ops: a contiguous) */
  DLX_CPU_EW_VS, /* a contiguous, b one value */
  DLX_CPU_EW_SV  /* a one value, b contiguous */
} dlx_cpu_ew_mode;

typedef void (*dlx_cpu_ew_kernel)(char *out, const char *a, const char *b, int64_t n,
                                  dlx_cpu_ew_mode mode);

/* The instruction sets the kernels are built for, chosen at run time. */
typedef enum dlx_cpu_isa {
  DLX_CPU_ISA_PORTABLE, /* any CPU (plain x86-64 on x86-64) */
  DLX_CPU_ISA_AVX2,     /* x86-64 with AVX2 and FMA */
  DLX_CPU_ISA_AVX512,   /* x86-64 with AVX-512F */
  DLX_CPU_ISAS
} dlx_cpu_isa;

/* Whether this build has the kernels of isa and this CPU can run them. */
bool dlx_cpu_isa_available(dlx_cpu_isa isa);

/* The best available ISA, and its name ("avx512", "avx2", "portable"). */
dlx_cpu_isa dlx_cpu_best_isa(void);
const char *dlx_cpu_isa_name(dlx_cpu_isa isa);

/* The dtype a kernel computes in for a compute dtype: float32 for float16 and bfloat16 (which
 * round once when stored), the dtype itself otherwise. */
dlx_dtype dlx_cpu_ew_kernel_dtype(dlx_dtype compute);
/* The kernel of op for operands of kernel dtype kdtype; NULL when there is none. Its results
 * have the dtype dlx_ew_result_of(op, kdtype). */
dlx_cpu_ew_kernel dlx_cpu_ew_kernel_for(dlx_ew_op op, dlx_dtype kdtype);

/* The streamed kernel of op for kernel dtype kdtype: the same results as
 * dlx_cpu_ew_kernel_for's kernel, written with non-temporal stores (for results far larger than
 * the caches; each call ends with a store fence); NULL when op and kdtype have none (only add,
 * sub, mul and div of 32- and 64-bit numbers do, on x86-64). */
dlx_cpu_ew_kernel dlx_cpu_ew_stream_kernel_for(dlx_ew_op op, dlx_dtype kdtype);
/* The streamed kernel of isa (the AVX2 build for AVX-512 too), the same bytes as
 * dlx_cpu_ew_kernel_isa's kernel; NULL when there is none or isa is not available. */
dlx_cpu_ew_kernel dlx_cpu_ew_stream_kernel_isa(dlx_ew_op op, dlx_dtype kdtype, dlx_cpu_isa isa);

/* The kernel of a binary or simple unary op (not the math ops) for isa (the AVX2 build for
 * AVX-512 too); NULL when there is none or isa is not available. Every ISA's kernel computes the
 * same bytes. */
dlx_cpu_ew_kernel dlx_cpu_ew_kernel_isa(dlx_ew_op op, dlx_dtype kdtype, dlx_cpu_isa isa);

/* The tables of the ISAs (elementwise_kernels_loops.h), and of their streamed kernels. */
extern const dlx_cpu_ew_kernel dlx_cpu_ew_kernels_portable[DLX_EW_NUM_OPS][DLX_COMPLEX128 + 1];
extern const dlx_cpu_ew_kernel dlx_cpu_ew_kernels_avx2[DLX_EW_NUM_OPS][DLX_COMPLEX128 + 1];
extern const dlx_cpu_ew_kernel dlx_cpu_ew_stream_kernels_portable[DLX_EW_NUM_OPS]
                                                                 [DLX_COMPLEX128 + 1];
extern const dlx_cpu_ew_kernel dlx_cpu_ew_stream_kernels_avx2[DLX_EW_NUM_OPS][DLX_COMPLEX128 + 1];

#endif
