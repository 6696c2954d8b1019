/* linalg_decomp.c -- the decompositions of dlx.linalg over the backends' linalg entry (see
 * linalg_decomp.h and dlx_linalg_request in backend.h). Each function checks its operands,
 * copies each input once into a batch of column-major matrices of the compute dtype (LAPACK
 * overwrites its input, so the copy is needed anyway), makes its results, runs the request and
 * turns a failed matrix into a LinAlgError. */
#include "core/linalg_decomp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/device.h"
#include "core/ops.h"
#include "core/promote.h"

#define MAX_MADE 8

/* One call being laid out: the request, the batch shape, and what was made for it. */
typedef struct lcall {
  dlx_linalg_request r;
  const dlx_tensor *src; /* A: the device and kind of memory of everything made */
  int64_t batch[DLX_MAX_NDIM];
  int32_t nb;
  dlx_tensor a, b;            /* the column-major copies of the inputs */
  dlx_tensor *made[MAX_MADE]; /* results and copies, closed when the call fails */
  int nmade;
} lcall;

dlx_dtype dlx_linalg_real_dtype(dlx_dtype dtype) {
  if (dtype == DLX_COMPLEX64) return DLX_FLOAT32;
  if (dtype == DLX_COMPLEX128) return DLX_FLOAT64;
  return dtype;
}

static dlx_dtype complex_dtype(dlx_dtype dtype) {
  if (dtype == DLX_FLOAT32) return DLX_COMPLEX64;
  if (dtype == DLX_FLOAT64) return DLX_COMPLEX128;
  return dtype;
}

int dlx_linalg_dtype(const char *name, dlx_dtype in, dlx_dtype *out, dlx_error *err) {
  const char *dtype = dlx_dtype_info_of(in)->name;
  switch (dlx_dtype_kind(in)) {
  case DLX_KIND_BOOL:
  case DLX_KIND_INT:
  case DLX_KIND_UINT:
    *out = DLX_FLOAT64; /* as NumPy */
    return 0;
  case DLX_KIND_COMPLEX:
    *out = in;
    return 0;
  case DLX_KIND_FLOAT:
    if (in == DLX_FLOAT32 || in == DLX_FLOAT64) {
      *out = in;
      return 0;
    }
    return dlx_fail(err, DLX_TYPE_ERROR,
                    "%s: dtype %s is not supported (float32, float64, complex64 and complex128 "
                    "are; convert first, t:astype(\"float32\"))",
                    name, dtype);
  default:
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: dtype %s cannot be computed on", name, dtype);
  }
}

/* ---- checks */

static int check_matrix(const char *name, const char *what, const dlx_tensor *t, bool square,
                        dlx_error *err) {
  char shape[DLX_SHAPE_TEXT];
  int rc = dlx_buffer_check(t->buffer, err);
  if (rc != 0) return rc;
  dlx_shape_text(shape, sizeof shape, t->shape, t->ndim);
  if (t->ndim < 2)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: %s must have at least 2 dims, got shape %s", name,
                    what, shape);
  if (square && t->shape[t->ndim - 1] != t->shape[t->ndim - 2])
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "%s: %s must be (batches of) square matrices, got shape %s", name, what, shape);
  return 0;
}

/* The DeviceError of a device whose backend has no linalg entry, with the way back. */
static int no_linalg(const char *name, DLDevice device, dlx_error *err) {
  size_t len;
  dlx_not_implemented(err, name, device);
  len = strlen(err->message);
  snprintf(err->message + len, sizeof err->message - len, " and back after");
  return DLX_DEVICE_ERROR;
}

/* Starts a call of function name on A (and B, or NULL): checks the device and the dtypes and
 * sets the compute dtype. */
static int begin(lcall *c, const char *name, dlx_linalg_op op, const dlx_tensor *a,
                 const dlx_tensor *b, dlx_error *err) {
  dlx_dtype dtype = a->dtype;
  const dlx_backend *backend = dlx_compute_backend(a->buffer);
  int rc;
  memset(c, 0, sizeof *c);
  c->r.op = op;
  c->r.name = name;
  c->r.bad_batch = -1;
  c->src = a;
  if (b != NULL) {
    char da[48], db[48];
    rc = dlx_buffer_check(b->buffer, err);
    if (rc != 0) return rc;
    if (!dlx_device_equal(dlx_tensor_device(a), dlx_tensor_device(b)))
      return dlx_fail(err, DLX_DEVICE_ERROR, "%s: A is on %s but B is on %s", name,
                      dlx_device_format(dlx_tensor_device(a), da, sizeof da),
                      dlx_device_format(dlx_tensor_device(b), db, sizeof db));
    rc = dlx_result_dtype(a->dtype, b->dtype, &dtype, err);
    if (rc != 0) return rc;
  }
  rc = dlx_linalg_dtype(name, dtype, &c->r.dtype, err);
  if (rc != 0) return rc;
  if (backend->linalg == NULL) return no_linalg(name, dlx_tensor_device(a), err);
  return 0;
}

