/* reductions.c -- the reductions of dlx_kernels.cl (both passes: the partials of each chunk,
 * then the finish) against the CPU backend's reduce: every op of every dtype over odd shapes with
 * permuted, padded and negative strides, one and several chunks per output. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/builtin.h"
#include "core/ops.h"

/* Values every dtype holds exactly (small integers, halves), for the reductions; for products
 * only +-1 and +-0.5, so that no partial product overflows in one order and not another; for
 * the extremes of floats a NaN now and then (it must win, at its first position). */
static void gentle_values(unsigned char *p, const layout *l, dlx_dtype dtype, dlx_reduce_op op) {
  bool product = op == DLX_REDUCE_PROD, extreme = op >= DLX_REDUCE_MIN && op <= DLX_REDUCE_ARGMAX;
  dlx_tensor src, dst;
  DLDevice cpu = {kDLCPU, 0};
  int64_t n = 1;
  for (int32_t d = 0; d < l->ndim; d++) n *= l->shape[d];
  dlx_tensor_empty(&src, l->shape, l->ndim, DLX_FLOAT64, cpu, NULL);
  for (int64_t i = 0; i < n; i++) {
    double v = (double)((int64_t)(next_random() % 17) - 8) / (dtype == DLX_BOOL ? 1 : 2);
    if (product) v = (next_random() % 2 ? 1.0 : 0.5) * (next_random() % 2 ? 1 : -1);
    if (dlx_dtype_kind(dtype) == DLX_KIND_UINT || dtype == DLX_BOOL) v = fabs(v);
    if (extreme && dlx_dtype_kind(dtype) == DLX_KIND_FLOAT && next_random() % 97 == 0) v = NAN;
    ((double *)src.buffer->data)[i] = v;
  }
  dst = as_tensor(l, dtype, p);
  dlx_cpu_backend.copy(&dst, &src, NULL);
  dlx_tensor_close(&dst);
  dlx_tensor_close(&src);
}

void reduce_args(const layout *l, uint64_t dims, dlx_dtype from, dlx_reduce_op op, dlx_dtype to,
                 int64_t chunks, dlx_ze_reduce_args *a) {
  int64_t size = dlx_itemsize(from);
  memset(a, 0, sizeof *a);
  a->op = op;
  a->src_dtype = from;
  a->dst_dtype = to;
  a->n_out = a->n_red = 1;
  for (int32_t d = 0; d < l->ndim; d++) {
    if (dims & (UINT64_C(1) << d)) {
      a->red_shape[a->red_ndim] = l->shape[d];
      a->red_strides[a->red_ndim++] = l->strides[d] * size;
      a->n_red *= l->shape[d];
    } else {
      a->out_shape[a->out_ndim] = l->shape[d];
      a->out_strides[a->out_ndim++] = l->strides[d] * size;
      a->n_out *= l->shape[d];
    }
  }
  a->chunks = chunks > a->n_red ? (a->n_red > 0 ? a->n_red : 1) : chunks;
  a->chunk_len = (a->n_red + a->chunks - 1) / a->chunks;
  a->chunks = a->chunk_len > 0 ? (a->n_red + a->chunk_len - 1) / a->chunk_len : 1;
}

