/* distributions.h -- dlx's random distributions beyond uniforms, normals and integers, one element
 * at a time from philox.h's blocks (Bernoulli, exponential, Cauchy, log-normal, geometric,
 * Poisson), and multinomial sampling a row at a time. Shared by the CPU (src/cpu/random.c,
 * random_multinomial.c), the Level Zero kernels (src/ze/kernels/random.cl) and the CUDA kernels
 * (src/cuda/random_kernels.cu), in the subset of C11, OpenCL C 1.2 and CUDA C++ that portable.h
 * names, with +, -, *, /, sqrt and exact integer conversions only (no libm: e^x is written out
 * here, ln x in philox.h), so that a seed gives the same bits on every device
 * (docs/lua-api.md, "Random numbers").
 *
 * An element of a request takes a lane of a block as philox.h lays them out: one word (L = 4
 * elements a block) or two (wide, L = 2). POISSON alone takes a whole counter per element: the
 * blocks {lo(counter), hi(counter), t, 0} of its tries t = 0, 1, ... */
#ifndef DLX_COMMON_DISTRIBUTIONS_H
#define DLX_COMMON_DISTRIBUTIONS_H

#include "common/philox.h"

/* Where the multinomial rows live: global memory in OpenCL C, anywhere elsewhere. */
#if defined(__OPENCL_C_VERSION__)
#define DLX_RNG_GLOBAL __global
#else
#define DLX_RNG_GLOBAL
#endif

/* ---- building blocks */

/* An open uniform in (0, 1): (2k + 1) 2^-(w + 1), k the lane's word (w = 32) or the top 52 bits
 * of its two words (w = 52, wide). Never 0 or 1, exact in float64, symmetric about 1/2. */
DLX_SHARED double dlx_rng_open_unit(dlx_philox_block b, int lane, int wide) {
  if (wide) return (double)((dlx_rng_u64(b, lane) >> 12) * 2 + 1) * dlx_rng_pow2_neg(53);
  return (double)((uint64_t)b.w[lane] * 2 + 1) * dlx_rng_pow2_neg(33);
}

/* 2^k as a double, for -1022 <= k <= 1023. */
DLX_SHARED double dlx_rng_pow2(int64_t k) {
  return dlx_rng_bits_double((uint64_t)(k + 1023) << 52);
}

/* e^x with +, -, *, / only: x = k ln 2 + r, k the nearest integer to x / ln 2 and r by Cody and
 * Waite's two-part ln 2 (k ln2_hi is exact), |r| <= 0.35; e^r by its Taylor series to r^14
 * (error < 1e-17); then 2^k goes into the exponent, in two steps where the result is subnormal
 * (the first exact, so it rounds once). NaN stays NaN; x > 709.78 gives +inf, x < -745.14 0. */
DLX_SHARED double dlx_rng_exp(double x) {
  double t, kd, r, p;
  int64_t k;
  if (x != x) return x;
  if (x > 709.782712893384) return dlx_rng_bits_double(UINT64_C(0x7ff0000000000000));
  if (x < -745.1332191019412) return 0.0;
  t = x * 1.4426950408889634;
  k = (int64_t)(t < 0 ? t - 0.5 : t + 0.5);
  kd = (double)k;
  r = (x - kd * 6.93147180369123816490e-01) - kd * 1.90821492927058770002e-10;
  p = 1.0 / 87178291200.0; /* 1/14! */
  p = 1.0 / 6227020800.0 + r * p;
  p = 1.0 / 479001600.0 + r * p;
  p = 1.0 / 39916800.0 + r * p;
  p = 1.0 / 3628800.0 + r * p;
  p = 1.0 / 362880.0 + r * p;
  p = 1.0 / 40320.0 + r * p;
  p = 1.0 / 5040.0 + r * p;
  p = 1.0 / 720.0 + r * p;
  p = 1.0 / 120.0 + r * p;
  p = 1.0 / 24.0 + r * p;
  p = 1.0 / 6.0 + r * p;
  p = 0.5 + r * p;
  p = 1.0 + r * p;
  p = 1.0 + r * p;
  if (k > 1023) return p * dlx_rng_pow2(1023) * dlx_rng_pow2(k - 1023);
  if (k < -1022) return p * dlx_rng_pow2(k + 54) * dlx_rng_pow2(-54);
  return p * dlx_rng_pow2(k);
}

