/* test_ze_kernels.c -- the Level Zero backend's OpenCL C kernels (src/ze/kernels/dlx_kernels.cl)
 * run by an OpenCL CPU device against dlx's CPU backend on random inputs: every pair of
 * computable dtypes for the casts (random bytes: NaN payloads, inf, subnormals, huge values),
 * bit-for-bit copies, fills, every reduction of every dtype over odd shapes with permuted,
 * sliced and negative strides, with one and several chunks per output (the second pass), and
 * every elementwise op of every dtype (inputs of other dtypes, broadcast and scalar inputs,
 * outputs of other dtypes, all in such layouts), the phases of the indexing kernel (every
 * whole-byte dtype, stride-0 operands, repeated indices, empty and 0-d masks), and the matrix
 * product in both its modes for every computable dtype (layouts, batches, conjugates, alpha and
 * beta, misaligned elements; against the CPU backend's matmul). Memory is OpenCL shared virtual
 * memory, so that kernels get interior pointers exactly as Level Zero USM gives them.
 *
 * The kernels are built from source, or, with DLX_ZE_KERNEL_IL=path, loaded from the SPIR-V that
 * the library embeds (clCreateProgramWithIL). PoCL (CI) has no sub-groups: the reductions then
 * combine in local memory alone. A device with Intel sub-groups (Intel's CPU OpenCL runtime, see
 * tests/ze_kernels/intel_opencl_rt.sh) runs the shuffles too: built from source, the reductions
 * and the matrix products are run again with the sub-group size pinned to each size the device
 * offers.
 * DLX_ZE_EXPECT_SUBGROUPS=1 fails the test when the reductions ran without sub-groups.
 *
 * Exit status 77 (a skip for ctest) when there is no OpenCL device; 1 when a check fails. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "check.h"
#include "common/distributions.h"
#include "common/philox.h"
#include "common/stats_ops.h"
#include "core/backend.h"
#include "core/buffer.h"
#include "core/elementwise_kernels.h"
#include "core/ops.h"
#include "core/random.h"
#include "core/sort.h"
#include "core/stats.h"
#include "core/tensor.h"
#include "cpu/matmul.h"
#include "ulp.h"
#include "ze/kernels/ze_args.h"

#define SKIP 77

static cl_context context;
static cl_command_queue queue;
static cl_program program;
static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void) { /* xorshift64* */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1du;
}

/* ---- OpenCL */

/* The file's bytes, NUL-terminated; *size_out (when not NULL) gets their count. */
static char *read_file(const char *path, size_t *size_out) {
  FILE *f = fopen(path, "rb");
  long size;
  char *text;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  text = calloc(1, (size_t)size + 1);
  if (text != NULL && fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    text = NULL;
  }
  fclose(f);
  if (size_out != NULL) *size_out = (size_t)size;
  return text;
}

static cl_device_id device;

/* The SPIR-V at DLX_ZE_KERNEL_IL, or the source built with -DDLX_ZE_TEST_SUBGROUP_SIZE=n when
 * n > 0. */
static int build_program(int subgroup_size) {
  const char *il_path = getenv("DLX_ZE_KERNEL_IL");
  char options[1024], log[8192] = "";
  cl_int rc;
  if (program != NULL) clReleaseProgram(program);
  if (il_path != NULL && il_path[0] != '\0') {
    size_t size = 0;
    char *il = read_file(il_path, &size);
    if (il == NULL) return fprintf(stderr, "cannot read %s\n", il_path), 1;
    program = clCreateProgramWithIL(context, il, size, &rc);
    free(il);
    options[0] = '\0';
  } else {
    char *source = read_file(DLX_ZE_KERNEL_SOURCE, NULL);
    if (source == NULL) return fprintf(stderr, "cannot read %s\n", DLX_ZE_KERNEL_SOURCE), 1;
    program = clCreateProgramWithSource(context, 1, (const char **)&source, NULL, &rc);
    free(source);
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt -I%s/src/ze/kernels/shim "
             "-I%s/src -I%s/include",
             DLX_SOURCE_DIR, DLX_SOURCE_DIR, DLX_SOURCE_DIR);
    if (subgroup_size > 0) {
      size_t used = strlen(options);
      snprintf(options + used, sizeof options - used, " -DDLX_ZE_TEST_SUBGROUP_SIZE=%d",
               subgroup_size);
    }
  }
  if (rc == CL_SUCCESS) rc = clBuildProgram(program, 1, &device, options, NULL, NULL);
  if (rc != CL_SUCCESS) {
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    fprintf(stderr, "building the kernels failed (%d):\n%s\n", rc, log);
    return 1;
  }
  return 0;
}

static int open_device(void) {
  cl_platform_id platform;
  cl_uint n = 0;
  cl_int rc;
  char name[256] = "", version[256] = "";
  if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0 ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &n) != CL_SUCCESS || n == 0) {
    printf("SKIP: no OpenCL device (apt-get install pocl-opencl-icd)\n");
    return SKIP;
  }
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
  clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
  printf("OpenCL: %s, %s\n", name, version);
  context = clCreateContext(NULL, 1, &device, NULL, NULL, &rc);
  if (rc != CL_SUCCESS) return fprintf(stderr, "clCreateContext failed (%d)\n", rc), 1;
  queue = clCreateCommandQueueWithProperties(context, device, NULL, &rc);
  if (rc != CL_SUCCESS) return fprintf(stderr, "clCreateCommandQueue failed (%d)\n", rc), 1;
  return build_program(0);
}

/* The sub-group size the reductions run with (1: no sub-groups; 0: no such kernel). */
static size_t reduce_subgroup_size(void) {
  cl_int rc;
  cl_kernel k = clCreateKernel(program, DLX_ZE_KERNEL_REDUCE_PARTIAL, &rc);
  size_t local = DLX_ZE_GROUP_SIZE, size = 0;
  if (rc != CL_SUCCESS) return 0;
  rc = clGetKernelSubGroupInfo(k, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                               &local, sizeof size, &size, NULL);
  clReleaseKernel(k);
  return rc == CL_SUCCESS && size > 1 ? size : 1;
}

/* The sub-group sizes the device offers (cl_intel_required_subgroup_size); 0 when it names none. */
#define DEVICE_SUB_GROUP_SIZES_INTEL 0x4108
static size_t device_subgroup_sizes(size_t *sizes, size_t max) {
  size_t bytes = 0;
  if (clGetDeviceInfo(device, DEVICE_SUB_GROUP_SIZES_INTEL, max * sizeof *sizes, sizes, &bytes) !=
      CL_SUCCESS)
    return 0;
  return bytes / sizeof *sizes;
}

static void *svm(size_t n) {
  void *p = clSVMAlloc(context, CL_MEM_READ_WRITE, n ? n : 1, 64);
  if (p == NULL) {
    fprintf(stderr, "clSVMAlloc(%zu) failed\n", n);
    exit(1);
  }
  return p;
}

/* Host access to coarse-grained SVM happens between a map and an unmap. */
static void host_access(void *p, size_t n, int on) {
  if (on)
    clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, p, n ? n : 1, 0, NULL, NULL);
  else
    clEnqueueSVMUnmap(queue, p, 0, NULL, NULL);
  clFinish(queue);
}

/* Runs kernel `name` on `groups` work-groups; args are SVM pointers (interior ones allowed). */
static int run(const char *name, size_t groups, void *const *args, int nargs) {
  cl_int rc;
  cl_kernel k = clCreateKernel(program, name, &rc);
  size_t local = DLX_ZE_GROUP_SIZE, global = groups * DLX_ZE_GROUP_SIZE;
  for (int i = 0; rc == CL_SUCCESS && i < nargs; i++)
    rc = clSetKernelArgSVMPointer(k, (cl_uint)i, args[i]);
  if (rc == CL_SUCCESS)
    rc = clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
  if (rc == CL_SUCCESS) rc = clFinish(queue);
  clReleaseKernel(k);
  if (rc != CL_SUCCESS) fprintf(stderr, "%s: OpenCL error %d\n", name, rc);
  return rc == CL_SUCCESS ? 0 : -1;
}

/* ---- tensors over raw memory */

/* A view over `base` (which holds `span` bytes): shape, element strides, first element at byte
 * `first`. */
typedef struct layout {
  int32_t ndim;
  int64_t shape[4], strides[4], first, span;
} layout;

/* A random layout of shape: dims permuted, some flipped, the last dim possibly strided. */
static layout random_layout(int32_t ndim, const int64_t *shape, int64_t itemsize) {
  layout l = {.ndim = ndim};
  int64_t order[4] = {0, 1, 2, 3}, stride = 1 + (int64_t)(next_random() % 2), lo = 0, hi = 0;
  for (int32_t i = ndim - 1; i > 0; i--) {
    int32_t j = (int32_t)(next_random() % (uint64_t)(i + 1));
    int64_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (int32_t i = ndim - 1; i >= 0; i--) {
    int32_t d = (int32_t)order[i];
    l.shape[d] = shape[d];
    l.strides[d] = next_random() % 3 == 0 ? -stride : stride;
    stride *= shape[d] + (int64_t)(next_random() % 2); /* sometimes padded */
  }
  for (int32_t d = 0; d < ndim; d++) {
    if (l.strides[d] < 0)
      lo += (l.shape[d] - 1) * l.strides[d];
    else
      hi += (l.shape[d] - 1) * l.strides[d];
  }
  l.first = -lo * itemsize;
  l.span = (hi - lo + 1) * itemsize;
  return l;
}

static dlx_tensor as_tensor(const layout *l, dlx_dtype dtype, void *base) {
  DLDevice cpu = {kDLCPU, 0};
  dlx_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.ndim = l->ndim;
  memcpy(t.shape, l->shape, sizeof l->shape);
  memcpy(t.strides, l->strides, sizeof l->strides);
  t.buffer = dlx_buffer_wrap(cpu, (char *)base + l->first, 0, NULL, NULL, NULL);
  return t;
}

static void random_bytes(unsigned char *p, int64_t n) {
  for (int64_t i = 0; i < n; i++) p[i] = (unsigned char)next_random();
}

/* Values every dtype holds exactly (small integers, halves), for the reductions; for products
 * only +-1 and +-0.5, so that no partial product overflows in one order and not another; for
 * the extremes of floats a NaN now and then (it must win, at its first position). */
static void gentle_values(unsigned char *p, const layout *l, dlx_dtype dtype, dlx_reduce_op op) {
  bool product = op == DLX_REDUCE_PROD, extreme = op >= DLX_REDUCE_MIN && op <= DLX_REDUCE_ARGMAX;
  dlx_tensor src, dst;
  DLDevice cpu = {kDLCPU, 0};
  int64_t n = 1;
  for (int32_t d = 0; d < l->ndim; d++) n *= l->shape[d];
  dlx_tensor_empty(&src, l->shape, l->ndim, DLX_FLOAT64, cpu, NULL);
  for (int64_t i = 0; i < n; i++) {
    double v = (double)((int64_t)(next_random() % 17) - 8) / (dtype == DLX_BOOL ? 1 : 2);
    if (product) v = (next_random() % 2 ? 1.0 : 0.5) * (next_random() % 2 ? 1 : -1);
    if (dlx_dtype_kind(dtype) == DLX_KIND_UINT || dtype == DLX_BOOL) v = fabs(v);
    if (extreme && dlx_dtype_kind(dtype) == DLX_KIND_FLOAT && next_random() % 97 == 0) v = NAN;
    ((double *)src.buffer->data)[i] = v;
  }
  dst = as_tensor(l, dtype, p);
  dlx_cpu_backend.copy(&dst, &src, NULL);
  dlx_tensor_close(&dst);
  dlx_tensor_close(&src);
}

/* ---- casts and raw copies */

static void byte_strides(const layout *l, int64_t itemsize, dlx_ze_i64 *out) {
  for (int32_t d = 0; d < l->ndim; d++) out[d] = l->strides[d] * itemsize;
}

static void test_copy(dlx_dtype to, dlx_dtype from) {
  int64_t shape[3] = {3, 1 + (int64_t)(next_random() % 6), 5 + (int64_t)(next_random() % 4)};
  int64_t dsize = dlx_itemsize(to), ssize = dlx_itemsize(from);
  layout dl = random_layout(3, shape, dsize), sl = random_layout(3, shape, ssize);
  unsigned char *src = svm((size_t)sl.span), *dst = svm((size_t)dl.span);
  unsigned char *want = malloc((size_t)dl.span);
  dlx_ze_copy_args *a = svm(sizeof *a);
  dlx_tensor wt, st;
  host_access(src, (size_t)sl.span, 1);
  host_access(dst, (size_t)dl.span, 1);
  host_access(a, sizeof *a, 1);
  random_bytes(src, sl.span);
  random_bytes(dst, dl.span);
  memcpy(want, dst, (size_t)dl.span);
  memset(a, 0, sizeof *a);
  a->n = shape[0] * shape[1] * shape[2];
  a->ndim = 3;
  a->dst_dtype = to;
  a->src_dtype = from;
  a->itemsize = dsize;
  memcpy(a->shape, shape, sizeof shape);
  byte_strides(&dl, dsize, a->dst_strides);
  byte_strides(&sl, ssize, a->src_strides);
  wt = as_tensor(&dl, to, want);
  st = as_tensor(&sl, from, src);
  CHECK(dlx_cpu_backend.copy(&wt, &st, NULL) == 0);
  host_access(src, (size_t)sl.span, 0);
  host_access(dst, (size_t)dl.span, 0);
  host_access(a, sizeof *a, 0);
  CHECK(run(to == from ? DLX_ZE_KERNEL_COPY_RAW : DLX_ZE_KERNEL_COPY_CAST, 1 + next_random() % 3,
            (void *const[]){dst + dl.first, src + sl.first, a}, 3) == 0);
  host_access(dst, (size_t)dl.span, 1);
  if (memcmp(dst, want, (size_t)dl.span) != 0) {
    check_failures++;
    fprintf(stderr, "copy %s <- %s differs from the CPU backend\n", dlx_dtype_info_of(to)->name,
            dlx_dtype_info_of(from)->name);
  }
  check_count++;
  host_access(dst, (size_t)dl.span, 0);
  dlx_tensor_close(&wt);
  dlx_tensor_close(&st);
  free(want);
  clSVMFree(context, src);
  clSVMFree(context, dst);
  clSVMFree(context, a);
}

/* ---- fills */

static void test_fill(dlx_dtype dtype) {
  int64_t shape[2] = {4, 7}, size = dlx_itemsize(dtype);
  layout l = random_layout(2, shape, size);
  unsigned char *dst = svm((size_t)l.span), *want = malloc((size_t)l.span);
  dlx_ze_fill_args *a = svm(sizeof *a);
  host_access(dst, (size_t)l.span, 1);
  host_access(a, sizeof *a, 1);
  random_bytes(dst, l.span);
  memcpy(want, dst, (size_t)l.span);
  memset(a, 0, sizeof *a);
  a->n = 28;
  a->ndim = 2;
  a->itemsize = size;
  a->value[0] = next_random();
  a->value[1] = next_random();
  memcpy(a->shape, shape, sizeof shape);
  byte_strides(&l, size, a->strides);
  for (int64_t i = 0; i < 4; i++) {
    for (int64_t j = 0; j < 7; j++)
      memcpy(want + l.first + (i * l.strides[0] + j * l.strides[1]) * size, a->value, (size_t)size);
  }
  host_access(dst, (size_t)l.span, 0);
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_FILL, 1, (void *const[]){dst + l.first, a}, 2) == 0);
  host_access(dst, (size_t)l.span, 1);
  CHECK(memcmp(dst, want, (size_t)l.span) == 0);
  host_access(dst, (size_t)l.span, 0);
  free(want);
  clSVMFree(context, dst);
  clSVMFree(context, a);
}

