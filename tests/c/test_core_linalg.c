/* test_core_linalg.c -- the core's side of dlx.linalg's decompositions that LAPACK cannot be
 * made to show on demand: a device without the linalg entry, and the LinAlgError of every op
 * whose failure is non-convergence (a backend that runs the CPU's entry, then reports the
 * matrix it is told to as failed). The results of a failed call are released (ASan's leak check
 * in the asan preset). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/linalg_decomp.h"
#include "cpu_test_util.h"

/* The batch element and info the failing backend reports, and the entry it wraps. */
static int64_t fail_batch, fail_info;

static int failing_linalg(dlx_linalg_request *r, dlx_error *err) {
  int rc = dlx_cpu_backend.linalg(r, err);
  if (rc == 0) {
    r->bad_batch = fail_batch;
    r->bad_info = fail_info;
  }
  return rc;
}

/* A batch of `count` 3 x 3 float64 matrices 2 I, in b. */
static dlx_tensor batch_of_matrices(dlx_buffer *b, int count) {
  int64_t shape[3] = {count, 3, 3}, strides[3] = {9, 3, 1};
  double *d = b->data;
  for (int i = 0; i < count * 9; i++) d[i] = i % 9 % 4 == 0 ? 2 : 0;
  return make_tensor(b, DLX_FLOAT64, 3, shape, strides, 0);
}

static void test_no_entry(void) {
  dlx_backend without = dlx_cpu_backend;
  dlx_buffer *b = new_buffer(9 * 8);
  dlx_tensor a = batch_of_matrices(b, 1), out;
  dlx_error err;
  without.linalg = NULL;
  a.ndim = 2;
  a.shape[0] = a.shape[1] = 3;
  a.strides[0] = 3;
  a.strides[1] = 1;
  b->backend = &without;
  CHECK(dlx_linalg_inv(&out, &a, &err) == DLX_DEVICE_ERROR);
  CHECK(strstr(err.message, "linalg.inv is not implemented on cpu yet: move the tensor to the "
                            "CPU first") != NULL);
  b->backend = &dlx_cpu_backend;
  free_buffer(b);
}

/* Each call below fails on batch element 3 of 4 (1-based), with info 7. */
static void check_failure(int rc, const dlx_error *err, const char *name, const char *words) {
  char start[80];
  snprintf(start, sizeof start, "%s: (Batch element 3): ", name);
  CHECK(rc == DLX_LINALG_ERROR);
  CHECK(strncmp(err->message, start, strlen(start)) == 0);
  CHECK(strstr(err->message, words) != NULL);
  if (rc != DLX_LINALG_ERROR || strstr(err->message, words) == NULL)
    printf("  got: %s\n", err->message);
}

static void test_failures(void) {
  dlx_backend failing = dlx_cpu_backend;
  dlx_buffer *b = new_buffer(4 * 9 * 8);
  dlx_tensor a = batch_of_matrices(b, 4), o1, o2, o3, o4;
  dlx_error err;
  const char *converge = "(error code: 7).";
  int64_t before = (int64_t)dlx_cpu_backend.memory_allocated(0);
  failing.linalg = failing_linalg;
  b->backend = &failing;
  fail_batch = 2;
  fail_info = 7;
  check_failure(dlx_linalg_svd(&o1, &o2, &o3, &a, true, &err), &err, "linalg.svd",
                "too many repeated singular values (error code: 7).");
  check_failure(dlx_linalg_svd(NULL, &o2, NULL, &a, false, &err), &err, "linalg.svdvals", converge);
  check_failure(dlx_linalg_eigh(&o1, &o2, &a, false, &err), &err, "linalg.eigh",
                "too many repeated eigenvalues (error code: 7).");
  check_failure(dlx_linalg_eigh(&o1, NULL, &a, true, &err), &err, "linalg.eigvalsh", converge);
  check_failure(dlx_linalg_eig(&o1, &o2, &a, &err), &err, "linalg.eig",
                "The QR algorithm failed to compute all the eigenvalues (error code: 7).");
  check_failure(dlx_linalg_eig(&o1, NULL, &a, &err), &err, "linalg.eigvals", converge);
  check_failure(dlx_linalg_lstsq(&o1, &o2, &o3, &o4, &a, &a, -1, &err), &err, "linalg.lstsq",
                "The SVD of the least squares problem failed to converge (error code: 7).");
  check_failure(dlx_linalg_qr(&o1, &o2, &a, DLX_QR_REDUCED, &err), &err, "linalg.qr", converge);
  /* nothing of the failed calls is left */
  CHECK((int64_t)dlx_cpu_backend.memory_allocated(0) == before);
  b->backend = &dlx_cpu_backend;
  free_buffer(b);
}

int main(void) {
  test_no_entry();
  test_failures();
  return check_report("test_core_linalg");
}
