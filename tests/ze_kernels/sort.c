/* sort.c -- the bitonic sort of sort.cl against the CPU backend's sort_rows, bit for bit. */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#include "backends/builtin.h"
#include "core/sort.h"

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

void test_sorts(void) {
  for (int dtype = DLX_BOOL; dtype <= DLX_FLOAT64; dtype++) {
    test_sort((dlx_dtype)dtype, false, 3, 1000);
    test_sort((dlx_dtype)dtype, true, 3, 1000);
  }
  test_sort(DLX_FLOAT32, false, 1, 1);
  test_sort(DLX_FLOAT32, true, 1, 4096);
  test_sort(DLX_INT64, false, 70, 3);
}
