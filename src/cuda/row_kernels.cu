// row_kernels.cu -- the scans of row_op on the GPU (cummax, cummin, logcumsumexp): every
// element of the [rows, n] tensor becomes a scan value (row_element.h), CUB's
// DeviceScan::InclusiveScanByKey scans them with the row as the key (so any number of rows of
// any length in one pass), and the scanned values are written out. cummax and cummin scan
// (key, position) pairs with an associative combination, so the positions, and the bits of the
// values, are the CPU's; logcumsumexp scans float64 log-sums, in CUB's order.
#include <cuda_runtime.h>
#include <stdint.h>

#include <cub/device/device_scan.cuh>

#include "cuda/kernels.h"
#include "cuda/row_element.h"
#include "cuda/scratch.cuh"

namespace {

const int kThreads = 256;

unsigned grid_for(int64_t n) {
  int64_t grid = (n + kThreads - 1) / kThreads;
  return (unsigned)(grid < 65536 ? grid : 65536);
}

struct PairCombine {
  int max;
  __host__ __device__ dlx_scan_pair operator()(const dlx_scan_pair &a,
                                               const dlx_scan_pair &b) const {
    return dlx_scan_combine(max, a, b);
  }
};

struct LogAddExp {
  __host__ __device__ double operator()(double a, double b) const { return dlx_log_add_exp(a, b); }
};

struct SameRow {
  __host__ __device__ bool operator()(int64_t a, int64_t b) const { return a == b; }
};

__global__ void make_pairs(dlx_cuda_row_request r, int64_t count, int64_t *rows_of,
                           dlx_scan_pair *pairs) {
  const char *src = (const char *)r.src;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t row = i / r.n;
    rows_of[i] = row;
    pairs[i] = dlx_cuda_row_pair(r.key_kind, r.is_float, r.elem_size, src + i * r.elem_size,
                                 i - row * r.n);
  }
}

__global__ void put_extremes(dlx_cuda_row_request r, int64_t count, const dlx_scan_pair *scanned) {
  const char *src = (const char *)r.src;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t row = i / r.n;
    dlx_cuda_row_put_extreme(r.elem_size, src + row * r.n * r.elem_size, scanned[i],
                             (char *)r.values + i * r.elem_size, r.indices + i);
  }
}

__global__ void make_doubles(dlx_cuda_row_request r, int64_t count, int64_t *rows_of, double *x) {
  const char *src = (const char *)r.src;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x) {
    rows_of[i] = i / r.n;
    x[i] = dlx_cuda_stat_load(r.src_dtype, src + i * r.elem_size);
  }
}

__global__ void put_doubles(dlx_cuda_row_request r, int64_t count, const double *scanned) {
  int size = dlx_cuda_itemsize(r.values_dtype);
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x)
    dlx_cuda_scan_store_d(r.values_dtype, (char *)r.values + i * size, scanned[i]);
}

// Scratch for count row numbers and two arrays of count T, then CUB's temporary storage; the
// scan of `in` into `out` by row with op, between make (filling the row numbers and in) and put.
template <typename T, typename Op, typename Make, typename Put>
int scan_rows(const dlx_cuda_row_request *r, Op op, Make make, Put put, cudaStream_t stream) {
  int64_t count = r->rows * r->n;
  size_t rows_bytes = round_up((size_t)count * sizeof(int64_t));
  size_t values_bytes = round_up((size_t)count * sizeof(T)), temp_bytes = 0;
  cudaError_t status = cub::DeviceScan::InclusiveScanByKey(
      nullptr, temp_bytes, (const int64_t *)nullptr, (const T *)nullptr, (T *)nullptr, op, count,
      SameRow(), stream);
  if (status != cudaSuccess) return (int)status;
  Scratch s;
  if (!s.take(rows_bytes + 2 * values_bytes + temp_bytes, stream))
    return (int)cudaErrorMemoryAllocation;
  char *at = (char *)s.base;
  int64_t *rows_of = (int64_t *)at;
  T *in = (T *)(at + rows_bytes), *out = (T *)(at + rows_bytes + values_bytes);
  void *temp = at + rows_bytes + 2 * values_bytes;
  make<<<grid_for(count), kThreads, 0, stream>>>(*r, count, rows_of, in);
  status = cudaGetLastError();
  if (status != cudaSuccess) return (int)status;
  status = cub::DeviceScan::InclusiveScanByKey(temp, temp_bytes, rows_of, in, out, op, count,
                                               SameRow(), stream);
  if (status != cudaSuccess) return (int)status;
  put<<<grid_for(count), kThreads, 0, stream>>>(*r, count, out);
  return (int)cudaGetLastError();
}

} // namespace

extern "C" int dlx_cuda_row_scan(const dlx_cuda_row_request *r, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (r->op == DLX_CUDA_ROW_LOGCUMSUMEXP)
    return scan_rows<double>(r, LogAddExp(), make_doubles, put_doubles, s);
  return scan_rows<dlx_scan_pair>(r, PairCombine{r->op == DLX_CUDA_ROW_CUMMAX}, make_pairs,
                                  put_extremes, s);
}
