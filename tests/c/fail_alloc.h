/* fail_alloc.h -- for the C tests that sweep allocation failures: the allocations of Lua (through
 * fail_lua_alloc, a lua_Alloc) and of dlx (through fail_dlx_hook, for dlx_set_alloc_fail_hook)
 * are counted together, and the one numbered alloc_fail_at fails (-1: none). */
#ifndef DLX_TESTS_FAIL_ALLOC_H
#define DLX_TESTS_FAIL_ALLOC_H

#include <stdbool.h>
#include <stdlib.h>

static long alloc_count, alloc_fail_at = -1;

static bool next_fails(void) { return alloc_count++ == alloc_fail_at; }

static int fail_dlx_hook(void *ctx) {
  (void)ctx;
  return next_fails();
}

static void *fail_lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if ((ptr == NULL || nsize > osize) && next_fails()) return NULL;
  return realloc(ptr, nsize);
}

#endif
