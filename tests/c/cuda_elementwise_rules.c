/* cuda_elementwise_rules.c -- the elementwise ops' shared element functions (src/common/
 * elementwise_ops.h) and the CUDA kernels' element step over them, against the CPU backend.
 *
 * No GPU runs here, so cuda_elementwise_rules.cpp compiles the CUDA element code as host C++, the
 * language nvcc compiles it in. Every op of every kernel dtype runs on random bytes (NaN, inf,
 * subnormals, integer bounds, shift amounts past the width), with inputs of other dtypes cast on
 * load, scalar inputs, and results cast to other dtypes, and must give the CPU backend's bits
 * (NaNs may differ in payload; complex pow, written as exp(y log x), within a tolerance). The
 * math functions (sqrt ... erf) compute with the host's libm here (the device's on a GPU) and
 * must be within 1 ulp of the CPU's in float32 (both are faithful, so they are neighbours at
 * worst) and 2 in float64 (glibc's double functions are within 2 ulp). Also:
 * the kernels have an op for a dtype exactly when the CPU has one, and an op they lack is
 * refused with a DeviceError. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/elementwise_kernels.h"
#include "cpu/elementwise_kernels.h"
#include "cpu/elementwise_ternary.h"
#include "cpu_test_util.h"
#include "cuda/kernels.h"
#include "ulp.h"

void cxx_ew_element(int op, int nin, int kdtype, int kout, int dst_dtype, void *dst,
                    const void *const *in, const int *in_dtype);
int cxx_ew_vectorisable(const dlx_cuda_ew_params *p, int vector_bytes, int out_bytes);

#define N 257

static const dlx_dtype kdtypes[] = {
    DLX_BOOL,   DLX_INT8,   DLX_INT16,   DLX_INT32,   DLX_INT64,     DLX_UINT8,     DLX_UINT16,
    DLX_UINT32, DLX_UINT64, DLX_FLOAT32, DLX_FLOAT64, DLX_COMPLEX64, DLX_COMPLEX128};
#define NKDTYPES (sizeof kdtypes / sizeof kdtypes[0])

static dlx_dtype random_computable(void) { return (dlx_dtype)rnd_below(DLX_COMPLEX128 + 1); }

static void fill_random(dlx_tensor *t) {
  unsigned char *p = t->buffer->data;
  size_t bytes = (size_t)(dlx_tensor_numel(t) * dlx_itemsize(t->dtype));
  for (size_t i = 0; i < bytes; i++) p[i] = (unsigned char)rnd();
  if (t->dtype == DLX_BOOL)
    for (size_t i = 0; i < bytes; i++) p[i] &= 1;
}

/* A part in [-2, 2], never 0, for complex pow (whose special cases differ from C's cpow). */
static double gentle_part(void) { return (double)(1 + rnd_below(8)) / 4 * (rnd_below(2) ? 1 : -1); }

/* A tensor of such parts. */
static void fill_gentle_complex(dlx_tensor *t) {
  dlx_tensor wide = cpu_vector(DLX_COMPLEX128, dlx_tensor_numel(t));
  double *p = wide.buffer->data;
  for (int64_t i = 0; i < 2 * dlx_tensor_numel(t); i++) p[i] = gentle_part();
  dlx_cpu_backend.copy(t, &wide, NULL);
  dlx_tensor_close(&wide);
}

static void as_doubles(const void *p, dlx_dtype dtype, double out[2]) {
  dlx_tensor src = cpu_vector(dtype, 1), dst = cpu_vector(DLX_COMPLEX128, 1);
  memcpy(src.buffer->data, p, (size_t)dlx_itemsize(dtype));
  dlx_cpu_backend.copy(&dst, &src, NULL);
  memcpy(out, dst.buffer->data, 16);
  dlx_tensor_close(&src);
  dlx_tensor_close(&dst);
}

