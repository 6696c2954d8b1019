/* count.c -- histc, histogram, bincount and searchsorted (see count.h): checks, ranges, edges and
 * layouts, then the backends' count_op (every device has one: the CPU, CUDA and Level Zero). */
#include "core/count.h"

#include <math.h>
#include <string.h>

#include "core/device.h"
#include "core/elementwise.h"
#include "core/ops.h"
#include "core/promote.h"
#include "core/temps.h"

/* out = src's elements as a C-contiguous [rows, numel / rows] tensor of dtype (a view when src
 * already is one). */
static int as_rows(dlx_tensor *out, const dlx_tensor *src, int64_t rows, dlx_dtype dtype,
                   dlx_error *err) {
  int64_t numel = dlx_tensor_numel(src);
  int rc = 0;
  if (src->dtype == dtype && dlx_tensor_is_contiguous(src))
    dlx_tensor_share(out, src);
  else
    rc = dlx_clone_as_memory(out, src, dtype, src->buffer->device, dlx_tensor_memory(src), err);
  if (rc != 0) return rc;
  out->ndim = 2;
  out->shape[0] = rows;
  out->shape[1] = rows > 0 ? numel / rows : 0;
  out->strides[0] = out->shape[1];
  out->strides[1] = 1;
  return 0;
}

/* out = src's elements, C-contiguous 1-d, of dtype. */
static int as_line(dlx_tensor *out, const dlx_tensor *src, dlx_dtype dtype, dlx_error *err) {
  int rc = as_rows(out, src, 1, dtype, err);
  if (rc != 0) return rc;
  out->ndim = 1;
  out->shape[0] = out->shape[1];
  out->strides[0] = 1;
  return 0;
}

/* The 0-d or one-element t read as a double. */
static int read_double(const dlx_tensor *t, int64_t at, double *out, dlx_error *err) {
  dlx_scalar s;
  int64_t index[1] = {at};
  int rc = dlx_get_element(t, t->ndim > 0 ? index : NULL, &s, err);
  if (rc != 0) return rc;
  *out = s.kind == DLX_KIND_FLOAT  ? s.v.f
         : s.kind == DLX_KIND_UINT ? (double)s.v.u
         : s.kind == DLX_KIND_BOOL ? (double)s.v.b
                                   : (double)s.v.i;
  return 0;
}

/* The min or max of the 1-d line, as a double (NaN when it holds one). */
static int line_extreme(const dlx_tensor *line, dlx_reduce_op op, double *out, dlx_error *err) {
  dlx_tensor r;
  int rc = dlx_reduce(&r, op, line, 1, false, err);
  if (rc != 0) return rc;
  rc = read_double(&r, 0, out, err);
  dlx_tensor_close(&r);
  return rc;
}

static int line_range(const dlx_tensor *line, double *lo, double *hi, dlx_error *err) {
  int rc = line_extreme(line, DLX_REDUCE_MIN, lo, err);
  return rc != 0 ? rc : line_extreme(line, DLX_REDUCE_MAX, hi, err);
}

static int check_route(const dlx_tensor *on, const char *name, dlx_error *err) {
  if (dlx_compute_backend(on->buffer)->count_op != NULL) return 0;
  return dlx_not_implemented(err, name, on->buffer->device);
}

/* Runs req on its device's count_op (check_route said it has one). */
static int run_count(const dlx_count_request *req, dlx_error *err) {
  const dlx_backend *backend;
  int rc = dlx_compute_on(req->src, &backend, err);
  return rc != 0 ? rc : backend->count_op(req, err);
}

/* out = a fresh [nbins] of req's bins over the line (n >= 0), zeros when it is empty. */
static int count_bins(dlx_tensor *out, dlx_count_request *req, const dlx_tensor *line,
                      dlx_dtype dtype, dlx_error *err) {
  int rc = dlx_empty_on(out, line, &req->nbins, 1, dtype, err);
  dlx_scalar zero = {.kind = DLX_KIND_INT, .v.i = 0};
  if (rc != 0) return rc;
  req->src = line;
  req->out = out;
  rc = line->shape[0] == 0 || req->nbins == 0 ? dlx_fill(out, &zero, err) : run_count(req, err);
  if (rc != 0) dlx_tensor_close(out);
  return rc;
}

