/* test_core_host_memory.c -- host memory that another backend computes on (backend.h's
 * prepare_host_access: CUDA's cuda_host and cuda_managed). The core resolves the backend that
 * computes on a tensor's memory in one place (dlx_compute_on): for such memory, the host backend,
 * after the device's prepare_host_access. Checked without a GPU, on CPU memory under a stand-in
 * table that has no compute entry at all: every op still runs, on the host backend, and waits
 * for the device first. And the names of host memory's device types. */
#include <math.h>

#include "check.h"
#include "core/indexing.h"
#include "core/linalg.h"
#include "core/linalg_decomp.h"
#include "core/random.h"
#include "core/sort.h"
#include "core/stats.h"
#include "cpu_test_util.h"

static int prepared;     /* calls of prepare_host_access */
static bool device_lost; /* makes prepare_host_access fail */

static int prepare(int32_t device_id, dlx_error *err) {
  CHECK_EQ_INT(device_id, 0);
  prepared++;
  return device_lost ? dlx_fail(err, DLX_DEVICE_ERROR, "the device was lost") : 0;
}

/* Host memory with no compute entry of its own, as cuda_host's table. */
static const dlx_backend host_memory = {
    .name = "host_memory",
    .device_type = kDLCPU,
    .host_accessible = true,
    .prepare_host_access = prepare,
};

enum { N = 6 };
static const int64_t shape[1] = {N}, strides[1] = {1};

/* A float32 {N} tensor over b, filled with 1 .. N by the CPU backend. */
static dlx_tensor counting(dlx_buffer *b) {
  dlx_tensor t = make_tensor(b, DLX_FLOAT32, 1, shape, strides, 0);
  float *v = b->data;
  for (int i = 0; i < N; i++) v[i] = (float)(i + 1);
  return t;
}

static double read_f32(const dlx_tensor *t, int i) { return ((const float *)t->buffer->data)[i]; }

static void test_resolution(void) {
  dlx_buffer *b = new_buffer(N * sizeof(float));
  dlx_tensor t = counting(b);
  const dlx_backend *backend = NULL;
  dlx_error err;
  CHECK(dlx_host_backend() == &dlx_cpu_backend);
  CHECK(dlx_compute_backend(b) == &dlx_cpu_backend); /* CPU memory: its own backend */
  prepared = 0;
  CHECK_EQ_INT(dlx_compute_on(&t, &backend, &err), 0);
  CHECK_EQ_INT(prepared, 0);
  b->backend = &host_memory;
  CHECK(dlx_compute_backend(b) == &dlx_cpu_backend); /* no waiting for the checks */
  CHECK_EQ_INT(prepared, 0);
  backend = NULL;
  CHECK_EQ_INT(dlx_compute_on(&t, &backend, &err), 0);
  CHECK_EQ_INT(prepared, 1);
  CHECK(backend == &dlx_cpu_backend);
  b->backend = &dlx_cpu_backend;
  free_buffer(b);
}

/* Copies, fills and elementwise ops write host memory: the device is waited for first. */
static void test_writes(dlx_tensor *t) {
  dlx_scalar three = {.kind = DLX_KIND_FLOAT, .v.f = 3.0};
  dlx_operand a = {.tensor = t};
  dlx_tensor cpu_src;
  dlx_error err;
  int before = prepared;
  CHECK_EQ_INT(dlx_fill(t, &three, &err), 0);
  CHECK_EQ_INT(prepared, before + 1);
  CHECK(read_f32(t, N - 1) == 3.0);
  CHECK_EQ_INT(dlx_tensor_empty(&cpu_src, shape, 1, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, &err), 0);
  for (int i = 0; i < N; i++) ((double *)cpu_src.buffer->data)[i] = i;
  CHECK_EQ_INT(dlx_copy(t, &cpu_src, &err), 0); /* cast float64 -> float32 into host memory */
  CHECK_EQ_INT(prepared, before + 2);
  CHECK(read_f32(t, N - 1) == N - 1);
  dlx_tensor_close(&cpu_src);
  CHECK_EQ_INT(dlx_elementwise(DLX_EW_ADD, &a, &a, t, NULL, &err), 0); /* in place */
  CHECK_EQ_INT(prepared, before + 3);
  CHECK(read_f32(t, N - 1) == 2 * (N - 1));
}

/* Reductions, statistics and ops along a dim read host memory into new tensors. */
static void test_reads(const dlx_tensor *t) {
  dlx_tensor out;
  dlx_scalar value;
  dlx_error err;
  int before = prepared;
  CHECK_EQ_INT(dlx_reduce(&out, DLX_REDUCE_SUM, t, 1, false, &err), 0);
  CHECK_EQ_INT(prepared, before + 1);
  CHECK_EQ_INT(dlx_get_element(&out, NULL, &value, &err), 0);
  CHECK(value.v.f == N * (N - 1)); /* 2 * (0 + ... + N - 1) */
  dlx_tensor_close(&out);
  CHECK_EQ_INT(dlx_reduce_stat(&out, DLX_STAT_NORM, INFINITY, t, 1, false, &err), 0);
  CHECK_EQ_INT(prepared, before + 2);
  CHECK(read_f32(&out, 0) == 2 * (N - 1));
  dlx_tensor_close(&out);
  CHECK_EQ_INT(dlx_along_dim(&out, DLX_DIM_CUMSUM, t, 0, &err), 0);
  CHECK_EQ_INT(prepared, before + 3);
  CHECK(read_f32(&out, N - 1) == N * (N - 1));
  dlx_tensor_close(&out);
}

