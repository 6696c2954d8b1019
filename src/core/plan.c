/* plan.c -- a walk's layout: drop, order, flip and merge the dims (plan.h). */
#include "core/plan.h"

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

void dlx_plan_add_broadcast(dlx_plan *p, int32_t ndim, const int64_t *shape,
                            const int64_t *strides) {
  int k = p->nops++;
  p->offset[k] = 0;
  for (int32_t d = 0; d < p->ndim; d++) {
    int32_t at = d - (p->ndim - ndim); /* its dim under the plan's dim d */
    p->strides[k][d] = at >= 0 && shape[at] != 1 ? strides[at] : 0;
  }
}

void dlx_plan_add_tensor(dlx_plan *p, const dlx_tensor *t) {
  if (t == NULL)
    dlx_plan_add(p, NULL, 0);
  else
    dlx_plan_add_broadcast(p, t->ndim, t->shape, t->strides);
}

/* ---- the steps of dlx_plan_finish */

static bool all_zero_strides(const int64_t *const *strides, int nops, int32_t d) {
  for (int k = 0; k < nops; k++)
    if (strides[k][d] != 0) return false;
  return true;
}

/* The dims of (ndim, shape, strides) into p but the size-1 dims, and the broadcast ones when
 * asked, the kept one aside; counts the elements. False when a dim has size 0. The source may be
 * p's own arrays (each dim moves down, if at all). One pass: the CPU plans every strided op. */
static bool drop_dims(dlx_plan *p, int32_t ndim, const int64_t *shape,
                      const int64_t *const *strides, int flags) {
  int32_t n = 0, keep = p->keep;
  p->keep = -1;
  p->numel = 1;
  for (int32_t d = 0; d < ndim; d++) {
    bool kept = d == keep;
    int64_t size = shape[d];
    if (size == 0) return false;
    if (!kept && size == 1) continue;
    if (!kept && (flags & DLX_PLAN_DROP_BROADCAST) && all_zero_strides(strides, p->nops, d))
      continue;
    if (kept) p->keep = n;
    /* saturates: dims whose product passes int64 are part of an empty tensor (a reduction's
     * reduced dims whose kept dims include a 0), never walked */
    p->numel = size > INT64_MAX / p->numel ? INT64_MAX : p->numel * size;
    p->shape[n] = size;
    for (int k = 0; k < p->nops; k++) p->strides[k][n] = strides[k][d];
    n++;
  }
  p->ndim = n;
  return true;
}

/* True when dim a should be walked outside dim b: larger |stride| of operand 0 first, then of
 * the next operands. */
static bool outer_of(const dlx_plan *p, int32_t a, int32_t b) {
  for (int k = 0; k < p->nops; k++) {
    int64_t sa = abs64(p->strides[k][a]), sb = abs64(p->strides[k][b]);
    if (sa != sb) return sa > sb;
  }
  return false;
}

static void swap_dims(dlx_plan *p, int32_t a, int32_t b) {
  int64_t t = p->shape[a];
  p->shape[a] = p->shape[b];
  p->shape[b] = t;
  for (int k = 0; k < p->nops; k++) {
    t = p->strides[k][a];
    p->strides[k][a] = p->strides[k][b];
    p->strides[k][b] = t;
  }
  if (p->keep == a)
    p->keep = b;
  else if (p->keep == b)
    p->keep = a;
}

/* Insertion sort: stable, and ndim is small. */
static void sort_dims(dlx_plan *p) {
  for (int32_t i = 1; i < p->ndim; i++)
    for (int32_t j = i; j > 0 && outer_of(p, j, j - 1); j--) swap_dims(p, j, j - 1);
}

static void flip_dims(dlx_plan *p) {
  for (int32_t d = 0; d < p->ndim; d++) {
    int64_t s0 = p->strides[0][d], s1 = p->nops > 1 ? p->strides[1][d] : 0;
    if (s0 > 0 || (s0 == 0 && s1 >= 0)) continue;
    for (int k = 0; k < p->nops; k++) {
      p->offset[k] += (p->shape[d] - 1) * p->strides[k][d];
      p->strides[k][d] = -p->strides[k][d];
    }
  }
}

/* outer == inner * size, without the overflow the product could have for absurd strides. */
static bool is_multiple(int64_t outer, int64_t inner, int64_t size) {
  if (inner == 0) return outer == 0;
  if (inner == -1) return outer == -size;
  return outer % inner == 0 && outer / inner == size;
}

/* Whether dim d joins dim n - 1 (the last one kept): every operand walks the two as one, and
 * neither is the dim to keep as it is. */
static bool merges(const dlx_plan *p, int32_t n, int32_t d, int32_t keep) {
  if (n == 0 || d == keep || n - 1 == p->keep || p->shape[n - 1] > INT64_MAX / p->shape[d])
    return false;
  for (int k = 0; k < p->nops; k++)
    if (!is_multiple(p->strides[k][n - 1], p->strides[k][d], p->shape[d])) return false;
  return true;
}

/* Merges neighbouring dims that every operand walks as one: outer o and inner i merge when
 * stride[o] == stride[i] * shape[i] for all operands; the merged dim has the inner strides. */
static void merge_dims(dlx_plan *p) {
  int32_t n = 0, keep = p->keep;
  p->keep = -1;
  for (int32_t d = 0; d < p->ndim; d++) {
    if (merges(p, n, d, keep)) {
      p->shape[n - 1] *= p->shape[d];
    } else {
      if (d == keep) p->keep = n;
      p->shape[n++] = p->shape[d];
    }
    for (int k = 0; k < p->nops; k++) p->strides[k][n - 1] = p->strides[k][d];
  }
  p->ndim = n;
}

/* The steps after the drop. */
static bool lay_out(dlx_plan *p, bool walked, int flags) {
  if (!walked) {
    p->ndim = 0;
    p->numel = 0;
    p->keep = -1;
    return false;
  }
  if ((flags & DLX_PLAN_ORDER) && p->ndim > 1) sort_dims(p);
  if (flags & DLX_PLAN_FLIP) flip_dims(p);
  if (p->ndim > 1) merge_dims(p);
  return true;
}

bool dlx_plan_finish(dlx_plan *p, int flags) {
  const int64_t *own[DLX_PLAN_MAX_OPS];
  for (int k = 0; k < p->nops; k++) own[k] = p->strides[k];
  return lay_out(p, drop_dims(p, p->ndim, p->shape, own, flags), flags);
}

bool dlx_plan_make(dlx_plan *p, int32_t ndim, const int64_t *shape, int nops,
                   const int64_t *const *strides, const int64_t *offsets, int flags) {
  p->nops = nops;
  p->keep = -1;
  for (int k = 0; k < nops; k++) p->offset[k] = offsets != NULL ? offsets[k] : 0;
  return lay_out(p, drop_dims(p, ndim, shape, strides, flags), flags);
}

bool dlx_plan_is_contiguous(const dlx_plan *p) {
  if (p->ndim > 1) return false;
  for (int k = 0; p->ndim == 1 && k < p->nops; k++)
    if (p->strides[k][0] != 1) return false;
  return true;
}
