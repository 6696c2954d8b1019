/* order_stats.c -- checks, layouts and dispatch of the order statistics and row scans (through
 * the backends' row_op), and nansum, nanmean and count_nonzero (see order_stats.h). */
#include "core/order_stats.h"

#include <math.h>
#include <string.h>

#include "core/device.h"
#include "core/elementwise.h"
#include "core/indexing.h"
#include "core/ops.h"
#include "core/sort.h"
#include "core/stats.h"
#include "core/temps.h"

const char *dlx_row_op_name(dlx_row_op op) {
  static const char *const names[] = {"kthvalue", "median",   "nanmedian",
                                      "mode",     "quantile", "nanquantile",
                                      "cummax",   "cummin",   "logcumsumexp"};
  return names[op];
}

/* ---- checks */

static bool has_route(const dlx_tensor *src, dlx_row_op op);

static int check_row_backend(const dlx_tensor *src, dlx_row_op op, dlx_error *err) {
  if (has_route(src, op)) return 0;
  return dlx_not_implemented(err, dlx_row_op_name(op), src->buffer->device);
}

/* src seen as at least 1-d (a 0-d tensor is one element). */
static dlx_tensor as_line(const dlx_tensor *src) {
  dlx_tensor line = *src;
  if (src->ndim == 0) {
    line.ndim = 1;
    line.shape[0] = 1;
    line.strides[0] = 1;
  }
  return line;
}

static int check_dim(const dlx_tensor *line, int32_t dim, const char *name, int32_t src_ndim,
                     dlx_error *err) {
  if (dim >= line->ndim)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: dim %d out of range for a %d-d tensor", name,
                    (int)dim + 1, (int)src_ndim);
  return 0;
}

/* ---- layouts */

/* t (fresh and C-contiguous) takes shape, with C-order strides. */
static void set_contiguous(dlx_tensor *t, const int64_t *shape, int32_t ndim) {
  int64_t stride = 1;
  t->ndim = ndim;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    t->shape[d] = shape[d];
    t->strides[d] = stride;
    stride *= shape[d] > 1 ? shape[d] : 1;
  }
}

/* rows = line with dim last (dim < 0: all elements in one row), C-contiguous, as [rows, n]. */
static int rows_view(dlx_tensor *rows, const dlx_tensor *line, int32_t dim, dlx_error *err) {
  int32_t perm[DLX_MAX_NDIM], last = line->ndim - 1;
  int64_t numel = dlx_tensor_numel(line), n = dim < 0 ? numel : line->shape[dim];
  dlx_tensor moved;
  int rc;
  for (int32_t d = 0, to = 0; d <= last; d++)
    if (d != dim || dim < 0) perm[to++] = d;
  if (dim >= 0) perm[last] = dim;
  rc = dlx_permute(&moved, line, perm, err);
  if (rc != 0) return rc;
  if (dlx_tensor_is_contiguous(&moved))
    dlx_tensor_share(rows, &moved);
  else
    rc = dlx_clone_as_memory(rows, &moved, line->dtype, line->buffer->device,
                             dlx_tensor_memory(line), err);
  dlx_tensor_close(&moved);
  if (rc != 0) return rc;
  rows->ndim = 2;
  rows->shape[0] = n > 0 ? numel / n : 0;
  rows->shape[1] = n;
  rows->strides[0] = n;
  rows->strides[1] = 1;
  return 0;
}

/* Runs req (its src a [rows, n] view) unless there is nothing to compute. */
static int run_rows(const dlx_row_request *req, dlx_error *err) {
  const dlx_backend *backend;
  int rc;
  if (dlx_tensor_numel(req->src) == 0 || dlx_tensor_numel(req->values) == 0) return 0;
  rc = dlx_compute_on(req->src, &backend, err);
  return rc != 0 ? rc : backend->row_op(req, err);
}

/* ---- devices without row_op: sort the rows (sort_rows), then pick the ranks with elementwise
 * ops, sums and gathers on the device. The stable sort puts at each rank the element the CPU's
 * selection finds there, and the quantiles are computed in float64 with the CPU's formulas, so
 * the results are the CPU's, bit for bit. */

