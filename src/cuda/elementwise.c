/* elementwise.c -- elementwise ops on a CUDA device: the request (operands already broadcast to
 * dst's shape by the core) becomes one launch of the kernels of elementwise_kernels.cu, with
 * dims merged where every operand allows it (so contiguous tensors are one dim and take the
 * vectorised kernel) and scalars converted on the host with the CPU's rules. Ops the kernels
 * lack are a DeviceError (common/elementwise_host.h). */
#include <string.h>

#include "common/elementwise_host.h"
#include "core/device.h"
#include "core/dtype.h"
#include "cuda/cuda_internal.h"
#include "cuda/kernels.h"

static void *element0(const dlx_tensor *t) {
  return (char *)t->buffer->data + t->offset * dlx_dtype_bits(t->dtype) / 8;
}

/* The value as kdtype's bytes, cast with the CPU backend's rules. */
static int scalar_bytes(dlx_dtype kdtype, const dlx_scalar *value, double out[2], dlx_error *err) {
  DLDevice cpu = {kDLCPU, 0};
  dlx_tensor one;
  int rc = dlx_tensor_empty(&one, NULL, 0, kdtype, cpu, err);
  if (rc != 0) return rc;
  rc = dlx_cpu_backend.fill(&one, value, err);
  memset(out, 0, 2 * sizeof *out);
  if (rc == 0) memcpy(out, one.buffer->data, (size_t)dlx_itemsize(kdtype));
  dlx_tensor_close(&one);
  return rc;
}

/* Drops size-1 dims and merges neighbours contiguous in dst and both inputs (element strides). */
static int32_t merge_dims(dlx_cuda_ew_params *p, int32_t ndim) {
  int32_t n = 0;
  for (int32_t d = 0; d < ndim; d++) {
    int64_t size = p->shape[d];
    if (size == 1) continue;
    if (n > 0 && p->dst_strides[n - 1] == p->dst_strides[d] * size &&
        p->in_strides[0][n - 1] == p->in_strides[0][d] * size &&
        p->in_strides[1][n - 1] == p->in_strides[1][d] * size) {
      p->shape[n - 1] *= size;
      p->dst_strides[n - 1] = p->dst_strides[d];
      p->in_strides[0][n - 1] = p->in_strides[0][d];
      p->in_strides[1][n - 1] = p->in_strides[1][d];
      continue;
    }
    p->shape[n] = size;
    p->dst_strides[n] = p->dst_strides[d];
    p->in_strides[0][n] = p->in_strides[0][d];
    p->in_strides[1][n] = p->in_strides[1][d];
    n++;
  }
  return n;
}

static int fill_params(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in, dlx_dtype kdtype,
                       int code, dlx_cuda_ew_params *p, dlx_error *err) {
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
      int rc = scalar_bytes(kdtype, &in[k].scalar, p->value[k], err);
      if (rc != 0) return rc;
      p->in_dtype[k] = (int)kdtype;
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
  dlx_dtype kdtype = dlx_ewk_kernel_dtype(compute);
  dlx_cuda_ew_params p;
  dlx_cuda_guard guard;
  char name[48];
  int code, status;
  int rc = dlx_ewk_check(op, kdtype, dlx_device_format(dst->buffer->device, name, sizeof name),
                         &code, err);
  if (rc == 0) rc = fill_params(op, dst, in, kdtype, code, &p, err);
  if (rc == 0) rc = dlx_cuda_enter(device_id, &guard, err);
  if (rc != 0) return rc;
  status = dlx_cuda_elementwise(&p, dlx_cuda_current_stream(device_id));
  dlx_cuda_leave(&guard);
  return status == cudaSuccess ? 0
                               : dlx_cuda_fail(err, (cudaError_t)status, "an elementwise kernel");
}