/* ---- reductions */

static bool close_values(double a, double b, double rel) {
  if (a == b || (isnan(a) && isnan(b))) return true;
  return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-12;
}

/* Results as doubles (one or two per element) to compare within a tolerance. */
static void result_values(const unsigned char *p, dlx_dtype dtype, int64_t n, double *out) {
  dlx_tensor src, dst;
  DLDevice cpu = {kDLCPU, 0};
  bool complex = dlx_dtype_kind(dtype) == DLX_KIND_COMPLEX;
  layout l = {.ndim = 1, .shape = {n}, .strides = {1}};
  int64_t shape[1] = {n};
  src = as_tensor(&l, dtype, (void *)p);
  dlx_tensor_empty(&dst, shape, 1, complex ? DLX_COMPLEX128 : DLX_FLOAT64, cpu, NULL);
  dlx_cpu_backend.copy(&dst, &src, NULL);
  memcpy(out, dst.buffer->data, (size_t)(n * (complex ? 16 : 8)));
  dlx_tensor_close(&src);
  dlx_tensor_close(&dst);
}

static void reduce_args(const layout *l, uint64_t dims, dlx_dtype from, dlx_reduce_op op,
                        dlx_dtype to, int64_t chunks, dlx_ze_reduce_args *a) {
  int64_t size = dlx_itemsize(from);
  memset(a, 0, sizeof *a);
  a->op = op;
  a->src_dtype = from;
  a->dst_dtype = to;
  a->n_out = a->n_red = 1;
  for (int32_t d = 0; d < l->ndim; d++) {
    if (dims & (UINT64_C(1) << d)) {
      a->red_shape[a->red_ndim] = l->shape[d];
      a->red_strides[a->red_ndim++] = l->strides[d] * size;
      a->n_red *= l->shape[d];
    } else {
      a->out_shape[a->out_ndim] = l->shape[d];
      a->out_strides[a->out_ndim++] = l->strides[d] * size;
      a->n_out *= l->shape[d];
    }
  }
  a->chunks = chunks > a->n_red ? (a->n_red > 0 ? a->n_red : 1) : chunks;
  a->chunk_len = (a->n_red + a->chunks - 1) / a->chunks;
  a->chunks = a->chunk_len > 0 ? (a->n_red + a->chunk_len - 1) / a->chunk_len : 1;
}

static void test_reduce(dlx_reduce_op op, dlx_dtype from, uint64_t dims, int64_t chunks) {
  int64_t shape[3] = {2 + (int64_t)(next_random() % 3), 1 + (int64_t)(next_random() % 5),
                      3 + (int64_t)(next_random() % 300)};
  int64_t size = dlx_itemsize(from), out_shape[3];
  layout l = random_layout(3, shape, size);
  dlx_dtype to;
  dlx_ze_reduce_args *a = svm(sizeof *a);
  unsigned char *src = svm((size_t)l.span), *dst, *want;
  dlx_ze_acc *partials;
  dlx_tensor st, wt;
  DLDevice cpu = {kDLCPU, 0};
  double got_v[2 * 64], want_v[2 * 64];
  if (dlx_reduce_dtype(op, from, &to, NULL) != 0) return;
  for (int d = 0; d < 3; d++) out_shape[d] = (dims & (UINT64_C(1) << d)) ? 1 : shape[d];
  host_access(src, (size_t)l.span, 1);
  host_access(a, sizeof *a, 1);
  gentle_values(src, &l, from, op);
  reduce_args(&l, dims, from, op, to, chunks, a);
  st = as_tensor(&l, from, src);
  dlx_tensor_empty(&wt, out_shape, 3, to, cpu, NULL);
  CHECK(dlx_cpu_backend.reduce(op, &st, dims, &wt, NULL) == 0);
  want = wt.buffer->data;
  dst = svm((size_t)(a->n_out * dlx_itemsize(to)));
  partials = svm((size_t)(a->n_out * a->chunks) * sizeof *partials);
  host_access(src, (size_t)l.span, 0);
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_REDUCE_PARTIAL, (size_t)(a->n_out * a->chunks),
            (void *const[]){src + l.first, partials, a}, 3) == 0);
  CHECK(run(DLX_ZE_KERNEL_REDUCE_FINISH, (size_t)a->n_out, (void *const[]){dst, partials, a}, 3) ==
        0);
  host_access(dst, (size_t)(a->n_out * dlx_itemsize(to)), 1);
  host_access(a, sizeof *a, 1);
  {
    dlx_kind kind = dlx_dtype_kind(to);
    bool exact = kind != DLX_KIND_FLOAT && kind != DLX_KIND_COMPLEX;
    exact = exact || op == DLX_REDUCE_MIN || op == DLX_REDUCE_MAX;
    int64_t n = a->n_out < 64 ? a->n_out : 64;
    bool ok;
    if (exact) {
      ok = memcmp(dst, want, (size_t)(a->n_out * dlx_itemsize(to))) == 0;
    } else {
      int64_t count = n * (kind == DLX_KIND_COMPLEX ? 2 : 1);
      double rel = (from == DLX_FLOAT16 || from == DLX_BFLOAT16) ? 1e-2 : 1e-6;
      result_values(dst, to, n, got_v);
      result_values(want, to, n, want_v);
      ok = true;
      for (int64_t i = 0; i < count; i++) ok = ok && close_values(got_v[i], want_v[i], rel);
    }
    check_count++;
    if (!ok) {
      check_failures++;
      fprintf(stderr, "reduce op %d of %s over dims 0x%llx (%lld chunks) differs from the CPU\n",
              (int)op, dlx_dtype_info_of(from)->name, (unsigned long long)dims,
              (long long)a->chunks);
    }
  }
  host_access(dst, (size_t)(a->n_out * dlx_itemsize(to)), 0);
  host_access(a, sizeof *a, 0);
  dlx_tensor_close(&st);
  dlx_tensor_close(&wt);
  clSVMFree(context, src);
  clSVMFree(context, dst);
  clSVMFree(context, partials);
  clSVMFree(context, a);
}

static void test_reductions(void) {
  static const uint64_t dims[] = {7, 4, 1, 5};
  for (int op = DLX_REDUCE_SUM; op <= DLX_REDUCE_ANY; op++) {
    for (int dtype = DLX_BOOL; dtype <= DLX_COMPLEX128; dtype++) {
      for (size_t k = 0; k < sizeof dims / sizeof dims[0]; k++) {
        bool arg = op == DLX_REDUCE_ARGMIN || op == DLX_REDUCE_ARGMAX;
        if (arg && dims[k] != 7 && (dims[k] & (dims[k] - 1)) != 0) continue;
        test_reduce((dlx_reduce_op)op, (dlx_dtype)dtype, dims[k], 1);
        test_reduce((dlx_reduce_op)op, (dlx_dtype)dtype, dims[k], 3);
      }
    }
  }
}

/* The matrix products (below) also run at each pinned sub-group size. */
static void test_matmuls(void);
static size_t matmul_subgroup_size(void);

/* The reductions again with the sub-group size pinned to each size the device offers. */
static void test_reductions_per_subgroup_size(void) {
  size_t sizes[16], count = device_subgroup_sizes(sizes, 16);
  for (size_t i = 0; i < count; i++) {
    if (build_program((int)sizes[i]) != 0) {
      check_failures++;
      continue;
    }
    CHECK(reduce_subgroup_size() == sizes[i]);
    printf("reductions: sub-groups of %zu (pinned)\n", sizes[i]);
    test_reductions();
    CHECK(matmul_subgroup_size() == sizes[i]);
    test_matmuls();
  }
}

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

