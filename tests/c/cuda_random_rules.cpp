// cuda_random_rules.cpp -- the CUDA random kernel's per-block code (src/cuda/random_element.h
// over src/common/philox.h), compiled as host C++ for cuda_random_rules.c: every block of a
// request, as the kernel's threads take them.
#include "cuda/kernels.h"
#include "cuda/random_element.h"

extern "C" void cxx_fill_random(const dlx_cuda_random_request *r) {
  int64_t blocks = (r->n + r->lanes - 1) / r->lanes;
  for (int64_t b = blocks - 1; b >= 0; b--) dlx_cuda_random_block(r, b); // any order will do
}