/* The distance in ulps of two floats of dtype (ulp.h). */
static uint64_t ulp_distance(const void *a, const void *b, dlx_dtype dtype) {
  double g[2], w[2];
  as_doubles(a, dtype, g);
  as_doubles(b, dtype, w);
  return ulp_distance_of(a, b, dtype, isnan(g[0]), isnan(w[0]));
}

static int same_result(const void *got, const void *want, dlx_dtype dtype, int approx,
                       uint64_t ulps) {
  double g[2], w[2];
  if (memcmp(got, want, (size_t)dlx_itemsize(dtype)) == 0) return 1;
  if (ulps > 0) return ulp_distance(got, want, dtype) <= ulps;
  as_doubles(got, dtype, g);
  as_doubles(want, dtype, w);
  if (approx) return hypot(g[0] - w[0], g[1] - w[1]) <= 1e-5 * hypot(w[0], w[1]) + 1e-30;
  for (int c = 0; c < 2; c++) /* NaNs may differ in payload */
    if (!(g[c] == w[c] || (isnan(g[c]) && isnan(w[c])))) return 0;
  return 1;
}

static int is_math(dlx_ew_op op) { return op >= DLX_EW_SQRT && op <= DLX_EW_ERF; }

/* A scalar operand: random bits of dtype, as the core would send them. */
static dlx_scalar random_scalar(dlx_dtype dtype) {
  dlx_tensor one = cpu_vector(dtype, 1), wide;
  dlx_kind kind = dlx_dtype_kind(dtype);
  dlx_dtype wide_dtype = kind == DLX_KIND_BOOL    ? DLX_BOOL
                         : kind == DLX_KIND_INT   ? DLX_INT64
                         : kind == DLX_KIND_UINT  ? DLX_UINT64
                         : kind == DLX_KIND_FLOAT ? DLX_FLOAT64
                                                  : DLX_COMPLEX128;
  dlx_scalar s;
  memset(&s, 0, sizeof s);
  fill_random(&one);
  wide = cpu_vector(wide_dtype, 1);
  dlx_cpu_backend.copy(&wide, &one, NULL);
  s.kind = kind;
  if (kind == DLX_KIND_BOOL)
    s.v.b = ((unsigned char *)wide.buffer->data)[0] != 0;
  else
    memcpy(&s.v, wide.buffer->data, (size_t)dlx_itemsize(wide_dtype));
  dlx_tensor_close(&one);
  dlx_tensor_close(&wide);
  return s;
}

/* Which inputs of op are scalars in this run: nan_to_num's values always (the core takes them
 * from Lua numbers), others now and then, never all. */
static void choose_scalars(dlx_ew_op op, int nin, int *is_scalar) {
  int tensor = op == DLX_EW_NAN_TO_NUM ? 0 : (int)rnd_below((uint64_t)nin);
  for (int k = 0; k < nin; k++)
    is_scalar[k] = op == DLX_EW_NAN_TO_NUM ? k > 0 : k != tensor && rnd_below(4) == 0;
}

/* One run of op in kernel dtype kdtype over N elements: the CPU backend's elementwise against
 * the CUDA element step, element by element. */