/* The ops the sorted route computes. */
static bool sorted_route(dlx_row_op op) {
  return op == DLX_ROW_KTH || op == DLX_ROW_MEDIAN || op == DLX_ROW_NANMEDIAN ||
         op == DLX_ROW_MODE || op == DLX_ROW_QUANTILE || op == DLX_ROW_NANQUANTILE;
}

static dlx_tensor *where(dlx_temps *tp, int *rc, const dlx_tensor *cond, dlx_operand a,
                         dlx_operand b, dlx_error *err) {
  dlx_operand in[3] = {dlx_operand_of(cond), a, b};
  return dlx_temps_ew_n(tp, rc, DLX_EW_WHERE, in, err);
}

/* The [rows, 1] int64 count of NaN of each row of rows. */
static dlx_tensor *row_nans(dlx_temps *tp, int *rc, const dlx_tensor *rows, dlx_error *err) {
  dlx_tensor *nan = dlx_temps_ew(tp, rc, DLX_EW_ISNAN, dlx_operand_of(rows), NULL, err);
  return dlx_temps_reduce(tp, rc, DLX_REDUCE_SUM, nan, UINT64_C(1) << 1, true, err);
}

/* out (a new temporary) = src gathered along dim 1 at the 0-based positions pos, clamped into
 * [0, m - 1] (m: a tensor, or the row length when NULL). */
static dlx_tensor *pick(dlx_temps *tp, int *rc, const dlx_tensor *src, const dlx_tensor *pos,
                        const dlx_tensor *m_less1, int64_t n, dlx_error *err) {
  dlx_tensor *at;
  at =
      m_less1 != NULL
          ? dlx_temps_ew2(tp, rc, DLX_EW_MINIMUM, dlx_operand_of(pos), dlx_operand_of(m_less1), err)
          : dlx_temps_ew2(tp, rc, DLX_EW_MINIMUM, dlx_operand_of(pos), dlx_operand_int(n - 1), err);
  at = dlx_temps_ew2(tp, rc, DLX_EW_MAXIMUM, dlx_operand_of(at), dlx_operand_int(0), err);
  at = dlx_temps_ew2(tp, rc, DLX_EW_ADD, dlx_operand_of(at), dlx_operand_int(1), err); /* 1-based */
  return dlx_temps_gather(tp, rc, src, 1, at, err);
}

/* KTH, MEDIAN, NANMEDIAN of req's rows into values and indices ([rows, 1]). */
static int sorted_ranks(const dlx_row_request *req, const dlx_tensor *sv, const dlx_tensor *si,
                        dlx_temps *tp, dlx_error *err) {
  int64_t n = req->src->shape[1];
  int rc = 0;
  dlx_tensor *rank, *v, *i;
  if (req->op == DLX_ROW_KTH) {
    int64_t one[2] = {req->src->shape[0], 1};
    rank = dlx_temps_full(tp, &rc, req->src, one, 2, DLX_INT64, req->k, err);
  } else {
    dlx_tensor *nan = row_nans(tp, &rc, req->src, err);
    dlx_tensor *m =
        dlx_temps_ew2(tp, &rc, DLX_EW_SUB, dlx_operand_int(n), dlx_operand_of(nan), err);
    if (req->op == DLX_ROW_MEDIAN) { /* a row with NaN: its first NaN, at rank m */
      dlx_tensor *has_nan =
          dlx_temps_ew2(tp, &rc, DLX_EW_GT, dlx_operand_of(nan), dlx_operand_int(0), err);
      rank = where(tp, &rc, has_nan, dlx_operand_of(m), dlx_operand_int((n - 1) / 2), err);
    } else { /* (m - 1) // 2, 0 when m = 0 (pick clamps it) */
      rank = dlx_temps_ew2(tp, &rc, DLX_EW_SUB, dlx_operand_of(m), dlx_operand_int(1), err);
      rank = dlx_temps_ew2(tp, &rc, DLX_EW_FLOOR_DIVIDE, dlx_operand_of(rank), dlx_operand_int(2),
                           err);
    }
  }
  v = pick(tp, &rc, sv, rank, NULL, n, err);
  i = pick(tp, &rc, si, rank, NULL, n, err);
  if (rc == 0) rc = dlx_copy(req->values, v, err);
  if (rc == 0 && req->indices != NULL) rc = dlx_copy(req->indices, i, err);
  return rc;
}

