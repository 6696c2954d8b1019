/* plan.h -- the layout of a walk over operands of one shape, laid out once for every backend.
 *
 * An operation over up to DLX_PLAN_MAX_OPS operands of one shape (operand 0 is usually the
 * output, the others its inputs) is planned in three steps: dlx_plan_start takes the shape,
 * dlx_plan_add (or _add_broadcast, _add_tensor) each operand's strides, and dlx_plan_finish
 * drops the size-1 dims, orders the dims for operand 0's memory when asked, and merges
 * neighbouring dims that every operand walks as one. What is left is a few dims (outer first,
 * the last one the innermost), each operand's strides along them and where each walk starts.
 * Strides and offsets count elements; a backend that wants bytes multiplies.
 *
 * Backends fill their own kernel arguments from the plan (the CPU's odometer, CUDA's and Level
 * Zero's argument blocks); tiling, vector widths and launch shapes stay theirs. */
#ifndef DLX_CORE_PLAN_H
#define DLX_CORE_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor.h"

#define DLX_PLAN_MAX_OPS 5 /* dst and four inputs (where, clamp, lerp) */

enum {
  /* Sort the dims outer to inner by operand 0's |stride| (ties: operand 1's, and so on), so
   * that the walk goes through operand 0's memory in order. Stable: without it, and between
   * equal strides, the walk keeps row-major order (which flattened positions rely on). */
  DLX_PLAN_ORDER = 1,
  /* Walk a dim backwards where operand 0 (or, where it does not move, operand 1) would go
   * backwards: the same pairs of elements, visited in the other order. Each flip moves the
   * operands' offsets to the new first element. */
  DLX_PLAN_FLIP = 2,
  /* Drop the dims where every operand has stride 0 (writes that repeat the same value). */
  DLX_PLAN_DROP_BROADCAST = 4
};

typedef struct dlx_plan {
  int32_t ndim; /* dims left, outer first; 0: one element */
  int32_t nops; /* operands added */
  /* Before dlx_plan_finish, a dim (< ndim) to keep as it is: never dropped, never merged with
   * a neighbour (the dim an indexing kernel walks in order); -1, what dlx_plan_start sets, for
   * none. After it, that dim's place among the dims left (-1 for none). */
  int32_t keep;
  int64_t numel; /* elements walked: the product of shape (0: nothing to walk) */
  int64_t shape[DLX_MAX_NDIM];
  int64_t strides[DLX_PLAN_MAX_OPS][DLX_MAX_NDIM];
  int64_t offset[DLX_PLAN_MAX_OPS]; /* where each operand's walk starts */
} dlx_plan;

/* A plan over ndim dims (0 <= ndim <= DLX_MAX_NDIM) of this shape (whose element count fits in
 * an int64_t, as every tensor's does), with no operands yet. (Inline, as dlx_plan_add: the CPU
 * plans every strided op, small ones too.) */
static inline void dlx_plan_start(dlx_plan *p, int32_t ndim, const int64_t *shape) {
  p->ndim = ndim;
  p->nops = 0;
  p->keep = -1;
  p->numel = 0; /* dlx_plan_finish counts */
  for (int32_t d = 0; d < ndim; d++) p->shape[d] = shape[d];
}

/* Adds an operand with a stride for each of the plan's dims (NULL: all 0, a value every
 * element reads) whose walk starts at `offset`. At most DLX_PLAN_MAX_OPS operands. */
static inline void dlx_plan_add(dlx_plan *p, const int64_t *strides, int64_t offset) {
  int k = p->nops++;
  p->offset[k] = offset;
  for (int32_t d = 0; d < p->ndim; d++) p->strides[k][d] = strides != NULL ? strides[d] : 0;
}

/* Adds an operand of its own ndim dims, broadcast to the plan's shape as NumPy does (its dims
 * are the plan's last ones; a missing or size-1 dim gets stride 0). Its walk starts at 0. */
void dlx_plan_add_broadcast(dlx_plan *p, int32_t ndim, const int64_t *shape,
                            const int64_t *strides);

/* Adds tensor t broadcast to the plan's shape (NULL: a value every element reads), starting
 * at its first element (offset 0: the caller adds t's own). */
void dlx_plan_add_tensor(dlx_plan *p, const dlx_tensor *t);

/* Lays the plan out with the DLX_PLAN_* flags (0: drop and merge only). Returns false, with
 * ndim and numel 0, when a dim has size 0 (nothing to walk). */
bool dlx_plan_finish(dlx_plan *p, int flags);

/* dlx_plan_start, a dlx_plan_add for each of the nops operands (strides[k], offsets[k]; offsets
 * may be NULL: all 0) and dlx_plan_finish in one pass over the caller's arrays, for callers that
 * have them: the CPU plans every strided op, small ones too. */
bool dlx_plan_make(dlx_plan *p, int32_t ndim, const int64_t *shape, int nops,
                   const int64_t *const *strides, const int64_t *offsets, int flags);

/* True when the walk is one run of unit stride in every operand (or one element): what a
 * memcpy, a memset or a vectorised loop can do. */
bool dlx_plan_is_contiguous(const dlx_plan *p);

#endif
