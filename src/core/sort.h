/* sort.h -- sort, argsort, topk and unique: the checks, moving the sorted dim last and back, and
 * the backends' sort_rows (src/core/backend.h). The order is src/common/sort_keys.h's;
 * docs/lua-api.md ("Sorting") says what it promises. Dims are 0-based. */
#ifndef DLX_CORE_SORT_H
#define DLX_CORE_SORT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor.h"

/* The key kind (a DLX_SORT_KEY_* of sort_keys.h) of a dtype, or -1 when it has no order
 * (complex and storage-only dtypes). */
int dlx_sort_key_kind(dlx_dtype dtype);

/* 0 when src's elements have an order (a dtype with a key kind), else the buffer's error or a
 * TypeError (complex, storage-only dtypes); name is the Lua function, for messages. The check of
 * every op that compares elements: sorting here, the order statistics of order_stats.h. */
int dlx_check_ordered(const dlx_tensor *src, const char *name, dlx_error *err);

/* values, indices = src sorted stably along dim (0-based, checked: ValueError; a 0-d src sorts
 * as one element along dim 0): new C-contiguous tensors of src's shape on its device, values of
 * src's dtype and indices int64, 1-based. TypeError for complex and storage-only dtypes,
 * DeviceError for a device without sort_rows. name is the Lua function, for messages. */
int dlx_sort(dlx_tensor *values, dlx_tensor *indices, const dlx_tensor *src, int32_t dim,
             bool descending, const char *name, dlx_error *err);

/* The k largest (or smallest) elements along dim, in order (largest first, or smallest first),
 * with their 1-based indices: dlx_sort's first k along dim. ValueError unless 0 <= k <= the
 * dim's size (1 for a 0-d src, whose k = 0 gives shape {0}). */
int dlx_topk(dlx_tensor *values, dlx_tensor *indices, const dlx_tensor *src, int64_t k, int32_t dim,
             bool largest, dlx_error *err);

/* values = the distinct elements of src (flattened) in ascending order, a 1-D tensor on src's
 * device; -0.0 and 0.0 are one value (the first in src's order stands for it), and so are all
 * NaNs (last). When not NULL, inverse (int64, src's shape) gets for each element the 1-based
 * position of its value in values, and counts (int64, values' shape) how often each value
 * occurs. The sort runs on src's device, the compaction on the host. */
int dlx_unique(dlx_tensor *values, dlx_tensor *inverse, dlx_tensor *counts, const dlx_tensor *src,
               dlx_error *err);

#endif
