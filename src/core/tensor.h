/* tensor.h -- a tensor is a view: buffer + dtype + shape + strides (in elements) + offset (in
 * elements, from buffer->data) + read-only flag. Views share the buffer and nothing is
 * normalised behind the user's back: strides are kept exactly as made or imported.
 *
 * Dims are 0-based here; the Lua binding converts its 1-based, negative-from-the-end dims. */
#ifndef DLX_CORE_TENSOR_H
#define DLX_CORE_TENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/buffer.h"
#include "core/dtype.h"
#include "core/error.h"

#define DLX_MAX_NDIM 32

typedef struct dlx_tensor {
  dlx_buffer *buffer; /* one reference; NULL for a closed tensor */
  dlx_dtype dtype;
  int32_t ndim;
  bool readonly;
  int64_t offset; /* elements from buffer->data to the first element (index 0 everywhere) */
  int64_t shape[DLX_MAX_NDIM];
  int64_t strides[DLX_MAX_NDIM];
} dlx_tensor;

/* The address of t's first element, for dtypes of whole bytes (a device address on a GPU). */
static inline void *dlx_tensor_first_byte(const dlx_tensor *t) {
  return (char *)t->buffer->data + t->offset * dlx_dtype_bits(t->dtype) / 8;
}

/* ---- life cycle */
/* A new C-contiguous tensor on device (uninitialised memory). */
int dlx_tensor_empty(dlx_tensor *out, const int64_t *shape, int32_t ndim, dlx_dtype dtype,
                     DLDevice device, dlx_error *err);
/* The same in a kind of memory (see dlx_buffer_new_memory). */
int dlx_tensor_empty_memory(dlx_tensor *out, const int64_t *shape, int32_t ndim, dlx_dtype dtype,
                            DLDevice device, dlx_memory memory, dlx_error *err);
/* out becomes another view of src's buffer (retained) with the same metadata. */
void dlx_tensor_share(dlx_tensor *out, const dlx_tensor *src);
/* Drops the buffer reference; idempotent. */
void dlx_tensor_close(dlx_tensor *t);

/* ---- queries */
int64_t dlx_tensor_numel(const dlx_tensor *t);
/* A shape as messages write it, "{2, 3}", in buf (cut short at cap bytes); returns buf. */
#define DLX_SHAPE_TEXT (8 + DLX_MAX_NDIM * 22)
const char *dlx_shape_text(char *buf, size_t cap, const int64_t *shape, int32_t ndim);
/* A dim of size > 1 with stride 0 (an expand): one element stands at several places, so the
 * core refuses writes to such a view, and exports and imports of it are READ_ONLY. */
bool dlx_tensor_is_broadcast(const dlx_tensor *t);
bool dlx_tensor_is_contiguous(const dlx_tensor *t); /* C order; size-1 dims' strides ignored;
                                                        a zero-size tensor is contiguous */
/* Storage bytes of numel elements (rounded up for sub-byte types). */
int64_t dlx_tensor_nbytes(const dlx_tensor *t);
/* Lowest and one-past-highest element offsets (relative to buffer->data) the view touches;
 * both 0 for zero-size tensors. */
void dlx_tensor_extent(const dlx_tensor *t, int64_t *lo, int64_t *hi);
/* Removes the dims whose bits are set in `dims` (bit d: dim d) from the view, in place: what a
 * reduction without keepdim does to its result. */
void dlx_tensor_drop_dims(dlx_tensor *t, uint64_t dims);
static inline DLDevice dlx_tensor_device(const dlx_tensor *t) { return t->buffer->device; }
/* Checks a shape (no negative sizes, element count fits in int64 and in memory). */
int dlx_check_shape(const int64_t *shape, int32_t ndim, dlx_dtype dtype, dlx_error *err);
/* C-contiguous strides for shape. */
void dlx_contiguous_strides(const int64_t *shape, int32_t ndim, int64_t *strides);

/* ---- views: out is a new view sharing src's buffer (retained). On error out is untouched.
 * dims are 0-based and already range-checked by the caller unless stated. */
int dlx_view(dlx_tensor *out, const dlx_tensor *src, const int64_t *shape, int32_t ndim,
             dlx_error *err); /* shape may hold one -1; fails if strides don't allow it */
int dlx_permute(dlx_tensor *out, const dlx_tensor *src, const int32_t *dims, dlx_error *err);
int dlx_transpose(dlx_tensor *out, const dlx_tensor *src, int32_t d1, int32_t d2, dlx_error *err);
/* Elements first, first+step, ... while within [first, last] (step > 0) or [last, first]
 * (step < 0); first and last are 0-based and already clamped; step != 0. */
int dlx_slice(dlx_tensor *out, const dlx_tensor *src, int32_t dim, int64_t first, int64_t last,
              int64_t step, dlx_error *err);
int dlx_select(dlx_tensor *out, const dlx_tensor *src, int32_t dim, int64_t index, dlx_error *err);
int dlx_squeeze(dlx_tensor *out, const dlx_tensor *src, int32_t dim /* -1: all size-1 dims */,
                dlx_error *err);
int dlx_unsqueeze(dlx_tensor *out, const dlx_tensor *src, int32_t dim /* 0..ndim */,
                  dlx_error *err);
/* shape may hold -1 (keep); new leading dims allowed; size-1 dims broadcast with stride 0. */
int dlx_expand(dlx_tensor *out, const dlx_tensor *src, const int64_t *shape, int32_t ndim,
               dlx_error *err);
int dlx_flip(dlx_tensor *out, const dlx_tensor *src, int32_t dim, dlx_error *err);

#endif
