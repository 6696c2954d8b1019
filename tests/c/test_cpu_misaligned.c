/* test_cpu_misaligned.c -- CPU kernels over operands at odd addresses. Foreign memory imported
 * through DLPack may hold float32 at an odd address, and the CPU takes it as it is: every index
 * op, sort, the random fills, the statistics and the ops along a dim must read and write such
 * operands (each one byte off its alignment here) and give the bytes they give on aligned
 * copies. Lengths are long enough for the vector loops. Under UBSan (the asan build) a typed
 * access to a misaligned operand fails the test. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/core.h"
#include "core/random.h"
#include "core/sort.h"
#include "core/stats.h"
#include "cpu/parallel.h"
#include "cpu_test_util.h"

enum { N = 1600, ROWS = 40, COLS = 64, K = 30, LONG_ROW = 300000 };

/* The same bytes twice: at an aligned address, and one byte off it. */
typedef struct twin {
  dlx_buffer *even, *odd;
  size_t nbytes;
} twin;

/* An operand of an index request: its memory, and the view the request walks. */
typedef struct operand {
  twin mem;
  dlx_dtype dtype;
  int ndim;
  int64_t shape[2], strides[2];
} operand;

static const dlx_dtype index_dtypes[] = {DLX_UINT8, DLX_INT16,     DLX_FLOAT32,   DLX_FLOAT64,
                                         DLX_INT64, DLX_COMPLEX64, DLX_COMPLEX128};
static const dlx_dtype add_dtypes[] = {DLX_INT16,   DLX_FLOAT16, DLX_FLOAT32,
                                       DLX_FLOAT64, DLX_INT64,   DLX_COMPLEX64};
#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static twin twin_new(size_t nbytes) {
  twin t = {new_buffer(nbytes), new_buffer(nbytes + 1), nbytes};
  t.odd->data = (char *)t.odd->data + 1;
  return t;
}

static void twin_free(twin *t) {
  t->odd->data = (char *)t->odd->data - 1;
  free_buffer(t->even);
  free_buffer(t->odd);
}

static void twin_set(twin *t, size_t at, const void *bytes, size_t size) {
  memcpy((char *)t->even->data + at, bytes, size);
  memcpy((char *)t->odd->data + at, bytes, size);
}

static bool twin_same(const twin *t) { return memcmp(t->even->data, t->odd->data, t->nbytes) == 0; }

static size_t itemsize(dlx_dtype dtype) { return (size_t)dlx_dtype_bits(dtype) / 8; }

/* Element i of memory of dtype: a number of the dtype (never NaN: sums stay comparable). */
static void set_value(twin *t, dlx_dtype dtype, int64_t i) {
  size_t size = itemsize(dtype);
  double x = rnd_unit() * 200 - 100;
  uint64_t bits = rnd();
  unsigned char bytes[16];
  float f[2] = {(float)x, (float)(x * 0.5)};
  double d[2] = {x, x * 0.25};
  uint16_t h = (uint16_t)(bits & 0x3bff); /* a finite float16 */
  switch (dtype) {
  case DLX_FLOAT16:
    memcpy(bytes, &h, 2);
    break;
  case DLX_FLOAT32:
  case DLX_COMPLEX64:
    memcpy(bytes, f, size);
    break;
  case DLX_FLOAT64:
  case DLX_COMPLEX128:
    memcpy(bytes, d, size);
    break;
  case DLX_BOOL:
    bytes[0] = rnd_below(3) == 0;
    break;
  default:
    memcpy(bytes, &bits, size);
  }
  twin_set(t, (size_t)i * size, bytes, size);
}

/* An operand over `elements` elements of memory, numbers of its dtype. */
static operand operand_new(dlx_dtype dtype, int ndim, const int64_t *shape, const int64_t *strides,
                           int64_t elements) {
  operand o;
  memset(&o, 0, sizeof o);
  o.mem = twin_new((size_t)elements * itemsize(dtype));
  o.dtype = dtype;
  o.ndim = ndim;
  for (int d = 0; d < ndim; d++) {
    o.shape[d] = shape[d];
    o.strides[d] = strides[d];
  }
  for (int64_t i = 0; i < elements; i++) set_value(&o.mem, dtype, i);
  return o;
}

