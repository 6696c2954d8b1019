/* test_core_scalar.c -- a scalar's bytes as an element of each dtype (dlx_scalar_to_bytes, the one
 * conversion of fill values and scalar operands for every backend) against the CPU backend's
 * cast of the value from its widest dtype, bit for bit; the zero padding; the refusal of
 * storage-only dtypes; the default dtype of each kind. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "core/core.h"
#include "core/device.h"
#include "core/scalar.h"

static const DLDevice cpu = {kDLCPU, 0};

/* The value's bytes in dtype as the CPU's copy casts them from the value's widest dtype. */
static void cpu_cast(const dlx_scalar *value, dlx_dtype dtype, unsigned char *out) {
  dlx_dtype from = dlx_wide_dtype(value->kind);
  dlx_tensor src, dst;
  CHECK(dlx_tensor_empty(&src, NULL, 0, from, cpu, NULL) == 0);
  CHECK(dlx_tensor_empty(&dst, NULL, 0, dtype, cpu, NULL) == 0);
  switch (value->kind) {
  case DLX_KIND_BOOL:
    *(unsigned char *)src.buffer->data = value->v.b;
    break;
  case DLX_KIND_INT:
    memcpy(src.buffer->data, &value->v.i, 8);
    break;
  case DLX_KIND_UINT:
    memcpy(src.buffer->data, &value->v.u, 8);
    break;
  case DLX_KIND_COMPLEX:
    memcpy(src.buffer->data, value->v.c, 16);
    break;
  default:
    memcpy(src.buffer->data, &value->v.f, 8);
    break;
  }
  CHECK(dlx_host_backend()->copy(&dst, &src, NULL) == 0);
  memcpy(out, dst.buffer->data, (size_t)dlx_itemsize(dtype));
  dlx_tensor_close(&src);
  dlx_tensor_close(&dst);
}

static void test_against_cpu_casts(void) {
  const dlx_scalar values[] = {
      {DLX_KIND_BOOL, {.b = true}},
      {DLX_KIND_BOOL, {.b = false}},
      {DLX_KIND_INT, {.i = 0}},
      {DLX_KIND_INT, {.i = -1}},
      {DLX_KIND_INT, {.i = 300}},
      {DLX_KIND_INT, {.i = INT64_MIN}},
      {DLX_KIND_INT, {.i = INT64_MAX}},
      {DLX_KIND_UINT, {.u = UINT64_MAX}},
      {DLX_KIND_UINT, {.u = UINT64_C(1) << 63}},
      {DLX_KIND_FLOAT, {.f = 0.5}},
      {DLX_KIND_FLOAT, {.f = -2.7}},
      {DLX_KIND_FLOAT, {.f = 1e30}},
      {DLX_KIND_FLOAT, {.f = 65520.0}},
      {DLX_KIND_FLOAT, {.f = 3e-8}},
      {DLX_KIND_FLOAT, {.f = NAN}},
      {DLX_KIND_FLOAT, {.f = -INFINITY}},
      {DLX_KIND_COMPLEX, {.c = {1.5, -2.0}}},
      {DLX_KIND_COMPLEX, {.c = {NAN, 1.0}}},
      {DLX_KIND_COMPLEX, {.c = {0.0, 3.0}}},
  };
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    for (int d = DLX_BOOL; d <= DLX_COMPLEX128; d++) {
      unsigned char got[16], want[16];
      size_t size = (size_t)dlx_itemsize((dlx_dtype)d);
      memset(got, 0xab, sizeof got);
      CHECK(dlx_scalar_to_bytes((dlx_dtype)d, &values[i], got, NULL) == 0);
      cpu_cast(&values[i], (dlx_dtype)d, want);
      if (memcmp(got, want, size) != 0) {
        CHECK(!"the bytes differ from the CPU's cast");
        fprintf(stderr, "  value %zu as %s\n", i, dlx_dtype_info_of((dlx_dtype)d)->name);
      }
      for (size_t b = size; b < sizeof got; b++) CHECK_EQ_INT(got[b], 0);
    }
  }
}

static void test_storage_only(void) {
  const dlx_scalar one = {DLX_KIND_FLOAT, {.f = 1.0}};
  unsigned char out[16];
  dlx_error err = {0};
  CHECK_EQ_INT(dlx_scalar_to_bytes(DLX_FLOAT8_E4M3FN, &one, out, &err), DLX_TYPE_ERROR);
  CHECK_EQ_INT(err.code, DLX_TYPE_ERROR);
  CHECK(strstr(err.message, "float8_e4m3fn") != NULL);
}

static void test_default_dtypes(void) {
  CHECK_EQ_INT(dlx_default_dtype(DLX_KIND_BOOL), DLX_BOOL);
  CHECK_EQ_INT(dlx_default_dtype(DLX_KIND_INT), DLX_INT64);
  CHECK_EQ_INT(dlx_default_dtype(DLX_KIND_UINT), DLX_INT64);
  CHECK_EQ_INT(dlx_default_dtype(DLX_KIND_FLOAT), DLX_FLOAT32);
  CHECK_EQ_INT(dlx_default_dtype(DLX_KIND_COMPLEX), DLX_COMPLEX64);
}

int main(void) {
  test_against_cpu_casts();
  test_storage_only();
  test_default_dtypes();
  return check_report("test_core_scalar");
}
