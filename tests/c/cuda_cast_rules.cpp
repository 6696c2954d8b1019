// cuda_cast_rules.cpp -- the CUDA cast kernel's per-element code (src/cuda/cast_element.h, over
// the shared rules of src/common), compiled as host C++ for cuda_cast_rules.c: the same header
// nvcc compiles into copy_kernels.cu, in the same language, on a machine without a GPU.
#include "cuda/cast_element.h"

extern "C" void cxx_cast_element(int dst_dtype, void *out, int src_dtype, const void *in) {
  dlx_cuda_cast_element(dst_dtype, static_cast<char *>(out), src_dtype,
                        static_cast<const char *>(in));
}
