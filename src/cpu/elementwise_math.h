/* elementwise_math.h -- the CPU kernels of the transcendental unary ops (sqrt ... erf) in
 * float32 and float64, vectorised with SLEEF and chosen at run time by what the CPU supports,
 * and the kernels of conj, real and imag. */
#ifndef DLX_CPU_ELEMENTWISE_MATH_H
#define DLX_CPU_ELEMENTWISE_MATH_H

#include "cpu/elementwise_kernels.h"

#define DLX_CPU_MATH_OPS (DLX_EW_ERF - DLX_EW_SQRT + 1)

/* The kernel of a math op (DLX_EW_SQRT ... DLX_EW_ERF) for kernel dtype float32 or float64 on
 * the given ISA; NULL for other ops and dtypes, or an ISA that is not available. */
dlx_cpu_ew_kernel dlx_cpu_math_kernel_isa(dlx_ew_op op, dlx_dtype kdtype, dlx_cpu_isa isa);

/* The kernel of op for kernel dtype kdtype among the math ops (on the best ISA) and conj, real
 * and imag (any dtype); NULL when op is none of them or has no kernel for kdtype. */
dlx_cpu_ew_kernel dlx_cpu_math_kernel(dlx_ew_op op, dlx_dtype kdtype);

/* The tables of the ISAs (elementwise_math_loops.h). */
extern const dlx_cpu_ew_kernel dlx_cpu_math_portable[DLX_CPU_MATH_OPS][2];
extern const dlx_cpu_ew_kernel dlx_cpu_math_avx2[DLX_CPU_MATH_OPS][2];
extern const dlx_cpu_ew_kernel dlx_cpu_math_avx512[DLX_CPU_MATH_OPS][2];

#endif