static void set_batch(lcall *c, const dlx_tensor *t, int32_t matrix_dims) {
  c->nb = t->ndim - matrix_dims;
  memcpy(c->batch, t->shape, sizeof(int64_t) * (size_t)c->nb);
}

/* The batch shape of A and B broadcast together (their last a_dims and b_dims dims are not
 * batch dims); ValueError naming both shapes. */
static int broadcast_batch(lcall *c, const dlx_tensor *a, int32_t a_dims, const dlx_tensor *b,
                           int32_t b_dims, dlx_error *err) {
  int32_t na = a->ndim - a_dims, nb = b->ndim - b_dims, n = na > nb ? na : nb;
  for (int32_t d = 0; d < n; d++) {
    int32_t da = d - (n - na), db = d - (n - nb);
    int64_t sa = da >= 0 ? a->shape[da] : 1, sb = db >= 0 ? b->shape[db] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      char ta[DLX_SHAPE_TEXT], tb[DLX_SHAPE_TEXT];
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "%s: the batch dims of A of shape %s and B of shape %s do not broadcast",
                      c->r.name, dlx_shape_text(ta, sizeof ta, a->shape, a->ndim),
                      dlx_shape_text(tb, sizeof tb, b->shape, b->ndim));
    }
    c->batch[d] = sa == 1 ? sb : sa;
  }
  c->nb = n;
  return 0;
}

static int64_t batch_count(const lcall *c) {
  int64_t count = 1;
  for (int32_t d = 0; d < c->nb; d++) count *= c->batch[d];
  return count;
}

/* ---- what a call makes */

static void keep(lcall *c, dlx_tensor *t) { c->made[c->nmade++] = t; }

static void close_made(lcall *c) {
  for (int i = 0; i < c->nmade; i++) dlx_tensor_close(c->made[i]);
  c->nmade = 0;
}

/* out = a fresh batch of column-major rows x cols matrices of dtype. */
static int make_matrix(lcall *c, dlx_tensor *out, int64_t rows, int64_t cols, dlx_dtype dtype,
                       dlx_error *err) {
  int64_t shape[DLX_MAX_NDIM];
  int32_t nd = c->nb + 2;
  int rc;
  memcpy(shape, c->batch, sizeof(int64_t) * (size_t)c->nb);
  shape[nd - 2] = cols;
  shape[nd - 1] = rows;
  rc = dlx_empty_on(out, c->src, shape, nd, dtype, err);
  if (rc != 0) return rc;
  out->shape[nd - 2] = rows;
  out->shape[nd - 1] = cols;
  out->strides[nd - 2] = 1;
  out->strides[nd - 1] = rows;
  keep(c, out);
  return 0;
}

/* out = a fresh C-contiguous [batch..., len] of dtype. */
static int make_vector(lcall *c, dlx_tensor *out, int64_t len, dlx_dtype dtype, dlx_error *err) {
  int64_t shape[DLX_MAX_NDIM];
  int rc;
  memcpy(shape, c->batch, sizeof(int64_t) * (size_t)c->nb);
  shape[c->nb] = len;
  rc = dlx_empty_on(out, c->src, shape, c->nb + 1, dtype, err);
  if (rc == 0) keep(c, out);
  return rc;
}

/* out = the matrices of t (its last two dims), broadcast to the batch, as a fresh batch of
 * column-major matrices of the compute dtype: one copy, casting on the way. */
static int copy_matrix(lcall *c, dlx_tensor *out, const dlx_tensor *t, dlx_error *err) {
  int64_t shape[DLX_MAX_NDIM];
  int32_t nd = c->nb + 2;
  dlx_tensor wide, flipped;
  int rc;
  memcpy(shape, c->batch, sizeof(int64_t) * (size_t)c->nb);
  shape[nd - 2] = t->shape[t->ndim - 2];
  shape[nd - 1] = t->shape[t->ndim - 1];
  rc = dlx_expand(&wide, t, shape, nd, err);
  if (rc != 0) return rc;
  rc = dlx_transpose(&flipped, &wide, nd - 2, nd - 1, err);
  dlx_tensor_close(&wide);
  if (rc != 0) return rc;
  rc = dlx_clone_as_memory(out, &flipped, c->r.dtype, dlx_tensor_device(c->src),
                           dlx_tensor_memory(c->src), err);
  dlx_tensor_close(&flipped);
  if (rc != 0) return rc;
  out->shape[nd - 2] = shape[nd - 2];
  out->shape[nd - 1] = shape[nd - 1];
  out->strides[nd - 2] = 1;
  out->strides[nd - 1] = shape[nd - 2];
  keep(c, out);
  return 0;
}

/* Fills t with value when it has elements. */
static int fill_value(const dlx_tensor *t, double value, dlx_error *err) {
  dlx_scalar s = {.kind = DLX_KIND_FLOAT, .v.f = value};
  if (t == NULL || t->buffer == NULL || dlx_tensor_numel(t) == 0) return 0;
  return dlx_fill(t, &s, err);
}