static int check_real(const dlx_tensor *t, const char *name, const char *what, dlx_error *err) {
  dlx_kind kind = dlx_dtype_kind(t->dtype);
  int rc = dlx_buffer_check(t->buffer, err);
  if (rc != 0) return rc;
  if (kind != DLX_KIND_BOOL && kind != DLX_KIND_INT && kind != DLX_KIND_UINT &&
      kind != DLX_KIND_FLOAT)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: %s must have a real dtype, got %s", name, what,
                    dlx_dtype_info_of(t->dtype)->name);
  return 0;
}

static int check_same_device(const dlx_tensor *a, const dlx_tensor *b, const char *name,
                             dlx_error *err) {
  char da[48], db[48];
  if (a->buffer->device.device_type == b->buffer->device.device_type &&
      a->buffer->device.device_id == b->buffer->device.device_id)
    return 0;
  return dlx_fail(err, DLX_DEVICE_ERROR, "%s: the tensors are on %s and %s", name,
                  dlx_device_format(a->buffer->device, da, sizeof da),
                  dlx_device_format(b->buffer->device, db, sizeof db));
}

/* x for a message: NaN without its sign ("nan", not "-nan"). */
static double shown(double x) { return isnan(x) ? fabs(x) : x; }

/* ---- histc */

int dlx_histc(dlx_tensor *out, const dlx_tensor *src, int64_t bins, double lo, double hi,
              dlx_error *err) {
  dlx_count_request req = {.op = DLX_COUNT_LINEAR, .nbins = bins};
  dlx_tensor line, counts;
  dlx_dtype compute = src->dtype == DLX_FLOAT64 ? DLX_FLOAT64 : DLX_FLOAT32;
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc != 0) return rc;
  if (dlx_dtype_kind(src->dtype) != DLX_KIND_FLOAT)
    return dlx_fail(err, DLX_TYPE_ERROR, "histc: the tensor must have a float dtype, got %s",
                    dlx_dtype_info_of(src->dtype)->name);
  if (bins < 1)
    return dlx_fail(err, DLX_VALUE_ERROR, "histc: bins must be at least 1, got %lld",
                    (long long)bins);
  rc = check_route(src, "histc", err);
  if (rc == 0) rc = as_line(&line, src, compute, err);
  if (rc != 0) return rc;
  if (lo == hi && line.shape[0] > 0) rc = line_range(&line, &lo, &hi, err);
  if (rc == 0 && lo == hi) {
    lo -= 1;
    hi += 1;
  }
  if (rc == 0 && !(isfinite(lo) && isfinite(hi)))
    rc = dlx_fail(err, DLX_VALUE_ERROR, "histc: range of [%g, %g] is not finite", shown(lo),
                  shown(hi));
  if (rc == 0 && lo > hi) rc = dlx_fail(err, DLX_VALUE_ERROR, "histc: max must be larger than min");
  if (rc == 0 && compute == DLX_FLOAT32 && !((float)lo < (float)hi)) /* no width to divide by */
    rc = dlx_fail(err, DLX_VALUE_ERROR, "histc: the range [%g, %g] is empty in float32", lo, hi);
  req.lo = lo;
  req.hi = hi;
  if (rc == 0) rc = count_bins(&counts, &req, &line, DLX_INT64, err);
  dlx_tensor_close(&line);
  if (rc != 0) return rc;
  rc = dlx_clone_as_memory(out, &counts, src->dtype, src->buffer->device, dlx_tensor_memory(src),
                           err);
  dlx_tensor_close(&counts);
  return rc;
}

/* ---- histogram */

/* NumPy's linspace(first, last, nb + 1) computed in float32 (f32) or float64, on the host. */
static void linspace_edges(double *e, double first, double last, int64_t nb, bool f32) {
  if (f32) {
    float f = (float)first, l = (float)last, delta = l - f, step = delta / (float)nb;
    for (int64_t i = 0; i <= nb; i++)
      e[i] = step == 0 ? (double)((float)i / (float)nb * delta + f) : (double)((float)i * step + f);
  } else {
    double delta = last - first, step = delta / (double)nb;
    for (int64_t i = 0; i <= nb; i++)
      e[i] = step == 0 ? (double)i / (double)nb * delta + first : (double)i * step + first;
  }
  e[nb] = last;
}

