/* test_core_plan.c -- the core's plan of a walk (src/core/plan.h), which every backend's copies,
 * fills, elementwise ops and indexing walks are laid out with: broadcast operands, size-1 dims
 * dropped, dims merged where every operand allows (negative and zero strides, the kept dim, no
 * overflow for absurd strides), zero-size and 0-d shapes, many dims, the order for operand 0's
 * memory and the flips, and the one-pass form (dlx_plan_make). Random layouts check the walk
 * itself: without ordering the plan visits exactly the positions of the row-major walk, in its
 * order; with ordering and flips, the same positions in another order. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/plan.h"

#define NOPS DLX_PLAN_MAX_OPS

static dlx_plan plan_of(int32_t ndim, const int64_t *shape, int nops, const int64_t (*strides)[8],
                        int flags, bool *walked) {
  dlx_plan p;
  dlx_plan_start(&p, ndim, shape);
  for (int k = 0; k < nops; k++) dlx_plan_add(&p, strides[k], 0);
  *walked = dlx_plan_finish(&p, flags);
  return p;
}

/* ---- named cases */

static void test_contiguous_merges(void) {
  const int64_t shape[3] = {2, 3, 4}, strides[2][8] = {{12, 4, 1}, {12, 4, 1}};
  bool walked;
  dlx_plan p = plan_of(3, shape, 2, strides, 0, &walked);
  CHECK(walked);
  CHECK_EQ_INT(p.ndim, 1);
  CHECK_EQ_INT(p.shape[0], 24);
  CHECK_EQ_INT(p.numel, 24);
  CHECK_EQ_INT(p.strides[0][0], 1);
  CHECK_EQ_INT(p.strides[1][0], 1);
  CHECK(dlx_plan_is_contiguous(&p));
  /* a gap in one operand keeps that pair of dims apart, and the other pair merges */
  const int64_t gapped[2][8] = {{12, 4, 1}, {16, 4, 1}};
  p = plan_of(3, shape, 2, gapped, 0, &walked);
  CHECK_EQ_INT(p.ndim, 2);
  CHECK_EQ_INT(p.shape[0], 2);
  CHECK_EQ_INT(p.shape[1], 12);
  CHECK_EQ_INT(p.strides[1][0], 16);
  CHECK_EQ_INT(p.strides[1][1], 1);
  CHECK(!dlx_plan_is_contiguous(&p));
  /* every other element: one dim, but not a contiguous run */
  const int64_t every_other[1][8] = {{24, 8, 2}};
  p = plan_of(3, shape, 1, every_other, 0, &walked);
  CHECK_EQ_INT(p.ndim, 1);
  CHECK_EQ_INT(p.strides[0][0], 2);
  CHECK(!dlx_plan_is_contiguous(&p));
}

static void test_size_one_and_zero_d(void) {
  const int64_t shape[3] = {1, 5, 1}, strides[1][8] = {{99, 1, 7}};
  const int64_t ones[2] = {1, 1}, one_strides[1][8] = {{3, 3}};
  bool walked;
  dlx_plan p = plan_of(3, shape, 1, strides, 0, &walked);
  CHECK_EQ_INT(p.ndim, 1);
  CHECK_EQ_INT(p.shape[0], 5);
  CHECK_EQ_INT(p.strides[0][0], 1);
  p = plan_of(2, ones, 1, one_strides, 0, &walked); /* every dim of size 1: one element */
  CHECK(walked);
  CHECK_EQ_INT(p.ndim, 0);
  CHECK_EQ_INT(p.numel, 1);
  CHECK(dlx_plan_is_contiguous(&p));
  p = plan_of(0, NULL, 1, one_strides, DLX_PLAN_ORDER | DLX_PLAN_FLIP, &walked); /* 0-d */
  CHECK(walked);
  CHECK_EQ_INT(p.ndim, 0);
  CHECK_EQ_INT(p.numel, 1);
  CHECK_EQ_INT(p.offset[0], 0);
}

static void test_zero_size(void) {
  const int64_t shape[3] = {3, 0, 2}, strides[1][8] = {{2, 2, 1}};
  bool walked;
  dlx_plan p = plan_of(3, shape, 1, strides, DLX_PLAN_ORDER, &walked);
  CHECK(!walked);
  CHECK_EQ_INT(p.ndim, 0);
  CHECK_EQ_INT(p.numel, 0);
}

