/* elementwise_kernels.h -- the host side of the shared element functions
 * (common/elementwise_ops.h), for the C code of backends whose kernels use them (Level Zero,
 * CUDA) and their tests: the kernel op of a dlx_ew_op, the kernel dtype of a compute dtype, and
 * the refusal of the ops they lack. In the core, not in src/common: it speaks the core's enums
 * and errors, which the kernels never see.
 *
 * An op missing from the table below (one added to dlx_ew_op later) maps to DLX_EWK_NONE, and
 * the backend refuses it with a DeviceError instead of running another op's code. */
#ifndef DLX_CORE_ELEMENTWISE_KERNELS_H
#define DLX_CORE_ELEMENTWISE_KERNELS_H

#include "common/elementwise_ops.h"
#include "core/backend.h"
#include "core/device.h"
#include "core/elementwise.h"
#include "core/error.h"
#include "core/scalar.h"

_Static_assert(DLX_EWK_BOOL == (int)DLX_BOOL && DLX_EWK_INT8 == (int)DLX_INT8 &&
                   DLX_EWK_INT64 == (int)DLX_INT64 && DLX_EWK_UINT8 == (int)DLX_UINT8 &&
                   DLX_EWK_FLOAT16 == (int)DLX_FLOAT16 && DLX_EWK_BFLOAT16 == (int)DLX_BFLOAT16 &&
                   DLX_EWK_UINT64 == (int)DLX_UINT64 && DLX_EWK_FLOAT32 == (int)DLX_FLOAT32 &&
                   DLX_EWK_FLOAT64 == (int)DLX_FLOAT64 && DLX_EWK_COMPLEX64 == (int)DLX_COMPLEX64 &&
                   DLX_EWK_COMPLEX128 == (int)DLX_COMPLEX128,
               "the kernel dtypes are numbered as dlx_dtype");

/* The kernel op of op, DLX_EWK_NONE for an op the kernels do not have. */
static inline int dlx_ewk_op_of(dlx_ew_op op) {
  static const signed char codes[DLX_EW_NUM_OPS] = {
      [DLX_EW_ADD] = DLX_EWK_ADD,
      [DLX_EW_SUB] = DLX_EWK_SUB,
      [DLX_EW_MUL] = DLX_EWK_MUL,
      [DLX_EW_DIV] = DLX_EWK_DIV,
      [DLX_EW_FLOOR_DIVIDE] = DLX_EWK_FLOOR_DIVIDE,
      [DLX_EW_REMAINDER] = DLX_EWK_REMAINDER,
      [DLX_EW_FMOD] = DLX_EWK_FMOD,
      [DLX_EW_POW] = DLX_EWK_POW,
      [DLX_EW_MAXIMUM] = DLX_EWK_MAXIMUM,
      [DLX_EW_MINIMUM] = DLX_EWK_MINIMUM,
      [DLX_EW_ATAN2] = DLX_EWK_ATAN2,
      [DLX_EW_HYPOT] = DLX_EWK_HYPOT,
      [DLX_EW_COPYSIGN] = DLX_EWK_COPYSIGN,
      [DLX_EW_EQ] = DLX_EWK_EQ,
      [DLX_EW_NE] = DLX_EWK_NE,
      [DLX_EW_LT] = DLX_EWK_LT,
      [DLX_EW_LE] = DLX_EWK_LE,
      [DLX_EW_GT] = DLX_EWK_GT,
      [DLX_EW_GE] = DLX_EWK_GE,
      [DLX_EW_LOGICAL_AND] = DLX_EWK_LOGICAL_AND,
      [DLX_EW_LOGICAL_OR] = DLX_EWK_LOGICAL_OR,
      [DLX_EW_LOGICAL_XOR] = DLX_EWK_LOGICAL_XOR,
      [DLX_EW_BITWISE_AND] = DLX_EWK_BITWISE_AND,
      [DLX_EW_BITWISE_OR] = DLX_EWK_BITWISE_OR,
      [DLX_EW_BITWISE_XOR] = DLX_EWK_BITWISE_XOR,
      [DLX_EW_BITWISE_LEFT_SHIFT] = DLX_EWK_BITWISE_LEFT_SHIFT,
      [DLX_EW_BITWISE_RIGHT_SHIFT] = DLX_EWK_BITWISE_RIGHT_SHIFT,
      [DLX_EW_NEG] = DLX_EWK_NEG,
      [DLX_EW_ABS] = DLX_EWK_ABS,
      [DLX_EW_SIGN] = DLX_EWK_SIGN,
      [DLX_EW_SQUARE] = DLX_EWK_SQUARE,
      [DLX_EW_RECIPROCAL] = DLX_EWK_RECIPROCAL,
      [DLX_EW_LOGICAL_NOT] = DLX_EWK_LOGICAL_NOT,
      [DLX_EW_BITWISE_NOT] = DLX_EWK_BITWISE_NOT,
      [DLX_EW_FLOOR] = DLX_EWK_FLOOR,
      [DLX_EW_CEIL] = DLX_EWK_CEIL,
      [DLX_EW_TRUNC] = DLX_EWK_TRUNC,
      [DLX_EW_ROUND] = DLX_EWK_ROUND,
      [DLX_EW_FRAC] = DLX_EWK_FRAC,
      [DLX_EW_ISNAN] = DLX_EWK_ISNAN,
      [DLX_EW_ISINF] = DLX_EWK_ISINF,
      [DLX_EW_ISFINITE] = DLX_EWK_ISFINITE,
      [DLX_EW_SQRT] = DLX_EWK_SQRT,
      [DLX_EW_RSQRT] = DLX_EWK_RSQRT,
      [DLX_EW_EXP] = DLX_EWK_EXP,
      [DLX_EW_EXP2] = DLX_EWK_EXP2,
      [DLX_EW_EXPM1] = DLX_EWK_EXPM1,
      [DLX_EW_LOG] = DLX_EWK_LOG,
      [DLX_EW_LOG2] = DLX_EWK_LOG2,
      [DLX_EW_LOG10] = DLX_EWK_LOG10,
      [DLX_EW_LOG1P] = DLX_EWK_LOG1P,
      [DLX_EW_SIN] = DLX_EWK_SIN,
      [DLX_EW_COS] = DLX_EWK_COS,
      [DLX_EW_TAN] = DLX_EWK_TAN,
      [DLX_EW_ASIN] = DLX_EWK_ASIN,
      [DLX_EW_ACOS] = DLX_EWK_ACOS,
      [DLX_EW_ATAN] = DLX_EWK_ATAN,
      [DLX_EW_SINH] = DLX_EWK_SINH,
      [DLX_EW_COSH] = DLX_EWK_COSH,
      [DLX_EW_TANH] = DLX_EWK_TANH,
      [DLX_EW_ASINH] = DLX_EWK_ASINH,
      [DLX_EW_ACOSH] = DLX_EWK_ACOSH,
      [DLX_EW_ATANH] = DLX_EWK_ATANH,
      [DLX_EW_SIGMOID] = DLX_EWK_SIGMOID,
      [DLX_EW_ERF] = DLX_EWK_ERF,
      [DLX_EW_CONJ] = DLX_EWK_CONJ,
      [DLX_EW_REAL] = DLX_EWK_REAL,
      [DLX_EW_IMAG] = DLX_EWK_IMAG,
      [DLX_EW_WHERE] = DLX_EWK_WHERE,
      [DLX_EW_CLAMP] = DLX_EWK_CLAMP,
      [DLX_EW_LERP] = DLX_EWK_LERP,
      [DLX_EW_NAN_TO_NUM] = DLX_EWK_NAN_TO_NUM,
  };
  return (int)op >= 0 && op < DLX_EW_NUM_OPS ? codes[op] : DLX_EWK_NONE;
}