/* Sets every matrix of the batch t to the identity (the zero-size results of the
 * decompositions: a complete Q or a full U of a matrix with no columns). */
static int fill_identity(const dlx_tensor *t, dlx_error *err) {
  dlx_tensor diag = *t;
  int32_t nd = t->ndim;
  int64_t rows = t->shape[nd - 2], cols = t->shape[nd - 1];
  int rc = fill_value(t, 0, err);
  if (rc != 0) return rc;
  diag.ndim = nd - 1;
  diag.shape[nd - 2] = rows < cols ? rows : cols;
  diag.strides[nd - 2] = t->strides[nd - 2] + t->strides[nd - 1];
  return fill_value(&diag, 1, err);
}

/* ---- running a request */

static int linalg_failure(const lcall *c, dlx_error *err) {
  const dlx_linalg_request *r = &c->r;
  long long info = (long long)r->bad_info;
  char where[48] = "";
  if (c->nb > 0)
    snprintf(where, sizeof where, " (Batch element %lld):", (long long)r->bad_batch + 1);
  switch (r->op) {
  case DLX_LINALG_INV:
    return dlx_fail(err, DLX_LINALG_ERROR,
                    "%s:%s The diagonal element %lld is zero, the inversion could not be "
                    "completed because the input matrix is singular.",
                    r->name, where, info);
  case DLX_LINALG_SOLVE:
  case DLX_LINALG_LU_SOLVE:
  case DLX_LINALG_TRIANGULAR:
    return dlx_fail(err, DLX_LINALG_ERROR,
                    "%s:%s The diagonal element %lld is zero, the solve could not be completed "
                    "because the input matrix is singular.",
                    r->name, where, info);
  case DLX_LINALG_CHOLESKY:
    return dlx_fail(err, DLX_LINALG_ERROR,
                    "%s:%s The factorization could not be completed because the input is not "
                    "positive-definite (the leading minor of order %lld is not positive-definite).",
                    r->name, where, info);
  case DLX_LINALG_SVD:
  case DLX_LINALG_EIGH:
    return dlx_fail(err, DLX_LINALG_ERROR,
                    "%s:%s The algorithm failed to converge because the input matrix is "
                    "ill-conditioned or has too many repeated %s (error code: %lld).",
                    r->name, where, r->op == DLX_LINALG_SVD ? "singular values" : "eigenvalues",
                    info);
  case DLX_LINALG_EIG:
    return dlx_fail(err, DLX_LINALG_ERROR,
                    "%s:%s The QR algorithm failed to compute all the eigenvalues (error code: "
                    "%lld).",
                    r->name, where, info);
  case DLX_LINALG_LSTSQ:
    if (r->lstsq_qr)
      return dlx_fail(err, DLX_LINALG_ERROR,
                      "%s:%s The least squares solution could not be computed because the input "
                      "matrix does not have full rank (the diagonal element %lld of its QR "
                      "factor R is at most rcond times the largest; this device solves through "
                      "QR, which needs full rank: move the tensors to the CPU for a "
                      "rank-deficient matrix).",
                      r->name, where, info);
    return dlx_fail(err, DLX_LINALG_ERROR,
                    "%s:%s The SVD of the least squares problem failed to converge (error code: "
                    "%lld).",
                    r->name, where, info);
  default: /* (LAPACK's LU and QR do not fail; another backend's might) */
    return dlx_fail(err, DLX_LINALG_ERROR, "%s:%s The decomposition failed (error code: %lld).",
                    r->name, where, info);
  }
}

/* Runs the request (empty ones: every result is zeros, for the caller to finish); closes what
 * was made when it fails. */
static int run(lcall *c, dlx_error *err) {
  dlx_linalg_request *r = &c->r;
  int rc = 0;
  r->batch = batch_count(c);
  if (r->batch == 0 || r->m == 0 || r->n == 0) {
    for (int i = 0; i < c->nmade && rc == 0; i++) rc = fill_value(c->made[i], 0, err);
  } else {
    const dlx_backend *backend;
    rc = dlx_compute_on(c->src, &backend, err);
    if (rc == 0) rc = backend->linalg(r, err);
    if (rc == 0 && r->bad_batch >= 0) rc = linalg_failure(c, err);
  }
  if (rc != 0) close_made(c);
  return rc;
}

/* rc, after closing what the call made when it is a failure. */
static int step(lcall *c, int rc) {
  if (rc != 0) close_made(c);
  return rc;
}

