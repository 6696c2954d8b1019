/* image.h -- 2-d pooling and resizing (dlx.max_pool2d, dlx.avg_pool2d, dlx.interpolate) through
 * the backends' image_op (core/backend.h). The Lua layer reads the options and computes the
 * output sizes (lua/dlx/image.lua); the core checks the request again and lays it out. */
#ifndef DLX_CORE_IMAGE_H
#define DLX_CORE_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/tensor.h"

/* The op's name in messages ("max_pool2d", ..., "interpolate"). */
const char *dlx_image_op_name(dlx_image_op op);

/* PyTorch's pooling output size of a dim of size in (ceil_mode: the last window may run past
 * the end, but starts inside the input or its left padding); <= 0 when no window fits. */
int64_t dlx_pool_out_size(int64_t in, int64_t kernel, int64_t stride, int64_t padding,
                          int64_t dilation, bool ceil_mode);

/* Whether the device of src has the entry (else the Lua layer composes the op). */
bool dlx_image_op_available(const dlx_tensor *src);

/* out (and *indices, for MAX_POOL when indices is not NULL) of shape [planes, out_h, out_w]
 * from src [planes, h, w] (any strides) as req says (its src, dst and indices are set here).
 * TypeError unless src is float32 or float64; ValueError for a bad parameter or an output
 * size other than the pooling's; DeviceError for a device without image_op. */
int dlx_image(dlx_tensor *out, dlx_tensor *indices, dlx_image_request *req, const dlx_tensor *src,
              int64_t out_h, int64_t out_w, dlx_error *err);

#endif
