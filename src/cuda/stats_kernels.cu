// stats_kernels.cu -- var, std, logsumexp and norm, and cumsum, cumprod, softmax and log_softmax
// along a dim, on the GPU. Per element the shared rules (stats_element.h over
// src/common/stats_ops.h); how the work is split comes from stats_plan.h, from the sizes alone,
// so a result never depends on the launch.
//
// - The reductions merge the partials of stats_ops.h (Welford / Chan for var, rescaled sums for
//   logsumexp, scaled squares for the 2-norm): each thread over its elements in order, then
//   cub::WarpReduce or cub::BlockReduce across threads; pieces of one output meet in a second
//   kernel.
// - Scans of long rows: a block per row with cub::BlockScan, tile after tile, the running total
//   carried by CUB's prefix callback; other lines a thread each, in order (as the CPU).
// - Softmax of long rows: a block per row, its max and sum of exponentials by cub::BlockReduce,
//   then the results; other lines a thread each.
#include <cuda_runtime.h>
#include <stdint.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>

#include "cuda/kernels.h"
#include "cuda/stats_element.h"

namespace {

const int kThreads = DLX_CUDA_STAT_THREADS;
const int kWarp = 32;
const int kItems = 4; // elements a thread takes per tile of a block scan

// dlx_dim_op (src/core/backend.h)
enum { kCumsum, kCumprod, kSoftmax, kLogSoftmax };

unsigned blocks_for(int64_t blocks) {
  return (unsigned)(blocks < (1 << 20) ? (blocks > 0 ? blocks : 1) : (1 << 20));
}

__device__ int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// ---- var, std, logsumexp, norm

template <int K> struct StatMerge {
  __device__ dlx_stat_acc operator()(const dlx_stat_acc &a, const dlx_stat_acc &b) const {
    return dlx_stat_merge(K, a, b);
  }
};

// The partial over elements first, first + step, ... < last of a line `stride` elements apart.
template <int K>
__device__ dlx_stat_acc stat_share(const char *line, int dt, int size, int64_t stride,
                                   int64_t first, int64_t last, int64_t step) {
  dlx_stat_acc acc = dlx_stat_empty(K);
  for (int64_t r = first; r < last; r += step)
    acc = dlx_stat_merge(K, acc, dlx_stat_one(K, dlx_cuda_stat_load(dt, line + r * stride * size)));
  return acc;
}

// A warp per row of `extent` contiguous elements.
template <int K>
__global__ void stat_rows_warp(const char *src, int dt, int64_t rows, int64_t extent, char *dst,
                               int out_dt, double param) {
  typedef cub::WarpReduce<dlx_stat_acc> Reduce;
  __shared__ typename Reduce::TempStorage temp[kThreads / kWarp];
  int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  int size = dlx_cuda_itemsize(dt), out_size = dlx_cuda_itemsize(out_dt);
  int64_t warps = (int64_t)gridDim.x * (kThreads / kWarp);
  for (int64_t row = (int64_t)blockIdx.x * (kThreads / kWarp) + warp; row < rows; row += warps) {
    dlx_stat_acc acc = stat_share<K>(src + row * extent * size, dt, size, 1, lane, extent, kWarp);
    acc = Reduce(temp[warp]).Reduce(acc, StatMerge<K>());
    if (lane == 0) dlx_cuda_stat_store(K, param, out_dt, dst + row * out_size, acc);
    __syncwarp(); // temp[warp] is reused by the warp's next row
  }
}

// A block per piece g: piece g % parts of row g / parts. One piece a row: the result; else the
// piece's partial, partials[g].
template <int K>
__global__ void stat_rows_block(const char *src, int dt, int64_t rows, int64_t extent,
                                int64_t parts, int64_t part_len, char *dst, int out_dt,
                                double param, dlx_stat_acc *partials) {
  typedef cub::BlockReduce<dlx_stat_acc, kThreads> Reduce;
  __shared__ typename Reduce::TempStorage temp;
  int size = dlx_cuda_itemsize(dt), out_size = dlx_cuda_itemsize(out_dt);
  for (int64_t g = blockIdx.x; g < rows * parts; g += gridDim.x) {
    int64_t row = g / parts, first = (g - row * parts) * part_len;
    int64_t last = min64(first + part_len, extent);
    dlx_stat_acc acc = stat_share<K>(src + row * extent * size, dt, size, 1,
                                     first + threadIdx.x, last, kThreads);
    acc = Reduce(temp).Reduce(acc, StatMerge<K>());
    if (threadIdx.x == 0) {
      if (partials != NULL)
        partials[g] = acc;
      else
        dlx_cuda_stat_store(K, param, out_dt, dst + row * out_size, acc);
    }
    __syncthreads(); // temp is reused by the block's next piece
  }
}

// A thread per column (o, k) of [outer, extent, inner]; blockIdx.y takes rows
// [y * part_len, (y + 1) * part_len). One piece: the result; else partials[col * parts + y].
template <int K>
__global__ void stat_columns(const char *src, int dt, int64_t outer, int64_t extent,
                             int64_t inner, int64_t part_len, char *dst, int out_dt,
                             double param, dlx_stat_acc *partials) {
  int size = dlx_cuda_itemsize(dt), out_size = dlx_cuda_itemsize(out_dt);
  int64_t columns = outer * inner, r0 = (int64_t)blockIdx.y * part_len;
  int64_t r1 = min64(r0 + part_len, extent);
  for (int64_t col = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; col < columns;
       col += (int64_t)gridDim.x * blockDim.x) {
    int64_t o = col / inner, k = col - o * inner;
    const char *line = src + (o * extent * inner + k) * size;
    dlx_stat_acc acc = stat_share<K>(line, dt, size, inner, r0, r1, 1);
    if (partials != NULL)
      partials[col * gridDim.y + blockIdx.y] = acc;
    else
      dlx_cuda_stat_store(K, param, out_dt, dst + col * out_size, acc);
  }
}

// A block per output o: the merge of partials[o * parts ...], each thread over parts t,
// t + kThreads, ..., then the block's tree.
template <int K>
__global__ void stat_finish(const dlx_stat_acc *partials, int64_t outputs, int64_t parts,
                            char *dst, int out_dt, double param) {
  typedef cub::BlockReduce<dlx_stat_acc, kThreads> Reduce;
  __shared__ typename Reduce::TempStorage temp;
  int out_size = dlx_cuda_itemsize(out_dt);
  for (int64_t o = blockIdx.x; o < outputs; o += gridDim.x) {
    dlx_stat_acc acc = dlx_stat_empty(K);
    for (int64_t p = threadIdx.x; p < parts; p += kThreads)
      acc = dlx_stat_merge(K, acc, partials[o * parts + p]);
    acc = Reduce(temp).Reduce(acc, StatMerge<K>());
    if (threadIdx.x == 0) dlx_cuda_stat_store(K, param, out_dt, dst + o * out_size, acc);
    __syncthreads();
  }
}

template <int K> cudaError_t stat_run(const dlx_cuda_stat_request *r, cudaStream_t s) {
  const char *src = (const char *)r->src;
  char *dst = (char *)r->dst;
  int64_t outputs = r->outer * r->inner;
  size_t bytes = (size_t)(outputs * r->parts) * sizeof(dlx_stat_acc);
  dlx_stat_acc *partials = NULL;
  cudaError_t e;
  if (r->mode == DLX_CUDA_STAT_WARP_ROWS) {
    stat_rows_warp<K><<<blocks_for((r->outer + kThreads / kWarp - 1) / (kThreads / kWarp)),
                        kThreads, 0, s>>>(src, r->src_dtype, r->outer, r->extent, dst,
                                          r->dst_dtype, r->param);
    return cudaGetLastError();
  }
  if (r->parts > 1) {
    partials = (dlx_stat_acc *)dlx_cuda_scratch_alloc(bytes, s);
    if (partials == NULL) return cudaErrorMemoryAllocation;
  }
  if (r->mode == DLX_CUDA_STAT_BLOCK_ROWS) {
    stat_rows_block<K><<<blocks_for(outputs * r->parts), kThreads, 0, s>>>(
        src, r->src_dtype, r->outer, r->extent, r->parts, r->part_len, dst, r->dst_dtype,
        r->param, partials);
  } else {
    dim3 grid(blocks_for((outputs + kThreads - 1) / kThreads), (unsigned)r->parts);
    stat_columns<K><<<grid, kThreads, 0, s>>>(src, r->src_dtype, r->outer, r->extent, r->inner,
                                              r->part_len, dst, r->dst_dtype, r->param,
                                              partials);
  }
  e = cudaGetLastError();
  if (e == cudaSuccess && partials != NULL) {
    stat_finish<K><<<blocks_for(outputs), kThreads, 0, s>>>(partials, outputs, r->parts, dst,
                                                            r->dst_dtype, r->param);
    e = cudaGetLastError();
  }
  // the pool hands the block out again only to later work on this stream
  if (partials != NULL) dlx_cuda_scratch_free(partials, bytes, s);
  return e;
}

// ---- cumsum, cumprod

// The accumulators: 64-bit integers (wrapping) and float64.
template <typename Acc> struct ScanIO;
template <> struct ScanIO<unsigned long long> {
  __device__ static unsigned long long load(int dt, const char *p) {
    return (unsigned long long)dlx_cuda_scan_load_u(dt, p);
  }
  __device__ static void store(int dt, char *p, unsigned long long v) {
    dlx_cuda_scan_store_u(dt, p, (uint64_t)v);
  }
};
template <> struct ScanIO<double> {
  __device__ static double load(int dt, const char *p) { return dlx_cuda_stat_load(dt, p); }
  __device__ static void store(int dt, char *p, double v) { dlx_cuda_scan_store_d(dt, p, v); }
};

template <typename Acc, bool kProd> struct ScanOp {
  __device__ static Acc start() { return kProd ? (Acc)1 : (Acc)0; }
  __device__ Acc operator()(const Acc &a, const Acc &b) const { return kProd ? a * b : a + b; }
};

// CUB's running prefix: the total of the tiles before the one being scanned.
template <typename Acc, bool kProd> struct RunningTotal {
  Acc total;
  __device__ Acc operator()(Acc tile_total) {
    Acc before = total;
    total = ScanOp<Acc, kProd>()(total, tile_total);
    return before;
  }
};

// A thread per line (o, k) of [outer, len, inner], in order.
template <typename Acc, bool kProd>
__global__ void scan_lines_thread(const char *src, int dt, char *dst, int out_dt, int64_t outer,
                                  int64_t len, int64_t inner) {
  int size = dlx_cuda_itemsize(dt), out_size = dlx_cuda_itemsize(out_dt);
  ScanOp<Acc, kProd> op;
  for (int64_t line = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; line < outer * inner;
       line += (int64_t)gridDim.x * blockDim.x) {
    int64_t o = line / inner, first = o * len * inner + (line - o * inner);
    Acc acc = op.start();
    for (int64_t i = 0; i < len; i++) {
      int64_t at = first + i * inner;
      acc = op(acc, ScanIO<Acc>::load(dt, src + at * size));
      ScanIO<Acc>::store(out_dt, dst + at * out_size, acc);
    }
  }
}

// A block per row of len contiguous elements: tiles of kThreads * kItems, kItems consecutive
// elements a thread.
template <typename Acc, bool kProd>
__global__ void scan_rows_block(const char *src, int dt, char *dst, int out_dt, int64_t rows,
                                int64_t len) {
  typedef cub::BlockScan<Acc, kThreads> Scan;
  __shared__ typename Scan::TempStorage temp;
  int size = dlx_cuda_itemsize(dt), out_size = dlx_cuda_itemsize(out_dt);
  ScanOp<Acc, kProd> op;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const char *in = src + row * len * size;
    char *out = dst + row * len * out_size;
    RunningTotal<Acc, kProd> prefix = {op.start()};
    for (int64_t tile = 0; tile < len; tile += (int64_t)kThreads * kItems) {
      int64_t first = tile + (int64_t)threadIdx.x * kItems;
      Acc items[kItems];
      for (int j = 0; j < kItems; j++)
        items[j] = first + j < len ? ScanIO<Acc>::load(dt, in + (first + j) * size) : op.start();
      Scan(temp).InclusiveScan(items, items, op, prefix);
      __syncthreads(); // temp is reused by the next tile
      for (int j = 0; j < kItems; j++)
        if (first + j < len) ScanIO<Acc>::store(out_dt, out + (first + j) * out_size, items[j]);
    }
  }
}

