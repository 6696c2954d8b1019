/* elementwise_element.h -- one element of the CUDA elementwise kernels' strided path
 * (elementwise_kernels.cu): the inputs loaded and cast to the kernel dtype with the casting rules
 * of every backend, the op computed by the shared element functions (src/common/
 * elementwise_ops.h), the result cast to dst's dtype. The vectorised path calls the same element
 * functions on typed values.
 *
 * CUDA C++, host and device: tests/c/cuda_elementwise_rules.cpp compiles this header with the
 * host C++ compiler and checks it against the CPU backend, since a GPU is not always at hand. */
#ifndef DLX_CUDA_ELEMENTWISE_ELEMENT_H
#define DLX_CUDA_ELEMENTWISE_ELEMENT_H

#include "common/elementwise_ops.h"
#include "cuda/cast_element.h"
#include "cuda/kernels.h"

/* The element at `in` (of `dtype`) as kdtype, into out (aligned for any dtype). */
DLX_SHARED void dlx_cuda_ew_load(int kdtype, char *out, int dtype, const char *in) {
  if (dtype == kdtype)
    memcpy(out, in, (size_t)dlx_cuda_itemsize(dtype));
  else
    dlx_cuda_cast_element(kdtype, out, dtype, in);
}

/* The request's numbers an element needs (from dlx_cuda_ew_params: the kernel takes them out of
 * its parameters, whose address it must not take). */
typedef struct dlx_cuda_ew_op {
  int op, nin, kdtype, kout, dst_dtype;
} dlx_cuda_ew_op;

/* dst (o.dst_dtype) = op(in0, in1), input k of dtype in_dtype[k] (a scalar input: its bytes in
 * kdtype). in1 is not read by unary ops. */
DLX_SHARED void dlx_cuda_ew_element(dlx_cuda_ew_op o, char *dst, const char *in0, int in0_dtype,
                                    const char *in1, int in1_dtype) {
  double x[2], y[2], r[2]; /* 16 bytes, aligned for every dtype */
  dlx_cuda_ew_load(o.kdtype, (char *)x, in0_dtype, in0);
  if (o.nin == 2) dlx_cuda_ew_load(o.kdtype, (char *)y, in1_dtype, in1);
  /* the host sent only ops the kernel dtype has */
  dlx_ewk_apply(o.op, o.kdtype, (char *)r, (const char *)x, (const char *)(o.nin == 2 ? y : x));
  if (o.kout == o.dst_dtype)
    memcpy(dst, r, (size_t)dlx_cuda_itemsize(o.kout));
  else
    dlx_cuda_cast_element(o.dst_dtype, dst, o.kout, (const char *)r);
}

#endif