/* An int64 index of random positions in 1..size or -size..-1 over `elements` elements. */
static operand index_new(int ndim, const int64_t *shape, const int64_t *strides, int64_t elements,
                         int64_t size) {
  operand o = operand_new(DLX_INT64, ndim, shape, strides, elements);
  for (int64_t i = 0; i < elements; i++) {
    int64_t v = rnd_below(size) + 1;
    if (rnd_below(4) == 0) v -= size + 1; /* the same place, counted from the end */
    twin_set(&o.mem, (size_t)i * 8, &v, 8);
  }
  return o;
}

static int64_t mask_count(const operand *mask, int64_t elements) {
  int64_t count = 0;
  for (int64_t i = 0; i < elements; i++) count += ((const uint8_t *)mask->mem.even->data)[i] != 0;
  return count;
}

static dlx_tensor view(const operand *o, bool odd) {
  return make_tensor(odd ? o->mem.odd : o->mem.even, o->dtype, o->ndim, o->shape, o->strides, 0);
}

/* Runs op on the aligned operands, then on the odd ones: the same return code, message, count
 * and dst bytes. dst and src may be NULL. */
static void run_both(dlx_index_op op, operand *dst, operand *src, operand *index, int32_t dim,
                     int64_t size, int64_t stride) {
  int rc[2];
  int64_t count[2];
  char message[2][sizeof(((dlx_error *)0)->message)];
  for (int odd = 0; odd < 2; odd++) {
    dlx_tensor d, s, i = view(index, odd);
    dlx_error err;
    if (dst != NULL) d = view(dst, odd);
    if (src != NULL) s = view(src, odd);
    dlx_index_request r = {
        op, dst != NULL ? &d : NULL, src != NULL ? &s : NULL, &i, dim, size, stride, 0};
    err.message[0] = '\0';
    rc[odd] = dlx_cpu_backend.index_op(&r, &err);
    count[odd] = r.count;
    memcpy(message[odd], err.message, sizeof message[odd]);
  }
  CHECK_EQ_INT(rc[0], rc[1]);
  CHECK_EQ_INT(count[0], count[1]);
  CHECK(strcmp(message[0], message[1]) == 0);
  if (dst != NULL) CHECK(twin_same(&dst->mem));
}

static void free_operands(operand *a, operand *b, operand *c) {
  operand *all[3] = {a, b, c};
  for (int k = 0; k < 3; k++)
    if (all[k] != NULL) twin_free(&all[k]->mem);
}

/* CHECK: a good index passes, a bad one names the first bad index. */
static void test_check(void) {
  int64_t shape[1] = {N}, strides[1] = {1}, zero = 0, big = 2001;
  operand index = index_new(1, shape, strides, N, 2000);
  run_both(DLX_INDEX_CHECK, NULL, NULL, &index, 0, 2000, 0);
  twin_set(&index.mem, 1234 * 8, &zero, 8);
  twin_set(&index.mem, 1500 * 8, &big, 8);
  dlx_tensor t = view(&index, true);
  dlx_index_request r = {DLX_INDEX_CHECK, NULL, NULL, &t, 0, 2000, 0, 0};
  dlx_error err;
  CHECK_EQ_INT(dlx_cpu_backend.index_op(&r, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "index 0 out of range") != NULL);
  run_both(DLX_INDEX_CHECK, NULL, NULL, &index, 0, 2000, 0);
  twin_free(&index.mem);
}

/* GATHER: index_select along a 1-D tensor (near and far sources), along dim 1 of a matrix, and
 * rows into a transposed dst (one index per row: strided copies). */
static void test_gather(void) {
  for (int k = 0; k < COUNT_OF(index_dtypes); k++) {
    dlx_dtype dtype = index_dtypes[k];
    for (int64_t size = 2000; size <= 200000; size *= 100) {
      int64_t shape[1] = {N}, one[1] = {1}, none[1] = {0};
      operand dst = operand_new(dtype, 1, shape, one, N);
      operand src = operand_new(dtype, 1, shape, none, size);
      operand index = index_new(1, shape, one, N, size);
      run_both(DLX_INDEX_GATHER, &dst, &src, &index, 0, size, 1);
      free_operands(&dst, &src, &index);
    }
    int64_t shape[2] = {K, COLS}, rowmajor[2] = {COLS, 1}, down[2] = {0, 1};
    int64_t transposed[2] = {1, K}, per_row[2] = {1, 0};
    operand dst = operand_new(dtype, 2, shape, rowmajor, K * COLS);
    operand src = operand_new(dtype, 2, shape, down, ROWS * COLS);
    operand index = index_new(2, shape, rowmajor, K * COLS, ROWS);
    run_both(DLX_INDEX_GATHER, &dst, &src, &index, 0, ROWS, COLS);
    free_operands(&dst, NULL, &index);
    dst = operand_new(dtype, 2, shape, transposed, K * COLS);
    index = index_new(2, shape, per_row, K, ROWS);
    run_both(DLX_INDEX_GATHER, &dst, &src, &index, 0, ROWS, COLS);
    free_operands(&dst, &src, &index);
  }
}

