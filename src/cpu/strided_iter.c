/* strided_iter.c -- the CPU's walk over a plan of the core: its setup and the outer odometer. */
#include "cpu/strided_iter.h"

bool dlx_strided_init(dlx_strided *it, int ndim, const int64_t *shape, int nops,
                      const int64_t *const *strides, const int64_t *offsets, int flags) {
  if (!dlx_plan_make(it, ndim, shape, nops, strides, offsets, flags)) return false;
  if (it->ndim == 0) { /* one element: one inner dim of size 1 */
    it->ndim = 1;
    it->shape[0] = 1;
    for (int k = 0; k < nops; k++) it->strides[k][0] = 0;
  }
  return true;
}

bool dlx_strided_next(const dlx_strided *it, int64_t *index, int64_t *pos) {
  for (int d = it->ndim - 2; d >= 0; d--) {
    for (int k = 0; k < it->nops; k++) pos[k] += it->strides[k][d];
    if (++index[d] < it->shape[d]) return true;
    for (int k = 0; k < it->nops; k++) pos[k] -= it->strides[k][d] * it->shape[d];
    index[d] = 0;
  }
  return false;
}

void dlx_strided_seek(const dlx_strided *it, int64_t row, int64_t *index, int64_t *pos) {
  for (int k = 0; k < it->nops; k++) pos[k] = it->offset[k];
  index[it->ndim - 1] = 0;
  for (int d = it->ndim - 2; d >= 0; d--) {
    index[d] = row % it->shape[d];
    row /= it->shape[d];
    for (int k = 0; k < it->nops; k++) pos[k] += index[d] * it->strides[k][d];
  }
}

int64_t dlx_strided_rows(const dlx_strided *it) {
  int64_t rows = 1;
  for (int d = 0; d < it->ndim - 1; d++) rows *= it->shape[d];
  return rows;
}
