/* elementwise_math_avx512.c -- the math kernels on SLEEF's AVX-512 functions. Compiled with
 * -mavx512f (CMakeLists.txt) on x86-64 and called only when the CPU has AVX-512F
 * (dlx_cpu_math_kernel); elsewhere this file is empty. */
#if defined(__AVX512F__)

#include <immintrin.h>
#include <sleef.h>

#define VF __m512
#define VD __m512d
#define LF 16
#define LD 8
#define F10(f) Sleef_##f##f16_u10avx512f
#define D10(f) Sleef_##f##d8_u10avx512f
#define SQRTF(v) _mm512_sqrt_ps(v)
#define SQRTD(v) _mm512_sqrt_pd(v)
#define MATH_TABLE dlx_cpu_math_avx512

#include "cpu/elementwise_math_loops.h"

#else
typedef int dlx_cpu_math_avx512_not_built; /* ISO C wants a declaration in every file */
#endif
