/* strided_iter.c -- dim preparation (drop, sort, flip, merge) and the outer odometer. */
#include "cpu/strided_iter.h"

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

/* True when dim a should be walked outside dim b: larger |stride| of operand 0 first, then of
 * the next operands. */
static bool outer_of(const dlx_strided *it, int a, int b) {
  for (int k = 0; k < it->nops; k++) {
    int64_t sa = abs64(it->strides[k][a]), sb = abs64(it->strides[k][b]);
    if (sa != sb) return sa > sb;
  }
  return false;
}

static void swap_dims(dlx_strided *it, int a, int b) {
  int64_t t = it->shape[a];
  it->shape[a] = it->shape[b];
  it->shape[b] = t;
  for (int k = 0; k < it->nops; k++) {
    t = it->strides[k][a];
    it->strides[k][a] = it->strides[k][b];
    it->strides[k][b] = t;
  }
}

/* Insertion sort: stable, and ndim is small. */
static void sort_dims(dlx_strided *it) {
  for (int i = 1; i < it->ndim; i++) {
    for (int j = i; j > 0 && outer_of(it, j, j - 1); j--) swap_dims(it, j, j - 1);
  }
}

/* Walks a dim backwards when operand 0 (or, where it does not move, operand 1) would go
 * backwards: the same pairs of elements, visited in the other order. */
static void flip_dims(dlx_strided *it) {
  for (int d = 0; d < it->ndim; d++) {
    int64_t s0 = it->strides[0][d], s1 = it->nops > 1 ? it->strides[1][d] : 0;
    if (s0 > 0 || (s0 == 0 && s1 >= 0)) continue;
    for (int k = 0; k < it->nops; k++) {
      it->offset[k] += (it->shape[d] - 1) * it->strides[k][d];
      it->strides[k][d] = -it->strides[k][d];
    }
  }
}

/* outer == inner * size, without the overflow the product could have for absurd strides. */
static bool is_multiple(int64_t outer, int64_t inner, int64_t size) {
  if (inner == 0) return outer == 0;
  if (inner == -1) return outer == -size;
  return outer % inner == 0 && outer / inner == size;
}

/* Merges neighbouring dims that every operand walks as one: outer o and inner i merge when
 * stride[o] == stride[i] * shape[i] for all operands. */
static void merge_dims(dlx_strided *it) {
  int n = 0;
  for (int d = 0; d < it->ndim; d++) {
    bool merge = n > 0 && it->shape[n - 1] <= INT64_MAX / it->shape[d];
    for (int k = 0; merge && k < it->nops; k++) {
      merge = is_multiple(it->strides[k][n - 1], it->strides[k][d], it->shape[d]);
    }
    if (merge) {
      it->shape[n - 1] *= it->shape[d];
    } else {
      it->shape[n] = it->shape[d];
      n++;
    }
    for (int k = 0; k < it->nops; k++) it->strides[k][n - 1] = it->strides[k][d];
  }
  it->ndim = n;
}

static bool all_zero_strides(const int64_t *const *strides, int nops, int d) {
  for (int k = 0; k < nops; k++) {
    if (strides[k][d] != 0) return false;
  }
  return true;
}

bool dlx_strided_init(dlx_strided *it, int ndim, const int64_t *shape, int nops,
                      const int64_t *const *strides, const int64_t *offsets, int flags) {
  it->nops = nops;
  it->ndim = 0;
  for (int k = 0; k < nops; k++) it->offset[k] = offsets != NULL ? offsets[k] : 0;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] == 0) return false;
    if (shape[d] == 1) continue;
    if ((flags & DLX_STRIDED_DROP_BROADCAST) && all_zero_strides(strides, nops, d)) continue;
    it->shape[it->ndim] = shape[d];
    for (int k = 0; k < nops; k++) it->strides[k][it->ndim] = strides[k][d];
    it->ndim++;
  }
  if (it->ndim == 0) { /* one element */
    it->ndim = 1;
    it->shape[0] = 1;
    for (int k = 0; k < nops; k++) it->strides[k][0] = 0;
    return true;
  }
  if (flags & DLX_STRIDED_REORDER) {
    sort_dims(it);
    flip_dims(it);
  }
  merge_dims(it);
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
