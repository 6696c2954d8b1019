/* cuda_stats_rules.c -- the CUDA kernels of var, std, logsumexp, norm, cumsum, cumprod, softmax
 * and log_softmax, as far as they can be checked without a GPU: their per-element code
 * (src/cuda/stats_element.h, compiled as host C++ by cuda_stats_rules.cpp and run a line at a
 * time in the kernels' order) against the CPU backend, and the plans that split the work
 * (src/cuda/stats_plan.h).
 *
 * Every computable real dtype, lines of several lengths, random values with NaN, infinities,
 * huge and tiny ones among them. Scans must give the CPU's bits (the same order); the reductions
 * and softmax agree to a few units in the last place of the result dtype (another order of the
 * float64 sums; the host's libm exp against the CPU's SLEEF). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/stats_ops.h"
#include "core/stats.h"
#include "cpu_test_util.h"
#include "cuda/stats_plan.h"

void cxx_stat_line(int kind, double param, int dtype, const void *src, int64_t n, int dst_dtype,
                   void *dst);
void cxx_scan_line(int prod, int dtype, const void *src, int64_t n, int dst_dtype, void *dst);
void cxx_softmax_line(int log_result, int dtype, const void *src, int64_t n, int dst_dtype,
                      void *dst);

static const dlx_dtype dtypes[] = {DLX_BOOL,     DLX_INT8,    DLX_INT16,  DLX_INT32,  DLX_INT64,
                                   DLX_UINT8,    DLX_UINT16,  DLX_UINT32, DLX_UINT64, DLX_FLOAT16,
                                   DLX_BFLOAT16, DLX_FLOAT32, DLX_FLOAT64};
#define NDTYPES (sizeof dtypes / sizeof dtypes[0])

/* A value for element i: mostly moderate, sometimes an edge when `edges`. */
static double random_value(int edges) {
  static const double specials[] = {NAN, INFINITY, -INFINITY, 1e300, -1e300, 1e-310, 0.0, -0.0};
  if (edges && rnd_below(16) == 0) return specials[rnd_below(8)];
  return (rnd_unit() - 0.5) * (double)(1 << rnd_below(12));
}

/* n elements of dtype: random bits for integers, random values (cast as the CPU casts) for
 * floats. */
static dlx_tensor random_line(dlx_dtype dtype, int64_t n, int edges) {
  dlx_tensor t = cpu_vector(dtype, n);
  if (dlx_dtype_kind(dtype) == DLX_KIND_FLOAT) {
    dlx_tensor wide = cpu_vector(DLX_FLOAT64, n);
    double *p = wide.buffer->data;
    for (int64_t i = 0; i < n; i++) p[i] = random_value(edges);
    dlx_cpu_backend.copy(&t, &wide, NULL);
    dlx_tensor_close(&wide);
  } else {
    unsigned char *p = t.buffer->data;
    for (int64_t i = 0; i < n * dlx_itemsize(dtype); i++)
      p[i] = dtype == DLX_BOOL ? (unsigned char)(rnd() & 1) : (unsigned char)rnd();
  }
  return t;
}

static double as_double(const void *p, dlx_dtype dtype) {
  dlx_tensor src = cpu_vector(dtype, 1), dst = cpu_vector(DLX_FLOAT64, 1);
  double v;
  memcpy(src.buffer->data, p, (size_t)dlx_itemsize(dtype));
  dlx_cpu_backend.copy(&dst, &src, NULL);
  memcpy(&v, dst.buffer->data, sizeof v);
  dlx_tensor_close(&src);
  dlx_tensor_close(&dst);
  return v;
}

/* Relative tolerance of results of dtype: a few units in its last place. */
static double tolerance(dlx_dtype dtype) {
  switch (dtype) {
  case DLX_FLOAT16:
    return 0x1p-9;
  case DLX_BFLOAT16:
    return 0x1p-6;
  case DLX_FLOAT32:
    return 0x1p-21;
  default:
    return 1e-12;
  }
}

/* Element-by-element comparison of n results (exact when tol is 0); NaN matches NaN. */
static int same_values(const char *got, const char *want, int64_t n, dlx_dtype dtype, double tol) {
  int64_t size = dlx_itemsize(dtype);
  for (int64_t i = 0; i < n; i++) {
    double g = as_double(got + i * size, dtype), w = as_double(want + i * size, dtype);
    if (memcmp(got + i * size, want + i * size, (size_t)size) == 0) continue;
    if (isnan(g) && isnan(w)) continue;
    if (tol > 0 && isfinite(w) && fabs(g - w) <= tol * fmax(1.0, fabs(w))) continue;
    fprintf(stderr, "  element %" PRId64 ": got %.17g, want %.17g\n", i, g, w);
    return 0;
  }
  return 1;
}

static int stat_kind(dlx_stat_op op, double p) {
  if (op != DLX_STAT_NORM) return (int)op; /* var, std, logsumexp: DLX_STAT_K_* in order */
  return p == 1 ? DLX_STAT_K_NORM1 : p == 2 ? DLX_STAT_K_NORM2 : DLX_STAT_K_NORMINF;
}