template <typename Acc, bool kProd>
cudaError_t scan_run(const dlx_cuda_line_request *r, cudaStream_t s) {
  const char *src = (const char *)r->src;
  char *dst = (char *)r->dst;
  if (r->mode == DLX_CUDA_LINE_BLOCK)
    scan_rows_block<Acc, kProd><<<blocks_for(r->outer), kThreads, 0, s>>>(
        src, r->src_dtype, dst, r->dst_dtype, r->outer, r->len);
  else
    scan_lines_thread<Acc, kProd><<<blocks_for((r->outer * r->inner + kThreads - 1) / kThreads),
                                    kThreads, 0, s>>>(src, r->src_dtype, dst, r->dst_dtype,
                                                      r->outer, r->len, r->inner);
  return cudaGetLastError();
}

// ---- softmax, log_softmax

struct MaxOp {
  __device__ double operator()(const double &a, const double &b) const {
    return dlx_cuda_softmax_max(a, b);
  }
};

// A thread per line (o, k) of [outer, len, inner], as the CPU: its max, its sum, the results.
template <bool kF64, bool kLog>
__global__ void softmax_lines_thread(const char *src, int dt, char *dst, int out_dt,
                                     int64_t outer, int64_t len, int64_t inner) {
  int size = dlx_cuda_itemsize(dt), out_size = dlx_cuda_itemsize(out_dt);
  for (int64_t line = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; line < outer * inner;
       line += (int64_t)gridDim.x * blockDim.x) {
    int64_t o = line / inner, first = o * len * inner + (line - o * inner);
    double max = -(double)INFINITY, sum = 0;
    for (int64_t i = 0; i < len; i++)
      max = dlx_cuda_softmax_max(max, dlx_cuda_softmax_load(kF64, dt, src + (first + i * inner) * size));
    for (int64_t i = 0; i < len; i++)
      sum += dlx_cuda_softmax_exp(
          kF64, dlx_cuda_softmax_load(kF64, dt, src + (first + i * inner) * size), max);
    for (int64_t i = 0; i < len; i++) {
      int64_t at = first + i * inner;
      dlx_cuda_softmax_store(kF64, kLog, out_dt, dst + at * out_size,
                             dlx_cuda_softmax_load(kF64, dt, src + at * size), max, sum);
    }
  }
}