/* SCATTER and SCATTER_ADD (add: true): a 1-D index with repeats, one index for all (scatter: the
 * last write wins), and rows from a transposed src (index_copy and index_add). */
static void test_scatter(bool add) {
  dlx_index_op op = add ? DLX_INDEX_SCATTER_ADD : DLX_INDEX_SCATTER;
  const dlx_dtype *dtypes = add ? add_dtypes : index_dtypes;
  int count = add ? COUNT_OF(add_dtypes) : COUNT_OF(index_dtypes);
  for (int k = 0; k < count; k++) {
    dlx_dtype dtype = dtypes[k];
    int64_t shape[1] = {N}, one[1] = {1}, none[1] = {0};
    operand dst = operand_new(dtype, 1, shape, none, 2000);
    operand src = operand_new(dtype, 1, shape, one, N);
    operand index = index_new(1, shape, one, N, 2000);
    run_both(op, &dst, &src, &index, 0, 2000, 1);
    free_operands(NULL, NULL, &index);
    index = index_new(1, shape, none, 1, 2000);
    run_both(op, &dst, &src, &index, 0, 2000, 1);
    free_operands(&dst, &src, &index);
    int64_t shape2[2] = {K, COLS}, down[2] = {0, 1}, transposed[2] = {1, K}, per_row[2] = {1, 0};
    dst = operand_new(dtype, 2, shape2, down, ROWS * COLS);
    src = operand_new(dtype, 2, shape2, transposed, K * COLS);
    index = index_new(2, shape2, per_row, K, ROWS);
    run_both(op, &dst, &src, &index, 0, ROWS, COLS);
    free_operands(&dst, &src, &index);
  }
}

/* A bool mask of n elements. */
static operand mask_new(int ndim, const int64_t *shape, const int64_t *strides, int64_t n) {
  return operand_new(DLX_BOOL, ndim, shape, strides, n);
}

/* MASKED_SELECT: a 1-D mask (one chunk, and more than one), and a mask broadcast along rows. */
static void test_masked_select(void) {
  for (int k = 0; k < COUNT_OF(index_dtypes); k++) {
    dlx_dtype dtype = index_dtypes[k];
    for (int64_t n = N; n <= 80000; n *= 50) {
      int64_t shape[1] = {n}, one[1] = {1};
      operand mask = mask_new(1, shape, one, n), src = operand_new(dtype, 1, shape, one, n);
      int64_t out[1] = {mask_count(&mask, n)};
      operand dst = operand_new(dtype, 1, out, one, out[0]);
      run_both(DLX_INDEX_MASKED_SELECT, &dst, &src, &mask, 0, 0, 0);
      free_operands(&dst, &src, &mask);
    }
    int64_t shape[2] = {ROWS, COLS}, rowmajor[2] = {COLS, 1}, per_row[2] = {1, 0}, one[1] = {1};
    operand mask = mask_new(2, shape, per_row, ROWS);
    operand src = operand_new(dtype, 2, shape, rowmajor, ROWS * COLS);
    int64_t out[1] = {mask_count(&mask, ROWS) * COLS};
    operand dst = operand_new(dtype, 1, out, one, out[0]);
    run_both(DLX_INDEX_MASKED_SELECT, &dst, &src, &mask, 0, 0, 0);
    free_operands(&dst, &src, &mask);
  }
}

/* MASKED_SCATTER: from a 1-D src, and a fill (src's stride 0). */
static void test_masked_scatter(void) {
  for (int k = 0; k < COUNT_OF(index_dtypes); k++) {
    dlx_dtype dtype = index_dtypes[k];
    int64_t shape[1] = {N}, one[1] = {1}, none[1] = {0};
    operand mask = mask_new(1, shape, one, N), dst = operand_new(dtype, 1, shape, one, N);
    int64_t count[1] = {mask_count(&mask, N)};
    operand src = operand_new(dtype, 1, count, one, count[0]);
    run_both(DLX_INDEX_MASKED_SCATTER, &dst, &src, &mask, 0, 0, 0);
    free_operands(NULL, &src, NULL);
    src = operand_new(dtype, 1, count, none, 1);
    run_both(DLX_INDEX_MASKED_SCATTER, &dst, &src, &mask, 0, 0, 0);
    free_operands(&dst, &src, &mask);
  }
}

