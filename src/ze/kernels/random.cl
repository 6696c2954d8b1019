/* random.cl -- the Level Zero backend's random numbers (dlx_fill_random), part of the module that
 * dlx_kernels.cl makes (it includes this file, after its cast helpers): a work-item per Philox
 * block, each element converted by src/common/philox.h exactly as the CPU converts it. */
#include "common/philox.h"

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_fill_random(__global uchar *dst, __global const dlx_ze_random_args *a) {
  long blocks = (a->n + a->lanes - 1) / a->lanes;
  int size = dtype_size(a->dtype);
  for (long blk = get_global_id(0); blk < blocks; blk += get_global_size(0)) {
    dlx_philox_block b = dlx_philox_at(a->seed, a->offset + (ulong)blk);
    long first = blk * a->lanes;
    for (int lane = 0; lane < a->lanes && first + lane < a->n; lane++) {
      char out[8];
      if (a->kind == DLX_RNG_INT)
        store_from_i(a->dtype, out, dlx_rng_int(b, lane, a->low, a->range));
      else
        store_from_d(a->dtype, out,
                     dlx_rng_real((int)a->kind, b, lane, (int)a->bits, a->a, a->b));
      write_bytes(dst + (first + lane) * size, out, size);
    }
  }
}
