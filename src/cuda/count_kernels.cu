// count_kernels.cu -- count_op on the GPU, a thread per element (grid-stride), the element code
// of count_element.h (the rules of src/common/count_rules.h that the CPU takes):
// - counts: each block counts in a histogram of its own in shared memory when the bins fit
//   (kSharedBins), then adds it to out; more bins count straight into out. Atomics on 64-bit
//   integers: the counts are exact, the CPU's bits whatever the order;
// - sums of weights: float64 atomics into out, so in no set order (the CPU's bits when every
//   partial sum is exact, as with integer weights);
// - searchsorted: a binary search of each value's key in its sorted row.
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/count_element.h"
#include "cuda/kernels.h"

namespace {

const int kThreads = 256;
// Bins a block counts in shared memory: 32 KiB of 64-bit counters.
const int64_t kSharedBins = 4096;
// Blocks of the counts at most: each adds its shared histogram to out once.
const int64_t kCountBlocks = 1024;

unsigned grid_for(int64_t n, int64_t most) {
  int64_t grid = (n + kThreads - 1) / kThreads;
  return (unsigned)(grid < most ? grid : most);
}

__global__ void count_bins(dlx_cuda_count_request r) {
  __shared__ unsigned long long local[kSharedBins];
  unsigned long long *out = (unsigned long long *)r.out;
  bool shared = r.nbins <= kSharedBins; // the same for every thread of the block
  if (shared) {
    for (int64_t b = threadIdx.x; b < r.nbins; b += blockDim.x) local[b] = 0;
    __syncthreads();
  }
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < r.n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t b = dlx_cuda_count_bin(&r, i);
    if (b == DLX_COUNT_LEFT_OUT) continue;
    if (shared)
      atomicAdd(&local[b], 1ULL);
    else
      atomicAdd(&out[b], 1ULL);
  }
  if (shared) {
    __syncthreads();
    for (int64_t b = threadIdx.x; b < r.nbins; b += blockDim.x)
      if (local[b] != 0) atomicAdd(&out[b], local[b]);
  }
}

__global__ void sum_weights(dlx_cuda_count_request r) {
  double *out = (double *)r.out;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < r.n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t b = dlx_cuda_count_bin(&r, i);
    if (b != DLX_COUNT_LEFT_OUT) atomicAdd(&out[b], r.weights[i]);
  }
}

__global__ void search(dlx_cuda_count_request r, int64_t count) {
  int64_t *out = (int64_t *)r.out;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x)
    out[i] = dlx_cuda_count_search(&r, i);
}

} // namespace

extern "C" int dlx_cuda_count(const dlx_cuda_count_request *r, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  cudaError_t status;
  if (r->op == DLX_CUDA_COUNT_SEARCH) {
    int64_t count = r->rows * r->m;
    search<<<grid_for(count, 65536), kThreads, 0, s>>>(*r, count);
    return (int)cudaGetLastError();
  }
  status = cudaMemsetAsync(r->out, 0, (size_t)r->nbins * 8, s);
  if (status != cudaSuccess) return (int)status;
  if (r->weights != nullptr)
    sum_weights<<<grid_for(r->n, 65536), kThreads, 0, s>>>(*r);
  else
    count_bins<<<grid_for(r->n, kCountBlocks), kThreads, 0, s>>>(*r);
  return (int)cudaGetLastError();
}
