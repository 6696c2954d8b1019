/* test_cpu_math_ulp.c -- the accuracy of the CPU's math kernels (sqrt ... erf): the error of every
 * function in ulps of float32 and float64, on every instruction set this CPU runs (portable,
 * AVX2, AVX-512), against long double (x87 extended) libm, over edge values (±0, subnormals,
 * ±inf, NaN, the ends of each function's domain and range) and random values in every binade.
 * The test fails above 1 ulp and prints the worst input of each function.
 *
 * DLX_ULP_SAMPLES=n raises the random values per binade (default 64 for float32, 16 for
 * float64). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu/elementwise_math.h"

typedef long double (*reference_fn)(long double);

static long double ref_rsqrt(long double x) { return 1.0L / sqrtl(x); }

static long double ref_sigmoid(long double x) {
  long double t = expl(-fabsl(x));
  return (x >= 0 ? 1.0L : t) / (1.0L + t);
}

static const struct {
  dlx_ew_op op;
  reference_fn ref;
} functions[] = {
    {DLX_EW_SQRT, sqrtl},   {DLX_EW_RSQRT, ref_rsqrt},
    {DLX_EW_EXP, expl},     {DLX_EW_EXP2, exp2l},
    {DLX_EW_EXPM1, expm1l}, {DLX_EW_LOG, logl},
    {DLX_EW_LOG2, log2l},   {DLX_EW_LOG10, log10l},
    {DLX_EW_LOG1P, log1pl}, {DLX_EW_SIN, sinl},
    {DLX_EW_COS, cosl},     {DLX_EW_TAN, tanl},
    {DLX_EW_ASIN, asinl},   {DLX_EW_ACOS, acosl},
    {DLX_EW_ATAN, atanl},   {DLX_EW_SINH, sinhl},
    {DLX_EW_COSH, coshl},   {DLX_EW_TANH, tanhl},
    {DLX_EW_ASINH, asinhl}, {DLX_EW_ACOSH, acoshl},
    {DLX_EW_ATANH, atanhl}, {DLX_EW_SIGMOID, ref_sigmoid},
    {DLX_EW_ERF, erfl},
};

/* ---- the two formats */

typedef struct format {
  dlx_dtype dtype;
  const char *name;
  int mant_bits;        /* 24, 53 */
  int min_exp, max_exp; /* of normal numbers: -126..127, -1022..1023 */
  int default_samples;
} format;

static const format f32 = {DLX_FLOAT32, "float32", 24, -126, 127, 64};
static const format f64 = {DLX_FLOAT64, "float64", 53, -1022, 1023, 16};

/* The ulp of the format at |r|: the spacing of the format's numbers in r's binade (subnormals
 * share the smallest). */
static long double ulp_at(const format *f, long double r) {
  int e;
  r = fabsl(r);
  if (r < ldexpl(1.0L, f->min_exp)) return ldexpl(1.0L, f->min_exp - f->mant_bits + 1);
  frexpl(r, &e);
  return ldexpl(1.0L, e - f->mant_bits);
}

/* The error of y against the reference r, in ulps of the format; INFINITY for a wrong NaN, a
 * wrong infinity or a zero of the wrong sign. An infinite y where r is finite counts as the
 * number one ulp above the largest finite one, so that rounding up near overflow is faithful. */
static long double ulp_error(const format *f, long double y, long double r) {
  long double beyond = ldexpl(1.0L, f->max_exp + 1);
  if (isnan(r)) return isnan(y) ? 0 : INFINITY;
  if (isnan(y)) return INFINITY;
  if (isinf(r)) return y == r ? 0 : isinf(y) ? INFINITY : fabsl(y) >= beyond ? 0 : INFINITY;
  if (r == 0) return y == 0 && signbit(y) == signbit(r) ? 0 : fabsl(y) / ulp_at(f, 0);
  if (isinf(y)) y = copysignl(beyond, y);
  if (fabsl(r) > beyond) r = copysignl(beyond, r); /* it rounds to infinity */
  return fabsl(y - r) / ulp_at(f, r);
}

/* ---- inputs */

typedef struct inputs {
  long double *x;
  int64_t n, cap;
} inputs;

static void add(inputs *in, long double x) {
  if (in->n == in->cap) {
    in->cap = in->cap ? 2 * in->cap : 4096;
    in->x = realloc(in->x, (size_t)in->cap * sizeof in->x[0]);
    if (in->x == NULL) abort();
  }
  in->x[in->n++] = x;
}

