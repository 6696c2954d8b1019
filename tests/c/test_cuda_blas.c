/* test_cuda_blas.c -- cuBLAS opened at run time by the CUDA backend (src/cuda/blas.c), without a
 * GPU: the library is found or "cuBLAS not found" is said (a DeviceError, every time), integer
 * and bool products are a TypeError naming the device and dtype before any library is needed, and
 * with the library loaded but no GPU a product fails cleanly. ctest runs it three times: with the
 * library the system finds, with DLX_CUBLAS_LIBRARY naming a missing one (.missing), and naming
 * the toolkit's (.toolkit, DLX_TEST_CUBLAS_LOADS=1: every function dlx looks up must be there). */
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "check.h"
#include "core/core.h"

#ifndef DLX_WITH_CUDA
int main(void) {
  printf("test_cuda_blas: dlx is built without the CUDA backend\n");
  return check_report("test_cuda_blas");
}
#else
#include "cuda/blas.h"

/* A request on cuda:0 whose memory is never touched: every path below fails before. */
static void fake_request(dlx_matmul_request *r, dlx_buffer *buf, dlx_dtype dtype) {
  memset(r, 0, sizeof *r);
  memset(buf, 0, sizeof *buf);
  buf->device = (DLDevice){kDLCUDA, 0};
  buf->backend = &dlx_cuda_backend;
  buf->data = (void *)(uintptr_t)0x1000;
  r->dtype = dtype;
  r->batch = r->m = r->n = r->k = 2;
  r->a = (dlx_matrix_operand){buf, 0, 2, 1, 4, false};
  r->b = (dlx_matrix_operand){buf, 8, 2, 1, 4, false};
  r->c = (dlx_matrix_operand){buf, 16, 2, 1, 4, false};
  r->alpha.kind = r->beta.kind = DLX_KIND_FLOAT;
  r->alpha.v.f = 1;
}

int main(void) {
  const char *named = getenv("DLX_CUBLAS_LIBRARY");
  bool must_load = getenv("DLX_TEST_CUBLAS_LOADS") != NULL;
  dlx_matmul_request r;
  dlx_buffer buf;
  dlx_error err, again;
  int rc;

  CHECK(dlx_cuda_backend.matmul == dlx_cuda_matmul_tensor);

  /* no integer or bool product on CUDA: a TypeError naming the device and the dtype, whatever
   * the library */
  const dlx_dtype none[] = {DLX_INT64, DLX_INT32, DLX_INT8, DLX_UINT8, DLX_BOOL};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
    fake_request(&r, &buf, none[i]);
    r.alpha.kind = r.beta.kind = DLX_KIND_INT;
    CHECK_EQ_INT(dlx_cuda_backend.matmul(&r, &err), DLX_TYPE_ERROR);
    CHECK(strstr(err.message, "cuda:0") != NULL);
    CHECK(strstr(err.message, dlx_dtype_info_of(none[i])->name) != NULL);
  }

  rc = dlx_cuda_blas_load(&err);
  if (rc != 0) {
    printf("test_cuda_blas: %s\n", err.message);
    CHECK(!must_load);
    CHECK_EQ_INT(rc, DLX_DEVICE_ERROR);
    CHECK(strncmp(err.message, "cuBLAS not found", 16) == 0);
    if (named != NULL) CHECK(strstr(err.message, named) != NULL);
    /* the same answer every time, and from the backend entry */
    CHECK_EQ_INT(dlx_cuda_blas_load(&again), DLX_DEVICE_ERROR);
    CHECK(strcmp(err.message, again.message) == 0);
    fake_request(&r, &buf, DLX_FLOAT32);
    CHECK_EQ_INT(dlx_cuda_backend.matmul(&r, &again), DLX_DEVICE_ERROR);
    CHECK(strcmp(err.message, again.message) == 0);
    return check_report("test_cuda_blas");
  }
  printf("test_cuda_blas: cuBLAS loaded (%s)\n", named != NULL ? named : "the system's");
  CHECK_EQ_INT(dlx_cuda_blas_load(&err), 0);
  if (dlx_cuda_backend.device_count() == 0) {
    /* no GPU: the product fails cleanly, a DeviceError from the runtime or cuBLAS */
    for (int dtype = 0; dtype < 2; dtype++) {
      fake_request(&r, &buf, dtype == 0 ? DLX_FLOAT32 : DLX_COMPLEX128);
      if (dtype == 1) r.alpha.kind = r.beta.kind = DLX_KIND_COMPLEX;
      rc = dlx_cuda_backend.matmul(&r, &err);
      printf("test_cuda_blas: without a GPU: %s\n", err.message);
      CHECK_EQ_INT(rc, DLX_DEVICE_ERROR);
    }
  }
  return check_report("test_cuda_blas");
}
#endif