/* The smallest integer >= x, and at least 1, for x >= 0 (x itself from 2^52 on, where every
 * double is an integer). */
DLX_SHARED double dlx_rng_ceil_positive(double x) {
  double k;
  if (!(x < 4503599627370496.0)) return x;
  k = (double)(int64_t)x;
  if (k < x) k += 1.0;
  return k < 1.0 ? 1.0 : k;
}

/* ---- the element-wise kinds */

/* The value of lane `lane` of block blk for a real kind (every kind but INT and POISSON), given
 * the element's parameters a and b (philox.h's list says what each kind makes of them); bits is
 * the dtype's significand (UNIFORM's grid) and wide whether elements take two words (L = 2).
 * Computed in float64; the caller rounds it once to the dtype. u is dlx_rng_unit's, v
 * dlx_rng_open_unit's, z dlx_rng_normal's:
 * - BERNOULLI: u of 53 bits (always wide) < a, as 1 or 0;
 * - EXPONENTIAL: -ln(v) / a;
 * - CAUCHY: a + b tan(pi (v - 1/2)) = a + b (-cos t / sin t), t = pi v = 2 pi (2k + 1) /
 *   2^(w + 2), from dlx_rng_sincos_pair;
 * - LOG_NORMAL: e^(a + b z);
 * - GEOMETRIC: ceil(ln(v) / a), at least 1, with a = ln(1 - p) < 0 (-inf for p = 1). */
DLX_SHARED double dlx_rng_draw(int kind, dlx_philox_block blk, int lane, int bits, int wide,
                               double a, double b) {
  double s, c;
  uint64_t k;
  switch (kind) {
  case DLX_RNG_BERNOULLI:
    return dlx_rng_unit(blk, lane, 53) < a ? 1.0 : 0.0;
  case DLX_RNG_EXPONENTIAL:
    return -dlx_rng_log(dlx_rng_open_unit(blk, lane, wide)) / a;
  case DLX_RNG_CAUCHY:
    k = wide ? dlx_rng_u64(blk, lane) >> 12 : (uint64_t)blk.w[lane];
    dlx_rng_sincos_pair(2 * k + 1, wide ? 54 : 34, &s, &c);
    return a + b * (-c / s);
  case DLX_RNG_LOG_NORMAL:
    return dlx_rng_exp(a + b * dlx_rng_normal(blk, lane, wide));
  case DLX_RNG_GEOMETRIC:
    return dlx_rng_ceil_positive(dlx_rng_log(dlx_rng_open_unit(blk, lane, wide)) / a);
  default: /* UNIFORM, NORMAL */
    return dlx_rng_real(kind, blk, lane, bits, a, b);
  }
}

/* ---- Poisson */

/* The most tries of the rejection sampler: each is accepted with probability above 0.85, so all
 * of them fail with probability below 1e-800. */
#define DLX_RNG_POISSON_TRIES 1000

/* Try t's block of a counter: Philox of {lo(counter), hi(counter), t, 0}. */
DLX_SHARED dlx_philox_block dlx_philox_try(uint64_t seed, uint64_t counter, uint32_t t) {
  return dlx_philox4x32_10((uint32_t)counter, (uint32_t)(counter >> 32), t, 0, (uint32_t)seed,
                           (uint32_t)(seed >> 32));
}

