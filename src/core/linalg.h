/* linalg.h -- matrix products in the core: NumPy's matmul rules (1-d operands promoted and the
 * added dim removed, batch dims broadcast), the result dtype, a destination, an added term (addmm)
 * and the backends' matmul entry (dlx_matmul_request, backend.h), which the core calls with
 * operands in a layout BLAS takes as it is, copying an operand once when it is not. Dims are
 * 0-based. */
#ifndef DLX_CORE_LINALG_H
#define DLX_CORE_LINALG_H

#include <stdbool.h>

#include "core/scalar.h"
#include "core/tensor.h"

typedef struct dlx_matmul_args {
  const char *name;        /* the function, for messages: "matmul", "addmm", ... */
  const dlx_tensor *a, *b; /* at least 1-d each (ValueError otherwise) */
  bool conj_a;             /* the product takes the complex conjugate of a (vdot) */
  const dlx_tensor *c;     /* NULL, or the added term: broadcast to the product's shape */
  dlx_scalar alpha, beta;  /* result = alpha * a @ b + beta * c; beta is unused without c */
  const dlx_tensor *dst;   /* NULL: the result is a new tensor; else written there */
  bool allow_tf32;         /* float32 and complex64 products may use TF32 where a device has it */
} dlx_matmul_args;

/* Arguments of a plain product a @ b: alpha 1, no added term, no destination. */
dlx_matmul_args dlx_matmul_args_of(const char *name, const dlx_tensor *a, const dlx_tensor *b);

/* The product of args, as NumPy's matmul: a 1-d a is a row {1, k} and a 1-d b a column {k, 1},
 * the added dim removed from the result; the dims before the last two broadcast. The result's
 * dtype is the promotion of a and b (and c) (promote.h), computed as the backend's matmul says
 * (float16 and bfloat16 accumulate in float32, integers in 64 bits). ValueError for 0-d operands
 * and for shapes that do not match (the message names both), TypeError for storage-only dtypes
 * and an alpha or beta of a kind above the result's, DeviceError for operands on different
 * devices or a device without matmul.
 * - dst NULL: *out becomes a new C-contiguous tensor on the operands' device;
 * - dst given: it must have the result's shape (ValueError), be writable, and take the result's
 *   dtype by the same-kind rule (TypeError); it may be c itself (addmm in place) or overlap the
 *   operands (computed through a temporary). *out is not touched. */
int dlx_matmul(dlx_tensor *out, const dlx_matmul_args *args, dlx_error *err);

/* out = the diagonal of src over dims d1 and d2 (0-based, distinct, checked: ValueError) as a
 * view, NumPy's and PyTorch's diagonal: the other dims in order, then the diagonal as the last
 * dim; offset > 0 is above the main diagonal (src[i, i + offset]), < 0 below. An offset past the
 * matrix gives an empty diagonal. ValueError for fewer than 2 dims. */
int dlx_diagonal(dlx_tensor *out, const dlx_tensor *src, int64_t offset, int32_t d1, int32_t d2,
                 dlx_error *err);

#endif
