/* count_plan.h -- a dlx_count_request (src/core/backend.h) as the CUDA count kernels take it
 * (dlx_cuda_count_request, kernels.h). Plain C on the host (count.c); tests/c/cuda_count_rules.c
 * runs the requests it makes through count_element.h. */
#ifndef DLX_CUDA_COUNT_PLAN_H
#define DLX_CUDA_COUNT_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/backend.h"
#include "core/dtype.h"
#include "core/sort.h"
#include "cuda/kernels.h"

_Static_assert(DLX_CUDA_COUNT_BINCOUNT == DLX_COUNT_BINCOUNT &&
                   DLX_CUDA_COUNT_LINEAR == DLX_COUNT_LINEAR &&
                   DLX_CUDA_COUNT_EDGES == DLX_COUNT_EDGES &&
                   DLX_CUDA_COUNT_SEARCH == DLX_COUNT_SEARCH,
               "the kernels' numbers of the count ops must be dlx_count_op's");

static inline void *dlx_cuda_count_element0(const dlx_tensor *t) {
  return t == NULL ? NULL : dlx_tensor_first_byte(t);
}

static inline dlx_cuda_count_request dlx_cuda_count_plan(const dlx_count_request *r) {
  bool search = r->op == DLX_COUNT_SEARCH;
  dlx_cuda_count_request q = {.op = (int)r->op,
                              .is64 = r->src->dtype == DLX_FLOAT64,
                              .uniform = r->uniform,
                              .right = r->right,
                              .key_kind = dlx_sort_key_kind(r->src->dtype),
                              .elem_size = dlx_dtype_bits(r->src->dtype) / 8,
                              .shared_row = search && r->edges->shape[0] == 1,
                              .src = dlx_cuda_count_element0(r->src),
                              .edges = dlx_cuda_count_element0(r->edges),
                              .weights = dlx_cuda_count_element0(r->weights),
                              .out = dlx_cuda_count_element0(r->out),
                              .n = search ? r->edges->shape[1] : r->src->shape[0],
                              .nbins = r->nbins,
                              .rows = search ? r->src->shape[0] : 1,
                              .m = search ? r->src->shape[1] : r->src->shape[0],
                              .lo = r->lo,
                              .hi = r->hi};
  return q;
}

#endif
