/* alloc.c -- the one door for host allocations, with a failure hook for tests. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include "core/alloc.h"

#include <stdatomic.h>
#include <stdlib.h>

/* The hook is process-wide on purpose: tests install it around a whole run. The pointers are
 * atomic so that installing it while other threads allocate is not a data race. */
static _Atomic(dlx_alloc_fail_fn) fail_hook;
static _Atomic(void *) fail_ctx;

void dlx_set_alloc_fail_hook(dlx_alloc_fail_fn should_fail, void *ctx) {
  atomic_store(&fail_ctx, ctx);
  atomic_store(&fail_hook, should_fail);
}

static int should_fail(void) {
  dlx_alloc_fail_fn hook = atomic_load(&fail_hook);
  return hook != NULL && hook(atomic_load(&fail_ctx));
}

void *dlx_malloc(size_t size) { return should_fail() ? NULL : malloc(size == 0 ? 1 : size); }

void *dlx_calloc(size_t count, size_t size) {
  return should_fail() ? NULL : calloc(count == 0 ? 1 : count, size == 0 ? 1 : size);
}

void dlx_free(void *ptr) { free(ptr); }

void *dlx_aligned_alloc(size_t alignment, size_t size) {
  void *ptr = NULL;
  if (should_fail()) return NULL;
  if (posix_memalign(&ptr, alignment, size == 0 ? alignment : size) != 0) return NULL;
  return ptr;
}

void dlx_aligned_free(void *ptr) { free(ptr); }
