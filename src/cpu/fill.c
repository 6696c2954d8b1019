/* fill.c -- the CPU fill: the value is converted once to the destination dtype's bytes (with
 * the cast rules of copy), then written over any strides as a broadcast copy. */
#include "common/convert.h"
#include "cpu/cast_loops.h"
#include "cpu/kernels.h"
#include "cpu/strided_iter.h"

#define STORE_SCALAR(name, e, T)                                                                   \
  case e:                                                                                          \
    switch (value->kind) {                                                                         \
    case DLX_KIND_BOOL:                                                                            \
      store_##name(out, DLX_CONVERT(name, (int64_t)value->v.b));                                   \
      break;                                                                                       \
    case DLX_KIND_INT:                                                                             \
      store_##name(out, DLX_CONVERT(name, value->v.i));                                            \
      break;                                                                                       \
    case DLX_KIND_UINT:                                                                            \
      store_##name(out, DLX_CONVERT(name, value->v.u));                                            \
      break;                                                                                       \
    case DLX_KIND_FLOAT:                                                                           \
      store_##name(out, DLX_CONVERT(name, value->v.f));                                            \
      break;                                                                                       \
    case DLX_KIND_COMPLEX:                                                                         \
      store_##name(out, DLX_CONVERT(name, ((dlx_c128){value->v.c[0], value->v.c[1]})));            \
      break;                                                                                       \
    case DLX_KIND_STORAGE:                                                                         \
      return -1;                                                                                   \
    }                                                                                              \
    return 0;

/* Writes value as dtype into out (16 bytes at most); -1 for a storage-only dtype or kind. */
static int scalar_bytes(dlx_dtype dtype, const dlx_scalar *value, char *out) {
  switch (dtype) {
    DLX_COMPUTABLE_TYPES(STORE_SCALAR)
  default:
    return -1;
  }
}

int dlx_cpu_fill(const dlx_tensor *dst, const dlx_scalar *value, dlx_error *err) {
  char bytes[16];
  if (dst->ndim < 0 || dst->ndim > DLX_MAX_NDIM)
    return dlx_fail(err, DLX_VALUE_ERROR, "fill: ndim %d is out of range", (int)dst->ndim);
  if (scalar_bytes(dst->dtype, value, bytes) != 0)
    return dlx_fail(err, DLX_TYPE_ERROR, "fill: cannot fill a %s tensor with this value",
                    dlx_dtype_info_of(dst->dtype)->name);
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
