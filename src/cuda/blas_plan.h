/* blas_plan.h -- a dlx_matmul_request (src/core/backend.h) as the arguments of
 * cublasGemmStridedBatchedEx (dlx_cuda_gemm), and the two cases that call cannot take as they
 * are, done with dlx's own ops first: a conjugated operand that cuBLAS would read untransposed
 * (cuBLAS has CUBLAS_OP_C, a conjugate transpose, but no conjugate alone) and an empty inner
 * dim. Plain C on the host, used by blas.c; tests/c/cuda_blas_rules.c runs the calls it makes
 * through a column-major gemm on the CPU and compares with the CPU backend. The enums below are
 * cuBLAS's and CUDA's values (blas.c checks them against cublas_api.h), so that this header
 * needs no CUDA header and the check runs in every build.
 *
 * The mapping. cuBLAS is column-major: a matrix X (rows x cols) at p with leading dim ld has
 * element (r, c) at p[r + c * ld]. A request operand with row stride 1 ("column-major") is such
 * a matrix as it is, with ld = its column stride; one with column stride 1 ("row-major") is its
 * transpose, with ld = its row stride. c = a @ b is computed
 * - "swapped" when c is row-major: c^T (n x m) = b^T @ a^T, cuBLAS's m, n = n, m, its A = b and
 *   its B = a, each read as stored (CUBLAS_OP_N) when row-major, else transposed (OP_T);
 * - "direct" when c is column-major: c (m x n) = a @ b, each operand read as stored when
 *   column-major, else transposed.
 * A conjugated operand (vdot, the core's conj flag) read transposed becomes CUBLAS_OP_C; one
 * read as stored is first copied conjugated (DLX_EW_CONJ, into a fresh row-major batch). A
 * matrix with one row or one column is both row- and column-major (the stride of its size-1 dim
 * is never used): the mapping then picks the form that needs no copy, and OP_N otherwise. */
#ifndef DLX_CUDA_BLAS_PLAN_H
#define DLX_CUDA_BLAS_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/backend.h"
#include "core/dtype.h"
#include "core/elementwise.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/tensor.h"

/* cublasOperation_t */
enum { DLX_CUBLAS_OP_N = 0, DLX_CUBLAS_OP_T = 1, DLX_CUBLAS_OP_C = 2 };
/* cudaDataType_t */
enum {
  DLX_CUDA_R_32F = 0,
  DLX_CUDA_R_64F = 1,
  DLX_CUDA_R_16F = 2,
  DLX_CUDA_C_32F = 4,
  DLX_CUDA_C_64F = 5,
  DLX_CUDA_R_16BF = 14
};
/* cublasComputeType_t */
enum {
  DLX_CUBLAS_COMPUTE_32F = 68,
  DLX_CUBLAS_COMPUTE_64F = 70,
  DLX_CUBLAS_COMPUTE_32F_FAST_TF32 = 77
};

/* The arguments of one cublasGemmStridedBatchedEx call, in its order. alpha and beta are host
 * values of the compute type's scalar: float (one, or a complex pair) for COMPUTE_32F and
 * FAST_TF32, double for COMPUTE_64F. */
typedef union dlx_cuda_gemm_scalar {
  float f[2];
  double d[2];
} dlx_cuda_gemm_scalar;

typedef struct dlx_cuda_gemm {
  int transa, transb;
  int64_t m, n, k;
  dlx_cuda_gemm_scalar alpha;
  const char *a;
  int64_t lda, stride_a;
  const char *b;
  int64_t ldb, stride_b;
  dlx_cuda_gemm_scalar beta;
  char *c;
  int64_t ldc, stride_c;
  int64_t batch;
  int data_type; /* of a, b and c alike */
  int compute_type;
} dlx_cuda_gemm;

/* The most batch elements of one call (cuBLAS counts them in an int). */
#define DLX_CUDA_GEMM_MAX_BATCH INT32_MAX

/* Whether cuBLAS multiplies matrices of dtype (the backend's TypeError otherwise: cuBLAS has no
 * integer or bool product). */
static inline bool dlx_cuda_gemm_has_dtype(dlx_dtype dtype) {
  return dtype == DLX_FLOAT16 || dtype == DLX_BFLOAT16 || dtype == DLX_FLOAT32 ||
         dtype == DLX_FLOAT64 || dtype == DLX_COMPLEX64 || dtype == DLX_COMPLEX128;
}

