/* image.c -- checks, layout and dispatch of pooling and resizing (see image.h). */
#include "core/image.h"

#include "core/device.h"
#include "core/ops.h"

const char *dlx_image_op_name(dlx_image_op op) {
  static const char *const names[] = {"max_pool2d", "avg_pool2d", "interpolate", "interpolate",
                                      "interpolate"};
  return names[op];
}

static bool is_pool(dlx_image_op op) {
  return op == DLX_IMAGE_MAX_POOL || op == DLX_IMAGE_AVG_POOL;
}

/* a / b rounded toward negative infinity (b > 0). */
static int64_t div_floor(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

int64_t dlx_pool_out_size(int64_t in, int64_t kernel, int64_t stride, int64_t padding,
                          int64_t dilation, bool ceil_mode) {
  int64_t out =
      div_floor(in + 2 * padding - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0),
                stride) +
      1;
  if (ceil_mode && (out - 1) * stride >= in + padding) out--;
  return out;
}

/* Whether the backend that computes on src's memory has the entry (every built-in one does). */
static bool image_op_available(const dlx_tensor *src) {
  const dlx_backend *backend = dlx_compute_backend(src->buffer);
  return backend != NULL && backend->image_op != NULL;
}

static int check_pool(const dlx_image_request *req, const dlx_tensor *src, int64_t out_h,
                      int64_t out_w, dlx_error *err) {
  const char *name = dlx_image_op_name(req->op);
  int64_t out[2] = {out_h, out_w};
  for (int d = 0; d < 2; d++) {
    if (req->kernel[d] < 1 || req->stride[d] < 1 || req->dilation[d] < 1 || req->padding[d] < 0)
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "%s: kernel_size, stride and dilation must be >= 1 and padding >= 0", name);
    if (req->padding[d] > req->kernel[d] / 2)
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "%s: padding %lld must be at most half the kernel size %lld", name,
                      (long long)req->padding[d], (long long)req->kernel[d]);
    if (out[d] != dlx_pool_out_size(src->shape[1 + d], req->kernel[d], req->stride[d],
                                    req->padding[d], req->dilation[d], false) &&
        out[d] != dlx_pool_out_size(src->shape[1 + d], req->kernel[d], req->stride[d],
                                    req->padding[d], req->dilation[d], true))
      return dlx_fail(err, DLX_VALUE_ERROR, "%s: output size %lld does not fit the input", name,
                      (long long)out[d]);
  }
  if (req->op == DLX_IMAGE_AVG_POOL && req->divisor < 0)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: divisor_override must be positive", name);
  return 0;
}

static int check(const dlx_image_request *req, const dlx_tensor *src, int64_t out_h, int64_t out_w,
                 dlx_error *err) {
  const char *name = dlx_image_op_name(req->op);
  char device[48];
  int rc = dlx_buffer_check(src->buffer, err);
  if (rc != 0) return rc;
  if (src->dtype != DLX_FLOAT32 && src->dtype != DLX_FLOAT64)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: dtype %s is not supported (float32 or float64)", name,
                    dlx_dtype_info_of(src->dtype)->name);
  if (src->ndim != 3 || src->shape[1] < 1 || src->shape[2] < 1)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: expected planes of at least 1 x 1 elements", name);
  if (out_h < 1 || out_w < 1)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: output size %lld x %lld is empty", name,
                    (long long)out_h, (long long)out_w);
  if (!image_op_available(src))
    return dlx_fail(err, DLX_DEVICE_ERROR, "%s has no kernel on %s", name,
                    dlx_device_format(src->buffer->device, device, sizeof device));
  return is_pool(req->op) ? check_pool(req, src, out_h, out_w, err) : 0;
}

int dlx_image(dlx_tensor *out, dlx_tensor *indices, dlx_image_request *req, const dlx_tensor *src,
              int64_t out_h, int64_t out_w, dlx_error *err) {
  int64_t shape[3] = {src->shape[0], out_h, out_w};
  dlx_tensor plain;
  const dlx_backend *backend;
  bool want_indices = indices != NULL && req->op == DLX_IMAGE_MAX_POOL;
  int rc = check(req, src, out_h, out_w, err);
  if (rc != 0) return rc;
  rc = dlx_empty_on(out, src, shape, 3, src->dtype, err);
  if (rc != 0) return rc;
  if (want_indices) {
    rc = dlx_empty_on(indices, src, shape, 3, DLX_INT64, err);
    if (rc != 0) {
      dlx_tensor_close(out);
      return rc;
    }
  }
  if (dlx_tensor_numel(out) == 0) return 0;
  if (dlx_tensor_is_contiguous(src))
    dlx_tensor_share(&plain, src);
  else
    rc = dlx_clone_as_memory(&plain, src, src->dtype, src->buffer->device, dlx_tensor_memory(src),
                             err);
  if (rc == 0) rc = dlx_compute_on(&plain, &backend, err);
  if (rc == 0) {
    req->src = &plain;
    req->dst = out;
    req->indices = want_indices ? indices : NULL;
    rc = backend->image_op(req, err);
    dlx_tensor_close(&plain);
  }
  if (rc != 0) {
    dlx_tensor_close(out);
    if (want_indices) dlx_tensor_close(indices);
  }
  return rc;
}
