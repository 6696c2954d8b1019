// random_kernels.cu -- random numbers on the GPU: a thread per Philox block (per element for
// Poisson), grid-stride, each block's elements converted as on every other device
// (random_element.h over src/common/philox.h and distributions.h), and multinomial draws, a
// thread per row of weights. Built with --fmad=false (cmake/DlxCuda.cmake): every conversion
// must round as on the CPU.
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/random_element.h"

namespace {

const int kThreads = 256;

__global__ void fill_random_kernel(dlx_cuda_random_request r, int64_t blocks) {
  for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < blocks;
       b += (int64_t)gridDim.x * blockDim.x)
    dlx_cuda_random_block(&r, b);
}

__global__ void multinomial_kernel(dlx_cuda_multinomial_request q) {
  for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < q.rows;
       r += (int64_t)gridDim.x * blockDim.x)
    dlx_cuda_multinomial_row(&q, r);
}

unsigned grid_for(int64_t items) {
  int64_t grid = (items + kThreads - 1) / kThreads;
  return (unsigned)(grid < 65536 ? grid : 65536);
}

} // namespace

extern "C" int dlx_cuda_fill_random(const dlx_cuda_random_request *r, void *stream) {
  int64_t blocks = (r->n + r->lanes - 1) / r->lanes;
  if (blocks <= 0) return cudaSuccess;
  fill_random_kernel<<<grid_for(blocks), kThreads, 0, (cudaStream_t)stream>>>(*r, blocks);
  return (int)cudaGetLastError();
}

extern "C" int dlx_cuda_multinomial(const dlx_cuda_multinomial_request *r, void *stream) {
  if (r->rows <= 0) return cudaSuccess;
  multinomial_kernel<<<grid_for(r->rows), kThreads, 0, (cudaStream_t)stream>>>(*r);
  return (int)cudaGetLastError();
}