/* The distance in ulps of two floats of dtype (their bits as ordered integers); 0 for two NaNs. */
static uint64_t ulp_distance(const unsigned char *a, const unsigned char *b, dlx_dtype dtype) {
  int64_t size = dlx_itemsize(dtype);
  uint64_t x = 0, y = 0, sign = UINT64_C(1) << (8 * size - 1);
  double g[2], w[2];
  result_values(a, dtype, 1, g);
  result_values(b, dtype, 1, w);
  if (isnan(g[0]) || isnan(w[0])) return isnan(g[0]) && isnan(w[0]) ? 0 : UINT64_MAX;
  memcpy(&x, a, (size_t)size);
  memcpy(&y, b, (size_t)size);
  x = x & sign ? sign - (x & ~sign) : sign + x; /* (little-endian) */
  y = y & sign ? sign - (y & ~sign) : sign + y;
  return x > y ? x - y : y - x;
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
static void test_elementwise_ops(void) {
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

static void test_math_ulp(void) {
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

/* ---- var, std, logsumexp, norm; cumsum, cumprod, softmax, log_softmax */

/* Values for the statistics, written as float64 and cast to dtype: halves in [-4, 4]; in mode 1
 * with an offset of 1e6 (var must not cancel), in mode 2 with NaN and infinities now and then, in
 * mode 3 scaled near the top or bottom of float64 (norm 2 must not overflow or underflow). */
static void stat_values(unsigned char *p, const layout *l, dlx_dtype dtype, int mode) {
  dlx_tensor src, dst;
  DLDevice cpu = {kDLCPU, 0};
  bool floating = dlx_dtype_kind(dtype) == DLX_KIND_FLOAT;
  double scale = next_random() % 2 ? 1e300 : 1e-310;
  int64_t n = 1;
  for (int32_t d = 0; d < l->ndim; d++) n *= l->shape[d];
  dlx_tensor_empty(&src, l->shape, l->ndim, DLX_FLOAT64, cpu, NULL);
  for (int64_t i = 0; i < n; i++) {
    double v = (double)((int64_t)(next_random() % 17) - 8) / 2;
    uint64_t r = next_random() % 41;
    if (dlx_dtype_kind(dtype) == DLX_KIND_UINT || dtype == DLX_BOOL) v = fabs(v);
    if (mode == 1 && floating) v += dtype == DLX_FLOAT64 ? 1e6 : 1e3;
    if (mode == 2 && floating && r < 3) v = r == 0 ? NAN : r == 1 ? INFINITY : -INFINITY;
    if (mode == 3 && dtype == DLX_FLOAT64) v *= scale;
    ((double *)src.buffer->data)[i] = v;
  }
  dst = as_tensor(l, dtype, p);
  dlx_cpu_backend.copy(&dst, &src, NULL);
  dlx_tensor_close(&dst);
  dlx_tensor_close(&src);
}

/* Float results against the CPU's: equal, both NaN, or within rel (another summation order,
 * the device's exp and log). */
static bool results_close(const unsigned char *got, const unsigned char *want, dlx_dtype dtype,
                          int64_t n, double rel) {
  for (int64_t i = 0; i < n; i++) {
    double g, w;
    result_values(got + i * dlx_itemsize(dtype), dtype, 1, &g);
    result_values(want + i * dlx_itemsize(dtype), dtype, 1, &w);
    if (!(g == w || (isnan(g) && isnan(w)) || fabs(g - w) <= rel * fmax(fabs(g), fabs(w)))) {
      fprintf(stderr, "  element %lld: got %a, want %a\n", (long long)i, g, w);
      return false;
    }
  }
  return true;
}

static double tolerance_of(dlx_dtype result) {
  return result == DLX_FLOAT16 || result == DLX_BFLOAT16 ? 1e-2
         : result == DLX_FLOAT32                         ? 2e-6
                                                         : 1e-11;
}

static dlx_stat_op stat_op_of_kind(int kind, double *param) {
  static const double norms[] = {0, 0, 0, 1, 2, INFINITY};
  *param = kind <= DLX_STAT_K_STD ? (double)(next_random() % 3) : norms[kind];
  return kind == DLX_STAT_K_VAR   ? DLX_STAT_VAR
         : kind == DLX_STAT_K_STD ? DLX_STAT_STD
         : kind == DLX_STAT_K_LSE ? DLX_STAT_LOGSUMEXP
                                  : DLX_STAT_NORM;
}

static void test_stat(int kind, dlx_dtype from, uint64_t dims, int64_t chunks, int mode) {
  int64_t shape[3] = {1 + (int64_t)(next_random() % 3), (int64_t)(next_random() % 5),
                      1 + (int64_t)(next_random() % 600)};
  int64_t out_shape[3];
  double param;
  dlx_stat_op op = stat_op_of_kind(kind, &param);
  dlx_dtype to;
  layout l = random_layout(3, shape, dlx_itemsize(from));
  dlx_ze_stat_args *a = svm(sizeof *a);
  if (shape[1] == 0) { /* nothing to read: an empty reduced extent or no outputs */
    l.first = 0;
    l.span = dlx_itemsize(from);
  }
  dlx_ze_reduce_args r;
  unsigned char *src = svm((size_t)l.span), *dst;
  dlx_stat_acc *partials;
  dlx_tensor st, wt;
  DLDevice cpu = {kDLCPU, 0};
  if (dlx_stat_dtype("stat", from, &to, NULL) != 0) return;
  for (int d = 0; d < 3; d++) out_shape[d] = (dims & (UINT64_C(1) << d)) ? 1 : shape[d];
  host_access(src, (size_t)l.span, 1);
  host_access(a, sizeof *a, 1);
  stat_values(src, &l, from, mode);
  reduce_args(&l, dims, from, DLX_REDUCE_SUM, to, chunks, &r);
  memset(a, 0, sizeof *a);
  a->kind = kind;
  a->param = param;
  a->src_dtype = from;
  a->dst_dtype = to;
  a->n_out = r.n_out;
  a->n_red = r.n_red;
  a->chunks = r.chunks;
  a->chunk_len = r.chunk_len;
  a->out_ndim = r.out_ndim;
  a->red_ndim = r.red_ndim;
  memcpy(a->out_shape, r.out_shape, sizeof a->out_shape);
  memcpy(a->out_strides, r.out_strides, sizeof a->out_strides);
  memcpy(a->red_shape, r.red_shape, sizeof a->red_shape);
  memcpy(a->red_strides, r.red_strides, sizeof a->red_strides);
  st = as_tensor(&l, from, src);
  dlx_tensor_empty(&wt, out_shape, 3, to, cpu, NULL);
  if (a->n_out > 0) CHECK(dlx_cpu_backend.reduce_stat(op, param, &st, dims, &wt, NULL) == 0);
  dst = svm((size_t)(a->n_out * dlx_itemsize(to)));
  partials = svm((size_t)(a->n_out * a->chunks) * sizeof *partials);
  host_access(src, (size_t)l.span, 0);
  host_access(a, sizeof *a, 0);
  if (a->n_out > 0) {
    CHECK(run(DLX_ZE_KERNEL_STAT_PARTIAL, (size_t)(a->n_out * a->chunks),
              (void *const[]){src + l.first, partials, a}, 3) == 0);
    CHECK(run(DLX_ZE_KERNEL_STAT_FINISH, (size_t)a->n_out, (void *const[]){dst, partials, a}, 3) ==
          0);
  }
  host_access(dst, (size_t)(a->n_out * dlx_itemsize(to)), 1);
  check_count++;
  /* With the 1e6 offset, each side's block means are off by about 1e6 * 2^-53, and the two
   * merge them in different orders: float64 results then agree to about 1e-11, not better. A
   * one-pass formula would be off by about 1e-5 there, so 1e-9 still tells them apart. */
  if (!results_close(dst, wt.buffer->data, to, a->n_out,
                     mode == 1 && to == DLX_FLOAT64 ? 1e-9 : tolerance_of(to))) {
    check_failures++;
    fprintf(stderr,
            "stat kind %d (param %g) of %s over dims 0x%llx (%lld chunks, mode %d) "
            "differs from the CPU\n",
            kind, param, dlx_dtype_info_of(from)->name, (unsigned long long)dims,
            (long long)r.chunks, mode);
  }
  host_access(dst, (size_t)(a->n_out * dlx_itemsize(to)), 0);
  dlx_tensor_close(&st);
  dlx_tensor_close(&wt);
  clSVMFree(context, src);
  clSVMFree(context, dst);
  clSVMFree(context, partials);
  clSVMFree(context, a);
}

static void test_stats(void) {
  static const uint64_t dims[] = {7, 4, 1, 5};
  for (int kind = DLX_STAT_K_VAR; kind <= DLX_STAT_K_NORMINF; kind++)
    for (int dtype = DLX_BOOL; dtype <= DLX_FLOAT64; dtype++)
      for (size_t k = 0; k < sizeof dims / sizeof dims[0]; k++)
        for (int mode = 0; mode < 4; mode++)
          test_stat(kind, (dlx_dtype)dtype, dims[k], 1 + (int64_t)(next_random() % 4), mode);
}

/* Values for the ops along a dim: random bytes for integer scans (they wrap), halves in [-4, 4]
 * for float sums, +-1, +-0.5 and 2 for float products; for softmax in mode 1 -inf often and NaN
 * or +inf now and then. */
static void dim_values(unsigned char *p, const layout *l, dlx_dtype dtype, int op, int mode) {
  dlx_tensor src, dst;
  DLDevice cpu = {kDLCPU, 0};
  int64_t n = 1;
  bool floating = dlx_dtype_kind(dtype) == DLX_KIND_FLOAT;
  for (int32_t d = 0; d < l->ndim; d++) n *= l->shape[d];
  if (!floating && op <= DLX_DIM_CUMPROD) {
    random_bytes(p, l->span);
    if (dtype == DLX_BOOL)
      for (int64_t i = 0; i < l->span; i++) p[i] &= 1;
    return;
  }
  dlx_tensor_empty(&src, l->shape, l->ndim, DLX_FLOAT64, cpu, NULL);
  for (int64_t i = 0; i < n; i++) {
    double v = (double)((int64_t)(next_random() % 17) - 8) / 2;
    uint64_t r = next_random() % 40;
    if (op == DLX_DIM_CUMPROD) v = r < 4 ? 2.0 : (r % 2 ? 1.0 : 0.5) * (r % 3 ? 1 : -1);
    if (dlx_dtype_kind(dtype) == DLX_KIND_UINT || dtype == DLX_BOOL) v = fabs(v);
    if (op >= DLX_DIM_SOFTMAX && mode == 1 && floating)
      v = r < 20 ? -INFINITY : r == 20 ? NAN : r == 21 ? INFINITY : v;
    ((double *)src.buffer->data)[i] = v;
  }
  dst = as_tensor(l, dtype, p);
  dlx_cpu_backend.copy(&dst, &src, NULL);
  dlx_tensor_close(&dst);
  dlx_tensor_close(&src);
}

static void test_along(dlx_dim_op op, dlx_dtype from, int per_group, int mode) {
  int64_t shape[3] = {1 + (int64_t)(next_random() % 3), 1 + (int64_t)(next_random() % 5),
                      1 + (int64_t)(next_random() % 9)};
  int32_t dim = (int32_t)(next_random() % 3), n = 0;
  dlx_dtype to;
  dlx_ze_dim_args *a = svm(sizeof *a);
  DLDevice cpu = {kDLCPU, 0};
  dlx_tensor st, wt;
  if (op <= DLX_DIM_CUMPROD
          ? dlx_reduce_dtype(op == DLX_DIM_CUMSUM ? DLX_REDUCE_SUM : DLX_REDUCE_PROD, from, &to,
                             NULL) != 0
          : dlx_stat_dtype("softmax", from, &to, NULL) != 0)
    return;
  shape[dim] = per_group ? 1 + (int64_t)(next_random() % 1500) : 1 + (int64_t)(next_random() % 40);
  layout sl = random_layout(3, shape, dlx_itemsize(from));
  unsigned char *src = svm((size_t)sl.span), *dst;
  int64_t numel = shape[0] * shape[1] * shape[2], dsize = dlx_itemsize(to), cstrides[3];
  dlx_contiguous_strides(shape, 3, cstrides);
  dst = svm((size_t)(numel * dsize));
  host_access(src, (size_t)sl.span, 1);
  host_access(a, sizeof *a, 1);
  dim_values(src, &sl, from, op, mode);
  memset(a, 0, sizeof *a);
  a->op = op;
  a->src_dtype = from;
  a->dst_dtype = to;
  a->len = shape[dim];
  a->src_step = sl.strides[dim] * dlx_itemsize(from);
  a->dst_step = cstrides[dim] * dsize;
  a->per_group = per_group;
  a->lines = 1;
  for (int32_t d = 0; d < 3; d++) {
    if (d == dim) continue;
    a->outer_shape[n] = shape[d];
    a->src_strides[n] = sl.strides[d] * dlx_itemsize(from);
    a->dst_strides[n++] = cstrides[d] * dsize;
    a->lines *= shape[d];
  }
  a->outer_ndim = n;
  st = as_tensor(&sl, from, src);
  dlx_tensor_empty(&wt, shape, 3, to, cpu, NULL);
  CHECK(dlx_cpu_backend.along_dim(op, &st, dim, &wt, NULL) == 0);
  host_access(src, (size_t)sl.span, 0);
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_ALONG_DIM,
            per_group ? 1 + next_random() % (uint64_t)a->lines : 1 + next_random() % 2,
            (void *const[]){dst, src + sl.first, a}, 3) == 0);
  host_access(dst, (size_t)(numel * dsize), 1);
  {
    bool exact = dlx_dtype_kind(to) != DLX_KIND_FLOAT || (op <= DLX_DIM_CUMPROD && !per_group);
    bool ok = exact ? memcmp(dst, wt.buffer->data, (size_t)(numel * dsize)) == 0
                    : results_close(dst, wt.buffer->data, to, numel, tolerance_of(to));
    check_count++;
    if (!ok) {
      check_failures++;
      fprintf(stderr,
              "%s of %s along dim %d of %lldx%lldx%lld (%s, mode %d) differs from the CPU\n",
              dlx_dim_op_name(op), dlx_dtype_info_of(from)->name, (int)dim, (long long)shape[0],
              (long long)shape[1], (long long)shape[2],
              per_group ? "a work-group per line" : "a work-item per line", mode);
    }
  }
  host_access(dst, (size_t)(numel * dsize), 0);
  dlx_tensor_close(&st);
  dlx_tensor_close(&wt);
  clSVMFree(context, src);
  clSVMFree(context, dst);
  clSVMFree(context, a);
}

static void test_along_dims(void) {
  for (int op = DLX_DIM_CUMSUM; op <= DLX_DIM_LOG_SOFTMAX; op++)
    for (int dtype = DLX_BOOL; dtype <= DLX_FLOAT64; dtype++)
      for (int per_group = 0; per_group < 2; per_group++)
        for (int rep = 0; rep < 4; rep++)
          test_along((dlx_dim_op)op, (dlx_dtype)dtype, per_group, rep % 2);
}

/* ---- random numbers */

/* SVM holding n float64 parameters in [lo, hi], and the same as a CPU tensor (*cpu). */
static double *svm_params(int64_t n, double lo, double hi, dlx_tensor *cpu) {
  double *p = svm((size_t)n * sizeof(double));
  CHECK(dlx_tensor_empty(cpu, &n, 1, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, NULL) == 0);
  host_access(p, (size_t)n * sizeof(double), 1);
  for (int64_t i = 0; i < n; i++) {
    p[i] = lo + (hi - lo) * (double)(next_random() >> 11) * 0x1p-53;
    ((double *)cpu->buffer->data)[i] = p[i];
  }
  host_access(p, (size_t)n * sizeof(double), 0);
  return p;
}

/* dlx_fill_random against the CPU's fill_random, bit for bit, with a partial last block: r's
 * kind, numbers and range into dtype; parameters per element in [lo, hi] where has_a / has_b. */
static void test_random_params(dlx_random_request r, dlx_dtype dtype, bool has_a, bool has_b,
                               double lo, double hi) {
  const int64_t n = 100003;
  int64_t size = dlx_itemsize(dtype), shape[1] = {n};
  unsigned char *dst = svm((size_t)(n * size));
  dlx_ze_random_args *a = svm(sizeof *a);
  dlx_tensor t, ta, tb;
  double *pa = has_a ? svm_params(n, lo, hi, &ta) : NULL;
  double *pb = has_b ? svm_params(n, lo, hi, &tb) : NULL;
  r.seed = next_random();
  r.offset = next_random() >> 1;
  r.lanes = dlx_random_lanes(r.kind, dtype, r.range);
  r.ta = has_a ? &ta : NULL;
  r.tb = has_b ? &tb : NULL;
  CHECK(dlx_tensor_empty(&t, shape, 1, dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_cpu_backend.fill_random(&t, &r, NULL) == 0);
  host_access(a, sizeof *a, 1);
  memset(a, 0, sizeof *a);
  a->n = n;
  a->kind = r.kind;
  a->dtype = dtype;
  a->lanes = r.lanes;
  a->bits = dlx_random_float_bits(dtype);
  a->seed = r.seed;
  a->offset = r.offset;
  a->a = r.a;
  a->b = r.b;
  a->has_a = has_a;
  a->has_b = has_b;
  a->low = r.low;
  a->range = r.range;
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_FILL_RANDOM, 64,
            (void *const[]){dst, has_a ? (void *)pa : dst, has_b ? (void *)pb : dst, a}, 4) == 0);
  host_access(dst, (size_t)(n * size), 1);
  if (memcmp(dst, t.buffer->data, (size_t)(n * size)) != 0) {
    fprintf(stderr, "fill_random kind %d %s differs from the CPU\n", (int)r.kind,
            dlx_dtype_info_of(dtype)->name);
    CHECK(0);
  }
  host_access(dst, (size_t)(n * size), 0);
  dlx_tensor_close(&t);
  if (has_a) dlx_tensor_close(&ta);
  if (has_b) dlx_tensor_close(&tb);
  clSVMFree(context, dst);
  clSVMFree(context, a);
  if (pa != NULL) clSVMFree(context, pa);
  if (pb != NULL) clSVMFree(context, pb);
}

