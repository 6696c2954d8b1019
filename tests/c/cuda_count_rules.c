/* cuda_count_rules.c -- the CUDA count_op (histc, histogram, bincount, searchsorted), as far as it
 * can be checked without a GPU: the requests count_plan.h makes, run through the per-element
 * code (src/cuda/count_element.h, compiled as host C++ by cuda_count_rules.cpp) in an order of
 * its own, against the CPU backend's count_op, bit for bit. The data has NaN, infinities, -0.0,
 * ties and elements on the edges; the weights are small integers, so their sums are exact in any
 * order (the kernels add them by atomics). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/sort.h"
#include "cpu_test_util.h"
#include "cuda/count_plan.h"

void cxx_count_bins(const dlx_cuda_count_request *r, int64_t stride);
void cxx_count_search(const dlx_cuda_count_request *r);

static dlx_tensor cpu_tensor(dlx_dtype dtype, int32_t ndim, const int64_t *shape) {
  DLDevice cpu = {kDLCPU, 0};
  dlx_tensor t;
  CHECK(dlx_tensor_empty(&t, shape, ndim, dtype, cpu, NULL) == 0);
  return t;
}

/* t (CPU) = the doubles w cast to t's dtype. */
static void fill_from(dlx_tensor *t, const double *w) {
  int64_t n = dlx_tensor_numel(t);
  dlx_tensor wide = cpu_tensor(DLX_FLOAT64, 1, &n);
  memcpy(wide.buffer->data, w, (size_t)n * sizeof(double));
  wide.ndim = t->ndim;
  memcpy(wide.shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
  memcpy(wide.strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
  CHECK(dlx_cpu_backend.copy(t, &wide, NULL) == 0);
  dlx_tensor_close(&wide);
}

/* A value from few distinct ones (ties, elements on edges) with specials when floating. */
static double some_value(bool floating, bool non_negative) {
  double v = (double)(rnd_below(41) - 20) / 4;
  int64_t r = rnd_below(20);
  if (non_negative) v = fabs(v);
  if (floating && r < 5) v = r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -INFINITY : -0.0;
  if (floating && r == 5) v = rnd_unit() * 10 - 5;
  return v;
}

/* The CPU's out against the element code's (over strides 1 and 7), bit for bit. */
static void check_bins(dlx_count_request *req, const char *what) {
  int64_t nb = req->nbins;
  dlx_dtype out_dtype = req->weights != NULL ? DLX_FLOAT64 : DLX_INT64;
  dlx_tensor want = cpu_tensor(out_dtype, 1, &nb), got = cpu_tensor(out_dtype, 1, &nb);
  dlx_cuda_count_request q;
  req->out = &want;
  CHECK(dlx_cpu_backend.count_op(req, NULL) == 0);
  req->out = &got;
  q = dlx_cuda_count_plan(req);
  for (int64_t stride = 1; stride <= 7; stride += 6) {
    cxx_count_bins(&q, stride);
    if (memcmp(want.buffer->data, got.buffer->data, (size_t)nb * 8) != 0) {
      fprintf(stderr, "%s, %lld bins, stride %lld: differs\n", what, (long long)nb,
              (long long)stride);
      CHECK(0);
    }
  }
  dlx_tensor_close(&want);
  dlx_tensor_close(&got);
}

static void check_linear(dlx_dtype dtype, int64_t n, int64_t nb, double lo, double hi,
                         bool weighted) {
  dlx_tensor x = cpu_tensor(dtype, 1, &n), w = cpu_tensor(DLX_FLOAT64, 1, &n);
  double *v = malloc((size_t)n * sizeof(double));
  dlx_count_request req = {.op = DLX_COUNT_LINEAR, .src = &x, .nbins = nb, .lo = lo, .hi = hi};
  CHECK(v != NULL);
  for (int64_t i = 0; i < n; i++) v[i] = some_value(true, false);
  fill_from(&x, v);
  for (int64_t i = 0; i < n; i++) ((double *)w.buffer->data)[i] = (double)(rnd_below(9) - 4);
  if (weighted) req.weights = &w;
  check_bins(&req, dtype == DLX_FLOAT32 ? "histc float32" : "histc float64");
  free(v);
  dlx_tensor_close(&x);
  dlx_tensor_close(&w);
}

static void check_edges(dlx_dtype dtype, int64_t n, int64_t nb, bool uniform, bool weighted) {
  int64_t ne = nb + 1;
  dlx_tensor x = cpu_tensor(dtype, 1, &n), e = cpu_tensor(dtype, 1, &ne);
  dlx_tensor w = cpu_tensor(DLX_FLOAT64, 1, &n);
  double *v = malloc((size_t)(n + ne) * sizeof(double)), *ev = v + n;
  dlx_count_request req = {
      .op = DLX_COUNT_EDGES, .src = &x, .edges = &e, .nbins = nb, .uniform = uniform};
  CHECK(v != NULL);
  for (int64_t i = 0; i < n; i++) v[i] = some_value(true, false);
  ev[0] = -3;
  for (int64_t i = 1; i < ne; i++) /* equal steps, or steps of 0 to 1 (repeated edges) */
    ev[i] = uniform ? -3 + 6.0 * (double)i / (double)nb : ev[i - 1] + (double)rnd_below(5) / 4;
  if (uniform) ev[nb] = 3;
  fill_from(&x, v);
  fill_from(&e, ev);
  for (int64_t i = 0; i < n; i++) ((double *)w.buffer->data)[i] = (double)(rnd_below(9) - 4);
  if (weighted) req.weights = &w;
  check_bins(&req, uniform ? "histogram, equal bins" : "histogram, edges");
  free(v);
  dlx_tensor_close(&x);
  dlx_tensor_close(&e);
  dlx_tensor_close(&w);
}

static void check_bincount(int64_t n, int64_t nb, bool weighted) {
  dlx_tensor x = cpu_tensor(DLX_INT64, 1, &n), w = cpu_tensor(DLX_FLOAT64, 1, &n);
  dlx_count_request req = {.op = DLX_COUNT_BINCOUNT, .src = &x, .nbins = nb};
  for (int64_t i = 0; i < n; i++) {
    ((int64_t *)x.buffer->data)[i] = rnd_below(nb);
    ((double *)w.buffer->data)[i] = (double)(rnd_below(9) - 4);
  }
  if (weighted) req.weights = &w;
  check_bins(&req, "bincount");
  dlx_tensor_close(&x);
  dlx_tensor_close(&w);
}

static const dlx_dtype search_dtypes[] = {
    DLX_BOOL,   DLX_INT8,   DLX_INT16,   DLX_INT32,    DLX_INT64,   DLX_UINT8,  DLX_UINT16,
    DLX_UINT32, DLX_UINT64, DLX_FLOAT16, DLX_BFLOAT16, DLX_FLOAT32, DLX_FLOAT64};

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  if (isnan(x) || isnan(y)) return isnan(x) - isnan(y); /* NaN last */
  return (x > y) - (x < y);
}

/* rows rows of m values searched in srows (1 or rows) sorted rows of n. */
static void check_search(dlx_dtype dtype, int64_t rows, int64_t m, int64_t srows, int64_t n,
                         bool right) {
  int64_t vshape[2] = {rows, m}, sshape[2] = {srows, n};
  bool floating = dlx_dtype_kind(dtype) == DLX_KIND_FLOAT;
  bool non_negative = dlx_dtype_kind(dtype) == DLX_KIND_UINT || dtype == DLX_BOOL;
  dlx_tensor v = cpu_tensor(dtype, 2, vshape), s = cpu_tensor(dtype, 2, sshape);
  dlx_tensor want = cpu_tensor(DLX_INT64, 2, vshape), got = cpu_tensor(DLX_INT64, 2, vshape);
  double *vv = malloc((size_t)(rows * m + srows * n) * sizeof(double)), *sv = vv + rows * m;
  dlx_count_request req = {.op = DLX_COUNT_SEARCH, .src = &v, .edges = &s, .right = right};
  dlx_cuda_count_request q;
  CHECK(vv != NULL);
  for (int64_t i = 0; i < rows * m; i++) vv[i] = some_value(floating, non_negative);
  for (int64_t i = 0; i < srows * n; i++) sv[i] = some_value(floating, non_negative);
  if (dtype == DLX_BOOL)
    for (int64_t i = 0; i < rows * m + srows * n; i++) vv[i] = vv[i] != 0;
  fill_from(&v, vv);
  /* sorted in the key order after the cast (-0.0 and 0.0 are equal keys: any order of them) */
  fill_from(&s, sv);
  {
    dlx_tensor back = cpu_tensor(DLX_FLOAT64, 2, sshape);
    CHECK(dlx_cpu_backend.copy(&back, &s, NULL) == 0);
    for (int64_t r = 0; r < srows; r++)
      qsort((double *)back.buffer->data + r * n, (size_t)n, sizeof(double), compare_doubles);
    CHECK(dlx_cpu_backend.copy(&s, &back, NULL) == 0);
    dlx_tensor_close(&back);
  }
  req.out = &want;
  CHECK(dlx_cpu_backend.count_op(&req, NULL) == 0);
  req.out = &got;
  q = dlx_cuda_count_plan(&req);
  cxx_count_search(&q);
  if (memcmp(want.buffer->data, got.buffer->data, (size_t)(rows * m) * 8) != 0) {
    fprintf(stderr, "searchsorted %s, %lld x %lld in %lld x %lld, %s: differs\n",
            dlx_dtype_info_of(dtype)->name, (long long)rows, (long long)m, (long long)srows,
            (long long)n, right ? "right" : "left");
    CHECK(0);
  }
  free(vv);
  dlx_tensor_close(&v);
  dlx_tensor_close(&s);
  dlx_tensor_close(&want);
  dlx_tensor_close(&got);
}

int main(void) {
  static const int64_t bins[] = {1, 3, 100, 5000};
  static const int64_t lengths[] = {1, 2, 7, 100, 3000};
  rnd_seed("cuda_count_rules", UINT64_C(0x9E3779B97F4A7C15));
  for (size_t b = 0; b < sizeof bins / sizeof bins[0]; b++)
    for (int weighted = 0; weighted < 2; weighted++) {
      check_linear(DLX_FLOAT32, 2000, bins[b], -2, 2, weighted);
      check_linear(DLX_FLOAT64, 2000, bins[b], -2, 2, weighted);
      check_linear(DLX_FLOAT32, 2000, bins[b], -0.3, 4.7, weighted);
      check_linear(DLX_FLOAT64, 2000, bins[b], -5e300, 5e300, weighted);
      for (int uniform = 0; uniform < 2; uniform++) {
        check_edges(DLX_FLOAT32, 2000, bins[b], uniform, weighted);
        check_edges(DLX_FLOAT64, 2000, bins[b], uniform, weighted);
      }
      check_bincount(2000, bins[b], weighted);
    }
  for (size_t d = 0; d < sizeof search_dtypes / sizeof search_dtypes[0]; d++)
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++)
      for (int right = 0; right < 2; right++) {
        check_search(search_dtypes[d], 3, 50, 1, lengths[k], right);
        check_search(search_dtypes[d], 3, 50, 3, lengths[k], right);
      }
  return check_report("cuda_count_rules");
}
