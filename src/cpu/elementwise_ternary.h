/* elementwise_ternary.h -- the CPU kernels of the ops with three or four operands: where,
 * clamp, lerp and nan_to_num. */
#ifndef DLX_CPU_ELEMENTWISE_TERNARY_H
#define DLX_CPU_ELEMENTWISE_TERNARY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/elementwise.h"

/* n results into out (contiguous); in[k] points to n contiguous elements of input k, or to one
 * value that stands for all n when scalar[k]. Inputs have the dtype dlx_ew_input_dtype gives
 * (bool for where's condition), the result dlx_ew_result_of's. out may be exactly one of the
 * inputs, never partly overlap one. */
typedef void (*dlx_cpu_ew_kernel_n)(char *out, const char *const *in, const bool *scalar,
                                    int64_t n);

/* The kernel of op for kernel dtype kdtype; NULL when there is none. */
dlx_cpu_ew_kernel_n dlx_cpu_ew_ternary_kernel(dlx_ew_op op, dlx_dtype kdtype);

#endif