static void check_stats(dlx_dtype dtype, int64_t n, int edges) {
  static const struct {
    dlx_stat_op op;
    double param;
  } cases[] = {{DLX_STAT_VAR, 1},   {DLX_STAT_VAR, 0},        {DLX_STAT_STD, 1.5},
               {DLX_STAT_STD, 1e9}, {DLX_STAT_LOGSUMEXP, 0},  {DLX_STAT_NORM, 1},
               {DLX_STAT_NORM, 2},  {DLX_STAT_NORM, INFINITY}};
  dlx_tensor src = random_line(dtype, n, edges);
  dlx_dtype out;
  dlx_stat_dtype("var", dtype, &out, NULL);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    dlx_tensor want = cpu_vector(out, 1), got = cpu_vector(out, 1);
    dlx_error err;
    CHECK(dlx_cpu_backend.reduce_stat(cases[c].op, cases[c].param, &src, 1, &want, &err) == 0);
    cxx_stat_line(stat_kind(cases[c].op, cases[c].param), cases[c].param, (int)dtype,
                  src.buffer->data, n, (int)out, got.buffer->data);
    if (!same_values(got.buffer->data, want.buffer->data, 1, out, tolerance(out)))
      fprintf(stderr, "  %s (param %g) of %" PRId64 " %s\n", dlx_stat_name(cases[c].op),
              cases[c].param, n, dlx_dtype_info_of(dtype)->name);
    CHECK(same_values(got.buffer->data, want.buffer->data, 1, out, tolerance(out)));
    dlx_tensor_close(&want);
    dlx_tensor_close(&got);
  }
  dlx_tensor_close(&src);
}

static void check_along(dlx_dtype dtype, int64_t n, int edges) {
  dlx_tensor src = random_line(dtype, n, edges);
  for (int op = DLX_DIM_CUMSUM; op <= DLX_DIM_LOG_SOFTMAX; op++) {
    int scan = op == DLX_DIM_CUMSUM || op == DLX_DIM_CUMPROD;
    dlx_dtype out;
    dlx_error err;
    if (scan)
      dlx_reduce_dtype(DLX_REDUCE_SUM, dtype, &out, NULL);
    else
      dlx_stat_dtype("softmax", dtype, &out, NULL);
    dlx_tensor want = cpu_vector(out, n), got = cpu_vector(out, n);
    CHECK(dlx_cpu_backend.along_dim((dlx_dim_op)op, &src, 0, &want, &err) == 0);
    if (scan)
      cxx_scan_line(op == DLX_DIM_CUMPROD, (int)dtype, src.buffer->data, n, (int)out,
                    got.buffer->data);
    else
      cxx_softmax_line(op == DLX_DIM_LOG_SOFTMAX, (int)dtype, src.buffer->data, n, (int)out,
                       got.buffer->data);
    int same = same_values(got.buffer->data, want.buffer->data, n, out, scan ? 0 : tolerance(out));
    if (!same)
      fprintf(stderr, "  %s of %" PRId64 " %s\n", dlx_dim_op_name((dlx_dim_op)op), n,
              dlx_dtype_info_of(dtype)->name);
    CHECK(same);
    dlx_tensor_close(&want);
    dlx_tensor_close(&got);
  }
  dlx_tensor_close(&src);
}

/* The plans cover every element once, within CUDA's grid limits. */
static void check_plans(void) {
  static const int64_t sizes[] = {
      1, 2, 3, 63, 64, 255, 256, 1000, 1024, 1025, 4096, 70000, INT64_C(1) << 31, INT64_C(1) << 40};
  size_t count = sizeof sizes / sizeof sizes[0];
  for (size_t a = 0; a < count; a++)
    for (size_t b = 0; b < count; b++)
      for (size_t c = 0; c < count; c++) {
        int64_t outer = sizes[a], extent = sizes[b], inner = sizes[c];
        if (outer > (INT64_C(1) << 40) / inner || outer * inner > (INT64_C(1) << 40) / extent)
          continue; /* more elements than memory holds */
        dlx_cuda_stat_plan plan = dlx_cuda_plan_stat(outer, extent, inner);
        CHECK(plan.parts >= 1 && plan.parts <= 65535);
        CHECK(plan.parts * plan.part_len >= extent);
        CHECK(plan.parts == 1 || (plan.parts - 1) * plan.part_len < extent); /* none empty */
        CHECK(plan.parts == 1 ||
              outer * inner * plan.parts <= 4 * DLX_CUDA_BUSY_BLOCKS * DLX_CUDA_STAT_THREADS);
        CHECK((plan.mode == DLX_CUDA_STAT_COLUMNS) == (inner > 1));
        CHECK(plan.mode != DLX_CUDA_STAT_WARP_ROWS ||
              (plan.parts == 1 && extent <= DLX_CUDA_STAT_WARP_EXTENT));
        int line = dlx_cuda_plan_line(outer, extent, inner);
        CHECK(line != DLX_CUDA_LINE_BLOCK || inner == 1);
        CHECK(line == DLX_CUDA_LINE_THREAD || extent >= DLX_CUDA_LONG_LINE);
      }
  /* an empty reduced extent: one part, nothing in it */
  dlx_cuda_stat_plan empty = dlx_cuda_plan_stat(2, 0, 1);
  CHECK(empty.parts == 1 && empty.part_len == 0);
  CHECK(dlx_cuda_plan_stat(1, 1 << 20, 1).parts == 256);
  CHECK_EQ_INT(dlx_cuda_plan_line(1, 1 << 20, 2), DLX_CUDA_LINE_TRANSPOSE);
}

int main(void) {
  static const int64_t lengths[] = {1, 2, 7, 256, 300, 1000, 5000};
  rnd_seed("cuda_stats_rules", UINT64_C(0x9E3779B97F4A7C15));
  check_plans();
  for (size_t d = 0; d < NDTYPES; d++)
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++)
      for (int edges = 0; edges < 2; edges++) {
        check_stats(dtypes[d], lengths[k], edges);
        check_along(dtypes[d], lengths[k], edges);
      }
  return check_report("cuda_stats_rules");
}
