/* cast_loops.h -- 1-D inner loops of the CPU backend: raw element copies and dtype casts.
 * A loop processes n elements; steps are in bytes and may be negative or 0 (a broadcast
 * source). Element addresses need no particular alignment. */
#ifndef DLX_CPU_CAST_LOOPS_H
#define DLX_CPU_CAST_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#include "core/dtype.h"

typedef void (*dlx_cpu_loop_fn)(char *dst, ptrdiff_t dst_step, const char *src, ptrdiff_t src_step,
                                int64_t n);

/* Bit-for-bit copy of itemsize-byte elements (itemsize 1, 2, 4, 8 or 16); NULL otherwise. */
dlx_cpu_loop_fn dlx_cpu_copy_loop(int64_t itemsize);
/* dst = cast(src) for two computable dtypes; NULL when either is storage-only. */
dlx_cpu_loop_fn dlx_cpu_cast_loop(dlx_dtype src, dlx_dtype dst);

#endif
