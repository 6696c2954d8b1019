/* alloc.h -- every host-side allocation of the core (metadata, buffers' structs, DLPack export
 * blocks, CPU tensor data) goes through these, so that tests can inject failures in one place. */
#ifndef DLX_CORE_ALLOC_H
#define DLX_CORE_ALLOC_H

#include <stddef.h>

void *dlx_malloc(size_t size);
void *dlx_calloc(size_t count, size_t size);
void dlx_free(void *ptr);
/* Aligned to `alignment` (a power of two, at least sizeof(void *)); free with dlx_aligned_free. */
void *dlx_aligned_alloc(size_t alignment, size_t size);
void dlx_aligned_free(void *ptr);

/* The hook: when set, each call to the functions above asks should_fail(ctx) first and fails
 * (returns NULL) when it returns non-zero. Process-wide and meant for tests only. */
typedef int (*dlx_alloc_fail_fn)(void *ctx);
void dlx_set_alloc_fail_hook(dlx_alloc_fail_fn should_fail, void *ctx);

#endif
