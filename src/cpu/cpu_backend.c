/* cpu_backend.c -- the CPU backend's table and its allocator: 64-byte aligned blocks through
 * the core's allocation door (core/alloc.h), with a count of the bytes held. */
#define _DEFAULT_SOURCE /* madvise */
#include <stdatomic.h>
#include <stdint.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "backends/builtin.h"
#include "core/alloc.h"
#include "core/backend.h"
#include "cpu/cpu.h"
#include "cpu/kernels.h"

#define CPU_ALIGNMENT 64

static atomic_size_t allocated_bytes;

size_t dlx_cpu_memory_allocated(void) { return atomic_load(&allocated_bytes); }

static size_t cpu_memory_allocated(int32_t device_id) {
  (void)device_id; /* one CPU device */
  return dlx_cpu_memory_allocated();
}

static int cpu_device_count(void) { return 1; }

/* Asks for transparent huge pages over the 2 MiB-aligned part of a large block (Linux, where
 * they are often given only on request, as NumPy requests them): with 4 KiB pages, streaming a
 * large tensor costs a TLB miss every 4 KiB, and one core then reads far below the memory's
 * bandwidth. Advice only: a refusal changes nothing. */
static void advise_huge_pages(void *ptr, size_t nbytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t begin = ((uintptr_t)ptr + huge - 1) & ~(huge - 1);
  uintptr_t end = ((uintptr_t)ptr + nbytes) & ~(huge - 1);
  if (nbytes >= 4 * huge && begin < end) madvise((void *)begin, end - begin, MADV_HUGEPAGE);
#else
  (void)ptr, (void)nbytes;
#endif
}

/* A zero-byte request still gets a (minimal) block, so that data pointers are never NULL. */
static void *cpu_alloc(int32_t device_id, size_t nbytes, dlx_error *err) {
  (void)device_id;
  if (nbytes > (size_t)PTRDIFF_MAX - CPU_ALIGNMENT) {
    dlx_fail(err, DLX_MEMORY_ERROR, "cannot allocate %zu bytes on cpu: too large", nbytes);
    return NULL;
  }
  void *ptr = dlx_aligned_alloc(CPU_ALIGNMENT, nbytes);
  if (ptr == NULL) {
    dlx_fail(err, DLX_MEMORY_ERROR, "cannot allocate %zu bytes on cpu", nbytes);
    return NULL;
  }
  advise_huge_pages(ptr, nbytes);
  atomic_fetch_add(&allocated_bytes, nbytes);
  return ptr;
}

static void cpu_free(int32_t device_id, void *ptr, size_t nbytes) {
  (void)device_id;
  if (ptr == NULL) return;
  dlx_aligned_free(ptr);
  atomic_fetch_sub(&allocated_bytes, nbytes);
}

const dlx_backend dlx_cpu_backend = {
    .name = "cpu",
    .device_type = kDLCPU,
    .host_accessible = true,
    .device_count = cpu_device_count,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .memory_allocated = cpu_memory_allocated,
    .copy = dlx_cpu_copy,
    .fill = dlx_cpu_fill,
    .reduce = dlx_cpu_reduce,
    .synchronize = NULL,
};
