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

#endif
