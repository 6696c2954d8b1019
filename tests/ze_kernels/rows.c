/* rows.c -- the row scans (rows.cl: cummax, cummin, logcumsumexp) against the CPU backend's
 * row_op: every real dtype, rows with ties, -0.0 and 0.0, NaN and infinities, one row, long
 * rows and more rows than a work-group; cummax and cummin bit for bit, logcumsumexp within the
 * device's exp and log1p. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/builtin.h"
#include "core/order_stats.h"
#include "core/sort.h"
#include "core/stats.h"

static const dlx_dtype scan_dtypes[] = {DLX_BOOL,    DLX_UINT8,    DLX_INT8,    DLX_INT16,
                                        DLX_UINT32,  DLX_INT32,    DLX_INT64,   DLX_UINT64,
                                        DLX_FLOAT16, DLX_BFLOAT16, DLX_FLOAT32, DLX_FLOAT64};

/* A CPU tensor [rows, n] of dtype: few distinct values (ties), -0.0 and 0.0, and in float
 * dtypes NaN and infinities now and then. */
static dlx_tensor scan_values(int64_t rows, int64_t n, dlx_dtype dtype) {
  int64_t shape[2] = {rows, n};
  DLDevice cpu = {kDLCPU, 0};
  bool floating = dlx_dtype_kind(dtype) == DLX_KIND_FLOAT;
  dlx_tensor wide, out;
  CHECK(dlx_tensor_empty(&wide, shape, 2, DLX_FLOAT64, cpu, NULL) == 0);
  CHECK(dlx_tensor_empty(&out, shape, 2, dtype, cpu, NULL) == 0);
  for (int64_t i = 0; i < rows * n; i++) {
    double v = (double)((int64_t)(next_random() % 9) - 4) / 2;
    uint64_t r = next_random() % 29;
    if (dlx_dtype_kind(dtype) == DLX_KIND_UINT || dtype == DLX_BOOL) v = fabs(v);
    if (floating && r < 5) v = r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -INFINITY : -0.0;
    if (floating && r == 5) v = 40 * v; /* exp(40) and more: no overflow */
    ((double *)wide.buffer->data)[i] = v;
  }
  CHECK(dlx_cpu_backend.copy(&out, &wide, NULL) == 0);
  dlx_tensor_close(&wide);
  return out;
}

/* One scan of a [rows, n] tensor of dtype by the kernel and by the CPU. */
static void test_scan(dlx_row_op op, dlx_dtype dtype, int64_t rows, int64_t n) {
  bool lse = op == DLX_ROW_LOGCUMSUMEXP;
  int64_t shape[2] = {rows, n}, count = rows * n;
  dlx_dtype out_dtype = dtype;
  dlx_tensor src = scan_values(rows, n, dtype), values, indices;
  dlx_row_request r = {.op = op, .src = &src, .values = &values};
  size_t in_size, out_size;
  void *got_src, *got_values;
  int64_t *got_indices;
  dlx_ze_row_scan_args *a = svm(sizeof *a);
  int bad = 0;
  if (lse) CHECK(dlx_stat_dtype("logcumsumexp", dtype, &out_dtype, NULL) == 0);
  in_size = (size_t)dlx_itemsize(dtype);
  out_size = (size_t)dlx_itemsize(out_dtype);
  CHECK(dlx_tensor_empty(&values, shape, 2, out_dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_tensor_empty(&indices, shape, 2, DLX_INT64, (DLDevice){kDLCPU, 0}, NULL) == 0);
  if (!lse) r.indices = &indices;
  CHECK(dlx_cpu_backend.row_op(&r, NULL) == 0);
  got_src = svm_copy(src.buffer->data, (size_t)count * in_size);
  got_values = svm((size_t)count * out_size);
  got_indices = svm((size_t)count * 8);
  host_access(a, sizeof *a, 1);
  memset(a, 0, sizeof *a);
  a->op = op;
  a->src_dtype = dtype;
  a->values_dtype = out_dtype;
  a->key_kind = dlx_sort_key_kind(dtype);
  a->is_float = dlx_dtype_kind(dtype) == DLX_KIND_FLOAT;
  a->rows = rows;
  a->n = n;
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_ROW_SCAN, 1 + next_random() % 2,
            (void *const[]){got_values, got_indices, got_src, a}, 4) == 0);
  host_access(got_values, (size_t)count * out_size, 1);
  host_access(got_indices, (size_t)count * 8, 1);
  if (lse) {
    double rel = out_dtype == DLX_FLOAT64 ? 1e-12 : out_dtype == DLX_FLOAT32 ? 1e-6 : 1e-2;
    for (int64_t i = 0; i < count; i++) {
      double g, w;
      result_values((unsigned char *)got_values + (size_t)i * out_size, out_dtype, 1, &g);
      result_values((unsigned char *)values.buffer->data + (size_t)i * out_size, out_dtype, 1, &w);
      if (!close_values(g, w, rel) && bad++ == 0)
        fprintf(stderr, "  element %lld: got %a, want %a\n", (long long)i, g, w);
    }
  } else {
    bad += memcmp(got_values, values.buffer->data, (size_t)count * out_size) != 0;
    bad += memcmp(got_indices, indices.buffer->data, (size_t)count * 8) != 0;
  }
  if (bad != 0)
    fprintf(stderr, "row scan %s of %s, %lld x %lld: %d differences\n", dlx_row_op_name(op),
            dlx_dtype_info_of(dtype)->name, (long long)rows, (long long)n, bad);
  CHECK(bad == 0);
  host_access(got_values, (size_t)count * out_size, 0);
  host_access(got_indices, (size_t)count * 8, 0);
  dlx_tensor_close(&src);
  dlx_tensor_close(&values);
  dlx_tensor_close(&indices);
  clSVMFree(context, got_src);
  clSVMFree(context, got_values);
  clSVMFree(context, got_indices);
  clSVMFree(context, a);
}

void test_row_scans(void) {
  static const int64_t shapes[][2] = {{1, 1}, {1, 3000}, {3, 700}, {300, 5}};
  static const dlx_row_op ops[] = {DLX_ROW_CUMMAX, DLX_ROW_CUMMIN, DLX_ROW_LOGCUMSUMEXP};
  for (size_t d = 0; d < sizeof scan_dtypes / sizeof scan_dtypes[0]; d++)
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
      for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        test_scan(ops[o], scan_dtypes[d], shapes[s][0], shapes[s][1]);
}