/* ln((x - 1)!) for an integer x >= 1: NumPy's random_loggam (Stirling's series from 7 on). */
DLX_SHARED double dlx_rng_loggam(double x) {
  double x0, x2, gl, gl0;
  int64_t n = 0;
  if (x == 1.0 || x == 2.0) return 0.0;
  if (x < 7.0) n = (int64_t)(7 - x);
  x0 = x + (double)n;
  x2 = (1.0 / x0) * (1.0 / x0);
  gl0 = -1.39243221690590e+00;
  gl0 = gl0 * x2 + 1.796443723688307e-01;
  gl0 = gl0 * x2 + -2.955065359477124e-02;
  gl0 = gl0 * x2 + 6.410256410256410e-03;
  gl0 = gl0 * x2 + -1.917526917526918e-03;
  gl0 = gl0 * x2 + 8.417508417508418e-04;
  gl0 = gl0 * x2 + -5.952380952380952e-04;
  gl0 = gl0 * x2 + 7.936507936507937e-04;
  gl0 = gl0 * x2 + -2.777777777777778e-03;
  gl0 = gl0 * x2 + 8.333333333333333e-02;
  gl = gl0 / x0 + 0.5 * 1.8378770664093453 + (x0 - 0.5) * dlx_rng_log(x0) - x0;
  for (int64_t k = 1; k <= n; k++) {
    gl -= dlx_rng_log(x0 - 1.0);
    x0 -= 1.0;
  }
  return gl;
}

/* A Poisson count of mean lam (0 <= lam < 2^52), element `counter` of a request:
 * - lam < 10: inversion of one uniform u (53 bits of try 0's words 0 and 1): the first k with
 *   u < P(X <= k), the terms e^-lam lam^k / k! summed in order (stopping where they no longer
 *   change the sum);
 * - lam >= 10: Hörmann's transformed rejection (PTRS, "The transformed rejection method for
 *   generating Poisson random variables", 1993) as NumPy's random_poisson_ptrs writes it, try t
 *   taking u (53 bits, words 0 and 1) and the open v (words 2 and 3) of its block; after
 *   DLX_RNG_POISSON_TRIES rejections (never seen) it gives lam rounded. */
DLX_SHARED double dlx_rng_poisson(uint64_t seed, uint64_t counter, double lam) {
  double slam, loglam, b, a, invalpha, vr, lia;
  if (lam < 10) {
    dlx_philox_block blk = dlx_philox_try(seed, counter, 0);
    double u = dlx_rng_unit(blk, 0, 53), p = dlx_rng_exp(-lam), f = p, k = 0;
    while (u >= f) {
      k += 1;
      p = p * lam / k;
      if (f + p == f) break;
      f += p;
    }
    return k;
  }
  slam = sqrt(lam);
  loglam = dlx_rng_log(lam);
  b = 0.931 + 2.53 * slam;
  a = -0.059 + 0.02483 * b;
  invalpha = 1.1239 + 1.1328 / (b - 3.4);
  vr = 0.9277 - 3.6224 / (b - 2);
  lia = dlx_rng_log(invalpha);
  for (uint32_t t = 0; t < DLX_RNG_POISSON_TRIES; t++) {
    dlx_philox_block blk = dlx_philox_try(seed, counter, t);
    double u = dlx_rng_unit(blk, 0, 53) - 0.5, v = dlx_rng_open_unit(blk, 1, 1);
    double us = 0.5 - (u < 0 ? -u : u), x, k;
    if (us == 0) continue; /* u = -1/2: the sampler's pole */
    x = (2 * a / us + b) * u + lam + 0.43;
    if (!(x >= 0 && x < 9007199254740992.0)) continue; /* k < 0, or past 2^53: rejected */
    k = (double)(int64_t)x;
    if (us >= 0.07 && v <= vr) return k;
    if (us < 0.013 && v > us) continue;
    if (dlx_rng_log(v) + lia - dlx_rng_log(a / (us * us) + b) <=
        -lam + k * loglam - dlx_rng_loggam(k + 1))
      return k;
  }
  return (double)(int64_t)(lam + 0.5);
}

/* ---- multinomial, a row at a time
 *
 * A row holds k weights, float32 (w32) or float64 (w64; is64 says which is read), 0-based
 * positions first .. first + k - 1 of the request's C-contiguous [rows, k] weights. */

