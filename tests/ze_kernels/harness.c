/* harness.c -- the OpenCL side of test_ze_kernels (harness.h): the device and its program, shared
 * virtual memory, launches; the random numbers; layouts over raw memory; results as doubles. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "core/buffer.h"

/* check.h's counters, shared by the test's files */
int check_failures = 0;
int check_count = 0;

cl_context context;
static cl_command_queue queue;
static cl_program program;
static cl_device_id device;

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

int build_program(int subgroup_size) {
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

int open_device(void) {
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

void close_device(void) {
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

size_t subgroup_size_of(const char *name) {
  cl_int rc;
  cl_kernel k = clCreateKernel(program, name, &rc);
  size_t local = DLX_ZE_GROUP_SIZE, size = 0;
  if (rc != CL_SUCCESS) return 0;
  rc = clGetKernelSubGroupInfo(k, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                               &local, sizeof size, &size, NULL);
  clReleaseKernel(k);
  return rc == CL_SUCCESS && size > 1 ? size : 1;
}

/* (cl_intel_required_subgroup_size) */
#define DEVICE_SUB_GROUP_SIZES_INTEL 0x4108
size_t device_subgroup_sizes(size_t *sizes, size_t max) {
  size_t bytes = 0;
  if (clGetDeviceInfo(device, DEVICE_SUB_GROUP_SIZES_INTEL, max * sizeof *sizes, sizes, &bytes) !=
      CL_SUCCESS)
    return 0;
  return bytes / sizeof *sizes;
}

void *svm(size_t n) {
  void *p = clSVMAlloc(context, CL_MEM_READ_WRITE, n ? n : 1, 64);
  if (p == NULL) {
    fprintf(stderr, "clSVMAlloc(%zu) failed\n", n);
    exit(1);
  }
  return p;
}

void *svm_copy(const void *from, size_t bytes) {
  void *p = svm(bytes);
  host_access(p, bytes, 1);
  memcpy(p, from, bytes);
  host_access(p, bytes, 0);
  return p;
}

void host_access(void *p, size_t n, int on) {
  if (on)
    clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, p, n ? n : 1, 0, NULL, NULL);
  else
    clEnqueueSVMUnmap(queue, p, 0, NULL, NULL);
  clFinish(queue);
}

int run(const char *name, size_t groups, void *const *args, int nargs) {
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

/* ---- random numbers */

static uint64_t rng = 0x9e3779b97f4a7c15u;

uint64_t next_random(void) { /* xorshift64* */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1du;
}

void random_bytes(unsigned char *p, int64_t n) {
  for (int64_t i = 0; i < n; i++) p[i] = (unsigned char)next_random();
}

/* ---- tensors over raw memory */

layout random_layout(int32_t ndim, const int64_t *shape, int64_t itemsize) {
  layout l = {.ndim = ndim};
  int64_t order[4] = {0, 1, 2, 3}, stride = 1 + (int64_t)(next_random() % 2);
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
  set_span(&l, itemsize);
  return l;
}

void set_span(layout *l, int64_t itemsize) {
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

dlx_tensor as_tensor(const layout *l, dlx_dtype dtype, void *base) {
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

void byte_strides(const layout *l, int64_t itemsize, dlx_ze_i64 *out) {
  for (int32_t d = 0; d < l->ndim; d++) out[d] = l->strides[d] * itemsize;
}

/* ---- results */

bool close_values(double a, double b, double rel) {
  if (a == b || (isnan(a) && isnan(b))) return true;
  return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-12;
}

void result_values(const unsigned char *p, dlx_dtype dtype, int64_t n, double *out) {
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
