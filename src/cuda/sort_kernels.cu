// sort_kernels.cu -- sort_rows on the GPU: the elements' keys (src/common/sort_keys.h, the CPU's
// order) and their positions in the row are sorted by CUB's radix sorts, which are stable, then
// the values are gathered from the positions.
// - rows of up to 2^31 - 1 elements: cub::DeviceSegmentedRadixSort::SortPairs over batches of
//   rows holding at most 2^31 - 1 elements (CUB counts them in an int), int32 positions;
// - longer rows: cub::DeviceRadixSort::SortPairs a row at a time, int64 positions.
#include <cuda_runtime.h>
#include <stdint.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include "common/sort_keys.h"
#include "cuda/kernels.h"
#include "cuda/scratch.cuh"

namespace {

const int kThreads = 256;
const int64_t kMaxBatch = 2147483647; // CUB's segmented sort counts elements in an int

unsigned grid_for(int64_t n) {
  int64_t grid = (n + kThreads - 1) / kThreads;
  return (unsigned)(grid < 65536 ? grid : 65536);
}

// The sort key of src[i], of kind `kind` (its size is K's), as the CPU makes it.
template <typename K> __device__ K key_of(int kind, const K *src, int64_t i) {
  return (K)dlx_sort_key_at(kind, src + i);
}

// keys[i] and positions[i] of the count elements from src, rows of n; complemented keys when
// descending.
template <typename K, typename P>
__global__ void make_keys(const K *src, int kind, bool descending, int64_t count, int64_t n,
                          K *keys, P *positions) {
  K flip = descending ? (K) ~(K)0 : (K)0;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x) {
    keys[i] = (K)(key_of<K>(kind, src, i) ^ flip);
    positions[i] = (P)(i % n);
  }
}

__global__ void make_offsets(int *offsets, int64_t rows, int64_t n) {
  for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r <= rows;
       r += (int64_t)gridDim.x * blockDim.x)
    offsets[r] = (int)(r * n);
}

// values[i] = the element of its row at the sorted position; indices 1-based.
template <typename K, typename P>
__global__ void gather(const K *src, const P *positions, int64_t count, int64_t n, K *values,
                       int64_t *indices) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t p = (int64_t)positions[i];
    values[i] = src[i - i % n + p];
    indices[i] = p + 1;
  }
}

// A batch of `rows` rows of n elements (rows * n <= kMaxBatch) at src, values, indices; one
// scratch block holds the keys and the positions twice (in, out), the offsets and CUB's storage.
template <typename K>
int sort_batch(const K *src, K *values, int64_t *indices, int kind, bool descending, int64_t rows,
               int64_t n, cudaStream_t stream) {
  int64_t count = rows * n;
  size_t keys_bytes = round_up((size_t)count * sizeof(K)), pos_bytes = round_up((size_t)count * 4);
  size_t offsets_bytes = round_up((size_t)(rows + 1) * sizeof(int)), temp_bytes = 0;
  cudaError_t status = cub::DeviceSegmentedRadixSort::SortPairs(
      nullptr, temp_bytes, (const K *)nullptr, (K *)nullptr, (const int32_t *)nullptr,
      (int32_t *)nullptr, (int)count, (int)rows, (const int *)nullptr, (const int *)nullptr, 0,
      (int)(sizeof(K) * 8), stream);
  if (status != cudaSuccess) return (int)status;
  Scratch s;
  if (!s.take(2 * keys_bytes + 2 * pos_bytes + offsets_bytes + temp_bytes, stream))
    return (int)cudaErrorMemoryAllocation;
  char *at = (char *)s.base;
  K *keys = (K *)at, *keys_out = (K *)(at + keys_bytes);
  int32_t *pos = (int32_t *)(at + 2 * keys_bytes),
          *pos_out = (int32_t *)(at + 2 * keys_bytes + pos_bytes);
  int *offsets = (int *)(at + 2 * keys_bytes + 2 * pos_bytes);
  void *temp = at + 2 * keys_bytes + 2 * pos_bytes + offsets_bytes;
  make_keys<K, int32_t>
      <<<grid_for(count), kThreads, 0, stream>>>(src, kind, descending, count, n, keys, pos);
  make_offsets<<<grid_for(rows + 1), kThreads, 0, stream>>>(offsets, rows, n);
  status = cudaGetLastError();
  if (status != cudaSuccess) return (int)status;
  status = cub::DeviceSegmentedRadixSort::SortPairs(temp, temp_bytes, keys, keys_out, pos, pos_out,
                                                    (int)count, (int)rows, offsets, offsets + 1, 0,
                                                    (int)(sizeof(K) * 8), stream);
  if (status != cudaSuccess) return (int)status;
  gather<K, int32_t>
      <<<grid_for(count), kThreads, 0, stream>>>(src, pos_out, count, n, values, indices);
  return (int)cudaGetLastError();
}

