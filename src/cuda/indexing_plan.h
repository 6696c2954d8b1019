/* indexing_plan.h -- a dlx_index_request (src/core/backend.h) as the CUDA indexing kernels take
 * it (dlx_cuda_index_request, kernels.h): the walk of each op over the tensors' strides, with
 * size-1 dims dropped and dims that are contiguous in every operand merged by the core's plan
 * (fewer divisions per element; the row-major order of positions stays the same). Plain C on the
 * host (indexing.c); tests/c/cuda_indexing_rules.c runs the requests it makes through
 * indexing_element.h. */
#ifndef DLX_CUDA_INDEXING_PLAN_H
#define DLX_CUDA_INDEXING_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/plan.h"
#include "cuda/kernels.h"

static inline char *dlx_cuda_index_element0(const dlx_tensor *t) {
  return t == NULL ? NULL : (char *)dlx_tensor_first_byte(t);
}

/* Adds operand k's strides (t: of the walk's shape, or NULL for none) to q's walk. */
static inline void dlx_cuda_index_walk(dlx_cuda_index_request *q, int k, const dlx_tensor *t) {
  for (int32_t d = 0; d < q->ndim; d++)
    q->strides[k][d] = t != NULL && t->ndim > 0 ? t->strides[d] : 0;
}

_Static_assert(DLX_CUDA_IX_OPERANDS <= DLX_PLAN_MAX_OPS && DLX_CUDA_MAX_DIMS >= DLX_MAX_NDIM,
               "a plan fits an indexing request");

/* Drops size-1 dims and merges contiguous ones (the core's plan, in row-major order), keeping
 * `keep` (>= 0: SCATTER's dim) as it is: q->dim becomes its place. A walk with no elements is
 * left as it is. */
static inline void dlx_cuda_index_compact(dlx_cuda_index_request *q, int32_t keep) {
  dlx_plan p;
  dlx_plan_start(&p, q->ndim, q->shape);
  for (int k = 0; k < DLX_CUDA_IX_OPERANDS; k++) dlx_plan_add(&p, q->strides[k], 0);
  p.keep = keep;
  if (!dlx_plan_finish(&p, 0)) { /* (the core sends no empty walks) */
    q->dim = keep;
    return;
  }
  q->dim = p.keep;
  q->ndim = p.ndim > 0 ? p.ndim : 1;
  if (p.ndim == 0) { /* every dim had size 1 */
    q->shape[0] = 1;
    for (int k = 0; k < DLX_CUDA_IX_OPERANDS; k++) q->strides[k][0] = 0;
    return;
  }
  for (int32_t d = 0; d < p.ndim; d++) {
    q->shape[d] = p.shape[d];
    for (int k = 0; k < DLX_CUDA_IX_OPERANDS; k++) q->strides[k][d] = p.strides[k][d];
  }
}

/* The request for r; ops walk the shape of dst (GATHER, MASKED_SCATTER), src (MASKED_SELECT) or
 * index (the others). */
static inline void dlx_cuda_index_plan(const dlx_index_request *r, dlx_cuda_index_request *q) {
  const dlx_tensor *shape_of = r->index, *walk_dst = NULL, *walk_src = NULL;
  const dlx_tensor *moved = r->dst != NULL ? r->dst : r->src;
  switch (r->op) {
  case DLX_INDEX_GATHER:
  case DLX_INDEX_SCATTER:
  case DLX_INDEX_SCATTER_ADD:
    shape_of = r->op == DLX_INDEX_GATHER ? r->dst : r->index;
    walk_dst = r->dst;
    walk_src = r->src;
    break;
  case DLX_INDEX_MASKED_SELECT:
    shape_of = walk_src = r->src;
    break;
  case DLX_INDEX_MASKED_SCATTER:
    shape_of = walk_dst = r->dst;
    break;
  default:
    break;
  }
  *q = (dlx_cuda_index_request){.op = (int)r->op,
                                .dtype = moved != NULL ? (int)moved->dtype : 0,
                                .elem_size = moved != NULL ? dlx_dtype_bits(moved->dtype) / 8 : 0,
                                .ndim = shape_of->ndim > 0 ? shape_of->ndim : 1,
                                .dim = -1,
                                .size = r->size,
                                .stride = r->stride,
                                .dst = dlx_cuda_index_element0(r->dst),
                                .src = dlx_cuda_index_element0(r->src),
                                .index = dlx_cuda_index_element0(r->index)};
  q->numel = 1;
  for (int32_t d = 0; d < q->ndim; d++) {
    q->shape[d] = shape_of->ndim > 0 ? shape_of->shape[d] : 1;
    q->numel *= q->shape[d];
  }
  dlx_cuda_index_walk(q, DLX_CUDA_IX_DST, walk_dst);
  dlx_cuda_index_walk(q, DLX_CUDA_IX_SRC, walk_src);
  dlx_cuda_index_walk(q, DLX_CUDA_IX_INDEX, r->index);
  if (r->op == DLX_INDEX_MASKED_SCATTER) q->step = r->src->strides[0];
  if (r->op == DLX_INDEX_NONZERO) q->step = r->index->ndim; /* its coordinates: no compaction */
  if (r->op == DLX_INDEX_SCATTER || r->op == DLX_INDEX_SCATTER_ADD)
    dlx_cuda_index_compact(q, r->dim);
  else if (r->op != DLX_INDEX_NONZERO)
    dlx_cuda_index_compact(q, -1);
}

/* CHECK's error for the bad index `value`: the CPU's message (src/cpu/indexing.c). */
static inline int dlx_cuda_index_bad(const dlx_index_request *r, int64_t value, dlx_error *err) {
  return dlx_index_out_of_range(err, value, r->dim, r->size);
}

#endif
