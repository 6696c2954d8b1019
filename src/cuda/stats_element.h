/* stats_element.h -- one element of the CUDA kernels of the statistics and of the ops along a dim
 * (stats_kernels.cu): elements loaded and results stored with the casting rules of every backend
 * (cast_element.h), the partials of var, std, logsumexp and norm from src/common/stats_ops.h,
 * and the steps of the scans and of softmax, as the CPU (src/cpu/along_dim.c, softmax.c) takes
 * them:
 * - scans accumulate integers in 64 bits (wrapping, as uint64) and floats in float64, each result
 *   rounded once to dst's dtype;
 * - softmax computes in float64 for a float64 result, else in float32 (the element cast to it),
 *   exp(x - max) in that dtype, its sum in float64; a NaN or +inf (inf - inf), or a line of only
 *   -inf, makes the sum, and so the whole line, NaN.
 *
 * CUDA C++, host and device: tests/c/cuda_stats_rules.cpp compiles this header with the host C++
 * compiler and checks it against the CPU backend, since a GPU is not always at hand. */
#ifndef DLX_CUDA_STATS_ELEMENT_H
#define DLX_CUDA_STATS_ELEMENT_H

#include "common/stats_ops.h"
#include "cuda/cast_element.h"

/* ---- var, std, logsumexp, norm */

/* The element at p (of a computable real dtype) as float64, as the CPU converts it. */
DLX_SHARED double dlx_cuda_stat_load(int dtype, const char *p) {
  double v = 0; /* (every computable dtype writes it) */
  dlx_cuda_cast_element(DLX_CUDA_FLOAT64, (char *)&v, dtype, p);
  return v;
}

/* The result of the partial over all the reduced elements, stored at p as dtype. */
DLX_SHARED void dlx_cuda_stat_store(int kind, double param, int dtype, char *p, dlx_stat_acc a) {
  dlx_cuda_store_from_d(dtype, p, dlx_stat_result(kind, a, param));
}

/* ---- cumsum and cumprod */

/* The element at p as the integer scans' accumulator: its value modulo 2^64. */
DLX_SHARED uint64_t dlx_cuda_scan_load_u(int dtype, const char *p) {
  uint64_t v = 0;
  dlx_cuda_cast_element(DLX_CUDA_UINT64, (char *)&v, dtype, p);
  return v;
}

DLX_SHARED void dlx_cuda_scan_store_u(int dtype, char *p, uint64_t v) {
  dlx_cuda_store_from_u(dtype, p, v);
}

DLX_SHARED void dlx_cuda_scan_store_d(int dtype, char *p, double v) {
  dlx_cuda_store_from_d(dtype, p, v);
}

/* Whether a scan of src_dtype accumulates in float64 (else in 64-bit integers). */
DLX_SHARED int dlx_cuda_scan_is_float(int src_dtype) {
  return src_dtype >= DLX_CUDA_FLOAT16 && src_dtype <= DLX_CUDA_FLOAT64;
}

/* ---- softmax and log_softmax; f64: the compute dtype is float64 (else float32) */

/* The element at p in the compute dtype, held in a double (exactly). */
DLX_SHARED double dlx_cuda_softmax_load(int f64, int dtype, const char *p) {
  float x = 0;
  if (f64) return dlx_cuda_stat_load(dtype, p);
  dlx_cuda_cast_element(DLX_CUDA_FLOAT32, (char *)&x, dtype, p);
  return (double)x;
}

/* The running max of a line: NaN is passed over here (it makes the sum NaN). */
DLX_SHARED double dlx_cuda_softmax_max(double m, double x) { return x > m ? x : m; }

/* exp(x - max) in the compute dtype. */
DLX_SHARED double dlx_cuda_softmax_exp(int f64, double x, double max) {
  if (f64) return exp(x - max);
  return (double)expf((float)x - (float)max);
}

/* The result for element x of a line with this max and sum of exponentials, stored at p. */
DLX_SHARED void dlx_cuda_softmax_store(int f64, int log_result, int dtype, char *p, double x,
                                       double max, double sum) {
  if (f64) {
    double y = log_result ? (x - max) - log(sum) : exp(x - max) / sum;
    dlx_cuda_store_from_d(dtype, p, y);
  } else {
    float y = log_result ? ((float)x - (float)max) - (float)log(sum)
                         : (float)dlx_cuda_softmax_exp(0, x, max) / (float)sum;
    dlx_cuda_store_from_f(dtype, p, y);
  }
}

#endif
