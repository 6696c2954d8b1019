// copy_kernels.cu -- strided copies, the tiled transpose, casts and fills on the GPU.
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "cuda/cast_element.h"
#include "cuda/kernels.h"

namespace {

const int kThreads = 256;

// Grid-stride loops: enough blocks to fill any GPU, never more than the hardware takes.
unsigned blocks_for(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  return (unsigned)(blocks < (1 << 20) ? (blocks > 0 ? blocks : 1) : (1 << 20));
}

struct Offsets {
  int64_t dst, src;
};

__device__ Offsets offsets_of(const dlx_cuda_layout &l, int64_t i) {
  Offsets o = {0, 0};
  for (int d = l.ndim - 1; d >= 0; d--) {
    int64_t n = l.shape[d], k = i % n;
    i /= n;
    o.dst += k * l.dst_strides[d];
    o.src += k * l.src_strides[d];
  }
  return o;
}

// 16-byte elements (complex128) need only 8-byte alignment.
struct Bytes16 {
  unsigned long long lo, hi;
};

template <typename U>
__global__ void strided_copy_kernel(U *dst, const U *src, const __grid_constant__ dlx_cuda_layout l,
                                    int64_t numel) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < numel;
       i += (int64_t)gridDim.x * blockDim.x) {
    Offsets o = offsets_of(l, i);
    dst[o.dst] = src[o.src];
  }
}

template <typename U>
cudaError_t launch_strided(void *dst, const void *src, const dlx_cuda_layout *l, int64_t numel,
                           cudaStream_t s) {
  strided_copy_kernel<U>
      <<<blocks_for(numel), kThreads, 0, s>>>((U *)dst, (const U *)src, *l, numel);
  return cudaGetLastError();
}

// ---- the tiled transpose

// V elements of U in one aligned access (16 bytes for the common element sizes).
template <typename U, int V> struct alignas(sizeof(U) * V) Vec { U v[V]; };

// The offsets of batch index b over every dim but c and a = ndim - 1.
__device__ Offsets batch_offsets(const dlx_cuda_layout &l, int c, int64_t b) {
  Offsets o = {0, 0};
  for (int d = l.ndim - 2; d >= 0; d--) {
    if (d == c) continue;
    int64_t n = l.shape[d], k = b % n;
    b /= n;
    o.dst += k * l.dst_strides[d];
    o.src += k * l.src_strides[d];
  }
  return o;
}

// One block moves a T x T tile: it reads T rows of src along c (src's contiguous dim), V
// elements a thread, into shared memory, then writes T rows of dst along a (dst's contiguous
// dim). The tile's rows are padded by one element so that the column walk of the second phase
// spreads over the banks instead of hitting one. Blocks are (T / V) x 8 threads.
template <typename U, int T, int V>
__global__ void transpose_kernel(U *dst, const U *src, const __grid_constant__ dlx_cuda_layout l,
                                 int c, int64_t batch) {
  __shared__ U tile[T][T + 1];
  const int a = l.ndim - 1;
  const int64_t n_a = l.shape[a], n_c = l.shape[c];
  const int64_t src_a = l.src_strides[a], dst_c = l.dst_strides[c];
  const int64_t c0 = (int64_t)blockIdx.x * T;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
    Offsets base = batch_offsets(l, c, b);
    for (int64_t a0 = (int64_t)blockIdx.y * T; a0 < n_a; a0 += (int64_t)gridDim.y * T) {
      for (int r = ty; r < T; r += 8) {
        int64_t ai = a0 + r, ci = c0 + tx * V;
        if (ai >= n_a) break;
        const U *row = src + base.src + ai * src_a;
        if (V > 1 && ci + V <= n_c) {
          Vec<U, V> v = *(const Vec<U, V> *)(row + ci);
          for (int k = 0; k < V; k++) tile[r][tx * V + k] = v.v[k];
        } else {
          for (int k = 0; k < V && ci + k < n_c; k++) tile[r][tx * V + k] = row[ci + k];
        }
      }
      __syncthreads();
      for (int r = ty; r < T; r += 8) {
        int64_t ci = c0 + r, ai = a0 + tx * V;
        if (ci >= n_c) break;
        U *row = dst + base.dst + ci * dst_c;
        if (V > 1 && ai + V <= n_a) {
          Vec<U, V> v;
          for (int k = 0; k < V; k++) v.v[k] = tile[tx * V + k][r];
          *(Vec<U, V> *)(row + ai) = v;
        } else {
          for (int k = 0; k < V && ai + k < n_a; k++) row[ai + k] = tile[tx * V + k][r];
        }
      }
      __syncthreads();
    }
  }
}

bool aligned(const void *p, int bytes) { return ((uintptr_t)p % (uintptr_t)bytes) == 0; }

// Vector accesses need every row start aligned: the bases, and every stride but the
// contiguous one of each side, must be multiples of V elements.
bool vector_ok(const void *dst, const void *src, const dlx_cuda_layout *l, int c, int elem_size,
               int V) {
  const int a = l->ndim - 1;
  if (!aligned(dst, elem_size * V) || !aligned(src, elem_size * V)) return false;
  for (int d = 0; d < l->ndim; d++) {
    if (d != c && l->src_strides[d] % V != 0) return false;
    if (d != a && l->dst_strides[d] % V != 0) return false;
  }
  return true;
}

