/* ze_image.c -- the Level Zero backend's image_op: pooling and resizing, a work-item per output
 * element (the kernel dlx_image, src/ze/kernels/image.cl). */
#include <string.h>

#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

_Static_assert(DLX_ZE_IMAGE_MAX_POOL == DLX_IMAGE_MAX_POOL &&
                   DLX_ZE_IMAGE_AVG_POOL == DLX_IMAGE_AVG_POOL &&
                   DLX_ZE_IMAGE_NEAREST == DLX_IMAGE_NEAREST &&
                   DLX_ZE_IMAGE_BILINEAR == DLX_IMAGE_BILINEAR &&
                   DLX_ZE_IMAGE_BICUBIC == DLX_IMAGE_BICUBIC,
               "the kernel's numbers of the image ops must be dlx_image_op's");

int dlx_ze_image_op(const dlx_image_request *r, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(r->src);
  dlx_ze_image_args a;
  int rc;
  memset(&a, 0, sizeof a);
  a.op = r->op;
  a.is_double = r->src->dtype == DLX_FLOAT64;
  a.has_indices = r->indices != NULL;
  a.planes = r->src->shape[0];
  a.in_h = r->src->shape[1];
  a.in_w = r->src->shape[2];
  a.out_h = r->dst->shape[1];
  a.out_w = r->dst->shape[2];
  for (int d = 0; d < 2; d++) {
    a.size[d] = r->kernel[d];
    a.stride[d] = r->stride[d];
    a.padding[d] = r->padding[d];
    a.dilation[d] = r->dilation[d];
    a.scale[d] = r->scale[d];
  }
  a.count_include_pad = r->count_include_pad;
  a.divisor = r->divisor;
  a.align_corners = r->align_corners;
  {
    /* without indices the kernel does not touch the pointer */
    void *dst = dlx_ze_first_element(r->dst);
    void *const ptrs[3] = {dst, r->indices != NULL ? dlx_ze_first_element(r->indices) : dst,
                           dlx_ze_first_element(r->src)};
    pthread_mutex_lock(&dev->lock);
    rc = dlx_ze_launch(dev, DLX_ZE_IMAGE, dlx_ze_groups_for(a.planes * a.out_h * a.out_w), &a,
                       sizeof a, ptrs, 3, err);
    pthread_mutex_unlock(&dev->lock);
  }
  return rc;
}
