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

/* dst (o.dst_dtype) = op(in[0], ..) over the op's o.nin inputs, input k of dtype in_dtype[k] (a
 * scalar input: its bytes in its kernel dtype). Inputs past o.nin are not read. */
DLX_SHARED void dlx_cuda_ew_element(dlx_cuda_ew_op o, char *dst, const char *const *in,
                                    const int *in_dtype) {
  double x[DLX_CUDA_EW_INPUTS][2], r[2]; /* 16 bytes each, aligned for every dtype */
  for (int k = 0; k < o.nin; k++)
    dlx_cuda_ew_load(dlx_ewk_input_dtype(o.op, k, o.kdtype), (char *)x[k], in_dtype[k], in[k]);
  /* the host sent only ops the kernel dtype has */
  dlx_ewk_apply_n(o.op, o.kdtype, (char *)r, (const char *)x[0], (const char *)x[o.nin > 1 ? 1 : 0],
                  (const char *)x[o.nin > 2 ? 2 : 0], (const char *)x[o.nin > 3 ? 3 : 0]);
  if (o.kout == o.dst_dtype)
    memcpy(dst, r, (size_t)dlx_cuda_itemsize(o.kout));
  else
    dlx_cuda_cast_element(o.dst_dtype, dst, o.kout, (const char *)r);
}

/* Whether a request takes the vectorised kernel of elementwise_kernels.cu: two inputs at most,
 * each of the kernel dtype, the result of dst's dtype, and one dim (the plan merged the
 * contiguous ones) of stride 1 in dst and 1 or 0 (a tensor broadcast whole, read once) in each
 * input, the data aligned for vectors of vector_bytes (inputs) and out_bytes (dst). A negative
 * stride (a flipped view) walks the other way: the strided kernel's. */
DLX_SHARED int dlx_cuda_ew_vectorisable(const dlx_cuda_ew_params *p, int vector_bytes,
                                        int out_bytes) {
  if (p->nin > 2 || p->kout != p->dst_dtype || p->ndim > 1) return 0;
  if (p->ndim == 1 && p->dst_strides[0] != 1) return 0;
  if ((uintptr_t)p->dst % (uintptr_t)out_bytes != 0) return 0;
  for (int k = 0; k < p->nin; k++) {
    if (p->in[k] == NULL) continue;
    if (p->in_dtype[k] != p->kdtype) return 0;
    int single = p->ndim == 0 || p->in_strides[k][0] == 0;
    if (!single && p->in_strides[k][0] != 1) return 0;
    if (!single && (uintptr_t)p->in[k] % (uintptr_t)vector_bytes != 0) return 0;
  }
  return 1;
}

#endif