static void test_random(dlx_random_kind kind, dlx_dtype dtype, double pa, double pb, int64_t low,
                        uint64_t range) {
  dlx_random_request r = {.kind = kind, .a = pa, .b = pb, .low = low, .range = range};
  test_random_params(r, dtype, false, false, 0, 0);
}

/* rows x k weights (float32 or float64) in SVM: random, many zeros, bad rows 4 (a negative
 * weight) and 6 (all zero), and the same as a CPU tensor. */
static void *svm_weights(int64_t rows, int64_t k, bool is64, dlx_tensor *cpu) {
  int64_t shape[2] = {rows, k}, size = is64 ? 8 : 4;
  unsigned char *p = svm((size_t)(rows * k * size));
  CHECK(dlx_tensor_empty(cpu, shape, 2, is64 ? DLX_FLOAT64 : DLX_FLOAT32, (DLDevice){kDLCPU, 0},
                         NULL) == 0);
  for (int64_t i = 0; i < rows * k; i++) {
    double w = next_random() % 3 == 0 ? 0 : (double)(next_random() % 1000) / 7;
    float f;
    if (i / k == 3 && i % k == k / 2) w = -1;
    if (i / k == 5) w = 0;
    f = (float)w;
    memcpy((char *)cpu->buffer->data + i * size, is64 ? (void *)&w : (void *)&f, (size_t)size);
  }
  host_access(p, (size_t)(rows * k * size), 1);
  memcpy(p, cpu->buffer->data, (size_t)(rows * k * size));
  host_access(p, (size_t)(rows * k * size), 0);
  return p;
}

/* dlx_multinomial against the CPU's multinomial: the states of every row, and the draws of the
 * good ones, bit for bit. */
static void test_multinomial(int64_t rows, int64_t k, int64_t n, bool replacement, bool is64) {
  int64_t oshape[2] = {rows, n};
  dlx_tensor w, out, status;
  void *weights = svm_weights(rows, k, is64, &w);
  int64_t *got = svm((size_t)(rows * n) * 8), *got_status = svm((size_t)rows * 8);
  void *scratch = svm((size_t)(rows * (replacement ? k : n)) * 8);
  dlx_ze_multinomial_args *a = svm(sizeof *a);
  dlx_multinomial_request r = {.weights = &w,
                               .out = &out,
                               .status = &status,
                               .n = n,
                               .replacement = replacement,
                               .seed = next_random(),
                               .offset = next_random() >> 1};
  int bad = 0;
  CHECK(dlx_tensor_empty(&out, oshape, 2, DLX_INT64, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_tensor_empty(&status, &rows, 1, DLX_INT64, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_cpu_backend.multinomial(&r, NULL) == 0);
  host_access(a, sizeof *a, 1);
  memset(a, 0, sizeof *a);
  a->rows = rows;
  a->k = k;
  a->n = n;
  a->replacement = replacement;
  a->is64 = is64;
  a->seed = r.seed;
  a->offset = r.offset;
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_MULTINOMIAL, 1 + next_random() % 2,
            (void *const[]){got, weights, got_status, scratch, a}, 5) == 0);
  host_access(got, (size_t)(rows * n) * 8, 1);
  host_access(got_status, (size_t)rows * 8, 1);
  for (int64_t i = 0; i < rows; i++) {
    int64_t want = ((int64_t *)status.buffer->data)[i];
    bad += got_status[i] != want;
    if (want == DLX_MN_OK)
      bad += memcmp(got + i * n, (int64_t *)out.buffer->data + i * n, (size_t)n * 8) != 0;
  }
  if (bad != 0)
    fprintf(stderr, "multinomial %lld x %lld, n %lld, replacement %d: %d rows differ\n",
            (long long)rows, (long long)k, (long long)n, (int)replacement, bad);
  CHECK(bad == 0);
  CHECK(((int64_t *)status.buffer->data)[3] == DLX_MN_BAD_WEIGHT);
  CHECK(((int64_t *)status.buffer->data)[5] == DLX_MN_ZERO_SUM);
  host_access(got, (size_t)(rows * n) * 8, 0);
  host_access(got_status, (size_t)rows * 8, 0);
  dlx_tensor_close(&w);
  dlx_tensor_close(&out);
  dlx_tensor_close(&status);
  clSVMFree(context, weights);
  clSVMFree(context, got);
  clSVMFree(context, got_status);
  clSVMFree(context, scratch);
  clSVMFree(context, a);
}

static void test_randoms(void) {
  const dlx_dtype floats[] = {DLX_FLOAT32, DLX_FLOAT64, DLX_FLOAT16, DLX_BFLOAT16};
  for (int d = 0; d < 4; d++) {
    dlx_dtype f = floats[d];
    test_random(DLX_RANDOM_UNIFORM, f, 0, 1, 0, 0);
    test_random(DLX_RANDOM_UNIFORM, f, -3.5, 17, 0, 0);
    test_random(DLX_RANDOM_NORMAL, f, 0, 1, 0, 0);
    test_random(DLX_RANDOM_NORMAL, f, 5, 0.25, 0, 0);
    test_random(DLX_RANDOM_BERNOULLI, f, 0.25, 0, 0, 0);
    test_random(DLX_RANDOM_EXPONENTIAL, f, 3, 0, 0, 0);
    test_random(DLX_RANDOM_CAUCHY, f, 1, 0.5, 0, 0);
    test_random(DLX_RANDOM_LOG_NORMAL, f, 0.5, 1.5, 0, 0);
    test_random(DLX_RANDOM_GEOMETRIC, f, log1p(-0.05), 0, 0, 0);
    test_random(DLX_RANDOM_POISSON, f, 2.5, 0, 0, 0);
    test_random(DLX_RANDOM_POISSON, f, 123.25, 0, 0, 0);
    test_random(DLX_RANDOM_INT, f, 0, 0, -7, 100);
    test_random_params((dlx_random_request){.kind = DLX_RANDOM_NORMAL}, f, true, true, 0, 3);
    test_random_params((dlx_random_request){.kind = DLX_RANDOM_BERNOULLI}, f, true, false, 0, 1);
    test_random_params((dlx_random_request){.kind = DLX_RANDOM_POISSON}, f, true, false, 0, 60);
  }
  test_random(DLX_RANDOM_BERNOULLI, DLX_BOOL, 0.5, 0, 0, 0);
  test_random(DLX_RANDOM_GEOMETRIC, DLX_INT8, log1p(-0.01), 0, 0, 0); /* saturates */
  test_random(DLX_RANDOM_GEOMETRIC, DLX_UINT64, log1p(-0.5), 0, 0, 0);
  test_random(DLX_RANDOM_INT, DLX_BOOL, 0, 0, 0, 2);
  test_random(DLX_RANDOM_INT, DLX_INT8, -128, 0, -128, 256);
  test_random(DLX_RANDOM_INT, DLX_UINT16, 0, 0, 3, 60000);
  test_random(DLX_RANDOM_INT, DLX_INT32, 0, 0, -1000000, 3000000);
  test_random(DLX_RANDOM_INT, DLX_INT64, 0, 0, -5, UINT64_C(1) << 32);
  test_random(DLX_RANDOM_INT, DLX_INT64, 0, 0, INT64_MIN, UINT64_MAX);
  test_random(DLX_RANDOM_INT, DLX_UINT64, 0, 0, 0, (UINT64_C(1) << 40) + 7);
  test_multinomial(9, 1000, 100, false, false);
  test_multinomial(9, 1537, 3, false, true);
  test_multinomial(9, 600, 1000, true, false);
  test_multinomial(300, 7, 5, true, true); /* more rows than a work-group */
}

/* ---- sort */

/* rows x n elements of dtype drawn from a pool of 6 random elements, +0.0 and -0.0 (as bits): many
 * equal keys, NaN payloads and infinities among the random ones. */
static void sort_values(unsigned char *p, int64_t count, int64_t size) {
  unsigned char pool[8][8];
  random_bytes(&pool[0][0], sizeof pool);
  memset(pool[6], 0, 8);
  memset(pool[7], 0, 8);
  pool[7][size - 1] = 0x80; /* the sign bit: -0.0 for floats, the lowest value for integers */
  for (int64_t i = 0; i < count; i++) memcpy(p + i * size, pool[next_random() % 8], (size_t)size);
}

