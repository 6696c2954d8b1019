/* elementwise_math.c -- the math ops' kernels: the portable ones (SLEEF's scalar functions,
 * from elementwise_math_loops.h), the choice of an ISA at run time, and conj, real and imag. */
#include "cpu/elementwise_math.h"

#include <sleef.h>
#include <string.h>

#include "core/dtype.h"

/* ---- the portable kernels: SLEEF's scalar functions, one element per "vector" */

#define VF float
#define VD double
#define LF 1
#define LD 1
#define F10(f) Sleef_##f##f_u10
#define D10(f) Sleef_##f##_u10
#define SQRTF(v) sqrtf(v)
#define SQRTD(v) sqrt(v)
#define MATH_TABLE dlx_cpu_math_portable

#include "cpu/elementwise_math_loops.h"

/* ---- the choice */

dlx_cpu_ew_kernel dlx_cpu_math_kernel_isa(dlx_ew_op op, dlx_dtype kdtype, dlx_cpu_isa isa) {
  int d = kdtype == DLX_FLOAT32 ? 0 : kdtype == DLX_FLOAT64 ? 1 : -1;
  if (op < DLX_EW_SQRT || op > DLX_EW_ERF || d < 0 || !dlx_cpu_isa_available(isa)) return NULL;
#if defined(DLX_CPU_X86)
  if (isa == DLX_CPU_ISA_AVX2) return dlx_cpu_math_avx2[op - DLX_EW_SQRT][d];
  if (isa == DLX_CPU_ISA_AVX512) return dlx_cpu_math_avx512[op - DLX_EW_SQRT][d];
#endif
  return dlx_cpu_math_portable[op - DLX_EW_SQRT][d];
}

/* ---- conj, real and imag. Real operands: conj and real copy, imag gives zeros, whatever the
 * dtype (so one kernel per item size). Complex: the parts, or the conjugate. */

#define COPY_KERNEL(name, BYTES)                                                                   \
  static void name(char *out, const char *a, const char *b, int64_t n, dlx_cpu_ew_mode mode) {     \
    (void)b;                                                                                       \
    (void)mode;                                                                                    \
    if (out != a) memcpy(out, a, (size_t)n *(BYTES));                                              \
  }

#define ZERO_KERNEL(name, BYTES)                                                                   \
  static void name(char *out, const char *a, const char *b, int64_t n, dlx_cpu_ew_mode mode) {     \
    (void)a;                                                                                       \
    (void)b;                                                                                       \
    (void)mode;                                                                                    \
    memset(out, 0, (size_t)n *(BYTES));                                                            \
  }

COPY_KERNEL(copy_1, 1)
COPY_KERNEL(copy_2, 2)
COPY_KERNEL(copy_4, 4)
COPY_KERNEL(copy_8, 8)
ZERO_KERNEL(zero_1, 1)
ZERO_KERNEL(zero_2, 2)
ZERO_KERNEL(zero_4, 4)
ZERO_KERNEL(zero_8, 8)

/* The parts of a complex: PART 0 the real part, 1 the imaginary part; conj negates im. */
#define COMPLEX_PART_KERNEL(name, R, PART)                                                         \
  static void name(char *out_, const char *a_, const char *b, int64_t n, dlx_cpu_ew_mode mode) {   \
    R *out = (R *)(void *)out_;                                                                    \
    const R *a = (const R *)(const void *)a_;                                                      \
    (void)b;                                                                                       \
    (void)mode;                                                                                    \
    for (int64_t i = 0; i < n; i++) out[i] = a[2 * i + (PART)];                                    \
  }

#define CONJ_KERNEL(name, R)                                                                       \
  static void name(char *out_, const char *a_, const char *b, int64_t n, dlx_cpu_ew_mode mode) {   \
    R *out = (R *)(void *)out_;                                                                    \
    const R *a = (const R *)(const void *)a_;                                                      \
    (void)b;                                                                                       \
    (void)mode;                                                                                    \
    for (int64_t i = 0; i < n; i++) {                                                              \
      out[2 * i] = a[2 * i];                                                                       \
      out[2 * i + 1] = -a[2 * i + 1];                                                              \
    }                                                                                              \
  }

COMPLEX_PART_KERNEL(real_c64, float, 0)
COMPLEX_PART_KERNEL(imag_c64, float, 1)
COMPLEX_PART_KERNEL(real_c128, double, 0)
COMPLEX_PART_KERNEL(imag_c128, double, 1)
CONJ_KERNEL(conj_c64, float)
CONJ_KERNEL(conj_c128, double)

static dlx_cpu_ew_kernel parts_kernel(dlx_ew_op op, dlx_dtype kdtype) {
  static const dlx_cpu_ew_kernel copies[9] = {
      [1] = copy_1, [2] = copy_2, [4] = copy_4, [8] = copy_8};
  static const dlx_cpu_ew_kernel zeros[9] = {
      [1] = zero_1, [2] = zero_2, [4] = zero_4, [8] = zero_8};
  int64_t size = dlx_itemsize(kdtype);
  if (kdtype == DLX_COMPLEX64)
    return op == DLX_EW_CONJ ? conj_c64 : op == DLX_EW_REAL ? real_c64 : imag_c64;
  if (kdtype == DLX_COMPLEX128)
    return op == DLX_EW_CONJ ? conj_c128 : op == DLX_EW_REAL ? real_c128 : imag_c128;
  if (size < 1 || size > 8) return NULL;
  return op == DLX_EW_IMAG ? zeros[size] : copies[size];
}

dlx_cpu_ew_kernel dlx_cpu_math_kernel(dlx_ew_op op, dlx_dtype kdtype) {
  if (op == DLX_EW_CONJ || op == DLX_EW_REAL || op == DLX_EW_IMAG) return parts_kernel(op, kdtype);
  return dlx_cpu_math_kernel_isa(op, kdtype, dlx_cpu_best_isa());
}