static void test_broadcast(void) {
  const int64_t shape[3] = {2, 3, 4}, own_shape[2] = {3, 1}, own_strides[2] = {1, 1};
  dlx_tensor t = {.ndim = 3, .shape = {2, 1, 4}, .strides = {4, 77, 1}};
  dlx_plan p;
  dlx_plan_start(&p, 3, shape);
  dlx_plan_add(&p, (const int64_t[]){12, 4, 1}, 5);
  dlx_plan_add_broadcast(&p, 2, own_shape, own_strides); /* [3, 1] under [2, 3, 4] */
  dlx_plan_add_tensor(&p, &t);                           /* its size-1 dim broadcast */
  dlx_plan_add_tensor(&p, NULL);                         /* one value */
  CHECK_EQ_INT(p.nops, 4);
  CHECK_EQ_INT(p.offset[0], 5);
  CHECK_EQ_INT(p.offset[1], 0);
  CHECK_EQ_INT(p.strides[1][0], 0);
  CHECK_EQ_INT(p.strides[1][1], 1);
  CHECK_EQ_INT(p.strides[1][2], 0);
  CHECK_EQ_INT(p.strides[2][0], 4);
  CHECK_EQ_INT(p.strides[2][1], 0);
  CHECK_EQ_INT(p.strides[2][2], 1);
  for (int d = 0; d < 3; d++) CHECK_EQ_INT(p.strides[3][d], 0);
  CHECK(dlx_plan_finish(&p, 0));
  CHECK_EQ_INT(p.ndim, 3); /* no pair of neighbours is contiguous in operands 1 and 2 */
  CHECK_EQ_INT(p.numel, 24);
}

static void test_negative_and_zero_strides(void) {
  const int64_t shape[2] = {3, 4}, reversed[1][8] = {{-4, -1}};
  const int64_t mixed[2][8] = {{4, 1}, {0, 0}}, flipped_inner[1][8] = {{4, -1}};
  bool walked;
  dlx_plan p = plan_of(2, shape, 1, reversed, 0, &walked);
  CHECK_EQ_INT(p.ndim, 1); /* a reversed contiguous tensor is one run backwards */
  CHECK_EQ_INT(p.strides[0][0], -1);
  CHECK_EQ_INT(p.offset[0], 0);
  CHECK(!dlx_plan_is_contiguous(&p));
  p = plan_of(2, shape, 1, reversed, DLX_PLAN_FLIP, &walked); /* flipped: forwards from the end */
  CHECK_EQ_INT(p.ndim, 1);
  CHECK_EQ_INT(p.strides[0][0], 1);
  CHECK_EQ_INT(p.offset[0], -11);
  CHECK(dlx_plan_is_contiguous(&p));
  p = plan_of(2, shape, 2, mixed, 0, &walked); /* a broadcast operand merges everywhere */
  CHECK_EQ_INT(p.ndim, 1);
  CHECK_EQ_INT(p.strides[1][0], 0);
  p = plan_of(2, shape, 1, flipped_inner, 0, &walked); /* 4 != -1 * 4 */
  CHECK_EQ_INT(p.ndim, 2);
  p = plan_of(2, shape, 1, flipped_inner, DLX_PLAN_FLIP, &walked); /* once flipped, they merge */
  CHECK_EQ_INT(p.ndim, 1);
  CHECK_EQ_INT(p.offset[0], -3);
  /* operand 0 does not move along a dim: operand 1's direction decides the flip */
  const int64_t second[2][8] = {{0, 1}, {-4, 1}};
  p = plan_of(2, shape, 2, second, DLX_PLAN_FLIP, &walked);
  CHECK_EQ_INT(p.strides[1][0], 4);
  CHECK_EQ_INT(p.offset[1], -8);
  CHECK_EQ_INT(p.offset[0], 0);
  /* dims every operand broadcasts go only when asked */
  const int64_t bcast[2][8] = {{0, 1}, {0, 2}};
  p = plan_of(2, shape, 2, bcast, 0, &walked);
  CHECK_EQ_INT(p.ndim, 2);
  p = plan_of(2, shape, 2, bcast, DLX_PLAN_DROP_BROADCAST, &walked);
  CHECK_EQ_INT(p.ndim, 1);
  CHECK_EQ_INT(p.shape[0], 4);
  CHECK_EQ_INT(p.numel, 4);
}