/* Starts a call on one input A (square or m x n): the checks, the batch, A's copy in c->a. */
static int start_one(lcall *c, const char *name, dlx_linalg_op op, const dlx_tensor *a, bool square,
                     dlx_error *err) {
  int rc = check_matrix(name, "A", a, square, err);
  if (rc == 0) rc = begin(c, name, op, a, NULL, err);
  if (rc != 0) return rc;
  set_batch(c, a, 2);
  c->r.m = a->shape[a->ndim - 2];
  c->r.n = a->shape[a->ndim - 1];
  c->r.a = &c->a;
  return step(c, copy_matrix(c, &c->a, a, err));
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* out = the view of t without its last dim (of size 1). */
static void drop_last(dlx_tensor *out, const dlx_tensor *t) {
  *out = *t;
  out->ndim--;
}

/* ---- B operands: a matrix (..., rows, k), or a vector (rows,) taken as one column */

typedef struct rhs {
  dlx_tensor view; /* B as matrices (a vector with a column dim added) */
  bool vector;
} rhs;

/* Reads B for a system whose matrices have `rows` rows; ValueError naming both shapes. */
static int read_rhs(rhs *out, const lcall *c, const dlx_tensor *a, const dlx_tensor *b,
                    int64_t rows, dlx_error *err) {
  char ta[DLX_SHAPE_TEXT], tb[DLX_SHAPE_TEXT];
  out->vector = b->ndim == 1;
  dlx_shape_text(ta, sizeof ta, a->shape, a->ndim);
  dlx_shape_text(tb, sizeof tb, b->shape, b->ndim);
  if (b->ndim == 0 || b->shape[out->vector ? 0 : b->ndim - 2] != rows)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "%s: A of shape %s and B of shape %s do not match: B must be (..., %lld, k) "
                    "or (%lld,)",
                    c->r.name, ta, tb, (long long)rows, (long long)rows);
  if (out->vector) return dlx_unsqueeze(&out->view, b, 1, err);
  dlx_tensor_share(&out->view, b);
  return 0;
}

/* The result x of a system, (..., n, k), or (..., n) for a vector B. */
static void system_result(dlx_tensor *x, const dlx_tensor *made, const rhs *b) {
  if (b->vector)
    drop_last(x, made);
  else
    *x = *made;
}

/* Starts a call on a square A and a right-hand side B: the batch broadcast, both copies. */
static int start_system(lcall *c, rhs *rb, const char *name, dlx_linalg_op op, const dlx_tensor *a,
                        const dlx_tensor *b, dlx_error *err) {
  int rc = check_matrix(name, "A", a, true, err);
  if (rc == 0) rc = begin(c, name, op, a, b, err);
  if (rc == 0) rc = read_rhs(rb, c, a, b, a->shape[a->ndim - 1], err);
  if (rc != 0) return rc;
  rc = broadcast_batch(c, a, 2, &rb->view, 2, err);
  c->r.m = c->r.n = a->shape[a->ndim - 1];
  c->r.k = rb->view.shape[rb->view.ndim - 1];
  c->r.a = &c->a;
  c->r.b = &c->b;
  if (rc == 0) rc = copy_matrix(c, &c->a, a, err);
  if (rc == 0) rc = copy_matrix(c, &c->b, &rb->view, err);
  dlx_tensor_close(&rb->view);
  return step(c, rc);
}

/* ---- the functions */

int dlx_linalg_solve(dlx_tensor *x, const dlx_tensor *a, const dlx_tensor *b, dlx_error *err) {
  lcall c;
  rhs rb;
  int rc = start_system(&c, &rb, "linalg.solve", DLX_LINALG_SOLVE, a, b, err);
  if (rc == 0) rc = run(&c, err);
  if (rc != 0) return rc;
  dlx_tensor_close(&c.a);
  system_result(x, &c.b, &rb);
  return 0;
}

int dlx_linalg_inv(dlx_tensor *out, const dlx_tensor *a, dlx_error *err) {
  lcall c;
  int rc = start_one(&c, "linalg.inv", DLX_LINALG_INV, a, true, err);
  if (rc == 0) rc = run(&c, err);
  if (rc == 0) *out = c.a;
  return rc;
}

/* det, or sign and logabs (logabs not NULL) */
static int det_call(dlx_tensor *det, dlx_tensor *logabs, const dlx_tensor *a, const char *name,
                    dlx_error *err) {
  lcall c;
  dlx_tensor v0, v1;
  int rc = start_one(&c, name, DLX_LINALG_DET, a, true, err);
  if (rc != 0) return rc;
  rc = make_vector(&c, &v0, 1, c.r.dtype, err);
  if (rc == 0 && logabs != NULL) {
    c.r.flags = DLX_LINALG_LOG;
    rc = make_vector(&c, &v1, 1, dlx_linalg_real_dtype(c.r.dtype), err);
    c.r.vecs[1] = &v1;
  }
  c.r.vecs[0] = &v0;
  rc = step(&c, rc);
  if (rc == 0) rc = run(&c, err);
  if (rc == 0 && c.r.n == 0) rc = step(&c, fill_value(&v0, 1, err)); /* det of 0 x 0 is 1 */
  if (rc != 0) return rc;
  dlx_tensor_close(&c.a);
  drop_last(det, &v0);
  if (logabs != NULL) drop_last(logabs, &v1);
  return 0;
}

