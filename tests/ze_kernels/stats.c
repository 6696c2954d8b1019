/* stats.c -- var, std, logsumexp, norm (the partials of src/common/stats_ops.h) and cumsum,
 * cumprod, softmax, log_softmax (stats.cl) against the CPU backend's reduce_stat and along_dim. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/builtin.h"
#include "common/stats_ops.h"
#include "core/ops.h"
#include "core/stats.h"

/* Values for the statistics, written as float64 and cast to dtype: halves in [-4, 4]; in mode 1
 * with an offset of 1e6 (var must not cancel), in mode 2 with NaN and infinities now and then, in
 * mode 3 scaled near the top or bottom of float64 (norm 2 must not overflow or underflow). */
static void stat_values(unsigned char *p, const layout *l, dlx_dtype dtype, int mode) {
  dlx_tensor src, dst;
  DLDevice cpu = {kDLCPU, 0};
  bool floating = dlx_dtype_kind(dtype) == DLX_KIND_FLOAT;
  double scale = next_random() % 2 ? 1e300 : 1e-310;
  int64_t n = 1;
  for (int32_t d = 0; d < l->ndim; d++) n *= l->shape[d];
  dlx_tensor_empty(&src, l->shape, l->ndim, DLX_FLOAT64, cpu, NULL);
  for (int64_t i = 0; i < n; i++) {
    double v = (double)((int64_t)(next_random() % 17) - 8) / 2;
    uint64_t r = next_random() % 41;
    if (dlx_dtype_kind(dtype) == DLX_KIND_UINT || dtype == DLX_BOOL) v = fabs(v);
    if (mode == 1 && floating) v += dtype == DLX_FLOAT64 ? 1e6 : 1e3;
    if (mode == 2 && floating && r < 3) v = r == 0 ? NAN : r == 1 ? INFINITY : -INFINITY;
    if (mode == 3 && dtype == DLX_FLOAT64) v *= scale;
    ((double *)src.buffer->data)[i] = v;
  }
  dst = as_tensor(l, dtype, p);
  dlx_cpu_backend.copy(&dst, &src, NULL);
  dlx_tensor_close(&dst);
  dlx_tensor_close(&src);
}

/* Float results against the CPU's: equal, both NaN, or within rel (another summation order,
 * the device's exp and log). */
static bool results_close(const unsigned char *got, const unsigned char *want, dlx_dtype dtype,
                          int64_t n, double rel) {
  for (int64_t i = 0; i < n; i++) {
    double g, w;
    result_values(got + i * dlx_itemsize(dtype), dtype, 1, &g);
    result_values(want + i * dlx_itemsize(dtype), dtype, 1, &w);
    if (!(g == w || (isnan(g) && isnan(w)) || fabs(g - w) <= rel * fmax(fabs(g), fabs(w)))) {
      fprintf(stderr, "  element %lld: got %a, want %a\n", (long long)i, g, w);
      return false;
    }
  }
  return true;
}

static double tolerance_of(dlx_dtype result) {
  return result == DLX_FLOAT16 || result == DLX_BFLOAT16 ? 1e-2
         : result == DLX_FLOAT32                         ? 2e-6
                                                         : 1e-11;
}

static dlx_stat_op stat_op_of_kind(int kind, double *param) {
  static const double norms[] = {0, 0, 0, 1, 2, INFINITY};
  *param = kind <= DLX_STAT_K_STD ? (double)(next_random() % 3) : norms[kind];
  return kind == DLX_STAT_K_VAR   ? DLX_STAT_VAR
         : kind == DLX_STAT_K_STD ? DLX_STAT_STD
         : kind == DLX_STAT_K_LSE ? DLX_STAT_LOGSUMEXP
                                  : DLX_STAT_NORM;
}