/* NONZERO of a matrix and COUNT of its mask. */
static void test_nonzero_and_count(void) {
  int64_t shape[2] = {ROWS, COLS}, rowmajor[2] = {COLS, 1};
  operand mask = mask_new(2, shape, rowmajor, ROWS * COLS);
  int64_t out[2] = {mask_count(&mask, ROWS * COLS), 2}, outer[2] = {2, 1};
  operand dst = operand_new(DLX_INT64, 2, out, outer, out[0] * 2);
  run_both(DLX_INDEX_NONZERO, &dst, NULL, &mask, 0, 0, 0);
  run_both(DLX_INDEX_COUNT, NULL, NULL, &mask, 0, 0, 0);
  free_operands(&dst, NULL, &mask);
}

static bool same_result(const dlx_tensor *a, const dlx_tensor *b) {
  size_t size = itemsize(a->dtype), n = (size_t)dlx_tensor_numel(a);
  return a->dtype == b->dtype && n == (size_t)dlx_tensor_numel(b) &&
         memcmp((char *)a->buffer->data + (size_t)a->offset * size,
                (char *)b->buffer->data + (size_t)b->offset * size, n * size) == 0;
}

/* A 2 x N matrix of numbers of dtype, aligned and odd. */
static operand matrix_new(dlx_dtype dtype) {
  int64_t shape[2] = {2, N}, strides[2] = {N, 1};
  return operand_new(dtype, 2, shape, strides, 2 * N);
}

/* sort along the rows, ascending and descending. */
static void test_sort(void) {
  const dlx_dtype dtypes[] = {DLX_UINT8, DLX_INT16, DLX_FLOAT32, DLX_FLOAT64, DLX_INT64};
  for (int k = 0; k < COUNT_OF(dtypes); k++) {
    operand m = matrix_new(dtypes[k]);
    for (int descending = 0; descending < 2; descending++) {
      dlx_tensor values[2], indices[2];
      for (int odd = 0; odd < 2; odd++) {
        dlx_tensor src = view(&m, odd);
        dlx_error err;
        CHECK(dlx_sort(&values[odd], &indices[odd], &src, 1, descending, "sort", &err) == 0);
      }
      CHECK(same_result(&values[0], &values[1]));
      CHECK(same_result(&indices[0], &indices[1]));
      for (int odd = 0; odd < 2; odd++) {
        dlx_tensor_close(&values[odd]);
        dlx_tensor_close(&indices[odd]);
      }
    }
    twin_free(&m.mem);
  }
}

/* One row long enough to be cut into blocks over 3 threads: aligned, odd, and aligned on one
 * thread give the same bytes. */
static void test_sort_long_row(void) {
  const dlx_dtype dtypes[] = {DLX_UINT8, DLX_FLOAT16, DLX_FLOAT32, DLX_FLOAT64};
  int64_t shape[1] = {LONG_ROW}, strides[1] = {1};
  for (int k = 0; k < COUNT_OF(dtypes); k++) {
    operand row = operand_new(dtypes[k], 1, shape, strides, LONG_ROW);
    dlx_tensor values[3], indices[3];
    for (int run = 0; run < 3; run++) {
      dlx_tensor src = view(&row, run == 1);
      dlx_error err;
      dlx_cpu_set_num_threads(run == 2 ? 1 : 3);
      CHECK(dlx_sort(&values[run], &indices[run], &src, 0, false, "sort", &err) == 0);
    }
    dlx_cpu_set_num_threads(0);
    for (int run = 1; run < 3; run++) {
      CHECK(same_result(&values[0], &values[run]));
      CHECK(same_result(&indices[0], &indices[run]));
    }
    for (int run = 0; run < 3; run++) {
      dlx_tensor_close(&values[run]);
      dlx_tensor_close(&indices[run]);
    }
    twin_free(&row.mem);
  }
}

