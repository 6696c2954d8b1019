/* kernels.h -- the CPU backend's copy, fill, elementwise and reduce, as cpu_backend.c puts them in
 * the dlx_backend table; each follows the contract of its entry in core/backend.h. */
#ifndef DLX_CPU_KERNELS_H
#define DLX_CPU_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"

int dlx_cpu_copy(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err);
int dlx_cpu_fill(const dlx_tensor *dst, const dlx_scalar *value, dlx_error *err);
int dlx_cpu_elementwise(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in,
                        dlx_dtype compute, dlx_error *err);
int dlx_cpu_reduce(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims, const dlx_tensor *dst,
                   dlx_error *err);
int dlx_cpu_reduce_stat(dlx_stat_op op, double param, const dlx_tensor *src, uint64_t dims,
                        const dlx_tensor *dst, dlx_error *err);
int dlx_cpu_along_dim(dlx_dim_op op, const dlx_tensor *src, int32_t dim, const dlx_tensor *dst,
                      dlx_error *err);
int dlx_cpu_fill_random(const dlx_tensor *dst, const dlx_random_request *r, dlx_error *err);
/* random_multinomial.c */
int dlx_cpu_multinomial(const dlx_multinomial_request *r, dlx_error *err);
/* indexing.c */
int dlx_cpu_index_op(dlx_index_request *r, dlx_error *err);
/* sort.c */
int dlx_cpu_sort_rows(const dlx_tensor *src, bool descending, const dlx_tensor *values,
                      const dlx_tensor *indices, dlx_error *err);
/* order_stats.c */
int dlx_cpu_row_op(const dlx_row_request *r, dlx_error *err);
/* image.c */
int dlx_cpu_image_op(const dlx_image_request *r, dlx_error *err);
/* count.c */
int dlx_cpu_count_op(const dlx_count_request *r, dlx_error *err);

/* matmul.c */
int dlx_cpu_matmul(const dlx_matmul_request *r, dlx_error *err);
/* conv.c: im2col slices, each one BLAS product, a slice per task of the pool. */
int dlx_cpu_conv(const dlx_conv_request *r, dlx_error *err);

/* linalg.c */
int dlx_cpu_linalg(dlx_linalg_request *r, dlx_error *err);

/* Packed fp4/fp6 copy (subbyte.c): dst and src have the same sub-byte dtype and shape. */
void dlx_cpu_copy_subbyte(const dlx_tensor *dst, const dlx_tensor *src);

#endif