int dlx_linalg_det(dlx_tensor *det, const dlx_tensor *a, dlx_error *err) {
  return det_call(det, NULL, a, "linalg.det", err);
}

int dlx_linalg_slogdet(dlx_tensor *sign, dlx_tensor *logabs, const dlx_tensor *a, dlx_error *err) {
  return det_call(sign, logabs, a, "linalg.slogdet", err);
}

int dlx_linalg_cholesky(dlx_tensor *l, const dlx_tensor *a, bool upper, dlx_error *err) {
  lcall c;
  int rc = start_one(&c, "linalg.cholesky", DLX_LINALG_CHOLESKY, a, true, err);
  if (rc != 0) return rc;
  c.r.flags = upper ? DLX_LINALG_UPPER : 0;
  rc = run(&c, err);
  if (rc == 0) *l = c.a;
  return rc;
}

int dlx_linalg_qr(dlx_tensor *q, dlx_tensor *r, const dlx_tensor *a, dlx_qr_mode mode,
                  dlx_error *err) {
  lcall c;
  dlx_tensor mq, mr;
  int64_t m, k;
  int rc = start_one(&c, "linalg.qr", DLX_LINALG_QR, a, false, err);
  if (rc != 0) return rc;
  m = c.r.m;
  k = mode == DLX_QR_COMPLETE ? m : min64(m, c.r.n);
  c.r.flags = mode == DLX_QR_COMPLETE ? DLX_LINALG_FULL : 0;
  rc = make_matrix(&c, &mr, k, c.r.n, c.r.dtype, err);
  if (rc == 0 && mode != DLX_QR_R) {
    rc = make_matrix(&c, &mq, m, k, c.r.dtype, err);
    c.r.mats[0] = &mq;
  }
  c.r.mats[1] = &mr;
  rc = step(&c, rc);
  if (rc == 0) rc = run(&c, err);
  if (rc == 0 && mode != DLX_QR_R && (c.r.m == 0 || c.r.n == 0))
    rc = step(&c, fill_identity(&mq, err));
  if (rc != 0) return rc;
  dlx_tensor_close(&c.a);
  if (mode == DLX_QR_R) { /* Q is an empty tensor, as torch.linalg.qr gives it */
    int64_t zero = 0;
    rc = dlx_empty_on(&mq, a, &zero, 1, c.r.dtype, err);
    if (rc != 0) {
      dlx_tensor_close(&mr);
      return rc;
    }
  }
  *r = mr;
  *q = mq;
  return 0;
}

int dlx_linalg_svd(dlx_tensor *u, dlx_tensor *s, dlx_tensor *vh, const dlx_tensor *a, bool full,
                   dlx_error *err) {
  lcall c;
  dlx_tensor mu, ms, mv;
  int64_t m, n, k;
  int rc =
      start_one(&c, u != NULL ? "linalg.svd" : "linalg.svdvals", DLX_LINALG_SVD, a, false, err);
  if (rc != 0) return rc;
  m = c.r.m;
  n = c.r.n;
  k = min64(m, n);
  rc = make_vector(&c, &ms, k, dlx_linalg_real_dtype(c.r.dtype), err);
  c.r.vecs[0] = &ms;
  if (rc == 0 && u != NULL) {
    c.r.flags = DLX_LINALG_VECTORS | (full ? DLX_LINALG_FULL : 0);
    rc = make_matrix(&c, &mu, m, full ? m : k, c.r.dtype, err);
    if (rc == 0) rc = make_matrix(&c, &mv, full ? n : k, n, c.r.dtype, err);
    c.r.mats[0] = &mu;
    c.r.mats[1] = &mv;
  }
  rc = step(&c, rc);
  if (rc == 0) rc = run(&c, err);
  if (rc == 0 && u != NULL && k == 0) {
    rc = fill_identity(&mu, err);
    if (rc == 0) rc = fill_identity(&mv, err);
    rc = step(&c, rc);
  }
  if (rc != 0) return rc;
  dlx_tensor_close(&c.a);
  *s = ms;
  if (u != NULL) {
    *u = mu;
    *vh = mv;
  }
  return 0;
}

int dlx_linalg_eigh(dlx_tensor *w, dlx_tensor *v, const dlx_tensor *a, bool upper, dlx_error *err) {
  lcall c;
  dlx_tensor mw;
  int rc =
      start_one(&c, v != NULL ? "linalg.eigh" : "linalg.eigvalsh", DLX_LINALG_EIGH, a, true, err);
  if (rc != 0) return rc;
  c.r.flags = (upper ? DLX_LINALG_UPPER : 0) | (v != NULL ? DLX_LINALG_VECTORS : 0);
  rc = step(&c, make_vector(&c, &mw, c.r.n, dlx_linalg_real_dtype(c.r.dtype), err));
  c.r.vecs[0] = &mw;
  if (rc == 0) rc = run(&c, err);
  if (rc != 0) return rc;
  *w = mw;
  if (v != NULL)
    *v = c.a;
  else
    dlx_tensor_close(&c.a);
  return 0;
}

