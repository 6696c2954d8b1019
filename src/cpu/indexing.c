/* indexing.c -- the CPU's index_op (backend.h): gather, scatter, masks and nonzero, over
 * tensors of any strides, walked in row-major order. Elements move as whole bytes. */
#include <string.h>

#include "common/convert.h"
#include "core/backend.h"
#include "core/error.h"
#include "cpu/kernels.h"

#define MAX_OPS 3

/* Row-major walk of up to MAX_OPS operands of one shape: an odometer over the outer dims around
 * the last one, which the caller loops over. A 0-d shape is one row of one element. */
typedef struct walk {
  int32_t ndim;
  int64_t shape[DLX_MAX_NDIM];
  int64_t coord[DLX_MAX_NDIM];
  int nops;
  int64_t strides[MAX_OPS][DLX_MAX_NDIM];
  int64_t pos[MAX_OPS]; /* the first element of the current row, in elements from the base */
} walk;

static void walk_init(walk *w, const dlx_tensor *shape_of, int nops, const dlx_tensor *const *ops) {
  w->ndim = shape_of->ndim > 0 ? shape_of->ndim : 1;
  w->nops = nops;
  for (int32_t d = 0; d < w->ndim; d++) {
    w->shape[d] = shape_of->ndim > 0 ? shape_of->shape[d] : 1;
    w->coord[d] = 0;
    for (int k = 0; k < nops; k++) w->strides[k][d] = ops[k]->ndim > 0 ? ops[k]->strides[d] : 0;
  }
  for (int k = 0; k < nops; k++) w->pos[k] = 0;
}

/* Moves to the next row; false after the last one. */
static bool walk_next(walk *w) {
  for (int32_t d = w->ndim - 2; d >= 0; d--) {
    if (++w->coord[d] < w->shape[d]) {
      for (int k = 0; k < w->nops; k++) w->pos[k] += w->strides[k][d];
      return true;
    }
    w->coord[d] = 0;
    for (int k = 0; k < w->nops; k++) w->pos[k] -= (w->shape[d] - 1) * w->strides[k][d];
  }
  return false;
}

static int64_t rows_inner(const walk *w) { return w->shape[w->ndim - 1]; }
static int64_t inner_stride(const walk *w, int k) { return w->strides[k][w->ndim - 1]; }

static char *base_of(const dlx_tensor *t) {
  return (char *)t->buffer->data + t->offset * (int64_t)(dlx_dtype_bits(t->dtype) / 8);
}

static void copy_element(char *dst, const char *src, size_t size) {
  switch (size) { /* constant sizes: a load and a store each */
  case 1:
    memcpy(dst, src, 1);
    break;
  case 2:
    memcpy(dst, src, 2);
    break;
  case 4:
    memcpy(dst, src, 4);
    break;
  case 8:
    memcpy(dst, src, 8);
    break;
  default:
    memcpy(dst, src, size);
  }
}

/* The 0-based position of a checked 1-based or negative index. */
static inline int64_t zero_based(int64_t i, int64_t size) { return i < 0 ? i + size : i - 1; }

static int check_indices(const dlx_index_request *r, dlx_error *err) {
  const int64_t *data = (const int64_t *)(void *)base_of(r->index);
  walk w;
  walk_init(&w, r->index, 1, &r->index);
  do {
    int64_t n = rows_inner(&w), s = inner_stride(&w, 0);
    for (int64_t j = 0; j < n; j++) {
      int64_t i = data[w.pos[0] + j * s];
      if ((i >= 1 && i <= r->size) || (i < 0 && i >= -r->size)) continue;
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "index %lld out of range for dim %d of size %lld (expected -%lld..%lld, "
                      "not 0)",
                      (long long)i, (int)r->dim + 1, (long long)r->size, (long long)r->size,
                      (long long)r->size);
    }
  } while (walk_next(&w));
  return 0;
}

