/* scalar.h -- one value crossing between the core and its callers (fill values, item()). */
#ifndef DLX_CORE_SCALAR_H
#define DLX_CORE_SCALAR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dtype.h"

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

#endif
