/* row_element.h -- one element of the CUDA row scans (row_kernels.cu: cummax, cummin and
 * logcumsumexp of row_op), over the steps of src/common/row_scans.h that the CPU takes:
 * - cummax, cummin: each element becomes the (sort key, position) pair of src/common/sort_keys.h
 *   (NaN: a float's largest key), the pairs are scanned along the row with dlx_scan_combine,
 *   which is associative, and each result is the element at the scanned position, bit for bit,
 *   with that position + 1;
 * - logcumsumexp: the elements as float64 (the casting rules of cast_element.h), scanned with
 *   dlx_log_add_exp, each result rounded once to the values' dtype.
 *
 * CUDA C++, host and device: tests/c/cuda_row_rules.cpp compiles this header with the host C++
 * compiler and checks it against the CPU backend, since a GPU is not always at hand. */
#ifndef DLX_CUDA_ROW_ELEMENT_H
#define DLX_CUDA_ROW_ELEMENT_H

#include "common/row_scans.h"
#include "common/sort_keys.h"
#include "cuda/stats_element.h"

/* The pair of element `at` (0-based in its row) at p, elem_size bytes of a key_kind dtype. */
DLX_SHARED dlx_scan_pair dlx_cuda_row_pair(int key_kind, int is_float, int elem_size, const char *p,
                                           int64_t at) {
  uint64_t element = 0,
           nan_key = elem_size == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (elem_size * 8)) - 1;
  dlx_scan_pair out;
  memcpy(&element, p, (size_t)elem_size);
  out.key = dlx_sort_key_at(key_kind, &element);
  out.at = at;
  out.nan = is_float && out.key == nan_key;
  return out;
}

/* The result of a scanned pair: the element of its position in the row at row, and the 1-based
 * position. */
DLX_SHARED void dlx_cuda_row_put_extreme(int elem_size, const char *row, dlx_scan_pair s,
                                         char *value, int64_t *index) {
  memcpy(value, row + s.at * elem_size, (size_t)elem_size);
  *index = s.at + 1;
}

#endif
