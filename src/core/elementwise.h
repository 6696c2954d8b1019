/* elementwise.h -- elementwise operations of the core: the ops, their dtype rules, and the entry
 * that checks and prepares every argument (devices, dtypes, broadcasting, the destination,
 * overlap, integer division by zero) before a backend's `elementwise` runs the kernel. */
#ifndef DLX_CORE_ELEMENTWISE_H
#define DLX_CORE_ELEMENTWISE_H

#include <stdbool.h>

#include "core/error.h"
#include "core/scalar.h"
#include "core/tensor.h"

typedef enum dlx_ew_op {
  /* binary */
  DLX_EW_ADD,
  DLX_EW_SUB,
  DLX_EW_MUL,
  DLX_EW_DIV,
  DLX_EW_FLOOR_DIVIDE,
  DLX_EW_REMAINDER,
  DLX_EW_FMOD,
  DLX_EW_POW,
  DLX_EW_MAXIMUM,
  DLX_EW_MINIMUM,
  DLX_EW_ATAN2,
  DLX_EW_HYPOT,
  DLX_EW_COPYSIGN,
  DLX_EW_EQ,
  DLX_EW_NE,
  DLX_EW_LT,
  DLX_EW_LE,
  DLX_EW_GT,
  DLX_EW_GE,
  DLX_EW_LOGICAL_AND,
  DLX_EW_LOGICAL_OR,
  DLX_EW_LOGICAL_XOR,
  DLX_EW_BITWISE_AND,
  DLX_EW_BITWISE_OR,
  DLX_EW_BITWISE_XOR,
  DLX_EW_BITWISE_LEFT_SHIFT,
  DLX_EW_BITWISE_RIGHT_SHIFT,
  /* unary */
  DLX_EW_NEG,
  DLX_EW_ABS,
  DLX_EW_SIGN,
  DLX_EW_SQUARE,
  DLX_EW_RECIPROCAL,
  DLX_EW_LOGICAL_NOT,
  DLX_EW_BITWISE_NOT,
  DLX_EW_FLOOR,
  DLX_EW_CEIL,
  DLX_EW_TRUNC,
  DLX_EW_ROUND,
  DLX_EW_FRAC,
  DLX_EW_ISNAN,
  DLX_EW_ISINF,
  DLX_EW_ISFINITE,
  /* unary math: bool and integer operands compute in float32 */
  DLX_EW_SQRT,
  DLX_EW_RSQRT,
  DLX_EW_EXP,
  DLX_EW_EXP2,
  DLX_EW_EXPM1,
  DLX_EW_LOG,
  DLX_EW_LOG2,
  DLX_EW_LOG10,
  DLX_EW_LOG1P,
  DLX_EW_SIN,
  DLX_EW_COS,
  DLX_EW_TAN,
  DLX_EW_ASIN,
  DLX_EW_ACOS,
  DLX_EW_ATAN,
  DLX_EW_SINH,
  DLX_EW_COSH,
  DLX_EW_TANH,
  DLX_EW_ASINH,
  DLX_EW_ACOSH,
  DLX_EW_ATANH,
  DLX_EW_SIGMOID,
  DLX_EW_ERF,
  /* the parts of complex values (real operands: themselves, and zeros for imag) */
  DLX_EW_CONJ,
  DLX_EW_REAL,
  DLX_EW_IMAG,
  /* ternary: where(cond, a, b), clamp(x, lo, hi), lerp(a, b, w) */
  DLX_EW_WHERE,
  DLX_EW_CLAMP,
  DLX_EW_LERP,
  /* nan_to_num(x, nan, posinf, neginf): four operands, the last three the values put in */
  DLX_EW_NAN_TO_NUM,
  DLX_EW_NUM_OPS
} dlx_ew_op;

#define DLX_EW_FIRST_UNARY DLX_EW_NEG

/* The most operands an op takes (nan_to_num). */
#define DLX_EW_MAX_INPUTS 4

/* An operand: a tensor, or a weak scalar (a Lua number, boolean or complex value) when tensor
 * is NULL. */
typedef struct dlx_operand {
  const dlx_tensor *tensor;
  dlx_scalar scalar;
} dlx_operand;

/* "add", "floor_divide", ...: the op's name in Lua and in messages. */
const char *dlx_ew_name(dlx_ew_op op);
/* The number of operands: 1 for unary ops, 2 for binary ones, 3 for where, clamp and lerp, 4
 * for nan_to_num. Inline: every call of every op asks it several times. */
static inline int dlx_ew_arity(dlx_ew_op op) {
  if (op == DLX_EW_NAN_TO_NUM) return 4;
  if (op >= DLX_EW_WHERE) return 3;
  return op < DLX_EW_FIRST_UNARY ? 2 : 1;
}

/* The dtype operand k of op is converted to when the op computes in `compute`: bool for where's
 * condition, compute itself otherwise. */
dlx_dtype dlx_ew_input_dtype(dlx_ew_op op, int k, dlx_dtype compute);

/* The dtype of op's result when it computes in `compute`: bool for comparisons, logical ops and
 * the isnan family, the real dtype of abs of complex, else compute itself. */
dlx_dtype dlx_ew_result_of(dlx_ew_op op, dlx_dtype compute);

/* The dtypes of op on these operands (b is NULL for unary ops): *compute, in which the kernel
 * computes, and *result, of a new result tensor (bool for comparisons, logical ops and the
 * isnan family; the real dtype for abs of complex). TypeError for dtypes the op does not take
 * (bitwise ops on floats, storage-only dtypes, ...) and two scalar operands; ValueError for a
 * weak integer scalar that does not fit the dtype it joins. */
int dlx_ew_dtypes(dlx_ew_op op, const dlx_operand *a, const dlx_operand *b, dlx_dtype *compute,
                  dlx_dtype *result, dlx_error *err);

/* op on the dlx_ew_arity(op) operands in[], broadcast together as NumPy, with the rules of
 * dlx_elementwise. The compute dtype is the promotion of the operands, except where's condition
 * (converted to bool, as `~= 0`) and nan_to_num's values (converted to x's dtype). */
int dlx_elementwise_n(dlx_ew_op op, const dlx_operand *in, const dlx_tensor *dst, dlx_tensor *out,
                      dlx_error *err);

/* The dtypes of dlx_elementwise_n's op on in[] (as dlx_ew_dtypes). */
int dlx_ew_dtypes_n(dlx_ew_op op, const dlx_operand *in, dlx_dtype *compute, dlx_dtype *result,
                    dlx_error *err);

/* op on a (and b, NULL for unary ops), broadcast as NumPy.
 * - dst NULL: *out becomes a new C-contiguous tensor of the result dtype on the operands' device
 *   (written only on success);
 * - dst given (in place or out=): the inputs broadcast to dst's shape, the result is cast to
 *   dst's dtype by the same-kind rule (TypeError otherwise); a read-only or broadcast dst is a
 *   ValueError; out is not touched. A dst that overlaps an input other than exactly is
 *   computed through a temporary, as if the inputs were read first.
 * Tensors on different devices are a DeviceError; integer floor_divide, remainder and fmod by
 * zero and integer pow with a negative exponent are a ValueError, found before anything is
 * written. */
int dlx_elementwise(dlx_ew_op op, const dlx_operand *a, const dlx_operand *b, const dlx_tensor *dst,
                    dlx_tensor *out, dlx_error *err);

#endif
