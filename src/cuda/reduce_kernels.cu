// reduce_kernels.cu -- reductions on the GPU. A full reduction (one output) goes through
// cub::DeviceReduce; an inner-axis one gives each output a warp (short rows) or a block (long
// rows); an outer-axis one gives each thread one output column and walks the rows, so that a
// warp's loads are consecutive, split over several blocks along the rows when there are too few
// columns to fill the GPU (then a second pass combines the partial results).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda/kernels.h"

namespace {

// dlx_reduce_op (src/core/backend.h)
enum { kSum, kProd, kMean, kMin, kMax, kArgMin, kArgMax, kAll, kAny };

const int kThreads = 256;
const int kWarp = 32;

// ---- reading an element of any computable dtype as the accumulator's type V

template <typename V> __device__ V load_as(const char *base, int64_t i, int dtype) {
  switch (dtype) {
  case DLX_CUDA_BOOL:
    return (V)(((const unsigned char *)base)[i] != 0);
  case DLX_CUDA_INT8:
    return (V)((const signed char *)base)[i];
  case DLX_CUDA_INT16:
    return (V)((const short *)base)[i];
  case DLX_CUDA_INT32:
    return (V)((const int *)base)[i];
  case DLX_CUDA_INT64:
    return (V)((const long long *)base)[i];
  case DLX_CUDA_UINT8:
    return (V)((const unsigned char *)base)[i];
  case DLX_CUDA_UINT16:
    return (V)((const unsigned short *)base)[i];
  case DLX_CUDA_UINT32:
    return (V)((const unsigned *)base)[i];
  case DLX_CUDA_UINT64:
    return (V)((const unsigned long long *)base)[i];
  case DLX_CUDA_FLOAT16:
    return (V)__half2float(((const __half *)base)[i]);
  case DLX_CUDA_BFLOAT16:
    return (V)__bfloat162float(((const __nv_bfloat16 *)base)[i]);
  case DLX_CUDA_FLOAT32:
    return (V)((const float *)base)[i];
  default:
    return (V)((const double *)base)[i];
  }
}

// ---- arithmetic: integer sums and products wrap (computed unsigned, so never undefined)

template <typename V> __device__ V add(V a, V b) { return a + b; }
template <> __device__ long long add(long long a, long long b) {
  return (long long)((unsigned long long)a + (unsigned long long)b);
}
template <typename V> __device__ V mul(V a, V b) { return a * b; }
template <> __device__ long long mul(long long a, long long b) {
  return (long long)((unsigned long long)a * (unsigned long long)b);
}
template <typename V> __device__ bool is_nan(V v) { return v != v; }

template <typename V> struct Limits;
template <> struct Limits<float> {
  __host__ __device__ static float lowest() { return -INFINITY; }
  __host__ __device__ static float highest() { return INFINITY; }
};
template <> struct Limits<double> {
  __host__ __device__ static double lowest() { return -(double)INFINITY; }
  __host__ __device__ static double highest() { return (double)INFINITY; }
};
template <> struct Limits<long long> {
  __host__ __device__ static long long lowest() { return -0x7fffffffffffffffLL - 1; }
  __host__ __device__ static long long highest() { return 0x7fffffffffffffffLL; }
};
template <> struct Limits<unsigned long long> {
  __host__ __device__ static unsigned long long lowest() { return 0; }
  __host__ __device__ static unsigned long long highest() { return ~0ULL; }
};

// ---- the operations: Acc, its identity, one element as an Acc, and the combination. The
// identities (and the limits they take) are host code too: CUB's full reductions take one as
// their initial value from the host. (nvcc compiles a host call of a __device__ function in a
// template to exit(1), without a word: ctest cmake.cuda_cross_calls has clang look for them.)

// Sum (kProd false) and Prod.
template <typename V, bool kProd> struct Arith {
  typedef V Acc;
  __host__ __device__ static Acc identity() { return kProd ? (V)1 : (V)0; }
  __device__ static Acc make(const char *b, int64_t i, int dt, int64_t) {
    return load_as<V>(b, i, dt);
  }
  __device__ static Acc combine(Acc a, Acc b) { return kProd ? mul(a, b) : add(a, b); }
};
template <typename V> using Sum = Arith<V, false>;
template <typename V> using Prod = Arith<V, true>;

// Min (kIsMax false) and Max, which propagate NaN: a NaN wins over any number.
template <typename V, bool kIsMax> struct Extreme {
  typedef V Acc;
  __host__ __device__ static Acc identity() {
    return kIsMax ? Limits<V>::lowest() : Limits<V>::highest();
  }
  __device__ static Acc make(const char *b, int64_t i, int dt, int64_t) {
    return load_as<V>(b, i, dt);
  }
  __device__ static Acc combine(Acc a, Acc b) {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    return (kIsMax ? b > a : b < a) ? b : a;
  }
};

template <typename V> struct Pair {
  V v;
  long long i; // position within the extent, 0-based
};

// The first position of the extreme, or of the first NaN: a NaN wins, then the better value,
// then the lower position. Commutative and associative, so any combination order agrees.
template <typename V, bool kIsMax> struct Arg {
  typedef Pair<V> Acc;
  __host__ __device__ static Acc identity() {
    Acc a = {kIsMax ? Limits<V>::lowest() : Limits<V>::highest(), 0x7fffffffffffffffLL};
    return a;
  }
  __device__ static Acc make(const char *b, int64_t i, int dt, int64_t pos) {
    Acc a = {load_as<V>(b, i, dt), (long long)pos};
    return a;
  }
  __device__ static Acc combine(Acc a, Acc b) {
    bool an = is_nan(a.v), bn = is_nan(b.v);
    if (an || bn) return (an && bn) ? (a.i < b.i ? a : b) : (an ? a : b);
    if (kIsMax ? a.v > b.v : a.v < b.v) return a;
    if (kIsMax ? b.v > a.v : b.v < a.v) return b;
    return a.i < b.i ? a : b;
  }
};

struct All {
  typedef bool Acc;
  __host__ __device__ static Acc identity() { return true; }
  __device__ static Acc make(const char *b, int64_t i, int dt, int64_t) {
    return load_as<bool>(b, i, dt);
  }
  __device__ static Acc combine(Acc a, Acc b) { return a && b; }
};

struct Any {
  typedef bool Acc;
  __host__ __device__ static Acc identity() { return false; }
  __device__ static Acc make(const char *b, int64_t i, int dt, int64_t) {
    return load_as<bool>(b, i, dt);
  }
  __device__ static Acc combine(Acc a, Acc b) { return a || b; }
};

// ---- writing a result in the output dtype. mean_count: 0 for a plain result, the extent for
// a MEAN, -1 for the MEAN of an empty extent (NaN).

__device__ void write_double(char *p, int dtype, double v) {
  switch (dtype) {
  case DLX_CUDA_FLOAT16:
    *(__half *)p = __double2half(v);
    break;
  case DLX_CUDA_BFLOAT16:
    *(__nv_bfloat16 *)p = __double2bfloat16(v);
    break;
  case DLX_CUDA_FLOAT32:
    *(float *)p = (float)v;
    break;
  default:
    *(double *)p = v;
    break;
  }
}

__device__ void write_integer(char *p, int dtype, long long v) {
  switch (dtype) {
  case DLX_CUDA_BOOL:
    *(unsigned char *)p = v != 0;
    break;
  case DLX_CUDA_INT8:
  case DLX_CUDA_UINT8:
    *(unsigned char *)p = (unsigned char)v;
    break;
  case DLX_CUDA_INT16:
  case DLX_CUDA_UINT16:
    *(unsigned short *)p = (unsigned short)v;
    break;
  case DLX_CUDA_INT32:
  case DLX_CUDA_UINT32:
    *(unsigned *)p = (unsigned)v;
    break;
  default:
    *(long long *)p = v;
    break;
  }
}

__device__ int out_size(int dtype) {
  switch (dtype) {
  case DLX_CUDA_BOOL:
  case DLX_CUDA_INT8:
  case DLX_CUDA_UINT8:
    return 1;
  case DLX_CUDA_INT16:
  case DLX_CUDA_UINT16:
  case DLX_CUDA_FLOAT16:
  case DLX_CUDA_BFLOAT16:
    return 2;
  case DLX_CUDA_INT32:
  case DLX_CUDA_UINT32:
  case DLX_CUDA_FLOAT32:
    return 4;
  default:
    return 8;
  }
}

__device__ double mean_of(double sum, int64_t n) { return n > 0 ? sum / (double)n : (double)NAN; }

// float sums of half types are divided in float, then rounded once to the output dtype.
__device__ void store(char *out, int64_t k, int dt, float a, int64_t n) {
  double v = n == 0 ? (double)a : (n > 0 ? (double)(a / (float)n) : (double)NAN);
  write_double(out + k * out_size(dt), dt, v);
}
__device__ void store(char *out, int64_t k, int dt, double a, int64_t n) {
  write_double(out + k * out_size(dt), dt, n == 0 ? a : mean_of(a, n));
}
__device__ void store(char *out, int64_t k, int dt, long long a, int64_t n) {
  if (n != 0)
    write_double(out + k * 8, dt, mean_of((double)a, n));
  else
    write_integer(out + k * out_size(dt), dt, a);
}
__device__ void store(char *out, int64_t k, int dt, unsigned long long a, int64_t n) {
  if (n != 0)
    write_double(out + k * 8, dt, mean_of((double)a, n));
  else
    write_integer(out + k * out_size(dt), dt, (long long)a);
}
__device__ void store(char *out, int64_t k, int dt, bool a, int64_t) {
  write_integer(out + k, dt, a ? 1 : 0);
}
template <typename V> __device__ void store(char *out, int64_t k, int, Pair<V> a, int64_t) {
  ((long long *)out)[k] = a.i + 1; // 1-based, like every index on the Lua side
}

// ---- warp and block combination

template <typename T> __device__ T shuffle_down(T v, int offset) {
  return __shfl_down_sync(0xffffffffu, v, offset);
}
template <> __device__ bool shuffle_down(bool v, int offset) {
  return __shfl_down_sync(0xffffffffu, (int)v, offset) != 0;
}
template <typename V> __device__ Pair<V> shuffle_down(Pair<V> v, int offset) {
  Pair<V> r = {shuffle_down(v.v, offset), shuffle_down(v.i, offset)};
  return r;
}

template <class Op> __device__ typename Op::Acc warp_combine(typename Op::Acc a) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) a = Op::combine(a, shuffle_down(a, offset));
  return a;
}