/* The outer edges of bins over line (NumPy's _get_outer_edges); *f32: linspace in float32 (the
 * data's own float32 min and max). */
static int outer_edges(const dlx_tensor *line, const double *range, double *first, double *last,
                       bool *f32, dlx_error *err) {
  int rc = 0;
  *f32 = false;
  if (range != NULL) {
    *first = range[0];
    *last = range[1];
    if (*first > *last)
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "histogram: max must be larger than min in range parameter");
    if (!(isfinite(*first) && isfinite(*last)))
      return dlx_fail(err, DLX_VALUE_ERROR, "histogram: supplied range of [%g, %g] is not finite",
                      *first, *last);
  } else if (line->shape[0] == 0) {
    *first = 0;
    *last = 1;
  } else {
    rc = line_range(line, first, last, err);
    if (rc != 0) return rc;
    if (!(isfinite(*first) && isfinite(*last)))
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "histogram: autodetected range of [%g, %g] is not finite", shown(*first),
                      shown(*last));
    *f32 = line->dtype == DLX_FLOAT32;
  }
  if (*first == *last) {
    *first = *f32 ? (double)((float)*first - 0.5f) : *first - 0.5;
    *last = *f32 ? (double)((float)*last + 0.5f) : *last + 0.5;
  }
  return 0;
}

/* edges = nb equal bins over line's range, of dtype, on line's device. */
static int equal_edges(dlx_tensor *edges, const dlx_tensor *line, int64_t nb, const double *range,
                       dlx_dtype dtype, dlx_error *err) {
  double first, last;
  bool f32;
  int64_t ne = nb + 1;
  dlx_tensor host;
  DLDevice cpu = {kDLCPU, 0};
  int rc = outer_edges(line, range, &first, &last, &f32, err);
  if (rc == 0) rc = dlx_tensor_empty(&host, &ne, 1, DLX_FLOAT64, cpu, err);
  if (rc != 0) return rc;
  linspace_edges((double *)host.buffer->data + host.offset, first, last, nb, f32);
  for (int64_t i = 0; i < nb && rc == 0; i++) {
    double *e = (double *)host.buffer->data + host.offset;
    double a = dtype == DLX_FLOAT32 ? (double)(float)e[i] : e[i];
    double b = dtype == DLX_FLOAT32 ? (double)(float)e[i + 1] : e[i + 1];
    if (!(a < b))
      rc = dlx_fail(err, DLX_VALUE_ERROR,
                    "histogram: too many bins for data range: cannot create %lld finite-sized bins",
                    (long long)nb);
  }
  if (rc == 0)
    rc = dlx_clone_as_memory(edges, &host, dtype, line->buffer->device, dlx_tensor_memory(line),
                             err);
  dlx_tensor_close(&host);
  return rc;
}

static int check_edges(const dlx_tensor *e, dlx_error *err) {
  dlx_tensor wide;
  int rc = check_real(e, "histogram", "the bins", err);
  if (rc != 0) return rc;
  if (e->ndim != 1 || e->shape[0] < 2)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "histogram: the bins must be a number or a 1-d tensor of at least 2 edges");
  rc = dlx_to_host_wide(&wide, e, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; rc == 0 && i + 1 < e->shape[0]; i++) {
    bool up;
    if (wide.dtype == DLX_FLOAT64) {
      const double *d = (const double *)wide.buffer->data + wide.offset;
      up = d[i] <= d[i + 1];
    } else if (wide.dtype == DLX_INT64) {
      const int64_t *d = (const int64_t *)wide.buffer->data + wide.offset;
      up = d[i] <= d[i + 1];
    } else if (wide.dtype == DLX_UINT64) {
      const uint64_t *d = (const uint64_t *)wide.buffer->data + wide.offset;
      up = d[i] <= d[i + 1];
    } else {
      const uint8_t *d = (const uint8_t *)wide.buffer->data + wide.offset;
      up = d[i] <= d[i + 1];
    }
    if (!up)
      rc = dlx_fail(err, DLX_VALUE_ERROR, "histogram: the bin edges must increase monotonically");
  }
  dlx_tensor_close(&wide);
  return rc;
}

