/* philox.h -- dlx's random numbers one element at a time: the Philox4x32-10 generator (Salmon et
 * al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011, as Random123 defines it) and the
 * conversions of its words into uniform floats, normal floats and integers in a range. Shared by
 * the CPU (src/cpu/random.c), the Level Zero kernels (src/ze/kernels/random.cl) and the CUDA
 * kernels (src/cuda/random_kernels.cu), written in the subset of C11, OpenCL C 1.2 and CUDA C++
 * that portable.h names, so that a seed gives the same bits everywhere (docs/lua-api.md, "Random
 * numbers").
 *
 * The layout: a call that fills n elements from a generator (seed, offset) gives element i (in
 * row-major order) lane i % L of the block Philox(key = seed, counter = offset + i / L), where
 * L = 4 when an element takes one 32-bit word and L = 2 when it takes two (float64, and integer
 * ranges wider than 2^32); the generator's offset then moves on by ceil(n / L). Element i thus
 * depends on (seed, offset, i) alone, never on threads, work-groups or the device.
 *
 * Normals use only +, -, *, / and sqrt in float64 (no libm: log and sin/cos are written out
 * below), which IEEE rounds the same on every device as long as no compiler contracts a * b + c
 * into an fma: the CPU file is built with -ffp-contract=off, CUDA with --fmad=false, and OpenCL C
 * is told below. */
#ifndef DLX_COMMON_PHILOX_H
#define DLX_COMMON_PHILOX_H

#include "common/portable.h"

#if defined(__OPENCL_C_VERSION__)
#pragma OPENCL FP_CONTRACT OFF
#else
#include <math.h>
#endif

/* What a request draws (dlx_random_kind in core/backend.h numbers them the same). */
#define DLX_RNG_UNIFORM 0 /* a + (b - a) * u, u uniform in [0, 1) */
#define DLX_RNG_NORMAL 1  /* a + b * z, z standard normal */
#define DLX_RNG_INT 2     /* low + an integer uniform in [0, range) */
/* The other distributions, one element at a time (src/common/distributions.h). */
#define DLX_RNG_BERNOULLI 3   /* 1 when u < a, else 0 */
#define DLX_RNG_EXPONENTIAL 4 /* -ln(v) / a */
#define DLX_RNG_CAUCHY 5      /* a + b tan(pi (v - 1/2)) */
#define DLX_RNG_LOG_NORMAL 6  /* exp(a + b z) */
#define DLX_RNG_GEOMETRIC 7   /* max(1, ceil(ln(v) / a)), a = ln(1 - p) */
#define DLX_RNG_POISSON 8     /* a Poisson count of mean a */

/* One Philox4x32 block: four 32-bit words. */
typedef struct dlx_philox_block {
  uint32_t w[4];
} dlx_philox_block;

/* Philox4x32-10 of the 128-bit counter {lo(counter), hi(counter), 0, 0} under the 64-bit key
 * {lo(seed), hi(seed)}: ten rounds, the key bumped by the Weyl constants between rounds. */
DLX_SHARED dlx_philox_block dlx_philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                                              uint32_t k0, uint32_t k1) {
  dlx_philox_block out;
  for (int round = 0; round < 10; round++) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out.w[0] = c0;
  out.w[1] = c1;
  out.w[2] = c2;
  out.w[3] = c3;
  return out;
}

/* The block of a generator's counter (the counter's high 64 bits are 0). */
DLX_SHARED dlx_philox_block dlx_philox_at(uint64_t seed, uint64_t counter) {
  return dlx_philox4x32_10((uint32_t)counter, (uint32_t)(counter >> 32), 0, 0, (uint32_t)seed,
                           (uint32_t)(seed >> 32));
}

/* Elements per block: 4 when each takes one word, 2 when each takes two (wide). */
DLX_SHARED int dlx_rng_lanes(int wide) { return wide ? 2 : 4; }

/* Words 2 * pair and 2 * pair + 1 as one 64-bit number, the first word high. */
DLX_SHARED uint64_t dlx_rng_u64(dlx_philox_block b, int pair) {
  return (uint64_t)b.w[2 * pair] << 32 | b.w[2 * pair + 1];
}

/* 2^-k as a double, exactly (k <= 64). */
DLX_SHARED double dlx_rng_pow2_neg(int k) {
  double r = 1.0;
  for (; k >= 32; k -= 32) r *= 2.3283064365386962890625e-10; /* 2^-32 */
  return r / (double)((uint64_t)1 << k);
}

