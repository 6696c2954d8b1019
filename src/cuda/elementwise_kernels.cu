// elementwise_kernels.cu -- the elementwise ops on the GPU, per element the shared functions of
// src/common/elementwise_ops.h (the rules of every backend).
//
// - Contiguous operands of the kernel dtype, into a contiguous dst of the result's dtype: a
//   kernel per kernel dtype (a template), each thread taking 16 bytes of every input at a time
//   (one vector load) in a grid-stride loop; an input that is one value (a scalar, or a tensor
//   broadcast whole) is read once. The op is a kernel argument: the same for every thread, so
//   its switch never diverges.
// - Anything else (strided, broadcast, mixed dtypes, misaligned views): one strided kernel that
//   casts each input on load and the result on store (elementwise_element.h).
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "cuda/elementwise_element.h"
#include "cuda/kernels.h"

namespace {

const int kThreads = 256;

unsigned blocks_for(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  return (unsigned)(blocks < (1 << 20) ? (blocks > 0 ? blocks : 1) : (1 << 20));
}

// N elements of U loaded or stored at once (N * sizeof(U) is 16 or less, a power of two).
template <typename U, int N> struct alignas(sizeof(U) * N) Vec { U v[N]; };

// The element functions of one kernel dtype, by type: T the dtype's storage, R the real type of
// a complex dtype (abs, real, imag), T itself otherwise.
#define DLX_EW_TRAITS(n, Ty, Ry, REAL)                                                             \
  struct Ops_##n {                                                                                 \
    typedef Ty T;                                                                                  \
    typedef Ry R;                                                                                  \
    static __device__ T same(int op, T x, T y) { return dlx_ewk_same_##n(op, x, y); }              \
    static __device__ uint8_t test(int op, T x, T y) { return dlx_ewk_test_##n(op, x, y); }        \
    static __device__ R real(int op, T x) {                                                        \
      (void)op;                                                                                    \
      return REAL;                                                                                 \
    }                                                                                              \
  };
DLX_EW_TRAITS(boolean, uint8_t, uint8_t, x)
DLX_EW_TRAITS(int8, int8_t, int8_t, x)
DLX_EW_TRAITS(int16, int16_t, int16_t, x)
DLX_EW_TRAITS(int32, int32_t, int32_t, x)
DLX_EW_TRAITS(int64, int64_t, int64_t, x)
DLX_EW_TRAITS(uint8, uint8_t, uint8_t, x)
DLX_EW_TRAITS(uint16, uint16_t, uint16_t, x)
DLX_EW_TRAITS(uint32, uint32_t, uint32_t, x)
DLX_EW_TRAITS(uint64, uint64_t, uint64_t, x)
DLX_EW_TRAITS(float32, float, float, x)
DLX_EW_TRAITS(float64, double, double, x)
DLX_EW_TRAITS(complex64, dlx_c64, float, dlx_ewk_part_complex64(op, x))
DLX_EW_TRAITS(complex128, dlx_c128, double, dlx_ewk_part_complex128(op, x))
#undef DLX_EW_TRAITS

// An input of the contiguous kernel: contiguous data, or one value (`value`, or data[0] when
// `single`: a tensor broadcast whole, read once by each thread).
template <typename T> struct Input {
  const T *data;
  bool single;
  T value;
};

template <typename T> __device__ void settle(Input<T> &in) {
  if (in.single) {
    in.value = in.data[0];
    in.data = NULL;
  }
}

template <typename T, int N> __device__ Vec<T, N> load(const Input<T> &in, int64_t v) {
  Vec<T, N> x;
  if (in.data != NULL) return reinterpret_cast<const Vec<T, N> *>(in.data)[v];
  for (int k = 0; k < N; k++) x.v[k] = in.value;
  return x;
}

template <typename T> __device__ T load1(const Input<T> &in, int64_t i) {
  return in.data != NULL ? in.data[i] : in.value;
}

// Elements [0, vectors * N) in vectors, the rest one at a time. kind: op's result kind.
template <class K, int N>
__global__ void contiguous(int op, int kind, int64_t numel, void *dst, Input<typename K::T> a,
                           Input<typename K::T> b) {
  typedef typename K::T T;
  typedef typename K::R R;
  int64_t vectors = numel / N, step = (int64_t)gridDim.x * blockDim.x;
  int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  settle(a);
  settle(b);
  for (int64_t v = first; v < vectors; v += step) {
    Vec<T, N> x = load<T, N>(a, v), y = load<T, N>(b, v);
    if (kind == DLX_EWK_RESULT_SAME) {
      Vec<T, N> r;
      for (int k = 0; k < N; k++) r.v[k] = K::same(op, x.v[k], y.v[k]);
      reinterpret_cast<Vec<T, N> *>(dst)[v] = r;
    } else if (kind == DLX_EWK_RESULT_BOOL) {
      Vec<uint8_t, N> r;
      for (int k = 0; k < N; k++) r.v[k] = K::test(op, x.v[k], y.v[k]);
      reinterpret_cast<Vec<uint8_t, N> *>(dst)[v] = r;
    } else {
      Vec<R, N> r;
      for (int k = 0; k < N; k++) r.v[k] = K::real(op, x.v[k]);
      reinterpret_cast<Vec<R, N> *>(dst)[v] = r;
    }
  }
  for (int64_t i = vectors * N + first; i < numel; i += step) {
    T x = load1(a, i), y = load1(b, i);
    if (kind == DLX_EWK_RESULT_SAME)
      static_cast<T *>(dst)[i] = K::same(op, x, y);
    else if (kind == DLX_EWK_RESULT_BOOL)
      static_cast<uint8_t *>(dst)[i] = K::test(op, x, y);
    else
      static_cast<R *>(dst)[i] = K::real(op, x);
  }
}

__global__ void strided(dlx_cuda_ew_params p) {
  const int kIn = DLX_CUDA_EW_INPUTS;
  int64_t step = (int64_t)gridDim.x * blockDim.x;
  dlx_cuda_ew_op o = {p.op, p.nin, p.kdtype, p.kout, p.dst_dtype};
  double values[kIn][2];
  int dtype[kIn], size[kIn], dsize = dlx_cuda_itemsize(p.dst_dtype);
  for (int k = 0; k < kIn; k++) {
    values[k][0] = p.value[k][0];
    values[k][1] = p.value[k][1];
    dtype[k] = p.in_dtype[k];
    size[k] = dlx_cuda_itemsize(dtype[k]);
  }
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.numel; i += step) {
    int64_t rest = i, od = 0, off[kIn] = {0, 0, 0, 0};
    const char *in[kIn];
    for (int d = p.ndim - 1; d >= 0; d--) {
      int64_t n = p.shape[d], k = rest % n;
      rest /= n;
      od += k * p.dst_strides[d];
      for (int m = 0; m < p.nin; m++) off[m] += k * p.in_strides[m][d];
    }
    for (int m = 0; m < kIn; m++)
      in[m] = p.in[m] != NULL ? (const char *)p.in[m] + off[m] * size[m] : (const char *)values[m];
    dlx_cuda_ew_element(o, (char *)p.dst + od * dsize, in, dtype);
  }
}

template <class K> int launch_contiguous(const dlx_cuda_ew_params *p, cudaStream_t stream) {
  typedef typename K::T T;
  const int N = 16 / (int)sizeof(T) > 0 ? 16 / (int)sizeof(T) : 1;
  Input<T> in[2];
  int kind = dlx_ewk_result(p->op, p->kdtype), out_size = dlx_cuda_itemsize(p->kout);
  if (!dlx_cuda_ew_vectorisable(p, N * (int)sizeof(T), N * out_size)) return -1;
  for (int k = 0; k < 2; k++) {
    bool tensor = k < p->nin && p->in[k] != NULL;
    memset(&in[k], 0, sizeof in[k]);
    in[k].data = tensor ? static_cast<const T *>(p->in[k]) : NULL;
    in[k].single = tensor && (p->ndim == 0 || p->in_strides[k][0] == 0);
    if (k < p->nin && !tensor) memcpy(&in[k].value, p->value[k], sizeof(T));
  }
  contiguous<K, N><<<blocks_for((p->numel + N - 1) / N), kThreads, 0, stream>>>(
      p->op, kind, p->numel, p->dst, in[0], in[1]);
  return (int)cudaGetLastError();
}

// The contiguous kernel of p's kernel dtype; -1 when the request is not for it.
int try_contiguous(const dlx_cuda_ew_params *p, cudaStream_t stream) {
  switch (p->kdtype) {
  case DLX_EWK_BOOL:
    return launch_contiguous<Ops_boolean>(p, stream);
  case DLX_EWK_INT8:
    return launch_contiguous<Ops_int8>(p, stream);
  case DLX_EWK_INT16:
    return launch_contiguous<Ops_int16>(p, stream);
  case DLX_EWK_INT32:
    return launch_contiguous<Ops_int32>(p, stream);
  case DLX_EWK_INT64:
    return launch_contiguous<Ops_int64>(p, stream);
  case DLX_EWK_UINT8:
    return launch_contiguous<Ops_uint8>(p, stream);
  case DLX_EWK_UINT16:
    return launch_contiguous<Ops_uint16>(p, stream);
  case DLX_EWK_UINT32:
    return launch_contiguous<Ops_uint32>(p, stream);
  case DLX_EWK_UINT64:
    return launch_contiguous<Ops_uint64>(p, stream);
  case DLX_EWK_FLOAT32:
    return launch_contiguous<Ops_float32>(p, stream);
  case DLX_EWK_FLOAT64:
    return launch_contiguous<Ops_float64>(p, stream);
  case DLX_EWK_COMPLEX64:
    return launch_contiguous<Ops_complex64>(p, stream);
  case DLX_EWK_COMPLEX128:
    return launch_contiguous<Ops_complex128>(p, stream);
  default:
    return -1;
  }
}

} // namespace

extern "C" int dlx_cuda_elementwise(const dlx_cuda_ew_params *p, void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  int rc = try_contiguous(p, s);
  if (rc >= 0) return rc;
  strided<<<blocks_for(p->numel), kThreads, 0, s>>>(*p);
  return (int)cudaGetLastError();
}
