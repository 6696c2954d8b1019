/* elementwise.c -- the elementwise kernel (elementwise.cl) against the CPU backend's elementwise
 * entry: every op of every kernel dtype, inputs of other dtypes, broadcast and scalar inputs,
 * outputs of other dtypes, in random layouts; and the math functions' accuracy in ulps. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "core/elementwise_kernels.h"
#include "ulp.h"

/* ---- elementwise ops */

/* Ops whose float results may differ from the CPU's libm in the last bits: OpenCL's pow, atan2
 * and hypot are within a few ulp (the spec allows 16, 6 and 4), complex pow is exp(y log x). */
static bool approximate(dlx_ew_op op, dlx_dtype kdtype) {
  bool floating =
      dlx_dtype_kind(kdtype) == DLX_KIND_FLOAT || dlx_dtype_kind(kdtype) == DLX_KIND_COMPLEX;
  return floating && (op == DLX_EW_POW || op == DLX_EW_ATAN2 || op == DLX_EW_HYPOT ||
                      (op == DLX_EW_ABS && dlx_dtype_kind(kdtype) == DLX_KIND_COMPLEX));
}

/* The computable dtypes whose kernel dtype is kdtype (float16 and bfloat16 compute in float32). */
static dlx_dtype compute_dtype_for(dlx_dtype kdtype) {
  if (kdtype == DLX_FLOAT32) {
    uint64_t r = next_random() % 3;
    return r == 0 ? DLX_FLOAT16 : r == 1 ? DLX_BFLOAT16 : DLX_FLOAT32;
  }
  return kdtype;
}

static dlx_dtype random_computable(void) {
  return (dlx_dtype)(next_random() % (DLX_COMPLEX128 + 1));
}

/* Gentle values (parts in [-2, 2], never 0) for the approximate complex pow, whose special cases
 * (zeros, infinities) follow C's cpow only where the formula does. */
static void gentle_complex(unsigned char *p, const layout *l, dlx_dtype dtype) {
  dlx_tensor src, dst;
  DLDevice cpu = {kDLCPU, 0};
  int64_t n = 1;
  for (int32_t d = 0; d < l->ndim; d++) n *= l->shape[d];
  dlx_tensor_empty(&src, l->shape, l->ndim, DLX_COMPLEX128, cpu, NULL);
  for (int64_t i = 0; i < 2 * n; i++)
    ((double *)src.buffer->data)[i] =
        (double)(1 + (int64_t)(next_random() % 8)) / 4 * (next_random() % 2 ? 1 : -1);
  dst = as_tensor(l, dtype, p);
  dlx_cpu_backend.copy(&dst, &src, NULL);
  dlx_tensor_close(&dst);
  dlx_tensor_close(&src);
}

/* A scalar input of dtype: random bytes of it, as the value the CPU backend takes. */
static dlx_scalar random_scalar(dlx_dtype dtype) {
  unsigned char raw[16];
  DLDevice cpu = {kDLCPU, 0};
  layout one = {.ndim = 0, .span = 16};
  dlx_tensor src, wide;
  dlx_dtype wide_dtype;
  dlx_scalar value;
  random_bytes(raw, 16);
  if (dtype == DLX_BOOL) raw[0] &= 1;
  memset(&value, 0, sizeof value);
  value.kind = dlx_dtype_kind(dtype);
  wide_dtype = value.kind == DLX_KIND_BOOL    ? DLX_BOOL
               : value.kind == DLX_KIND_INT   ? DLX_INT64
               : value.kind == DLX_KIND_UINT  ? DLX_UINT64
               : value.kind == DLX_KIND_FLOAT ? DLX_FLOAT64
                                              : DLX_COMPLEX128;
  src = as_tensor(&one, dtype, raw);
  dlx_tensor_empty(&wide, NULL, 0, wide_dtype, cpu, NULL);
  dlx_cpu_backend.copy(&wide, &src, NULL);
  if (value.kind == DLX_KIND_BOOL)
    value.v.b = ((unsigned char *)wide.buffer->data)[0] != 0;
  else
    memcpy(&value.v, wide.buffer->data, (size_t)dlx_itemsize(wide_dtype));
  dlx_tensor_close(&src);
  dlx_tensor_close(&wide);
  return value;
}

static bool is_math(dlx_ew_op op) { return op >= DLX_EW_SQRT && op <= DLX_EW_ERF; }

/* How far (in ulps of its dtype) a math function's result may be from the CPU's: float32
 * computes in double and rounds once, so both are faithful and at worst neighbours; float64 is
 * the device's double function, which OpenCL lets be several ulp off (its spec's bound, plus
 * the CPU's one). 0 for ops that must match exactly. */