/* The dtype histogram compares in: float32 when the data and edges promote to a float dtype
 * float32 holds, else float64. */
static int compare_dtype(const dlx_tensor *src, const dlx_tensor *edges_in, dlx_dtype *out,
                         dlx_error *err) {
  dlx_dtype r = src->dtype;
  int rc = edges_in != NULL ? dlx_result_dtype(src->dtype, edges_in->dtype, &r, err) : 0;
  if (rc != 0) return rc;
  *out = r == DLX_FLOAT32 || r == DLX_FLOAT16 || r == DLX_BFLOAT16 ? DLX_FLOAT32 : DLX_FLOAT64;
  return 0;
}

/* hist = counts / (their sum x the bin widths), float64 (NumPy's n / db / n.sum()). */
static int density_of(dlx_tensor *hist, const dlx_tensor *counts, const dlx_tensor *edges,
                      dlx_error *err) {
  int64_t nb = counts->shape[0];
  dlx_temps tp = {.n = 0};
  int rc = 0;
  dlx_tensor *hi = dlx_temps_slice(&tp, &rc, edges, edges->ndim - 1, 1, nb, err),
             *lo = dlx_temps_slice(&tp, &rc, edges, edges->ndim - 1, 0, nb - 1, err);
  dlx_tensor *width = dlx_temps_cast(
      &tp, &rc, dlx_temps_ew2(&tp, &rc, DLX_EW_SUB, dlx_operand_of(hi), dlx_operand_of(lo), err),
      DLX_FLOAT64, err);
  dlx_tensor *f = dlx_temps_cast(&tp, &rc, counts, DLX_FLOAT64, err), *total;
  f = dlx_temps_ew2(&tp, &rc, DLX_EW_DIV, dlx_operand_of(f), dlx_operand_of(width), err);
  total = dlx_temps_reduce(&tp, &rc, DLX_REDUCE_SUM, counts, 1, false, err);
  total = dlx_temps_cast(&tp, &rc, total, DLX_FLOAT64, err);
  if (rc == 0) {
    dlx_operand a = dlx_operand_of(f), b = dlx_operand_of(total);
    rc = dlx_elementwise(DLX_EW_DIV, &a, &b, NULL, hist, err);
  }
  dlx_temps_close(&tp);
  return rc;
}