/* Quantile q of the sorted rows sv (float64 results, [rows, 1]); m: the elements taken. */
static dlx_tensor *sorted_quantile(dlx_temps *tp, int *rc, const dlx_tensor *sv,
                                   const dlx_tensor *m, double q, dlx_interpolation how,
                                   dlx_error *err) {
  int64_t n = sv->shape[1];
  dlx_tensor *m1 = dlx_temps_ew2(tp, rc, DLX_EW_SUB, dlx_operand_of(m), dlx_operand_int(1), err);
  dlx_tensor *rank = dlx_temps_ew2(tp, rc, DLX_EW_MUL,
                                   dlx_operand_of(dlx_temps_cast(tp, rc, m1, DLX_FLOAT64, err)),
                                   dlx_operand_float(q), err);
  dlx_ew_op round = how == DLX_INTERP_HIGHER    ? DLX_EW_CEIL
                    : how == DLX_INTERP_NEAREST ? DLX_EW_ROUND
                                                : DLX_EW_FLOOR;
  dlx_tensor *lo = dlx_temps_ew(tp, rc, round, dlx_operand_of(rank), NULL, err);
  dlx_tensor *lo_i = dlx_temps_cast(tp, rc, lo, DLX_INT64, err);
  dlx_tensor *a = dlx_temps_cast(tp, rc, pick(tp, rc, sv, lo_i, m1, n, err), DLX_FLOAT64, err);
  dlx_tensor *whole, *hi_i, *b, *w;
  dlx_operand lerp[3];
  if (how != DLX_INTERP_LINEAR && how != DLX_INTERP_MIDPOINT) return a;
  whole = dlx_temps_ew2(tp, rc, DLX_EW_EQ, dlx_operand_of(rank), dlx_operand_of(lo), err);
  hi_i = where(tp, rc, whole, dlx_operand_of(lo_i),
               dlx_operand_of(dlx_temps_ew2(tp, rc, DLX_EW_ADD, dlx_operand_of(lo_i),
                                            dlx_operand_int(1), err)),
               err);
  b = dlx_temps_cast(tp, rc, pick(tp, rc, sv, hi_i, m1, n, err), DLX_FLOAT64, err);
  w = how == DLX_INTERP_MIDPOINT
          ? where(tp, rc, whole, dlx_operand_float(0), dlx_operand_float(0.5), err)
          : dlx_temps_ew2(tp, rc, DLX_EW_SUB, dlx_operand_of(rank), dlx_operand_of(lo), err);
  if (*rc != 0) return NULL;
  lerp[0] = dlx_operand_of(a);
  lerp[1] = dlx_operand_of(b);
  lerp[2] = dlx_operand_of(w);
  return dlx_temps_ew_n(tp, rc, DLX_EW_LERP, lerp, err);
}

/* QUANTILE, NANQUANTILE of req's rows into values ([rows, nq]), a column a quantile. */
static int sorted_quantiles(const dlx_row_request *req, const dlx_tensor *sv, dlx_temps *tp,
                            dlx_error *err) {
  int64_t n = req->src->shape[1];
  int rc = 0;
  dlx_tensor *nan = row_nans(tp, &rc, req->src, err), *m, *none;
  bool ignore = req->op == DLX_ROW_NANQUANTILE;
  m = dlx_temps_ew2(tp, &rc, DLX_EW_SUB, dlx_operand_int(n), dlx_operand_of(nan), err);
  /* rows without a quantile: all NaN, or (quantile) any NaN */
  none = ignore ? dlx_temps_ew2(tp, &rc, DLX_EW_EQ, dlx_operand_of(m), dlx_operand_int(0), err)
                : dlx_temps_ew2(tp, &rc, DLX_EW_GT, dlx_operand_of(nan), dlx_operand_int(0), err);
  for (int64_t i = 0; rc == 0 && i < req->nq; i++) {
    int mark = tp->n;
    dlx_tensor *v = sorted_quantile(tp, &rc, sv, m, req->q[i], req->interpolation, err), column;
    v = where(tp, &rc, none, dlx_operand_float(NAN), dlx_operand_of(v), err);
    if (rc == 0) rc = dlx_slice(&column, req->values, 1, i, i, 1, err);
    if (rc == 0) {
      rc = dlx_copy(&column, v, err);
      dlx_tensor_close(&column);
    }
    dlx_temps_close_to(tp, mark); /* this quantile's temporaries */
  }
  return rc;
}

