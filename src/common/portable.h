/* portable.h -- what lets a header of src/common be included as C11, as OpenCL C 1.2 and as CUDA
 * C++ (host and device code) alike.
 *
 * The headers of src/common hold the rules every backend's kernels share (the dtype conversions
 * and their rounding). They use only what the three languages have in common: fixed-width
 * integers, memcpy, static inline functions, no compound literals and no function pointers.
 * OpenCL C has no C library headers: its compiler finds <stdint.h> and <string.h> in a shim
 * folder of its own (src/ze/kernels/shim). */
#ifndef DLX_COMMON_PORTABLE_H
#define DLX_COMMON_PORTABLE_H

#include <stdint.h>
#include <string.h>

/* A function of the shared rules: inline, and callable from CUDA device code too. */
#if defined(__CUDACC__)
#define DLX_SHARED static inline __host__ __device__
#else
#define DLX_SHARED static inline
#endif

/* Number of significant bits of m (m > 0). */
DLX_SHARED int dlx_bit_length(uint64_t m) {
#if defined(__OPENCL_C_VERSION__)
  return 64 - (int)clz(m); /* (long long is 128 bits in OpenCL C: no __builtin_clzll) */
#elif defined(__CUDA_ARCH__)
  return 64 - __clzll((long long)m);
#elif defined(__GNUC__)
  return 64 - __builtin_clzll(m);
#else
  int n = 0;
  while (m != 0) {
    m >>= 1;
    n++;
  }
  return n;
#endif
}

#endif
