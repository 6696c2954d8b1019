/* elementwise.c -- the checks and preparation of elementwise ops, then dispatch to the backend:
 * dtypes (promote.h), broadcasting, the destination, overlap, and the integer errors that must
 * be found before a kernel writes anything. */
#include "core/elementwise.h"

#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/device.h"
#include "core/ops.h"
#include "core/promote.h"

/* The kinds of compute dtype an op takes. */
enum {
  K_BOOL = 1,
  K_INT = 2, /* signed and unsigned */
  K_FLOAT = 4,
  K_COMPLEX = 8,
  K_ALL = K_BOOL | K_INT | K_FLOAT | K_COMPLEX
};

/* What an op does to dtypes. */
enum {
  TO_FLOAT = 1,    /* bool and integer operands compute in float32 (true division, atan2, ...) */
  BOOL_RESULT = 2, /* comparisons, logical ops, isnan, ...: the result is bool */
  PART_RESULT = 4, /* abs, real, imag: complex operands give the real dtype of their precision */
  SKIP_FIRST = 8,  /* where: the condition takes no part in promotion */
  ONLY_FIRST = 16  /* nan_to_num: the values put in take x's dtype */
};

typedef struct op_info {
  const char *name;
  int kinds; /* K_* the compute dtype may have */
  int flags;
} op_info;

