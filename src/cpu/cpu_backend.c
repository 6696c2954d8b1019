/* cpu_backend.c -- the CPU backend's table and its allocator: 64-byte aligned blocks through
 * the core's allocation door (core/alloc.h), with a count of the bytes held. */
#include <stdatomic.h>
#include <stdint.h>

#include "core/alloc.h"
#include "core/backend.h"
#include "cpu/cpu.h"
#include "cpu/kernels.h"

#define CPU_ALIGNMENT 64

static atomic_size_t allocated_bytes;

size_t dlx_cpu_memory_allocated(void) { return atomic_load(&allocated_bytes); }

static int cpu_device_count(void) { return 1; }

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
    .copy = dlx_cpu_copy,
    .fill = dlx_cpu_fill,
    .reduce = dlx_cpu_reduce,
    .synchronize = NULL,
};