static void test_order(void) {
  const int64_t shape[2] = {4, 5}, transposed[2][8] = {{1, 4}, {5, 1}};
  const int64_t ties[2][8] = {{0, 0}, {1, 4}}, same[1][8] = {{5, 5}};
  const int64_t wide[2] = {2, 3};
  bool walked;
  dlx_plan p = plan_of(2, shape, 2, transposed, DLX_PLAN_ORDER, &walked);
  CHECK_EQ_INT(p.ndim, 2); /* walked in operand 0's order: dim 2 outside */
  CHECK_EQ_INT(p.shape[0], 5);
  CHECK_EQ_INT(p.strides[0][0], 4);
  CHECK_EQ_INT(p.strides[1][0], 1);
  p = plan_of(2, shape, 2, transposed, 0, &walked); /* without ORDER: row-major */
  CHECK_EQ_INT(p.shape[0], 4);
  CHECK_EQ_INT(p.strides[0][0], 1);
  /* operand 0 ties (a broadcast output): operand 1 decides, then they merge */
  p = plan_of(2, shape, 2, ties, DLX_PLAN_ORDER, &walked);
  CHECK_EQ_INT(p.ndim, 1);
  CHECK_EQ_INT(p.strides[1][0], 1);
  /* equal strides everywhere: the sort is stable */
  p = plan_of(2, wide, 1, same, DLX_PLAN_ORDER, &walked);
  CHECK_EQ_INT(p.ndim, 2);
  CHECK_EQ_INT(p.shape[0], 2);
  CHECK_EQ_INT(p.shape[1], 3);
}

static void test_keep(void) {
  const int64_t shape[4] = {1, 4, 1, 3}, strides[2][8] = {{12, 3, 3, 1}, {12, 3, 3, 1}};
  dlx_plan p;
  bool walked;
  dlx_plan_start(&p, 4, shape);
  dlx_plan_add(&p, strides[0], 0);
  dlx_plan_add(&p, strides[1], 0);
  CHECK_EQ_INT(p.keep, -1);
  p.keep = 2; /* a size-1 dim: kept, and its neighbours do not merge across it */
  CHECK(dlx_plan_finish(&p, 0));
  CHECK_EQ_INT(p.ndim, 3);
  CHECK_EQ_INT(p.keep, 1);
  CHECK_EQ_INT(p.shape[0], 4);
  CHECK_EQ_INT(p.shape[1], 1);
  CHECK_EQ_INT(p.shape[2], 3);
  p = plan_of(4, shape, 2, strides, 0, &walked); /* without it: one run */
  CHECK_EQ_INT(p.ndim, 1);
  CHECK_EQ_INT(p.keep, -1);
  /* the kept dim follows the sort (to the inside), and the others still merge */
  const int64_t shape2[3] = {2, 3, 5}, t[1][8] = {{1, 10, 2}};
  dlx_plan_start(&p, 3, shape2);
  dlx_plan_add(&p, t[0], 0);
  p.keep = 0;
  CHECK(dlx_plan_finish(&p, DLX_PLAN_ORDER));
  CHECK_EQ_INT(p.ndim, 2);
  CHECK_EQ_INT(p.keep, 1);
  CHECK_EQ_INT(p.shape[0], 15);
  CHECK_EQ_INT(p.shape[p.keep], 2);
  CHECK_EQ_INT(p.strides[0][p.keep], 1);
}