static const op_info ops[DLX_EW_NUM_OPS] = {
    [DLX_EW_ADD] = {"add", K_ALL, 0},
    [DLX_EW_SUB] = {"sub", K_INT | K_FLOAT | K_COMPLEX, 0},
    [DLX_EW_MUL] = {"mul", K_ALL, 0},
    [DLX_EW_DIV] = {"div", K_FLOAT | K_COMPLEX, TO_FLOAT},
    [DLX_EW_FLOOR_DIVIDE] = {"floor_divide", K_INT | K_FLOAT, 0},
    [DLX_EW_REMAINDER] = {"remainder", K_INT | K_FLOAT, 0},
    [DLX_EW_FMOD] = {"fmod", K_INT | K_FLOAT, 0},
    [DLX_EW_POW] = {"pow", K_INT | K_FLOAT | K_COMPLEX, 0},
    [DLX_EW_MAXIMUM] = {"maximum", K_BOOL | K_INT | K_FLOAT, 0},
    [DLX_EW_MINIMUM] = {"minimum", K_BOOL | K_INT | K_FLOAT, 0},
    [DLX_EW_ATAN2] = {"atan2", K_FLOAT, TO_FLOAT},
    [DLX_EW_HYPOT] = {"hypot", K_FLOAT, TO_FLOAT},
    [DLX_EW_COPYSIGN] = {"copysign", K_FLOAT, TO_FLOAT},
    [DLX_EW_EQ] = {"eq", K_ALL, BOOL_RESULT},
    [DLX_EW_NE] = {"ne", K_ALL, BOOL_RESULT},
    [DLX_EW_LT] = {"lt", K_BOOL | K_INT | K_FLOAT, BOOL_RESULT},
    [DLX_EW_LE] = {"le", K_BOOL | K_INT | K_FLOAT, BOOL_RESULT},
    [DLX_EW_GT] = {"gt", K_BOOL | K_INT | K_FLOAT, BOOL_RESULT},
    [DLX_EW_GE] = {"ge", K_BOOL | K_INT | K_FLOAT, BOOL_RESULT},
    [DLX_EW_LOGICAL_AND] = {"logical_and", K_ALL, BOOL_RESULT},
    [DLX_EW_LOGICAL_OR] = {"logical_or", K_ALL, BOOL_RESULT},
    [DLX_EW_LOGICAL_XOR] = {"logical_xor", K_ALL, BOOL_RESULT},
    [DLX_EW_BITWISE_AND] = {"bitwise_and", K_BOOL | K_INT, 0},
    [DLX_EW_BITWISE_OR] = {"bitwise_or", K_BOOL | K_INT, 0},
    [DLX_EW_BITWISE_XOR] = {"bitwise_xor", K_BOOL | K_INT, 0},
    [DLX_EW_BITWISE_LEFT_SHIFT] = {"bitwise_left_shift", K_INT, 0},
    [DLX_EW_BITWISE_RIGHT_SHIFT] = {"bitwise_right_shift", K_INT, 0},
    [DLX_EW_NEG] = {"neg", K_INT | K_FLOAT | K_COMPLEX, 0},
    [DLX_EW_ABS] = {"abs", K_ALL, PART_RESULT},
    [DLX_EW_SIGN] = {"sign", K_INT | K_FLOAT, 0},
    [DLX_EW_SQUARE] = {"square", K_INT | K_FLOAT | K_COMPLEX, 0},
    [DLX_EW_RECIPROCAL] = {"reciprocal", K_FLOAT | K_COMPLEX, TO_FLOAT},
    [DLX_EW_LOGICAL_NOT] = {"logical_not", K_ALL, BOOL_RESULT},
    [DLX_EW_BITWISE_NOT] = {"bitwise_not", K_BOOL | K_INT, 0},
    [DLX_EW_FLOOR] = {"floor", K_BOOL | K_INT | K_FLOAT, 0},
    [DLX_EW_CEIL] = {"ceil", K_BOOL | K_INT | K_FLOAT, 0},
    [DLX_EW_TRUNC] = {"trunc", K_BOOL | K_INT | K_FLOAT, 0},
    [DLX_EW_ROUND] = {"round", K_BOOL | K_INT | K_FLOAT, 0},
    [DLX_EW_FRAC] = {"frac", K_FLOAT, 0},
    [DLX_EW_ISNAN] = {"isnan", K_ALL, BOOL_RESULT},
    [DLX_EW_ISINF] = {"isinf", K_ALL, BOOL_RESULT},
    [DLX_EW_ISFINITE] = {"isfinite", K_ALL, BOOL_RESULT},
    [DLX_EW_SQRT] = {"sqrt", K_FLOAT, TO_FLOAT},
    [DLX_EW_RSQRT] = {"rsqrt", K_FLOAT, TO_FLOAT},
    [DLX_EW_EXP] = {"exp", K_FLOAT, TO_FLOAT},
    [DLX_EW_EXP2] = {"exp2", K_FLOAT, TO_FLOAT},
    [DLX_EW_EXPM1] = {"expm1", K_FLOAT, TO_FLOAT},
    [DLX_EW_LOG] = {"log", K_FLOAT, TO_FLOAT},
    [DLX_EW_LOG2] = {"log2", K_FLOAT, TO_FLOAT},
    [DLX_EW_LOG10] = {"log10", K_FLOAT, TO_FLOAT},
    [DLX_EW_LOG1P] = {"log1p", K_FLOAT, TO_FLOAT},
    [DLX_EW_SIN] = {"sin", K_FLOAT, TO_FLOAT},
    [DLX_EW_COS] = {"cos", K_FLOAT, TO_FLOAT},
    [DLX_EW_TAN] = {"tan", K_FLOAT, TO_FLOAT},
    [DLX_EW_ASIN] = {"asin", K_FLOAT, TO_FLOAT},
    [DLX_EW_ACOS] = {"acos", K_FLOAT, TO_FLOAT},
    [DLX_EW_ATAN] = {"atan", K_FLOAT, TO_FLOAT},
    [DLX_EW_SINH] = {"sinh", K_FLOAT, TO_FLOAT},
    [DLX_EW_COSH] = {"cosh", K_FLOAT, TO_FLOAT},
    [DLX_EW_TANH] = {"tanh", K_FLOAT, TO_FLOAT},
    [DLX_EW_ASINH] = {"asinh", K_FLOAT, TO_FLOAT},
    [DLX_EW_ACOSH] = {"acosh", K_FLOAT, TO_FLOAT},
    [DLX_EW_ATANH] = {"atanh", K_FLOAT, TO_FLOAT},
    [DLX_EW_SIGMOID] = {"sigmoid", K_FLOAT, TO_FLOAT},
    [DLX_EW_ERF] = {"erf", K_FLOAT, TO_FLOAT},
    [DLX_EW_CONJ] = {"conj", K_ALL, 0},
    [DLX_EW_REAL] = {"real", K_ALL, PART_RESULT},
    [DLX_EW_IMAG] = {"imag", K_ALL, PART_RESULT},
    [DLX_EW_WHERE] = {"where", K_ALL, SKIP_FIRST},
    [DLX_EW_CLAMP] = {"clamp", K_BOOL | K_INT | K_FLOAT, 0},
    [DLX_EW_LERP] = {"lerp", K_FLOAT, TO_FLOAT},
    [DLX_EW_NAN_TO_NUM] = {"nan_to_num", K_BOOL | K_INT | K_FLOAT, ONLY_FIRST},
};

