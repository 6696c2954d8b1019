/* elementwise_math_avx2.c -- the math kernels on SLEEF's AVX2 functions. Compiled with -mavx2
 * -mfma (CMakeLists.txt) on x86-64 and called only when the CPU has both
 * (dlx_cpu_math_kernel); elsewhere this file is empty. */
#if defined(__AVX2__) && defined(__FMA__)

#include <immintrin.h>
#include <sleef.h>

#define VF __m256
#define VD __m256d
#define LF 8
#define LD 4
#define F10(f) Sleef_##f##f8_u10avx2
#define D10(f) Sleef_##f##d4_u10avx2
#define SQRTF(v) _mm256_sqrt_ps(v)
#define SQRTD(v) _mm256_sqrt_pd(v)
#define MATH_TABLE dlx_cpu_math_avx2

#include "cpu/elementwise_math_loops.h"

#else
typedef int dlx_cpu_math_avx2_not_built; /* ISO C wants a declaration in every file */
#endif
