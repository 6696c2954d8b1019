/* copy.c -- the CPU copy: dst[i] = cast(src[i]) over any strides. The dims are prepared once
 * (strided_iter.h: in destination order, merged where both operands allow), then a 1-D loop
 * chosen per dtype pair runs along the inner dim. */
#include <stddef.h>

#include "cpu/cast_loops.h"
#include "cpu/kernels.h"
#include "cpu/strided_iter.h"

static int check_copy(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  if (dst->ndim != src->ndim || dst->ndim < 0 || dst->ndim > DLX_MAX_NDIM)
    return dlx_fail(err, DLX_VALUE_ERROR, "copy: ndim %d and %d differ or are out of range",
                    (int)dst->ndim, (int)src->ndim);
  for (int d = 0; d < dst->ndim; d++) {
    if (dst->shape[d] != src->shape[d])
      return dlx_fail(err, DLX_VALUE_ERROR, "copy: shapes differ in dim %d (%lld and %lld)", d,
                      (long long)dst->shape[d], (long long)src->shape[d]);
  }
  if (dst->dtype != src->dtype &&
      (dlx_dtype_is_storage_only(dst->dtype) || dlx_dtype_is_storage_only(src->dtype)))
    return dlx_fail(err, DLX_TYPE_ERROR, "copy: cannot cast %s to %s (storage-only dtype)",
                    dlx_dtype_info_of(src->dtype)->name, dlx_dtype_info_of(dst->dtype)->name);
  return 0;
}

int dlx_cpu_copy(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  int rc = check_copy(dst, src, err);
  if (rc != 0) return rc;
  int64_t dsize = dlx_itemsize(dst->dtype), ssize = dlx_itemsize(src->dtype);
  if (dsize == 0) {
    dlx_cpu_copy_subbyte(dst, src);
    return 0;
  }
  dlx_cpu_loop_fn loop = dst->dtype == src->dtype ? dlx_cpu_copy_loop(dsize)
                                                  : dlx_cpu_cast_loop(src->dtype, dst->dtype);
  const int64_t *strides[2] = {dst->strides, src->strides};
  const int64_t offsets[2] = {dst->offset, src->offset};
  dlx_strided it;
  if (!dlx_strided_init(&it, dst->ndim, dst->shape, 2, strides, offsets,
                        DLX_STRIDED_REORDER | DLX_STRIDED_DROP_BROADCAST))
    return 0; /* nothing to copy: the data pointers are not touched */
  char *dbase = dst->buffer->data;
  const char *sbase = src->buffer->data;
  ptrdiff_t dstep = (ptrdiff_t)(dlx_strided_inner_stride(&it, 0) * dsize);
  ptrdiff_t sstep = (ptrdiff_t)(dlx_strided_inner_stride(&it, 1) * ssize);
  int64_t n = dlx_strided_inner_size(&it);
  int64_t index[DLX_MAX_NDIM] = {0}, pos[2] = {it.offset[0], it.offset[1]};
  do {
    loop(dbase + pos[0] * dsize, dstep, sbase + pos[1] * ssize, sstep, n);
  } while (dlx_strided_next(&it, index, pos));
  return 0;
}