static uint64_t ulp_tolerance(dlx_ew_op op, dlx_dtype kdtype) {
  if (!is_math(op)) return 0;
  return kdtype == DLX_FLOAT64 ? 17 : 1;
}

/* The distance in ulps of two floats of dtype (ulp.h). */
static uint64_t ulp_distance(const unsigned char *a, const unsigned char *b, dlx_dtype dtype) {
  double g[2], w[2];
  result_values(a, dtype, 1, g);
  result_values(b, dtype, 1, w);
  return ulp_distance_of(a, b, dtype, isnan(g[0]), isnan(w[0]));
}

/* Which inputs of op are scalars in this launch: nan_to_num's values always (the core takes them
 * from Lua numbers), others now and then, never all. */
static void choose_scalars(dlx_ew_op op, int nin, bool *is_scalar) {
  int tensor = op == DLX_EW_NAN_TO_NUM ? 0 : (int)(next_random() % (uint64_t)nin);
  for (int k = 0; k < nin; k++)
    is_scalar[k] = op == DLX_EW_NAN_TO_NUM ? k > 0 : k != tensor && next_random() % 4 == 0;
}

/* One random launch of op in kernel dtype kdtype against the CPU backend's elementwise. */
static void test_elementwise(dlx_ew_op op, dlx_dtype kdtype) {
  int64_t shape[3] = {2 + (int64_t)(next_random() % 3), 1 + (int64_t)(next_random() % 4),
                      3 + (int64_t)(next_random() % 40)};
  int nin = dlx_ew_arity(op);
  dlx_dtype compute = compute_dtype_for(kdtype);
  dlx_dtype dst_dtype = dlx_ew_result_of(op, compute), in_dtype[DLX_ZE_EW_INPUTS];
  bool approx = approximate(op, kdtype), is_scalar[DLX_ZE_EW_INPUTS] = {false};
  uint64_t ulps = ulp_tolerance(op, kdtype);
  layout dl, il[DLX_ZE_EW_INPUTS];
  unsigned char *dst, *want, *inp[DLX_ZE_EW_INPUTS] = {NULL, NULL, NULL, NULL};
  dlx_ze_ew_args *a = svm(sizeof *a);
  dlx_tensor wt, it[DLX_ZE_EW_INPUTS];
  dlx_operand in[DLX_ZE_EW_INPUTS];
  void *ptrs[2 + DLX_ZE_EW_INPUTS];
  int code = dlx_ewk_op_of(op);
  kdtype = dlx_ewk_kernel_dtype_of(op, compute); /* (where keeps float16 and bfloat16) */
  /* cast on store (math results are compared in ulps of their own dtype) */
  if (!approx && ulps == 0 && next_random() % 3 == 0) dst_dtype = random_computable();
  dl = random_layout(3, shape, dlx_itemsize(dst_dtype));
  dst = svm((size_t)dl.span);
  want = malloc((size_t)dl.span);
  host_access(dst, (size_t)dl.span, 1);
  host_access(a, sizeof *a, 1);
  random_bytes(dst, dl.span);
  memcpy(want, dst, (size_t)dl.span);
  memset(a, 0, sizeof *a);
  memset(in, 0, sizeof in);
  a->n = shape[0] * shape[1] * shape[2];
  a->ndim = 3;
  a->op = code;
  a->nin = nin;
  a->kdtype = kdtype;
  a->kout = dlx_ew_result_of(op, kdtype);
  a->dst_dtype = dst_dtype;
  memcpy(a->shape, shape, sizeof shape);
  byte_strides(&dl, dlx_itemsize(dst_dtype), a->dst_strides);
  choose_scalars(op, nin, is_scalar);
  for (int k = 0; k < nin; k++) {
    dlx_dtype own = dlx_ew_input_dtype(op, k, compute);
    in_dtype[k] = !approx && next_random() % 3 == 0 ? random_computable() : own;
    a->in_dtype[k] = in_dtype[k];
    if (is_scalar[k]) {
      in_dtype[k] = own;
      a->in_scalar[k] = 1;
      a->in_dtype[k] = dlx_ewk_input_dtype(code, k, (int)kdtype);
      in[k].scalar = random_scalar(own);
      CHECK(dlx_ewk_scalar_bytes(op, k, compute, &in[k].scalar, a->scalar[k], NULL) == 0);
      continue;
    }
    il[k] = random_layout(3, shape, dlx_itemsize(in_dtype[k]));
    if (next_random() % 3 == 0) il[k].strides[next_random() % 3] = 0; /* broadcast */
    inp[k] = svm((size_t)il[k].span);
    host_access(inp[k], (size_t)il[k].span, 1);
    if (op == DLX_EW_POW && dlx_dtype_kind(kdtype) == DLX_KIND_COMPLEX)
      gentle_complex(inp[k], &il[k], in_dtype[k]);
    else
      random_bytes(inp[k], il[k].span);
    byte_strides(&il[k], dlx_itemsize(in_dtype[k]), a->in_strides[k]);
    it[k] = as_tensor(&il[k], in_dtype[k], inp[k]);
    in[k].tensor = &it[k];
  }
  wt = as_tensor(&dl, dst_dtype, want);
  CHECK(dlx_cpu_backend.elementwise(op, &wt, in, compute, NULL) == 0);
  host_access(dst, (size_t)dl.span, 0);
  host_access(a, sizeof *a, 0);
  ptrs[0] = dst + dl.first;
  for (int k = 0; k < DLX_ZE_EW_INPUTS; k++) {
    ptrs[1 + k] = inp[k] != NULL ? (void *)(inp[k] + il[k].first) : (void *)a;
    if (inp[k] != NULL) host_access(inp[k], (size_t)il[k].span, 0);
  }
  ptrs[1 + DLX_ZE_EW_INPUTS] = a;
  CHECK(run(DLX_ZE_KERNEL_ELEMENTWISE, 1 + next_random() % 3, ptrs, 2 + DLX_ZE_EW_INPUTS) == 0);
  host_access(dst, (size_t)dl.span, 1);
  {
    bool ok = true, complex = dlx_dtype_kind(dst_dtype) == DLX_KIND_COMPLEX;
    double rel = compute == DLX_FLOAT16 || compute == DLX_BFLOAT16  ? 1e-2
                 : kdtype == DLX_FLOAT32 || kdtype == DLX_COMPLEX64 ? 1e-5
                                                                    : 1e-13;
    int64_t size = dlx_itemsize(dst_dtype);
    for (int64_t i = 0; i < shape[0] && ok; i++)
      for (int64_t j = 0; j < shape[1] && ok; j++)
        for (int64_t m = 0; m < shape[2] && ok; m++) {
          int64_t off =
              dl.first + (i * dl.strides[0] + j * dl.strides[1] + m * dl.strides[2]) * size;
          double got_v[2], want_v[2];
          if (memcmp(dst + off, want + off, (size_t)size) == 0) continue;
          result_values(dst + off, dst_dtype, 1, got_v);
          result_values(want + off, dst_dtype, 1, want_v);
          if (ulps > 0) {
            ok = ulp_distance(dst + off, want + off, dst_dtype) <= ulps;
          } else {
            /* NaNs may differ in payload and quietness (which operand's NaN propagates,
             * whether a signalling one is quieted is the hardware's choice); approximate ops
             * in the last bits */
            if (complex && approx) { /* complex results: near in norm */
              double d = hypot(got_v[0] - want_v[0], got_v[1] - want_v[1]);
              ok = d <= rel * hypot(want_v[0], want_v[1]) + 1e-30;
            }
            for (int c = 0; c < (complex ? 2 : 1) && !(complex && approx && ok); c++) {
              bool both_nan = isnan(got_v[c]) && isnan(want_v[c]);
              bool near = approx && (close_values(got_v[c], want_v[c], rel) ||
                                     (fabs(got_v[c]) < 1e-30 && fabs(want_v[c]) < 1e-30));
              ok = (got_v[c] == want_v[c] || both_nan || near);
              if (!ok) break;
            }
          }
          if (!ok)
            fprintf(stderr, "  element (%lld, %lld, %lld): got %a %a, want %a %a\n", (long long)i,
                    (long long)j, (long long)m, got_v[0], complex ? got_v[1] : 0.0, want_v[0],
                    complex ? want_v[1] : 0.0);
        }
    check_count++;
    if (!ok) {
      check_failures++;
      fprintf(stderr,
              "elementwise %s in %s (compute %s, input 0 %s, dst %s) differs from the CPU\n",
              dlx_ew_name(op), dlx_dtype_info_of(kdtype)->name, dlx_dtype_info_of(compute)->name,
              dlx_dtype_info_of(in_dtype[0])->name, dlx_dtype_info_of(dst_dtype)->name);
    }
  }
  host_access(dst, (size_t)dl.span, 0);
  dlx_tensor_close(&wt);
  for (int k = 0; k < nin; k++) {
    if (inp[k] == NULL) continue;
    dlx_tensor_close(&it[k]);
    clSVMFree(context, inp[k]);
  }
  free(want);
  clSVMFree(context, dst);
  clSVMFree(context, a);
}