/* Out-of-range numbers get a name too: a GPU backend names an op it was not built for. */
const char *dlx_ew_name(dlx_ew_op op) {
  return (unsigned)op < DLX_EW_NUM_OPS ? ops[op].name : "an op unknown to this build";
}

dlx_dtype dlx_ew_input_dtype(dlx_ew_op op, int k, dlx_dtype compute) {
  return op == DLX_EW_WHERE && k == 0 ? DLX_BOOL : compute;
}

static int kind_bit(dlx_kind kind) {
  switch (kind) {
  case DLX_KIND_BOOL:
    return K_BOOL;
  case DLX_KIND_INT:
  case DLX_KIND_UINT:
    return K_INT;
  case DLX_KIND_FLOAT:
    return K_FLOAT;
  case DLX_KIND_COMPLEX:
    return K_COMPLEX;
  default:
    return 0;
  }
}

static const char *dtype_name(dlx_dtype d) { return dlx_dtype_info_of(d)->name; }

/* The dtype the operands promote to, and the check that a weak scalar fits it. */
static int promoted_dtype(const dlx_operand *a, const dlx_operand *b, dlx_dtype *out,
                          dlx_error *err) {
  const dlx_operand *scalar = NULL;
  int rc;
  if (b == NULL) {
    if (a->tensor == NULL) return dlx_fail(err, DLX_TYPE_ERROR, "the operand must be a tensor");
    if (dlx_dtype_is_storage_only(a->tensor->dtype))
      return dlx_result_dtype(a->tensor->dtype, a->tensor->dtype, out, err);
    *out = a->tensor->dtype;
    return 0;
  }
  if (a->tensor != NULL && b->tensor != NULL)
    return dlx_result_dtype(a->tensor->dtype, b->tensor->dtype, out, err);
  if (a->tensor == NULL && b->tensor == NULL)
    return dlx_fail(err, DLX_TYPE_ERROR, "at least one operand must be a tensor");
  scalar = a->tensor == NULL ? a : b;
  rc = dlx_result_dtype_scalar((a->tensor != NULL ? a : b)->tensor->dtype, scalar->scalar.kind, out,
                               err);
  if (rc == 0) rc = dlx_check_scalar_fits(&scalar->scalar, *out, err);
  return rc;
}

/* The promotion of in[first..last): the tensors promote together, then the weak scalars join
 * them (the highest kind among them), and each scalar must fit the result. */
static int promoted_dtype_n(dlx_ew_op op, const dlx_operand *in, int first, int last,
                            dlx_dtype *out, dlx_error *err) {
  bool any_tensor = false, any_scalar = false;
  dlx_kind scalar_kind = DLX_KIND_BOOL;
  dlx_dtype d = DLX_BOOL;
  int rc = 0;
  for (int k = 0; k < dlx_ew_arity(op); k++)
    if (in[k].tensor != NULL) any_tensor = true;
  if (!any_tensor)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: at least one operand must be a tensor", ops[op].name);
  any_tensor = false;
  for (int k = first; k < last && rc == 0; k++) {
    if (in[k].tensor == NULL) {
      if (!any_scalar || dlx_kind_rank(in[k].scalar.kind) > dlx_kind_rank(scalar_kind))
        scalar_kind = in[k].scalar.kind;
      any_scalar = true;
    } else if (!any_tensor) {
      rc = dlx_result_dtype(in[k].tensor->dtype, in[k].tensor->dtype, &d, err);
      any_tensor = true;
    } else {
      rc = dlx_result_dtype(d, in[k].tensor->dtype, &d, err);
    }
  }
  if (rc == 0 && any_scalar)
    rc = any_tensor ? dlx_result_dtype_scalar(d, scalar_kind, &d, err)
                    : (d = dlx_default_dtype(scalar_kind), 0);
  for (int k = first; k < last && rc == 0; k++)
    if (in[k].tensor == NULL) rc = dlx_check_scalar_fits(&in[k].scalar, d, err);
  if (rc == 0) *out = d;
  return rc;
}

static int unsupported(dlx_ew_op op, dlx_dtype compute, dlx_error *err) {
  return dlx_fail(err, DLX_TYPE_ERROR, "%s is not defined for %s operands", ops[op].name,
                  dtype_name(compute));
}

