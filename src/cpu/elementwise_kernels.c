/* elementwise_kernels.c -- the portable kernels of the binary and simple unary ops (their loops
 * are in elementwise_kernels_loops.h), the choice of an instruction set at run time (for these
 * kernels and the math kernels), and between the portable kernels and the AVX2 build of the same
 * loops. */
#include "cpu/elementwise_kernels.h"

#include "cpu/elementwise_math.h"

#define KERNEL_TABLE dlx_cpu_ew_kernels_portable
#define STREAM_TABLE dlx_cpu_ew_stream_kernels_portable
#include "cpu/elementwise_kernels_loops.h"

bool dlx_cpu_isa_available(dlx_cpu_isa isa) {
  switch (isa) {
  case DLX_CPU_ISA_PORTABLE:
    return true;
#if defined(DLX_CPU_X86)
  case DLX_CPU_ISA_AVX2:
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  case DLX_CPU_ISA_AVX512:
    return __builtin_cpu_supports("avx512f");
#endif
  default:
    return false;
  }
}

dlx_cpu_isa dlx_cpu_best_isa(void) {
  if (dlx_cpu_isa_available(DLX_CPU_ISA_AVX512)) return DLX_CPU_ISA_AVX512;
  if (dlx_cpu_isa_available(DLX_CPU_ISA_AVX2)) return DLX_CPU_ISA_AVX2;
  return DLX_CPU_ISA_PORTABLE;
}

const char *dlx_cpu_isa_name(dlx_cpu_isa isa) {
  return isa == DLX_CPU_ISA_AVX512 ? "avx512" : isa == DLX_CPU_ISA_AVX2 ? "avx2" : "portable";
}

dlx_dtype dlx_cpu_ew_kernel_dtype(dlx_dtype compute) {
  return compute == DLX_FLOAT16 || compute == DLX_BFLOAT16 ? DLX_FLOAT32 : compute;
}

dlx_cpu_ew_kernel dlx_cpu_ew_kernel_isa(dlx_ew_op op, dlx_dtype kdtype, dlx_cpu_isa isa) {
  if ((int)op < 0 || op >= DLX_EW_NUM_OPS || kdtype > DLX_COMPLEX128 || !dlx_cpu_isa_available(isa))
    return NULL;
#if defined(DLX_CPU_X86)
  /* AVX-512 CPUs have AVX2, and these loops are no faster in 512-bit vectors: they take the AVX2
   * kernels (the math kernels have their own AVX-512 build). */
  if (isa == DLX_CPU_ISA_AVX2 || isa == DLX_CPU_ISA_AVX512)
    return dlx_cpu_ew_kernels_avx2[op][kdtype];
#endif
  return dlx_cpu_ew_kernels_portable[op][kdtype];
}

dlx_cpu_ew_kernel dlx_cpu_ew_kernel_for(dlx_ew_op op, dlx_dtype kdtype) {
  dlx_cpu_ew_kernel kernel;
  if ((int)op < 0 || op >= DLX_EW_NUM_OPS || kdtype > DLX_COMPLEX128) return NULL;
  /* every call of a small op comes here: one test of the CPU (the features libgcc read once at
   * load time), not the choice of the best ISA */
  kernel = dlx_cpu_ew_kernels_portable[op][kdtype];
#if defined(DLX_CPU_X86)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    kernel = dlx_cpu_ew_kernels_avx2[op][kdtype];
#endif
  return kernel != NULL ? kernel : dlx_cpu_math_kernel(op, kdtype);
}

dlx_cpu_ew_kernel dlx_cpu_ew_stream_kernel_isa(dlx_ew_op op, dlx_dtype kdtype, dlx_cpu_isa isa) {
  if ((int)op < 0 || op >= DLX_EW_NUM_OPS || kdtype > DLX_COMPLEX128 || !dlx_cpu_isa_available(isa))
    return NULL;
#if defined(DLX_CPU_X86)
  if (isa == DLX_CPU_ISA_AVX2 || isa == DLX_CPU_ISA_AVX512)
    return dlx_cpu_ew_stream_kernels_avx2[op][kdtype];
#endif
  return dlx_cpu_ew_stream_kernels_portable[op][kdtype];
}

dlx_cpu_ew_kernel dlx_cpu_ew_stream_kernel_for(dlx_ew_op op, dlx_dtype kdtype) {
  if ((int)op < 0 || op >= DLX_EW_NUM_OPS || kdtype > DLX_COMPLEX128) return NULL;
#if defined(DLX_CPU_X86)
  /* the ISA of dlx_cpu_ew_kernel_for's kernels, whose bytes these give */
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return dlx_cpu_ew_stream_kernels_avx2[op][kdtype];
#endif
  return dlx_cpu_ew_stream_kernels_portable[op][kdtype];
}
