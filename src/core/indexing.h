/* indexing.h -- index_select, gather, scatter, index_add, masked select/fill/scatter, nonzero:
 * argument checks, casts and dispatch to the backend entry index_op (backend.h).
 *
 * Dims are 0-based here; index tensors are int64 and hold 1-based indices, or negative ones
 * counting from the end, exactly as the Lua user wrote them. Every index is checked before
 * anything is written: a bad one is a ValueError naming it. */
#ifndef DLX_CORE_INDEXING_H
#define DLX_CORE_INDEXING_H

#include "core/backend.h"
#include "core/scalar.h"
#include "core/tensor.h"

/* out = the slices of src along dim at the positions of the 1-D index (a new tensor). */
int dlx_index_select(dlx_tensor *out, const dlx_tensor *src, int32_t dim, const dlx_tensor *index,
                     dlx_error *err);
/* out[p] = src[p with dim replaced by index[p]]; index has src's ndim, no dim larger than
 * src's except dim itself, and gives out its shape. */
int dlx_gather(dlx_tensor *out, const dlx_tensor *src, int32_t dim, const dlx_tensor *index,
               dlx_error *err);
/* dst[p with dim replaced by index[p]] = src[p] (accumulate: +=) for p over index's shape;
 * src is cast to dst's dtype and has no dim smaller than index's. */
int dlx_scatter(const dlx_tensor *dst, int32_t dim, const dlx_tensor *index, const dlx_tensor *src,
                bool accumulate, dlx_error *err);
/* dst.select(dim, index[j]) += src.select(dim, j); duplicates accumulate. */
int dlx_index_add(const dlx_tensor *dst, int32_t dim, const dlx_tensor *index,
                  const dlx_tensor *src, dlx_error *err);
/* out = the elements of src where the bool mask is true, 1-D, row-major; src and mask
 * broadcast together. */
int dlx_masked_select(dlx_tensor *out, const dlx_tensor *src, const dlx_tensor *mask,
                      dlx_error *err);
/* dst[mask] = value; the mask broadcasts to dst's shape. */
int dlx_masked_fill(const dlx_tensor *dst, const dlx_tensor *mask, const dlx_scalar *value,
                    dlx_error *err);
/* dst[mask] = src: src (cast to dst's dtype) broadcasts to {the count of true elements}. */
int dlx_masked_assign(const dlx_tensor *dst, const dlx_tensor *mask, const dlx_tensor *src,
                      dlx_error *err);
/* out = int64 {n, ndim}: the 1-based positions of the nonzero elements, row-major. */
int dlx_nonzero(dlx_tensor *out, const dlx_tensor *src, dlx_error *err);

#endif