// A block per row of len contiguous elements.
template <bool kF64, bool kLog>
__global__ void softmax_rows_block(const char *src, int dt, char *dst, int out_dt, int64_t rows,
                                   int64_t len) {
  typedef cub::BlockReduce<double, kThreads> Reduce;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ double row_max, row_sum;
  int size = dlx_cuda_itemsize(dt), out_size = dlx_cuda_itemsize(out_dt);
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const char *in = src + row * len * size;
    char *out = dst + row * len * out_size;
    double max = -(double)INFINITY, sum = 0;
    for (int64_t i = threadIdx.x; i < len; i += kThreads)
      max = dlx_cuda_softmax_max(max, dlx_cuda_softmax_load(kF64, dt, in + i * size));
    max = Reduce(temp).Reduce(max, MaxOp());
    if (threadIdx.x == 0) row_max = max;
    __syncthreads(); // row_max written; temp free again
    max = row_max;
    for (int64_t i = threadIdx.x; i < len; i += kThreads)
      sum += dlx_cuda_softmax_exp(kF64, dlx_cuda_softmax_load(kF64, dt, in + i * size), max);
    sum = Reduce(temp).Sum(sum);
    if (threadIdx.x == 0) row_sum = sum;
    __syncthreads();
    sum = row_sum;
    for (int64_t i = threadIdx.x; i < len; i += kThreads)
      dlx_cuda_softmax_store(kF64, kLog, out_dt, out + i * out_size,
                             dlx_cuda_softmax_load(kF64, dt, in + i * size), max, sum);
    __syncthreads(); // row_max, row_sum and temp are reused by the next row
  }
}