// The combination over the whole block, valid in thread 0.
template <class Op> __device__ typename Op::Acc block_combine(typename Op::Acc a) {
  typedef typename Op::Acc Acc;
  __shared__ Acc partial[kThreads / kWarp];
  int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  a = warp_combine<Op>(a);
  __syncthreads(); // partial may still be read by the previous row's combination
  if (lane == 0) partial[warp] = a;
  __syncthreads();
  a = threadIdx.x < blockDim.x / kWarp ? partial[threadIdx.x] : Op::identity();
  if (warp == 0) a = warp_combine<Op>(a);
  return a;
}

// One thread's share of a row: elements first, first + step, ... < n, four loads in flight.
template <class Op>
__device__ typename Op::Acc row_share(const char *src, int dt, int64_t row_base, int64_t n,
                                      int64_t first, int64_t step) {
  typename Op::Acc acc = Op::identity();
  int64_t j = first;
  for (; j + 3 * step < n; j += 4 * step) {
    typename Op::Acc a0 = Op::make(src, row_base + j, dt, j);
    typename Op::Acc a1 = Op::make(src, row_base + j + step, dt, j + step);
    typename Op::Acc a2 = Op::make(src, row_base + j + 2 * step, dt, j + 2 * step);
    typename Op::Acc a3 = Op::make(src, row_base + j + 3 * step, dt, j + 3 * step);
    acc = Op::combine(acc, Op::combine(Op::combine(a0, a1), Op::combine(a2, a3)));
  }
  for (; j < n; j += step) acc = Op::combine(acc, Op::make(src, row_base + j, dt, j));
  return acc;
}

