/* cpu_backend.c -- the CPU backend's table and its allocator: 64-byte aligned blocks from the
 * block cache (cpu_cache.h), a small one in one allocation with its buffer's header, with a
 * count of the bytes tensors hold. */
#include <stdatomic.h>
#include <stdint.h>

#include "core/backend.h"
#include "cpu/blas.h"
#include "cpu/cpu.h"
#include "cpu/cpu_cache.h"
#include "cpu/kernels.h"
#include "cpu/parallel.h"

static atomic_size_t allocated_bytes;

size_t dlx_cpu_memory_allocated(void) { return atomic_load(&allocated_bytes); }

static size_t cpu_memory_allocated(int32_t device_id) {
  (void)device_id; /* one CPU device */
  return dlx_cpu_memory_allocated();
}

static size_t cpu_memory_cached(int32_t device_id) {
  (void)device_id;
  return dlx_cpu_cache_bytes();
}

static int cpu_empty_cache(dlx_error *err) {
  (void)err; /* giving memory back cannot fail */
  dlx_cpu_cache_empty();
  return 0;
}

static int cpu_device_count(void) { return 1; }

/* dlx.set_num_threads: the pool's count, and OpenBLAS's for the BLAS and LAPACK calls made
 * outside the pool (blas.h). */
static void cpu_set_num_threads(int n) {
  dlx_cpu_set_num_threads(n);
  dlx_cpu_blas_use_threads(dlx_cpu_num_threads());
}

/* A zero-byte request still gets a (minimal) block, so that data pointers are never NULL. */
static void *cpu_alloc(int32_t device_id, size_t nbytes, dlx_error *err) {
  (void)device_id;
  if (nbytes > (size_t)PTRDIFF_MAX - DLX_CPU_ALIGNMENT) {
    dlx_fail(err, DLX_MEMORY_ERROR, "cannot allocate %zu bytes on cpu: too large", nbytes);
    return NULL;
  }
  void *ptr = dlx_cpu_block_alloc(nbytes);
  if (ptr == NULL) {
    dlx_fail(err, DLX_MEMORY_ERROR, "cannot allocate %zu bytes on cpu", nbytes);
    return NULL;
  }
  atomic_fetch_add(&allocated_bytes, nbytes);
  return ptr;
}

static void cpu_free(int32_t device_id, void *ptr, size_t nbytes) {
  (void)device_id;
  if (ptr == NULL) return;
  dlx_cpu_block_free(ptr, nbytes);
  atomic_fetch_sub(&allocated_bytes, nbytes);
}

static void *cpu_alloc_with_header(int32_t device_id, size_t header_size, size_t nbytes,
                                   void **data, dlx_error *err) {
  (void)device_id;
  if (nbytes > (size_t)PTRDIFF_MAX - DLX_CPU_ALIGNMENT - header_size) {
    dlx_fail(err, DLX_MEMORY_ERROR, "cannot allocate %zu bytes on cpu: too large", nbytes);
    return NULL;
  }
  void *header = dlx_cpu_block_alloc_with_header(header_size, nbytes, data);
  if (header == NULL) {
    dlx_fail(err, DLX_MEMORY_ERROR, "cannot allocate %zu bytes on cpu", nbytes);
    return NULL;
  }
  atomic_fetch_add(&allocated_bytes, nbytes);
  return header;
}

static void cpu_free_with_header(int32_t device_id, void *header, void *data, size_t nbytes) {
  (void)device_id;
  dlx_cpu_block_free_with_header(header, data, nbytes);
  atomic_fetch_sub(&allocated_bytes, nbytes);
}

const dlx_backend dlx_cpu_backend = {
    .name = "cpu",
    .device_type = kDLCPU,
    .host_accessible = true,
    .device_count = cpu_device_count,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .alloc_with_header = cpu_alloc_with_header,
    .free_with_header = cpu_free_with_header,
    .memory_allocated = cpu_memory_allocated,
    .memory_cached = cpu_memory_cached,
    .empty_cache = cpu_empty_cache,
    .copy = dlx_cpu_copy,
    .fill = dlx_cpu_fill,
    .reduce = dlx_cpu_reduce,
    .reduce_stat = dlx_cpu_reduce_stat,
    .along_dim = dlx_cpu_along_dim,
    .elementwise = dlx_cpu_elementwise,
    .synchronize = NULL,
    .num_threads = dlx_cpu_num_threads,
    .set_num_threads = cpu_set_num_threads,
    .fill_random = dlx_cpu_fill_random,
    .multinomial = dlx_cpu_multinomial,
    .index_op = dlx_cpu_index_op,
    .sort_rows = dlx_cpu_sort_rows,
    .row_op = dlx_cpu_row_op,
    .row_ops = DLX_ROW_ALL,
    .image_op = dlx_cpu_image_op,
    .count_op = dlx_cpu_count_op,
    .matmul = dlx_cpu_matmul,
    .conv = dlx_cpu_conv,
    .linalg = dlx_cpu_linalg,
};
