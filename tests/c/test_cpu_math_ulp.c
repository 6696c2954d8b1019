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
#include "ulp.h"

typedef struct format {
  const ulp_format *ulp;
  const char *name;
  int default_samples;
} format;

static const format f32 = {&ulp_float32, "float32", 64};
static const format f64 = {&ulp_float64, "float64", 16};

/* ---- the measurement */

/* Runs the kernel on the inputs and returns the worst error; *worst_x its input. */
static long double measure(const format *f, dlx_cpu_ew_kernel kernel, ulp_reference ref,
                           const ulp_inputs *in, long double *worst_x, long double *worst_y) {
  size_t size = f->ulp->dtype == DLX_FLOAT32 ? 4 : 8;
  void *x = malloc((size_t)in->n * size), *y = malloc((size_t)in->n * size);
  long double worst;
  if (x == NULL || y == NULL) abort();
  ulp_store(f->ulp, in, x);
  kernel(y, x, NULL, in->n, DLX_CPU_EW_VV); /* an odd count: a partial vector at the end */
  worst = ulp_worst(f->ulp, ref, x, y, in->n, worst_x, worst_y);
  free(x);
  free(y);
  return worst;
}

static void check_format(const format *f, dlx_cpu_isa isa, int samples) {
  ulp_inputs in = ulp_make_inputs(f->ulp, samples);
  for (int i = 0; i < ULP_FUNCTIONS; i++) {
    dlx_cpu_ew_kernel kernel = dlx_cpu_math_kernel_isa(ulp_functions[i].op, f->ulp->dtype, isa);
    long double wx, wy, worst;
    CHECK(kernel != NULL);
    if (kernel == NULL) continue;
    worst = measure(f, kernel, ulp_functions[i].ref, &in, &wx, &wy);
    printf("  %-8s %-8s %-7s worst %.3Lf ulp at %La (got %La, want %La)\n", dlx_cpu_isa_name(isa),
           f->name, dlx_ew_name(ulp_functions[i].op), worst, wx, wy, ulp_functions[i].ref(wx));
    if (!(worst <= 1.0L))
      fprintf(stderr, "%s %s %s: %.3Lf ulp at x = %La\n", dlx_cpu_isa_name(isa), f->name,
              dlx_ew_name(ulp_functions[i].op), worst, wx);
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
