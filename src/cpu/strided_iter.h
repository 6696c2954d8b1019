/* strided_iter.h -- walking up to five strided operands of the same shape, over the core's plan
 * (core/plan.h).
 *
 * dlx_strided_init lays the dims out once with the core's plan: size-1 dims go, dims may be
 * reordered (outer to inner by operand 0's |stride|, the order that walks operand 0's memory
 * forwards) with negative strides flipped, and neighbouring dims that every operand can address
 * as one are merged; the CPU then always has at least one dim. What is left is an outer odometer
 * (dlx_strided_next) around one inner dim that a 1-D loop processes in one call. Strides and
 * positions count elements, not bytes. */
#ifndef DLX_CPU_STRIDED_ITER_H
#define DLX_CPU_STRIDED_ITER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/plan.h"
#include "core/tensor.h"

#define DLX_STRIDED_MAX_OPS DLX_PLAN_MAX_OPS

enum {
  /* Sort dims by operand 0's |stride| and flip negative strides. Without it the walk keeps
   * row-major order, which flattened indices (argmin, argmax) rely on. */
  DLX_STRIDED_REORDER = DLX_PLAN_ORDER | DLX_PLAN_FLIP,
  /* Drop dims where every operand has stride 0 (for writes that repeat the same value). */
  DLX_STRIDED_DROP_BROADCAST = DLX_PLAN_DROP_BROADCAST
};

/* The plan, with ndim at least 1: the last dim is the inner one. */
typedef dlx_plan dlx_strided;

/* Returns false when there is nothing to walk (a size-0 dim). A 0-d shape is one element.
 * strides[k] and offsets[k] describe operand k (offsets may be NULL: all 0). */
bool dlx_strided_init(dlx_strided *it, int ndim, const int64_t *shape, int nops,
                      const int64_t *const *strides, const int64_t *offsets, int flags);

/* Steps the outer dims (all but the inner one); index (ndim entries, zeroed by the caller) and
 * pos (nops entries, starting at it->offset) follow. Returns false after the last step. */
bool dlx_strided_next(const dlx_strided *it, int64_t *index, int64_t *pos);

/* Sets index and pos to where dlx_strided_next would have them after `row` steps from the
 * start (row < the product of the outer dims), so that a walk can begin at any row. */
void dlx_strided_seek(const dlx_strided *it, int64_t row, int64_t *index, int64_t *pos);

/* The number of dlx_strided_next steps plus one: the product of the outer dims. */
int64_t dlx_strided_rows(const dlx_strided *it);

static inline int64_t dlx_strided_inner_size(const dlx_strided *it) {
  return it->shape[it->ndim - 1];
}

static inline int64_t dlx_strided_inner_stride(const dlx_strided *it, int op) {
  return it->strides[op][it->ndim - 1];
}

#endif