static void test_reduce(dlx_reduce_op op, dlx_dtype from, uint64_t dims, int64_t chunks) {
  int64_t shape[3] = {2 + (int64_t)(next_random() % 3), 1 + (int64_t)(next_random() % 5),
                      3 + (int64_t)(next_random() % 300)};
  int64_t size = dlx_itemsize(from), out_shape[3];
  layout l = random_layout(3, shape, size);
  dlx_dtype to;
  dlx_ze_reduce_args *a = svm(sizeof *a);
  unsigned char *src = svm((size_t)l.span), *dst, *want;
  dlx_ze_acc *partials;
  dlx_tensor st, wt;
  DLDevice cpu = {kDLCPU, 0};
  double got_v[2 * 64], want_v[2 * 64];
  if (dlx_reduce_dtype(op, from, &to, NULL) != 0) return;
  for (int d = 0; d < 3; d++) out_shape[d] = (dims & (UINT64_C(1) << d)) ? 1 : shape[d];
  host_access(src, (size_t)l.span, 1);
  host_access(a, sizeof *a, 1);
  gentle_values(src, &l, from, op);
  reduce_args(&l, dims, from, op, to, chunks, a);
  st = as_tensor(&l, from, src);
  dlx_tensor_empty(&wt, out_shape, 3, to, cpu, NULL);
  CHECK(dlx_cpu_backend.reduce(op, &st, dims, &wt, NULL) == 0);
  want = wt.buffer->data;
  dst = svm((size_t)(a->n_out * dlx_itemsize(to)));
  partials = svm((size_t)(a->n_out * a->chunks) * sizeof *partials);
  host_access(src, (size_t)l.span, 0);
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_REDUCE_PARTIAL, (size_t)(a->n_out * a->chunks),
            (void *const[]){src + l.first, partials, a}, 3) == 0);
  CHECK(run(DLX_ZE_KERNEL_REDUCE_FINISH, (size_t)a->n_out, (void *const[]){dst, partials, a}, 3) ==
        0);
  host_access(dst, (size_t)(a->n_out * dlx_itemsize(to)), 1);
  host_access(a, sizeof *a, 1);
  {
    dlx_kind kind = dlx_dtype_kind(to);
    bool exact = kind != DLX_KIND_FLOAT && kind != DLX_KIND_COMPLEX;
    exact = exact || op == DLX_REDUCE_MIN || op == DLX_REDUCE_MAX;
    int64_t n = a->n_out < 64 ? a->n_out : 64;
    bool ok;
    if (exact) {
      ok = memcmp(dst, want, (size_t)(a->n_out * dlx_itemsize(to))) == 0;
    } else {
      int64_t count = n * (kind == DLX_KIND_COMPLEX ? 2 : 1);
      double rel = (from == DLX_FLOAT16 || from == DLX_BFLOAT16) ? 1e-2 : 1e-6;
      result_values(dst, to, n, got_v);
      result_values(want, to, n, want_v);
      ok = true;
      for (int64_t i = 0; i < count; i++) ok = ok && close_values(got_v[i], want_v[i], rel);
    }
    check_count++;
    if (!ok) {
      check_failures++;
      fprintf(stderr, "reduce op %d of %s over dims 0x%llx (%lld chunks) differs from the CPU\n",
              (int)op, dlx_dtype_info_of(from)->name, (unsigned long long)dims,
              (long long)a->chunks);
    }
  }
  host_access(dst, (size_t)(a->n_out * dlx_itemsize(to)), 0);
  host_access(a, sizeof *a, 0);
  dlx_tensor_close(&st);
  dlx_tensor_close(&wt);
  clSVMFree(context, src);
  clSVMFree(context, dst);
  clSVMFree(context, partials);
  clSVMFree(context, a);
}

void test_reductions(void) {
  static const uint64_t dims[] = {7, 4, 1, 5};
  for (int op = DLX_REDUCE_SUM; op <= DLX_REDUCE_ANY; op++) {
    for (int dtype = DLX_BOOL; dtype <= DLX_COMPLEX128; dtype++) {
      for (size_t k = 0; k < sizeof dims / sizeof dims[0]; k++) {
        bool arg = op == DLX_REDUCE_ARGMIN || op == DLX_REDUCE_ARGMAX;
        if (arg && dims[k] != 7 && (dims[k] & (dims[k] - 1)) != 0) continue;
        test_reduce((dlx_reduce_op)op, (dlx_dtype)dtype, dims[k], 1);
        test_reduce((dlx_reduce_op)op, (dlx_dtype)dtype, dims[k], 3);
      }
    }
  }
}