static dlx_dtype result_of(dlx_ew_op op, dlx_dtype compute) {
  if (ops[op].flags & BOOL_RESULT) return DLX_BOOL;
  if ((ops[op].flags & PART_RESULT) && dlx_dtype_kind(compute) == DLX_KIND_COMPLEX)
    return compute == DLX_COMPLEX128 ? DLX_FLOAT64 : DLX_FLOAT32;
  return compute;
}

dlx_dtype dlx_ew_result_of(dlx_ew_op op, dlx_dtype compute) { return result_of(op, compute); }

/* The compute and result dtypes once the operands have promoted to c. */
static int op_dtypes(dlx_ew_op op, dlx_dtype c, dlx_dtype *compute, dlx_dtype *result,
                     dlx_error *err) {
  /* below float: bool, integer (and storage-only, which promotion has refused already) */
  if ((ops[op].flags & TO_FLOAT) && (kind_bit(dlx_dtype_kind(c)) & (K_FLOAT | K_COMPLEX)) == 0)
    c = DLX_FLOAT32;
  if ((ops[op].kinds & kind_bit(dlx_dtype_kind(c))) == 0) return unsupported(op, c, err);
  *compute = c;
  *result = result_of(op, c);
  return 0;
}

int dlx_ew_dtypes(dlx_ew_op op, const dlx_operand *a, const dlx_operand *b, dlx_dtype *compute,
                  dlx_dtype *result, dlx_error *err) {
  dlx_dtype c;
  int rc = promoted_dtype(a, b, &c, err);
  return rc != 0 ? rc : op_dtypes(op, c, compute, result, err);
}

int dlx_ew_dtypes_n(dlx_ew_op op, const dlx_operand *in, dlx_dtype *compute, dlx_dtype *result,
                    dlx_error *err) {
  int arity = dlx_ew_arity(op), first = 0, last = arity, rc;
  dlx_dtype c;
  if (arity <= 2)
    return dlx_ew_dtypes(op, &in[0], arity == 2 ? &in[1] : NULL, compute, result, err);
  if (ops[op].flags & SKIP_FIRST) {
    first = 1;
    if (in[0].tensor != NULL && dlx_dtype_is_storage_only(in[0].tensor->dtype))
      return dlx_result_dtype(in[0].tensor->dtype, in[0].tensor->dtype, &c, err);
  }
  if (ops[op].flags & ONLY_FIRST) {
    last = 1;
    for (int k = 1; k < arity; k++)
      if (in[k].tensor != NULL)
        return dlx_fail(err, DLX_TYPE_ERROR, "%s: the values put in must be numbers", ops[op].name);
  }
  rc = promoted_dtype_n(op, in, first, last, &c, err);
  return rc != 0 ? rc : op_dtypes(op, c, compute, result, err);
}

/* ---- shapes */

/* The NumPy broadcast of two shapes into out (ndim *out_ndim); -1 when they do not broadcast. */
static int broadcast_shapes(const int64_t *a, int32_t na, const int64_t *b, int32_t nb,
                            int64_t *out, int32_t *out_ndim) {
  int32_t n = na > nb ? na : nb;
  for (int32_t i = 0; i < n; i++) {
    int64_t sa = i < n - na ? 1 : a[i - (n - na)], sb = i < n - nb ? 1 : b[i - (n - nb)];
    if (sa != sb && sa != 1 && sb != 1) return -1;
    out[i] = sa == 1 ? sb : sa;
  }
  *out_ndim = n;
  return 0;
}

static int shape_error(const char *what, const int64_t *a, int32_t na, const int64_t *b, int32_t nb,
                       dlx_error *err) {
  char sa[DLX_SHAPE_TEXT], sb[DLX_SHAPE_TEXT];
  dlx_shape_text(sa, sizeof sa, a, na);
  dlx_shape_text(sb, sizeof sb, b, nb);
  return dlx_fail(err, DLX_VALUE_ERROR, what, sa, sb);
}

/* The shape of the result: the broadcast of the operands, which must broadcast to dst's shape
 * when there is a dst. */
