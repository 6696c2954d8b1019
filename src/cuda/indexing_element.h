/* indexing_element.h -- what one thread of the CUDA indexing kernels (indexing_kernels.cu) does
 * with a dlx_cuda_index_request (kernels.h): an element of CHECK and GATHER, a line along dim of
 * SCATTER and SCATTER_ADD (its elements in order, so the last write wins and sums add up as on
 * the CPU, src/cpu/indexing.c), and a run of consecutive positions of the masked ops, told how
 * many true mask elements come before it.
 *
 * CUDA C++, host and device: tests/c/cuda_indexing_rules.cpp compiles this header with the host
 * C++ compiler and checks it against the CPU backend, since a GPU is not always at hand.
 * Elements are aligned to their size (16-byte ones to 8 bytes), so they move as whole words. */
#ifndef DLX_CUDA_INDEXING_ELEMENT_H
#define DLX_CUDA_INDEXING_ELEMENT_H

#include "common/convert.h"
#include "cuda/kernels.h"

/* The offsets (in elements) in each operand of position p (row-major) of the walk. Dim 0 needs
 * no division: p is below its size by then. */
DLX_SHARED void dlx_cuda_index_at(const dlx_cuda_index_request *r, int64_t p, int64_t *off) {
  off[0] = off[1] = off[2] = 0;
  for (int32_t d = r->ndim - 1; d >= 0; d--) {
    int64_t c = d > 0 ? p % r->shape[d] : p;
    p = d > 0 ? p / r->shape[d] : 0;
    for (int k = 0; k < DLX_CUDA_IX_OPERANDS; k++) off[k] += c * r->strides[k][d];
  }
}

DLX_SHARED int64_t dlx_cuda_index_load(const dlx_cuda_index_request *r, int64_t at) {
  return ((const int64_t *)r->index)[at];
}

/* The 0-based position of a checked 1-based or negative index. */
DLX_SHARED int64_t dlx_cuda_index_zero_based(int64_t i, int64_t size) {
  return i < 0 ? i + size : i - 1;
}

/* CHECK: whether the index at position p is outside 1..size and -size..-1. */
DLX_SHARED int dlx_cuda_index_is_bad(const dlx_cuda_index_request *r, int64_t p) {
  int64_t off[DLX_CUDA_IX_OPERANDS];
  dlx_cuda_index_at(r, p, off);
  int64_t i = dlx_cuda_index_load(r, off[DLX_CUDA_IX_INDEX]);
  return !((i >= 1 && i <= r->size) || (i < 0 && i >= -r->size));
}

/* CHECK: the index at position p. */
DLX_SHARED int64_t dlx_cuda_index_value(const dlx_cuda_index_request *r, int64_t p) {
  int64_t off[DLX_CUDA_IX_OPERANDS];
  dlx_cuda_index_at(r, p, off);
  return dlx_cuda_index_load(r, off[DLX_CUDA_IX_INDEX]);
}

/* One element of `size` bytes, bit for bit. */
DLX_SHARED void dlx_cuda_index_copy(char *dst, const char *src, int size) {
  switch (size) {
  case 1:
    *(uint8_t *)dst = *(const uint8_t *)src;
    break;
  case 2:
    *(uint16_t *)dst = *(const uint16_t *)src;
    break;
  case 4:
    *(uint32_t *)dst = *(const uint32_t *)src;
    break;
  case 8:
    *(uint64_t *)dst = *(const uint64_t *)src;
    break;
  default: /* 16: complex128, aligned to 8 */
    ((uint64_t *)dst)[0] = ((const uint64_t *)src)[0];
    ((uint64_t *)dst)[1] = ((const uint64_t *)src)[1];
    break;
  }
}

/* *d += *s as the CPU adds (src/cpu/indexing.c): integers wrap, bool ors, float16 and bfloat16
 * add in float32, complex numbers by parts. */
