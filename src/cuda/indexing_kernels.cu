// indexing_kernels.cu -- the indexing ops on the GPU (index_op, src/core/backend.h), each thread
// doing what indexing_element.h says:
// - CHECK, GATHER: a thread per element; CHECK keeps the smallest bad position (atomicMin), so
//   the error names the first bad index in row-major order, as the CPU's does;
// - SCATTER, SCATTER_ADD: a thread per line along dim, its elements in order: duplicate indices
//   meet only within a line, so the last write wins and sums add in the CPU's order, with no
//   atomics (PyTorch's CUDA index_add_ and scatter_add_ add with atomics, in no fixed order);
// - the masked ops and NONZERO: the true mask elements counted per tile, the counts scanned by
//   cub::DeviceScan, then each tile's threads scan their runs (cub::BlockScan) and write them;
//   COUNT adds the tiles' counts (integers: any order gives the same sum).
#include <cuda_runtime.h>
#include <stdint.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda/indexing_element.h"
#include "cuda/scratch.cuh"

namespace {

const int kThreads = DLX_CUDA_INDEX_THREADS;
const int kRun = DLX_CUDA_INDEX_RUN;
const int64_t kTile = DLX_CUDA_INDEX_TILE;
const int64_t kMaxGrid = 65536;

unsigned grid_for(int64_t n, int64_t per_block) {
  int64_t grid = (n + per_block - 1) / per_block;
  return (unsigned)(grid < kMaxGrid ? grid : kMaxGrid);
}

__global__ void check_kernel(dlx_cuda_index_request r, unsigned long long *first) {
  for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < r.numel;
       p += (int64_t)gridDim.x * blockDim.x)
    if (dlx_cuda_index_is_bad(&r, p)) atomicMin(first, (unsigned long long)p);
}

// result[0]: the first bad position (all ones: none); result[1] := the index there.
__global__ void bad_value_kernel(dlx_cuda_index_request r, unsigned long long *result) {
  if (result[0] < (unsigned long long)r.numel)
    result[1] = (unsigned long long)dlx_cuda_index_value(&r, (int64_t)result[0]);
}

__global__ void gather_kernel(dlx_cuda_index_request r) {
  for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < r.numel;
       p += (int64_t)gridDim.x * blockDim.x)
    dlx_cuda_index_gather(&r, p);
}

__global__ void scatter_kernel(dlx_cuda_index_request r, int64_t lines) {
  for (int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; l < lines;
       l += (int64_t)gridDim.x * blockDim.x)
    dlx_cuda_index_scatter_line(&r, l);
}

// The true mask elements of each tile: into counts[tile], or added to *total when counts is
// null.
__global__ void tile_count_kernel(dlx_cuda_index_request r, int64_t tiles, int64_t *counts,
                                  unsigned long long *total) {
  typedef cub::BlockReduce<int, kThreads> Reduce;
  __shared__ typename Reduce::TempStorage temp;
  for (int64_t b = blockIdx.x; b < tiles; b += gridDim.x) {
    int n = dlx_cuda_index_count_run(&r, b * kTile + (int64_t)threadIdx.x * kRun, kRun);
    int sum = Reduce(temp).Sum(n);
    if (threadIdx.x == 0) {
      if (counts != nullptr)
        counts[b] = sum;
      else
        atomicAdd(total, (unsigned long long)sum);
    }
    __syncthreads(); // temp is reused by the next tile
  }
}

// Each tile's runs written from offsets[tile], the threads' places found by a block scan.
__global__ void tile_write_kernel(dlx_cuda_index_request r, int64_t tiles, const int64_t *offsets) {
  typedef cub::BlockScan<int, kThreads> Scan;
  __shared__ typename Scan::TempStorage temp;
  for (int64_t b = blockIdx.x; b < tiles; b += gridDim.x) {
    int64_t first = b * kTile + (int64_t)threadIdx.x * kRun;
    int before, n = dlx_cuda_index_count_run(&r, first, kRun);
    Scan(temp).ExclusiveSum(n, before);
    if (n > 0) dlx_cuda_index_write_run(&r, first, kRun, offsets[b] + before);
    __syncthreads();
  }
}