static int result_shape(const dlx_operand *in, int count, const dlx_tensor *dst, int64_t *shape,
                        int32_t *ndim, dlx_error *err) {
  int64_t joined[DLX_MAX_NDIM], so_far[DLX_MAX_NDIM];
  int32_t n = 0;
  *ndim = 0;
  for (int k = 0; k < count; k++) {
    const dlx_tensor *t = in[k].tensor;
    if (t == NULL) continue;
    memcpy(so_far, shape, (size_t)*ndim * sizeof shape[0]);
    if (broadcast_shapes(so_far, *ndim, t->shape, t->ndim, shape, ndim) != 0)
      return shape_error("shapes %s and %s do not broadcast", so_far, *ndim, t->shape, t->ndim,
                         err);
  }
  if (dst == NULL) return 0;
  if (broadcast_shapes(shape, *ndim, dst->shape, dst->ndim, joined, &n) != 0 || n != dst->ndim ||
      memcmp(joined, dst->shape, (size_t)n * sizeof joined[0]) != 0)
    return shape_error("the operands' shape %s does not broadcast to the destination's shape %s",
                       shape, *ndim, dst->shape, dst->ndim, err);
  memcpy(shape, dst->shape, (size_t)dst->ndim * sizeof shape[0]);
  *ndim = dst->ndim;
  return 0;
}

/* ---- devices */

/* The device every tensor is on, and the backend that computes on the first one's memory. */
static int check_devices(dlx_ew_op op, const dlx_tensor *const *tensors, int count,
                         DLDevice *device, const dlx_backend **backend, dlx_error *err) {
  char d1[48], d2[48];
  int rc = 0;
  bool found = false;
  for (int i = 0; i < count && rc == 0; i++) {
    if (tensors[i] == NULL) continue;
    rc = dlx_buffer_check(tensors[i]->buffer, err);
    if (rc != 0) break;
    if (!found) {
      *device = dlx_tensor_device(tensors[i]);
      *backend = dlx_compute_backend(tensors[i]->buffer);
      found = true;
    } else if (!dlx_device_equal(*device, dlx_tensor_device(tensors[i]))) {
      return dlx_fail(err, DLX_DEVICE_ERROR,
                      "%s: the tensors are on different devices (%s and %s); copy one first",
                      ops[op].name, dlx_device_format(*device, d1, sizeof d1),
                      dlx_device_format(dlx_tensor_device(tensors[i]), d2, sizeof d2));
    }
  }
  return rc;
}

/* ---- integer errors, found before anything is written */

/* The value of a 0-d reduction of t, read back on the host. */
static int reduce_to_scalar(dlx_reduce_op op, const dlx_tensor *t, dlx_scalar *value,
                            dlx_error *err) {
  uint64_t all = t->ndim == 64 ? ~UINT64_C(0) : (UINT64_C(1) << t->ndim) - 1;
  dlx_tensor r;
  int rc = dlx_reduce(&r, op, t, all, false, err);
  if (rc != 0) return rc;
  rc = dlx_get_element(&r, NULL, value, err);
  dlx_tensor_close(&r);
  return rc;
}

static bool scalar_is_zero(const dlx_scalar *s) {
  switch (s->kind) {
  case DLX_KIND_BOOL:
    return !s->v.b;
  case DLX_KIND_INT:
    return s->v.i == 0;
  case DLX_KIND_UINT:
    return s->v.u == 0;
  default:
    return false;
  }
}

static int check_divisor(dlx_ew_op op, const dlx_operand *b, dlx_error *err) {
  dlx_scalar all_nonzero;
  int rc;
  if (b->tensor == NULL) {
    if (!scalar_is_zero(&b->scalar)) return 0;
  } else {
    if (dlx_tensor_numel(b->tensor) == 0) return 0;
    rc = reduce_to_scalar(DLX_REDUCE_ALL, b->tensor, &all_nonzero, err);
    if (rc != 0 || all_nonzero.v.b) return rc;
  }
  return dlx_fail(err, DLX_VALUE_ERROR, "%s: integer division by zero", ops[op].name);
}

static int check_exponent(const dlx_operand *b, dlx_error *err) {
  dlx_scalar least;
  int rc;
  if (b->tensor == NULL) {
    if (b->scalar.kind != DLX_KIND_INT || b->scalar.v.i >= 0) return 0;
  } else {
    if (dlx_dtype_kind(b->tensor->dtype) != DLX_KIND_INT || dlx_tensor_numel(b->tensor) == 0)
      return 0;
    rc = reduce_to_scalar(DLX_REDUCE_MIN, b->tensor, &least, err);
    if (rc != 0 || least.v.i >= 0) return rc;
  }
  return dlx_fail(err, DLX_VALUE_ERROR,
                  "pow: integers cannot be raised to a negative integer power; use a float base");
}

