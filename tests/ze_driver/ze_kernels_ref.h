/* ze_kernels_ref.h -- the test driver's reference implementations of dlx's Level Zero kernels,
 * keyed by kernel name. They run the whole launch at once on the host, on dlx's CPU backend
 * (the behaviour the kernels must match; tests/ze_kernels checks the real kernels against it). */
#ifndef DLX_ZE_KERNELS_REF_H
#define DLX_ZE_KERNELS_REF_H

#include <stddef.h>
#include <stdint.h>

#include "ze/kernels/ze_args.h"

typedef struct dlx_ze_ref_kernel {
  const char *name;
  int nargs; /* all pointers; the last is the argument block */
  /* Bytes before (*lo) and from (*hi) args[i] that the launch may touch. Argument nargs - 1,
   * the block, is asked first; the others are computed from it. */
  void (*extent)(void *const *args, int i, size_t *lo, size_t *hi);
  /* Runs the launch of `groups` work-groups; NULL, or what is wrong with the launch. */
  const char *(*run)(void *const *args, uint32_t groups);
} dlx_ze_ref_kernel;

/* NULL for a name no reference implements. */
const dlx_ze_ref_kernel *dlx_ze_ref_find(const char *name);

#endif
