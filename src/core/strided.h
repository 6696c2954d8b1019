/* strided.h -- views with strides the caller chooses (unfold, as_strided) and the questions of
 * memory shared between two views (NumPy's may_share_memory and shares_memory). Dims are
 * 0-based here; the Lua binding converts. */
#ifndef DLX_CORE_STRIDED_H
#define DLX_CORE_STRIDED_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/tensor.h"

/* Torch7's unfold: the windows of `size` elements, `step` apart, along dim: dim's size becomes
 * the number of windows, (shape[dim] - size) / step + 1, and a new last dim of `size` walks a
 * window with dim's stride. ValueError for size outside 0..shape[dim], step < 1 or a result with
 * more than DLX_MAX_NDIM dims. The view is read-only when its windows overlap (step < size), as
 * one element then stands at several places. */
int dlx_unfold(dlx_tensor *out, const dlx_tensor *src, int32_t dim, int64_t size, int64_t step,
               dlx_error *err);

/* A view of src's buffer with the given shape, strides (elements, any sign) and offset (elements
 * from the start of the buffer): ValueError when an element would fall outside the buffer's
 * bytes, or a stride times a size overflows. The view is read-only when src is, or when two of
 * its elements may share a memory location (dlx_strided_may_self_overlap). */
int dlx_as_strided(dlx_tensor *out, const dlx_tensor *src, const int64_t *shape,
                   const int64_t *strides, int32_t ndim, int64_t offset, dlx_error *err);

/* Whether two elements of t may stand at one memory location: a sufficient test for their
 * absence (the dims sorted by stride, each stride passes the span of the smaller ones). */
bool dlx_strided_may_self_overlap(const dlx_tensor *t);

/* NumPy's may_share_memory: both on one device and the byte ranges from their lowest to their
 * highest element intersect. */
bool dlx_may_share_memory(const dlx_tensor *a, const dlx_tensor *b);

/* NumPy's shares_memory: some byte belongs to an element of a and to an element of b, decided
 * exactly by splitting the layouts along their largest strides and dropping the parts whose
 * byte ranges cannot meet. *result is written on success; a ValueError when the decision takes
 * more than max_steps steps (NumPy's TooHardError). */
int dlx_shares_memory(const dlx_tensor *a, const dlx_tensor *b, int64_t max_steps, bool *result,
                      dlx_error *err);

#endif