/* MODE of req's rows from the stably sorted rows sv, si: a run of equal keys (-0.0 with 0.0,
 * NaN with NaN) starts where a key differs from the one before it; the runs are numbered by a
 * running count of their starts and their lengths added up by a scatter; the first longest run
 * (the smallest value) ends at the running sum of the lengths up to it, and the element there
 * is the value's last occurrence in the row: the CPU's value and index. */
static int sorted_mode(const dlx_row_request *req, const dlx_tensor *sv, const dlx_tensor *si,
                       dlx_temps *tp, dlx_error *err) {
  int64_t n = req->src->shape[1];
  int rc = 0;
  const int64_t *shape = req->src->shape;
  dlx_tensor *start = dlx_temps_full(tp, &rc, req->src, shape, 2, DLX_BOOL, 1, err);
  dlx_tensor *later, *id, *len, *ones, *ends, *best, *end, *v, *i;
  if (n > 1) {
    dlx_tensor *hi = dlx_temps_slice(tp, &rc, sv, 1, 1, n - 1, err),
               *lo = dlx_temps_slice(tp, &rc, sv, 1, 0, n - 2, err);
    dlx_tensor *differ =
        dlx_temps_ew2(tp, &rc, DLX_EW_NE, dlx_operand_of(hi), dlx_operand_of(lo), err);
    if (dlx_dtype_kind(sv->dtype) == DLX_KIND_FLOAT) { /* NaN continues a run of NaN */
      dlx_tensor *hi_nan = dlx_temps_ew(tp, &rc, DLX_EW_ISNAN, dlx_operand_of(hi), NULL, err);
      dlx_tensor *lo_nan = dlx_temps_ew(tp, &rc, DLX_EW_ISNAN, dlx_operand_of(lo), NULL, err);
      dlx_tensor *both = dlx_temps_ew2(tp, &rc, DLX_EW_LOGICAL_AND, dlx_operand_of(hi_nan),
                                       dlx_operand_of(lo_nan), err);
      both = dlx_temps_ew(tp, &rc, DLX_EW_LOGICAL_NOT, dlx_operand_of(both), NULL, err);
      differ = dlx_temps_ew2(tp, &rc, DLX_EW_LOGICAL_AND, dlx_operand_of(differ),
                             dlx_operand_of(both), err);
    }
    later = dlx_temps_slice(tp, &rc, start, 1, 1, n - 1, err);
    if (rc == 0) rc = dlx_copy(later, differ, err);
  }
  id = dlx_temps_along(tp, &rc, DLX_DIM_CUMSUM, start, 1, err); /* 1-based run numbers */
  len = dlx_temps_full(tp, &rc, req->src, shape, 2, DLX_INT64, 0, err);
  ones = dlx_temps_full(tp, &rc, req->src, shape, 2, DLX_INT64, 1, err);
  if (rc == 0) rc = dlx_scatter(len, 1, id, ones, true, err);
  ends = dlx_temps_along(tp, &rc, DLX_DIM_CUMSUM, len, 1, err); /* each run's 1-based last place */
  best = dlx_temps_reduce(tp, &rc, DLX_REDUCE_ARGMAX, len, UINT64_C(1) << 1, true, err);
  end = dlx_temps_gather(tp, &rc, ends, 1, best, err);
  v = dlx_temps_gather(tp, &rc, sv, 1, end, err);
  i = dlx_temps_gather(tp, &rc, si, 1, end, err);
  if (rc != 0) return rc;
  rc = dlx_copy(req->values, v, err);
  if (rc == 0 && req->indices != NULL) rc = dlx_copy(req->indices, i, err);
  return rc;
}

/* req on a device with sort_rows but no row_op. */
static int run_sorted(const dlx_row_request *req, dlx_error *err) {
  dlx_temps tp = {.n = 0};
  dlx_tensor sv, si;
  int rc;
  if (!sorted_route(req->op))
    return dlx_fail(err, DLX_DEVICE_ERROR, "%s has no sorted route", dlx_row_op_name(req->op));
  rc = dlx_sort(&sv, &si, req->src, 1, false, dlx_row_op_name(req->op), err);
  if (rc != 0) return rc;
  if (req->op == DLX_ROW_QUANTILE || req->op == DLX_ROW_NANQUANTILE)
    rc = sorted_quantiles(req, &sv, &tp, err);
  else if (req->op == DLX_ROW_MODE)
    rc = sorted_mode(req, &sv, &si, &tp, err);
  else
    rc = sorted_ranks(req, &sv, &si, &tp, err);
  dlx_temps_close(&tp);
  dlx_tensor_close(&sv);
  dlx_tensor_close(&si);
  return rc;
}