// One row of n > kMaxBatch elements.
template <typename K>
int sort_long_row(const K *src, K *values, int64_t *indices, int kind, bool descending, int64_t n,
                  cudaStream_t stream) {
  size_t keys_bytes = round_up((size_t)n * sizeof(K)), pos_bytes = round_up((size_t)n * 8);
  size_t temp_bytes = 0;
  cudaError_t status = cub::DeviceRadixSort::SortPairs(
      nullptr, temp_bytes, (const K *)nullptr, (K *)nullptr, (const int64_t *)nullptr,
      (int64_t *)nullptr, n, 0, (int)(sizeof(K) * 8), stream);
  if (status != cudaSuccess) return (int)status;
  Scratch s;
  if (!s.take(2 * keys_bytes + 2 * pos_bytes + temp_bytes, stream))
    return (int)cudaErrorMemoryAllocation;
  char *at = (char *)s.base;
  K *keys = (K *)at, *keys_out = (K *)(at + keys_bytes);
  int64_t *pos = (int64_t *)(at + 2 * keys_bytes),
          *pos_out = (int64_t *)(at + 2 * keys_bytes + pos_bytes);
  void *temp = at + 2 * keys_bytes + 2 * pos_bytes;
  make_keys<K, int64_t>
      <<<grid_for(n), kThreads, 0, stream>>>(src, kind, descending, n, n, keys, pos);
  status = cudaGetLastError();
  if (status != cudaSuccess) return (int)status;
  status = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, keys_out, pos, pos_out, n, 0,
                                           (int)(sizeof(K) * 8), stream);
  if (status != cudaSuccess) return (int)status;
  gather<K, int64_t><<<grid_for(n), kThreads, 0, stream>>>(src, pos_out, n, n, values, indices);
  return (int)cudaGetLastError();
}

template <typename K> int sort_rows(const dlx_cuda_sort_request *r, cudaStream_t stream) {
  const K *src = (const K *)r->src;
  K *values = (K *)r->values;
  int64_t n = r->n;
  if (n > kMaxBatch) {
    for (int64_t row = 0; row < r->rows; row++) {
      int status = sort_long_row<K>(src + row * n, values + row * n, r->indices + row * n,
                                    r->key_kind, r->descending != 0, n, stream);
      if (status != cudaSuccess) return status;
    }
    return cudaSuccess;
  }
  for (int64_t row = 0, batch = kMaxBatch / n; row < r->rows; row += batch) {
    int64_t rows = r->rows - row < batch ? r->rows - row : batch;
    int status = sort_batch<K>(src + row * n, values + row * n, r->indices + row * n, r->key_kind,
                               r->descending != 0, rows, n, stream);
    if (status != cudaSuccess) return status;
  }
  return cudaSuccess;
}

} // namespace

extern "C" int dlx_cuda_sort_rows(const dlx_cuda_sort_request *r, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  switch (r->elem_size) {
  case 1:
    return sort_rows<uint8_t>(r, s);
  case 2:
    return sort_rows<uint16_t>(r, s);
  case 4:
    return sort_rows<uint32_t>(r, s);
  default:
    return sort_rows<uint64_t>(r, s);
  }
}