// ---- inner axis: rows of `extent` contiguous elements

template <class Op>
__global__ void inner_warp_kernel(const char *src, int dt, int64_t rows, int64_t extent, char *out,
                                  int out_dt, int64_t mean_count) {
  int lane = threadIdx.x % kWarp;
  int64_t warps = (int64_t)gridDim.x * (blockDim.x / kWarp);
  for (int64_t row = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / kWarp; row < rows;
       row += warps) {
    typename Op::Acc acc =
        warp_combine<Op>(row_share<Op>(src, dt, row * extent, extent, lane, kWarp));
    if (lane == 0) store(out, row, out_dt, acc, mean_count);
  }
}

template <class Op>
__global__ void inner_block_kernel(const char *src, int dt, int64_t rows, int64_t extent, char *out,
                                   int out_dt, int64_t mean_count) {
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    typename Op::Acc acc =
        block_combine<Op>(row_share<Op>(src, dt, row * extent, extent, threadIdx.x, blockDim.x));
    if (threadIdx.x == 0) store(out, row, out_dt, acc, mean_count);
  }
}

// ---- outer axis: [outer, extent, inner], one column (o, k) a thread; blockIdx.y takes rows
// [y * chunk, (y + 1) * chunk). With one split the result is stored; otherwise the Acc partial
// goes to partials[o][y][k].