static void add_both_signs(inputs *in, long double x) {
  add(in, x);
  add(in, -x);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Edge values of the format and of the functions (the ends of domains, overflow thresholds,
 * large arguments of the trigonometric functions), each with both signs and with the
 * neighbouring numbers; then `samples` random values in every binade, subnormals included. */
static void make_inputs(const format *f, int samples, inputs *in) {
  long double tiny = ldexpl(1.0L, f->min_exp - f->mant_bits + 1);
  long double least_normal = ldexpl(1.0L, f->min_exp);
  long double largest = ldexpl(2.0L - ldexpl(1.0L, 1 - f->mant_bits), f->max_exp);
  const long double edges[] = {0,
                               tiny,
                               2 * tiny,
                               least_normal - tiny,
                               least_normal,
                               0x1p-60L,
                               0x1p-27L,
                               0x1p-26L,
                               0x1p-13L,
                               0.25L,
                               0.5L,
                               1,
                               2,
                               3,
                               1.5707963267948966L,
                               3.14159265358979324L,
                               10,
                               20,
                               86,
                               88.72283935546875L,
                               89,
                               103,
                               104,
                               126,
                               127,
                               128,
                               149,
                               150,
                               700,
                               709,
                               709.78L,
                               710,
                               710.5L,
                               744,
                               745.2L,
                               1022,
                               1024,
                               1075,
                               1e10L,
                               1e22L,
                               0x1p63L,
                               0x1p64L,
                               0x1p500L,
                               0x1p1000L,
                               largest,
                               INFINITY};
  for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
    long double x =
        f->dtype == DLX_FLOAT32 ? (long double)(float)edges[i] : (long double)(double)edges[i];
    add_both_signs(in, x);
    if (!isinf(x) && x != 0) {
      long double u = ulp_at(f, x);
      add_both_signs(in, x + u);
      if (x - u > 0) add_both_signs(in, x - u);
    }
  }
  add(in, NAN);
  for (int e = f->min_exp - f->mant_bits + 1; e <= f->max_exp; e++)
    for (int k = 0; k < samples; k++) {
      /* a random significand in [1, 2) (in [0, 1) times the smallest step for subnormals) */
      long double m = 1.0L + (long double)(next_random() >> 11) * 0x1p-53L, x;
      x = ldexpl(m, e);
      if (e < f->min_exp)
        x = ldexpl(floorl(ldexpl(x, -(f->min_exp - f->mant_bits + 1))),
                   f->min_exp - f->mant_bits + 1);
      x = f->dtype == DLX_FLOAT32 ? (long double)(float)x : (long double)(double)x;
      add_both_signs(in, x);
    }
}

/* ---- the measurement */

/* Runs the kernel of op on the inputs and returns the worst error; *worst_x its input. */
static long double measure(const format *f, dlx_cpu_ew_kernel kernel, reference_fn ref,
                           const inputs *in, long double *worst_x, long double *worst_y) {
  size_t size = f->dtype == DLX_FLOAT32 ? 4 : 8;
  char *x = malloc((size_t)in->n * size), *y = malloc((size_t)in->n * size);
  long double worst = 0;
  if (x == NULL || y == NULL) abort();
  for (int64_t i = 0; i < in->n; i++) {
    if (size == 4)
      ((float *)(void *)x)[i] = (float)in->x[i];
    else
      ((double *)(void *)x)[i] = (double)in->x[i];
  }
  /* an odd count, so that the tail of a vector is exercised */
  kernel(y, x, NULL, in->n, DLX_CPU_EW_VV);
  *worst_x = 0;
  *worst_y = 0;
  for (int64_t i = 0; i < in->n; i++) {
    long double xv = size == 4 ? ((float *)(void *)x)[i] : ((double *)(void *)x)[i];
    long double yv = size == 4 ? ((float *)(void *)y)[i] : ((double *)(void *)y)[i];
    long double e = ulp_error(f, yv, ref(xv));
    if (e > worst || (isnan(e) && !isnan(worst))) {
      worst = e;
      *worst_x = xv;
      *worst_y = yv;
    }
  }
  free(x);
  free(y);
  return worst;
}

static void check_format(const format *f, dlx_cpu_isa isa, int samples) {
  inputs in = {0};
  make_inputs(f, samples, &in);
  if (in.n % 2 == 0) add(&in, 1.5L); /* odd: a partial vector at the end */
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
    dlx_cpu_ew_kernel kernel = dlx_cpu_math_kernel_isa(functions[i].op, f->dtype, isa);
    long double wx, wy, worst;
    CHECK(kernel != NULL);
    if (kernel == NULL) continue;
    worst = measure(f, kernel, functions[i].ref, &in, &wx, &wy);
    printf("  %-8s %-8s %-7s worst %.3Lf ulp at %La (got %La, want %La)\n", dlx_cpu_isa_name(isa),
           f->name, dlx_ew_name(functions[i].op), worst, wx, wy, functions[i].ref(wx));
    if (!(worst <= 1.0L))
      fprintf(stderr, "%s %s %s: %.3Lf ulp at x = %La\n", dlx_cpu_isa_name(isa), f->name,
              dlx_ew_name(functions[i].op), worst, wx);
    CHECK(worst <= 1.0L);
  }
  free(in.x);
}

int main(void) {
  const char *env = getenv("DLX_ULP_SAMPLES");
  int scale = env != NULL ? atoi(env) : 0;
  printf("inputs: edges and %d (float32) / %d (float64) random values per binade\n",
         scale > 0 ? scale : f32.default_samples, scale > 0 ? scale : f64.default_samples);
  for (int isa = 0; isa < DLX_CPU_ISAS; isa++) {
    if (!dlx_cpu_isa_available((dlx_cpu_isa)isa)) {
      printf("  %s: not available on this CPU or build\n", dlx_cpu_isa_name((dlx_cpu_isa)isa));
      continue;
    }
    check_format(&f32, (dlx_cpu_isa)isa, scale > 0 ? scale : f32.default_samples);
    check_format(&f64, (dlx_cpu_isa)isa, scale > 0 ? scale : f64.default_samples);
  }
  CHECK(dlx_cpu_isa_available(DLX_CPU_ISA_PORTABLE));
  return check_report("test_cpu_math_ulp");
}