static int check_integer_errors(dlx_ew_op op, const dlx_operand *b, dlx_dtype compute,
                                dlx_error *err) {
  dlx_kind kind = dlx_dtype_kind(compute);
  if (kind != DLX_KIND_INT && kind != DLX_KIND_UINT) return 0;
  if (op == DLX_EW_FLOOR_DIVIDE || op == DLX_EW_REMAINDER || op == DLX_EW_FMOD)
    return check_divisor(op, b, err);
  if (op == DLX_EW_POW) return check_exponent(b, err);
  return 0;
}

/* ---- the entry */

typedef struct prepared {
  dlx_operand in[DLX_EW_MAX_INPUTS];
  dlx_tensor views[DLX_EW_MAX_INPUTS]; /* the tensor operands broadcast to the result's shape */
  int count;
} prepared;

static void release(prepared *p) {
  for (int i = 0; i < p->count; i++) dlx_tensor_close(&p->views[i]);
  p->count = 0;
}

static bool has_shape(const dlx_tensor *t, const int64_t *shape, int32_t ndim) {
  if (t->ndim != ndim) return false;
  for (int32_t d = 0; d < ndim; d++) /* a few dims: no call to memcmp */
    if (t->shape[d] != shape[d]) return false;
  return true;
}

/* An operand that has the result's shape already is used as it is (its expand would be the same
 * view); the others become broadcast views. */
static int broadcast_operands(prepared *p, const dlx_operand *given, int arity,
                              const int64_t *shape, int32_t ndim, dlx_error *err) {
  p->count = 0;
  for (int i = 0; i < arity; i++) {
    p->in[i] = given[i];
    if (given[i].tensor == NULL || has_shape(given[i].tensor, shape, ndim)) continue;
    int rc = dlx_expand(&p->views[p->count], given[i].tensor, shape, ndim, err);
    if (rc != 0) {
      release(p);
      return rc;
    }
    p->in[i].tensor = &p->views[p->count++];
  }
  return 0;
}

static bool overlaps_an_input(const dlx_tensor *dst, const prepared *p, int arity) {
  for (int i = 0; i < arity; i++) {
    const dlx_tensor *t = p->in[i].tensor;
    if (t != NULL && dlx_tensors_may_overlap(dst, t) && !dlx_tensors_same_view(dst, t)) return true;
  }
  return false;
}

/* The backend that computes on dst's memory runs the kernel into dst. */
static int run_kernel(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in, dlx_dtype compute,
                      dlx_error *err) {
  const dlx_backend *backend;
  int rc = dlx_compute_on(dst, &backend, err);
  return rc != 0 ? rc : backend->elementwise(op, dst, in, compute, err);
}

/* Runs the kernel into dst, through a temporary when dst overlaps an input other than exactly. */
static int run_into(dlx_ew_op op, const dlx_tensor *dst, const prepared *p, int arity,
                    dlx_dtype compute, dlx_error *err) {
  dlx_tensor tmp;
  int rc;
  if (!overlaps_an_input(dst, p, arity)) return run_kernel(op, dst, p->in, compute, err);
  rc = dlx_tensor_empty(&tmp, dst->shape, dst->ndim, dst->dtype, dlx_tensor_device(dst), err);
  if (rc != 0) return rc;
  rc = run_kernel(op, &tmp, p->in, compute, err);
  if (rc == 0) rc = dlx_copy(dst, &tmp, err);
  dlx_tensor_close(&tmp);
  return rc;
}

static int check_destination(dlx_ew_op op, const dlx_tensor *dst, dlx_dtype result,
                             dlx_error *err) {
  int rc = dlx_check_writable(dst, err);
  if (rc != 0) return rc;
  if (!dlx_can_cast_same_kind(result, dst->dtype))
    return dlx_fail(err, DLX_TYPE_ERROR,
                    "%s: cannot write a %s result into the %s destination (results may only be "
                    "cast to a kind as high: bool, integer, float, complex)",
                    ops[op].name, dtype_name(result), dtype_name(dst->dtype));
  return 0;
}

/* Two tensors of one dtype and shape on one device into a new tensor, the commonest call: what
 * the general path prepares for them is known (the result has their shape and dtype's
 * promotion, nothing broadcasts, nothing overlaps), so only the checks that can fail remain.
 * Returns -1 when the operands are not like that (the general path takes them, and reports
 * their errors). */
