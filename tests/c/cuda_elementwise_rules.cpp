// cuda_elementwise_rules.cpp -- the CUDA elementwise kernels' per-element code (src/cuda/
// elementwise_element.h over the shared element functions of src/common/elementwise_ops.h),
// compiled as host C++ for cuda_elementwise_rules.c: the same headers nvcc compiles into
// elementwise_kernels.cu, in the same language, on a machine without a GPU.
#include "cuda/elementwise_element.h"

extern "C" void cxx_ew_element(int op, int nin, int kdtype, int kout, int dst_dtype, void *dst,
                               const void *const *in, const int *in_dtype) {
  dlx_cuda_ew_op o = {op, nin, kdtype, kout, dst_dtype};
  dlx_cuda_ew_element(o, static_cast<char *>(dst), reinterpret_cast<const char *const *>(in),
                      in_dtype);
}

extern "C" int cxx_ew_vectorisable(const dlx_cuda_ew_params *p, int vector_bytes, int out_bytes) {
  return dlx_cuda_ew_vectorisable(p, vector_bytes, out_bytes);
}
