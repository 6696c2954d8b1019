/* count.c -- count_op's kernel (count.cl: dlx_count) against the CPU backend's count_op, bit for
 * bit: histc's linear bins, histogram's edges (equal and not), bincount, with and without
 * weights (small integers: their float64 sums are exact in the atomics' any order), more bins
 * than elements and fewer; searchsorted in every sortable dtype, left and right, one sorted row
 * for all and one a row, with ties, -0.0 and 0.0, NaN and infinities. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "core/sort.h"

static dlx_tensor cpu_tensor(dlx_dtype dtype, int32_t ndim, const int64_t *shape) {
  dlx_tensor t;
  CHECK(dlx_tensor_empty(&t, shape, ndim, dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  return t;
}

/* t (CPU, C-contiguous) = the doubles w cast to t's dtype. */
static void fill_from(dlx_tensor *t, const double *w) {
  int64_t n = dlx_tensor_numel(t);
  dlx_tensor wide = cpu_tensor(DLX_FLOAT64, t->ndim, t->shape);
  memcpy(wide.buffer->data, w, (size_t)n * sizeof(double));
  CHECK(dlx_cpu_backend.copy(t, &wide, NULL) == 0);
  dlx_tensor_close(&wide);
}

/* Few distinct values (ties, elements on edges), specials now and then when floating. */
static double some_value(bool floating, bool non_negative) {
  double v = (double)((int64_t)(next_random() % 41) - 20) / 4;
  uint64_t r = next_random() % 20;
  if (non_negative) v = fabs(v);
  if (floating && r < 5) v = r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -INFINITY : -0.0;
  if (floating && r == 5) v = (double)(next_random() >> 11) * 0x1p-53 * 10 - 5;
  return v;
}

static size_t bytes_of(const dlx_tensor *t) {
  return (size_t)dlx_tensor_numel(t) * (size_t)dlx_itemsize(t->dtype);
}

/* The kernel's phases of req (its tensors on the CPU) against the CPU's count_op. */
static void check_request(dlx_count_request *req, int64_t out_numel, const char *what) {
  bool search = req->op == DLX_COUNT_SEARCH;
  dlx_dtype out_dtype = !search && req->weights != NULL ? DLX_FLOAT64 : DLX_INT64;
  dlx_tensor want = cpu_tensor(out_dtype, 1, &out_numel);
  dlx_ze_count_args *a = svm(sizeof *a);
  void *src = svm_copy(req->src->buffer->data, bytes_of(req->src));
  void *edges = req->edges != NULL ? svm_copy(req->edges->buffer->data, bytes_of(req->edges)) : src;
  void *weights =
      req->weights != NULL ? svm_copy(req->weights->buffer->data, bytes_of(req->weights)) : src;
  void *out = svm((size_t)out_numel * 8);
  req->out = &want;
  CHECK(dlx_cpu_backend.count_op(req, NULL) == 0);
  host_access(a, sizeof *a, 1);
  memset(a, 0, sizeof *a);
  a->op = req->op;
  a->is64 = req->src->dtype == DLX_FLOAT64;
  a->uniform = req->uniform;
  a->has_weights = req->weights != NULL;
  a->right = req->right;
  a->key_kind = dlx_sort_key_kind(req->src->dtype);
  a->shared_row = search && req->edges->shape[0] == 1;
  a->n = search ? req->edges->shape[1] : req->src->shape[0];
  a->nbins = req->nbins;
  a->rows = search ? req->src->shape[0] : 1;
  a->m = search ? req->src->shape[1] : req->src->shape[0];
  a->lo = req->lo;
  a->hi = req->hi;
  if (search) {
    a->phase = DLX_ZE_COUNT_SEARCH;
    host_access(a, sizeof *a, 0);
    CHECK(run(DLX_ZE_KERNEL_COUNT, 1 + next_random() % 3,
              (void *const[]){out, src, edges, weights, a}, 5) == 0);
  } else {
    host_access(out, (size_t)out_numel * 8, 1);
    memset(out, 0xff, (size_t)out_numel * 8); /* the ZERO phase must clear it */
    host_access(out, (size_t)out_numel * 8, 0);
    a->phase = DLX_ZE_COUNT_ZERO;
    host_access(a, sizeof *a, 0);
    CHECK(run(DLX_ZE_KERNEL_COUNT, 1, (void *const[]){out, src, edges, weights, a}, 5) == 0);
    host_access(a, sizeof *a, 1);
    a->phase = DLX_ZE_COUNT_BINS;
    host_access(a, sizeof *a, 0);
    CHECK(run(DLX_ZE_KERNEL_COUNT, 1 + next_random() % 3,
              (void *const[]){out, src, edges, weights, a}, 5) == 0);
  }
  host_access(out, (size_t)out_numel * 8, 1);
  if (memcmp(out, want.buffer->data, (size_t)out_numel * 8) != 0) {
    fprintf(stderr, "count %s: differs from the CPU\n", what);
    CHECK(0);
  }
  host_access(out, (size_t)out_numel * 8, 0);
  dlx_tensor_close(&want);
  clSVMFree(context, a);
  clSVMFree(context, src);
  if (edges != src) clSVMFree(context, edges);
  if (weights != src) clSVMFree(context, weights);
  clSVMFree(context, out);
}

