/* half.h -- float16 (IEEE binary16) and bfloat16 conversions, written out in integer arithmetic
 * so that they do not depend on the compiler's _Float16 or on the FPU's rounding mode.
 *
 * Every narrowing conversion rounds once, to nearest even: float32 sources use the classic bit
 * tricks; float64 and 64-bit integer sources go through dlx_round_bits, which rounds an exact
 * m * 2^e directly (going through float32 first would round twice). NaN stays NaN (quiet, sign
 * and top payload bits kept), overflow gives inf, tiny values give subnormals or signed zero.
 * Shared by the kernels of every backend (see portable.h). */
#ifndef DLX_COMMON_HALF_H
#define DLX_COMMON_HALF_H

#include "common/portable.h"

#define DLX_HALF_INF 0x7c00u
#define DLX_BF16_INF 0x7f80u

DLX_SHARED uint32_t dlx_float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

DLX_SHARED float dlx_bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

DLX_SHARED uint64_t dlx_double_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* Rounds m * 2^e (m > 0) to nearest even in a binary format with p significand bits (implicit
 * bit included) and minimum normal exponent emin. Returns the magnitude's bits (exponent and
 * significand fields), or inf_bits when the result overflows. Writing the result as
 * ((q - qmin) << (p - 1)) + r lets a rounding carry step into the next binade, and lets
 * subnormals (q == qmin, r < 2^(p-1)) come out with a zero exponent field, with no special case. */
DLX_SHARED uint32_t dlx_round_bits(uint64_t m, int e, int p, int emin, uint32_t inf_bits) {
  int exp = e + dlx_bit_length(m) - 1; /* the value is in [2^exp, 2^(exp+1)) */
  int qmin = emin - (p - 1);
  int q = (exp < emin ? emin : exp) - (p - 1); /* weight of the result's last bit */
  uint64_t r;
  if (q <= e) {
    r = m << (e - q); /* exact: fewer than p significant bits */
  } else {
    int s = q - e;
    if (s > 64) {
      r = 0; /* below half of the last bit's weight */
    } else if (s == 64) {
      r = m > UINT64_C(0x8000000000000000) ? 1 : 0; /* a tie (m == 2^63) goes to even 0 */
    } else {
      uint64_t rem = m & ((UINT64_C(1) << s) - 1), halfway = UINT64_C(1) << (s - 1);
      r = m >> s;
      if (rem > halfway || (rem == halfway && (r & 1) != 0)) r++;
    }
  }
  uint64_t bits = ((uint64_t)(q - qmin) << (p - 1)) + r;
  return bits >= inf_bits ? inf_bits : (uint32_t)bits;
}

/* ---- float16 */

DLX_SHARED float dlx_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return dlx_bits_float(sign | 0x7f800000u | (man << 13)); /* inf, NaN */
  if (exp != 0) return dlx_bits_float(sign | ((exp + 112) << 23) | (man << 13));
  /* zero or subnormal: man * 2^-24, exact in float */
  return dlx_bits_float(sign | dlx_float_bits((float)man * 5.9604644775390625e-8f));
}

DLX_SHARED uint16_t dlx_float_to_half(float f) {
  uint32_t x = dlx_float_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu)); /* NaN */
  if (a >= 0x477ff000u) return (uint16_t)(sign | DLX_HALF_INF); /* >= 65520: rounds to inf */
  if (a >= 0x38800000u) { /* a normal half: rebias, round the 13 dropped bits */
    a -= 112u << 23;
    a += 0xfffu + ((a >> 13) & 1u);
    return (uint16_t)(sign | (a >> 13));
  }
  if (a <= 0x33000000u) return sign; /* <= 2^-25: rounds to zero (2^-25 is a tie, to even) */
  /* a subnormal half: m * 2^(e-150) = (m >> (126-e)) * 2^-24, rounding the shifted-out bits */
  uint32_t m = (a & 0x7fffffu) | 0x800000u;
  int s = 126 - (int)(a >> 23);
  uint32_t rem = m & ((1u << s) - 1), halfway = 1u << (s - 1), r = m >> s;
  if (rem > halfway || (rem == halfway && (r & 1u) != 0)) r++;
  return (uint16_t)(sign | r);
}

