/* cuda_row_rules.c -- the CUDA row scans (cummax, cummin, logcumsumexp of row_op), as far as they
 * can be checked without a GPU: their per-element code (src/cuda/row_element.h, compiled as host
 * C++ by cuda_row_rules.cpp) run as a parallel scan by tiles of several sizes, against the CPU
 * backend's row_op. Every real dtype, rows of several lengths with ties, -0.0 and 0.0, NaN and
 * infinities: cummax and cummin bit for bit (their combination is associative, so the tiles
 * change nothing), logcumsumexp within a few units in the last place (another order of the
 * float64 log-sums). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/order_stats.h"
#include "core/sort.h"
#include "core/stats.h"
#include "cpu_test_util.h"
#include "cuda/kernels.h"

void cxx_row_extreme(int max, const dlx_cuda_row_request *r, const void *src, void *values,
                     int64_t *indices, int64_t tile);
void cxx_row_logcumsumexp(const dlx_cuda_row_request *r, const void *src, void *values,
                          int64_t tile);

static const dlx_dtype dtypes[] = {DLX_BOOL,     DLX_INT8,    DLX_INT16,  DLX_INT32,  DLX_INT64,
                                   DLX_UINT8,    DLX_UINT16,  DLX_UINT32, DLX_UINT64, DLX_FLOAT16,
                                   DLX_BFLOAT16, DLX_FLOAT32, DLX_FLOAT64};
#define NDTYPES (sizeof dtypes / sizeof dtypes[0])

static dlx_tensor cpu_rows(dlx_dtype dtype, int64_t n) {
  DLDevice cpu = {kDLCPU, 0};
  int64_t shape[2] = {1, n};
  dlx_tensor t;
  CHECK(dlx_tensor_empty(&t, shape, 2, dtype, cpu, NULL) == 0);
  return t;
}

/* n values of dtype: few distinct ones (ties), -0.0, NaN, infinities and large ones. */
static dlx_tensor row_values(dlx_dtype dtype, int64_t n) {
  dlx_tensor wide = cpu_rows(DLX_FLOAT64, n), out = cpu_rows(dtype, n);
  bool floating = dlx_dtype_kind(dtype) == DLX_KIND_FLOAT;
  for (int64_t i = 0; i < n; i++) {
    double v = (double)(rnd_below(9) - 4) / 2;
    int64_t r = rnd_below(23);
    if (dlx_dtype_kind(dtype) == DLX_KIND_UINT || dtype == DLX_BOOL) v = fabs(v);
    if (floating && r < 5) v = r == 0 ? NAN : r == 1 ? INFINITY : r == 2 ? -INFINITY : -0.0;
    if (floating && r == 5) v *= 60;
    ((double *)wide.buffer->data)[i] = v;
  }
  CHECK(dlx_cpu_backend.copy(&out, &wide, NULL) == 0);
  dlx_tensor_close(&wide);
  return out;
}

static double tolerance_of(dlx_dtype dtype) {
  return dtype == DLX_FLOAT64 ? 1e-13 : dtype == DLX_FLOAT32 ? 1e-6 : 1e-2;
}

static void check_row(dlx_row_op op, dlx_dtype dtype, int64_t n, int64_t tile) {
  bool lse = op == DLX_ROW_LOGCUMSUMEXP;
  dlx_dtype out_dtype = dtype;
  dlx_tensor src = row_values(dtype, n), want, want_i, got, got_i;
  dlx_row_request req = {.op = op, .src = &src};
  dlx_cuda_row_request r;
  int bad = 0;
  if (lse) CHECK(dlx_stat_dtype("logcumsumexp", dtype, &out_dtype, NULL) == 0);
  want = cpu_rows(out_dtype, n);
  want_i = cpu_rows(DLX_INT64, n);
  got = cpu_rows(out_dtype, n);
  got_i = cpu_rows(DLX_INT64, n);
  req.values = &want;
  req.indices = lse ? NULL : &want_i;
  CHECK(dlx_cpu_backend.row_op(&req, NULL) == 0);
  r = (dlx_cuda_row_request){.op = (int)op,
                             .src_dtype = (int)dtype,
                             .values_dtype = (int)out_dtype,
                             .key_kind = dlx_sort_key_kind(dtype),
                             .is_float = dlx_dtype_kind(dtype) == DLX_KIND_FLOAT,
                             .elem_size = dlx_dtype_bits(dtype) / 8,
                             .rows = 1,
                             .n = n};
  if (lse) {
    dlx_tensor a = cpu_rows(DLX_FLOAT64, n), b = cpu_rows(DLX_FLOAT64, n);
    cxx_row_logcumsumexp(&r, src.buffer->data, got.buffer->data, tile);
    CHECK(dlx_cpu_backend.copy(&a, &want, NULL) == 0);
    CHECK(dlx_cpu_backend.copy(&b, &got, NULL) == 0);
    for (int64_t i = 0; i < n; i++) {
      double w = ((double *)a.buffer->data)[i], g = ((double *)b.buffer->data)[i];
      if (!(w == g || (isnan(w) && isnan(g)) ||
            fabs(w - g) <= tolerance_of(out_dtype) * fmax(fmax(fabs(w), fabs(g)), 1e-2)) &&
          bad++ == 0)
        fprintf(stderr, "  logcumsumexp element %lld: got %a, want %a\n", (long long)i, g, w);
    }
    dlx_tensor_close(&a);
    dlx_tensor_close(&b);
  } else {
    cxx_row_extreme(op == DLX_ROW_CUMMAX, &r, src.buffer->data, got.buffer->data,
                    got_i.buffer->data, tile);
    bad +=
        memcmp(got.buffer->data, want.buffer->data, (size_t)(n * dlx_dtype_bits(dtype) / 8)) != 0;
    bad += memcmp(got_i.buffer->data, want_i.buffer->data, (size_t)n * 8) != 0;
  }
  if (bad != 0)
    fprintf(stderr, "%s of %s, n %lld, tiles of %lld: differs\n", dlx_row_op_name(op),
            dlx_dtype_info_of(dtype)->name, (long long)n, (long long)tile);
  CHECK(bad == 0);
  dlx_tensor_close(&src);
  dlx_tensor_close(&want);
  dlx_tensor_close(&want_i);
  dlx_tensor_close(&got);
  dlx_tensor_close(&got_i);
}

int main(void) {
  static const int64_t lengths[] = {1, 2, 7, 300, 5000};
  static const int64_t tiles[] = {1, 3, 128, 1 << 30};
  static const dlx_row_op ops[] = {DLX_ROW_CUMMAX, DLX_ROW_CUMMIN, DLX_ROW_LOGCUMSUMEXP};
  rnd_seed("cuda_row_rules", UINT64_C(0x9E3779B97F4A7C15));
  for (size_t d = 0; d < NDTYPES; d++)
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
      for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++)
        for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
          check_row(ops[o], dtypes[d], lengths[k], tiles[t]);
  return check_report("cuda_row_rules");
}
