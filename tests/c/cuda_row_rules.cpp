// cuda_row_rules.cpp -- the CUDA row scans' per-element code (src/cuda/row_element.h over
// src/common/row_scans.h), compiled as host C++ for cuda_row_rules.c. A row is scanned as a
// parallel scan does it: cut into tiles, each tile scanned on its own, the tiles' totals
// scanned, and each tile's elements combined with the total of the tiles before it, so the
// result depends on the combination being associative, as CUB's scan by key does.
#include <vector>

#include "cuda/kernels.h"
#include "cuda/row_element.h"

namespace {

// An inclusive scan of x[0 .. n) with op, in tiles of `tile` elements.
template <typename T, typename Op> void tiled_scan(std::vector<T> &x, int64_t tile, Op op) {
  int64_t n = (int64_t)x.size();
  std::vector<T> totals;
  for (int64_t first = 0; first < n; first += tile) {
    int64_t last = first + tile < n ? first + tile : n;
    for (int64_t i = first + 1; i < last; i++) x[i] = op(x[i - 1], x[i]);
    totals.push_back(x[last - 1]);
  }
  for (size_t t = 1; t < totals.size(); t++) totals[t] = op(totals[t - 1], totals[t]);
  for (int64_t first = tile, t = 0; first < n; first += tile, t++) {
    int64_t last = first + tile < n ? first + tile : n;
    for (int64_t i = first; i < last; i++) x[i] = op(totals[t], x[i]);
  }
}

} // namespace

// cummax (max) or cummin of one row of n elements at src into values and 1-based indices.
extern "C" void cxx_row_extreme(int max, const dlx_cuda_row_request *r, const void *src,
                                void *values, int64_t *indices, int64_t tile) {
  const char *row = static_cast<const char *>(src);
  std::vector<dlx_scan_pair> x((size_t)r->n);
  for (int64_t i = 0; i < r->n; i++)
    x[i] = dlx_cuda_row_pair(r->key_kind, r->is_float, r->elem_size, row + i * r->elem_size, i);
  tiled_scan(x, tile,
             [max](dlx_scan_pair a, dlx_scan_pair b) { return dlx_scan_combine(max, a, b); });
  for (int64_t i = 0; i < r->n; i++)
    dlx_cuda_row_put_extreme(r->elem_size, row, x[i],
                             static_cast<char *>(values) + i * r->elem_size, indices + i);
}

// logcumsumexp of one row of n elements at src into values (r->values_dtype).
extern "C" void cxx_row_logcumsumexp(const dlx_cuda_row_request *r, const void *src, void *values,
                                     int64_t tile) {
  const char *row = static_cast<const char *>(src);
  int size = dlx_cuda_itemsize(r->values_dtype);
  std::vector<double> x((size_t)r->n);
  for (int64_t i = 0; i < r->n; i++)
    x[i] = dlx_cuda_stat_load(r->src_dtype, row + i * r->elem_size);
  tiled_scan(x, tile, [](double a, double b) { return dlx_log_add_exp(a, b); });
  for (int64_t i = 0; i < r->n; i++)
    dlx_cuda_scan_store_d(r->values_dtype, static_cast<char *>(values) + i * size, x[i]);
}
