/* copies.c -- the copies of dlx_kernels.cl against the CPU backend's copy: every pair of
 * computable dtypes cast (random bytes: NaN payloads, inf, subnormals, huge values), raw copies
 * bit for bit (the storage-only float8 dtypes too), and fills, in random permuted, padded and
 * negative-stride layouts. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"

/* ---- casts and raw copies */

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

void test_copies(void) {
  for (int to = DLX_BOOL; to <= DLX_COMPLEX128; to++) {
    for (int from = DLX_BOOL; from <= DLX_COMPLEX128; from++) {
      for (int rep = 0; rep < 3; rep++) test_copy((dlx_dtype)to, (dlx_dtype)from);
    }
    test_fill((dlx_dtype)to);
  }
  for (int dtype = DLX_FLOAT8_E3M4; dtype <= DLX_FLOAT8_E8M0FNU; dtype++)
    test_copy((dlx_dtype)dtype, (dlx_dtype)dtype); /* storage-only: raw */
}
