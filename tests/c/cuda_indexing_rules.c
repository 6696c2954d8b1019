/* cuda_indexing_rules.c -- the CUDA indexing kernels' code (src/cuda/indexing_plan.h making the
 * requests, src/cuda/indexing_element.h compiled as host C++ in cuda_indexing_rules.cpp) against
 * the CPU backend's index_op, bit for bit, through the core's indexing ops over random shapes,
 * layouts, dtypes and indices (duplicates and bad ones included): runs without a GPU.
 *
 * The tensors live in CPU memory under a copy of the CPU backend whose index_op is either the
 * CPU's or the CUDA code run on the host; each op runs both ways on the same inputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "check.h"
#include "common/convert.h"
#include "core/core.h"
#include "core/indexing.h"
#include "core/ops.h"
#include "cpu_test_util.h"
#include "cuda/indexing_plan.h"

int64_t cxx_index_first_bad(const dlx_cuda_index_request *r, int64_t *value);
void cxx_index_move(const dlx_cuda_index_request *r);
int64_t cxx_index_count(const dlx_cuda_index_request *r);
void cxx_index_masked(const dlx_cuda_index_request *r);

static bool as_cuda; /* index_op: the CUDA code (true) or the CPU's */
static dlx_backend rules_backend;

static int rules_index_op(dlx_index_request *r, dlx_error *err) {
  dlx_cuda_index_request q;
  int64_t value = 0;
  if (!as_cuda) return dlx_cpu_backend.index_op(r, err);
  dlx_cuda_index_plan(r, &q);
  switch (r->op) {
  case DLX_INDEX_CHECK:
    return cxx_index_first_bad(&q, &value) < q.numel ? dlx_cuda_index_bad(r, value, err) : 0;
  case DLX_INDEX_GATHER:
  case DLX_INDEX_SCATTER:
  case DLX_INDEX_SCATTER_ADD:
    cxx_index_move(&q);
    return 0;
  case DLX_INDEX_COUNT:
    r->count = cxx_index_count(&q);
    return 0;
  default:
    cxx_index_masked(&q);
    return 0;
  }
}

/* ---- random tensors */

enum fill { RANDOM_BITS, MASK, INDICES, BAD_INDICES };

/* Fills the buffer of t: random bits, a mask (about 40% true), or indices for a dim of size
 * `size` (1-based or negative, a few bad ones with BAD_INDICES). */
static void fill(const dlx_tensor *t, enum fill how, int64_t size) {
  size_t bytes = t->buffer->nbytes, item = (size_t)dlx_itemsize(t->dtype);
  unsigned char *p = t->buffer->data;
  for (size_t at = 0; at + item <= bytes; at += item) {
    if (how == MASK) {
      p[at] = rnd_below(10) < 4;
    } else if (how == INDICES || how == BAD_INDICES) {
      int64_t i = rnd_below(size) + 1;
      if (rnd_below(2) == 0) i -= size + 1; /* -size..-1 */
      if (how == BAD_INDICES && rnd_below(8) == 0)
        i = rnd_below(3) == 0 ? 0 : size + 1 + rnd_below(3);
      if (how == BAD_INDICES && rnd_below(16) == 0) i = -size - 1;
      memcpy(p + at, &i, sizeof i);
    } else {
      for (size_t b = 0; b < item; b++) p[at + b] = (unsigned char)rnd();
    }
  }
}

/* A tensor of this shape with a random layout: dims permuted in memory, some strided by 2, some
 * flipped. Its buffer belongs to rules_backend. */
