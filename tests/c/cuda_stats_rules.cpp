// cuda_stats_rules.cpp -- the CUDA kernels' per-element code for the statistics and the ops along
// a dim (src/cuda/stats_element.h over src/common/stats_ops.h), compiled as host C++ for
// cuda_stats_rules.c: one line at a time, the steps in the order a kernel takes them.
#include "cuda/kernels.h"
#include "cuda/stats_element.h"

namespace {
const int kThreads = DLX_CUDA_STAT_THREADS;
}

// A block's reduction of a row: thread t's share (elements t, t + kThreads, ...) in order, then
// the shares merged.
extern "C" void cxx_stat_line(int kind, double param, int dtype, const void *src, int64_t n,
                              int dst_dtype, void *dst) {
  const char *in = static_cast<const char *>(src);
  int size = dlx_cuda_itemsize(dtype);
  dlx_stat_acc total = dlx_stat_empty(kind);
  for (int t = 0; t < kThreads; t++) {
    dlx_stat_acc share = dlx_stat_empty(kind);
    for (int64_t r = t; r < n; r += kThreads)
      share =
          dlx_stat_merge(kind, share, dlx_stat_one(kind, dlx_cuda_stat_load(dtype, in + r * size)));
    total = dlx_stat_merge(kind, total, share);
  }
  dlx_cuda_stat_store(kind, param, dst_dtype, static_cast<char *>(dst), total);
}

// A scan of one line in order (cumprod when prod).
extern "C" void cxx_scan_line(int prod, int dtype, const void *src, int64_t n, int dst_dtype,
                              void *dst) {
  const char *in = static_cast<const char *>(src);
  char *out = static_cast<char *>(dst);
  int size = dlx_cuda_itemsize(dtype), out_size = dlx_cuda_itemsize(dst_dtype);
  uint64_t u = prod ? 1 : 0;
  double d = prod ? 1.0 : 0.0;
  for (int64_t i = 0; i < n; i++) {
    if (dlx_cuda_scan_is_float(dtype)) {
      double x = dlx_cuda_stat_load(dtype, in + i * size);
      d = prod ? d * x : d + x;
      dlx_cuda_scan_store_d(dst_dtype, out + i * out_size, d);
    } else {
      uint64_t x = dlx_cuda_scan_load_u(dtype, in + i * size);
      u = prod ? u * x : u + x;
      dlx_cuda_scan_store_u(dst_dtype, out + i * out_size, u);
    }
  }
}

// Softmax (log_softmax when log_result) of one line, as a thread of the kernel takes it.
extern "C" void cxx_softmax_line(int log_result, int dtype, const void *src, int64_t n,
                                 int dst_dtype, void *dst) {
  const char *in = static_cast<const char *>(src);
  char *out = static_cast<char *>(dst);
  int size = dlx_cuda_itemsize(dtype), out_size = dlx_cuda_itemsize(dst_dtype);
  int f64 = dst_dtype == DLX_CUDA_FLOAT64;
  double max = -(double)INFINITY, sum = 0;
  for (int64_t i = 0; i < n; i++)
    max = dlx_cuda_softmax_max(max, dlx_cuda_softmax_load(f64, dtype, in + i * size));
  for (int64_t i = 0; i < n; i++)
    sum += dlx_cuda_softmax_exp(f64, dlx_cuda_softmax_load(f64, dtype, in + i * size), max);
  for (int64_t i = 0; i < n; i++)
    dlx_cuda_softmax_store(f64, log_result, dst_dtype, out + i * out_size,
                           dlx_cuda_softmax_load(f64, dtype, in + i * size), max, sum);
}