struct FromDtype {}; // elements of the source dtype
struct FromAcc {};   // partial results (Acc), positions already inside them

template <class Op>
__device__ typename Op::Acc element(FromDtype, const char *src, int dt, int64_t i, int64_t pos) {
  return Op::make(src, i, dt, pos);
}
template <class Op>
__device__ typename Op::Acc element(FromAcc, const char *src, int, int64_t i, int64_t) {
  return ((const typename Op::Acc *)src)[i];
}

template <class Op, class From>
__global__ void outer_kernel(const char *src, int dt, int64_t outer, int64_t extent, int64_t inner,
                             int64_t chunk, char *out, int out_dt, int64_t mean_count,
                             typename Op::Acc *partials) {
  int64_t columns = outer * inner;
  int64_t r0 = blockIdx.y * chunk, r1 = r0 + chunk < extent ? r0 + chunk : extent;
  for (int64_t col = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; col < columns;
       col += (int64_t)gridDim.x * blockDim.x) {
    int64_t o = col / inner, k = col % inner, base = o * extent * inner + k;
    typename Op::Acc acc = Op::identity();
    int64_t r = r0;
    for (; r + 3 < r1; r += 4) {
      typename Op::Acc a0 = element<Op>(From(), src, dt, base + r * inner, r);
      typename Op::Acc a1 = element<Op>(From(), src, dt, base + (r + 1) * inner, r + 1);
      typename Op::Acc a2 = element<Op>(From(), src, dt, base + (r + 2) * inner, r + 2);
      typename Op::Acc a3 = element<Op>(From(), src, dt, base + (r + 3) * inner, r + 3);
      acc = Op::combine(acc, Op::combine(Op::combine(a0, a1), Op::combine(a2, a3)));
    }
    for (; r < r1; r++) acc = Op::combine(acc, element<Op>(From(), src, dt, base + r * inner, r));
    if (partials == NULL)
      store(out, col, out_dt, acc, mean_count);
    else
      partials[(o * gridDim.y + blockIdx.y) * inner + k] = acc;
  }
}

// ---- full reductions through CUB

template <class Op> struct Combine {
  __device__ typename Op::Acc operator()(const typename Op::Acc &a,
                                         const typename Op::Acc &b) const {
    return Op::combine(a, b);
  }
};

template <class Op> struct Element {
  const char *src;
  int dt;
  __device__ typename Op::Acc operator()(long long i) const { return Op::make(src, i, dt, i); }
};

template <class Op>
__global__ void store_one_kernel(const typename Op::Acc *acc, char *out, int out_dt,
                                 int64_t mean_count) {
  store(out, 0, out_dt, *acc, mean_count);
}

// CUB's two calls: the size of its temporary storage, then the reduction.
template <class Op, class Run> cudaError_t with_cub_storage(Run run, cudaStream_t s) {
  size_t bytes = 0;
  cudaError_t e = run((void *)NULL, bytes);
  if (e != cudaSuccess) return e;
  void *temp = dlx_cuda_scratch_alloc(bytes, s);
  if (temp == NULL && bytes > 0) return cudaErrorMemoryAllocation;
  e = run(temp, bytes);
  dlx_cuda_scratch_free(temp, bytes, s);
  return e;
}