static void test_many_dims(void) {
  int64_t shape[DLX_MAX_NDIM], strides[1][DLX_MAX_NDIM], gapped[1][DLX_MAX_NDIM];
  dlx_plan p;
  for (int d = DLX_MAX_NDIM - 1; d >= 0; d--) {
    shape[d] = 2;
    strides[0][d] = d == DLX_MAX_NDIM - 1 ? 1 : strides[0][d + 1] * 2;
    gapped[0][d] = d == DLX_MAX_NDIM - 1 ? 1 : gapped[0][d + 1] * 3;
  }
  dlx_plan_start(&p, DLX_MAX_NDIM, shape);
  dlx_plan_add(&p, strides[0], 0);
  CHECK(dlx_plan_finish(&p, 0));
  CHECK_EQ_INT(p.ndim, 1);
  CHECK_EQ_INT(p.shape[0], (int64_t)1 << DLX_MAX_NDIM);
  dlx_plan_start(&p, DLX_MAX_NDIM, shape);
  dlx_plan_add(&p, gapped[0], 0);
  CHECK(dlx_plan_finish(&p, DLX_PLAN_ORDER));
  CHECK_EQ_INT(p.ndim, DLX_MAX_NDIM);
  /* the dims in reverse memory order: sorted back, then one run */
  for (int d = 0; d < DLX_MAX_NDIM; d++) gapped[0][d] = strides[0][DLX_MAX_NDIM - 1 - d];
  dlx_plan_start(&p, DLX_MAX_NDIM, shape);
  dlx_plan_add(&p, gapped[0], 0);
  CHECK(dlx_plan_finish(&p, DLX_PLAN_ORDER));
  CHECK_EQ_INT(p.ndim, 1);
  CHECK_EQ_INT(p.strides[0][0], 1);
}

/* Strides whose products would overflow merge only where they truly are one run. */
static void test_absurd_strides(void) {
  const int64_t shape[2] = {3, 3}, big[1][8] = {{INT64_MAX, 3}};
  const int64_t minus[1][8] = {{INT64_MIN, -1}}, wrap[1][8] = {{6, INT64_MAX / 2 + 1}};
  bool walked;
  dlx_plan p = plan_of(2, shape, 1, big, DLX_PLAN_ORDER, &walked);
  CHECK_EQ_INT(p.ndim, 2);
  p = plan_of(2, shape, 1, minus, 0, &walked);
  CHECK_EQ_INT(p.ndim, 2);
  p = plan_of(2, shape, 1, wrap, 0, &walked); /* inner * size would wrap */
  CHECK_EQ_INT(p.ndim, 2);
}

/* ---- random layouts against the row-major walk */

static uint64_t rng = UINT64_C(0x243f6a8885a308d3);
static int64_t below(int64_t n) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (int64_t)((rng * UINT64_C(0x2545f4914f6cdd1d)) % (uint64_t)n);
}

typedef struct position {
  int64_t at[NOPS];
} position;

/* Every element's positions, row-major over shape with the given strides and offsets. */
static int64_t reference_walk(int32_t ndim, const int64_t *shape, int nops,
                              int64_t (*strides)[DLX_MAX_NDIM], const int64_t *offsets,
                              position *out) {
  int64_t index[DLX_MAX_NDIM] = {0}, n = 0;
  for (int32_t d = 0; d < ndim; d++)
    if (shape[d] == 0) return 0;
  for (;;) {
    memset(&out[n], 0, sizeof out[n]);
    for (int k = 0; k < nops; k++) {
      out[n].at[k] = offsets[k];
      for (int32_t d = 0; d < ndim; d++) out[n].at[k] += index[d] * strides[k][d];
    }
    n++;
    int32_t d = ndim - 1;
    while (d >= 0 && ++index[d] == shape[d]) index[d--] = 0;
    if (d < 0) return n;
  }
}

static int compare_positions(const void *a, const void *b) {
  const position *x = a, *y = b;
  for (int k = 0; k < NOPS; k++)
    if (x->at[k] != y->at[k]) return x->at[k] < y->at[k] ? -1 : 1;
  return 0;
}

