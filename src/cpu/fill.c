/* fill.c -- the CPU fill: the value is converted once to the destination dtype's bytes (by the
 * core, with the cast rules of copy), then written over any strides as a broadcast copy. */
#include "core/scalar.h"
#include "cpu/cast_loops.h"
#include "cpu/kernels.h"
#include "cpu/strided_iter.h"

int dlx_cpu_fill(const dlx_tensor *dst, const dlx_scalar *value, dlx_error *err) {
  char bytes[16];
  int rc;
  if (dst->ndim < 0 || dst->ndim > DLX_MAX_NDIM)
    return dlx_fail(err, DLX_VALUE_ERROR, "fill: ndim %d is out of range", (int)dst->ndim);
  rc = dlx_scalar_to_bytes(dst->dtype, value, bytes, err);
  if (rc != 0) return rc;
  int64_t size = dlx_itemsize(dst->dtype);
  const int64_t *strides[1] = {dst->strides};
  const int64_t offsets[1] = {dst->offset};
  dlx_strided it;
  if (!dlx_strided_init(&it, dst->ndim, dst->shape, 1, strides, offsets,
                        DLX_STRIDED_REORDER | DLX_STRIDED_DROP_BROADCAST))
    return 0;
  dlx_cpu_loop_fn loop = dlx_cpu_copy_loop(size);
  char *base = dst->buffer->data;
  ptrdiff_t step = (ptrdiff_t)(dlx_strided_inner_stride(&it, 0) * size);
  int64_t n = dlx_strided_inner_size(&it);
  int64_t index[DLX_MAX_NDIM] = {0}, pos[1] = {it.offset[0]};
  do {
    loop(base + pos[0] * size, step, bytes, 0, n);
  } while (dlx_strided_next(&it, index, pos));
  return 0;
}
