/* ze_elementwise.c -- the Level Zero backend's elementwise ops: one kernel for every op, dtype and
 * layout (src/ze/kernels/elementwise.cl) over the core's plan of dst and the inputs (row-major,
 * dims merged where every operand allows, so a contiguous operation walks one dim). The inputs
 * are cast to their kernel dtype as they are loaded, scalars travel in the argument block,
 * converted on the host as every backend converts them (core/scalar.h), and the result is cast
 * to dst's dtype as it is stored. Ops the kernel lacks are a DeviceError
 * (core/elementwise_kernels.h). */
#include <string.h>

#include "core/device.h"
#include "core/elementwise_kernels.h"
#include "core/plan.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

_Static_assert(DLX_ZE_EW_INPUTS + 1 <= DLX_PLAN_MAX_OPS, "a plan holds dst and every input");

/* The kernel's walk in bytes: inputs that are scalars, or that the op does not have, walk
 * nothing (stride 0). */
static void set_walk(dlx_ze_ew_args *a, const dlx_tensor *dst, const dlx_operand *in) {
  int64_t sizes[1 + DLX_ZE_EW_INPUTS] = {dlx_itemsize(dst->dtype)};
  int64_t *strides[1 + DLX_ZE_EW_INPUTS] = {a->dst_strides};
  dlx_plan p;
  dlx_plan_start(&p, dst->ndim, dst->shape);
  dlx_plan_add_tensor(&p, dst);
  for (int k = 0; k < DLX_ZE_EW_INPUTS; k++) {
    const dlx_tensor *t = k < a->nin ? in[k].tensor : NULL;
    dlx_plan_add_tensor(&p, t);
    sizes[k + 1] = t != NULL ? dlx_itemsize(t->dtype) : 0;
    strides[k + 1] = a->in_strides[k];
  }
  (void)dlx_plan_finish(&p, 0); /* the core calls no backend for an empty dst */
  a->ndim = dlx_ze_put_walk(&p, a->shape, strides, sizes);
}

int dlx_ze_elementwise(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in,
                       dlx_dtype compute, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(dst);
  dlx_ze_ew_args a;
  dlx_dtype kdtype = dlx_ewk_kernel_dtype_of(op, compute);
  /* unread pointers: the block */
  void *ptrs[1 + DLX_ZE_EW_INPUTS] = {dlx_ze_first_element(dst), dev->args, dev->args, dev->args,
                                      dev->args};
  char name[48];
  int code, rc = dlx_ewk_check(
                op, kdtype, dlx_device_format(dst->buffer->device, name, sizeof name), &code, err);
  if (rc != 0) return rc;
  memset(&a, 0, sizeof a);
  a.n = dlx_tensor_numel(dst);
  a.op = code;
  a.nin = dlx_ew_arity(op);
  a.kdtype = kdtype;
  a.kout = dlx_ew_result_of(op, kdtype);
  a.dst_dtype = dst->dtype;
  for (int k = 0; k < a.nin; k++) {
    const dlx_tensor *t = in[k].tensor;
    a.in_dtype[k] = t != NULL ? (int)t->dtype : dlx_ewk_input_dtype(code, k, (int)kdtype);
    a.in_scalar[k] = t == NULL;
    if (t == NULL) rc = dlx_ewk_scalar_bytes(op, k, compute, &in[k].scalar, a.scalar[k], err);
    if (rc != 0) return rc;
    if (t != NULL) ptrs[k + 1] = dlx_ze_first_element(t);
  }
  set_walk(&a, dst, in);
  pthread_mutex_lock(&dev->lock);
  rc = dlx_ze_launch(dev, DLX_ZE_ELEMENTWISE, dlx_ze_groups_for(a.n), &a, sizeof a, ptrs,
                     1 + DLX_ZE_EW_INPUTS, err);
  pthread_mutex_unlock(&dev->lock);
  return rc;
}