static void random_case(int trial) {
  int64_t shape[DLX_MAX_NDIM], strides[NOPS][DLX_MAX_NDIM], offsets[NOPS];
  int32_t ndim = (int32_t)below(7);
  int nops = 1 + (int)below(NOPS);
  int flags = (int)below(8);
  int32_t keep =
      ndim > 0 && below(4) == 0 && !(flags & DLX_PLAN_DROP_BROADCAST) ? (int32_t)below(ndim) : -1;
  static position want[4096], got[4096];
  int64_t n, m = 0;
  dlx_plan p;
  for (int32_t d = 0; d < ndim; d++)
    shape[d] = below(12) == 0 ? 0 : below(3) == 0 ? 1 : 2 + below(3);
  for (int k = 0; k < nops; k++) {
    /* dims laid out in a random order, some with gaps, some reversed, or broadcast */
    int32_t order[DLX_MAX_NDIM];
    int64_t step = 1 + below(2);
    for (int32_t d = 0; d < ndim; d++) order[d] = d;
    if (below(2) == 0)
      for (int32_t d = ndim - 1; d > 0; d--) {
        int32_t e = (int32_t)below(d + 1), t = order[d];
        order[d] = order[e];
        order[e] = t;
      }
    offsets[k] = below(100);
    for (int32_t i = ndim - 1; i >= 0; i--) {
      int32_t d = order[i];
      strides[k][d] = below(6) == 0 ? 0 : below(4) == 0 ? -step : step;
      step *= (shape[d] > 0 ? shape[d] : 1) + (below(4) == 0 ? 1 : 0);
    }
  }
  n = reference_walk(ndim, shape, nops, strides, offsets, want);
  dlx_plan_start(&p, ndim, shape);
  for (int k = 0; k < nops; k++) dlx_plan_add(&p, strides[k], offsets[k]);
  p.keep = keep;
  bool walked = dlx_plan_finish(&p, flags);
  if (keep < 0) { /* the one-pass form lays out the same plan */
    const int64_t *rows[NOPS];
    dlx_plan q;
    for (int k = 0; k < nops; k++) rows[k] = strides[k];
    CHECK(dlx_plan_make(&q, ndim, shape, nops, rows, offsets, flags) == walked);
    CHECK(q.ndim == p.ndim && q.numel == p.numel && q.keep == -1 && q.nops == nops);
    for (int k = 0; k < nops && q.ndim == p.ndim; k++) {
      CHECK_EQ_INT(q.offset[k], p.offset[k]);
      for (int32_t d = 0; d < p.ndim; d++) CHECK_EQ_INT(q.strides[k][d], p.strides[k][d]);
    }
    for (int32_t d = 0; d < p.ndim && q.ndim == p.ndim; d++) CHECK_EQ_INT(q.shape[d], p.shape[d]);
  }
  if (!walked) {
    CHECK_EQ_INT(n, 0);
    return;
  }
  if (keep >= 0) {
    CHECK(p.keep >= 0 && p.keep < p.ndim);
    CHECK_EQ_INT(p.shape[p.keep], shape[keep]);
  }
  /* the plan's own walk (the same loop, over its dims) */
  int64_t zero[NOPS][DLX_MAX_NDIM] = {{0}};
  for (int k = 0; k < nops; k++) memcpy(zero[k], p.strides[k], sizeof zero[k]);
  m = reference_walk(p.ndim, p.shape, nops, zero, p.offset, got);
  CHECK_EQ_INT(p.numel, m);
  if (flags & DLX_PLAN_DROP_BROADCAST) { /* some repeats dropped: the same set of positions */
    CHECK(m <= n);
    qsort(want, (size_t)n, sizeof *want, compare_positions);
    qsort(got, (size_t)m, sizeof *got, compare_positions);
    int64_t u = 0;
    for (int64_t i = 0; i < n; i++)
      if (i == 0 || compare_positions(&want[i], &want[i - 1]) != 0) want[u++] = want[i];
    n = u;
    u = 0;
    for (int64_t i = 0; i < m; i++)
      if (i == 0 || compare_positions(&got[i], &got[i - 1]) != 0) got[u++] = got[i];
    m = u;
  } else if (flags & (DLX_PLAN_ORDER | DLX_PLAN_FLIP)) { /* the same positions, reordered */
    qsort(want, (size_t)n, sizeof *want, compare_positions);
    qsort(got, (size_t)m, sizeof *got, compare_positions);
  }
  CHECK_EQ_INT(m, n);
  if (m == n && memcmp(want, got, sizeof *want * (size_t)n) != 0) {
    CHECK(!"the plan walks other positions");
    fprintf(stderr, "  trial %d: ndim %d, nops %d, flags %d\n", trial, (int)ndim, nops, flags);
  }
  if (flags & DLX_PLAN_FLIP) /* operand 0 never walks backwards */
    for (int32_t d = 0; d < p.ndim; d++) CHECK(p.strides[0][d] >= 0);
}

int main(void) {
  test_contiguous_merges();
  test_size_one_and_zero_d();
  test_zero_size();
  test_broadcast();
  test_negative_and_zero_strides();
  test_order();
  test_keep();
  test_many_dims();
  test_absurd_strides();
  for (int trial = 0; trial < 20000; trial++) random_case(trial);
  return check_report("test_core_plan");
}