/* dlx_sort_rows's three phases, launched as src/ze/ze_backend.c launches them, against the CPU
 * backend's sort_rows, bit for bit. */
static void test_sort(dlx_dtype dtype, bool descending, int64_t rows, int64_t n) {
  int64_t size = dlx_itemsize(dtype), padded = 1, shape[2] = {rows, n}, bits = 8 * size;
  unsigned char *src, *values;
  int64_t *indices, *scratch;
  dlx_ze_sort_args *a = svm(sizeof *a);
  dlx_tensor t, want_values, want_indices;
  while (padded < n) padded *= 2;
  src = svm((size_t)(rows * n * size));
  values = svm((size_t)(rows * n * size));
  indices = svm((size_t)(rows * n) * 8);
  scratch = svm((size_t)(rows * padded) * 16);
  host_access(src, (size_t)(rows * n * size), 1);
  sort_values(src, rows * n, size);
  CHECK(dlx_tensor_empty(&t, shape, 2, dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_tensor_empty(&want_values, shape, 2, dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_tensor_empty(&want_indices, shape, 2, DLX_INT64, (DLDevice){kDLCPU, 0}, NULL) == 0);
  memcpy(t.buffer->data, src, (size_t)(rows * n * size));
  host_access(src, (size_t)(rows * n * size), 0);
  CHECK(dlx_cpu_backend.sort_rows(&t, descending, &want_values, &want_indices, NULL) == 0);
  {
    void *const args[6] = {src, values, indices, scratch, scratch + rows * padded, a};
    int64_t phase_items[3] = {rows * padded, rows * padded, rows * n};
    for (int64_t k = 1, j = 0; k <= padded;) {
      int64_t phase = k == 1 ? DLX_ZE_SORT_KEYS : DLX_ZE_SORT_STEP;
      host_access(a, sizeof *a, 1);
      memset(a, 0, sizeof *a);
      a->phase = phase;
      a->key_kind = dlx_sort_key_kind(dtype);
      a->itemsize = size;
      a->flip = !descending ? 0 : bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
      a->rows = rows;
      a->n = n;
      a->padded = padded;
      a->k = k;
      a->j = j;
      host_access(a, sizeof *a, 0);
      CHECK(run(DLX_ZE_KERNEL_SORT_ROWS, (size_t)((phase_items[phase] + 255) / 256), args, 6) == 0);
      if (k == 1) { /* keys made: the first step */
        k = 2;
        j = 1;
      } else if (j > 1) {
        j /= 2;
      } else {
        k *= 2;
        j = k / 2;
      }
    }
    host_access(a, sizeof *a, 1);
    a->phase = DLX_ZE_SORT_GATHER;
    host_access(a, sizeof *a, 0);
    CHECK(run(DLX_ZE_KERNEL_SORT_ROWS, (size_t)((phase_items[2] + 255) / 256), args, 6) == 0);
  }
  host_access(values, (size_t)(rows * n * size), 1);
  host_access(indices, (size_t)(rows * n) * 8, 1);
  if (memcmp(values, want_values.buffer->data, (size_t)(rows * n * size)) != 0 ||
      memcmp(indices, want_indices.buffer->data, (size_t)(rows * n) * 8) != 0) {
    fprintf(stderr, "sort_rows %s%s of %lld x %lld differs from the CPU\n",
            dlx_dtype_info_of(dtype)->name, descending ? " descending" : "", (long long)rows,
            (long long)n);
    CHECK(0);
  }
  host_access(values, (size_t)(rows * n * size), 0);
  host_access(indices, (size_t)(rows * n) * 8, 0);
  dlx_tensor_close(&t);
  dlx_tensor_close(&want_values);
  dlx_tensor_close(&want_indices);
  clSVMFree(context, src);
  clSVMFree(context, values);
  clSVMFree(context, indices);
  clSVMFree(context, scratch);
  clSVMFree(context, a);
}

static void test_sorts(void) {
  for (int dtype = DLX_BOOL; dtype <= DLX_FLOAT64; dtype++) {
    test_sort((dlx_dtype)dtype, false, 3, 1000);
    test_sort((dlx_dtype)dtype, true, 3, 1000);
  }
  test_sort(DLX_FLOAT32, false, 1, 1);
  test_sort(DLX_FLOAT32, true, 1, 4096);
  test_sort(DLX_INT64, false, 70, 3);
}

/* ---- indexing */

/* l's first element and span for its strides (some may have been set to 0). */
static void set_span(layout *l, int64_t itemsize) {
  int64_t lo = 0, hi = 0;
  for (int32_t d = 0; d < l->ndim; d++) {
    if (l->strides[d] < 0)
      lo += (l->shape[d] - 1) * l->strides[d];
    else
      hi += (l->shape[d] - 1) * l->strides[d];
  }
  l->first = -lo * itemsize;
  l->span = (hi - lo + 1) * itemsize;
}

/* An operand of the indexing tests: a random layout of shape, now and then with a stride-0 dim
 * when `broadcast`, in SVM memory of random bytes, mapped for the host. */
typedef struct operand {
  layout l;
  dlx_dtype dtype;
  unsigned char *mem;
} operand;

static operand make_operand(int32_t ndim, const int64_t *shape, dlx_dtype dtype, bool broadcast) {
  operand o = {.dtype = dtype};
  int64_t size = dlx_itemsize(dtype);
  o.l = random_layout(ndim, shape, size);
  if (broadcast && ndim > 0 && next_random() % 2) o.l.strides[next_random() % (uint64_t)ndim] = 0;
  set_span(&o.l, size);
  o.mem = svm((size_t)o.l.span);
  host_access(o.mem, (size_t)o.l.span, 1);
  random_bytes(o.mem, o.l.span);
  return o;
}

static void operand_access(operand *o, int on) { host_access(o->mem, (size_t)o->l.span, on); }

static void free_operand(operand *o) { clSVMFree(context, o->mem); }

/* Random indices in -size..size, zeros made 1 (bad ones added by the caller). */
static void fill_indices(operand *o, int64_t size) {
  dlx_tensor view = as_tensor(&o->l, DLX_INT64, o->mem), values;
  int64_t n = 1;
  for (int32_t d = 0; d < o->l.ndim; d++) n *= o->l.shape[d];
  CHECK(dlx_tensor_empty(&values, o->l.shape, o->l.ndim, DLX_INT64, (DLDevice){kDLCPU, 0}, NULL) ==
        0);
  for (int64_t i = 0; i < n; i++) {
    int64_t v = (int64_t)(next_random() % (uint64_t)(2 * size + 1)) - size;
    ((int64_t *)values.buffer->data)[i] = v == 0 ? 1 : v;
  }
  CHECK(dlx_cpu_backend.copy(&view, &values, NULL) == 0);
  dlx_tensor_close(&values);
  dlx_tensor_close(&view);
}

/* Values whose sums every runtime rounds alike: random bytes for integers and bool, numbers in
 * -100..100 with fractions for floats (no NaN payloads, which runtimes may pass on differently). */
static void addable_values(operand *o) {
  dlx_tensor view, wide;
  int64_t n = 1;
  if (dlx_dtype_kind(o->dtype) != DLX_KIND_FLOAT && dlx_dtype_kind(o->dtype) != DLX_KIND_COMPLEX)
    return;
  for (int32_t d = 0; d < o->l.ndim; d++) n *= o->l.shape[d];
  CHECK(dlx_tensor_empty(&wide, o->l.shape, o->l.ndim, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, NULL) ==
        0);
  for (int64_t i = 0; i < n; i++)
    ((double *)wide.buffer->data)[i] = (double)(int64_t)(next_random() % 20001 - 10000) / 97.0;
  view = as_tensor(&o->l, o->dtype, o->mem);
  CHECK(dlx_cpu_backend.copy(&view, &wide, NULL) == 0);
  dlx_tensor_close(&view);
  dlx_tensor_close(&wide);
}

/* The walk of src/ze/ze_indexing.c (unmerged) over shape_of's dims but skip. */
static void index_walk(dlx_ze_index_args *a, const dlx_tensor *shape_of,
                       const dlx_tensor *const ops[3], int32_t skip) {
  a->n = 1;
  a->ndim = 0;
  for (int32_t d = 0; d < shape_of->ndim; d++) {
    if (d == skip) continue;
    a->shape[a->ndim] = shape_of->shape[d];
    for (int m = 0; m < 3; m++)
      a->strides[m][a->ndim] = ops[m] ? ops[m]->strides[d] * dlx_itemsize(ops[m]->dtype) : 0;
    a->n *= shape_of->shape[d];
    a->ndim++;
  }
}

/* Launches phase `phase` of dlx_index: one work-group for FIRST and SCAN, else one or enough
 * for a work-item per item (grid-stride loops either way). */
static void index_phase(dlx_ze_index_args *blk, int64_t phase, void *const *ptrs, int64_t items,
                        dlx_ze_index_args *a) {
  size_t groups = next_random() % 3 == 0 ? 1 : (size_t)((items + 255) / 256);
  blk->phase = phase;
  if (phase == DLX_ZE_INDEX_FIRST || phase == DLX_ZE_INDEX_SCAN) groups = 1;
  host_access(a, sizeof *a, 1);
  *a = *blk;
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_INDEX, groups, (void *const[]){ptrs[0], ptrs[1], ptrs[2], ptrs[3], a},
            5) == 0);
}

static void set_chunks(dlx_ze_index_args *blk) {
  static const int64_t lens[4] = {1, 3, 7, 32};
  blk->chunk_len = lens[next_random() % 4];
  blk->chunks = (blk->n + blk->chunk_len - 1) / blk->chunk_len;
}

/* dst (its whole span, padding included) against want's bytes. */
static void same_span(operand *dst, const unsigned char *want, const char *what, dlx_dtype dtype) {
  if (memcmp(dst->mem, want, (size_t)dst->l.span) != 0) {
    fprintf(stderr, "%s %s differs from the CPU\n", what, dlx_dtype_info_of(dtype)->name);
    CHECK(0);
  }
}

/* A CPU tensor over a copy of o's bytes, in the same layout: where the CPU backend writes. */
static dlx_tensor want_copy(const operand *o, unsigned char **bytes) {
  *bytes = malloc((size_t)o->l.span);
  memcpy(*bytes, o->mem, (size_t)o->l.span);
  return as_tensor(&o->l, o->dtype, *bytes);
}

static void test_index_gather(dlx_dtype dtype) {
  int64_t src_shape[3] = {5, 6, 7}, shape[3] = {5, 6, 7}, size = dlx_itemsize(dtype);
  int32_t dim = (int32_t)(next_random() % 3);
  operand src, dst, index;
  unsigned char *want;
  dlx_tensor st, dt, it, wt;
  dlx_ze_index_args blk = {0}, *a = svm(sizeof *a);
  shape[dim] = 1 + (int64_t)(next_random() % 9);
  src = make_operand(3, src_shape, dtype, true);
  dst = make_operand(3, shape, dtype, false);
  index = make_operand(3, shape, DLX_INT64, true);
  fill_indices(&index, src_shape[dim]);
  st = as_tensor(&src.l, dtype, src.mem);
  dt = as_tensor(&dst.l, dtype, dst.mem);
  it = as_tensor(&index.l, DLX_INT64, index.mem);
  wt = want_copy(&dst, &want);
  {
    dlx_tensor walk_src = st;
    int64_t stride = st.strides[dim];
    memcpy(walk_src.shape, shape, sizeof shape);
    walk_src.strides[dim] = 0;
    dlx_index_request r = {DLX_INDEX_GATHER, &wt, &walk_src, &it, dim, src_shape[dim], stride, 0};
    const dlx_tensor *const ops[3] = {&dt, &walk_src, &it};
    CHECK(dlx_cpu_backend.index_op(&r, NULL) == 0);
    index_walk(&blk, &dt, ops, -1);
    blk.dtype = dtype;
    blk.itemsize = size;
    blk.size = src_shape[dim];
    blk.stride = stride * size;
  }
  operand_access(&src, 0);
  operand_access(&dst, 0);
  operand_access(&index, 0);
  index_phase(
      &blk, DLX_ZE_INDEX_GATHER,
      (void *const[]){dst.mem + dst.l.first, src.mem + src.l.first, index.mem + index.l.first, a},
      blk.n, a);
  operand_access(&dst, 1);
  same_span(&dst, want, "gather", dtype);
  operand_access(&dst, 0);
  dlx_tensor_close(&st);
  dlx_tensor_close(&dt);
  dlx_tensor_close(&it);
  dlx_tensor_close(&wt);
  free(want);
  free_operand(&src);
  free_operand(&dst);
  free_operand(&index);
  clSVMFree(context, a);
}

