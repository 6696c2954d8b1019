/* stats_ops.h -- the partial results of var, std, logsumexp and norm on GPUs, shared by the Level
 * Zero kernels (OpenCL C), the CUDA kernels (CUDA C++) and their host checks (C and C++).
 *
 * A partial summarises a set of elements, converted to float64; an element is a partial of one,
 * and two partials over disjoint sets merge into one over both. The CPU (src/cpu/reduce_stats.c)
 * summarises blocks the same way:
 * - var: count, mean and sum of squared deviations, merged by Chan's formula (an element at a
 *   time, it is Welford's update), so large means do not cancel the deviations away; an infinite
 *   element makes the result NaN, as the deviation inf - inf does on the CPU;
 * - logsumexp: the max and the sum of exp(x - max), merged by rescaling the smaller side;
 * - norm 2: a sum of squares scaled by 2^-2e, e chosen from the largest magnitude (exact), so
 *   squares neither overflow nor underflow;
 * - norm 1 and inf: the sum and the max of the magnitudes.
 * The merges follow the CPU's NaN and inf rules (src/core/backend.h, reduce_stat). Which
 * partials merge in which order is the kernels' business: they fix it by the sizes alone, so a
 * result never depends on the launch. */
#ifndef DLX_COMMON_STATS_OPS_H
#define DLX_COMMON_STATS_OPS_H

#include "common/portable.h"

#if !defined(__OPENCL_C_VERSION__)
#include <math.h>
#endif

/* Which partial: an op of dlx_stat_op with its p (norm), as the kernels number them. */
#define DLX_STAT_K_VAR 0
#define DLX_STAT_K_STD 1
#define DLX_STAT_K_LSE 2
#define DLX_STAT_K_NORM1 3
#define DLX_STAT_K_NORM2 4
#define DLX_STAT_K_NORMINF 5

/* Every field 64 bits wide: the same layout in OpenCL C, C and CUDA C++. */
typedef struct dlx_stat_acc {
  double m;         /* var: mean; logsumexp: max; norm inf: max magnitude */
  double s;         /* var: sum of squared deviations; logsumexp: sum of exp(x - m); norm 1: sum of
                       magnitudes; norm 2: sum of squares scaled by 2^-2e */
  int64_t n;        /* var: elements; norm 2: 1 when s holds a value */
  int64_t e;        /* norm 2: the scale's exponent */
  int64_t nan, inf; /* a NaN was seen; norm 2: an infinity was seen */
} dlx_stat_acc;

/* The partial of no element. */
DLX_SHARED dlx_stat_acc dlx_stat_empty(int k) {
  dlx_stat_acc a;
  a.m = k == DLX_STAT_K_LSE ? -(double)INFINITY : 0.0;
  a.s = 0.0;
  a.n = 0;
  a.e = 0;
  a.nan = 0;
  a.inf = 0;
  return a;
}

/* 2^k for -1022 <= k <= 1023 (exact). */
DLX_SHARED double dlx_stat_pow2(int64_t k) { return ldexp(1.0, (int)k); }

/* The partial of one element x. */
DLX_SHARED dlx_stat_acc dlx_stat_one(int k, double x) {
  dlx_stat_acc a = dlx_stat_empty(k);
  double mag = fabs(x);
  a.nan = x != x;
  switch (k) {
  case DLX_STAT_K_VAR:
  case DLX_STAT_K_STD:
    a.m = x;
    a.s = (x - x) * (x - x); /* 0, or NaN for inf and NaN */
    a.n = 1;
    break;
  case DLX_STAT_K_LSE:
    if (x == x && x != -(double)INFINITY) {
      a.m = x;
      a.s = 1.0;
    }
    break;
  case DLX_STAT_K_NORM1:
    a.s = mag;
    break;
  case DLX_STAT_K_NORMINF:
    a.m = mag == mag ? mag : 0.0;
    break;
  default: /* norm 2 */
    a.inf = mag == (double)INFINITY;
    if (mag > 0 && mag < (double)INFINITY) {
      int e = ilogb(mag);
      double scaled;
      if (e < -1022) e = -1022; /* 2^-e stays finite for subnormals */
      scaled = x * dlx_stat_pow2(-e);
      a.s = scaled * scaled;
      a.e = e;
      a.n = 1;
    }
    break;
  }
  return a;
}

/* The partial over the elements of a and b. */
DLX_SHARED dlx_stat_acc dlx_stat_merge(int k, dlx_stat_acc a, dlx_stat_acc b) {
  a.nan |= b.nan;
  a.inf |= b.inf;
  switch (k) {
  case DLX_STAT_K_VAR:
  case DLX_STAT_K_STD:
    if (b.n == 0) break;
    if (a.n == 0) return b;
    {
      double na = (double)a.n, nb = (double)b.n, total = na + nb, delta = b.m - a.m;
      a.m += delta * (nb / total);
      a.s += b.s + delta * delta * (na * nb / total);
      a.n += b.n;
    }
    break;
  case DLX_STAT_K_LSE:
    if (a.m == (double)INFINITY || b.m == -(double)INFINITY) break;
    if (b.m == (double)INFINITY || a.m == -(double)INFINITY) {
      a.m = b.m;
      a.s = b.s;
    } else if (b.m > a.m) {
      a.s = a.s * exp(a.m - b.m) + b.s;
      a.m = b.m;
    } else {
      a.s += b.s * exp(b.m - a.m);
    }
    break;
  case DLX_STAT_K_NORM1:
    a.s += b.s;
    break;
  case DLX_STAT_K_NORMINF:
    a.m = b.m > a.m ? b.m : a.m;
    break;
  default: /* norm 2: the smaller scale is brought to the larger one (exact unless negligible) */
    if (b.n == 0) break;
    if (a.n == 0) {
      a.s = b.s;
      a.e = b.e;
      a.n = 1;
    } else if (b.e > a.e) {
      a.s = ldexp(a.s, (int)(2 * (a.e - b.e))) + b.s;
      a.e = b.e;
    } else {
      a.s += ldexp(b.s, (int)(2 * (b.e - a.e)));
    }
    break;
  }
  return a;
}

/* The result of a partial over all the reduced elements; param is var's correction. */
DLX_SHARED double dlx_stat_result(int k, dlx_stat_acc a, double param) {
  switch (k) {
  case DLX_STAT_K_VAR:
  case DLX_STAT_K_STD: {
    double divisor = (double)a.n - param, v;
    if (a.n == 0) return (double)NAN;
    v = a.s / (divisor > 0 ? divisor : 0.0);
    return k == DLX_STAT_K_STD ? sqrt(v) : v;
  }
  case DLX_STAT_K_LSE:
    if (a.nan) return (double)NAN;
    if (a.m == (double)INFINITY || a.m == -(double)INFINITY) return a.m;
    return a.m + log(a.s);
  case DLX_STAT_K_NORM1:
    return a.s;
  case DLX_STAT_K_NORMINF:
    return a.nan ? (double)NAN : a.m;
  default:
    if (a.nan) return (double)NAN;
    if (a.inf) return (double)INFINITY;
    return a.n == 0 ? 0.0 : ldexp(sqrt(a.s), (int)a.e);
  }
}

#endif
