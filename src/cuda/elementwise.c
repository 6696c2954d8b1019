/* elementwise.c -- elementwise ops on a CUDA device: the request (operands already broadcast to
 * dst's shape by the core) becomes one launch of the kernels of elementwise_kernels.cu, with
 * dims merged where every operand allows it (so contiguous tensors are one dim and take the
 * vectorised kernel) and scalars converted on the host with the CPU's rules. Ops the kernels
 * lack are a DeviceError (core/elementwise_kernels.h). */
#include <stdbool.h>
#include <string.h>

#include "core/device.h"
#include "core/dtype.h"
#include "core/elementwise_kernels.h"
#include "cuda/cuda_internal.h"
#include "cuda/kernels.h"

static void *element0(const dlx_tensor *t) {
  return (char *)t->buffer->data + t->offset * dlx_dtype_bits(t->dtype) / 8;
}

/* Whether dim d can join dim n - 1 of every input (contiguous in each). */
static bool inputs_merge(const dlx_cuda_ew_params *p, int32_t n, int32_t d, int64_t size) {
  for (int k = 0; k < DLX_CUDA_EW_INPUTS; k++)
    if (p->in_strides[k][n - 1] != p->in_strides[k][d] * size) return false;
  return true;
}

/* Drops size-1 dims and merges neighbours contiguous in dst and every input (element strides). */
static int32_t merge_dims(dlx_cuda_ew_params *p, int32_t ndim) {
  int32_t n = 0;
  for (int32_t d = 0; d < ndim; d++) {
    int64_t size = p->shape[d];
    if (size == 1) continue;
    if (n > 0 && p->dst_strides[n - 1] == p->dst_strides[d] * size && inputs_merge(p, n, d, size)) {
      p->shape[n - 1] *= size;
    } else {
      p->shape[n] = size;
      n++;
    }
    p->dst_strides[n - 1] = p->dst_strides[d];
    for (int k = 0; k < DLX_CUDA_EW_INPUTS; k++) p->in_strides[k][n - 1] = p->in_strides[k][d];
  }
  return n;
}

static int fill_params(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in,
                       dlx_dtype compute, int code, dlx_cuda_ew_params *p, dlx_error *err) {
  dlx_dtype kdtype = dlx_ewk_kernel_dtype_of(op, compute);
  memset(p, 0, sizeof *p);
  p->op = code;
  p->nin = dlx_ew_arity(op);
  p->kdtype = (int)kdtype;
  p->kout = (int)dlx_ew_result_of(op, kdtype);
  p->dst_dtype = (int)dst->dtype;
  p->numel = dlx_tensor_numel(dst);
  p->dst = element0(dst);
  for (int32_t d = 0; d < dst->ndim; d++) {
    p->shape[d] = dst->shape[d];
    p->dst_strides[d] = dst->strides[d];
  }
  for (int k = 0; k < p->nin; k++) {
    const dlx_tensor *t = in[k].tensor;
    if (t == NULL) {
      int rc = dlx_ewk_scalar_bytes(op, k, compute, &in[k].scalar, p->value[k], err);
      if (rc != 0) return rc;
      p->in_dtype[k] = dlx_ewk_input_dtype(code, k, (int)kdtype);
      continue;
    }
    p->in[k] = element0(t);
    p->in_dtype[k] = (int)t->dtype;
    for (int32_t d = 0; d < dst->ndim; d++) p->in_strides[k][d] = t->strides[d];
  }
  p->ndim = merge_dims(p, dst->ndim);
  return 0;
}

int dlx_cuda_elementwise_tensor(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in,
                                dlx_dtype compute, dlx_error *err) {
  int32_t device_id = dst->buffer->device.device_id;
  dlx_dtype kdtype = dlx_ewk_kernel_dtype_of(op, compute);
  dlx_cuda_ew_params p;
  dlx_cuda_guard guard;
  char name[48];
  int code, status;
  int rc = dlx_ewk_check(op, kdtype, dlx_device_format(dst->buffer->device, name, sizeof name),
                         &code, err);
  if (rc == 0) rc = fill_params(op, dst, in, compute, code, &p, err);
  if (rc == 0) rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = dlx_cuda_elementwise(&p, dlx_cuda_current_stream(device_id));
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0
                               : dlx_cuda_fail(err, (cudaError_t)status, "an elementwise kernel");
}