/* The forms an operand of rows x cols can be read in: row-major (ld_row) and column-major
 * (ld_col), as the core's layout rule and its size-1 dims allow. */
typedef struct dlx_cuda_gemm_forms {
  bool row, col;
  int64_t ld_row, ld_col;
} dlx_cuda_gemm_forms;

static inline int64_t dlx_cuda_gemm_at_least(int64_t x, int64_t low) { return x > low ? x : low; }

static inline dlx_cuda_gemm_forms dlx_cuda_gemm_forms_of(const dlx_matrix_operand *o, int64_t rows,
                                                         int64_t cols) {
  dlx_cuda_gemm_forms f;
  int64_t min_row = dlx_cuda_gemm_at_least(cols, 1), min_col = dlx_cuda_gemm_at_least(rows, 1);
  f.row = o->col_stride == 1 || cols == 1;
  f.col = o->row_stride == 1 || rows == 1;
  /* a stride of a size-1 dim is never used: the leading dim is raised to what cuBLAS checks */
  f.ld_row = rows == 1 ? min_row : dlx_cuda_gemm_at_least(o->row_stride, min_row);
  f.ld_col = cols == 1 ? min_col : dlx_cuda_gemm_at_least(o->col_stride, min_col);
  return f;
}

/* The op and leading dim of an operand that cuBLAS must read as the matrix itself (transposed
 * false) or as its transpose. *copy: it is conjugated and can only be read as stored. */
static inline int dlx_cuda_gemm_op(const dlx_cuda_gemm_forms *f, bool transposed, bool conj,
                                   int64_t *ld, bool *copy) {
  /* "as stored" reads column-major memory: the matrix itself when column-major, its transpose
   * when row-major */
  bool stored = transposed ? f->row : f->col, flipped = transposed ? f->col : f->row;
  int64_t ld_stored = transposed ? f->ld_row : f->ld_col;
  int64_t ld_flipped = transposed ? f->ld_col : f->ld_row;
  *copy = false;
  if (conj && flipped) {
    *ld = ld_flipped;
    return DLX_CUBLAS_OP_C;
  }
  if (stored) {
    *copy = conj;
    *ld = ld_stored;
    return DLX_CUBLAS_OP_N;
  }
  *ld = ld_flipped;
  return DLX_CUBLAS_OP_T;
}

static inline int dlx_cuda_gemm_data_type(dlx_dtype dtype) {
  switch (dtype) {
  case DLX_FLOAT16:
    return DLX_CUDA_R_16F;
  case DLX_BFLOAT16:
    return DLX_CUDA_R_16BF;
  case DLX_FLOAT32:
    return DLX_CUDA_R_32F;
  case DLX_FLOAT64:
    return DLX_CUDA_R_64F;
  case DLX_COMPLEX64:
    return DLX_CUDA_C_32F;
  default: /* DLX_COMPLEX128 */
    return DLX_CUDA_C_64F;
  }
}

/* float32 in float32 (TF32 only when allowed, for float32 and complex64), float16 and bfloat16
 * accumulating in float32, float64 and complex128 in float64. */
static inline int dlx_cuda_gemm_compute_type(dlx_dtype dtype, bool allow_tf32) {
  if (dtype == DLX_FLOAT64 || dtype == DLX_COMPLEX128) return DLX_CUBLAS_COMPUTE_64F;
  if (allow_tf32 && (dtype == DLX_FLOAT32 || dtype == DLX_COMPLEX64))
    return DLX_CUBLAS_COMPUTE_32F_FAST_TF32;
  return DLX_CUBLAS_COMPUTE_32F;
}

static inline dlx_cuda_gemm_scalar dlx_cuda_gemm_scalar_of(const dlx_scalar *s, int compute) {
  dlx_cuda_gemm_scalar v;
  double re = s->kind == DLX_KIND_COMPLEX ? s->v.c[0] : s->v.f;
  double im = s->kind == DLX_KIND_COMPLEX ? s->v.c[1] : 0;
  memset(&v, 0, sizeof v);
  if (compute == DLX_CUBLAS_COMPUTE_64F) {
    v.d[0] = re;
    v.d[1] = im;
  } else {
    v.f[0] = (float)re;
    v.f[1] = (float)im;
  }
  return v;
}

/* The ops of a and b in one orientation; returns the operands that need a conjugate copy (bit 0:
 * a, bit 1: b). */