static void test_stat(int kind, dlx_dtype from, uint64_t dims, int64_t chunks, int mode) {
  int64_t shape[3] = {1 + (int64_t)(next_random() % 3), (int64_t)(next_random() % 5),
                      1 + (int64_t)(next_random() % 600)};
  int64_t out_shape[3];
  double param;
  dlx_stat_op op = stat_op_of_kind(kind, &param);
  dlx_dtype to;
  layout l = random_layout(3, shape, dlx_itemsize(from));
  dlx_ze_stat_args *a = svm(sizeof *a);
  if (shape[1] == 0) { /* nothing to read: an empty reduced extent or no outputs */
    l.first = 0;
    l.span = dlx_itemsize(from);
  }
  dlx_ze_reduce_args r;
  unsigned char *src = svm((size_t)l.span), *dst;
  dlx_stat_acc *partials;
  dlx_tensor st, wt;
  DLDevice cpu = {kDLCPU, 0};
  if (dlx_stat_dtype("stat", from, &to, NULL) != 0) return;
  for (int d = 0; d < 3; d++) out_shape[d] = (dims & (UINT64_C(1) << d)) ? 1 : shape[d];
  host_access(src, (size_t)l.span, 1);
  host_access(a, sizeof *a, 1);
  stat_values(src, &l, from, mode);
  reduce_args(&l, dims, from, DLX_REDUCE_SUM, to, chunks, &r);
  memset(a, 0, sizeof *a);
  a->kind = kind;
  a->param = param;
  a->src_dtype = from;
  a->dst_dtype = to;
  a->n_out = r.n_out;
  a->n_red = r.n_red;
  a->chunks = r.chunks;
  a->chunk_len = r.chunk_len;
  a->out_ndim = r.out_ndim;
  a->red_ndim = r.red_ndim;
  memcpy(a->out_shape, r.out_shape, sizeof a->out_shape);
  memcpy(a->out_strides, r.out_strides, sizeof a->out_strides);
  memcpy(a->red_shape, r.red_shape, sizeof a->red_shape);
  memcpy(a->red_strides, r.red_strides, sizeof a->red_strides);
  st = as_tensor(&l, from, src);
  dlx_tensor_empty(&wt, out_shape, 3, to, cpu, NULL);
  if (a->n_out > 0) CHECK(dlx_cpu_backend.reduce_stat(op, param, &st, dims, &wt, NULL) == 0);
  dst = svm((size_t)(a->n_out * dlx_itemsize(to)));
  partials = svm((size_t)(a->n_out * a->chunks) * sizeof *partials);
  host_access(src, (size_t)l.span, 0);
  host_access(a, sizeof *a, 0);
  if (a->n_out > 0) {
    CHECK(run(DLX_ZE_KERNEL_STAT_PARTIAL, (size_t)(a->n_out * a->chunks),
              (void *const[]){src + l.first, partials, a}, 3) == 0);
    CHECK(run(DLX_ZE_KERNEL_STAT_FINISH, (size_t)a->n_out, (void *const[]){dst, partials, a}, 3) ==
          0);
  }
  host_access(dst, (size_t)(a->n_out * dlx_itemsize(to)), 1);
  check_count++;
  /* With the 1e6 offset, each side's block means are off by about 1e6 * 2^-53, and the two
   * merge them in different orders: float64 results then agree to about 1e-11, not better. A
   * one-pass formula would be off by about 1e-5 there, so 1e-9 still tells them apart. */
  if (!results_close(dst, wt.buffer->data, to, a->n_out,
                     mode == 1 && to == DLX_FLOAT64 ? 1e-9 : tolerance_of(to))) {
    check_failures++;
    fprintf(stderr,
            "stat kind %d (param %g) of %s over dims 0x%llx (%lld chunks, mode %d) "
            "differs from the CPU\n",
            kind, param, dlx_dtype_info_of(from)->name, (unsigned long long)dims,
            (long long)r.chunks, mode);
  }
  host_access(dst, (size_t)(a->n_out * dlx_itemsize(to)), 0);
  dlx_tensor_close(&st);
  dlx_tensor_close(&wt);
  clSVMFree(context, src);
  clSVMFree(context, dst);
  clSVMFree(context, partials);
  clSVMFree(context, a);
}

void test_stats(void) {
  static const uint64_t dims[] = {7, 4, 1, 5};
  for (int kind = DLX_STAT_K_VAR; kind <= DLX_STAT_K_NORMINF; kind++)
    for (int dtype = DLX_BOOL; dtype <= DLX_FLOAT64; dtype++)
      for (size_t k = 0; k < sizeof dims / sizeof dims[0]; k++)
        for (int mode = 0; mode < 4; mode++)
          test_stat(kind, (dlx_dtype)dtype, dims[k], 1 + (int64_t)(next_random() % 4), mode);
}

/* Values for the ops along a dim: random bytes for integer scans (they wrap), halves in [-4, 4]
 * for float sums, +-1, +-0.5 and 2 for float products; for softmax in mode 1 -inf often and NaN
 * or +inf now and then. */
static void dim_values(unsigned char *p, const layout *l, dlx_dtype dtype, int op, int mode) {
  dlx_tensor src, dst;
  DLDevice cpu = {kDLCPU, 0};
  int64_t n = 1;
  bool floating = dlx_dtype_kind(dtype) == DLX_KIND_FLOAT;
  for (int32_t d = 0; d < l->ndim; d++) n *= l->shape[d];
  if (!floating && op <= DLX_DIM_CUMPROD) {
    random_bytes(p, l->span);
    if (dtype == DLX_BOOL)
      for (int64_t i = 0; i < l->span; i++) p[i] &= 1;
    return;
  }
  dlx_tensor_empty(&src, l->shape, l->ndim, DLX_FLOAT64, cpu, NULL);
  for (int64_t i = 0; i < n; i++) {
    double v = (double)((int64_t)(next_random() % 17) - 8) / 2;
    uint64_t r = next_random() % 40;
    if (op == DLX_DIM_CUMPROD) v = r < 4 ? 2.0 : (r % 2 ? 1.0 : 0.5) * (r % 3 ? 1 : -1);
    if (dlx_dtype_kind(dtype) == DLX_KIND_UINT || dtype == DLX_BOOL) v = fabs(v);
    if (op >= DLX_DIM_SOFTMAX && mode == 1 && floating)
      v = r < 20 ? -INFINITY : r == 20 ? NAN : r == 21 ? INFINITY : v;
    ((double *)src.buffer->data)[i] = v;
  }
  dst = as_tensor(l, dtype, p);
  dlx_cpu_backend.copy(&dst, &src, NULL);
  dlx_tensor_close(&dst);
  dlx_tensor_close(&src);
}