/* A row's state (the request's status): what makes it unusable. */
#define DLX_MN_OK 0
#define DLX_MN_BAD_WEIGHT 1 /* a negative, infinite or NaN weight */
#define DLX_MN_ZERO_SUM 2   /* no weight above 0 */
#define DLX_MN_INF_SUM 3    /* the weights' sum overflows */
#define DLX_MN_TOO_FEW 4    /* without replacement: fewer weights above 0 than draws */

DLX_SHARED double dlx_mn_weight(DLX_RNG_GLOBAL const float *w32, DLX_RNG_GLOBAL const double *w64,
                                int is64, int64_t j) {
  return is64 ? w64[j] : (double)w32[j];
}

/* The state of a row for n draws. */
DLX_SHARED int dlx_mn_check(DLX_RNG_GLOBAL const float *w32, DLX_RNG_GLOBAL const double *w64,
                            int is64, int64_t first, int64_t k, int64_t n, int replacement) {
  double total = 0;
  int64_t positive = 0;
  for (int64_t j = 0; j < k; j++) {
    double w = dlx_mn_weight(w32, w64, is64, first + j);
    if (!(w >= 0 && w <= 1.7976931348623157e308)) return DLX_MN_BAD_WEIGHT;
    total += w;
    positive += w > 0;
  }
  if (positive == 0) return DLX_MN_ZERO_SUM;
  if (!(total <= 1.7976931348623157e308)) return DLX_MN_INF_SUM;
  return !replacement && positive < n ? DLX_MN_TOO_FEW : DLX_MN_OK;
}

/* Without replacement (the exponential race, as PyTorch's): weight w > 0 at position e of the
 * weights (row-major over [rows, k]) gets the key w / E, E = -ln v, v the wide open uniform of
 * lane e % 2 of block offset + e / 2 (the bits of a float64 exponential_ of the same shape);
 * the n largest keys are the draws, largest first, equal keys in position order. */
DLX_SHARED double dlx_mn_key(uint64_t seed, uint64_t offset, int64_t e, double w) {
  dlx_philox_block b = dlx_philox_at(seed, offset + (uint64_t)e / 2);
  return w / -dlx_rng_log(dlx_rng_open_unit(b, (int)(e % 2), 1));
}

/* Whether pair (ka, pa) ranks below (kb, pb): a smaller key, or the same key further on. */
DLX_SHARED int dlx_mn_below(double ka, int64_t pa, double kb, int64_t pb) {
  return ka < kb || (ka == kb && pa > pb);
}

/* A heap of (key, position) pairs whose root ranks lowest: moves pair i down to its place. */
DLX_SHARED void dlx_mn_sift_down(DLX_RNG_GLOBAL double *keys, DLX_RNG_GLOBAL int64_t *pos,
                                 int64_t size, int64_t i) {
  double key = keys[i];
  int64_t p = pos[i];
  for (;;) {
    int64_t c = 2 * i + 1;
    if (c >= size) break;
    if (c + 1 < size && dlx_mn_below(keys[c + 1], pos[c + 1], keys[c], pos[c])) c++;
    if (!dlx_mn_below(keys[c], pos[c], key, p)) break;
    keys[i] = keys[c];
    pos[i] = pos[c];
    i = c;
  }
  keys[i] = key;
  pos[i] = p;
}

/* Offers (key, j) to the heap of *size pairs that keeps the cap (>= 1) highest seen. */
DLX_SHARED void dlx_mn_offer(DLX_RNG_GLOBAL double *keys, DLX_RNG_GLOBAL int64_t *pos,
                             int64_t *size, int64_t cap, double key, int64_t j) {
  if (*size < cap) {
    int64_t i = (*size)++;
    while (i > 0) {
      int64_t parent = (i - 1) / 2;
      if (!dlx_mn_below(key, j, keys[parent], pos[parent])) break;
      keys[i] = keys[parent];
      pos[i] = pos[parent];
      i = parent;
    }
    keys[i] = key;
    pos[i] = j;
  } else if (dlx_mn_below(keys[0], pos[0], key, j)) {
    keys[0] = key;
    pos[0] = j;
    dlx_mn_sift_down(keys, pos, *size, 0);
  }
}

