/* random_element.h -- one Philox block of a fill_random request on a CUDA device: the block's
 * elements converted by src/common/philox.h and stored as the dtype. Host and device code alike
 * (DLX_SHARED), so the host-compiled test (tests/c/cuda_random_rules) checks it against the CPU
 * without a GPU. */
#ifndef DLX_CUDA_RANDOM_ELEMENT_H
#define DLX_CUDA_RANDOM_ELEMENT_H

#include "common/convert.h"
#include "common/philox.h"
#include "cuda/kernels.h"

/* Stores the value of element e (of the block b, lane lane) into r->dst. */
DLX_SHARED void dlx_cuda_random_store(const dlx_cuda_random_request *r, dlx_philox_block b,
                                      int lane, int64_t e) {
  char *p = (char *)r->dst;
  if (r->kind == DLX_RNG_INT) {
    int64_t v = dlx_rng_int(b, lane, r->low, r->range);
    switch (r->dtype) {
    case DLX_CUDA_INT8:
      ((int8_t *)p)[e] = (int8_t)v;
      break;
    case DLX_CUDA_UINT8:
      ((uint8_t *)p)[e] = (uint8_t)v;
      break;
    case DLX_CUDA_INT16:
      ((int16_t *)p)[e] = (int16_t)v;
      break;
    case DLX_CUDA_UINT16:
      ((uint16_t *)p)[e] = (uint16_t)v;
      break;
    case DLX_CUDA_INT32:
      ((int32_t *)p)[e] = (int32_t)v;
      break;
    case DLX_CUDA_UINT32:
      ((uint32_t *)p)[e] = (uint32_t)v;
      break;
    case DLX_CUDA_INT64:
      ((int64_t *)p)[e] = v;
      break;
    case DLX_CUDA_UINT64:
      ((uint64_t *)p)[e] = (uint64_t)v;
      break;
    default:
      break;
    }
    return;
  }
  double v = dlx_rng_real(r->kind, b, lane, r->bits, r->a, r->b);
  switch (r->dtype) {
  case DLX_CUDA_FLOAT32:
    ((float *)p)[e] = to_float32_from_d(v);
    break;
  case DLX_CUDA_FLOAT64:
    ((double *)p)[e] = v;
    break;
  case DLX_CUDA_FLOAT16:
    ((uint16_t *)p)[e] = to_float16_from_d(v);
    break;
  case DLX_CUDA_BFLOAT16:
    ((uint16_t *)p)[e] = to_bfloat16_from_d(v);
    break;
  default:
    break;
  }
}

/* Every element of block `block` (the last block may be partial). */
DLX_SHARED void dlx_cuda_random_block(const dlx_cuda_random_request *r, int64_t block) {
  dlx_philox_block b = dlx_philox_at(r->seed, r->offset + (uint64_t)block);
  int64_t first = block * r->lanes;
  for (int lane = 0; lane < r->lanes && first + lane < r->n; lane++)
    dlx_cuda_random_store(r, b, lane, first + lane);
}

#endif