/* Lines of up to 12 elements with indices among the first three (or last three) positions:
 * many repeats, so that the order of the writes and sums shows. */
static void test_index_scatter(dlx_dtype dtype, bool add) {
  int64_t dst_shape[3] = {5, 6, 7}, shape[3], size = dlx_itemsize(dtype);
  int32_t dim = (int32_t)(next_random() % 3);
  operand src, dst, index;
  unsigned char *want;
  dlx_tensor st, dt, it, wt;
  dlx_ze_index_args blk = {0}, *a = svm(sizeof *a);
  for (int32_t d = 0; d < 3; d++)
    shape[d] = d == dim ? 1 + (int64_t)(next_random() % 12)
                        : 1 + (int64_t)(next_random() % (uint64_t)dst_shape[d]);
  src = make_operand(3, shape, dtype, true);
  dst = make_operand(3, dst_shape, dtype, false);
  index = make_operand(3, shape, DLX_INT64, true);
  fill_indices(&index, 3);
  if (add) {
    addable_values(&src);
    addable_values(&dst);
  }
  st = as_tensor(&src.l, dtype, src.mem);
  dt = as_tensor(&dst.l, dtype, dst.mem);
  it = as_tensor(&index.l, DLX_INT64, index.mem);
  wt = want_copy(&dst, &want);
  {
    dlx_tensor walk_dst = dt, walk_want = wt;
    int64_t stride = dt.strides[dim];
    memcpy(walk_dst.shape, shape, sizeof shape);
    memcpy(walk_want.shape, shape, sizeof shape);
    walk_dst.strides[dim] = walk_want.strides[dim] = 0;
    dlx_index_request r = {add ? DLX_INDEX_SCATTER_ADD : DLX_INDEX_SCATTER,
                           &walk_want,
                           &st,
                           &it,
                           dim,
                           dst_shape[dim],
                           stride,
                           0};
    const dlx_tensor *const ops[3] = {&walk_dst, &st, &it};
    CHECK(dlx_cpu_backend.index_op(&r, NULL) == 0);
    index_walk(&blk, &it, ops, dim);
    blk.dtype = dtype;
    blk.itemsize = size;
    blk.size = dst_shape[dim];
    blk.stride = stride * size;
    blk.len = shape[dim];
    for (int m = 0; m < 3; m++) blk.step[m] = ops[m]->strides[dim] * dlx_itemsize(ops[m]->dtype);
  }
  operand_access(&src, 0);
  operand_access(&dst, 0);
  operand_access(&index, 0);
  index_phase(
      &blk, add ? DLX_ZE_INDEX_SCATTER_ADD : DLX_ZE_INDEX_SCATTER,
      (void *const[]){dst.mem + dst.l.first, src.mem + src.l.first, index.mem + index.l.first, a},
      blk.n, a);
  operand_access(&dst, 1);
  same_span(&dst, want, add ? "scatter_add" : "scatter", dtype);
  operand_access(&dst, 0);
  dlx_tensor_close(&st);
  dlx_tensor_close(&dt);
  dlx_tensor_close(&it);
  dlx_tensor_close(&wt);
  free(want);
  free_operand(&src);
  free_operand(&dst);
  free_operand(&index);
  clSVMFree(context, a);
}

/* Byte offset of row-major position p in l (element strides). */
static int64_t offset_of(const layout *l, int64_t p, int64_t size) {
  int64_t off = 0;
  for (int32_t d = l->ndim - 1; d >= 0; d--) {
    off += p % l->shape[d] * l->strides[d];
    p /= l->shape[d];
  }
  return l->first + off * size;
}

/* CHECK and FIRST: the first bad index in row-major order, over many chunks (more than a
 * work-group's runs), with 0 to 3 bad ones. */
static void test_index_check(int bad) {
  int64_t shape[3] = {3, 50, 7}, n = 3 * 50 * 7, size = 4, first = n, got = -1;
  operand index = make_operand(3, shape, DLX_INT64, true);
  int64_t *scratch;
  dlx_tensor it = as_tensor(&index.l, DLX_INT64, index.mem);
  dlx_ze_index_args blk = {0}, *a = svm(sizeof *a);
  const dlx_tensor *const ops[3] = {NULL, NULL, &it};
  static const int64_t wrong[4] = {0, 5, -5, INT64_MIN};
  fill_indices(&index, size);
  for (int k = 0; k < bad; k++) {
    int64_t v = wrong[next_random() % 4];
    memcpy(index.mem + offset_of(&index.l, (int64_t)(next_random() % (uint64_t)n), 8), &v, 8);
  }
  for (int64_t p = 0; p < n && first == n; p++) {
    int64_t v;
    memcpy(&v, index.mem + offset_of(&index.l, p, 8), 8);
    if (!((v >= 1 && v <= size) || (v < 0 && v >= -size))) first = p;
  }
  index_walk(&blk, &it, ops, -1);
  blk.size = size;
  set_chunks(&blk);
  scratch = svm((size_t)(blk.chunks + 1) * 8);
  operand_access(&index, 0);
  {
    void *const ptrs[4] = {a, a, index.mem + index.l.first, scratch};
    index_phase(&blk, DLX_ZE_INDEX_CHECK, ptrs, blk.chunks, a);
    index_phase(&blk, DLX_ZE_INDEX_FIRST, ptrs, 1, a);
  }
  host_access(scratch, (size_t)(blk.chunks + 1) * 8, 1);
  got = scratch[blk.chunks];
  host_access(scratch, (size_t)(blk.chunks + 1) * 8, 0);
  if (got != first) {
    fprintf(stderr, "check: first bad index at %lld, the kernel says %lld (chunks of %lld)\n",
            (long long)first, (long long)got, (long long)blk.chunk_len);
    CHECK(0);
  }
  dlx_tensor_close(&it);
  free_operand(&index);
  clSVMFree(context, scratch);
  clSVMFree(context, a);
}

/* COUNT and SCAN, then MASKED_SELECT, MASKED_SCATTER and NONZERO, against the CPU backend: masks
 * of density 0, 1/2 or 1, 3-D or 0-d. */
static void test_index_masks(dlx_dtype dtype, int density, bool zero_d) {
  int64_t shape[3] = {6, 7, 8}, size = dlx_itemsize(dtype), count = 0, got = -1;
  int32_t ndim = zero_d ? 0 : 3;
  operand mask = make_operand(ndim, shape, DLX_BOOL, true);
  operand src = make_operand(ndim, shape, dtype, true),
          dst = make_operand(ndim, shape, dtype, false);
  dlx_tensor mt = as_tensor(&mask.l, DLX_BOOL, mask.mem), st = as_tensor(&src.l, dtype, src.mem);
  dlx_tensor dt = as_tensor(&dst.l, dtype, dst.mem);
  dlx_ze_index_args blk = {0}, *a = svm(sizeof *a);
  int64_t *scratch;
  int64_t n = zero_d ? 1 : 6 * 7 * 8;
  for (int64_t i = 0; i < mask.l.span; i++)
    mask.mem[i] = density == 0 ? 0 : density == 2 ? 1 : (unsigned char)(next_random() % 2);
  for (int64_t p = 0; p < n; p++) count += mask.mem[offset_of(&mask.l, p, 1)] != 0;
  blk.dtype = dtype;
  blk.itemsize = size;
  blk.count = count;
  {
    const dlx_tensor *const ops[3] = {NULL, NULL, &mt};
    index_walk(&blk, &mt, ops, -1);
  }
  set_chunks(&blk);
  scratch = svm((size_t)(blk.chunks + 1) * 8);
  operand_access(&mask, 0);
  operand_access(&src, 0);
  operand_access(&dst, 0);
  for (int64_t write = DLX_ZE_INDEX_MASKED_SELECT; write <= DLX_ZE_INDEX_NONZERO; write++) {
    int64_t out_bytes = write == DLX_ZE_INDEX_NONZERO ? count * ndim * 8 : count * size;
    int64_t one = count, line_len = count > 0 ? count : 1, line_shape[2] = {count, ndim};
    unsigned char *out = svm((size_t)out_bytes + 1), *want;
    operand line = make_operand(1, &line_len, dtype, true); /* MASKED_SCATTER's source */
    dlx_tensor lt = as_tensor(&line.l, dtype, line.mem), wt;
    const char *name = write == DLX_ZE_INDEX_MASKED_SELECT    ? "masked_select"
                       : write == DLX_ZE_INDEX_MASKED_SCATTER ? "masked_scatter"
                                                              : "nonzero";
    dlx_index_request r = {
        (dlx_index_op)(DLX_INDEX_MASKED_SELECT + write - DLX_ZE_INDEX_MASKED_SELECT),
        NULL,
        NULL,
        &mt,
        0,
        0,
        0,
        0};
    if (write == DLX_ZE_INDEX_NONZERO && ndim == 0) {
      dlx_tensor_close(&lt);
      free_operand(&line);
      clSVMFree(context, out);
      continue; /* the core asks for no coordinates of a 0-d mask */
    }
    operand_access(&mask, 1);
    operand_access(&src, 1);
    operand_access(&dst, 1);
    host_access(out, (size_t)out_bytes + 1, 1);
    memset(out, 0xa5, (size_t)out_bytes + 1);
    host_access(scratch, (size_t)(blk.chunks + 1) * 8, 1);
    memset(scratch, 0xff, (size_t)(blk.chunks + 1) * 8);
    host_access(scratch, (size_t)(blk.chunks + 1) * 8, 0);
    if (write == DLX_ZE_INDEX_MASKED_SCATTER) {
      wt = want_copy(&dst, &want);
      r.dst = &wt;
      r.src = &lt;
      blk.src_step = line.l.strides[0] * size;
    } else {
      int64_t strides[2] = {write == DLX_ZE_INDEX_NONZERO ? ndim : 1, 1};
      layout ol = {.ndim = write == DLX_ZE_INDEX_NONZERO ? 2 : 1, .span = out_bytes + 1};
      memcpy(ol.shape, write == DLX_ZE_INDEX_NONZERO ? line_shape : &one,
             sizeof(int64_t) * (size_t)ol.ndim);
      memcpy(ol.strides, strides, sizeof strides);
      want = malloc((size_t)out_bytes + 1);
      memcpy(want, out, (size_t)out_bytes + 1);
      wt = as_tensor(&ol, write == DLX_ZE_INDEX_NONZERO ? DLX_INT64 : dtype, want);
      r.dst = &wt;
      r.src = &st;
    }
    if (count > 0) CHECK(dlx_cpu_backend.index_op(&r, NULL) == 0);
    {
      const dlx_tensor *const ops[3] = {write == DLX_ZE_INDEX_MASKED_SCATTER ? &dt : NULL,
                                        write == DLX_ZE_INDEX_MASKED_SELECT ? &st : NULL, &mt};
      index_walk(&blk, &mt, ops, -1);
    }
    operand_access(&mask, 0);
    operand_access(&src, 0);
    operand_access(&dst, 0);
    operand_access(&line, 0);
    host_access(out, (size_t)out_bytes + 1, 0);
    {
      void *const ptrs[4] = {write == DLX_ZE_INDEX_MASKED_SCATTER ? dst.mem + dst.l.first : out,
                             write == DLX_ZE_INDEX_MASKED_SCATTER ? line.mem + line.l.first
                                                                  : src.mem + src.l.first,
                             mask.mem + mask.l.first, scratch};
      index_phase(&blk, DLX_ZE_INDEX_COUNT, ptrs, blk.chunks, a);
      index_phase(&blk, DLX_ZE_INDEX_SCAN, ptrs, 1, a);
      if (count > 0) index_phase(&blk, write, ptrs, blk.chunks, a);
    }
    host_access(scratch, (size_t)(blk.chunks + 1) * 8, 1);
    got = scratch[blk.chunks];
    host_access(scratch, (size_t)(blk.chunks + 1) * 8, 0);
    CHECK_EQ_INT(got, count);
    if (write == DLX_ZE_INDEX_MASKED_SCATTER) {
      operand_access(&dst, 1);
      same_span(&dst, want, name, dtype);
      operand_access(&dst, 0);
    } else {
      host_access(out, (size_t)out_bytes + 1, 1);
      if (memcmp(out, want, (size_t)out_bytes + 1) != 0) {
        fprintf(stderr, "%s %s differs from the CPU\n", name, dlx_dtype_info_of(dtype)->name);
        CHECK(0);
      }
      host_access(out, (size_t)out_bytes + 1, 0);
    }
    if (write == DLX_ZE_INDEX_MASKED_SCATTER) { /* the CPU's result is the next dst */
      operand_access(&dst, 1);
      memcpy(dst.mem, want, (size_t)dst.l.span);
      operand_access(&dst, 0);
    }
    dlx_tensor_close(&wt);
    dlx_tensor_close(&lt);
    free(want);
    free_operand(&line);
    clSVMFree(context, out);
  }
  dlx_tensor_close(&mt);
  dlx_tensor_close(&st);
  dlx_tensor_close(&dt);
  free_operand(&mask);
  free_operand(&src);
  free_operand(&dst);
  clSVMFree(context, scratch);
  clSVMFree(context, a);
}

