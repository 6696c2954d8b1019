/* vector_math.h -- declares that the C library has vector variants of exp and expf where it does
 * (glibc's libmvec on x86-64, linked through libm's linker script), so that gcc vectorises loops
 * that call them. gcc only does so in files built with -fno-math-errno (CMakeLists.txt lists
 * them); elsewhere, and with other compilers or C libraries, the loops call the scalar ones. */
#ifndef DLX_CPU_VECTOR_MATH_H
#define DLX_CPU_VECTOR_MATH_H

#include <math.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__)
extern float expf(float) __attribute__((simd("notinbranch")));
extern double exp(double) __attribute__((simd("notinbranch")));
#endif

#endif
