/* elementwise.c -- elementwise ops on a CUDA device: the request (operands already broadcast to
 * dst's shape by the core) becomes one launch of the kernels of elementwise_kernels.cu, with
 * dims merged where every operand allows it (the core's plan, core/plan.h: contiguous tensors
 * are one dim and take the vectorised kernel) and scalars converted on the host with the CPU's
 * rules (core/scalar.h). Ops the kernels lack are a DeviceError (core/elementwise_kernels.h). */
#include <stdbool.h>
#include <string.h>

#include "core/device.h"
#include "core/dtype.h"
#include "core/elementwise_kernels.h"
#include "core/plan.h"
#include "cuda/cuda_internal.h"
#include "cuda/kernels.h"

_Static_assert(DLX_CUDA_MAX_DIMS >= DLX_MAX_NDIM && DLX_CUDA_EW_INPUTS + 1 <= DLX_PLAN_MAX_OPS,
               "a plan fits the kernels' parameters");

/* The kernels' parameters: the core's plan over dst and the inputs (scalars and the inputs an
 * op does not have walk nothing: stride 0), in row-major order, so contiguous tensors are one
 * dim and take the vectorised kernel; scalars converted as every backend converts them. */
static int fill_params(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in,
                       dlx_dtype compute, int code, dlx_cuda_ew_params *p, dlx_error *err) {
  dlx_dtype kdtype = dlx_ewk_kernel_dtype_of(op, compute);
  dlx_plan plan;
  memset(p, 0, sizeof *p);
  p->op = code;
  p->nin = dlx_ew_arity(op);
  p->kdtype = (int)kdtype;
  p->kout = (int)dlx_ew_result_of(op, kdtype);
  p->dst_dtype = (int)dst->dtype;
  p->numel = dlx_tensor_numel(dst);
  p->dst = dlx_tensor_first_byte(dst);
  dlx_plan_start(&plan, dst->ndim, dst->shape);
  dlx_plan_add_tensor(&plan, dst);
  for (int k = 0; k < DLX_CUDA_EW_INPUTS; k++) {
    const dlx_tensor *t = k < p->nin ? in[k].tensor : NULL;
    dlx_plan_add_tensor(&plan, t);
    if (k >= p->nin) continue;
    if (t == NULL) {
      int rc = dlx_ewk_scalar_bytes(op, k, compute, &in[k].scalar, p->value[k], err);
      if (rc != 0) return rc;
      p->in_dtype[k] = dlx_ewk_input_dtype(code, k, (int)kdtype);
      continue;
    }
    p->in[k] = dlx_tensor_first_byte(t);
    p->in_dtype[k] = (int)t->dtype;
  }
  (void)dlx_plan_finish(&plan, 0); /* the core calls no backend for an empty dst */
  p->ndim = plan.ndim;
  for (int32_t d = 0; d < plan.ndim; d++) {
    p->shape[d] = plan.shape[d];
    p->dst_strides[d] = plan.strides[0][d];
    for (int k = 0; k < DLX_CUDA_EW_INPUTS; k++) p->in_strides[k][d] = plan.strides[k + 1][d];
  }
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