DLX_SHARED void dlx_cuda_index_add(int dtype, char *d, const char *s) {
  switch (dtype) {
#define DLX_CUDA_ADD_CASE(E, T, W)                                                                 \
  case E:                                                                                          \
    *(T *)d = (T)((W)(*(T *)d) + (W)(*(const T *)s)); /* wraps: computed unsigned */               \
    break;
    DLX_CUDA_ADD_CASE(DLX_CUDA_INT8, int8_t, uint32_t)
    DLX_CUDA_ADD_CASE(DLX_CUDA_INT16, int16_t, uint32_t)
    DLX_CUDA_ADD_CASE(DLX_CUDA_INT32, int32_t, uint32_t)
    DLX_CUDA_ADD_CASE(DLX_CUDA_INT64, int64_t, uint64_t)
    DLX_CUDA_ADD_CASE(DLX_CUDA_UINT8, uint8_t, uint32_t)
    DLX_CUDA_ADD_CASE(DLX_CUDA_UINT16, uint16_t, uint32_t)
    DLX_CUDA_ADD_CASE(DLX_CUDA_UINT32, uint32_t, uint32_t)
    DLX_CUDA_ADD_CASE(DLX_CUDA_UINT64, uint64_t, uint64_t)
    DLX_CUDA_ADD_CASE(DLX_CUDA_FLOAT32, float, float)
    DLX_CUDA_ADD_CASE(DLX_CUDA_FLOAT64, double, double)
#undef DLX_CUDA_ADD_CASE
  case DLX_CUDA_BOOL:
    *(uint8_t *)d = (uint8_t)(*(uint8_t *)d || *(const uint8_t *)s);
    break;
  case DLX_CUDA_FLOAT16:
    *(uint16_t *)d = dlx_float_to_half(dlx_half_to_float(*(uint16_t *)d) +
                                       dlx_half_to_float(*(const uint16_t *)s));
    break;
  case DLX_CUDA_BFLOAT16:
    *(uint16_t *)d = dlx_float_to_bf16(dlx_bf16_to_float(*(uint16_t *)d) +
                                       dlx_bf16_to_float(*(const uint16_t *)s));
    break;
  case DLX_CUDA_COMPLEX64:
    ((float *)d)[0] += ((const float *)s)[0];
    ((float *)d)[1] += ((const float *)s)[1];
    break;
  case DLX_CUDA_COMPLEX128:
    ((double *)d)[0] += ((const double *)s)[0];
    ((double *)d)[1] += ((const double *)s)[1];
    break;
  default: /* the core refuses other dtypes */
    break;
  }
}

/* GATHER: dst[p] = src[p + i * stride], i the index at p made 0-based. */
DLX_SHARED void dlx_cuda_index_gather(const dlx_cuda_index_request *r, int64_t p) {
  int64_t off[DLX_CUDA_IX_OPERANDS];
  dlx_cuda_index_at(r, p, off);
  int64_t i = dlx_cuda_index_zero_based(dlx_cuda_index_load(r, off[DLX_CUDA_IX_INDEX]), r->size);
  dlx_cuda_index_copy((char *)r->dst + off[DLX_CUDA_IX_DST] * r->elem_size,
                      (const char *)r->src + (off[DLX_CUDA_IX_SRC] + i * r->stride) * r->elem_size,
                      r->elem_size);
}

/* The lines of SCATTER*: one per position of the walk's dims other than dim. */
DLX_SHARED int64_t dlx_cuda_index_lines(const dlx_cuda_index_request *r) {
  return r->numel / r->shape[r->dim];
}

/* SCATTER and SCATTER_ADD of line l, its elements in order: the elements of a line are the only
 * ones that write its line of dst, so the result is the CPU's. */