int dlx_linalg_eig(dlx_tensor *w, dlx_tensor *v, const dlx_tensor *a, dlx_error *err) {
  lcall c;
  dlx_tensor mw, mv;
  dlx_dtype cx;
  int rc = start_one(&c, v != NULL ? "linalg.eig" : "linalg.eigvals", DLX_LINALG_EIG, a, true, err);
  if (rc != 0) return rc;
  cx = complex_dtype(c.r.dtype);
  rc = make_vector(&c, &mw, c.r.n, cx, err);
  c.r.vecs[0] = &mw;
  if (rc == 0 && v != NULL) {
    c.r.flags = DLX_LINALG_VECTORS;
    rc = make_matrix(&c, &mv, c.r.n, c.r.n, cx, err);
    c.r.mats[0] = &mv;
  }
  rc = step(&c, rc);
  if (rc == 0) rc = run(&c, err);
  if (rc != 0) return rc;
  dlx_tensor_close(&c.a);
  *w = mw;
  if (v != NULL) *v = mv;
  return 0;
}

/* The machine epsilon of a dtype's real part. */
static double dtype_eps(dlx_dtype dtype) {
  return dlx_linalg_real_dtype(dtype) == DLX_FLOAT32 ? 1.1920928955078125e-07
                                                     : 2.220446049250313e-16;
}

/* Whether every matrix of a least squares call had rank n (the smallest rank is n). */
static int full_rank(const dlx_tensor *rank, int64_t n, bool *full, dlx_error *err) {
  dlx_tensor least;
  dlx_scalar value;
  int rc = dlx_reduce(&least, DLX_REDUCE_MIN, rank, ~(uint64_t)0 >> (64 - rank->ndim), false, err);
  if (rc != 0) return rc;
  rc = dlx_get_element(&least, NULL, &value, err);
  dlx_tensor_close(&least);
  *full = rc == 0 && value.v.i == n;
  return rc;
}

/* lstsq's results from what the call made: x (the first n rows of b), the residuals (when m > n
 * and every rank is n, else an empty tensor). Closes b and made_res, and all it made when it
 * fails. */
static int lstsq_results(lcall *c, const rhs *rb, dlx_tensor *res, dlx_tensor *made_res,
                         dlx_tensor *x, dlx_error *err) {
  int64_t n = c->r.n, zero = 0;
  bool full = false;
  int rc = 0;
  dlx_tensor top;
  if (made_res->buffer != NULL && c->r.batch > 0 && n > 0) rc = full_rank(c->r.ints, n, &full, err);
  if (rc == 0) rc = dlx_slice(&top, &c->b, c->nb, 0, n - 1, 1, err);
  dlx_tensor_close(&c->b);
  if (rc != 0) {
    dlx_tensor_close(made_res);
    return rc;
  }
  if (full)
    system_result(res, made_res, rb);
  else {
    dlx_tensor_close(made_res);
    rc = dlx_empty_on(res, c->src, &zero, 1, dlx_linalg_real_dtype(c->r.dtype), err);
  }
  if (rc != 0) {
    dlx_tensor_close(&top);
    return rc;
  }
  system_result(x, &top, rb);
  return 0;
}

/* Replaces ms with an empty tensor (0,) of its dtype (a backend's QR route computed no singular
 * values: torch's gels driver also gives an empty tensor). */
static int empty_singular_values(const lcall *c, dlx_tensor *ms, dlx_error *err) {
  int64_t zero = 0;
  dlx_tensor empty;
  int rc = dlx_empty_on(&empty, c->src, &zero, 1, ms->dtype, err);
  if (rc != 0) return rc;
  dlx_tensor_close(ms);
  *ms = empty;
  return 0;
}