/* The dtype the kernels compute in for a compute dtype: float32 for float16 and bfloat16 (which
 * round once when stored), the dtype itself otherwise. */
static inline dlx_dtype dlx_ewk_kernel_dtype(dlx_dtype compute) {
  return compute == DLX_FLOAT16 || compute == DLX_BFLOAT16 ? DLX_FLOAT32 : compute;
}

/* The kernel dtype of op computing in `compute`: where moves values, so it keeps float16 and
 * bfloat16 as the CPU does (a value cast to float16 on load is rounded once, there); other ops
 * compute float16 and bfloat16 in float32. */
static inline dlx_dtype dlx_ewk_kernel_dtype_of(dlx_ew_op op, dlx_dtype compute) {
  return op == DLX_EW_WHERE ? compute : dlx_ewk_kernel_dtype(compute);
}

/* Scalar input k of op computing in `compute` as the bytes of its kernel dtype (out: 16 bytes,
 * zero-padded), converted as every backend converts scalars (core/scalar.h). */
static inline int dlx_ewk_scalar_bytes(dlx_ew_op op, int k, dlx_dtype compute,
                                       const dlx_scalar *value, void *out, dlx_error *err) {
  dlx_dtype kin = dlx_ew_input_dtype(op, k, dlx_ewk_kernel_dtype_of(op, compute));
  return dlx_scalar_to_bytes(kin, value, out, err);
}

/* The kernel op of op in kernel dtype kdtype, or a DeviceError ("exp is not implemented on
 * cuda:0 yet: move the tensor to the CPU first ...", as the core says for a device without
 * elementwise ops) when the kernels do not have it. device names the device in the message. */
static inline int dlx_ewk_check(dlx_ew_op op, dlx_dtype kdtype, const char *device, int *code,
                                dlx_error *err) {
  *code = dlx_ewk_op_of(op);
  if (*code == DLX_EWK_NONE)
    return dlx_fail(err, DLX_DEVICE_ERROR, "%s is not implemented on %s yet" DLX_MOVE_TO_CPU_HINT,
                    dlx_ew_name(op), device);
  if (dlx_ewk_result(*code, (int)kdtype) == DLX_EWK_RESULT_NONE)
    return dlx_fail(err, DLX_DEVICE_ERROR,
                    "%s of %s is not implemented on %s yet" DLX_MOVE_TO_CPU_HINT, dlx_ew_name(op),
                    dlx_dtype_info_of(kdtype)->name, device);
  return 0;
}

#endif