/* Random fills of every kind into odd memory: the numbers of aligned memory. */
static void test_random(void) {
  static const struct {
    dlx_dtype dtype;
    dlx_random_request r;
  } fills[] = {
      {DLX_FLOAT32, {.kind = DLX_RANDOM_UNIFORM, .a = 0, .b = 1}},
      {DLX_FLOAT32, {.kind = DLX_RANDOM_UNIFORM, .a = -2, .b = 3}},
      {DLX_FLOAT64, {.kind = DLX_RANDOM_UNIFORM, .a = -2, .b = 3}},
      {DLX_FLOAT16, {.kind = DLX_RANDOM_UNIFORM, .a = 0, .b = 1}},
      {DLX_BFLOAT16, {.kind = DLX_RANDOM_UNIFORM, .a = 0, .b = 1}},
      {DLX_FLOAT32, {.kind = DLX_RANDOM_NORMAL, .a = 1, .b = 2}},
      {DLX_FLOAT64, {.kind = DLX_RANDOM_NORMAL, .a = 1, .b = 2}},
      {DLX_FLOAT16, {.kind = DLX_RANDOM_NORMAL, .a = 0, .b = 1}},
      {DLX_BFLOAT16, {.kind = DLX_RANDOM_NORMAL, .a = 0, .b = 1}},
      {DLX_INT16, {.kind = DLX_RANDOM_INT, .low = -5, .range = 100}},
      {DLX_INT32, {.kind = DLX_RANDOM_INT, .low = -5, .range = 100}},
      {DLX_UINT32, {.kind = DLX_RANDOM_INT, .low = 0, .range = UINT64_C(1) << 32}},
      {DLX_INT64, {.kind = DLX_RANDOM_INT, .low = -5, .range = UINT64_C(1) << 40}},
      {DLX_UINT64, {.kind = DLX_RANDOM_INT, .low = 7, .range = 1000}},
  };
  for (int k = 0; k < COUNT_OF(fills); k++) {
    int64_t shape[1] = {N + 1}, one[1] = {1}; /* an odd length: a partial block at the end */
    operand t = operand_new(fills[k].dtype, 1, shape, one, N + 1);
    for (int odd = 0; odd < 2; odd++) {
      dlx_generator g;
      dlx_random_request r = fills[k].r;
      dlx_tensor v = view(&t, odd);
      dlx_error err;
      dlx_generator_seed(&g, 1234);
      CHECK(dlx_random_fill(&g, &v, &r, "fill", &err) == 0);
    }
    CHECK(twin_same(&t.mem));
    twin_free(&t.mem);
  }
}

/* var, logsumexp and norm over the rows, and cumsum, softmax and log_softmax along them. */
static void test_stats(void) {
  const dlx_dtype dtypes[] = {DLX_FLOAT32, DLX_FLOAT64, DLX_INT32};
  for (int k = 0; k < COUNT_OF(dtypes); k++) {
    operand m = matrix_new(dtypes[k]);
    for (int op = DLX_STAT_VAR; op <= DLX_STAT_NORM; op++) {
      dlx_tensor out[2];
      for (int odd = 0; odd < 2; odd++) {
        dlx_tensor src = view(&m, odd);
        dlx_error err;
        CHECK(dlx_reduce_stat(&out[odd], (dlx_stat_op)op, op == DLX_STAT_NORM ? 2 : 1, &src, 2,
                              false, &err) == 0);
      }
      CHECK(same_result(&out[0], &out[1]));
      dlx_tensor_close(&out[0]);
      dlx_tensor_close(&out[1]);
    }
    for (int op = DLX_DIM_CUMSUM; op <= DLX_DIM_LOG_SOFTMAX; op++) {
      dlx_tensor out[2];
      for (int odd = 0; odd < 2; odd++) {
        dlx_tensor src = view(&m, odd);
        dlx_error err;
        CHECK(dlx_along_dim(&out[odd], (dlx_dim_op)op, &src, 1, &err) == 0);
      }
      CHECK(same_result(&out[0], &out[1]));
      dlx_tensor_close(&out[0]);
      dlx_tensor_close(&out[1]);
    }
    twin_free(&m.mem);
  }
}

int main(void) {
  rng_state = 0x0dd;
  printf("seed 0x0dd\n");
  test_check();
  test_gather();
  test_scatter(false);
  test_scatter(true);
  test_masked_select();
  test_masked_scatter();
  test_nonzero_and_count();
  test_sort();
  test_sort_long_row();
  test_random();
  test_stats();
  return check_report("test_cpu_misaligned");
}
