/* elementwise_kernels_avx2.c -- the kernels of the binary and simple unary ops built for AVX2
 * (elementwise_kernels_loops.h). Compiled with -mavx2 -ffp-contract=off (CMakeLists.txt) on x86-64
 * and called only when the CPU has AVX2 (dlx_cpu_ew_kernel_for); elsewhere this file is empty. */
#if defined(__AVX2__)

#define KERNEL_TABLE dlx_cpu_ew_kernels_avx2
#define STREAM_TABLE dlx_cpu_ew_stream_kernels_avx2
#include "cpu/elementwise_kernels_loops.h"

#else
typedef int dlx_cpu_ew_kernels_avx2_not_built; /* ISO C wants a declaration in every file */
#endif
