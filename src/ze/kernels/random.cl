/* random.cl -- the Level Zero backend's random numbers (dlx_fill_random) and multinomial draws
 * (dlx_multinomial), part of the module that dlx_kernels.cl makes (it includes this file, after
 * its cast helpers): a work-item per Philox block (per element for POISSON), each element
 * converted by src/common/philox.h and distributions.h exactly as the CPU converts it, and a
 * work-item per row of weights. */
#include "common/distributions.h"

/* The parameter of element e: the per-element array, or the number. */
static double param_of(__global const double *p, long has, double number, long e) {
  return has ? p[e] : number;
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_fill_random(__global uchar *dst, __global const double *pa, __global const double *pb,
                __global const dlx_ze_random_args *a) {
  long blocks = (a->n + a->lanes - 1) / a->lanes;
  int size = dtype_size(a->dtype);
  for (long blk = get_global_id(0); blk < blocks; blk += get_global_size(0)) {
    char out[8];
    if (a->kind == DLX_RNG_POISSON) { /* a counter per element */
      store_from_d(a->dtype, out,
                   dlx_rng_poisson(a->seed, a->offset + (ulong)blk,
                                   param_of(pa, a->has_a, a->a, blk)));
      write_bytes(dst + blk * size, out, size);
      continue;
    }
    dlx_philox_block b = dlx_philox_at(a->seed, a->offset + (ulong)blk);
    long first = blk * a->lanes;
    for (int lane = 0; lane < a->lanes && first + lane < a->n; lane++) {
      long e = first + lane;
      if (a->kind == DLX_RNG_INT)
        store_from_i(a->dtype, out, dlx_rng_int(b, lane, a->low, a->range));
      else
        store_from_d(a->dtype, out,
                     dlx_rng_draw((int)a->kind, b, lane, (int)a->bits, a->lanes == 2,
                                  param_of(pa, a->has_a, a->a, e),
                                  param_of(pb, a->has_b, a->b, e)));
      write_bytes(dst + e * size, out, size);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_multinomial(__global long *out, __global const uchar *weights, __global long *status,
                __global double *scratch, __global const dlx_ze_multinomial_args *a) {
  long per_row = a->replacement ? a->k : a->n;
  for (long r = get_global_id(0); r < a->rows; r += get_global_size(0))
    dlx_mn_row((__global const float *)weights, (__global const double *)weights, (int)a->is64, r,
               a->k, a->n, (int)a->replacement, a->seed, a->offset, out + r * a->n, status + r,
               scratch + r * per_row);
}
