/* scalar.c -- a scalar's bytes as an element of a dtype, with the shared conversions of
 * common/convert.h: the one place a fill value or a scalar operand is converted, for every
 * backend. */
#include <string.h>

#include "common/convert.h"
#include "core/scalar.h"

#define STORE_SCALAR(name, e, T)                                                                   \
  case e:                                                                                          \
    switch (value->kind) {                                                                         \
    case DLX_KIND_BOOL:                                                                            \
      store_##name(out, DLX_CONVERT(name, (int64_t)value->v.b));                                   \
      return true;                                                                                 \
    case DLX_KIND_INT:                                                                             \
      store_##name(out, DLX_CONVERT(name, value->v.i));                                            \
      return true;                                                                                 \
    case DLX_KIND_UINT:                                                                            \
      store_##name(out, DLX_CONVERT(name, value->v.u));                                            \
      return true;                                                                                 \
    case DLX_KIND_COMPLEX:                                                                         \
      store_##name(out, DLX_CONVERT(name, dlx_c128_of(value->v.c[0], value->v.c[1])));             \
      return true;                                                                                 \
    case DLX_KIND_FLOAT:                                                                           \
      store_##name(out, DLX_CONVERT(name, value->v.f));                                            \
      return true;                                                                                 \
    default:                                                                                       \
      return false;                                                                                \
    }

static bool store(dlx_dtype dtype, const dlx_scalar *value, char *out) {
  switch (dtype) {
    DLX_COMPUTABLE_TYPES(STORE_SCALAR)
  default:
    return false;
  }
}

int dlx_scalar_to_bytes(dlx_dtype dtype, const dlx_scalar *value, void *out, dlx_error *err) {
  memset(out, 0, 16);
  if (!store(dtype, value, out))
    return dlx_fail(err, DLX_TYPE_ERROR, "fill: cannot fill a %s tensor with this value",
                    dlx_dtype_info_of(dtype)->name);
  return 0;
}