static int gather(const dlx_index_request *r) {
  const dlx_tensor *ops[3] = {r->dst, r->src, r->index};
  size_t size = (size_t)dlx_dtype_bits(r->dst->dtype) / 8;
  char *dst = base_of(r->dst);
  const char *src = base_of(r->src);
  const int64_t *index = (const int64_t *)(void *)base_of(r->index);
  walk w;
  walk_init(&w, r->dst, 3, ops);
  do {
    int64_t n = rows_inner(&w), sd = inner_stride(&w, 0), ss = inner_stride(&w, 1),
            si = inner_stride(&w, 2);
    for (int64_t j = 0; j < n; j++) {
      int64_t at = w.pos[1] + j * ss + zero_based(index[w.pos[2] + j * si], r->size) * r->stride;
      copy_element(dst + (w.pos[0] + j * sd) * (int64_t)size, src + at * (int64_t)size, size);
    }
  } while (walk_next(&w));
  return 0;
}

/* *d += *s for one element of a computable dtype. */
static void add_element(dlx_dtype dtype, void *d, const void *s) {
  switch (dtype) {
#define ADD_INT(enum_, type, wide)                                                                 \
  case enum_: {                                                                                    \
    type a, b;                                                                                     \
    memcpy(&a, d, sizeof a);                                                                       \
    memcpy(&b, s, sizeof b);                                                                       \
    a = (type)((wide)a + (wide)b); /* wraps: computed unsigned */                                  \
    memcpy(d, &a, sizeof a);                                                                       \
    return;                                                                                        \
  }
    ADD_INT(DLX_INT8, int8_t, uint32_t)
    ADD_INT(DLX_INT16, int16_t, uint32_t)
    ADD_INT(DLX_INT32, int32_t, uint32_t)
    ADD_INT(DLX_INT64, int64_t, uint64_t)
    ADD_INT(DLX_UINT8, uint8_t, uint32_t)
    ADD_INT(DLX_UINT16, uint16_t, uint32_t)
    ADD_INT(DLX_UINT32, uint32_t, uint32_t)
    ADD_INT(DLX_UINT64, uint64_t, uint64_t)
    ADD_INT(DLX_FLOAT32, float, float)
    ADD_INT(DLX_FLOAT64, double, double)
#undef ADD_INT
  case DLX_BOOL:
    *(uint8_t *)d = (uint8_t)(*(uint8_t *)d || *(const uint8_t *)s);
    return;
  case DLX_FLOAT16: {
    uint16_t a, b;
    memcpy(&a, d, 2);
    memcpy(&b, s, 2);
    a = dlx_float_to_half(dlx_half_to_float(a) + dlx_half_to_float(b));
    memcpy(d, &a, 2);
    return;
  }
  case DLX_BFLOAT16: {
    uint16_t a, b;
    memcpy(&a, d, 2);
    memcpy(&b, s, 2);
    a = dlx_float_to_bf16(dlx_bf16_to_float(a) + dlx_bf16_to_float(b));
    memcpy(d, &a, 2);
    return;
  }
  case DLX_COMPLEX64: {
    float a[2], b[2];
    memcpy(a, d, sizeof a);
    memcpy(b, s, sizeof b);
    a[0] += b[0];
    a[1] += b[1];
    memcpy(d, a, sizeof a);
    return;
  }
  case DLX_COMPLEX128: {
    double a[2], b[2];
    memcpy(a, d, sizeof a);
    memcpy(b, s, sizeof b);
    a[0] += b[0];
    a[1] += b[1];
    memcpy(d, a, sizeof a);
    return;
  }
  default:
    return; /* the core refuses other dtypes */
  }
}

static int scatter(const dlx_index_request *r, bool accumulate) {
  const dlx_tensor *ops[3] = {r->index, r->src, r->dst};
  size_t size = (size_t)dlx_dtype_bits(r->dst->dtype) / 8;
  char *dst = base_of(r->dst);
  const char *src = base_of(r->src);
  const int64_t *index = (const int64_t *)(void *)base_of(r->index);
  walk w;
  walk_init(&w, r->index, 3, ops);
  do {
    int64_t n = rows_inner(&w), si = inner_stride(&w, 0), ss = inner_stride(&w, 1),
            sd = inner_stride(&w, 2);
    for (int64_t j = 0; j < n; j++) {
      int64_t at = w.pos[2] + j * sd + zero_based(index[w.pos[0] + j * si], r->size) * r->stride;
      const char *from = src + (w.pos[1] + j * ss) * (int64_t)size;
      if (accumulate)
        add_element(r->dst->dtype, dst + at * (int64_t)size, from);
      else
        copy_element(dst + at * (int64_t)size, from, size);
    }
  } while (walk_next(&w));
  return 0;
}

