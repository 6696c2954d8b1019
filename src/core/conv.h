/* conv.h -- convolutions (PyTorch's conv1d, conv2d and conv3d; NumPy's convolve and correlate are
 * built on them in lua/dlx/conv.lua), composed in the core of entries every device has: the
 * padding is a copy into a zeroed tensor, the im2col columns a strided view copied contiguous,
 * the product the matmul entry (with the bias as its added term). Dims are 0-based here. */
#ifndef DLX_CORE_CONV_H
#define DLX_CORE_CONV_H

#include <stdint.h>

#include "core/error.h"
#include "core/tensor.h"

#define DLX_CONV_MAX_SPATIAL 3

typedef struct dlx_conv_args {
  const char *name;         /* for messages: "conv2d", "convolve", ... */
  const dlx_tensor *input;  /* (N, C, spatial...), batched */
  const dlx_tensor *weight; /* (C_out, C / groups, kernel...) */
  const dlx_tensor *bias;   /* NULL or (C_out) */
  int32_t nspatial;         /* 1 to DLX_CONV_MAX_SPATIAL */
  int64_t stride[DLX_CONV_MAX_SPATIAL];
  int64_t pad_lo[DLX_CONV_MAX_SPATIAL]; /* zeros before each spatial dim */
  int64_t pad_hi[DLX_CONV_MAX_SPATIAL]; /* and after it */
  int64_t dilation[DLX_CONV_MAX_SPATIAL];
  int64_t groups;
} dlx_conv_args;

/* *out = a new C-contiguous (N, C_out, out...) tensor on the input's device, PyTorch's
 * cross-correlation: out[n, o, p] = bias[o] + sum over c of the group of o and kernel offsets q
 * of input_padded[n, c, p * stride + q * dilation] * weight[o, c, q], with
 * out size = (in + pad_lo + pad_hi - dilation * (k - 1) - 1) / stride + 1 per spatial dim.
 * The dtype is the promotion of input, weight and bias; the sums are the matmul entry's.
 * ValueError for dims, channel or group counts that do not fit (PyTorch's messages), a stride,
 * dilation or groups below 1, a negative padding or a kernel larger than the padded input;
 * TypeError for storage-only dtypes; DeviceError for tensors on different devices. */
int dlx_conv(dlx_tensor *out, const dlx_conv_args *args, dlx_error *err);

#endif