/* The uniform in [0, 1) of lane `lane` with `bits` random bits: k * 2^-bits, k the word's (or for
 * bits > 32, the word pair's) top `bits` bits. bits is the significand of the dtype (24 for
 * float32, 53 for float64, 11 for float16, 8 for bfloat16), so every value is exact in it and
 * the dtype's whole grid of multiples of 2^-bits is equally likely. */
DLX_SHARED double dlx_rng_unit(dlx_philox_block b, int lane, int bits) {
  if (bits > 32) return (double)(dlx_rng_u64(b, lane) >> (64 - bits)) * dlx_rng_pow2_neg(bits);
  return (double)(b.w[lane] >> (32 - bits)) * dlx_rng_pow2_neg(bits);
}

DLX_SHARED double dlx_rng_bits_double(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* ln(m) = 2 atanh(s) for s = (m - 1) / (m + 1), |s| < 0.172, by its series to s^25 (error
 * < 1e-17): dlx_rng_log's last step, and the CPU's vectorised one's (src/cpu/random_batch.c). */
DLX_SHARED double dlx_rng_log_mantissa(double s) {
  double s2 = s * s, p = 1.0 / 25;
  p = 1.0 / 23 + s2 * p;
  p = 1.0 / 21 + s2 * p;
  p = 1.0 / 19 + s2 * p;
  p = 1.0 / 17 + s2 * p;
  p = 1.0 / 15 + s2 * p;
  p = 1.0 / 13 + s2 * p;
  p = 1.0 / 11 + s2 * p;
  p = 1.0 / 9 + s2 * p;
  p = 1.0 / 7 + s2 * p;
  p = 1.0 / 5 + s2 * p;
  p = 1.0 / 3 + s2 * p;
  p = 1.0 + s2 * p;
  return 2.0 * s * p;
}

/* ln(x) for a normal x > 0 with +, -, *, / only: x = m 2^e with m in [sqrt(1/2), sqrt(2)), and
 * ln(x) = e ln(2) + ln(m), ln(m) by dlx_rng_log_mantissa. */
DLX_SHARED double dlx_rng_log(double x) {
  uint64_t bits;
  double m, s;
  int e;
  memcpy(&bits, &x, sizeof bits);
  e = (int)((bits >> 52) & 0x7ff) - 1023;
  m = dlx_rng_bits_double((bits & UINT64_C(0x000fffffffffffff)) | UINT64_C(0x3ff0000000000000));
  if (m > 1.4142135623730951) {
    m *= 0.5;
    e += 1;
  }
  s = (m - 1.0) / (m + 1.0);
  return (double)e * 0.6931471805599453 + dlx_rng_log_mantissa(s);
}

/* sin(2 pi t) and cos(2 pi t) for t in [0, 1/8] by their Taylor series (error < 1e-17). */
DLX_SHARED double dlx_rng_sin_turn(double t) {
  double y = 6.283185307179586 * t, y2 = y * y, p = -1.0 / 1307674368000.0; /* -1/15! */
  p = 1.0 / 6227020800.0 + y2 * p;                                          /* 1/13! */
  p = -1.0 / 39916800.0 + y2 * p;
  p = 1.0 / 362880.0 + y2 * p;
  p = -1.0 / 5040.0 + y2 * p;
  p = 1.0 / 120.0 + y2 * p;
  p = -1.0 / 6.0 + y2 * p;
  return y + y * y2 * p;
}

DLX_SHARED double dlx_rng_cos_turn(double t) {
  double y = 6.283185307179586 * t, y2 = y * y, p = 1.0 / 20922789888000.0; /* 1/16! */
  p = -1.0 / 87178291200.0 + y2 * p;                                        /* -1/14! */
  p = 1.0 / 479001600.0 + y2 * p;
  p = -1.0 / 3628800.0 + y2 * p;
  p = 1.0 / 40320.0 + y2 * p;
  p = -1.0 / 720.0 + y2 * p;
  p = 1.0 / 24.0 + y2 * p;
  p = -0.5 + y2 * p;
  return 1.0 + y2 * p;
}

/* cos(2 pi k / 2^bits) and sin(...) for an integer 0 <= k < 2^bits (2 < bits <= 55, so that the
 * fraction below is exact in float64): the quarter
 * turn q and the fraction f within it come exactly from k's bits, and f > 1/8 uses the complement
 * (sin(pi/2 - x) = cos x), so the series only see [0, 1/8]. */
DLX_SHARED void dlx_rng_sincos_pair(uint64_t k, int bits, double *sin_out, double *cos_out) {
  uint64_t quarter = (uint64_t)1 << (bits - 2);
  int q = (int)(k >> (bits - 2));
  uint64_t r = k & (quarter - 1);
  double scale = dlx_rng_pow2_neg(bits), s, c, t;
  int flip = r > quarter / 2;
  t = (double)(flip ? quarter - r : r) * scale;
  s = dlx_rng_sin_turn(t);
  c = dlx_rng_cos_turn(t);
  if (flip) {
    t = s;
    s = c;
    c = t;
  }
  /* rotate by q quarter turns: (c, s) -> (-s, c) */
  for (; q > 0; q--) {
    t = c;
    c = -s;
    s = t;
  }
  *sin_out = s;
  *cos_out = c;
}

/* dlx_rng_sincos_pair's cos when want_sin is 0, its sin otherwise. */
DLX_SHARED double dlx_rng_sincos_turn(uint64_t k, int bits, int want_sin) {
  double s, c;
  dlx_rng_sincos_pair(k, bits, &s, &c);
  return want_sin ? s : c;
}

/* The standard normal of lane `lane` by Box-Muller: lanes 2j and 2j + 1 share the uniforms
 * u1 in (0, 1] and u2 in [0, 1) of their words and take r cos(2 pi u2) and r sin(2 pi u2),
 * r = sqrt(-2 ln u1). One word each, 32 bits (not wide), or two words each, 53 bits (wide):
 * u1 = (k1 + 1) 2^-bits and u2 = k2 2^-bits. */
DLX_SHARED double dlx_rng_normal(dlx_philox_block b, int lane, int wide) {
  int bits = wide ? 53 : 32, first = lane & ~1;
  uint64_t k1 = wide ? dlx_rng_u64(b, 0) >> 11 : b.w[first];
  uint64_t k2 = wide ? dlx_rng_u64(b, 1) >> 11 : b.w[first + 1];
  double u1 = (double)(k1 + 1) * dlx_rng_pow2_neg(bits);
  double r = sqrt(-2.0 * dlx_rng_log(u1));
  return r * dlx_rng_sincos_turn(k2, bits, lane & 1);
}

/* The high 64 bits of a * b. */
DLX_SHARED uint64_t dlx_rng_mulhi64(uint64_t a, uint64_t b) {
  uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
  uint64_t mid = (a0 * b0 >> 32) + (uint32_t)(a1 * b0) + (uint32_t)(a0 * b1);
  return a1 * b1 + (a1 * b0 >> 32) + (a0 * b1 >> 32) + (mid >> 32);
}

/* Whether integers in [0, range) take two words each (range > 2^32). */
DLX_SHARED int dlx_rng_int_wide(uint64_t range) { return range > ((uint64_t)1 << 32); }

/* low + floor(x * range / 2^w), x the lane's word (w = 32) or word pair (w = 64, wide), with
 * wrapping arithmetic: an integer in [low, low + range) (Lemire's multiply-shift, without
 * rejection: a value's probability is off by at most range / 2^w of its own). */
DLX_SHARED int64_t dlx_rng_int(dlx_philox_block b, int lane, int64_t low, uint64_t range) {
  uint64_t v = dlx_rng_int_wide(range) ? dlx_rng_mulhi64(dlx_rng_u64(b, lane), range)
                                       : ((uint64_t)b.w[lane] * range) >> 32;
  return (int64_t)((uint64_t)low + v);
}

/* A real element: UNIFORM gives a + (b - a) u (u of dlx_rng_unit with `bits`), NORMAL gives
 * a + b z (z of dlx_rng_normal, wide when bits > 32); in float64, rounded once to the dtype by
 * the caller. With a = 0 and b = 1 a uniform is u itself, exact in the dtype. */
DLX_SHARED double dlx_rng_real(int kind, dlx_philox_block blk, int lane, int bits, double a,
                               double b) {
  if (kind == DLX_RNG_NORMAL) return a + b * dlx_rng_normal(blk, lane, bits > 32);
  return a + (b - a) * dlx_rng_unit(blk, lane, bits);
}

#endif