// Two 64-bit words of scratch, every byte set to fill, for a result the host reads back.
cudaError_t two_words(Scratch &scratch, int fill, cudaStream_t s, unsigned long long **words) {
  if (!scratch.take(2 * sizeof **words, s)) return cudaErrorMemoryAllocation;
  *words = (unsigned long long *)scratch.base;
  return cudaMemsetAsync(*words, fill, scratch.bytes, s);
}

// Copies the two words to host and waits.
int read_back(unsigned long long *words, unsigned long long *host, cudaStream_t stream) {
  cudaError_t status =
      cudaMemcpyAsync(host, words, 2 * sizeof *host, cudaMemcpyDeviceToHost, stream);
  if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
  return (int)status;
}

} // namespace

extern "C" int dlx_cuda_index_check(const dlx_cuda_index_request *r, int64_t *first, int64_t *value,
                                    void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  Scratch scratch;
  unsigned long long *words, host[2];
  cudaError_t status = two_words(scratch, 0xff, s, &words);
  if (status != cudaSuccess) return (int)status;
  check_kernel<<<grid_for(r->numel, kThreads), kThreads, 0, s>>>(*r, words);
  bad_value_kernel<<<1, 1, 0, s>>>(*r, words);
  status = cudaGetLastError();
  if (status != cudaSuccess) return (int)status;
  int rc = read_back(words, host, s);
  if (rc != cudaSuccess) return rc;
  bool bad = host[0] < (unsigned long long)r->numel;
  *first = bad ? (int64_t)host[0] : r->numel;
  *value = bad ? (int64_t)host[1] : 0;
  return cudaSuccess;
}

extern "C" int dlx_cuda_index_move(const dlx_cuda_index_request *r, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (r->op == DLX_CUDA_INDEX_GATHER) {
    gather_kernel<<<grid_for(r->numel, kThreads), kThreads, 0, s>>>(*r);
  } else {
    int64_t lines = dlx_cuda_index_lines(r);
    scatter_kernel<<<grid_for(lines, kThreads), kThreads, 0, s>>>(*r, lines);
  }
  return (int)cudaGetLastError();
}

extern "C" int dlx_cuda_index_count(const dlx_cuda_index_request *r, int64_t *count, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  int64_t tiles = (r->numel + kTile - 1) / kTile;
  Scratch scratch;
  unsigned long long *words, host[2];
  cudaError_t status = two_words(scratch, 0, s, &words);
  if (status != cudaSuccess) return (int)status;
  tile_count_kernel<<<grid_for(tiles, 1), kThreads, 0, s>>>(*r, tiles, nullptr, words);
  status = cudaGetLastError();
  if (status != cudaSuccess) return (int)status;
  int rc = read_back(words, host, s);
  if (rc == cudaSuccess) *count = (int64_t)host[0];
  return rc;
}

extern "C" int dlx_cuda_index_masked(const dlx_cuda_index_request *r, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  int64_t tiles = (r->numel + kTile - 1) / kTile;
  size_t counts_bytes = round_up((size_t)tiles * sizeof(int64_t)), temp_bytes = 0;
  cudaError_t status = cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, (const int64_t *)nullptr,
                                                     (int64_t *)nullptr, tiles, s);
  if (status != cudaSuccess) return (int)status;
  Scratch scratch;
  if (!scratch.take(2 * counts_bytes + temp_bytes, s)) return (int)cudaErrorMemoryAllocation;
  char *at = (char *)scratch.base;
  int64_t *counts = (int64_t *)at, *offsets = (int64_t *)(at + counts_bytes);
  tile_count_kernel<<<grid_for(tiles, 1), kThreads, 0, s>>>(*r, tiles, counts, nullptr);
  status = cudaGetLastError();
  if (status != cudaSuccess) return (int)status;
  status =
      cub::DeviceScan::ExclusiveSum(at + 2 * counts_bytes, temp_bytes, counts, offsets, tiles, s);
  if (status != cudaSuccess) return (int)status;
  tile_write_kernel<<<grid_for(tiles, 1), kThreads, 0, s>>>(*r, tiles, offsets);
  return (int)cudaGetLastError();
}