/* op's bins of n elements (src dtype: int64 for BINCOUNT), with and without weights. */
static void test_bins(dlx_count_op op, dlx_dtype dtype, int64_t n, int64_t nb, bool uniform) {
  int64_t ne = nb + 1;
  dlx_tensor x = cpu_tensor(dtype, 1, &n), e = cpu_tensor(dtype, 1, &ne);
  dlx_tensor w = cpu_tensor(DLX_FLOAT64, 1, &n);
  double *v = malloc((size_t)(n + ne) * sizeof(double)), *ev = v + n;
  char what[96];
  dlx_count_request req = {.op = op, .src = &x, .nbins = nb, .lo = -2, .hi = 2.5};
  CHECK(v != NULL);
  for (int64_t i = 0; i < n; i++)
    v[i] =
        op == DLX_COUNT_BINCOUNT ? (double)(next_random() % (uint64_t)nb) : some_value(true, false);
  ev[0] = -3;
  for (int64_t i = 1; i < ne; i++)
    ev[i] =
        uniform ? -3 + 6.0 * (double)i / (double)nb : ev[i - 1] + (double)(next_random() % 5) / 4;
  fill_from(&x, v);
  fill_from(&e, ev);
  for (int64_t i = 0; i < n; i++)
    ((double *)w.buffer->data)[i] = (double)((int64_t)(next_random() % 9) - 4);
  if (op == DLX_COUNT_EDGES) {
    req.edges = &e;
    req.uniform = uniform;
  }
  for (int weighted = 0; weighted < 2; weighted++) {
    req.weights = weighted ? &w : NULL;
    snprintf(what, sizeof what, "op %d of %s, %lld elements, %lld bins%s%s", (int)op,
             dlx_dtype_info_of(dtype)->name, (long long)n, (long long)nb,
             uniform ? ", equal bins" : "", weighted ? ", weighted" : "");
    check_request(&req, nb, what);
  }
  free(v);
  dlx_tensor_close(&x);
  dlx_tensor_close(&e);
  dlx_tensor_close(&w);
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  if (isnan(x) || isnan(y)) return isnan(x) - isnan(y); /* NaN last */
  return (x > y) - (x < y);
}

static void test_search(dlx_dtype dtype, int64_t rows, int64_t m, int64_t srows, int64_t n,
                        bool right) {
  int64_t vshape[2] = {rows, m}, sshape[2] = {srows, n};
  bool floating = dlx_dtype_kind(dtype) == DLX_KIND_FLOAT;
  bool non_negative = dlx_dtype_kind(dtype) == DLX_KIND_UINT || dtype == DLX_BOOL;
  dlx_tensor v = cpu_tensor(dtype, 2, vshape), s = cpu_tensor(dtype, 2, sshape), back;
  double *vv = malloc((size_t)(rows * m + srows * n) * sizeof(double)), *sv = vv + rows * m;
  dlx_count_request req = {.op = DLX_COUNT_SEARCH, .src = &v, .edges = &s, .right = right};
  char what[96];
  CHECK(vv != NULL);
  for (int64_t i = 0; i < rows * m + srows * n; i++) {
    vv[i] = some_value(floating, non_negative);
    if (dtype == DLX_BOOL) vv[i] = vv[i] != 0;
  }
  fill_from(&v, vv);
  fill_from(&s, sv);
  /* each row sorted after the cast (the cast keeps the order) */
  back = cpu_tensor(DLX_FLOAT64, 2, sshape);
  CHECK(dlx_cpu_backend.copy(&back, &s, NULL) == 0);
  for (int64_t r = 0; r < srows; r++)
    qsort((double *)back.buffer->data + r * n, (size_t)n, sizeof(double), compare_doubles);
  CHECK(dlx_cpu_backend.copy(&s, &back, NULL) == 0);
  snprintf(what, sizeof what, "searchsorted %s, %lld x %lld in %lld x %lld, %s",
           dlx_dtype_info_of(dtype)->name, (long long)rows, (long long)m, (long long)srows,
           (long long)n, right ? "right" : "left");
  check_request(&req, rows * m, what);
  free(vv);
  dlx_tensor_close(&v);
  dlx_tensor_close(&s);
  dlx_tensor_close(&back);
}

void test_counts(void) {
  static const dlx_dtype search_dtypes[] = {
      DLX_BOOL,   DLX_INT8,   DLX_INT16,   DLX_INT32,    DLX_INT64,   DLX_UINT8,  DLX_UINT16,
      DLX_UINT32, DLX_UINT64, DLX_FLOAT16, DLX_BFLOAT16, DLX_FLOAT32, DLX_FLOAT64};
  static const int64_t bins[] = {1, 7, 300, 3000};
  static const int64_t lengths[] = {1, 2, 9, 1000};
  for (size_t b = 0; b < sizeof bins / sizeof bins[0]; b++) {
    test_bins(DLX_COUNT_LINEAR, DLX_FLOAT32, 1500, bins[b], false);
    test_bins(DLX_COUNT_LINEAR, DLX_FLOAT64, 1500, bins[b], false);
    test_bins(DLX_COUNT_BINCOUNT, DLX_INT64, 1500, bins[b], false);
    for (int uniform = 0; uniform < 2; uniform++) {
      test_bins(DLX_COUNT_EDGES, DLX_FLOAT32, 1500, bins[b], uniform);
      test_bins(DLX_COUNT_EDGES, DLX_FLOAT64, 1500, bins[b], uniform);
    }
  }
  for (size_t d = 0; d < sizeof search_dtypes / sizeof search_dtypes[0]; d++)
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++)
      for (int right = 0; right < 2; right++) {
        test_search(search_dtypes[d], 3, 100, 1, lengths[k], right);
        test_search(search_dtypes[d], 3, 100, 3, lengths[k], right);
      }
}
