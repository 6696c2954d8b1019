// cuda_random_rules.cpp -- the CUDA random kernels' per-block and per-row code
// (src/cuda/random_element.h over src/common/philox.h and distributions.h), compiled as host C++
// for cuda_random_rules.c: every block of a request and every row of a multinomial request, as
// the kernels' threads take them.
#include "cuda/kernels.h"
#include "cuda/random_element.h"

extern "C" void cxx_fill_random(const dlx_cuda_random_request *r) {
  int64_t blocks = (r->n + r->lanes - 1) / r->lanes;
  for (int64_t b = blocks - 1; b >= 0; b--) dlx_cuda_random_block(r, b); // any order will do
}

extern "C" void cxx_multinomial(const dlx_cuda_multinomial_request *q) {
  for (int64_t r = q->rows - 1; r >= 0; r--) dlx_cuda_multinomial_row(q, r);
}