int dlx_linalg_lstsq(dlx_tensor *x, dlx_tensor *residuals, dlx_tensor *rank, dlx_tensor *s,
                     const dlx_tensor *a, const dlx_tensor *b, double rcond, dlx_error *err) {
  lcall c;
  rhs rb;
  dlx_tensor top, mr, ms, mres = {0};
  dlx_dtype real;
  int64_t m, n, k;
  int rc = check_matrix("linalg.lstsq", "A", a, false, err);
  if (rc == 0) rc = begin(&c, "linalg.lstsq", DLX_LINALG_LSTSQ, a, b, err);
  if (rc == 0) rc = read_rhs(&rb, &c, a, b, a->shape[a->ndim - 2], err);
  if (rc != 0) return rc;
  rc = broadcast_batch(&c, a, 2, &rb.view, 2, err);
  m = c.r.m = a->shape[a->ndim - 2];
  n = c.r.n = a->shape[a->ndim - 1];
  k = rb.view.shape[rb.view.ndim - 1];
  /* No right-hand sides (B is m x 0): solved as one zero column, which the results then drop,
   * as NumPy's lstsq does, since LAPACK's gelsd refuses nrhs = 0 (its dlalsd needs at least 1)
   * and cuSOLVER does not say it takes 0; the rank and singular values are A's all the same. */
  c.r.k = k > 0 ? k : 1;
  c.r.rcond = rcond >= 0 ? rcond : dtype_eps(c.r.dtype) * (double)(m > n ? m : n);
  c.r.a = &c.a;
  c.r.b = &c.b;
  real = dlx_linalg_real_dtype(c.r.dtype);
  if (rc == 0) rc = copy_matrix(&c, &c.a, a, err);
  if (rc == 0) rc = make_matrix(&c, &c.b, m > n ? m : n, c.r.k, c.r.dtype, err);
  if (rc == 0 && k == 0) rc = fill_value(&c.b, 0, err);
  if (rc == 0 && m > 0 && k > 0) rc = dlx_slice(&top, &c.b, c.nb, 0, m - 1, 1, err);
  if (rc == 0 && m > 0 && k > 0) {
    rc = dlx_copy(&top, &rb.view, err);
    dlx_tensor_close(&top);
  }
  dlx_tensor_close(&rb.view);
  if (rc == 0) rc = make_vector(&c, &mr, 1, DLX_INT64, err);
  if (rc == 0) rc = make_vector(&c, &ms, min64(m, n), real, err);
  if (rc == 0 && m > n) rc = make_vector(&c, &mres, c.r.k, real, err);
  c.r.ints = &mr;
  c.r.vecs[0] = &ms;
  c.r.vecs[1] = m > n ? &mres : NULL;
  rc = step(&c, rc);
  if (rc == 0) rc = run(&c, err);
  if (rc == 0 && c.r.lstsq_qr) rc = step(&c, empty_singular_values(&c, &ms, err));
  if (rc != 0) return rc;
  dlx_tensor_close(&c.a);
  rc = lstsq_results(&c, &rb, residuals, &mres, x, err);
  if (rc != 0) {
    dlx_tensor_close(&mr);
    dlx_tensor_close(&ms);
    return rc;
  }
  if (k == 0) { /* without the zero column (B is a matrix then, never a vector) */
    x->shape[x->ndim - 1] = 0;
    residuals->shape[residuals->ndim - 1] = 0;
  }
  drop_last(rank, &mr);
  *s = ms;
  return 0;
}

int dlx_linalg_lu_factor(dlx_tensor *lu, dlx_tensor *pivots, const dlx_tensor *a, dlx_error *err) {
  lcall c;
  dlx_tensor piv;
  int rc = start_one(&c, "linalg.lu_factor", DLX_LINALG_LU, a, false, err);
  if (rc != 0) return rc;
  rc = step(&c, make_vector(&c, &piv, min64(c.r.m, c.r.n), DLX_INT64, err));
  c.r.ints = &piv;
  if (rc == 0) rc = run(&c, err);
  if (rc != 0) return rc;
  *lu = c.a;
  *pivots = piv;
  return 0;
}

int dlx_linalg_lu(dlx_tensor *p, dlx_tensor *l, dlx_tensor *u, const dlx_tensor *a,
                  dlx_error *err) {
  lcall c;
  dlx_tensor piv, mp, ml, mu;
  int64_t m, n, k;
  int rc = start_one(&c, "linalg.lu", DLX_LINALG_LU, a, false, err);
  if (rc != 0) return rc;
  m = c.r.m;
  n = c.r.n;
  k = min64(m, n);
  c.r.flags = DLX_LINALG_VECTORS;
  rc = make_vector(&c, &piv, k, DLX_INT64, err);
  if (rc == 0) rc = make_matrix(&c, &mp, m, m, c.r.dtype, err);
  if (rc == 0) rc = make_matrix(&c, &ml, m, k, c.r.dtype, err);
  if (rc == 0) rc = make_matrix(&c, &mu, k, n, c.r.dtype, err);
  c.r.ints = &piv;
  c.r.mats[0] = &mp;
  c.r.mats[1] = &ml;
  c.r.mats[2] = &mu;
  rc = step(&c, rc);
  if (rc == 0) rc = run(&c, err);
  if (rc == 0 && k == 0) rc = step(&c, fill_identity(&mp, err));
  if (rc != 0) return rc;
  dlx_tensor_close(&c.a);
  dlx_tensor_close(&piv);
  *p = mp;
  *l = ml;
  *u = mu;
  return 0;
}

