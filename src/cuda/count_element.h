/* count_element.h -- one element of the CUDA count_op (count_kernels.cu), by the rules of
 * src/common/count_rules.h that the CPU takes:
 * - the bins: the bin of element i of src (bincount: the element; histc: the linear formula in
 *   src's dtype; histogram: between the edges), or DLX_COUNT_LEFT_OUT;
 * - searchsorted: the 1-based position of value i among its sorted row, by a binary search of
 *   src/common/sort_keys.h's keys.
 *
 * CUDA C++, host and device: tests/c/cuda_count_rules.cpp compiles this header with the host C++
 * compiler and checks it against the CPU backend, since a GPU is not always at hand. */
#ifndef DLX_CUDA_COUNT_ELEMENT_H
#define DLX_CUDA_COUNT_ELEMENT_H

#include "common/count_rules.h"
#include "common/sort_keys.h"
#include "cuda/kernels.h"

DLX_SHARED int64_t dlx_cuda_count_bin(const dlx_cuda_count_request *r, int64_t i) {
  int64_t b = DLX_COUNT_LEFT_OUT, nb = r->nbins;
  if (r->op == DLX_CUDA_COUNT_BINCOUNT) return ((const int64_t *)r->src)[i];
  if (r->op == DLX_CUDA_COUNT_LINEAR)
    return r->is64 ? dlx_count_linear_bin_f64(((const double *)r->src)[i], r->lo, r->hi, nb)
                   : dlx_count_linear_bin_f32(((const float *)r->src)[i], (float)r->lo,
                                              (float)r->hi, nb);
  if (r->is64) {
    const double *e = (const double *)r->edges;
    DLX_COUNT_EDGES_BIN(double, e, ((const double *)r->src)[i], nb, r->uniform, b);
  } else {
    const float *e = (const float *)r->edges;
    DLX_COUNT_EDGES_BIN(float, e, ((const float *)r->src)[i], nb, r->uniform, b);
  }
  return b;
}

/* The 1-based position of value i (row-major in [rows, m]) in its sorted row. */
DLX_SHARED int64_t dlx_cuda_count_search(const dlx_cuda_count_request *r, int64_t i) {
  int64_t row = r->shared_row ? 0 : i / r->m, below = 0;
  const char *s = (const char *)r->edges + row * r->n * r->elem_size;
  const char *v = (const char *)r->src + i * r->elem_size;
  switch (r->key_kind) {
#define DLX_CUDA_SEARCH_CASE(K, T, KEY)                                                            \
  case K: {                                                                                        \
    T key = KEY(*(const T *)v);                                                                    \
    DLX_COUNT_BELOW(const T *, T, KEY, (const T *)s, r->n, key, r->right, below);                  \
    break;                                                                                         \
  }
    DLX_SORT_KEY_KINDS(DLX_CUDA_SEARCH_CASE)
#undef DLX_CUDA_SEARCH_CASE
  default:
    break;
  }
  return 1 + below;
}

#endif