/* Whether the backend's row_op computes op (row_ops lists the ops it takes). */
static bool by_row_op(const dlx_backend *b, dlx_row_op op) {
  return b->row_op != NULL && (b->row_ops & (UINT32_C(1) << op)) != 0;
}

/* Whether the device of src can run op: by row_op, or by sorting for the selections and mode
 * (MODE counts its runs with cumsum and a scatter too). */
static bool has_route(const dlx_tensor *src, dlx_row_op op) {
  const dlx_backend *b = dlx_compute_backend(src->buffer);
  return by_row_op(b, op) || (sorted_route(op) && b->sort_rows != NULL && b->index_op != NULL &&
                              b->elementwise != NULL && b->reduce != NULL &&
                              (op != DLX_ROW_MODE || b->along_dim != NULL));
}

/* values and indices (when wanted) of [rows, m] for req, made and run. */
static int rows_op(dlx_tensor *values, dlx_tensor *indices, dlx_row_request *req, int64_t m,
                   dlx_dtype dtype, dlx_error *err) {
  int64_t shape[2] = {req->src->shape[0], m};
  int rc = dlx_empty_on(values, req->src, shape, 2, dtype, err);
  if (rc == 0 && indices != NULL) {
    rc = dlx_empty_on(indices, req->src, shape, 2, DLX_INT64, err);
    if (rc != 0) dlx_tensor_close(values);
  }
  if (rc != 0) return rc;
  req->values = values;
  req->indices = indices;
  if (dlx_tensor_numel(req->src) == 0 || m == 0)
    rc = 0;
  else if (by_row_op(dlx_compute_backend(req->src->buffer), req->op))
    rc = run_rows(req, err);
  else
    rc = run_sorted(req, err);
  if (rc != 0) {
    dlx_tensor_close(values);
    if (indices != NULL) dlx_tensor_close(indices);
  }
  return rc;
}

/* The shape of line reduced over dim (dim < 0: every dim), into shape; its ndim. */
static int32_t reduced_shape(const dlx_tensor *line, int32_t src_ndim, int32_t dim, bool keepdim,
                             int64_t *shape) {
  int32_t ndim = 0;
  for (int32_t d = 0; d < src_ndim; d++) {
    if (dim < 0 || d == dim) {
      if (keepdim) shape[ndim++] = 1;
    } else {
      shape[ndim++] = line->shape[d];
    }
  }
  return ndim;
}

/* ---- kthvalue, median, nanmedian, mode */

int dlx_row_reduce(dlx_tensor *values, dlx_tensor *indices, dlx_row_op op, const dlx_tensor *src,
                   int32_t dim, bool keepdim, int64_t k, dlx_error *err) {
  const char *name = dlx_row_op_name(op);
  dlx_tensor line = as_line(src), rows;
  dlx_row_request req = {.op = op};
  int64_t shape[DLX_MAX_NDIM], n;
  int32_t ndim;
  int rc = dlx_check_ordered(src, name, err);
  if (rc == 0) rc = check_dim(&line, dim, name, src->ndim, err);
  if (rc != 0) return rc;
  n = dim < 0 ? dlx_tensor_numel(&line) : line.shape[dim];
  if (n == 0)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: cannot take it over an empty dim (size 0)", name);
  if (op == DLX_ROW_KTH && (k < 1 || k > n))
    return dlx_fail(err, DLX_VALUE_ERROR, "kthvalue: k = %lld out of range for a dim of size %lld",
                    (long long)k, (long long)n);
  rc = check_row_backend(src, op, err);
  if (rc == 0) rc = rows_view(&rows, &line, dim, err);
  if (rc != 0) return rc;
  req.src = &rows;
  req.k = k - 1;
  rc = rows_op(values, indices, &req, 1, src->dtype, err);
  dlx_tensor_close(&rows);
  if (rc != 0) return rc;
  ndim = dim < 0 ? 0 : reduced_shape(&line, src->ndim, dim, keepdim, shape);
  set_contiguous(values, shape, ndim);
  if (indices != NULL) set_contiguous(indices, shape, ndim);
  return 0;
}

