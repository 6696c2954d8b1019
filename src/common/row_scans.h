/* row_scans.h -- the steps of the scans of the backend entry row_op (src/core/backend.h):
 * cummax and cummin, which carry the running extreme's position along a row, and logcumsumexp,
 * which carries log(sum(exp)). One definition for the CPU, the OpenCL C kernels of Level Zero and
 * the CUDA kernels, so every backend follows PyTorch's tie and NaN rules the same way.
 *
 * cummax and cummin compare src/common/sort_keys.h's keys (-0.0 equals 0.0, NaN the largest): a
 * NaN takes over and stays (each later NaN moving the position to it), and a tie moves the
 * position to the latest equal element. As a combination of (key, position) pairs this is the
 * larger under the order (NaN, key, position) (cummin: (NaN, -key, position)), so it is
 * associative: a parallel scan gives the sequential one's positions, and so its bits. */
#ifndef DLX_COMMON_ROW_SCANS_H
#define DLX_COMMON_ROW_SCANS_H

#include "common/portable.h"

#if !defined(__OPENCL_C_VERSION__)
#include <math.h>
#endif

/* Whether the element of key x (x_nan: a NaN) takes the running extreme over from best. */
DLX_SHARED int dlx_scan_takes_over(int max, uint64_t x, int x_nan, uint64_t best, int best_nan) {
  if (x_nan) return 1;
  if (best_nan) return 0;
  return max ? x >= best : x <= best;
}

/* The pair of a scan of (key, position) pairs that an earlier pair a and a later pair b combine
 * to (a's position below b's). */
typedef struct dlx_scan_pair {
  uint64_t key;
  int64_t at;
  int nan;
} dlx_scan_pair;

DLX_SHARED dlx_scan_pair dlx_scan_combine(int max, dlx_scan_pair a, dlx_scan_pair b) {
  return dlx_scan_takes_over(max, b.key, b.nan, a.key, a.nan) ? b : a;
}

/* log(exp(a) + exp(b)) without overflow; NaN stays NaN, -inf is the identity, +inf wins. */
DLX_SHARED double dlx_log_add_exp(double a, double b) {
  double hi = a > b ? a : b, lo = a > b ? b : a;
  if (a != a || b != b) return (double)NAN;
  if (lo == -(double)INFINITY || hi == (double)INFINITY) return hi;
  return hi + log1p(exp(lo - hi));
}

#endif
