/* cpu.h -- the CPU backend's own entry points, beyond the dlx_backend table (backend.h). */
#ifndef DLX_CPU_CPU_H
#define DLX_CPU_CPU_H

#include <stddef.h>

/* The backend's table (cpu_backend.c), listed by src/backends/builtin.c. */
struct dlx_backend;
extern const struct dlx_backend dlx_cpu_backend;

/* Bytes the CPU backend's allocator holds for tensors now (dlx.memory_allocated): the bytes
 * they asked for, without the blocks kept in the cache (cpu_cache.h). */
size_t dlx_cpu_memory_allocated(void);

#endif
