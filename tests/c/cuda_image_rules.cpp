// cuda_image_rules.cpp -- the CUDA image_op's per-element code (src/cuda/image_element.h over
// src/common/image_rules.h), compiled as host C++ for cuda_image_rules.c: every output element
// computed on its own, as a GPU thread does, in an order of the elements that is not the CPU's.
#include "cuda/image_element.h"
#include "cuda/kernels.h"

template <typename T>
static void run(const dlx_cuda_image_request *r, const T *src, T *dst, int64_t *indices) {
  int64_t count = r->planes * r->out_h * r->out_w;
  for (int64_t i = count - 1; i >= 0; i--) dlx_cuda_image_element(*r, i, src, dst, indices);
}

// The elements of r (its src, dst and indices) on the host.
extern "C" void cxx_image(const dlx_cuda_image_request *r) {
  if (r->is_double)
    run(r, static_cast<const double *>(r->src), static_cast<double *>(r->dst), r->indices);
  else
    run(r, static_cast<const float *>(r->src), static_cast<float *>(r->dst), r->indices);
}