template <class Op>
cudaError_t reduce_full(const char *src, int dt, int64_t n, char *out, int out_dt,
                        int64_t mean_count, cudaStream_t s) {
  typedef typename Op::Acc Acc;
  Acc *acc = (Acc *)dlx_cuda_scratch_alloc(sizeof(Acc), s);
  if (acc == NULL) return cudaErrorMemoryAllocation;
  Element<Op> element = {src, dt};
  thrust::counting_iterator<long long> positions(0);
  cudaError_t e = with_cub_storage<Op>(
      [&](void *temp, size_t &bytes) {
        return cub::DeviceReduce::TransformReduce(temp, bytes, positions, acc, n, Combine<Op>(),
                                                  element, Op::identity(), s);
      },
      s);
  if (e == cudaSuccess) {
    store_one_kernel<Op><<<1, 1, 0, s>>>(acc, out, out_dt, mean_count);
    e = cudaGetLastError();
  }
  dlx_cuda_scratch_free(acc, sizeof(Acc), s);
  return e;
}

// float32 and float64 sums straight from the typed array: the path CUB is tuned for.
template <typename T>
cudaError_t sum_typed(const char *src, int64_t n, char *out, int out_dt, int64_t mean_count,
                      cudaStream_t s) {
  T *acc = (T *)dlx_cuda_scratch_alloc(sizeof(T), s);
  if (acc == NULL) return cudaErrorMemoryAllocation;
  cudaError_t e = with_cub_storage<Sum<T>>(
      [&](void *temp, size_t &bytes) {
        return cub::DeviceReduce::Sum(temp, bytes, (const T *)src, acc, n, s);
      },
      s);
  if (e == cudaSuccess) {
    store_one_kernel<Sum<T>><<<1, 1, 0, s>>>(acc, out, out_dt, mean_count);
    e = cudaGetLastError();
  }
  dlx_cuda_scratch_free(acc, sizeof(T), s);
  return e;
}

unsigned grid_for(int64_t threads) {
  int64_t blocks = (threads + kThreads - 1) / kThreads;
  return (unsigned)(blocks < (1 << 20) ? (blocks > 0 ? blocks : 1) : (1 << 20));
}

template <class Op>
cudaError_t reduce_inner(const char *src, int dt, int64_t rows, int64_t extent, char *out,
                         int out_dt, int64_t mean_count, cudaStream_t s) {
  if (extent <= 1024) {
    inner_warp_kernel<Op><<<grid_for(rows * kWarp), kThreads, 0, s>>>(src, dt, rows, extent, out,
                                                                      out_dt, mean_count);
  } else {
    // at least one block: a launch with a zero-sized grid fails (rows == 0 has nothing to do)
    unsigned blocks = (unsigned)(rows < (1 << 20) ? (rows > 0 ? rows : 1) : (1 << 20));
    inner_block_kernel<Op>
        <<<blocks, kThreads, 0, s>>>(src, dt, rows, extent, out, out_dt, mean_count);
  }
  return cudaGetLastError();
}

// Enough blocks along the rows to keep the GPU busy when the columns alone cannot (about 1024
// blocks in all), with at least 64 rows a block.
int64_t row_splits(int64_t columns, int64_t extent) {
  int64_t column_blocks = (columns + kThreads - 1) / kThreads;
  int64_t splits = 1024 / (column_blocks > 0 ? column_blocks : 1);
  if (splits > extent / 64) splits = extent / 64;
  if (splits > 65535) splits = 65535;
  return splits > 1 ? splits : 1;
}

template <class Op>
cudaError_t reduce_outer(const char *src, int dt, int64_t outer, int64_t extent, int64_t inner,
                         char *out, int out_dt, int64_t mean_count, cudaStream_t s) {
  typedef typename Op::Acc Acc;
  int64_t columns = outer * inner, splits = row_splits(columns, extent);
  int64_t chunk = (extent + splits - 1) / splits;
  size_t bytes = (size_t)(columns * splits) * sizeof(Acc);
  Acc *partials;
  cudaError_t e;
  if (splits == 1) {
    outer_kernel<Op, FromDtype><<<grid_for(columns), kThreads, 0, s>>>(
        src, dt, outer, extent, inner, extent, out, out_dt, mean_count, (Acc *)NULL);
    return cudaGetLastError();
  }
  partials = (Acc *)dlx_cuda_scratch_alloc(bytes, s);
  if (partials == NULL) return cudaErrorMemoryAllocation;
  outer_kernel<Op, FromDtype><<<dim3(grid_for(columns), (unsigned)splits), kThreads, 0, s>>>(
      src, dt, outer, extent, inner, chunk, out, out_dt, mean_count, partials);
  e = cudaGetLastError();
  if (e == cudaSuccess) {
    outer_kernel<Op, FromAcc>
        <<<grid_for(columns), kThreads, 0, s>>>((const char *)partials, dt, outer, splits, inner,
                                                splits, out, out_dt, mean_count, (Acc *)NULL);
    e = cudaGetLastError();
  }
  dlx_cuda_scratch_free(partials, bytes, s);
  return e;
}

