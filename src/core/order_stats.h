/* order_stats.h -- order statistics (kthvalue, median, nanmedian, mode, quantile, nanquantile),
 * the scans cummax, cummin and logcumsumexp, and nansum, nanmean and count_nonzero. The first
 * two groups move the dim last and call the backends' row_op (core/backend.h); the last three
 * are built of elementwise ops and sums, so they run wherever those do. Dims are 0-based. */
#ifndef DLX_CORE_ORDER_STATS_H
#define DLX_CORE_ORDER_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/tensor.h"

/* The op's name in Lua and in messages. */
const char *dlx_row_op_name(dlx_row_op op);

/* values (src's dtype) and indices (int64, 1-based) of KTH (k 1-based, ValueError unless
 * 1 <= k <= the dim's size), MEDIAN, NANMEDIAN or MODE along dim; keepdim keeps it as size 1.
 * dim < 0: over all elements flattened, into 0-d results (indices may then be NULL: no index
 * is computed). A 0-d src is one element along dim 0. TypeError for complex and storage-only
 * dtypes, ValueError for an empty dim, DeviceError for a device without row_op. */
int dlx_row_reduce(dlx_tensor *values, dlx_tensor *indices, dlx_row_op op, const dlx_tensor *src,
                   int32_t dim, bool keepdim, int64_t k, dlx_error *err);

/* The nq quantiles q[] (each in [0, 1], ValueError otherwise) of src along dim (dim < 0: all
 * elements flattened), of src's dtype (a float dtype: TypeError otherwise). The result's shape
 * is the reduced one (keepdim: with size 1 there; over all elements: every dim of size 1),
 * behind a first dim of nq unless q_scalar. ignore_nan: nanquantile. */
int dlx_quantile(dlx_tensor *out, const dlx_tensor *src, const double *q, int64_t nq, bool q_scalar,
                 int32_t dim, bool keepdim, dlx_interpolation how, bool ignore_nan, dlx_error *err);

/* values (indices: int64, 1-based; NULL for LOGCUMSUMEXP) of CUMMAX, CUMMIN or LOGCUMSUMEXP
 * along dim, of src's shape. LOGCUMSUMEXP's dtype is dlx_stat_dtype's. */
int dlx_row_scan(dlx_tensor *values, dlx_tensor *indices, dlx_row_op op, const dlx_tensor *src,
                 int32_t dim, dlx_error *err);

/* nansum and nanmean over the dims in the bitmask, as dlx_reduce's SUM and MEAN with NaN
 * counted as absent (an all-NaN extent: 0 and NaN). nanmean takes float dtypes only. */
int dlx_nansum(dlx_tensor *out, const dlx_tensor *src, uint64_t dims, bool keepdim, dlx_error *err);
int dlx_nanmean(dlx_tensor *out, const dlx_tensor *src, uint64_t dims, bool keepdim,
                dlx_error *err);

/* The number of non-zero elements over the dims in the bitmask (int64). */
int dlx_count_nonzero(dlx_tensor *out, const dlx_tensor *src, uint64_t dims, dlx_error *err);

#endif