/* Every op the kernels have, in every kernel dtype that has it, several random launches. */
void test_elementwise_ops(void) {
  static const dlx_dtype kdtypes[] = {
      DLX_BOOL,   DLX_INT8,   DLX_INT16,   DLX_INT32,   DLX_INT64,     DLX_UINT8,     DLX_UINT16,
      DLX_UINT32, DLX_UINT64, DLX_FLOAT32, DLX_FLOAT64, DLX_COMPLEX64, DLX_COMPLEX128};
  int ops = 0;
  for (int op = 0; op < DLX_EW_NUM_OPS; op++) {
    int code = dlx_ewk_op_of((dlx_ew_op)op);
    if (code == DLX_EWK_NONE) continue;
    ops++;
    for (size_t k = 0; k < sizeof kdtypes / sizeof kdtypes[0]; k++) {
      if (dlx_ewk_result(code, (int)kdtypes[k]) == DLX_EWK_RESULT_NONE) continue;
      for (int rep = 0; rep < 6; rep++) test_elementwise((dlx_ew_op)op, kdtypes[k]);
    }
  }
  printf("elementwise: %d ops\n", ops);
}

/* ---- the math functions' accuracy: the kernel's results in ulps against long double (x87
 * extended) libm, over edge values (±0, subnormals, ±inf, NaN, domain ends, overflow
 * thresholds) and random values in every binade. float32 must be within 1 ulp (it computes in
 * double and rounds once); float64 is the device's double functions: their worst error is
 * printed, and must stay within the OpenCL spec's bound for them (docs/level-zero.md lists
 * what was measured). */