static void test_along(dlx_dim_op op, dlx_dtype from, int per_group, int mode) {
  int64_t shape[3] = {1 + (int64_t)(next_random() % 3), 1 + (int64_t)(next_random() % 5),
                      1 + (int64_t)(next_random() % 9)};
  int32_t dim = (int32_t)(next_random() % 3), n = 0;
  dlx_dtype to;
  dlx_ze_dim_args *a = svm(sizeof *a);
  DLDevice cpu = {kDLCPU, 0};
  dlx_tensor st, wt;
  if (op <= DLX_DIM_CUMPROD
          ? dlx_reduce_dtype(op == DLX_DIM_CUMSUM ? DLX_REDUCE_SUM : DLX_REDUCE_PROD, from, &to,
                             NULL) != 0
          : dlx_stat_dtype("softmax", from, &to, NULL) != 0)
    return;
  shape[dim] = per_group ? 1 + (int64_t)(next_random() % 1500) : 1 + (int64_t)(next_random() % 40);
  layout sl = random_layout(3, shape, dlx_itemsize(from));
  unsigned char *src = svm((size_t)sl.span), *dst;
  int64_t numel = shape[0] * shape[1] * shape[2], dsize = dlx_itemsize(to), cstrides[3];
  dlx_contiguous_strides(shape, 3, cstrides);
  dst = svm((size_t)(numel * dsize));
  host_access(src, (size_t)sl.span, 1);
  host_access(a, sizeof *a, 1);
  dim_values(src, &sl, from, op, mode);
  memset(a, 0, sizeof *a);
  a->op = op;
  a->src_dtype = from;
  a->dst_dtype = to;
  a->len = shape[dim];
  a->src_step = sl.strides[dim] * dlx_itemsize(from);
  a->dst_step = cstrides[dim] * dsize;
  a->per_group = per_group;
  a->lines = 1;
  for (int32_t d = 0; d < 3; d++) {
    if (d == dim) continue;
    a->outer_shape[n] = shape[d];
    a->src_strides[n] = sl.strides[d] * dlx_itemsize(from);
    a->dst_strides[n++] = cstrides[d] * dsize;
    a->lines *= shape[d];
  }
  a->outer_ndim = n;
  st = as_tensor(&sl, from, src);
  dlx_tensor_empty(&wt, shape, 3, to, cpu, NULL);
  CHECK(dlx_cpu_backend.along_dim(op, &st, dim, &wt, NULL) == 0);
  host_access(src, (size_t)sl.span, 0);
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_ALONG_DIM,
            per_group ? 1 + next_random() % (uint64_t)a->lines : 1 + next_random() % 2,
            (void *const[]){dst, src + sl.first, a}, 3) == 0);
  host_access(dst, (size_t)(numel * dsize), 1);
  {
    bool exact = dlx_dtype_kind(to) != DLX_KIND_FLOAT || (op <= DLX_DIM_CUMPROD && !per_group);
    bool ok = exact ? memcmp(dst, wt.buffer->data, (size_t)(numel * dsize)) == 0
                    : results_close(dst, wt.buffer->data, to, numel, tolerance_of(to));
    check_count++;
    if (!ok) {
      check_failures++;
      fprintf(stderr,
              "%s of %s along dim %d of %lldx%lldx%lld (%s, mode %d) differs from the CPU\n",
              dlx_dim_op_name(op), dlx_dtype_info_of(from)->name, (int)dim, (long long)shape[0],
              (long long)shape[1], (long long)shape[2],
              per_group ? "a work-group per line" : "a work-item per line", mode);
    }
  }
  host_access(dst, (size_t)(numel * dsize), 0);
  dlx_tensor_close(&st);
  dlx_tensor_close(&wt);
  clSVMFree(context, src);
  clSVMFree(context, dst);
  clSVMFree(context, a);
}

void test_along_dims(void) {
  for (int op = DLX_DIM_CUMSUM; op <= DLX_DIM_LOG_SOFTMAX; op++)
    for (int dtype = DLX_BOOL; dtype <= DLX_FLOAT64; dtype++)
      for (int per_group = 0; per_group < 2; per_group++)
        for (int rep = 0; rep < 4; rep++)
          test_along((dlx_dim_op)op, (dlx_dtype)dtype, per_group, rep % 2);
}
