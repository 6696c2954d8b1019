/* random_element.h -- one Philox block of a fill_random request on a CUDA device: the block's
 * elements converted by src/common/philox.h and distributions.h and stored as the dtype by the
 * casting rules, and one row of a multinomial request. Host and device code alike (DLX_SHARED),
 * so the host-compiled test (tests/c/cuda_random_rules) checks it against the CPU without a GPU. */
#ifndef DLX_CUDA_RANDOM_ELEMENT_H
#define DLX_CUDA_RANDOM_ELEMENT_H

#include "common/distributions.h"
#include "cuda/cast_element.h"
#include "cuda/kernels.h"

/* Every element of block `block` (the last block may be partial); for POISSON, element `block`. */
DLX_SHARED void dlx_cuda_random_block(const dlx_cuda_random_request *r, int64_t block) {
  char *p = (char *)r->dst;
  int size = dlx_cuda_itemsize(r->dtype);
  dlx_philox_block b;
  int64_t first = block * r->lanes;
  if (r->kind == DLX_RNG_POISSON) {
    double rate = r->pa != NULL ? r->pa[block] : r->a;
    dlx_cuda_store_from_d(r->dtype, p + block * size,
                          dlx_rng_poisson(r->seed, r->offset + (uint64_t)block, rate));
    return;
  }
  b = dlx_philox_at(r->seed, r->offset + (uint64_t)block);
  for (int lane = 0; lane < r->lanes && first + lane < r->n; lane++) {
    int64_t e = first + lane;
    if (r->kind == DLX_RNG_INT) {
      dlx_cuda_store_from_i(r->dtype, p + e * size, dlx_rng_int(b, lane, r->low, r->range));
    } else {
      double a = r->pa != NULL ? r->pa[e] : r->a, bb = r->pb != NULL ? r->pb[e] : r->b;
      dlx_cuda_store_from_d(r->dtype, p + e * size,
                            dlx_rng_draw(r->kind, b, lane, r->bits, r->lanes == 2, a, bb));
    }
  }
}

/* Row r of a multinomial request. */
DLX_SHARED void dlx_cuda_multinomial_row(const dlx_cuda_multinomial_request *q, int64_t r) {
  int64_t per_row = q->replacement ? q->k : q->n;
  dlx_mn_row((const float *)q->weights, (const double *)q->weights, q->is64, r, q->k, q->n,
             q->replacement, q->seed, q->offset, q->out + r * q->n, q->status + r,
             q->scratch + r * per_row);
}

#endif
