/* promote.c -- promotion of dtypes and weak scalars, and the same-kind rule. */
#include "core/promote.h"

#include <stdint.h>

int dlx_kind_rank(dlx_kind kind) {
  switch (kind) {
  case DLX_KIND_BOOL:
    return 0;
  case DLX_KIND_INT:
  case DLX_KIND_UINT:
    return 1;
  case DLX_KIND_FLOAT:
    return 2;
  case DLX_KIND_COMPLEX:
    return 3;
  default:
    return -1;
  }
}

static dlx_dtype wider(dlx_dtype a, dlx_dtype b) {
  return dlx_dtype_bits(a) >= dlx_dtype_bits(b) ? a : b;
}

/* A signed and an unsigned integer: the signed one when it is wider, else the signed dtype one
 * step wider than the unsigned one; nothing is wider than uint64 but float64 (NumPy 2). */
static dlx_dtype mixed_integers(dlx_dtype s, dlx_dtype u) {
  if (dlx_dtype_bits(s) > dlx_dtype_bits(u)) return s;
  switch (u) {
  case DLX_UINT8:
    return DLX_INT16;
  case DLX_UINT16:
    return DLX_INT32;
  case DLX_UINT32:
    return DLX_INT64;
  default:
    return DLX_FLOAT64;
  }
}

static dlx_dtype two_floats(dlx_dtype a, dlx_dtype b) {
  if (a == b) return a;
  if ((a == DLX_FLOAT16 && b == DLX_BFLOAT16) || (a == DLX_BFLOAT16 && b == DLX_FLOAT16))
    return DLX_FLOAT32; /* neither holds the other's range and precision */
  return wider(a, b);
}

/* The complex dtype whose parts hold a float of dtype f. */
static dlx_dtype complex_of(dlx_dtype f) {
  return f == DLX_FLOAT64 ? DLX_COMPLEX128 : DLX_COMPLEX64;
}

static dlx_dtype real_of(dlx_dtype c) { return c == DLX_COMPLEX128 ? DLX_FLOAT64 : DLX_FLOAT32; }

/* a's kind ranks at least b's. */
static dlx_dtype promote_ordered(dlx_dtype a, dlx_dtype b) {
  dlx_kind ka = dlx_dtype_kind(a), kb = dlx_dtype_kind(b);
  if (kb == DLX_KIND_BOOL) return a;
  switch (ka) {
  case DLX_KIND_INT:
    return kb == DLX_KIND_INT ? wider(a, b) : mixed_integers(a, b);
  case DLX_KIND_UINT:
    return kb == DLX_KIND_UINT ? wider(a, b) : mixed_integers(b, a);
  case DLX_KIND_FLOAT:
    return kb == DLX_KIND_FLOAT ? two_floats(a, b) : a;
  case DLX_KIND_COMPLEX:
    if (kb == DLX_KIND_COMPLEX) return wider(a, b);
    if (kb == DLX_KIND_FLOAT) return complex_of(two_floats(real_of(a), b));
    return a;
  default:
    return a; /* bool with bool */
  }
}

static int storage_only(dlx_dtype d, dlx_error *err) {
  return dlx_fail(err, DLX_TYPE_ERROR,
                  "cannot compute on a %s tensor: storage-only dtypes are exchanged and "
                  "copied, never computed",
                  dlx_dtype_info_of(d)->name);
}

int dlx_result_dtype(dlx_dtype a, dlx_dtype b, dlx_dtype *out, dlx_error *err) {
  int ra = dlx_kind_rank(dlx_dtype_kind(a)), rb = dlx_kind_rank(dlx_dtype_kind(b));
  if (ra < 0) return storage_only(a, err);
  if (rb < 0) return storage_only(b, err);
  if (a == b) { /* every dtype promotes with itself to itself: the commonest call, made short */
    *out = a;
    return 0;
  }
  *out = ra >= rb ? promote_ordered(a, b) : promote_ordered(b, a);
  return 0;
}

int dlx_result_dtype_scalar(dlx_dtype t, dlx_kind scalar, dlx_dtype *out, dlx_error *err) {
  int rt = dlx_kind_rank(dlx_dtype_kind(t)), rs = dlx_kind_rank(scalar);
  if (rt < 0) return storage_only(t, err);
  if (rs < 0) return dlx_fail(err, DLX_TYPE_ERROR, "a scalar operand must be a number");
  if (rs <= rt)
    *out = t;
  else if (scalar == DLX_KIND_COMPLEX)
    *out = rt == 2 ? complex_of(t) : DLX_COMPLEX64;
  else if (scalar == DLX_KIND_FLOAT)
    *out = DLX_FLOAT32; /* dlx's default float */
  else
    *out = DLX_INT64; /* a bool tensor and an integer */
  return 0;
}

/* The range of an integer dtype, as int64 bounds and, for unsigned ones, a uint64 maximum. */
static void integer_range(dlx_dtype d, int64_t *lo, uint64_t *hi) {
  int bits = dlx_dtype_bits(d);
  if (d == DLX_BOOL) {
    *lo = 0;
    *hi = 1;
  } else if (dlx_dtype_kind(d) == DLX_KIND_UINT) {
    *lo = 0;
    *hi = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
  } else {
    *lo = bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
    *hi = bits == 64 ? (uint64_t)INT64_MAX : (UINT64_C(1) << (bits - 1)) - 1;
  }
}

int dlx_check_scalar_fits(const dlx_scalar *value, dlx_dtype dtype, dlx_error *err) {
  dlx_kind kind = dlx_dtype_kind(dtype);
  int64_t lo;
  uint64_t hi;
  bool fits;
  if (kind != DLX_KIND_INT && kind != DLX_KIND_UINT) return 0;
  integer_range(dtype, &lo, &hi);
  switch (value->kind) {
  case DLX_KIND_INT:
    fits = value->v.i >= lo && (value->v.i < 0 || (uint64_t)value->v.i <= hi);
    if (!fits)
      return dlx_fail(err, DLX_VALUE_ERROR, "the value %lld does not fit in %s",
                      (long long)value->v.i, dlx_dtype_info_of(dtype)->name);
    return 0;
  case DLX_KIND_UINT:
    if (value->v.u > hi)
      return dlx_fail(err, DLX_VALUE_ERROR, "the value %llu does not fit in %s",
                      (unsigned long long)value->v.u, dlx_dtype_info_of(dtype)->name);
    return 0;
  default:
    return 0; /* bool fits every integer; floats never join an integer dtype weakly */
  }
}

bool dlx_can_cast_same_kind(dlx_dtype from, dlx_dtype to) {
  int rf = dlx_kind_rank(dlx_dtype_kind(from)), rt = dlx_kind_rank(dlx_dtype_kind(to));
  return rf >= 0 && rt >= 0 && rf <= rt;
}