static inline int dlx_cuda_gemm_orient(const dlx_matmul_request *r, bool swapped, int ops[2],
                                       int64_t ld[2]) {
  dlx_cuda_gemm_forms fa = dlx_cuda_gemm_forms_of(&r->a, r->m, r->k);
  dlx_cuda_gemm_forms fb = dlx_cuda_gemm_forms_of(&r->b, r->k, r->n);
  bool copy_a, copy_b;
  ops[0] = dlx_cuda_gemm_op(&fa, swapped, r->a.conj, &ld[0], &copy_a);
  ops[1] = dlx_cuda_gemm_op(&fb, swapped, r->b.conj, &ld[1], &copy_b);
  return (copy_a ? 1 : 0) | (copy_b ? 2 : 0);
}

/* The first element of batch element `first` of an operand. */
static inline char *dlx_cuda_gemm_start(const dlx_matrix_operand *o, int64_t first, size_t item) {
  return (char *)o->buffer->data + (size_t)(o->offset + first * o->batch_stride) * item;
}

/* Fills *g with the call for batch elements first .. first + count - 1 of r (count at most
 * DLX_CUDA_GEMM_MAX_BATCH, k >= 1). Returns 0, or the operands that must first be copied
 * conjugated (bit 0: a, bit 1: b; dlx_cuda_gemm_conj_copy), g then unfilled. */
static inline int dlx_cuda_gemm_plan(const dlx_matmul_request *r, int64_t first, int64_t count,
                                     dlx_cuda_gemm *g) {
  dlx_cuda_gemm_forms fc = dlx_cuda_gemm_forms_of(&r->c, r->m, r->n);
  /* [swapped][operand]; cost: the copies an orientation needs, 3 when c does not allow it */
  int ops[2][2] = {{0, 0}, {0, 0}}, copies[2] = {0, 0}, cost[2] = {3, 3};
  int64_t ld[2][2] = {{0, 0}, {0, 0}};
  size_t item = (size_t)dlx_dtype_bits(r->dtype) / 8;
  for (int s = 0; s < 2; s++) {
    if (!(s ? fc.row : fc.col)) continue;
    copies[s] = dlx_cuda_gemm_orient(r, s == 1, ops[s], ld[s]);
    cost[s] = (copies[s] & 1) + (copies[s] >> 1);
  }
  /* fewer copies first, then swapped: c is nearly always row-major */
  bool swapped = cost[1] <= cost[0];
  if (copies[swapped] != 0) return copies[swapped];
  /* cuBLAS's A and B: b and a when swapped (c^T = b^T a^T), else a and b (c = a b) */
  const dlx_matrix_operand *operand[2] = {&r->a, &r->b};
  int first_op = swapped ? 1 : 0, second_op = 1 - first_op;
  memset(g, 0, sizeof *g);
  g->m = swapped ? r->n : r->m;
  g->n = swapped ? r->m : r->n;
  g->k = r->k;
  g->transa = ops[swapped][first_op];
  g->a = dlx_cuda_gemm_start(operand[first_op], first, item);
  g->lda = ld[swapped][first_op];
  g->stride_a = operand[first_op]->batch_stride;
  g->transb = ops[swapped][second_op];
  g->b = dlx_cuda_gemm_start(operand[second_op], first, item);
  g->ldb = ld[swapped][second_op];
  g->stride_b = operand[second_op]->batch_stride;
  g->c = dlx_cuda_gemm_start(&r->c, first, item);
  g->ldc = swapped ? fc.ld_row : fc.ld_col;
  g->stride_c = r->c.batch_stride;
  g->batch = count;
  g->data_type = dlx_cuda_gemm_data_type(r->dtype);
  g->compute_type = dlx_cuda_gemm_compute_type(r->dtype, r->allow_tf32);
  g->alpha = dlx_cuda_gemm_scalar_of(&r->alpha, g->compute_type);
  g->beta = dlx_cuda_gemm_scalar_of(&r->beta, g->compute_type);
  return 0;
}

/* A borrowed view of a request operand's batch of matrices (batch 1 when its batch stride is
 * 0): {batch, rows, cols}. */
