// random_kernels.cu -- random numbers on the GPU: a thread per Philox block, grid-stride, each
// block's elements converted as on every other device (random_element.h over
// src/common/philox.h). Built with --fmad=false (cmake/DlxCuda.cmake): normals must round as on
// the CPU.
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

} // namespace

extern "C" int dlx_cuda_fill_random(const dlx_cuda_random_request *r, void *stream) {
  int64_t blocks = (r->n + r->lanes - 1) / r->lanes;
  int64_t grid = (blocks + kThreads - 1) / kThreads;
  if (blocks <= 0) return cudaSuccess;
  fill_random_kernel<<<(unsigned)(grid < 65536 ? grid : 65536), kThreads, 0,
                       (cudaStream_t)stream>>>(*r, blocks);
  return (int)cudaGetLastError();
}