static void check_op(dlx_ew_op op, dlx_dtype kdtype) {
  int code = dlx_ewk_op_of(op), nin = dlx_ew_arity(op);
  dlx_dtype compute = kdtype, kout = dlx_ew_result_of(op, kdtype), dst_dtype;
  int approx = op == DLX_EW_POW && dlx_dtype_kind(kdtype) == DLX_KIND_COMPLEX;
  uint64_t ulps = is_math(op) ? (kdtype == DLX_FLOAT64 ? 2 : 1) : 0;
  int is_scalar[DLX_EW_MAX_INPUTS] = {0};
  dlx_tensor dst, in[DLX_EW_MAX_INPUTS];
  dlx_operand ops[DLX_EW_MAX_INPUTS];
  double scalar[DLX_EW_MAX_INPUTS][2];
  unsigned char got[16];
  if (kdtype == DLX_FLOAT32)
    compute = (dlx_dtype[]){DLX_FLOAT16, DLX_BFLOAT16, DLX_FLOAT32}[rnd_below(3)];
  kdtype = dlx_ewk_kernel_dtype_of(op, compute); /* (where keeps float16 and bfloat16) */
  kout = dlx_ew_result_of(op, kdtype);
  dst_dtype = dlx_ew_result_of(op, compute);
  /* (math results are compared in ulps of their own dtype) */
  if (!approx && ulps == 0 && rnd_below(3) == 0) dst_dtype = random_computable();
  dst = cpu_vector(dst_dtype, N);
  memset(ops, 0, sizeof ops);
  memset(in, 0, sizeof in);
  choose_scalars(op, nin, is_scalar);
  for (int k = 0; k < nin; k++) {
    dlx_dtype kind_dtype = dlx_ew_input_dtype(op, k, compute);
    if (is_scalar[k]) {
      ops[k].scalar = random_scalar(kind_dtype);
      if (approx) { /* a scalar operand of complex pow is as gentle as a tensor one */
        ops[k].scalar.v.c[0] = gentle_part();
        ops[k].scalar.v.c[1] = gentle_part();
      }
      CHECK(dlx_ewk_scalar_bytes(op, k, compute, &ops[k].scalar, scalar[k], NULL) == 0);
      continue;
    }
    in[k] = cpu_vector(!approx && rnd_below(3) == 0 ? random_computable() : kind_dtype, N);
    if (approx)
      fill_gentle_complex(&in[k]);
    else
      fill_random(&in[k]);
    ops[k].tensor = &in[k];
  }
  CHECK(dlx_cpu_backend.elementwise(op, &dst, ops, compute, NULL) == 0);
  for (int64_t i = 0; i < N; i++) {
    const void *p[DLX_EW_MAX_INPUTS];
    int dt[DLX_EW_MAX_INPUTS];
    for (int k = 0; k < nin; k++) {
      dt[k] = is_scalar[k] ? dlx_ewk_input_dtype(code, k, (int)kdtype) : (int)in[k].dtype;
      p[k] = is_scalar[k] ? (const void *)scalar[k]
                          : (const char *)in[k].buffer->data + i * dlx_itemsize(in[k].dtype);
    }
    cxx_ew_element(code, nin, (int)kdtype, (int)kout, (int)dst_dtype, got, p, dt);
    if (!same_result(got, (char *)dst.buffer->data + i * dlx_itemsize(dst_dtype), dst_dtype, approx,
                     ulps)) {
      double g[2], w[2];
      as_doubles(got, dst_dtype, g);
      as_doubles((char *)dst.buffer->data + i * dlx_itemsize(dst_dtype), dst_dtype, w);
      check_failures++;
      fprintf(stderr,
              "%s in %s (compute %s, dst %s): element %" PRId64
              " differs from the CPU: %a, CPU %a\n",
              dlx_ew_name(op), dlx_dtype_info_of(kdtype)->name, dlx_dtype_info_of(compute)->name,
              dlx_dtype_info_of(dst_dtype)->name, i, g[0], w[0]);
      break;
    }
  }
  check_count++;
  dlx_tensor_close(&dst);
  for (int k = 0; k < nin; k++)
    if (ops[k].tensor != NULL) dlx_tensor_close(&in[k]);
}

/* The kernels have an op for a kernel dtype exactly when the CPU does; ops they lack (ones added
 * to dlx_ew_op after them) are refused with a DeviceError naming the device. */