/* The pivots of lu_solve, (..., n) matching LU's (..., n, n), as a fresh int64 batch vector. */
static int copy_pivots(lcall *c, dlx_tensor *out, const dlx_tensor *lu, const dlx_tensor *pivots,
                       dlx_error *err) {
  int64_t shape[DLX_MAX_NDIM];
  int32_t nd = c->nb + 1;
  char tl[DLX_SHAPE_TEXT], tp[DLX_SHAPE_TEXT];
  dlx_tensor wide;
  dlx_kind kind = dlx_dtype_kind(pivots->dtype);
  int rc = dlx_buffer_check(pivots->buffer, err);
  if (rc != 0) return rc;
  if (kind != DLX_KIND_INT && kind != DLX_KIND_UINT)
    return dlx_fail(err, DLX_TYPE_ERROR, "linalg.lu_solve: pivots must be integers, got %s",
                    dlx_dtype_info_of(pivots->dtype)->name);
  if (!dlx_device_equal(dlx_tensor_device(pivots), dlx_tensor_device(lu)))
    return dlx_fail(err, DLX_DEVICE_ERROR, "linalg.lu_solve: pivots are not on LU's device");
  if (pivots->ndim != lu->ndim - 1 ||
      memcmp(pivots->shape, lu->shape, sizeof(int64_t) * (size_t)pivots->ndim) != 0)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "linalg.lu_solve: LU of shape %s needs pivots of its shape without the last "
                    "dim, got %s",
                    dlx_shape_text(tl, sizeof tl, lu->shape, lu->ndim),
                    dlx_shape_text(tp, sizeof tp, pivots->shape, pivots->ndim));
  memcpy(shape, c->batch, sizeof(int64_t) * (size_t)c->nb);
  shape[nd - 1] = pivots->shape[pivots->ndim - 1];
  rc = dlx_expand(&wide, pivots, shape, nd, err);
  if (rc != 0) return rc;
  rc = dlx_clone_as_memory(out, &wide, DLX_INT64, dlx_tensor_device(c->src),
                           dlx_tensor_memory(c->src), err);
  dlx_tensor_close(&wide);
  if (rc == 0) keep(c, out);
  return rc;
}

int dlx_linalg_lu_solve(dlx_tensor *x, const dlx_tensor *lu, const dlx_tensor *pivots,
                        const dlx_tensor *b, dlx_error *err) {
  lcall c;
  rhs rb;
  dlx_tensor piv;
  int rc = start_system(&c, &rb, "linalg.lu_solve", DLX_LINALG_LU_SOLVE, lu, b, err);
  if (rc != 0) return rc;
  rc = step(&c, copy_pivots(&c, &piv, lu, pivots, err));
  c.r.ints = &piv;
  if (rc == 0) rc = run(&c, err);
  if (rc != 0) return rc;
  dlx_tensor_close(&c.a);
  dlx_tensor_close(&piv);
  system_result(x, &c.b, &rb);
  return 0;
}

/* X of A X = B, A triangular. */
static int triangular_left(dlx_tensor *x, const dlx_tensor *a, const dlx_tensor *b, bool upper,
                           bool unit, dlx_error *err) {
  lcall c;
  rhs rb;
  int rc = start_system(&c, &rb, "linalg.solve_triangular", DLX_LINALG_TRIANGULAR, a, b, err);
  if (rc != 0) return rc;
  c.r.flags = (upper ? DLX_LINALG_UPPER : 0) | (unit ? DLX_LINALG_UNIT : 0);
  rc = run(&c, err);
  if (rc != 0) return rc;
  dlx_tensor_close(&c.a);
  *x = c.b;
  return 0;
}

int dlx_linalg_solve_triangular(dlx_tensor *x, const dlx_tensor *a, const dlx_tensor *b, bool upper,
                                bool left, bool unit, dlx_error *err) {
  const char *name = "linalg.solve_triangular";
  char ta[DLX_SHAPE_TEXT], tb[DLX_SHAPE_TEXT];
  dlx_tensor at, bt, xt;
  int64_t n;
  int rc = check_matrix(name, "A", a, true, err);
  if (rc == 0) rc = check_matrix(name, "B", b, false, err);
  if (rc != 0) return rc;
  n = a->shape[a->ndim - 1];
  if (b->shape[b->ndim - (left ? 2 : 1)] != n)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "%s: A of shape %s and B of shape %s do not match: B must be %s", name,
                    dlx_shape_text(ta, sizeof ta, a->shape, a->ndim),
                    dlx_shape_text(tb, sizeof tb, b->shape, b->ndim),
                    left ? "(..., n, k) for left = true" : "(..., k, n) for left = false");
  if (left) return triangular_left(x, a, b, upper, unit, err);
  /* X A = B is A^T X^T = B^T: the same solve on transposed views, X the transpose of its X^T */
  rc = dlx_transpose(&at, a, a->ndim - 2, a->ndim - 1, err);
  if (rc != 0) return rc;
  rc = dlx_transpose(&bt, b, b->ndim - 2, b->ndim - 1, err);
  if (rc == 0) {
    rc = triangular_left(&xt, &at, &bt, !upper, unit, err);
    if (rc == 0) {
      rc = dlx_transpose(x, &xt, xt.ndim - 2, xt.ndim - 1, err);
      dlx_tensor_close(&xt);
    }
    dlx_tensor_close(&bt);
  }
  dlx_tensor_close(&at);
  return rc;
}