static inline void dlx_cuda_gemm_view(dlx_tensor *t, const dlx_matrix_operand *o, dlx_dtype dtype,
                                      int64_t batch, int64_t rows, int64_t cols) {
  memset(t, 0, sizeof *t);
  t->buffer = (dlx_buffer *)o->buffer; /* borrowed for the call: no reference is taken */
  t->dtype = dtype;
  t->ndim = 3;
  t->offset = o->offset;
  t->shape[0] = o->batch_stride == 0 ? 1 : batch;
  t->shape[1] = rows;
  t->shape[2] = cols;
  t->strides[0] = o->batch_stride;
  t->strides[1] = o->row_stride;
  t->strides[2] = o->col_stride;
}

/* Replaces operand `which` of r (0: a, 1: b) with its conjugate, copied by the device's
 * elementwise op into *holder (a new row-major batch the caller closes after the product is
 * queued); the operand is then not conjugated. */
static inline int dlx_cuda_gemm_conj_copy(dlx_matmul_request *r, int which, dlx_tensor *holder,
                                          dlx_error *err) {
  dlx_matrix_operand *o = which == 0 ? &r->a : &r->b;
  int64_t rows = which == 0 ? r->m : r->k, cols = which == 0 ? r->k : r->n;
  dlx_tensor view;
  dlx_operand in;
  dlx_cuda_gemm_view(&view, o, r->dtype, r->batch, rows, cols);
  view.readonly = true;
  in.tensor = &view;
  int rc = dlx_elementwise(DLX_EW_CONJ, &in, NULL, NULL, holder, err);
  if (rc != 0) return rc;
  o->buffer = holder->buffer;
  o->offset = holder->offset;
  o->row_stride = cols;
  o->col_stride = 1;
  o->batch_stride = o->batch_stride == 0 ? 0 : rows * cols;
  o->conj = false;
  return 0;
}

static inline bool dlx_cuda_gemm_is(const dlx_scalar *s, double value) {
  if (s->kind == DLX_KIND_COMPLEX) return s->v.c[0] == value && s->v.c[1] == 0;
  return s->v.f == value;
}

/* k == 0: c = beta * c, with the device's fill and elementwise ops (c is not read when beta is
 * 0, as BLAS). */
static inline int dlx_cuda_gemm_empty_inner(const dlx_matmul_request *r, dlx_error *err) {
  dlx_tensor view;
  dlx_operand in[2];
  dlx_cuda_gemm_view(&view, &r->c, r->dtype, r->batch, r->m, r->n);
  if (dlx_cuda_gemm_is(&r->beta, 0)) {
    dlx_scalar zero;
    memset(&zero, 0, sizeof zero);
    zero.kind = DLX_KIND_FLOAT;
    return dlx_fill(&view, &zero, err);
  }
  if (dlx_cuda_gemm_is(&r->beta, 1)) return 0;
  in[0].tensor = &view;
  in[1].tensor = NULL;
  in[1].scalar = r->beta;
  return dlx_elementwise(DLX_EW_MUL, &in[0], &in[1], &view, NULL, err);
}

/* One library call (blas.c: cublasGemmStridedBatchedEx; the rules test: a gemm on the CPU). */
typedef int (*dlx_cuda_gemm_call)(const dlx_cuda_gemm *g, void *ctx, dlx_error *err);

/* The products of r (k >= 1): conjugate copies first where the library cannot conjugate (into
 * holders[i], held[i] set: the caller closes them once the calls are queued), then one call per
 * max_batch batch elements. r's operands are changed to the copies. */
static inline int dlx_cuda_gemm_run(dlx_matmul_request *r, int64_t max_batch,
                                    dlx_cuda_gemm_call call, void *ctx, dlx_tensor holders[2],
                                    bool held[2], dlx_error *err) {
  dlx_cuda_gemm g;
  int copies = dlx_cuda_gemm_plan(r, 0, 1, &g), rc;
  for (int which = 0; which < 2; which++) {
    if ((copies & (1 << which)) == 0) continue;
    rc = dlx_cuda_gemm_conj_copy(r, which, &holders[which], err);
    if (rc != 0) return rc;
    held[which] = true;
  }
  for (int64_t first = 0; first < r->batch; first += max_batch) {
    int64_t count = r->batch - first < max_batch ? r->batch - first : max_batch;
    if (dlx_cuda_gemm_plan(r, first, count, &g) != 0)
      return dlx_fail(err, DLX_DEVICE_ERROR, "matmul: no cuBLAS call for a conjugate copy");
    rc = call(&g, ctx, err);
    if (rc != 0) return rc;
  }
  return 0;
}

#endif
