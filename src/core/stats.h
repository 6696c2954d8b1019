/* stats.h -- the reductions with a float result (var, std, logsumexp, norm) and the ops along one
 * dim (cumsum, cumprod, softmax, log_softmax): argument checks, dtype rules and dispatch to the
 * backends' optional reduce_stat and along_dim entries. */
#ifndef DLX_CORE_STATS_H
#define DLX_CORE_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"

/* "var", "std", ...: the op's name in Lua and in messages. */
const char *dlx_stat_name(dlx_stat_op op);
const char *dlx_dim_op_name(dlx_dim_op op);

/* The dtype of var, std, logsumexp, norm, softmax and log_softmax of `in`: float32 for bool and
 * integers, the dtype itself for real floats; TypeError for complex and storage-only dtypes. */
int dlx_stat_dtype(const char *name, dlx_dtype in, dlx_dtype *out, dlx_error *err);

/* out = op over the dims in the bitmask (0-based); keepdim keeps them as size 1. param is the
 * correction of var and std (finite, ValueError otherwise) and p of norm (1, 2 or inf,
 * ValueError otherwise). A device without the entry is a DeviceError. */
int dlx_reduce_stat(dlx_tensor *out, dlx_stat_op op, double param, const dlx_tensor *src,
                    uint64_t dims, bool keepdim, dlx_error *err);

/* out = op along dim (0-based; ValueError when out of range) of src, a new C-contiguous tensor of
 * src's shape. A 0-d src is taken as one element. A device without the entry is a DeviceError. */
int dlx_along_dim(dlx_tensor *out, dlx_dim_op op, const dlx_tensor *src, int32_t dim,
                  dlx_error *err);

#endif
