/* stats.c -- checks, dtype rules and dispatch of var, std, logsumexp, norm and of the ops along
 * one dim. */
#include "core/stats.h"

#include <math.h>

#include "core/device.h"
#include "core/ops.h"

const char *dlx_stat_name(dlx_stat_op op) {
  static const char *const names[] = {"var", "std", "logsumexp", "norm"};
  return names[op];
}

const char *dlx_dim_op_name(dlx_dim_op op) {
  static const char *const names[] = {"cumsum", "cumprod", "softmax", "log_softmax"};
  return names[op];
}

int dlx_stat_dtype(const char *name, dlx_dtype in, dlx_dtype *out, dlx_error *err) {
  switch (dlx_dtype_kind(in)) {
  case DLX_KIND_BOOL:
  case DLX_KIND_INT:
  case DLX_KIND_UINT:
    *out = DLX_FLOAT32;
    return 0;
  case DLX_KIND_FLOAT:
    *out = in;
    return 0;
  case DLX_KIND_COMPLEX:
    return dlx_fail(err, DLX_TYPE_ERROR, "%s of a complex tensor is not supported", name);
  default:
    return dlx_fail(err, DLX_TYPE_ERROR,
                    "cannot compute %s of a %s tensor: storage-only dtypes cannot be computed on",
                    name, dlx_dtype_info_of(in)->name);
  }
}

static int check_param(dlx_stat_op op, double param, dlx_error *err) {
  if ((op == DLX_STAT_VAR || op == DLX_STAT_STD) && !isfinite(param))
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: the correction must be a finite number",
                    dlx_stat_name(op));
  if (op == DLX_STAT_NORM && param != 1 && param != 2 && param != INFINITY)
    return dlx_fail(err, DLX_VALUE_ERROR, "norm: p must be 1, 2 or math.huge, got %g", param);
  return 0;
}

/* The backend that computes on src's memory runs the statistic into dst. */
static int run_reduce_stat(dlx_stat_op op, double param, const dlx_tensor *src, uint64_t dims,
                           const dlx_tensor *dst, dlx_error *err) {
  const dlx_backend *backend;
  int rc = dlx_compute_on(src, &backend, err);
  return rc != 0 ? rc : backend->reduce_stat(op, param, src, dims, dst, err);
}

int dlx_reduce_stat(dlx_tensor *out, dlx_stat_op op, double param, const dlx_tensor *src,
                    uint64_t dims, bool keepdim, dlx_error *err) {
  uint64_t all = src->ndim == 64 ? ~UINT64_C(0) : (UINT64_C(1) << src->ndim) - 1;
  dlx_dtype dtype;
  dlx_tensor dst;
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc == 0) rc = dlx_stat_dtype(dlx_stat_name(op), src->dtype, &dtype, err);
  if (rc == 0) rc = check_param(op, param, err);
  if (rc != 0) return rc;
  if ((dims & ~all) != 0) return dlx_fail(err, DLX_VALUE_ERROR, "reduction dim out of range");
  if (dlx_compute_backend(src->buffer)->reduce_stat == NULL)
    return dlx_not_implemented(err, dlx_stat_name(op), src->buffer->device);
  rc = dlx_reduced_empty(&dst, src, dims, dtype, err);
  if (rc != 0) return rc;
  if (dlx_tensor_numel(&dst) > 0) rc = run_reduce_stat(op, param, src, dims, &dst, err);
  return dlx_reduced_done(out, &dst, rc, dims, keepdim);
}

/* The backend that computes on the memory of line (src, seen as at least 1-d) runs op into dst. */
static int run_along_dim(dlx_dim_op op, const dlx_tensor *line, int32_t dim, const dlx_tensor *dst,
                         dlx_error *err) {
  const dlx_backend *backend;
  int rc = dlx_compute_on(line, &backend, err);
  return rc != 0 ? rc : backend->along_dim(op, line, dim, dst, err);
}

int dlx_along_dim(dlx_tensor *out, dlx_dim_op op, const dlx_tensor *src, int32_t dim,
                  dlx_error *err) {
  const char *name = dlx_dim_op_name(op);
  dlx_tensor dst, line = *src;
  dlx_dtype dtype;
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc != 0) return rc;
  if (op == DLX_DIM_CUMSUM || op == DLX_DIM_CUMPROD)
    rc = dlx_reduce_dtype(op == DLX_DIM_CUMSUM ? DLX_REDUCE_SUM : DLX_REDUCE_PROD, src->dtype,
                          &dtype, err);
  else
    rc = dlx_stat_dtype(name, src->dtype, &dtype, err);
  if (rc != 0) return rc;
  if (dim < 0 || dim >= (src->ndim > 0 ? src->ndim : 1))
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: dim %d out of range for a %d-d tensor", name,
                    (int)dim + 1, (int)src->ndim);
  if (dtype == DLX_COMPLEX64 || dtype == DLX_COMPLEX128)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s of a complex tensor is not supported", name);
  if (dlx_compute_backend(src->buffer)->along_dim == NULL)
    return dlx_not_implemented(err, name, src->buffer->device);
  if (src->ndim == 0) { /* one element, as a 1-d line */
    line.ndim = 1;
    line.shape[0] = 1;
    line.strides[0] = 1;
  }
  rc = dlx_tensor_empty(&dst, line.shape, line.ndim, dtype, src->buffer->device, err);
  if (rc != 0) return rc;
  if (dlx_tensor_numel(&dst) > 0) rc = run_along_dim(op, &line, dim, &dst, err);
  if (rc != 0) {
    dlx_tensor_close(&dst);
    return rc;
  }
  dst.ndim = src->ndim;
  *out = dst;
  return 0;
}
