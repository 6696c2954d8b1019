// image_kernels.cu -- image_op on the GPU: max and average pooling and the nearest, bilinear and
// bicubic resizes, a thread per output element (grid-stride) computing it with
// image_element.h's code over src/common/image_rules.h, the rules of the CPU's kernels. Built
// with --fmad=false (cmake/DlxCuda.cmake), so every product and sum is rounded as on the CPU and
// the max pools and resizes give its bits.
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/image_element.h"
#include "cuda/kernels.h"

namespace {

const int kThreads = 256;

unsigned grid_for(int64_t n) {
  int64_t grid = (n + kThreads - 1) / kThreads;
  return (unsigned)(grid < 65536 ? grid : 65536);
}

template <typename T>
__global__ void image_kernel(dlx_cuda_image_request r, int64_t count, const T *src, T *dst,
                             int64_t *indices) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x)
    dlx_cuda_image_element(r, i, src, dst, indices);
}

} // namespace

extern "C" int dlx_cuda_image(const dlx_cuda_image_request *r, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  int64_t count = r->planes * r->out_h * r->out_w;
  if (count == 0) return (int)cudaSuccess;
  if (r->is_double)
    image_kernel<double><<<grid_for(count), kThreads, 0, s>>>(*r, count, (const double *)r->src,
                                                              (double *)r->dst, r->indices);
  else
    image_kernel<float><<<grid_for(count), kThreads, 0, s>>>(*r, count, (const float *)r->src,
                                                             (float *)r->dst, r->indices);
  return (int)cudaGetLastError();
}