template <class Op>
cudaError_t run(const char *src, int dt, int64_t outer, int64_t extent, int64_t inner, char *out,
                int out_dt, int64_t mean_count, cudaStream_t s) {
  // (an empty extent goes to the inner kernel, which stores the identity without CUB)
  if (outer * inner == 1 && extent > 0)
    return reduce_full<Op>(src, dt, extent, out, out_dt, mean_count, s);
  if (inner == 1) return reduce_inner<Op>(src, dt, outer, extent, out, out_dt, mean_count, s);
  return reduce_outer<Op>(src, dt, outer, extent, inner, out, out_dt, mean_count, s);
}

int64_t mean_count(int64_t extent) { return extent > 0 ? extent : -1; }

// The operation for op over elements read as V.
template <typename V>
cudaError_t run_typed(int op, const char *src, int dt, int64_t outer, int64_t extent, int64_t inner,
                      char *out, int out_dt, cudaStream_t s) {
  switch (op) {
  case kSum:
    return run<Sum<V>>(src, dt, outer, extent, inner, out, out_dt, 0, s);
  case kMean:
    return run<Sum<V>>(src, dt, outer, extent, inner, out, out_dt, mean_count(extent), s);
  case kProd:
    return run<Prod<V>>(src, dt, outer, extent, inner, out, out_dt, 0, s);
  case kMin:
    return run<Extreme<V, false>>(src, dt, outer, extent, inner, out, out_dt, 0, s);
  case kMax:
    return run<Extreme<V, true>>(src, dt, outer, extent, inner, out, out_dt, 0, s);
  case kArgMin:
    return run<Arg<V, false>>(src, dt, outer, extent, inner, out, out_dt, 0, s);
  case kArgMax:
    return run<Arg<V, true>>(src, dt, outer, extent, inner, out, out_dt, 0, s);
  default:
    return cudaErrorInvalidValue;
  }
}

} // namespace

extern "C" int dlx_cuda_reduce(int op, const void *src_ptr, int dt, int64_t outer, int64_t extent,
                               int64_t inner, void *dst, int out_dt, void *stream) {
  const char *src = (const char *)src_ptr;
  char *out = (char *)dst;
  cudaStream_t s = (cudaStream_t)stream;
  bool one_output = outer * inner == 1 && extent > 0;
  if (op == kAll) return run<All>(src, dt, outer, extent, inner, out, out_dt, 0, s);
  if (op == kAny) return run<Any>(src, dt, outer, extent, inner, out, out_dt, 0, s);
  if (one_output && (op == kSum || op == kMean) && dt == DLX_CUDA_FLOAT32)
    return sum_typed<float>(src, extent, out, out_dt, op == kMean ? mean_count(extent) : 0, s);
  if (one_output && (op == kSum || op == kMean) && dt == DLX_CUDA_FLOAT64)
    return sum_typed<double>(src, extent, out, out_dt, op == kMean ? mean_count(extent) : 0, s);
  switch (dt) {
  case DLX_CUDA_FLOAT16:
  case DLX_CUDA_BFLOAT16:
  case DLX_CUDA_FLOAT32:
    return run_typed<float>(op, src, dt, outer, extent, inner, out, out_dt, s); // half types too
  case DLX_CUDA_FLOAT64:
    return run_typed<double>(op, src, dt, outer, extent, inner, out, out_dt, s);
  case DLX_CUDA_UINT64:
    return run_typed<unsigned long long>(op, src, dt, outer, extent, inner, out, out_dt, s);
  default: // bool and the other integers: 64-bit signed, which holds every value exactly
    return run_typed<long long>(op, src, dt, outer, extent, inner, out, out_dt, s);
  }
}