int dlx_histogram(dlx_tensor *hist, dlx_tensor *edges, const dlx_tensor *src, int64_t bins,
                  const dlx_tensor *edges_in, const double *range, const dlx_tensor *weights,
                  bool density, dlx_error *err) {
  dlx_count_request req = {.op = DLX_COUNT_EDGES};
  dlx_tensor line, cmp_edges, w, counts, sums;
  dlx_dtype cmp;
  int rc = check_real(src, "histogram", "the tensor", err);
  if (rc == 0 && src->dtype == DLX_BOOL)
    rc = dlx_fail(err, DLX_TYPE_ERROR, "histogram: the tensor must be numbers, got bool");
  if (rc == 0 && edges_in != NULL) rc = check_same_device(src, edges_in, "histogram", err);
  if (rc == 0 && edges_in != NULL) rc = check_edges(edges_in, err);
  if (rc == 0 && edges_in == NULL && bins < 1)
    rc = dlx_fail(err, DLX_VALUE_ERROR, "histogram: bins must be positive, got %lld",
                  (long long)bins);
  if (rc == 0 && weights != NULL) {
    char a[64], b[64];
    rc = check_real(weights, "histogram", "weights", err);
    if (rc == 0) rc = check_same_device(src, weights, "histogram", err);
    if (rc == 0 && (weights->ndim != src->ndim ||
                    memcmp(weights->shape, src->shape, sizeof(int64_t) * (size_t)src->ndim) != 0))
      rc = dlx_fail(err, DLX_VALUE_ERROR,
                    "histogram: weights must have the tensor's shape %s, got %s",
                    dlx_shape_text(a, sizeof a, src->shape, src->ndim),
                    dlx_shape_text(b, sizeof b, weights->shape, weights->ndim));
  }
  if (rc == 0) rc = check_route(src, "histogram", err);
  if (rc == 0) rc = compare_dtype(src, edges_in, &cmp, err);
  if (rc == 0) rc = as_line(&line, src, cmp, err);
  if (rc != 0) return rc;
  if (edges_in != NULL) {
    req.nbins = edges_in->shape[0] - 1;
    rc = as_line(&cmp_edges, edges_in, cmp, err);
    if (rc == 0) dlx_tensor_share(edges, edges_in);
  } else {
    req.nbins = bins;
    req.uniform = true;
    rc = equal_edges(&cmp_edges, &line, bins, range, cmp, err);
    if (rc == 0) dlx_tensor_share(edges, &cmp_edges);
  }
  if (rc != 0) {
    dlx_tensor_close(&line);
    return rc;
  }
  req.edges = &cmp_edges;
  if (weights != NULL) rc = as_line(&w, weights, DLX_FLOAT64, err);
  if (rc == 0) {
    req.weights = weights != NULL ? &w : NULL;
    rc = count_bins(&counts, &req, &line, weights != NULL ? DLX_FLOAT64 : DLX_INT64, err);
    if (weights != NULL) dlx_tensor_close(&w);
  }
  dlx_tensor_close(&line);
  if (rc == 0 && weights != NULL && !density && weights->dtype != DLX_FLOAT64) {
    rc = dlx_clone_as_memory(&sums, &counts, weights->dtype, counts.buffer->device,
                             dlx_tensor_memory(&counts), err);
    dlx_tensor_close(&counts);
    if (rc == 0) counts = sums;
  }
  if (rc == 0 && density) {
    rc = density_of(hist, &counts, &cmp_edges, err);
    dlx_tensor_close(&counts);
  } else if (rc == 0) {
    *hist = counts;
  }
  dlx_tensor_close(&cmp_edges);
  if (rc != 0) dlx_tensor_close(edges);
  return rc;
}

/* ---- bincount */

int dlx_bincount(dlx_tensor *out, const dlx_tensor *src, const dlx_tensor *weights,
                 int64_t minlength, dlx_error *err) {
  dlx_count_request req = {.op = DLX_COUNT_BINCOUNT};
  dlx_kind kind = dlx_dtype_kind(src->dtype);
  dlx_tensor line, w;
  double lo = 0, hi = -1;
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc != 0) return rc;
  if (kind != DLX_KIND_BOOL && kind != DLX_KIND_INT && kind != DLX_KIND_UINT)
    return dlx_fail(err, DLX_TYPE_ERROR,
                    "bincount: the tensor must have an integer or bool dtype, got %s",
                    dlx_dtype_info_of(src->dtype)->name);
  if (src->ndim != 1)
    return dlx_fail(err, DLX_VALUE_ERROR, "bincount: the tensor must be 1-d, got %d-d",
                    (int)src->ndim);
  if (minlength < 0)
    return dlx_fail(err, DLX_VALUE_ERROR, "bincount: minlength must be non-negative, got %lld",
                    (long long)minlength);
  if (weights != NULL) {
    rc = check_real(weights, "bincount", "weights", err);
    if (rc == 0) rc = check_same_device(src, weights, "bincount", err);
    if (rc == 0 && (weights->ndim != 1 || weights->shape[0] != src->shape[0]))
      rc = dlx_fail(err, DLX_VALUE_ERROR,
                    "bincount: weights must be 1-d of the tensor's length %lld",
                    (long long)src->shape[0]);
    if (rc != 0) return rc;
  }
  rc = check_route(src, "bincount", err);
  if (rc == 0 && src->shape[0] > 0) rc = line_range(src, &lo, &hi, err);
  if (rc != 0) return rc;
  if (lo < 0)
    return dlx_fail(err, DLX_VALUE_ERROR, "bincount: the values must be non-negative, got %.0f",
                    lo);
  if (hi >= 9007199254740992.0) /* 2^53: no tensor has that many elements */
    return dlx_fail(err, DLX_VALUE_ERROR, "bincount: the value %.0f is too large", hi);
  req.nbins = (int64_t)hi + 1 > minlength ? (int64_t)hi + 1 : minlength;
  rc = as_line(&line, src, DLX_INT64, err);
  if (rc != 0) return rc;
  if (weights != NULL) rc = as_line(&w, weights, DLX_FLOAT64, err);
  if (rc == 0) {
    req.weights = weights != NULL ? &w : NULL;
    rc = count_bins(out, &req, &line, weights != NULL ? DLX_FLOAT64 : DLX_INT64, err);
    if (weights != NULL) dlx_tensor_close(&w);
  }
  dlx_tensor_close(&line);
  return rc;
}