static void test_indexing(void) {
  for (int dtype = DLX_BOOL; dtype <= DLX_FLOAT8_E8M0FNU; dtype++) {
    if (dlx_itemsize((dlx_dtype)dtype) == 0) continue; /* fp4/fp6: no indexing */
    for (int rep = 0; rep < 3; rep++) {
      test_index_gather((dlx_dtype)dtype);
      test_index_scatter((dlx_dtype)dtype, false);
      if (dtype <= DLX_COMPLEX128) test_index_scatter((dlx_dtype)dtype, true);
    }
    for (int density = 0; density < 3; density++) {
      test_index_masks((dlx_dtype)dtype, density, false);
      test_index_masks((dlx_dtype)dtype, density, true);
    }
  }
  for (int bad = 0; bad <= 3; bad++)
    for (int rep = 0; rep < 4; rep++) test_index_check(bad);
}

/* ---- matrix products
 *
 * dlx_matmul in both modes against the CPU backend's matmul (OpenBLAS or its own loops), every
 * computable dtype: operands row- or column-major, leading dims sometimes padded, batch elements
 * apart or (a and b) shared, conjugates, alpha and beta (beta 0 over a c of NaN, which must not be
 * read), now and then a NaN and an infinity, elements sometimes misaligned (byte loads), DIRECT
 * with fewer work-groups than elements (its grid-stride loop), TILED in up to three launches
 * (first_tile). Floats within 2 (k + 2) eps of the sum of the products' magnitudes (and the
 * rounding into float16 or bfloat16), integers and bool exact, c's padding untouched. How many
 * products equal the CPU's own loops bit for bit is counted. */

typedef struct mm_operand {
  int64_t rows, cols, rs, cs, bs; /* element strides */
  int64_t span;                   /* elements from the first to past the last */
  unsigned char *host;            /* span elements, aligned */
  unsigned char *mem;             /* SVM: the first element at mem + shift */
  int64_t shift;
} mm_operand;

static int64_t mm_products, mm_identical, mm_elements;

/* A rows x cols operand of `batch` matrices in a layout BLAS takes (backend.h). */
static mm_operand mm_make(int64_t batch, int64_t rows, int64_t cols, bool may_share, int64_t size) {
  mm_operand o = {.rows = rows, .cols = cols};
  int64_t pad = next_random() % 3 == 0 ? 1 + (int64_t)(next_random() % 3) : 0, mspan = 0;
  if (next_random() % 2) {
    o.cs = 1;
    o.rs = (cols > 1 ? cols : 1) + pad;
    if (rows * cols > 0) mspan = (rows - 1) * o.rs + cols;
  } else {
    o.rs = 1;
    o.cs = (rows > 1 ? rows : 1) + pad;
    if (rows * cols > 0) mspan = (cols - 1) * o.cs + rows;
  }
  o.bs = batch > 1 && may_share && next_random() % 4 == 0
             ? 0
             : mspan + 2 * (int64_t)(next_random() % 2);
  o.span = (batch - 1) * o.bs + mspan;
  if (o.span < 1) o.span = 1;
  o.host = calloc((size_t)(o.span * size), 1);
  return o;
}

/* Random values over the whole span: floats in [-2, 2] in steps of 1/500 (complex: both parts),
 * integers of any bits (products wrap), bools of 0, 1 and other non-zero bytes. */
static void mm_fill(mm_operand *o, dlx_dtype dtype) {
  int64_t size = dlx_itemsize(dtype);
  dlx_kind kind = dlx_dtype_kind(dtype);
  if (kind == DLX_KIND_INT || kind == DLX_KIND_UINT) {
    random_bytes(o->host, o->span * size);
  } else if (dtype == DLX_BOOL) {
    for (int64_t i = 0; i < o->span; i++) o->host[i] = (unsigned char)(next_random() % 3);
  } else {
    bool complex = kind == DLX_KIND_COMPLEX;
    int64_t n = o->span * (complex ? 2 : 1), shape[1] = {o->span};
    layout l = {.ndim = 1, .shape = {o->span}, .strides = {1}, .first = 0, .span = 0};
    dlx_tensor src, dst = as_tensor(&l, dtype, o->host);
    dlx_tensor_empty(&src, shape, 1, complex ? DLX_COMPLEX128 : DLX_FLOAT64, (DLDevice){kDLCPU, 0},
                     NULL);
    for (int64_t i = 0; i < n; i++)
      ((double *)src.buffer->data)[i] = (double)((int64_t)(next_random() % 2001) - 1000) / 500;
    dlx_cpu_backend.copy(&dst, &src, NULL);
    dlx_tensor_close(&src);
    dlx_tensor_close(&dst);
  }
}

/* Element (r, c) of batch element i, as a position in the span. */
static int64_t mm_at(const mm_operand *o, int64_t i, int64_t r, int64_t c) {
  return i * o->bs + r * o->rs + c * o->cs;
}

/* The element at p as re and im (0 for real dtypes). */
static void mm_value(dlx_dtype dtype, const unsigned char *p, double *re, double *im) {
  const char *q = (const char *)p;
  *im = 0;
  switch (dtype) {
  case DLX_FLOAT16:
    *re = load_float16(q);
    break;
  case DLX_BFLOAT16:
    *re = load_bfloat16(q);
    break;
  case DLX_FLOAT32:
    *re = load_float32(q);
    break;
  case DLX_FLOAT64:
    *re = load_float64(q);
    break;
  case DLX_COMPLEX64: {
    dlx_c64 c = load_complex64(q);
    *re = c.re;
    *im = c.im;
    break;
  }
  case DLX_COMPLEX128: {
    dlx_c128 c = load_complex128(q);
    *re = c.re;
    *im = c.im;
    break;
  }
  default:
    *re = 0;
  }
}

static void mm_plant(mm_operand *o, dlx_dtype dtype, int64_t batch, double value) {
  int64_t p = mm_at(o, (int64_t)(next_random() % (uint64_t)batch),
                    (int64_t)(next_random() % (uint64_t)o->rows),
                    (int64_t)(next_random() % (uint64_t)o->cols));
  dlx_tensor view, src;
  layout l = {.ndim = 1, .shape = {1}, .strides = {1}, .first = p * dlx_itemsize(dtype), .span = 0};
  int64_t shape[1] = {1};
  view = as_tensor(&l, dtype, o->host);
  dlx_tensor_empty(&src, shape, 1, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, NULL);
  ((double *)src.buffer->data)[0] = value;
  dlx_cpu_backend.copy(&view, &src, NULL);
  dlx_tensor_close(&src);
  dlx_tensor_close(&view);
}

static void mm_to_svm(mm_operand *o, int64_t size, bool misalign) {
  size_t bytes = (size_t)(o->span * size);
  o->shift = misalign && size > 1 ? 1 + (int64_t)(next_random() % (uint64_t)(size - 1)) : 0;
  o->mem = svm(bytes + 16);
  host_access(o->mem, bytes + 16, 1);
  memcpy(o->mem + o->shift, o->host, bytes);
  host_access(o->mem, bytes + 16, 0);
}

static dlx_matrix_operand mm_request_operand(const mm_operand *o, unsigned char *data, bool conj) {
  dlx_matrix_operand m = {
      .offset = 0, .row_stride = o->rs, .col_stride = o->cs, .batch_stride = o->bs, .conj = conj};
  m.buffer = dlx_buffer_wrap((DLDevice){kDLCPU, 0}, data, 0, NULL, NULL, NULL);
  return m;
}

static void mm_block_operand(dlx_ze_i64 *rs, dlx_ze_i64 *cs, dlx_ze_i64 *bs, const mm_operand *o,
                             int64_t size) {
  *rs = o->rs * size;
  *cs = o->cs * size;
  *bs = o->bs * size;
}

/* The scalars: 0 alpha 1 and beta 0, 1 some alpha and beta 0, 2 both. */
static void mm_scalars(dlx_matmul_request *r, dlx_ze_matmul_args *blk, int which) {
  dlx_kind kind = dlx_dtype_kind(r->dtype);
  double f[2][2];
  int64_t i[2];
  for (int s = 0; s < 2; s++) {
    f[s][0] = (double)((int64_t)(next_random() % 9) - 4) / 2;
    f[s][1] = (double)((int64_t)(next_random() % 9) - 4) / 2;
    i[s] = (int64_t)next_random();
  }
  if (which == 0) {
    f[0][0] = 1, f[0][1] = 0, i[0] = 1;
  }
  if (which < 2) f[1][0] = f[1][1] = 0, i[1] = 0;
  if (which == 2 && f[1][0] == 0) f[1][0] = 0.5;
  if (which == 2 && i[1] == 0) i[1] = 3;
  for (int s = 0; s < 2; s++) {
    dlx_scalar *sc = s == 0 ? &r->alpha : &r->beta;
    double *bf = s == 0 ? blk->alpha_f : blk->beta_f;
    dlx_ze_u64 *bi = s == 0 ? &blk->alpha_i : &blk->beta_i;
    if (kind == DLX_KIND_COMPLEX) {
      sc->kind = DLX_KIND_COMPLEX;
      sc->v.c[0] = bf[0] = f[s][0];
      sc->v.c[1] = bf[1] = f[s][1];
    } else if (kind == DLX_KIND_FLOAT) {
      sc->kind = DLX_KIND_FLOAT;
      sc->v.f = bf[0] = f[s][0];
    } else if (r->dtype == DLX_BOOL) {
      sc->kind = DLX_KIND_BOOL;
      sc->v.b = i[s] % 2 != 0 || (s == 0 && which == 0) || (s == 1 && which == 2);
      *bi = sc->v.b;
    } else {
      sc->kind = DLX_KIND_INT;
      sc->v.i = i[s];
      *bi = (uint64_t)i[s];
    }
  }
  blk->beta_zero = which < 2;
}

/* |x| of every element of an operand, for the tolerance. */
static double *mm_magnitudes(const mm_operand *o, dlx_dtype dtype) {
  double *out = malloc(sizeof(double) * (size_t)o->span), re, im;
  int64_t size = dlx_itemsize(dtype);
  for (int64_t p = 0; p < o->span; p++) {
    mm_value(dtype, o->host + p * size, &re, &im);
    out[p] = hypot(re, im);
  }
  return out;
}

static bool mm_close(dlx_dtype dtype, const unsigned char *got, const unsigned char *want,
                     double bound, int64_t k) {
  double gr, gi, wr, wi, eps, out_eps = 0, tiny = 1e-300;
  mm_value(dtype, got, &gr, &gi);
  mm_value(dtype, want, &wr, &wi);
  if (dtype == DLX_FLOAT64 || dtype == DLX_COMPLEX128) {
    eps = 0x1p-52;
  } else {
    eps = 0x1p-23;
    if (dtype == DLX_FLOAT16) out_eps = 0x1p-10, tiny = 0x1p-24;
    if (dtype == DLX_BFLOAT16) out_eps = 0x1p-7, tiny = 1e-38;
  }
  double parts[2][2] = {{gr, wr}, {gi, wi}};
  for (int q = 0; q < 2; q++) {
    double g = parts[q][0], w = parts[q][1];
    if (isnan(w) || isnan(g)) {
      if (!(isnan(w) && isnan(g))) return false;
      continue;
    }
    if (isinf(w) || isinf(g)) {
      if (g != w) return false;
      continue;
    }
    if (fabs(g - w) > 2 * (double)(k + 2) * eps * bound + out_eps * fmax(fabs(g), fabs(w)) + tiny)
      return false;
  }
  return true;
}

