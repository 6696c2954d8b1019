// cuda_count_rules.cpp -- the CUDA count_op's per-element code (src/cuda/count_element.h over
// src/common/count_rules.h), compiled as host C++ for cuda_count_rules.c. The bins are added up
// in an order of their own, as the kernels' atomics may land: a stride through the elements.
#include "cuda/count_element.h"

// The bins of r's elements into r->out (int64 counts, or float64 sums of the weights), visiting
// the elements start, start + stride, ... for each start below stride.
extern "C" void cxx_count_bins(const dlx_cuda_count_request *r, int64_t stride) {
  int64_t *counts = static_cast<int64_t *>(r->out);
  double *sums = static_cast<double *>(r->out);
  for (int64_t b = 0; b < r->nbins; b++) {
    if (r->weights != nullptr)
      sums[b] = 0;
    else
      counts[b] = 0;
  }
  for (int64_t start = 0; start < stride; start++)
    for (int64_t i = start; i < r->n; i += stride) {
      int64_t b = dlx_cuda_count_bin(r, i);
      if (b == DLX_COUNT_LEFT_OUT) continue;
      if (r->weights != nullptr)
        sums[b] += r->weights[i];
      else
        counts[b]++;
    }
}

// The positions of r's values into r->out.
extern "C" void cxx_count_search(const dlx_cuda_count_request *r) {
  int64_t *out = static_cast<int64_t *>(r->out);
  for (int64_t i = 0; i < r->rows * r->m; i++) out[i] = dlx_cuda_count_search(r, i);
}