static int run_same_shape_pair(dlx_ew_op op, const dlx_operand *in, dlx_tensor *out,
                               dlx_error *err) {
  const dlx_tensor *a = in[0].tensor, *b = in[1].tensor;
  dlx_dtype promoted, compute, result;
  DLDevice device;
  int rc;
  if (a == NULL || b == NULL || a->dtype != b->dtype || !has_shape(b, a->shape, a->ndim)) return -1;
  device = dlx_tensor_device(a);
  if (dlx_compute_backend(a->buffer)->elementwise == NULL ||
      !dlx_device_equal(device, dlx_tensor_device(b)))
    return -1;
  rc = dlx_buffer_check(a->buffer, err);
  if (rc == 0) rc = dlx_buffer_check(b->buffer, err);
  /* a dtype promotes with itself to itself; a storage-only one gets promotion's error */
  promoted = a->dtype;
  if (rc == 0 && dlx_dtype_is_storage_only(a->dtype))
    rc = dlx_result_dtype(a->dtype, a->dtype, &promoted, err);
  if (rc == 0) rc = op_dtypes(op, promoted, &compute, &result, err);
  if (rc == 0) rc = check_integer_errors(op, &in[1], compute, err);
  if (rc == 0) rc = dlx_tensor_empty(out, a->shape, a->ndim, result, device, err);
  if (rc != 0 || dlx_tensor_numel(out) == 0) return rc;
  rc = run_kernel(op, out, in, compute, err);
  if (rc != 0) dlx_tensor_close(out);
  return rc;
}

/* Any operands: every check, broadcasting, a destination and its overlap. */
static int run_general(dlx_ew_op op, const dlx_operand *in, const dlx_tensor *dst, dlx_tensor *out,
                       dlx_error *err) {
  int arity = dlx_ew_arity(op);
  const dlx_tensor *tensors[DLX_EW_MAX_INPUTS + 1];
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim = 0;
  dlx_dtype compute, result;
  DLDevice device;
  dlx_tensor made;
  prepared p;
  const dlx_backend *backend = NULL;
  int rc;
  for (int k = 0; k < arity; k++) tensors[k] = in[k].tensor;
  tensors[arity] = dst;
  rc = check_devices(op, tensors, arity + 1, &device, &backend, err);
  if (rc == 0) rc = dlx_ew_dtypes_n(op, in, &compute, &result, err);
  if (rc == 0 && backend == NULL)
    rc = dlx_fail(err, DLX_TYPE_ERROR, "%s: at least one operand must be a tensor", ops[op].name);
  if (rc == 0) rc = result_shape(in, arity, dst, shape, &ndim, err);
  if (rc == 0 && dst != NULL) rc = check_destination(op, dst, result, err);
  if (rc != 0) return rc;
  if (backend->elementwise == NULL) return dlx_not_implemented(err, ops[op].name, device);
  if (arity == 2) rc = check_integer_errors(op, &in[1], compute, err);
  if (rc == 0) rc = broadcast_operands(&p, in, arity, shape, ndim, err);
  if (rc != 0) return rc;
  if (dst != NULL) {
    if (dlx_tensor_numel(dst) > 0) rc = run_into(op, dst, &p, arity, compute, err);
  } else {
    rc = dlx_tensor_empty(&made, shape, ndim, result, device, err);
    if (rc == 0 && dlx_tensor_numel(&made) > 0) {
      rc = run_kernel(op, &made, p.in, compute, err);
      if (rc != 0) dlx_tensor_close(&made);
    }
    if (rc == 0) *out = made;
  }
  release(&p);
  return rc;
}

int dlx_elementwise_n(dlx_ew_op op, const dlx_operand *in, const dlx_tensor *dst, dlx_tensor *out,
                      dlx_error *err) {
  int rc;
  /* the general path's preparation is apart: the commonest calls do not pay for its frame */
  if (dst == NULL && dlx_ew_arity(op) == 2 && (rc = run_same_shape_pair(op, in, out, err)) != -1)
    return rc;
  return run_general(op, in, dst, out, err);
}

int dlx_elementwise(dlx_ew_op op, const dlx_operand *a, const dlx_operand *b, const dlx_tensor *dst,
                    dlx_tensor *out, dlx_error *err) {
  dlx_operand in[2];
  in[0] = *a;
  if (dlx_ew_arity(op) == 2) in[1] = *b;
  return dlx_elementwise_n(op, in, dst, out, err);
}