static void random_tensor(dlx_tensor *t, const int64_t *shape, int32_t ndim, dlx_dtype dtype,
                          enum fill how, int64_t size) {
  int32_t perm[DLX_MAX_NDIM], inverse[DLX_MAX_NDIM];
  int64_t step[DLX_MAX_NDIM], base_shape[DLX_MAX_NDIM];
  dlx_tensor base, view;
  for (int32_t d = 0; d < ndim; d++) perm[d] = d;
  for (int32_t d = ndim - 1; d > 0; d--) {
    int32_t e = (int32_t)rnd_below(d + 1), swap = perm[d];
    perm[d] = perm[e];
    perm[e] = swap;
  }
  for (int32_t d = 0; d < ndim; d++) {
    step[d] = rnd_below(3) == 0 ? 2 : 1;
    inverse[perm[d]] = d;
  }
  for (int32_t d = 0; d < ndim; d++) base_shape[d] = shape[perm[d]] * step[perm[d]];
  CHECK(dlx_tensor_empty(&base, base_shape, ndim, dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  base.buffer->backend = &rules_backend;
  fill(&base, how, size);
  CHECK(dlx_permute(t, &base, inverse, NULL) == 0);
  dlx_tensor_close(&base);
  for (int32_t d = 0; d < ndim; d++) {
    if (shape[d] == 0) continue;
    CHECK(dlx_slice(&view, t, d, 0, shape[d] * step[d] - 1, step[d], NULL) == 0);
    dlx_tensor_close(t);
    *t = view;
    if (rnd_below(4) == 0) {
      CHECK(dlx_flip(&view, t, d, NULL) == 0);
      dlx_tensor_close(t);
      *t = view;
    }
  }
}

static int32_t random_shape(int64_t *shape, int32_t min_ndim) {
  int32_t ndim = min_ndim + (int32_t)rnd_below(5 - min_ndim);
  for (int32_t d = 0; d < ndim; d++) shape[d] = 1 + rnd_below(rnd_below(6) == 0 ? 40 : 5);
  return ndim;
}

static const dlx_dtype dtypes[] = {DLX_BOOL,    DLX_INT8,      DLX_INT16,      DLX_INT32,
                                   DLX_INT64,   DLX_UINT8,     DLX_UINT16,     DLX_UINT32,
                                   DLX_UINT64,  DLX_FLOAT16,   DLX_BFLOAT16,   DLX_FLOAT32,
                                   DLX_FLOAT64, DLX_COMPLEX64, DLX_COMPLEX128, DLX_FLOAT8_E4M3FN};
#define N_DTYPES (int64_t)(sizeof dtypes / sizeof dtypes[0])

/* ---- comparing the two ways */

static char case_name[96];

/* Whether the results being compared are sums (SCATTER_ADD): NaN + NaN gives one of the two
 * NaNs, and which one depends on how the compiler ordered the operands (IEEE 754 leaves it
 * open), so there any NaN matches any NaN. */
static bool comparing_sums;

/* Whether the element of dtype at p is a NaN (complex: either part). */
static bool is_nan_element(dlx_dtype dtype, const unsigned char *p) {
  uint16_t h;
  float f[2];
  double d[2];
  switch (dtype) {
  case DLX_FLOAT16:
    memcpy(&h, p, 2);
    return isnan(dlx_half_to_float(h));
  case DLX_BFLOAT16:
    memcpy(&h, p, 2);
    return isnan(dlx_bf16_to_float(h));
  case DLX_FLOAT32:
  case DLX_COMPLEX64:
    memcpy(f, p, dtype == DLX_FLOAT32 ? 4 : 8);
    return isnan(f[0]) || (dtype == DLX_COMPLEX64 && isnan(f[1]));
  case DLX_FLOAT64:
  case DLX_COMPLEX128:
    memcpy(d, p, dtype == DLX_FLOAT64 ? 8 : 16);
    return isnan(d[0]) || (dtype == DLX_COMPLEX128 && isnan(d[1]));
  default:
    return false;
  }
}

/* Dense buffers of n elements equal bit for bit, or (sums) NaN where they differ. */
static bool same_elements(dlx_dtype dtype, const unsigned char *a, const unsigned char *b,
                          int64_t n) {
  size_t size = (size_t)dlx_itemsize(dtype);
  for (int64_t i = 0; i < n; i++, a += size, b += size) {
    if (memcmp(a, b, size) == 0) continue;
    if (!comparing_sums || !is_nan_element(dtype, a) || !is_nan_element(dtype, b)) return false;
  }
  return true;
}

/* The same result both ways: the same error, or tensors equal in shape and bytes. */
static void same(int rc_cpu, const dlx_error *e_cpu, const dlx_tensor *cpu, int rc_cuda,
                 const dlx_error *e_cuda, const dlx_tensor *cuda) {
  dlx_tensor a, b;
  CHECK_EQ_INT(rc_cpu, rc_cuda);
  if (rc_cpu != 0 || rc_cuda != 0) {
    if (rc_cpu != rc_cuda || strcmp(e_cpu->message, e_cuda->message) != 0) {
      fprintf(stderr, "%s: errors differ: \"%s\" and \"%s\"\n", case_name, e_cpu->message,
              e_cuda->message);
      CHECK(0);
    }
    return;
  }
  CHECK_EQ_INT(cpu->ndim, cuda->ndim);
  if (cpu->ndim != cuda->ndim) return;
  CHECK(memcmp(cpu->shape, cuda->shape, sizeof cpu->shape[0] * (size_t)cpu->ndim) == 0);
  CHECK(dlx_clone_as(&a, cpu, cpu->dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  CHECK(dlx_clone_as(&b, cuda, cuda->dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  if (!same_elements(a.dtype, a.buffer->data, b.buffer->data, dlx_tensor_numel(&a))) {
    fprintf(stderr, "%s: the CUDA code differs from the CPU\n", case_name);
    CHECK(0);
  }
  dlx_tensor_close(&a);
  dlx_tensor_close(&b);
}

typedef int (*out_op)(dlx_tensor *out, const void *args, dlx_error *err);
typedef int (*in_place_op)(const dlx_tensor *dst, const void *args, dlx_error *err);

static void compare_out(out_op op, const void *args) {
  dlx_tensor out[2];
  dlx_error err[2];
  int rc[2];
  for (int k = 0; k < 2; k++) {
    as_cuda = k == 1;
    rc[k] = op(&out[k], args, &err[k]);
  }
  same(rc[0], &err[0], &out[0], rc[1], &err[1], &out[1]);
  for (int k = 0; k < 2; k++)
    if (rc[k] == 0) dlx_tensor_close(&out[k]);
}

/* op on dst both ways, dst restored in between. */
static void compare_in_place(in_place_op op, const dlx_tensor *dst, const void *args) {
  dlx_tensor before, after[2];
  dlx_error err[2];
  int rc[2];
  CHECK(dlx_clone_as(&before, dst, dst->dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  for (int k = 0; k < 2; k++) {
    as_cuda = k == 1;
    CHECK(dlx_copy(dst, &before, NULL) == 0);
    rc[k] = op(dst, args, &err[k]);
    CHECK(dlx_clone_as(&after[k], dst, dst->dtype, (DLDevice){kDLCPU, 0}, NULL) == 0);
  }
  same(rc[0], &err[0], &after[0], rc[1], &err[1], &after[1]);
  dlx_tensor_close(&before);
  dlx_tensor_close(&after[0]);
  dlx_tensor_close(&after[1]);
}

/* ---- the ops */

typedef struct args {
  const dlx_tensor *src, *index, *mask;
  int32_t dim;
  bool accumulate;
  dlx_scalar value;
} args;

static int do_index_select(dlx_tensor *out, const void *a, dlx_error *err) {
  const args *x = a;
  return dlx_index_select(out, x->src, x->dim, x->index, err);
}
static int do_gather(dlx_tensor *out, const void *a, dlx_error *err) {
  const args *x = a;
  return dlx_gather(out, x->src, x->dim, x->index, err);
}
static int do_masked_select(dlx_tensor *out, const void *a, dlx_error *err) {
  const args *x = a;
  return dlx_masked_select(out, x->src, x->mask, err);
}
static int do_nonzero(dlx_tensor *out, const void *a, dlx_error *err) {
  const args *x = a;
  return dlx_nonzero(out, x->src, err);
}
static int do_scatter(const dlx_tensor *dst, const void *a, dlx_error *err) {
  const args *x = a;
  return dlx_scatter(dst, x->dim, x->index, x->src, x->accumulate, err);
}
static int do_index_add(const dlx_tensor *dst, const void *a, dlx_error *err) {
  const args *x = a;
  return dlx_index_add(dst, x->dim, x->index, x->src, err);
}
static int do_masked_fill(const dlx_tensor *dst, const void *a, dlx_error *err) {
  const args *x = a;
  return dlx_masked_fill(dst, x->mask, &x->value, err);
}
static int do_masked_assign(const dlx_tensor *dst, const void *a, dlx_error *err) {
  const args *x = a;
  return dlx_masked_assign(dst, x->mask, x->src, err);
}

static dlx_dtype random_dtype(bool addable) {
  dlx_dtype dtype = dtypes[rnd_below(N_DTYPES)];
  return addable && dlx_dtype_kind(dtype) == DLX_KIND_STORAGE ? DLX_FLOAT32 : dtype;
}

static void one_case(int trial) {
  int64_t shape[DLX_MAX_NDIM], ishape[DLX_MAX_NDIM], len = rnd_below(7);
  int32_t ndim = random_shape(shape, 1), dim = (int32_t)rnd_below(ndim);
  dlx_dtype dtype = random_dtype(false);
  enum fill bad = rnd_below(6) == 0 ? BAD_INDICES : INDICES;
  dlx_tensor src, index, dst, mask, values;
  args x = {.dim = dim};
  snprintf(case_name, sizeof case_name, "case %d (%s, %d dims, dim %d)", trial,
           dlx_dtype_info_of(dtype)->name, (int)ndim, (int)dim + 1);
  random_tensor(&src, shape, ndim, dtype, RANDOM_BITS, 0);
  x.src = &src;

  /* index_select: a 1-D index */
  random_tensor(&index, &len, 1, DLX_INT64, bad, shape[dim]);
  x.index = &index;
  compare_out(do_index_select, &x);
  dlx_tensor_close(&index);

  /* gather: an index no larger than src but along dim */
  for (int32_t d = 0; d < ndim; d++)
    ishape[d] = d == dim ? 1 + rnd_below(6) : 1 + rnd_below(shape[d]);
  random_tensor(&index, ishape, ndim, DLX_INT64, bad, shape[dim]);
  compare_out(do_gather, &x);

  /* scatter_ and scatter_add_ into dst of src's shape, from values no smaller than the index,
   * which now lies within dst along dim too (indices in a short range: duplicates) */
  for (int32_t d = 0; d < ndim; d++) ishape[d] = 1 + rnd_below(shape[d]);
  dlx_tensor_close(&index);
  random_tensor(&index, ishape, ndim, DLX_INT64, bad, shape[dim]);
  dtype = random_dtype(true);
  random_tensor(&dst, shape, ndim, dtype, RANDOM_BITS, 0);
  random_tensor(&values, shape, ndim, rnd_below(4) == 0 ? DLX_INT32 : dtype, RANDOM_BITS, 0);
  x.src = &values;
  x.accumulate = false;
  compare_in_place(do_scatter, &dst, &x);
  x.accumulate = true;
  comparing_sums = true;
  compare_in_place(do_scatter, &dst, &x);
  dlx_tensor_close(&values);
  dlx_tensor_close(&index);

  /* index_add_: values of dst's shape but len along dim */
  random_tensor(&index, &len, 1, DLX_INT64, bad, shape[dim]);
  memcpy(ishape, shape, sizeof shape[0] * (size_t)ndim);
  ishape[dim] = len;
  random_tensor(&values, ishape, ndim, dtype, RANDOM_BITS, 0);
  compare_in_place(do_index_add, &dst, &x);
  comparing_sums = false;
  dlx_tensor_close(&values);
  dlx_tensor_close(&index);

  /* masks of dst's shape, or broadcast to it (size-1 dims, fewer dims) */
  {
    int32_t mdim = (int32_t)rnd_below(ndim + 1);
    for (int32_t d = 0; d < mdim; d++) ishape[d] = rnd_below(3) == 0 ? 1 : shape[ndim - mdim + d];
    random_tensor(&mask, ishape, mdim, DLX_BOOL, MASK, 0);
  }
  x.mask = &mask;
  x.src = &dst;
  compare_out(do_masked_select, &x);
  x.value = (dlx_scalar){.kind = DLX_KIND_INT, .v.i = -3};
  compare_in_place(do_masked_fill, &dst, &x);
  {
    dlx_tensor chosen;
    int64_t count;
    as_cuda = false;
    CHECK(dlx_masked_select(&chosen, &dst, &mask, NULL) == 0);
    count = chosen.shape[0];
    dlx_tensor_close(&chosen);
    random_tensor(&values, &count, 1, dtype, RANDOM_BITS, 0);
    x.src = &values;
    compare_in_place(do_masked_assign, &dst, &x);
    dlx_tensor_close(&values);
  }
  dlx_tensor_close(&mask);

  /* nonzero of a bool tensor and of another dtype */
  random_tensor(&mask, shape, ndim, DLX_BOOL, MASK, 0);
  x.src = &mask;
  compare_out(do_nonzero, &x);
  x.src = &src;
  if (dlx_dtype_kind(src.dtype) != DLX_KIND_STORAGE) compare_out(do_nonzero, &x);
  dlx_tensor_close(&mask);
  dlx_tensor_close(&dst);
  dlx_tensor_close(&src);
}

/* A mask longer than a tile, and 0-d tensors. */
static void large_and_scalar_cases(void) {
  int64_t n = 3 * DLX_CUDA_INDEX_TILE + 77, shape[2] = {5, 1234};
  dlx_tensor src, mask, scalar, scalar_mask;
  args x = {0};
  snprintf(case_name, sizeof case_name, "a large mask");
  random_tensor(&src, &n, 1, DLX_FLOAT32, RANDOM_BITS, 0);
  random_tensor(&mask, &n, 1, DLX_BOOL, MASK, 0);
  x.src = &src;
  x.mask = &mask;
  compare_out(do_masked_select, &x);
  x.src = &mask;
  compare_out(do_nonzero, &x);
  dlx_tensor_close(&src);
  dlx_tensor_close(&mask);
  random_tensor(&mask, shape, 2, DLX_BOOL, MASK, 0);
  x.src = &mask;
  compare_out(do_nonzero, &x);
  dlx_tensor_close(&mask);

  snprintf(case_name, sizeof case_name, "0-d tensors");
  random_tensor(&scalar, NULL, 0, DLX_FLOAT64, RANDOM_BITS, 0);
  random_tensor(&scalar_mask, NULL, 0, DLX_BOOL, MASK, 0);
  ((uint8_t *)scalar_mask.buffer->data)[0] = 1;
  x.src = &scalar;
  x.mask = &scalar_mask;
  compare_out(do_masked_select, &x);
  x.value = (dlx_scalar){.kind = DLX_KIND_FLOAT, .v.f = 2.5};
  compare_in_place(do_masked_fill, &scalar, &x);
  dlx_tensor_close(&scalar);
  dlx_tensor_close(&scalar_mask);
}

int main(void) {
  rng_state = UINT64_C(0x9e3779b97f4a7c15); /* the xorshift64* of cpu_test_util.h */
  rules_backend = dlx_cpu_backend;
  rules_backend.index_op = rules_index_op;
  for (int trial = 0; trial < 400; trial++) one_case(trial);
  large_and_scalar_cases();
  return check_report("cuda_indexing_rules");
}
