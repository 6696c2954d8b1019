/* scalar.h -- one value crossing between the core and its callers (fill values, item(), the
 * scalar operands of elementwise ops), and its bytes as an element of a dtype. */
#ifndef DLX_CORE_SCALAR_H
#define DLX_CORE_SCALAR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dtype.h"
#include "core/error.h"

typedef struct dlx_scalar {
  dlx_kind kind; /* DLX_KIND_BOOL, _INT, _UINT, _FLOAT or _COMPLEX */
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double f;
    double c[2]; /* re, im */
  } v;
} dlx_scalar;

/* value as one element of dtype, converted by the casting rules of copy (core/backend.h), as
 * every backend's fills and scalar operands take it: the dtype's bytes at the start of out (16
 * bytes), the rest zero. A TypeError for a storage-only dtype
 * (which core/ops.c refuses before any backend sees the value). */
int dlx_scalar_to_bytes(dlx_dtype dtype, const dlx_scalar *value, void *out, dlx_error *err);

#endif