/* Sorting, indexing and random numbers, the entries added last: no forwarder needed either. */
static void test_later_entries(dlx_tensor *t) {
  dlx_random_request uniform = {.kind = DLX_RANDOM_UNIFORM, .a = 0, .b = 1};
  dlx_generator g;
  dlx_tensor values, indices, nonzero;
  dlx_error err;
  int before = prepared;
  CHECK_EQ_INT(dlx_sort(&values, &indices, t, 0, true, "sort", &err), 0);
  CHECK(prepared > before);
  CHECK(read_f32(&values, 0) == 2 * (N - 1));
  CHECK_EQ_INT(((int64_t *)indices.buffer->data)[0], N); /* 1-based */
  dlx_tensor_close(&values);
  dlx_tensor_close(&indices);
  before = prepared;
  CHECK_EQ_INT(dlx_nonzero(&nonzero, t, &err), 0);
  CHECK(prepared > before);
  CHECK_EQ_INT(nonzero.shape[0], N - 1); /* every element but the first, 0 */
  dlx_tensor_close(&nonzero);
  before = prepared;
  dlx_generator_seed(&g, 7);
  CHECK_EQ_INT(dlx_random_fill(&g, t, &uniform, "rand", &err), 0);
  CHECK_EQ_INT(prepared, before + 1);
  CHECK(read_f32(t, 0) >= 0 && read_f32(t, 0) < 1);
}

/* The matrix product and the decompositions, added after the mechanism: A = {{1, 2, 3}, {4, 5,
 * 6}} over t's memory, A @ Aᵀ through a transposed view, and det of {{1, 2}, {3, 4}}. */
static void test_linear_algebra(const dlx_tensor *t) {
  static const int64_t shape_a[2] = {2, 3}, strides_a[2] = {3, 1};
  static const int64_t shape_at[2] = {3, 2}, strides_at[2] = {1, 3};
  static const int64_t shape_m[2] = {2, 2}, strides_m[2] = {2, 1};
  dlx_tensor a = make_tensor(t->buffer, DLX_FLOAT32, 2, shape_a, strides_a, 0);
  dlx_tensor at = make_tensor(t->buffer, DLX_FLOAT32, 2, shape_at, strides_at, 0);
  dlx_tensor m = make_tensor(t->buffer, DLX_FLOAT32, 2, shape_m, strides_m, 0);
  dlx_matmul_args args = dlx_matmul_args_of("matmul", &a, &at);
  dlx_tensor product, det;
  dlx_error err;
  int before = prepared;
  CHECK_EQ_INT(dlx_matmul(&product, &args, &err), 0);
  CHECK(prepared > before);
  CHECK(read_f32(&product, 0) == 14 && read_f32(&product, 1) == 32);
  CHECK(read_f32(&product, 2) == 32 && read_f32(&product, 3) == 77);
  dlx_tensor_close(&product);
  before = prepared;
  CHECK_EQ_INT(dlx_linalg_det(&det, &m, &err), 0);
  CHECK(prepared > before);
  CHECK(fabs(read_f32(&det, 0) + 2) < 1e-5);
  dlx_tensor_close(&det);
}

static void test_every_op_runs_on_the_host_backend(void) {
  dlx_buffer *b = new_buffer(N * sizeof(float));
  dlx_tensor t = counting(b);
  b->backend = &host_memory;
  test_writes(&t);
  test_reads(&t);
  test_later_entries(&t);
  for (int i = 0; i < N; i++) ((float *)b->data)[i] = (float)(i + 1);
  test_linear_algebra(&t);
  b->backend = &dlx_cpu_backend;
  free_buffer(b);
}

/* When the device cannot be waited for, the op fails with its error and writes nothing. */
static void test_failed_wait(void) {
  dlx_buffer *b = new_buffer(N * sizeof(float));
  dlx_tensor t = counting(b), out;
  dlx_scalar zero = {.kind = DLX_KIND_FLOAT, .v.f = 0};
  dlx_error err;
  b->backend = &host_memory;
  device_lost = true;
  CHECK_EQ_INT(dlx_fill(&t, &zero, &err), DLX_DEVICE_ERROR);
  CHECK(strstr(err.message, "the device was lost") != NULL);
  CHECK(read_f32(&t, 0) == 1);
  CHECK_EQ_INT(dlx_reduce(&out, DLX_REDUCE_MAX, &t, 1, false, &err), DLX_DEVICE_ERROR);
  device_lost = false;
  b->backend = &dlx_cpu_backend;
  free_buffer(b);
}

/* Device types of host memory have one device, written without ":0", whether or not this build
 * has their backend (rocm_host never has one). */
static void test_host_memory_names(void) {
  char buf[48];
  CHECK(dlx_device_type_is_host_like(kDLCPU) && dlx_device_type_is_host_like(kDLROCMHost));
  CHECK(!dlx_device_type_is_host_like(kDLCUDA) && !dlx_device_type_is_host_like(kDLOneAPI));
  CHECK(strcmp(dlx_device_format((DLDevice){kDLROCMHost, 0}, buf, sizeof buf), "rocm_host") == 0);
  CHECK(strcmp(dlx_device_format((DLDevice){kDLOneAPI, 0}, buf, sizeof buf), "oneapi:0") == 0);
}

int main(void) {
  test_resolution();
  test_host_memory_names();
  test_every_op_runs_on_the_host_backend();
  test_failed_wait();
  return check_report("test_core_host_memory");
}