/* The OpenCL C spec's bound for the double function (full profile); rsqrt and sigmoid are
 * 1 / sqrt(x) and a quotient after exp, a rounding or two more. */
static double opencl_bound64(dlx_ew_op op) {
  switch (op) {
  case DLX_EW_SQRT:
    return 0.5;
  case DLX_EW_RSQRT:
  case DLX_EW_LOG1P:
    return 2;
  case DLX_EW_EXP:
  case DLX_EW_EXP2:
  case DLX_EW_EXPM1:
  case DLX_EW_LOG:
  case DLX_EW_LOG2:
  case DLX_EW_LOG10:
    return 3;
  case DLX_EW_TAN:
  case DLX_EW_ATAN:
  case DLX_EW_TANH:
  case DLX_EW_ATANH:
  case DLX_EW_SIGMOID:
    return 5;
  case DLX_EW_ERF:
    return 16;
  default:
    return 4; /* sin cos asin acos sinh cosh asinh acosh */
  }
}

/* The worst error of op's kernel over the inputs (*worst_x: where). */
static long double ulp_measure(const ulp_format *f, dlx_ew_op op, ulp_reference ref,
                               const ulp_inputs *in, long double *worst_x) {
  int64_t n = in->n;
  size_t size = f->dtype == DLX_FLOAT32 ? 4 : 8;
  unsigned char *x = svm(n * size), *y = svm(n * size);
  dlx_ze_ew_args *a = svm(sizeof *a);
  long double worst, worst_y;
  host_access(x, n * size, 1);
  host_access(a, sizeof *a, 1);
  ulp_store(f, in, x);
  memset(a, 0, sizeof *a);
  a->n = a->shape[0] = n;
  a->ndim = 1;
  a->op = dlx_ewk_op_of(op);
  a->nin = 1;
  a->kdtype = a->kout = a->dst_dtype = a->in_dtype[0] = f->dtype;
  a->dst_strides[0] = a->in_strides[0][0] = (dlx_ze_i64)size;
  host_access(x, n * size, 0);
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_ELEMENTWISE, 64, (void *const[]){y, x, a, a, a, a}, 6) == 0);
  host_access(y, n * size, 1);
  worst = ulp_worst(f, ref, x, y, n, worst_x, &worst_y);
  host_access(y, n * size, 0);
  clSVMFree(context, x);
  clSVMFree(context, y);
  clSVMFree(context, a);
  return worst;
}

void test_math_ulp(void) {
  const ulp_format *formats[2] = {&ulp_float32, &ulp_float64};
  const int samples[2] = {16, 4};
  for (int k = 0; k < 2; k++) {
    const ulp_format *f = formats[k];
    ulp_inputs in = ulp_make_inputs(f, samples[k]);
    for (int i = 0; i < ULP_FUNCTIONS; i++) {
      dlx_ew_op op = ulp_functions[i].op;
      long double wx, worst = ulp_measure(f, op, ulp_functions[i].ref, &in, &wx);
      double bound = f->dtype == DLX_FLOAT32 ? 1.0 : opencl_bound64(op);
      printf("  ulp %-7s %-8s worst %.3Lf at %La\n", dlx_dtype_info_of(f->dtype)->name,
             dlx_ew_name(op), worst, wx);
      if (!(worst <= bound))
        fprintf(stderr, "%s %s: %.3Lf ulp (bound %.1f) at x = %La\n",
                dlx_dtype_info_of(f->dtype)->name, dlx_ew_name(op), worst, bound, wx);
      CHECK(worst <= bound);
    }
    free(in.x);
  }
}