/* Sorts the heap's pairs highest first (heapsort) and makes the positions 1-based. */
DLX_SHARED void dlx_mn_sort(DLX_RNG_GLOBAL double *keys, DLX_RNG_GLOBAL int64_t *pos,
                            int64_t size) {
  for (int64_t end = size - 1; end > 0; end--) {
    double key = keys[0];
    int64_t p = pos[0];
    keys[0] = keys[end];
    pos[0] = pos[end];
    keys[end] = key;
    pos[end] = p;
    dlx_mn_sift_down(keys, pos, end, 0);
  }
  for (int64_t i = 0; i < size; i++) pos[i] += 1;
}

/* With replacement: cdf[j] = the row's weights 0 .. j summed in order; returns the last position
 * whose weight is above 0. */
DLX_SHARED int64_t dlx_mn_cdf(DLX_RNG_GLOBAL const float *w32, DLX_RNG_GLOBAL const double *w64,
                              int is64, int64_t first, int64_t k, DLX_RNG_GLOBAL double *cdf) {
  double total = 0;
  int64_t last = 0;
  for (int64_t j = 0; j < k; j++) {
    double w = dlx_mn_weight(w32, w64, is64, first + j);
    total += w;
    cdf[j] = total;
    if (w > 0) last = j;
  }
  return last;
}

/* Draw e (row-major over the [rows, n] result) with replacement: u of 53 bits from lane e % 2 of
 * block offset + e / 2, and the first position j whose cdf[j] > u cdf[k - 1] (the count of
 * cdf's values <= it: cdf never decreases), or `last` where rounding leaves none; 0-based. The
 * search halves its range without branches on the values. */
DLX_SHARED int64_t dlx_mn_search(DLX_RNG_GLOBAL const double *cdf, int64_t k, int64_t last,
                                 double u) {
  double x = u * cdf[k - 1];
  int64_t base = 0, n = k;
  while (n > 1) {
    int64_t step = n / 2;
    base = cdf[base + step] <= x ? base + step : base;
    n -= step;
  }
  base += cdf[base] <= x;
  return base < k ? base : last;
}

DLX_SHARED double dlx_mn_unit(uint64_t seed, uint64_t offset, int64_t e) {
  return dlx_rng_unit(dlx_philox_at(seed, offset + (uint64_t)e / 2), (int)(e % 2), 53);
}

/* Row r of a request of n draws from rows of k weights, as one work-item of the GPU kernels does
 * it: *status = the row's state, and when it is DLX_MN_OK, out[0 .. n) = its draws as 1-based
 * positions. scratch is the row's own: k doubles with replacement (the cdf), n without (the
 * heap's keys, whose positions live in out). */
DLX_SHARED void dlx_mn_row(DLX_RNG_GLOBAL const float *w32, DLX_RNG_GLOBAL const double *w64,
                           int is64, int64_t r, int64_t k, int64_t n, int replacement,
                           uint64_t seed, uint64_t offset, DLX_RNG_GLOBAL int64_t *out,
                           DLX_RNG_GLOBAL int64_t *status, DLX_RNG_GLOBAL double *scratch) {
  int64_t first = r * k, size = 0;
  int state = dlx_mn_check(w32, w64, is64, first, k, n, replacement);
  *status = state;
  if (state != DLX_MN_OK || n == 0) return;
  if (replacement) {
    int64_t last = dlx_mn_cdf(w32, w64, is64, first, k, scratch);
    for (int64_t d = 0; d < n; d++)
      out[d] = dlx_mn_search(scratch, k, last, dlx_mn_unit(seed, offset, r * n + d)) + 1;
    return;
  }
  for (int64_t j = 0; j < k; j++) {
    double w = dlx_mn_weight(w32, w64, is64, first + j);
    if (w > 0) dlx_mn_offer(scratch, out, &size, n, dlx_mn_key(seed, offset, first + j, w), j);
  }
  dlx_mn_sort(scratch, out, size);
}

#endif