template <typename U, int T, int V>
cudaError_t launch_transpose(void *dst, const void *src, const dlx_cuda_layout *l, int c,
                             cudaStream_t s) {
  int64_t batch = 1;
  for (int d = 0; d < l->ndim - 1; d++)
    if (d != c) batch *= l->shape[d];
  int64_t tiles_c = (l->shape[c] + T - 1) / T, tiles_a = (l->shape[l->ndim - 1] + T - 1) / T;
  if (tiles_c > 0x7fffffff) return cudaErrorInvalidValue;
  dim3 grid((unsigned)tiles_c, (unsigned)(tiles_a < 65535 ? tiles_a : 65535),
            (unsigned)(batch < 65535 ? batch : 65535));
  dim3 block(T / V, 8);
  transpose_kernel<U, T, V><<<grid, block, 0, s>>>((U *)dst, (const U *)src, *l, c, batch);
  return cudaGetLastError();
}

template <typename U, int T, int V>
cudaError_t transpose_sized(void *dst, const void *src, const dlx_cuda_layout *l, int c,
                            int elem_size, cudaStream_t s) {
  if (vector_ok(dst, src, l, c, elem_size, V)) return launch_transpose<U, T, V>(dst, src, l, c, s);
  return launch_transpose<U, 32, 1>(dst, src, l, c, s);
}

// ---- casts: each element loaded into its class and converted once (cuda/cast_element.h)

__global__ void cast_kernel(char *dst, int dst_dtype, const char *src, int src_dtype,
                            const __grid_constant__ dlx_cuda_layout l, int64_t numel) {
  const int dsize = dlx_cuda_itemsize(dst_dtype), ssize = dlx_cuda_itemsize(src_dtype);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < numel;
       i += (int64_t)gridDim.x * blockDim.x) {
    Offsets o = offsets_of(l, i);
    dlx_cuda_cast_element(dst_dtype, dst + o.dst * dsize, src_dtype, src + o.src * ssize);
  }
}

template <typename U>
__global__ void fill_kernel(U *dst, const __grid_constant__ dlx_cuda_layout l, int64_t numel,
                            U value) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < numel;
       i += (int64_t)gridDim.x * blockDim.x)
    dst[offsets_of(l, i).dst] = value;
}

template <typename U>
cudaError_t launch_fill(void *dst, const dlx_cuda_layout *l, int64_t numel, const void *pattern,
                        cudaStream_t s) {
  U value;
  memcpy(&value, pattern, sizeof value);
  fill_kernel<U><<<blocks_for(numel), kThreads, 0, s>>>((U *)dst, *l, numel, value);
  return cudaGetLastError();
}

// f(unit) for a value of the element type of elem_size bytes (1, 2, 4, 8 or 16): the kernels
// that move elements whole, whatever they hold.
template <typename F> cudaError_t by_size(int elem_size, F f) {
  switch (elem_size) {
  case 1:
    return f((unsigned char)0);
  case 2:
    return f((unsigned short)0);
  case 4:
    return f(0u);
  case 8:
    return f(0ull);
  case 16:
    return f(Bytes16{});
  default:
    return cudaErrorInvalidValue;
  }
}

__global__ void spin_kernel(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

} // namespace

extern "C" int dlx_cuda_strided_copy(void *dst, const void *src, const dlx_cuda_layout *layout,
                                     int64_t numel, int elem_size, void *stream) {
  return by_size(elem_size, [&](auto unit) {
    return launch_strided<decltype(unit)>(dst, src, layout, numel, (cudaStream_t)stream);
  });
}

extern "C" int dlx_cuda_transpose_copy(void *dst, const void *src, const dlx_cuda_layout *layout,
                                       int32_t c, int elem_size, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  switch (elem_size) {
  case 1:
    return transpose_sized<unsigned char, 64, 4>(dst, src, layout, c, 1, s);
  case 2:
    return transpose_sized<unsigned short, 64, 4>(dst, src, layout, c, 2, s);
  case 4:
    return transpose_sized<unsigned, 64, 4>(dst, src, layout, c, 4, s);
  case 8:
    return transpose_sized<unsigned long long, 32, 2>(dst, src, layout, c, 8, s);
  case 16:
    return launch_transpose<Bytes16, 32, 1>(dst, src, layout, c, s);
  default:
    return cudaErrorInvalidValue;
  }
}

extern "C" int dlx_cuda_cast_copy(void *dst, int dst_dtype, const void *src, int src_dtype,
                                  const dlx_cuda_layout *layout, int64_t numel, void *stream) {
  cast_kernel<<<blocks_for(numel), kThreads, 0, (cudaStream_t)stream>>>(
      (char *)dst, dst_dtype, (const char *)src, src_dtype, *layout, numel);
  return cudaGetLastError();
}

extern "C" int dlx_cuda_fill(void *dst, const dlx_cuda_layout *layout, int64_t numel,
                             const void *pattern, int elem_size, void *stream) {
  return by_size(elem_size, [&](auto unit) {
    return launch_fill<decltype(unit)>(dst, layout, numel, pattern, (cudaStream_t)stream);
  });
}

extern "C" int dlx_cuda_spin(int64_t cycles, void *stream) {
  spin_kernel<<<1, 1, 0, (cudaStream_t)stream>>>((long long)cycles);
  return cudaGetLastError();
}
