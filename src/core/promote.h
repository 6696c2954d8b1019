/* promote.h -- the dtype rules of elementwise operations: which dtype two operands promote to,
 * how a Lua number (a weak scalar, NEP 50) joins a tensor, and which results may be written into
 * a destination of another dtype. No Lua, no device: tables and checks only. */
#ifndef DLX_CORE_PROMOTE_H
#define DLX_CORE_PROMOTE_H

#include <stdbool.h>

#include "core/dtype.h"
#include "core/error.h"
#include "core/scalar.h"

/* The order of kinds that promotion and the same-kind rule follow: bool 0 < int = uint 1 <
 * float 2 < complex 3; storage-only dtypes have none (-1). */
int dlx_kind_rank(dlx_kind kind);

/* The dtype two tensors of dtypes a and b promote to: the array API's table where it defines
 * one; NumPy 2 for mixed signed and unsigned integers (int64 with uint64 gives float64); bool
 * with anything gives the other; integers with floats give the float dtype; float16 with
 * bfloat16 gives float32; complex with a real float gives the complex dtype wide enough for both.
 * TypeError for storage-only dtypes. */
int dlx_result_dtype(dlx_dtype a, dlx_dtype b, dlx_dtype *out, dlx_error *err);

/* The dtype a tensor of dtype t and a weak scalar of kind `scalar` promote to. A scalar whose
 * kind is not above the tensor's takes the tensor's dtype; above it: float32 for an integer or
 * bool tensor with a float scalar, complex64 with a complex one, the complex of a float
 * tensor's precision, int64 for a bool tensor with an integer. */
int dlx_result_dtype_scalar(dlx_dtype t, dlx_kind scalar, dlx_dtype *out, dlx_error *err);

/* ValueError when an integer or bool scalar does not fit the integer dtype it joins (no silent
 * wrap: uint8 + 300, uint8 + -1); floats and complex values always convert. */
int dlx_check_scalar_fits(const dlx_scalar *value, dlx_dtype dtype, dlx_error *err);

/* The same-kind rule of in-place and out= results: from may be written into to when to's kind
 * is not below from's (bool -> int -> float -> complex; int and uint are one kind). */
bool dlx_can_cast_same_kind(dlx_dtype from, dlx_dtype to);

#endif