/* ---- searchsorted */

static int check_search_shapes(const dlx_tensor *sorted, const dlx_tensor *values, const char *name,
                               dlx_error *err) {
  char a[64], b[64];
  bool same = sorted->ndim == values->ndim;
  if (sorted->ndim == 0)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: the sorted tensor must have at least 1 dim", name);
  if (sorted->ndim == 1) return 0;
  for (int32_t d = 0; same && d + 1 < sorted->ndim; d++)
    same = sorted->shape[d] == values->shape[d];
  if (same) return 0;
  return dlx_fail(err, DLX_VALUE_ERROR,
                  "%s: the sorted tensor must be 1-d or have the values' dims but the last, got "
                  "%s and %s",
                  name, dlx_shape_text(a, sizeof a, sorted->shape, sorted->ndim),
                  dlx_shape_text(b, sizeof b, values->shape, values->ndim));
}

int dlx_searchsorted(dlx_tensor *out, const dlx_tensor *sorted, const dlx_tensor *values,
                     bool right, const char *name, dlx_error *err) {
  dlx_count_request req = {.op = DLX_COUNT_SEARCH, .right = right};
  dlx_tensor s, v, made;
  dlx_dtype dtype;
  int64_t numel = dlx_tensor_numel(values), rows = 1, n;
  int rc = check_real(sorted, name, "the sorted tensor", err);
  if (rc == 0) rc = check_real(values, name, "the values", err);
  if (rc == 0) rc = check_same_device(sorted, values, name, err);
  if (rc == 0) rc = check_search_shapes(sorted, values, name, err);
  if (rc == 0) rc = dlx_result_dtype(sorted->dtype, values->dtype, &dtype, err);
  if (rc == 0) rc = check_route(values, name, err);
  if (rc != 0) return rc;
  n = sorted->shape[sorted->ndim - 1];
  if (sorted->ndim > 1 && numel > 0) rows = numel / values->shape[values->ndim - 1];
  rc = dlx_empty_on(&made, values, values->shape, values->ndim, DLX_INT64, err);
  if (rc != 0 || numel == 0) {
    if (rc == 0) *out = made;
    return rc;
  }
  if (n == 0) {
    dlx_scalar first = {.kind = DLX_KIND_INT, .v.i = 1};
    rc = dlx_fill(&made, &first, err);
    if (rc == 0)
      *out = made;
    else
      dlx_tensor_close(&made);
    return rc;
  }
  rc = as_rows(&s, sorted, sorted->ndim > 1 ? rows : 1, dtype, err);
  if (rc == 0) {
    rc = as_rows(&v, values, rows, dtype, err);
    if (rc != 0) dlx_tensor_close(&s);
  }
  if (rc != 0) {
    dlx_tensor_close(&made);
    return rc;
  }
  req.src = &v;
  req.edges = &s;
  {
    dlx_tensor o = made;
    o.ndim = 2;
    o.shape[0] = rows;
    o.shape[1] = numel / rows;
    o.strides[0] = o.shape[1];
    o.strides[1] = 1;
    req.out = &o;
    rc = run_count(&req, err);
  }
  dlx_tensor_close(&s);
  dlx_tensor_close(&v);
  if (rc == 0)
    *out = made;
  else
    dlx_tensor_close(&made);
  return rc;
}