/* ---- bfloat16: the top half of a float32 */

DLX_SHARED float dlx_bf16_to_float(uint16_t b) { return dlx_bits_float((uint32_t)b << 16); }

DLX_SHARED uint16_t dlx_float_to_bf16(float f) {
  uint32_t x = dlx_float_bits(f);
  /* Both results are computed and one selected, so that a loop of these has no branch and
   * vectorises. Rounding the low 16 bits to nearest even may carry into the exponent (inf). */
  uint32_t quiet_nan = (x >> 16) | 0x40u;
  uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  return (uint16_t)((x & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
}

/* ---- from float64: one rounding, straight from the double's bits */

/* Sets *m, *e so that |d| = m * 2^e; d must be finite and non-zero. */
DLX_SHARED void dlx_double_parts(uint64_t bits, uint64_t *m, int *e) {
  int field = (int)((bits >> 52) & 0x7ff);
  uint64_t frac = bits & UINT64_C(0xfffffffffffff);
  *m = field != 0 ? frac | (UINT64_C(1) << 52) : frac;
  *e = (field != 0 ? field : 1) - 1075;
}

DLX_SHARED uint16_t dlx_double_to_half(double d) {
  uint64_t bits = dlx_double_bits(d), m;
  uint16_t sign = (uint16_t)((bits >> 48) & 0x8000u);
  int e;
  if ((bits & UINT64_C(0x7fffffffffffffff)) >= UINT64_C(0x7ff0000000000000))
    return dlx_float_to_half((float)d); /* inf and NaN */
  if ((bits & UINT64_C(0x7fffffffffffffff)) == 0) return sign;
  dlx_double_parts(bits, &m, &e);
  return (uint16_t)(sign | dlx_round_bits(m, e, 11, -14, DLX_HALF_INF));
}

DLX_SHARED uint16_t dlx_double_to_bf16(double d) {
  uint64_t bits = dlx_double_bits(d), m;
  uint16_t sign = (uint16_t)((bits >> 48) & 0x8000u);
  int e;
  if ((bits & UINT64_C(0x7fffffffffffffff)) >= UINT64_C(0x7ff0000000000000))
    return dlx_float_to_bf16((float)d); /* inf and NaN */
  if ((bits & UINT64_C(0x7fffffffffffffff)) == 0) return sign;
  dlx_double_parts(bits, &m, &e);
  return (uint16_t)(sign | dlx_round_bits(m, e, 8, -126, DLX_BF16_INF));
}

/* ---- from 64-bit integers: exact through float32 below 2^24, otherwise rounded directly */

DLX_SHARED uint16_t dlx_uint64_to_half(uint64_t u) {
  if (u < (UINT64_C(1) << 24)) return dlx_float_to_half((float)u);
  return (uint16_t)dlx_round_bits(u, 0, 11, -14, DLX_HALF_INF);
}

DLX_SHARED uint16_t dlx_int64_to_half(int64_t i) {
  uint64_t mag = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
  return (uint16_t)((i < 0 ? 0x8000u : 0u) | dlx_uint64_to_half(mag));
}

DLX_SHARED uint16_t dlx_uint64_to_bf16(uint64_t u) {
  if (u < (UINT64_C(1) << 24)) return dlx_float_to_bf16((float)u);
  return (uint16_t)dlx_round_bits(u, 0, 8, -126, DLX_BF16_INF);
}

DLX_SHARED uint16_t dlx_int64_to_bf16(int64_t i) {
  uint64_t mag = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
  return (uint16_t)((i < 0 ? 0x8000u : 0u) | dlx_uint64_to_bf16(mag));
}

#endif
