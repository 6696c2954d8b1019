/* elementwise.cl -- the Level Zero backend's elementwise kernel, part of the module that
 * dlx_kernels.cl makes (it includes this file, after its cast helpers). One kernel serves every
 * op, dtype and layout: the host merges dims, so a contiguous operation walks one dim. Inputs
 * are cast to the kernel dtype on load and the result to dst's dtype on store with the casting
 * rules every backend shares; the op itself is the shared element function
 * (src/common/elementwise_ops.h), as on CUDA. The op and the dtypes are the same for every
 * work-item, so the switches inside take the same branch across a sub-group. */
#include "common/elementwise_ops.h"

/* Byte offsets of the element at flat row-major position i in dst (*d) and the first nin
 * inputs (x[k]). */
static void offsets(long i, __global const dlx_ze_ew_args *a, long nin, long *d, long *x) {
  long od = 0, ox[DLX_ZE_EW_INPUTS] = {0, 0, 0, 0};
  for (long k = a->ndim - 1; k >= 0; k--) {
    long q = i / a->shape[k], j = i - q * a->shape[k];
    i = q;
    od += j * a->dst_strides[k];
    for (long m = 0; m < nin; m++) ox[m] += j * a->in_strides[m][k];
  }
  *d = od;
  for (long m = 0; m < nin; m++) x[m] = ox[m];
}

/* Input k's element at byte offset off, in its kernel dtype. */
static void load_input(__global const dlx_ze_ew_args *a, int k, __global const uchar *base,
                       long off, char *out) {
  char raw[16];
  int kin = dlx_ewk_input_dtype((int)a->op, k, (int)a->kdtype);
  if (a->in_scalar[k] != 0) {
    ulong words[2] = {a->scalar[k][0], a->scalar[k][1]};
    __builtin_memcpy(out, words, 16);
  } else if (a->in_dtype[k] == kin) {
    read_bytes(out, base + off, dtype_size(kin));
  } else {
    read_bytes(raw, base + off, dtype_size(a->in_dtype[k]));
    cast_element(kin, out, a->in_dtype[k], raw);
  }
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_elementwise(__global uchar *dst, __global const uchar *in0, __global const uchar *in1,
                __global const uchar *in2, __global const uchar *in3,
                __global const dlx_ze_ew_args *a) {
  int dsize = dtype_size(a->dst_dtype);
  long nin = a->nin;
  for (long i = get_global_id(0); i < a->n; i += get_global_size(0)) {
    char x[DLX_ZE_EW_INPUTS][16], r[16], out[16];
    long od, ox[DLX_ZE_EW_INPUTS];
    offsets(i, a, nin, &od, ox);
    load_input(a, 0, in0, ox[0], x[0]);
    if (nin > 1) load_input(a, 1, in1, ox[1], x[1]);
    if (nin > 2) load_input(a, 2, in2, ox[2], x[2]);
    if (nin > 3) load_input(a, 3, in3, ox[3], x[3]);
    /* the host sent only ops the dtype has; inputs past nin are x[0], never read */
    dlx_ewk_apply_n((int)a->op, (int)a->kdtype, r, x[0], x[nin > 1 ? 1 : 0], x[nin > 2 ? 2 : 0],
                    x[nin > 3 ? 3 : 0]);
    if (a->kout == a->dst_dtype) {
      write_bytes(dst + od, r, dsize);
    } else {
      cast_element(a->dst_dtype, out, a->kout, r);
      write_bytes(dst + od, out, dsize);
    }
  }
}