DLX_SHARED void dlx_cuda_index_scatter_line(const dlx_cuda_index_request *r, int64_t l) {
  int64_t off[DLX_CUDA_IX_OPERANDS] = {0, 0, 0};
  for (int32_t d = r->ndim - 1; d >= 0; d--) {
    if (d == r->dim) continue;
    int64_t c = l % r->shape[d];
    l /= r->shape[d];
    for (int k = 0; k < DLX_CUDA_IX_OPERANDS; k++) off[k] += c * r->strides[k][d];
  }
  const int64_t *sd = r->strides[DLX_CUDA_IX_DST], *ss = r->strides[DLX_CUDA_IX_SRC],
                *si = r->strides[DLX_CUDA_IX_INDEX];
  char *dst = (char *)r->dst;
  const char *src = (const char *)r->src;
  int64_t n = r->shape[r->dim], size = r->elem_size;
  for (int64_t j = 0; j < n; j++) {
    int64_t i = dlx_cuda_index_load(r, off[DLX_CUDA_IX_INDEX] + j * si[r->dim]);
    int64_t at =
        off[DLX_CUDA_IX_DST] + j * sd[r->dim] + dlx_cuda_index_zero_based(i, r->size) * r->stride;
    const char *from = src + (off[DLX_CUDA_IX_SRC] + j * ss[r->dim]) * size;
    if (r->op == DLX_CUDA_INDEX_SCATTER_ADD)
      dlx_cuda_index_add(r->dtype, dst + at * size, from);
    else
      dlx_cuda_index_copy(dst + at * size, from, r->elem_size);
  }
}

/* Whether the mask is true at position p (any nonzero byte, as on the CPU). */
DLX_SHARED int dlx_cuda_index_mask(const dlx_cuda_index_request *r, const int64_t *off) {
  return ((const uint8_t *)r->index)[off[DLX_CUDA_IX_INDEX]] != 0;
}

/* The true mask elements among positions first .. first + n - 1 (those below numel). */
DLX_SHARED int dlx_cuda_index_count_run(const dlx_cuda_index_request *r, int64_t first, int n) {
  int64_t off[DLX_CUDA_IX_OPERANDS];
  int count = 0;
  for (int64_t p = first; p < first + n && p < r->numel; p++) {
    dlx_cuda_index_at(r, p, off);
    count += dlx_cuda_index_mask(r, off);
  }
  return count;
}

/* NONZERO: the 1-based coordinates of position p into row k of dst. */
DLX_SHARED void dlx_cuda_index_coords(const dlx_cuda_index_request *r, int64_t p, int64_t k) {
  int64_t *row = (int64_t *)r->dst + k * r->step;
  for (int32_t d = r->ndim - 1; d >= 0; d--) {
    row[d] = (d > 0 ? p % r->shape[d] : p) + 1;
    p = d > 0 ? p / r->shape[d] : 0;
  }
}

/* MASKED_SELECT, MASKED_SCATTER and NONZERO over positions first .. first + n - 1, k being the
 * number of true mask elements before first. */
DLX_SHARED void dlx_cuda_index_write_run(const dlx_cuda_index_request *r, int64_t first, int n,
                                         int64_t k) {
  int64_t off[DLX_CUDA_IX_OPERANDS], size = r->elem_size;
  for (int64_t p = first; p < first + n && p < r->numel; p++) {
    dlx_cuda_index_at(r, p, off);
    if (!dlx_cuda_index_mask(r, off)) continue;
    if (r->op == DLX_CUDA_INDEX_MASKED_SELECT)
      dlx_cuda_index_copy((char *)r->dst + k * size,
                          (const char *)r->src + off[DLX_CUDA_IX_SRC] * size, r->elem_size);
    else if (r->op == DLX_CUDA_INDEX_MASKED_SCATTER)
      dlx_cuda_index_copy((char *)r->dst + off[DLX_CUDA_IX_DST] * size,
                          (const char *)r->src + k * r->step * size, r->elem_size);
    else
      dlx_cuda_index_coords(r, p, k);
    k++;
  }
}

#endif