static int masked_select(const dlx_index_request *r) {
  const dlx_tensor *ops[2] = {r->src, r->index};
  size_t size = (size_t)dlx_dtype_bits(r->src->dtype) / 8;
  char *dst = base_of(r->dst);
  const char *src = base_of(r->src);
  const uint8_t *mask = (const uint8_t *)base_of(r->index);
  walk w;
  walk_init(&w, r->src, 2, ops);
  do {
    int64_t n = rows_inner(&w), ss = inner_stride(&w, 0), sm = inner_stride(&w, 1);
    for (int64_t j = 0; j < n; j++) {
      if (!mask[w.pos[1] + j * sm]) continue;
      copy_element(dst, src + (w.pos[0] + j * ss) * (int64_t)size, size);
      dst += size;
    }
  } while (walk_next(&w));
  return 0;
}

static int masked_scatter(const dlx_index_request *r) {
  const dlx_tensor *ops[2] = {r->dst, r->index};
  size_t size = (size_t)dlx_dtype_bits(r->dst->dtype) / 8;
  char *dst = base_of(r->dst);
  const char *src = base_of(r->src);
  const uint8_t *mask = (const uint8_t *)base_of(r->index);
  int64_t step = r->src->strides[0] * (int64_t)size;
  walk w;
  walk_init(&w, r->dst, 2, ops);
  do {
    int64_t n = rows_inner(&w), sd = inner_stride(&w, 0), sm = inner_stride(&w, 1);
    for (int64_t j = 0; j < n; j++) {
      if (!mask[w.pos[1] + j * sm]) continue;
      copy_element(dst + (w.pos[0] + j * sd) * (int64_t)size, src, size);
      src += step;
    }
  } while (walk_next(&w));
  return 0;
}

static int64_t count_true(const dlx_index_request *r) {
  const uint8_t *mask = (const uint8_t *)base_of(r->index);
  int64_t count = 0;
  walk w;
  walk_init(&w, r->index, 1, &r->index);
  do {
    int64_t n = rows_inner(&w), sm = inner_stride(&w, 0);
    for (int64_t j = 0; j < n; j++) count += mask[w.pos[0] + j * sm] != 0;
  } while (walk_next(&w));
  return count;
}

static int nonzero(const dlx_index_request *r) {
  const uint8_t *mask = (const uint8_t *)base_of(r->index);
  int64_t *dst = (int64_t *)(void *)base_of(r->dst);
  int32_t ndim = r->index->ndim;
  walk w;
  walk_init(&w, r->index, 1, &r->index);
  do {
    int64_t n = rows_inner(&w), sm = inner_stride(&w, 0);
    for (int64_t j = 0; j < n; j++) {
      if (!mask[w.pos[0] + j * sm]) continue;
      for (int32_t d = 0; d + 1 < ndim; d++) *dst++ = w.coord[d] + 1;
      *dst++ = j + 1;
    }
  } while (walk_next(&w));
  return 0;
}

int dlx_cpu_index_op(dlx_index_request *r, dlx_error *err) {
  switch (r->op) {
  case DLX_INDEX_CHECK:
    return check_indices(r, err);
  case DLX_INDEX_GATHER:
    return gather(r);
  case DLX_INDEX_SCATTER:
    return scatter(r, false);
  case DLX_INDEX_SCATTER_ADD:
    return scatter(r, true);
  case DLX_INDEX_MASKED_SELECT:
    return masked_select(r);
  case DLX_INDEX_MASKED_SCATTER:
    return masked_scatter(r);
  case DLX_INDEX_NONZERO:
    return nonzero(r);
  case DLX_INDEX_COUNT:
    r->count = count_true(r);
    return 0;
  }
  return dlx_fail(err, DLX_VALUE_ERROR, "unknown indexing op %d", (int)r->op);
}
