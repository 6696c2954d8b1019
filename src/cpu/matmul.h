/* matmul.h -- what the CPU's matrix product (matmul.c, the backend entry) and its own loops
 * (matmul_small.c) share. */
#ifndef DLX_CPU_MATMUL_H
#define DLX_CPU_MATMUL_H

#include <stdint.h>

#include "core/backend.h"

/* The first element of batch element i of an operand, as a T *. */
#define DLX_CPU_OPERAND(T, o, i) ((T *)(o)->buffer->data + (o)->offset + (i) * (o)->batch_stride)

/* Computes batch element i of r with dlx's own loops, on the calling thread. */
typedef void (*dlx_cpu_product_fn)(const dlx_matmul_request *r, int64_t i);

/* The own loops for r->dtype (any computable dtype; NULL for others). */
dlx_cpu_product_fn dlx_cpu_small_product(dlx_dtype dtype);

/* Computes batch elements [begin, end) of r, on the calling thread. */
typedef void (*dlx_cpu_batch_fn)(const dlx_matmul_request *r, int64_t begin, int64_t end);

/* A kernel of fixed sizes for a whole batch (matmul_fixed.c): 3 x 3, 4 x 4 and 6 x 6 float32 and
 * float64 products with alpha 1 and beta 0, operands in any strides, on the CPU's best ISA; NULL
 * for other requests. It gives the bits of the own loops. */
dlx_cpu_batch_fn dlx_cpu_fixed_batch(const dlx_matmul_request *r);
/* The same on one ISA, "portable", "avx2" or "avx512" (tests); NULL where the CPU lacks it. */
dlx_cpu_batch_fn dlx_cpu_fixed_batch_isa(const dlx_matmul_request *r, const char *isa);

#endif
