/* elementwise.cl -- the Level Zero backend's elementwise kernel, part of the module that
 * dlx_kernels.cl makes (it includes this file, after its cast helpers). One kernel serves every
 * op, dtype and layout: the host merges dims, so a contiguous operation walks one dim. Inputs
 * are cast to the kernel dtype on load and the result to dst's dtype on store with the casting
 * rules every backend shares; the op itself is the shared element function
 * (src/common/elementwise_ops.h), as on CUDA. The op and the dtypes are the same for every
 * work-item, so the switches inside take the same branch across a sub-group. */
#include "common/elementwise_ops.h"

/* Byte offsets of the element at flat row-major position i in dst and both inputs. */
static void offsets3(long i, __global const dlx_ze_ew_args *a, long *d, long *x, long *y) {
  long od = 0, ox = 0, oy = 0;
  for (long k = a->ndim - 1; k >= 0; k--) {
    long q = i / a->shape[k], j = i - q * a->shape[k];
    i = q;
    od += j * a->dst_strides[k];
    ox += j * a->in_strides[0][k];
    oy += j * a->in_strides[1][k];
  }
  *d = od;
  *x = ox;
  *y = oy;
}

/* Input k's element at byte offset off, in the kernel dtype. */
static void load_input(__global const dlx_ze_ew_args *a, int k, __global const uchar *base,
                       long off, char *out) {
  char raw[16];
  if (a->in_scalar[k] != 0) {
    ulong words[2] = {a->scalar[k][0], a->scalar[k][1]};
    __builtin_memcpy(out, words, 16);
  } else if (a->in_dtype[k] == a->kdtype) {
    read_bytes(out, base + off, dtype_size(a->kdtype));
  } else {
    read_bytes(raw, base + off, dtype_size(a->in_dtype[k]));
    cast_element(a->kdtype, out, a->in_dtype[k], raw);
  }
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_elementwise(__global uchar *dst, __global const uchar *in0, __global const uchar *in1,
                __global const dlx_ze_ew_args *a) {
  int dsize = dtype_size(a->dst_dtype);
  for (long i = get_global_id(0); i < a->n; i += get_global_size(0)) {
    char x[16], y[16], r[16], out[16];
    long od, ox, oy;
    offsets3(i, a, &od, &ox, &oy);
    load_input(a, 0, in0, ox, x);
    if (a->nin == 2) load_input(a, 1, in1, oy, y);
    /* the host sent only ops the dtype has (unary ones read x twice, never y) */
    dlx_ewk_apply((int)a->op, (int)a->kdtype, r, x, a->nin == 2 ? y : x);
    if (a->kout == a->dst_dtype) {
      write_bytes(dst + od, r, dsize);
    } else {
      cast_element(a->dst_dtype, out, a->kout, r);
      write_bytes(dst + od, out, dsize);
    }
  }
}