/* got and want are the same value: the same bits, but for the sign and payload of NaN. */
static bool mm_same(dlx_dtype dtype, const unsigned char *got, const unsigned char *want) {
  double g[2], w[2];
  if (memcmp(got, want, (size_t)dlx_itemsize(dtype)) == 0) return true;
  if (dlx_dtype_kind(dtype) != DLX_KIND_FLOAT && dlx_dtype_kind(dtype) != DLX_KIND_COMPLEX)
    return false;
  mm_value(dtype, got, &g[0], &g[1]);
  mm_value(dtype, want, &w[0], &w[1]);
  for (int q = 0; q < 2; q++)
    if (!(isnan(g[q]) && isnan(w[q])) && !(g[q] == w[q] && signbit(g[q]) == signbit(w[q])))
      return false;
  return true;
}

static void test_matmul(dlx_dtype dtype, int64_t mode, int64_t batch, int64_t m, int64_t n,
                        int64_t k) {
  int64_t size = dlx_itemsize(dtype);
  dlx_kind kind = dlx_dtype_kind(dtype);
  bool complex = kind == DLX_KIND_COMPLEX, floating = kind == DLX_KIND_FLOAT || complex;
  bool misalign = next_random() % 4 == 0;
  int which = (int)(next_random() % 3);
  mm_operand A = mm_make(batch, m, k, true, size), B = mm_make(batch, k, n, true, size);
  mm_operand C = mm_make(batch, m, n, false, size);
  unsigned char *want, *own, *got, *is_element;
  dlx_ze_matmul_args hb, *blk = svm(sizeof hb);
  dlx_matmul_request r;
  double *ma, *mb, *mc;
  int64_t part = complex ? size / 2 : size, bad = 0, same = 0, elements = 0;
  memset(&r, 0, sizeof r);
  memset(&hb, 0, sizeof hb);
  r.dtype = dtype;
  mm_fill(&A, dtype);
  mm_fill(&B, dtype);
  mm_scalars(&r, &hb, which);
  if (hb.beta_zero)
    memset(C.host, 0xff, (size_t)(C.span * size)); /* NaN (or -1): must not be read */
  else
    mm_fill(&C, dtype);
  if (floating && k > 0 && (hb.alpha_f[0] != 0 || hb.alpha_f[1] != 0) && next_random() % 8 == 0) {
    /* (not with alpha 0: BLAS then reads neither a nor b, and the CPU gives 0 where its own
     * loops, and the kernel, give NaN) */
    mm_plant(&A, dtype, batch, NAN);
    mm_plant(&B, dtype, batch, next_random() % 2 ? INFINITY : -INFINITY);
  }
  /* the CPU: its matmul, and its own loops */
  want = malloc((size_t)(C.span * size));
  own = malloc((size_t)(C.span * size));
  got = malloc((size_t)(C.span * size));
  memcpy(want, C.host, (size_t)(C.span * size));
  memcpy(own, C.host, (size_t)(C.span * size));
  r.batch = batch;
  r.m = m;
  r.n = n;
  r.k = k;
  r.a = mm_request_operand(&A, A.host, complex && next_random() % 2);
  r.b = mm_request_operand(&B, B.host, complex && next_random() % 2);
  r.c = mm_request_operand(&C, want, false);
  CHECK(dlx_cpu_backend.matmul(&r, NULL) == 0);
  dlx_buffer_release((dlx_buffer *)r.c.buffer);
  r.c = mm_request_operand(&C, own, false);
  for (int64_t i = 0; i < batch; i++) dlx_cpu_small_product(dtype)(&r, i);
  /* the kernel */
  mm_to_svm(&A, size, misalign);
  mm_to_svm(&B, size, misalign);
  mm_to_svm(&C, size, misalign);
  hb.dtype = dtype;
  hb.mode = mode;
  hb.aligned = A.shift % part == 0 && B.shift % part == 0 && C.shift % part == 0;
  hb.batch = batch;
  hb.m = m;
  hb.n = n;
  hb.k = k;
  mm_block_operand(&hb.a_rs, &hb.a_cs, &hb.a_bs, &A, size);
  mm_block_operand(&hb.b_rs, &hb.b_cs, &hb.b_bs, &B, size);
  mm_block_operand(&hb.c_rs, &hb.c_cs, &hb.c_bs, &C, size);
  hb.conj_a = r.a.conj;
  hb.conj_b = r.b.conj;
  {
    void *const args[4] = {C.mem + C.shift, A.mem + A.shift, B.mem + B.shift, blk};
    if (mode == DLX_ZE_MATMUL_DIRECT) { /* grid-stride: fewer work-groups than elements too */
      int64_t needed = (batch * m * n + DLX_ZE_GROUP_SIZE - 1) / DLX_ZE_GROUP_SIZE;
      int64_t groups = needed / (1 + (int64_t)(next_random() % 3));
      host_access(blk, sizeof hb, 1);
      memcpy(blk, &hb, sizeof hb);
      host_access(blk, sizeof hb, 0);
      CHECK(run(DLX_ZE_KERNEL_MATMUL, (size_t)(groups > 0 ? groups : 1), args, 4) == 0);
    } else { /* a work-group a tile, in one to three launches (first_tile) */
      int cls = dtype == DLX_FLOAT64      ? DLX_ZE_MM_CLASS_DOUBLE
                : dtype == DLX_COMPLEX64  ? DLX_ZE_MM_CLASS_C64
                : dtype == DLX_COMPLEX128 ? DLX_ZE_MM_CLASS_C128
                : kind == DLX_KIND_FLOAT  ? DLX_ZE_MM_CLASS_FLOAT
                                          : DLX_ZE_MM_CLASS_INTEGER;
      int64_t tiles = batch * dlx_ze_mm_tiles_max(cls, m, n);
      int64_t chunk = (tiles + 2) / (1 + (int64_t)(next_random() % 3));
      for (hb.first_tile = 0; hb.first_tile < tiles; hb.first_tile += chunk) {
        int64_t groups = tiles - hb.first_tile < chunk ? tiles - hb.first_tile : chunk;
        host_access(blk, sizeof hb, 1);
        memcpy(blk, &hb, sizeof hb);
        host_access(blk, sizeof hb, 0);
        CHECK(run(DLX_ZE_KERNEL_MATMUL, (size_t)groups, args, 4) == 0);
      }
    }
  }
  host_access(C.mem, (size_t)(C.span * size) + 16, 1);
  memcpy(got, C.mem + C.shift, (size_t)(C.span * size));
  host_access(C.mem, (size_t)(C.span * size) + 16, 0);
  /* compare: the elements of c within the tolerance (integers exactly), the rest untouched */
  is_element = calloc((size_t)C.span, 1);
  ma = mm_magnitudes(&A, dtype);
  mb = mm_magnitudes(&B, dtype);
  mc = mm_magnitudes(&C, dtype);
  for (int64_t i = 0; i < batch; i++)
    for (int64_t row = 0; row < m; row++)
      for (int64_t col = 0; col < n; col++) {
        int64_t p = mm_at(&C, i, row, col);
        double bound = 0, alpha = hypot(hb.alpha_f[0], hb.alpha_f[1]);
        double beta = hypot(hb.beta_f[0], hb.beta_f[1]);
        const unsigned char *g = got + p * size, *w = want + p * size;
        is_element[p] = 1;
        elements++;
        same += mm_same(dtype, g, own + p * size);
        if (!floating) {
          bad += memcmp(g, w, (size_t)size) != 0;
          continue;
        }
        for (int64_t l = 0; l < k; l++)
          bound += ma[mm_at(&A, i, row, l)] * mb[mm_at(&B, i, l, col)];
        bound = alpha * bound + (hb.beta_zero ? 0 : beta * mc[p]);
        bad += !mm_close(dtype, g, w, bound, k);
      }
  for (int64_t p = 0; p < C.span; p++)
    if (!is_element[p]) bad += memcmp(got + p * size, C.host + p * size, (size_t)size) != 0;
  if (bad != 0)
    fprintf(stderr,
            "matmul %s %s: batch %lld, %lld x %lld @ %lld x %lld, scalars %d%s: %lld elements "
            "wrong\n",
            dlx_dtype_info_of(dtype)->name, mode == DLX_ZE_MATMUL_TILED ? "tiled" : "direct",
            (long long)batch, (long long)m, (long long)k, (long long)k, (long long)n, which,
            hb.aligned ? "" : ", misaligned", (long long)bad);
  CHECK(bad == 0);
  mm_products++;
  mm_elements += elements;
  mm_identical += same == elements;
  dlx_buffer_release((dlx_buffer *)r.a.buffer);
  dlx_buffer_release((dlx_buffer *)r.b.buffer);
  dlx_buffer_release((dlx_buffer *)r.c.buffer);
  free(ma);
  free(mb);
  free(mc);
  free(is_element);
  free(want);
  free(own);
  free(got);
  free(A.host);
  free(B.host);
  free(C.host);
  clSVMFree(context, A.mem);
  clSVMFree(context, B.mem);
  clSVMFree(context, C.mem);
  clSVMFree(context, blk);
}

/* The sub-group size dlx_matmul runs with (1: none). */
static size_t matmul_subgroup_size(void) {
  cl_int rc;
  cl_kernel k = clCreateKernel(program, DLX_ZE_KERNEL_MATMUL, &rc);
  size_t local = DLX_ZE_GROUP_SIZE, size = 0;
  if (rc != CL_SUCCESS) return 0;
  rc = clGetKernelSubGroupInfo(k, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                               &local, sizeof size, &size, NULL);
  clReleaseKernel(k);
  return rc == CL_SUCCESS && size > 1 ? size : 1;
}

/* Every dtype, both modes, over sizes: 1 x 1, k = 0, a row and a column, batches, tiles'
 * multiples and sizes that are not, inner dims of several k-steps. */
static void test_matmuls(void) {
  static const int64_t sizes[][4] = {/* batch, m, n, k */
                                     {1, 1, 1, 1},     {1, 1, 1, 0},      {2, 5, 7, 0},
                                     {1, 3, 5, 4},     {3, 4, 4, 4},      {1, 1, 100, 40},
                                     {1, 100, 1, 40},  {2, 33, 65, 17},   {4, 64, 64, 64},
                                     {1, 70, 129, 33}, {2, 130, 67, 300}, {7, 16, 20, 9}};
  int64_t before = mm_products, identical = mm_identical;
  printf("matmul: sub-groups of %zu\n", matmul_subgroup_size());
  for (int dtype = DLX_BOOL; dtype <= DLX_COMPLEX128; dtype++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (int64_t mode = DLX_ZE_MATMUL_TILED; mode <= DLX_ZE_MATMUL_DIRECT; mode++)
        test_matmul((dlx_dtype)dtype, mode, sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3]);
  printf("matmul: %lld products, %lld of them bit for bit the CPU's own loops\n",
         (long long)(mm_products - before), (long long)(mm_identical - identical));
}

int main(void) {
  const char *expect = getenv("DLX_ZE_EXPECT_SUBGROUPS"), *il = getenv("DLX_ZE_KERNEL_IL");
  size_t subgroup;
  int rc = open_device();
  if (rc != 0) return rc;
  subgroup = reduce_subgroup_size();
  printf("kernels: %s; reductions: sub-groups of %zu\n",
         il != NULL && il[0] != '\0' ? il : "built from source", subgroup);
  if (expect != NULL && strcmp(expect, "1") == 0 && subgroup <= 1) {
    fprintf(stderr, "DLX_ZE_EXPECT_SUBGROUPS=1, but the reductions ran without sub-groups\n");
    check_failures++;
  }
  for (int to = DLX_BOOL; to <= DLX_COMPLEX128; to++) {
    for (int from = DLX_BOOL; from <= DLX_COMPLEX128; from++) {
      for (int rep = 0; rep < 3; rep++) test_copy((dlx_dtype)to, (dlx_dtype)from);
    }
    test_fill((dlx_dtype)to);
  }
  for (int dtype = DLX_FLOAT8_E3M4; dtype <= DLX_FLOAT8_E8M0FNU; dtype++)
    test_copy((dlx_dtype)dtype, (dlx_dtype)dtype); /* storage-only: raw */
  test_reductions();
  test_elementwise_ops();
  test_math_ulp();
  test_stats();
  test_along_dims();
  test_randoms();
  test_sorts();
  test_indexing();
  test_matmuls();
  if (il == NULL || il[0] == '\0') test_reductions_per_subgroup_size();
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return check_report("test_ze_kernels");
}
