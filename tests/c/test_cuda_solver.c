/* test_cuda_solver.c -- cuSOLVER opened at run time by the CUDA backend (src/cuda/solver.c),
 * without a GPU: the library is found (with the optional routines dlx uses: potrfBatched,
 * XsyevBatched, Xgeev) or "cuSOLVER not found" is said, every time; matrices too large for
 * cuSOLVER's 32-bit routines are refused before any library is needed; with the library but no
 * GPU a decomposition (eig and lstsq too) fails cleanly. ctest runs it with the library the
 * system finds, with DLX_CUSOLVER_LIBRARY naming a missing one (.missing), and naming the
 * toolkit's (.toolkit, DLX_TEST_CUSOLVER_LOADS=1). */
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "check.h"
#include "core/core.h"

#ifndef DLX_WITH_CUDA
int main(void) {
  printf("test_cuda_solver: dlx is built without the CUDA backend\n");
  return check_report("test_cuda_solver");
}
#else
#include "cuda/solver.h"

/* A request on cuda:0 whose memory is never touched: every path below fails before. */
static void fake_request(dlx_linalg_request *r, dlx_tensor *a, dlx_buffer *buf, dlx_linalg_op op) {
  memset(r, 0, sizeof *r);
  memset(a, 0, sizeof *a);
  memset(buf, 0, sizeof *buf);
  buf->device = (DLDevice){kDLCUDA, 0};
  buf->backend = &dlx_cuda_backend;
  buf->data = (void *)(uintptr_t)0x1000;
  a->buffer = buf;
  a->dtype = DLX_FLOAT64;
  a->ndim = 2;
  a->shape[0] = a->shape[1] = 4;
  a->strides[0] = 1;
  a->strides[1] = 4;
  r->op = op;
  r->name = "linalg.test";
  r->dtype = DLX_FLOAT64;
  r->batch = 1;
  r->m = r->n = 4;
  r->k = 1;
  r->a = a;
  r->bad_batch = -1;
}

int main(void) {
  const char *named = getenv("DLX_CUSOLVER_LIBRARY");
  bool must_load = getenv("DLX_TEST_CUSOLVER_LOADS") != NULL;
  dlx_linalg_request r;
  dlx_tensor a;
  dlx_buffer buf;
  dlx_error err, again;
  int rc;

  CHECK(dlx_cuda_backend.linalg == dlx_cuda_linalg_tensor);
  CHECK_EQ_INT(dlx_cuda_solver_batched(), 0); /* nothing loaded yet */

  /* too large for the 32-bit routines: a side, or lstsq's right-hand sides */
  fake_request(&r, &a, &buf, DLX_LINALG_QR);
  r.m = (int64_t)1 << 31;
  CHECK_EQ_INT(dlx_cuda_backend.linalg(&r, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "too large for cuSOLVER") != NULL);
  fake_request(&r, &a, &buf, DLX_LINALG_LSTSQ);
  r.k = (int64_t)1 << 30;
  CHECK_EQ_INT(dlx_cuda_backend.linalg(&r, &err), DLX_VALUE_ERROR);

  rc = dlx_cuda_solver_load(&err);
  if (rc != 0) {
    printf("test_cuda_solver: %s\n", err.message);
    CHECK(!must_load);
    CHECK_EQ_INT(rc, DLX_DEVICE_ERROR);
    CHECK(strncmp(err.message, "cuSOLVER not found", 18) == 0);
    if (named != NULL) CHECK(strstr(err.message, named) != NULL);
    CHECK_EQ_INT(dlx_cuda_solver_load(&again), DLX_DEVICE_ERROR);
    CHECK(strcmp(err.message, again.message) == 0);
    for (int op = DLX_LINALG_CHOLESKY; op <= DLX_LINALG_LSTSQ; op++) {
      fake_request(&r, &a, &buf, (dlx_linalg_op)op);
      CHECK_EQ_INT(dlx_cuda_backend.linalg(&r, &again), DLX_DEVICE_ERROR);
      CHECK(strcmp(err.message, again.message) == 0);
    }
    return check_report("test_cuda_solver");
  }
  printf("test_cuda_solver: cuSOLVER loaded (%s), optional routines %d\n",
         named != NULL ? named : "the system's", dlx_cuda_solver_batched());
  if (must_load) CHECK_EQ_INT(dlx_cuda_solver_batched(), 7); /* CUDA 13's cuSOLVER has all three */
  if (dlx_cuda_backend.device_count() == 0) {
    for (int op = DLX_LINALG_CHOLESKY; op <= DLX_LINALG_LSTSQ; op++) {
      fake_request(&r, &a, &buf, (dlx_linalg_op)op);
      rc = dlx_cuda_backend.linalg(&r, &err);
      if (op == DLX_LINALG_CHOLESKY) printf("test_cuda_solver: without a GPU: %s\n", err.message);
      CHECK_EQ_INT(rc, DLX_DEVICE_ERROR);
    }
  }
  return check_report("test_cuda_solver");
}
#endif