/* ---- quantile, nanquantile */

static int check_quantiles(const double *q, int64_t nq, const char *name, dlx_error *err) {
  for (int64_t i = 0; i < nq; i++)
    if (!(q[i] >= 0 && q[i] <= 1))
      return dlx_fail(err, DLX_VALUE_ERROR, "%s: q must be in [0, 1], got %g", name, q[i]);
  return 0;
}

int dlx_quantile(dlx_tensor *out, const dlx_tensor *src, const double *q, int64_t nq, bool q_scalar,
                 int32_t dim, bool keepdim, dlx_interpolation how, bool ignore_nan,
                 dlx_error *err) {
  dlx_row_op op = ignore_nan ? DLX_ROW_NANQUANTILE : DLX_ROW_QUANTILE;
  const char *name = dlx_row_op_name(op);
  dlx_tensor line = as_line(src), rows, made;
  dlx_row_request req = {.op = op, .q = q, .nq = nq, .interpolation = how};
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim;
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc != 0) return rc;
  if (dlx_dtype_kind(src->dtype) != DLX_KIND_FLOAT)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: the tensor must have a float dtype, got %s", name,
                    dlx_dtype_info_of(src->dtype)->name);
  rc = check_dim(&line, dim, name, src->ndim, err);
  if (rc == 0) rc = check_quantiles(q, nq, name, err);
  if (rc != 0) return rc;
  if ((dim < 0 ? dlx_tensor_numel(&line) : line.shape[dim]) == 0)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: cannot take it over an empty dim (size 0)", name);
  rc = check_row_backend(src, op, err);
  if (rc == 0) rc = rows_view(&rows, &line, dim, err);
  if (rc != 0) return rc;
  req.src = &rows;
  rc = rows_op(&made, NULL, &req, nq, src->dtype, err);
  dlx_tensor_close(&rows);
  if (rc != 0) return rc;
  /* made is [rows, nq]: the reduced shape, then the quantiles */
  ndim = reduced_shape(&line, src->ndim, dim, keepdim, shape);
  if (q_scalar) {
    set_contiguous(&made, shape, ndim);
    *out = made;
    return 0;
  }
  shape[ndim] = nq;
  set_contiguous(&made, shape, ndim + 1);
  return dlx_move_dim(out, &made, made.ndim - 1, 0, err); /* the quantiles first */
}

/* ---- cummax, cummin, logcumsumexp */

int dlx_row_scan(dlx_tensor *values, dlx_tensor *indices, dlx_row_op op, const dlx_tensor *src,
                 int32_t dim, dlx_error *err) {
  const char *name = dlx_row_op_name(op);
  dlx_tensor line = as_line(src), rows, v, i;
  dlx_row_request req = {.op = op};
  dlx_dtype dtype = src->dtype;
  int64_t shape[DLX_MAX_NDIM];
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc != 0) return rc;
  if (op == DLX_ROW_LOGCUMSUMEXP)
    rc = dlx_stat_dtype(name, src->dtype, &dtype, err);
  else
    rc = dlx_check_ordered(src, name, err);
  if (rc == 0) rc = check_dim(&line, dim < 0 ? line.ndim : dim, name, src->ndim, err);
  if (rc == 0) rc = check_row_backend(src, op, err);
  if (rc == 0) rc = rows_view(&rows, &line, dim, err);
  if (rc != 0) return rc;
  req.src = &rows;
  rc = rows_op(&v, indices != NULL ? &i : NULL, &req, rows.shape[1], dtype, err);
  dlx_tensor_close(&rows);
  if (rc != 0) return rc;
  /* [rows, n] is line's shape with dim last */
  for (int32_t d = 0, to = 0; d < line.ndim; d++)
    if (d != dim) shape[to++] = line.shape[d];
  shape[line.ndim - 1] = line.shape[dim];
  set_contiguous(&v, shape, line.ndim);
  if (indices != NULL) set_contiguous(&i, shape, line.ndim);
  rc = dlx_move_dim(values, &v, v.ndim - 1, dim, err);
  if (indices != NULL) {
    if (rc == 0)
      rc = dlx_move_dim(indices, &i, i.ndim - 1, dim, err);
    else
      dlx_tensor_close(&i);
    if (rc != 0) dlx_tensor_close(values);
  }
  if (rc != 0) return rc;
  values->ndim = src->ndim; /* a 0-d src: back to 0-d */
  if (indices != NULL) indices->ndim = src->ndim;
  return 0;
}