template <bool kF64, bool kLog>
cudaError_t softmax_run(const dlx_cuda_line_request *r, cudaStream_t s) {
  const char *src = (const char *)r->src;
  char *dst = (char *)r->dst;
  if (r->mode == DLX_CUDA_LINE_BLOCK)
    softmax_rows_block<kF64, kLog><<<blocks_for(r->outer), kThreads, 0, s>>>(
        src, r->src_dtype, dst, r->dst_dtype, r->outer, r->len);
  else
    softmax_lines_thread<kF64, kLog>
        <<<blocks_for((r->outer * r->inner + kThreads - 1) / kThreads), kThreads, 0, s>>>(
            src, r->src_dtype, dst, r->dst_dtype, r->outer, r->len, r->inner);
  return cudaGetLastError();
}

} // namespace

extern "C" int dlx_cuda_reduce_stat(const dlx_cuda_stat_request *r, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  switch (r->kind) {
  case DLX_STAT_K_VAR: return stat_run<DLX_STAT_K_VAR>(r, s);
  case DLX_STAT_K_STD: return stat_run<DLX_STAT_K_STD>(r, s);
  case DLX_STAT_K_LSE: return stat_run<DLX_STAT_K_LSE>(r, s);
  case DLX_STAT_K_NORM1: return stat_run<DLX_STAT_K_NORM1>(r, s);
  case DLX_STAT_K_NORM2: return stat_run<DLX_STAT_K_NORM2>(r, s);
  case DLX_STAT_K_NORMINF: return stat_run<DLX_STAT_K_NORMINF>(r, s);
  default: return cudaErrorInvalidValue;
  }
}

extern "C" int dlx_cuda_along_dim(const dlx_cuda_line_request *r, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  bool f64 = r->dst_dtype == DLX_CUDA_FLOAT64, floats = dlx_cuda_scan_is_float(r->src_dtype);
  if (r->mode != DLX_CUDA_LINE_THREAD && (r->mode != DLX_CUDA_LINE_BLOCK || r->inner != 1))
    return cudaErrorInvalidValue;
  switch (r->op) {
  case kCumsum:
    return floats ? scan_run<double, false>(r, s) : scan_run<unsigned long long, false>(r, s);
  case kCumprod:
    return floats ? scan_run<double, true>(r, s) : scan_run<unsigned long long, true>(r, s);
  case kSoftmax:
    return f64 ? softmax_run<true, false>(r, s) : softmax_run<false, false>(r, s);
  case kLogSoftmax:
    return f64 ? softmax_run<true, true>(r, s) : softmax_run<false, true>(r, s);
  default: return cudaErrorInvalidValue;
  }
}