static void check_coverage(void) {
  dlx_error err;
  int code;
  for (int op = 0; op < DLX_EW_NUM_OPS; op++) {
    for (size_t k = 0; k < NKDTYPES; k++) {
      int has =
          dlx_ewk_result(dlx_ewk_op_of((dlx_ew_op)op), (int)kdtypes[k]) != DLX_EWK_RESULT_NONE;
      int cpu = dlx_ew_arity((dlx_ew_op)op) > 2
                    ? dlx_cpu_ew_ternary_kernel((dlx_ew_op)op, kdtypes[k]) != NULL
                    : dlx_cpu_ew_kernel_for((dlx_ew_op)op, kdtypes[k]) != NULL;
      if (dlx_ewk_op_of((dlx_ew_op)op) == DLX_EWK_NONE) {
        CHECK(dlx_ewk_check((dlx_ew_op)op, kdtypes[k], "cuda:0", &code, &err) == DLX_DEVICE_ERROR);
        continue;
      }
      CHECK(has == cpu);
      if (has) CHECK(dlx_ewk_check((dlx_ew_op)op, kdtypes[k], "cuda:0", &code, &err) == 0);
    }
  }
  /* an op number beyond the table, as a newer core would send */
  CHECK(dlx_ewk_op_of((dlx_ew_op)DLX_EW_NUM_OPS) == DLX_EWK_NONE);
  CHECK(dlx_ewk_check((dlx_ew_op)DLX_EW_NUM_OPS, DLX_FLOAT32, "cuda:0", &code, &err) ==
        DLX_DEVICE_ERROR);
  CHECK(strstr(err.message, "not implemented on cuda:0 yet: move the tensor to the CPU first "
                            "(t:to(\"cpu\"))") != NULL);
}

/* The choice of the vectorised kernel, which reads each input forward from its element 0: only
 * for inputs of stride 1 (or 0, read once), aligned; a flipped input (stride -1) read forward
 * would give other elements, past the end of the view. */
static void check_vectorisable(void) {
  static double data[8];
  dlx_cuda_ew_params p;
  memset(&p, 0, sizeof p);
  p.op = DLX_EWK_ADD;
  p.nin = 2;
  p.kdtype = p.kout = p.dst_dtype = p.in_dtype[0] = p.in_dtype[1] = DLX_CUDA_FLOAT32;
  p.ndim = 1;
  p.numel = 4;
  p.shape[0] = 4;
  p.dst = data;
  p.in[0] = data + 2; /* 16-byte aligned, as data is */
  p.in[1] = data + 4;
  p.dst_strides[0] = p.in_strides[0][0] = p.in_strides[1][0] = 1;
  CHECK(cxx_ew_vectorisable(&p, 16, 16));
  p.in_strides[1][0] = 0; /* broadcast whole: read once */
  CHECK(cxx_ew_vectorisable(&p, 16, 16));
  p.in_strides[1][0] = -1; /* t:flip(1) */
  CHECK(!cxx_ew_vectorisable(&p, 16, 16));
  p.in_strides[1][0] = 2;
  CHECK(!cxx_ew_vectorisable(&p, 16, 16));
  p.in_strides[1][0] = 1;
  p.in[1] = (const char *)(data + 4) + 4; /* misaligned view */
  CHECK(!cxx_ew_vectorisable(&p, 16, 16));
  p.in[1] = data + 4;
  p.dst_strides[0] = -1;
  CHECK(!cxx_ew_vectorisable(&p, 16, 16));
  p.dst_strides[0] = 1;
  p.in_dtype[0] = DLX_CUDA_FLOAT64; /* cast on load: the strided kernel */
  CHECK(!cxx_ew_vectorisable(&p, 16, 16));
}

int main(void) {
  rnd_seed("cuda_elementwise_rules", UINT64_C(0x9E3779B97F4A7C15));
  check_coverage();
  check_vectorisable();
  for (int op = 0; op < DLX_EW_NUM_OPS; op++) {
    if (dlx_ewk_op_of((dlx_ew_op)op) == DLX_EWK_NONE) continue;
    for (size_t k = 0; k < NKDTYPES; k++) {
      if (dlx_ewk_result(dlx_ewk_op_of((dlx_ew_op)op), (int)kdtypes[k]) == DLX_EWK_RESULT_NONE)
        continue;
      for (int rep = 0; rep < 12; rep++) check_op((dlx_ew_op)op, kdtypes[k]);
    }
  }
  return check_report("cuda_elementwise_rules");
}