/* ---- nansum, nanmean, count_nonzero: elementwise ops and sums */

/* out = src with its NaNs as 0 (a fresh tensor). */
static int zero_nans(dlx_tensor *out, const dlx_tensor *src, dlx_error *err) {
  dlx_operand x = {.tensor = src}, in[3];
  dlx_tensor nan;
  int rc = dlx_elementwise(DLX_EW_ISNAN, &x, NULL, NULL, &nan, err);
  if (rc != 0) return rc;
  in[0] = (dlx_operand){.tensor = &nan};
  in[1] = (dlx_operand){.scalar = {.kind = DLX_KIND_FLOAT, .v.f = 0}};
  in[2] = x;
  rc = dlx_elementwise_n(DLX_EW_WHERE, in, NULL, out, err);
  dlx_tensor_close(&nan);
  return rc;
}

int dlx_nansum(dlx_tensor *out, const dlx_tensor *src, uint64_t dims, bool keepdim,
               dlx_error *err) {
  dlx_tensor clean;
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc != 0) return rc;
  if (dlx_dtype_kind(src->dtype) == DLX_KIND_COMPLEX)
    return dlx_fail(err, DLX_TYPE_ERROR, "nansum of a complex tensor is not supported");
  if (dlx_dtype_kind(src->dtype) != DLX_KIND_FLOAT)
    return dlx_reduce(out, DLX_REDUCE_SUM, src, dims, keepdim, err);
  rc = zero_nans(&clean, src, err);
  if (rc != 0) return rc;
  rc = dlx_reduce(out, DLX_REDUCE_SUM, &clean, dims, keepdim, err);
  dlx_tensor_close(&clean);
  return rc;
}

int dlx_nanmean(dlx_tensor *out, const dlx_tensor *src, uint64_t dims, bool keepdim,
                dlx_error *err) {
  dlx_tensor sum, nan, present, count;
  dlx_operand x = {.tensor = src}, a, b;
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc != 0) return rc;
  if (dlx_dtype_kind(src->dtype) != DLX_KIND_FLOAT)
    return dlx_fail(err, DLX_TYPE_ERROR, "nanmean: the tensor must have a float dtype, got %s",
                    dlx_dtype_info_of(src->dtype)->name);
  rc = dlx_nansum(&sum, src, dims, keepdim, err);
  if (rc != 0) return rc;
  rc = dlx_elementwise(DLX_EW_ISNAN, &x, NULL, NULL, &nan, err);
  if (rc == 0) {
    a = (dlx_operand){.tensor = &nan};
    rc = dlx_elementwise(DLX_EW_LOGICAL_NOT, &a, NULL, NULL, &present, err);
    dlx_tensor_close(&nan);
  }
  if (rc == 0) {
    rc = dlx_reduce(&count, DLX_REDUCE_SUM, &present, dims, keepdim, err);
    dlx_tensor_close(&present);
  }
  if (rc == 0) {
    a = (dlx_operand){.tensor = &sum};
    b = (dlx_operand){.tensor = &count};
    rc = dlx_elementwise(DLX_EW_DIV, &a, &b, NULL, out, err);
    dlx_tensor_close(&count);
  }
  dlx_tensor_close(&sum);
  return rc;
}

int dlx_count_nonzero(dlx_tensor *out, const dlx_tensor *src, uint64_t dims, dlx_error *err) {
  dlx_operand x = {.tensor = src}, zero = {.scalar = {.kind = DLX_KIND_INT, .v.i = 0}};
  dlx_tensor nonzero;
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc != 0) return rc;
  if (src->dtype == DLX_BOOL) return dlx_reduce(out, DLX_REDUCE_SUM, src, dims, false, err);
  rc = dlx_elementwise(DLX_EW_NE, &x, &zero, NULL, &nonzero, err);
  if (rc != 0) return rc;
  rc = dlx_reduce(out, DLX_REDUCE_SUM, &nonzero, dims, false, err);
  dlx_tensor_close(&nonzero);
  return rc;
}
