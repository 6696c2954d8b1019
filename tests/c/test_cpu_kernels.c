/* test_cpu_kernels.c -- the CPU backend's table, allocator, copy over every kind of layout
 * (odd shapes, size-0 and size-1 dims, 0-d, negative, zero and gapped strides, permutations,
 * offsets), packed fp4/fp6 copies, storage-only dtypes and fill. Layouts are random (fixed
 * seed, printed); each copied element is checked against the source element at the same index,
 * and every byte the destination view does not cover is checked to be untouched. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/core.h"
#include "cpu/cpu.h"
#include "cpu_test_util.h"

static const unsigned char SENTINEL = 0xA5;

/* ---- buffers and tensors over the backend's memory */

/* Advances a row-major index; false after the last one. */
static int next_index(int ndim, const int64_t *shape, int64_t *index) {
  for (int d = ndim - 1; d >= 0; d--) {
    if (++index[d] < shape[d]) return 1;
    index[d] = 0;
  }
  return 0;
}

static int64_t position(const dlx_tensor *t, const int64_t *index) {
  int64_t pos = t->offset;
  for (int d = 0; d < t->ndim; d++) pos += index[d] * t->strides[d];
  return pos;
}

/* A random layout for shape: dims laid out in a random order, some with gaps, some reversed,
 * (when zeros) some broadcast, after a random offset. Returns the elements the buffer needs. */
static int64_t random_layout(int ndim, const int64_t *shape, int zeros, int64_t *strides,
                             int64_t *offset) {
  int perm[DLX_MAX_NDIM];
  for (int d = 0; d < ndim; d++) perm[d] = d;
  for (int d = ndim - 1; d > 0; d--) {
    int j = (int)rnd_below(d + 1), t = perm[d];
    perm[d] = perm[j];
    perm[j] = t;
  }
  int64_t step = 1 + rnd_below(2);
  for (int k = ndim - 1; k >= 0; k--) {
    int d = perm[k];
    strides[d] = zeros && rnd_below(4) == 0 ? 0 : step;
    step *= shape[d] + rnd_below(2); /* + 1: a gap after this dim */
  }
  *offset = rnd_below(4);
  int64_t extent = *offset + 1;
  for (int d = 0; d < ndim; d++) {
    if (rnd_below(3) == 0 && strides[d] != 0) { /* walk this dim backwards */
      *offset += (shape[d] - 1) * strides[d];
      strides[d] = -strides[d];
    }
    extent += (shape[d] > 0 ? shape[d] - 1 : 0) * (strides[d] < 0 ? -strides[d] : strides[d]);
  }
  return extent;
}

static int random_shape(int64_t *shape) {
  int ndim = (int)rnd_below(6);
  for (int d = 0; d < ndim; d++) {
    int64_t r = rnd_below(10);
    shape[d] = r == 0 ? 0 : r <= 2 ? 1 : r <= 7 ? 2 + rnd_below(4) : 7 + rnd_below(12);
  }
  if (numel(ndim, shape) > 4000) return random_shape(shape);
  return ndim;
}

/* ---- whole-byte copies over random layouts */

typedef struct pair {
  dlx_dtype src, dst;
} pair;

static const pair pairs[] = {{DLX_BOOL, DLX_BOOL},
                             {DLX_INT16, DLX_INT16},
                             {DLX_FLOAT32, DLX_FLOAT32},
                             {DLX_INT64, DLX_INT64},
                             {DLX_COMPLEX128, DLX_COMPLEX128},
                             {DLX_FLOAT8_E4M3FN, DLX_FLOAT8_E4M3FN},
                             {DLX_FLOAT4_E2M1FN_X2, DLX_FLOAT4_E2M1FN_X2},
                             {DLX_INT32, DLX_FLOAT64},
                             {DLX_UINT8, DLX_INT16},
                             {DLX_INT16, DLX_INT8},
                             {DLX_FLOAT32, DLX_FLOAT64},
                             {DLX_FLOAT64, DLX_COMPLEX64}};

/* The expected destination bytes for these pairs, whose casts are exact or plain wraps. */
static void expected(pair p, const unsigned char *s, unsigned char *out) {
  int32_t i32;
  int16_t i16;
  float f32;
  double f64;
  float c64[2] = {0, 0};
  switch (p.src * 100 + p.dst) {
  case DLX_INT32 * 100 + DLX_FLOAT64:
    memcpy(&i32, s, 4);
    f64 = i32;
    memcpy(out, &f64, 8);
    return;
  case DLX_UINT8 * 100 + DLX_INT16:
    i16 = s[0];
    memcpy(out, &i16, 2);
    return;
  case DLX_INT16 * 100 + DLX_INT8:
    out[0] = s[0];
    return; /* the low byte */
  case DLX_FLOAT32 * 100 + DLX_FLOAT64:
    memcpy(&f32, s, 4);
    f64 = f32;
    memcpy(out, &f64, 8);
    return;
  case DLX_FLOAT64 * 100 + DLX_COMPLEX64:
    memcpy(&f64, s, 8);
    c64[0] = (float)f64;
    memcpy(out, c64, 8);
    return;
  default:
    memcpy(out, s, (size_t)dlx_itemsize(p.src));
    return;
  }
}

static void random_values(dlx_dtype t, unsigned char *data, int64_t count) {
  for (int64_t i = 0; i < count * dlx_itemsize(t); i++) data[i] = (unsigned char)rnd();
  if (t == DLX_FLOAT32) { /* finite values, so that bytes compare */
    for (int64_t i = 0; i < count; i++) {
      float f = (float)(int32_t)rnd() / 4096.0f;
      memcpy(data + i * 4, &f, 4);
    }
  }
  if (t == DLX_FLOAT64) {
    for (int64_t i = 0; i < count; i++) {
      double f = (double)(int64_t)rnd() / 1024.0;
      memcpy(data + i * 8, &f, 8);
    }
  }
}

static int trial_errors;

static void copy_trial(void) {
  int64_t shape[DLX_MAX_NDIM], sstrides[DLX_MAX_NDIM], dstrides[DLX_MAX_NDIM], soff, doff;
  int ndim = random_shape(shape);
  pair p = pairs[rnd_below(sizeof pairs / sizeof pairs[0])];
  int64_t ssize = dlx_itemsize(p.src), dsize = dlx_itemsize(p.dst);
  int64_t sext = random_layout(ndim, shape, 1, sstrides, &soff);
  int64_t dext = random_layout(ndim, shape, 0, dstrides, &doff);
  dlx_buffer *sb = new_buffer((size_t)(sext * ssize)), *db = new_buffer((size_t)(dext * dsize));
  unsigned char *covered = calloc((size_t)(dext * dsize), 1);
  random_values(p.src, sb->data, sext);
  dlx_tensor s = make_tensor(sb, p.src, ndim, shape, sstrides, soff);
  dlx_tensor d = make_tensor(db, p.dst, ndim, shape, dstrides, doff);
  dlx_error err;
  CHECK_EQ_INT(dlx_cpu_backend.copy(&d, &s, &err), 0);
  int64_t index[DLX_MAX_NDIM] = {0};
  int ok = 1;
  if (numel(ndim, shape) > 0) {
    do {
      unsigned char want[16];
      int64_t dpos = position(&d, index) * dsize;
      expected(p, (unsigned char *)sb->data + position(&s, index) * ssize, want);
      if (memcmp(want, (unsigned char *)db->data + dpos, (size_t)dsize) != 0) ok = 0;
      memset(covered + dpos, 1, (size_t)dsize);
    } while (next_index(ndim, shape, index));
  }
  for (int64_t b = 0; b < dext * dsize; b++) {
    if (!covered[b] && ((unsigned char *)db->data)[b] != SENTINEL) ok = 0;
  }
  if (!ok && trial_errors++ < 5) {
    fprintf(stderr, "copy %s -> %s failed: shape", dlx_dtype_info_of(p.src)->name,
            dlx_dtype_info_of(p.dst)->name);
    for (int k = 0; k < ndim; k++)
      fprintf(stderr, " %" PRId64 " (src %" PRId64 ", dst %" PRId64 ")", shape[k], sstrides[k],
              dstrides[k]);
    fprintf(stderr, "\n");
  }
  CHECK(ok);
  free(covered);
  free_buffer(sb);
  free_buffer(db);
}

static void test_random_copies(void) {
  for (int i = 0; i < 3000; i++) copy_trial();
}

/* Layouts written out: a transpose, a reversed tensor, a broadcast row, 0-d, size 0. */
static void test_named_layouts(void) {
  dlx_buffer *sb = new_buffer(300 * 500 * 4), *db = new_buffer(300 * 500 * 4);
  float *s = sb->data, *d = db->data;
  dlx_error err;
  for (int i = 0; i < 300 * 500; i++) s[i] = (float)i;
  int64_t shape[2] = {500, 300}, tstrides[2] = {1, 500}, cstrides[2] = {300, 1};
  dlx_tensor src = make_tensor(sb, DLX_FLOAT32, 2, shape, tstrides, 0);
  dlx_tensor dst = make_tensor(db, DLX_FLOAT32, 2, shape, cstrides, 0);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&dst, &src, &err), 0);
  CHECK(d[0] == 0.0f && d[1] == 500.0f && d[300] == 1.0f && d[299 * 1 + 499 * 300] == 149999.0f);

  int64_t n[1] = {150000}, rev[1] = {-1}, one[1] = {1};
  src = make_tensor(sb, DLX_FLOAT32, 1, n, rev, 149999);
  dst = make_tensor(db, DLX_FLOAT32, 1, n, one, 0);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&dst, &src, &err), 0);
  CHECK(d[0] == 149999.0f && d[149999] == 0.0f && d[1000] == 148999.0f);

  int64_t bstrides[2] = {0, 1}, bshape[2] = {4, 300};
  src = make_tensor(sb, DLX_FLOAT32, 2, bshape, bstrides, 7);
  dst = make_tensor(db, DLX_FLOAT32, 2, bshape, cstrides, 0);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&dst, &src, &err), 0);
  CHECK(d[0] == 7.0f && d[300] == 7.0f && d[3 * 300 + 299] == 306.0f);

  src = make_tensor(sb, DLX_FLOAT32, 0, NULL, NULL, 42); /* 0-d */
  dst = make_tensor(db, DLX_FLOAT64, 0, NULL, NULL, 1);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&dst, &src, &err), 0);
  CHECK(((double *)db->data)[1] == 42.0);
  free_buffer(sb);
  free_buffer(db);

  /* size 0: the data pointers may be NULL and must not be touched */
  dlx_buffer empty = {.data = NULL, .nbytes = 0, .device = {kDLCPU, 0}};
  int64_t zshape[3] = {3, 0, 2}, zstrides[3] = {0, 0, 0};
  src = make_tensor(&empty, DLX_INT32, 3, zshape, zstrides, 0);
  dst = make_tensor(&empty, DLX_FLOAT16, 3, zshape, zstrides, 0);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&dst, &src, &err), 0);
  dlx_scalar one_value = {.kind = DLX_KIND_INT, .v.i = 1};
  CHECK_EQ_INT(dlx_cpu_backend.fill(&dst, &one_value, &err), 0);
}

/* Foreign memory need not be aligned: casts and copies work through any address. */
static void test_misaligned(void) {
  dlx_buffer *sb = new_buffer(8 * 101 + 1), *db = new_buffer(4 * 101 + 3);
  dlx_buffer src_view = *sb, dst_view = *db;
  src_view.data = (char *)sb->data + 1;
  dst_view.data = (char *)db->data + 3;
  for (int i = 0; i < 100; i++) {
    double x = i * 0.5;
    memcpy((char *)src_view.data + 8 * i, &x, 8);
  }
  int64_t shape[1] = {100}, one[1] = {1}, rev[1] = {-1};
  dlx_tensor s = make_tensor(&src_view, DLX_FLOAT64, 1, shape, one, 0);
  dlx_tensor d = make_tensor(&dst_view, DLX_FLOAT32, 1, shape, rev, 99);
  dlx_error err;
  CHECK_EQ_INT(dlx_cpu_backend.copy(&d, &s, &err), 0);
  int ok = 1;
  for (int i = 0; i < 100; i++) {
    float f;
    memcpy(&f, (char *)dst_view.data + 4 * (99 - i), 4);
    ok &= f == i * 0.5f;
  }
  CHECK(ok);
  shape[0] = 50; /* same dtype: raw copy */
  s = make_tensor(&src_view, DLX_FLOAT64, 1, shape, one, 0);
  d = make_tensor(&dst_view, DLX_FLOAT64, 1, shape, one, 0);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&d, &s, &err), 0);
  CHECK(memcmp(dst_view.data, src_view.data, 50 * 8) == 0);
  free_buffer(sb);
  free_buffer(db);
}

/* ---- packed fp4 and fp6 */

static unsigned get_bit(const unsigned char *p, uint64_t bit) {
  return (p[bit / 8] >> (bit % 8)) & 1;
}

static unsigned element_of(const unsigned char *p, int64_t pos, int width) {
  unsigned v = 0;
  for (int j = 0; j < width; j++) v |= get_bit(p, (uint64_t)pos * width + j) << j;
  return v;
}

static void subbyte_trial(dlx_dtype t, int width) {
  int64_t shape[DLX_MAX_NDIM], sstrides[DLX_MAX_NDIM], dstrides[DLX_MAX_NDIM], soff, doff;
  int ndim = random_shape(shape);
  int64_t sext = random_layout(ndim, shape, 1, sstrides, &soff);
  int64_t dext = random_layout(ndim, shape, 0, dstrides, &doff);
  size_t sbytes = (size_t)((sext * width + 7) / 8), dbytes = (size_t)((dext * width + 7) / 8);
  dlx_buffer *sb = new_buffer(sbytes), *db = new_buffer(dbytes);
  unsigned char *before = malloc(dbytes), *covered = calloc((size_t)dext, 1);
  for (size_t b = 0; b < sbytes; b++) ((unsigned char *)sb->data)[b] = (unsigned char)rnd();
  for (size_t b = 0; b < dbytes; b++) ((unsigned char *)db->data)[b] = (unsigned char)rnd();
  memcpy(before, db->data, dbytes);
  dlx_tensor s = make_tensor(sb, t, ndim, shape, sstrides, soff);
  dlx_tensor d = make_tensor(db, t, ndim, shape, dstrides, doff);
  dlx_error err;
  CHECK_EQ_INT(dlx_cpu_backend.copy(&d, &s, &err), 0);
  int64_t index[DLX_MAX_NDIM] = {0};
  int ok = 1;
  if (numel(ndim, shape) > 0) {
    do {
      int64_t dpos = position(&d, index);
      if (element_of(db->data, dpos, width) != element_of(sb->data, position(&s, index), width))
        ok = 0;
      covered[dpos] = 1;
    } while (next_index(ndim, shape, index));
  }
  for (int64_t e = 0; e < dext; e++) { /* neighbours sharing a byte are untouched */
    if (!covered[e] && element_of(db->data, e, width) != element_of(before, e, width)) ok = 0;
  }
  CHECK(ok);
  free(before);
  free(covered);
  free_buffer(sb);
  free_buffer(db);
}

/* Contiguous runs at every bit phase: the memcpy path and the element path. */
static void subbyte_phases(dlx_dtype t, int width) {
  dlx_buffer *sb = new_buffer(64), *db = new_buffer(64);
  dlx_error err;
  for (int b = 0; b < 64; b++) ((unsigned char *)sb->data)[b] = (unsigned char)rnd();
  for (int64_t so = 0; so < 8; so++) {
    for (int64_t dof = 0; dof < 8; dof++) {
      for (int64_t n = 0; n < 40; n += 3) {
        int64_t shape[1] = {n}, one[1] = {1};
        memset(db->data, 0, 64);
        dlx_tensor s = make_tensor(sb, t, 1, shape, one, so);
        dlx_tensor d = make_tensor(db, t, 1, shape, one, dof);
        CHECK_EQ_INT(dlx_cpu_backend.copy(&d, &s, &err), 0);
        int ok = 1;
        for (int64_t e = 0; e < 60; e++) {
          unsigned want = e >= dof && e < dof + n ? element_of(sb->data, so + e - dof, width) : 0;
          if (element_of(db->data, e, width) != want) ok = 0;
        }
        CHECK(ok);
      }
    }
  }
  free_buffer(sb);
  free_buffer(db);
}

static void test_subbyte(void) {
  for (int i = 0; i < 1000; i++) {
    subbyte_trial(DLX_FLOAT4_E2M1FN, 4);
    subbyte_trial(DLX_FLOAT6_E2M3FN, 6);
    subbyte_trial(DLX_FLOAT6_E3M2FN, 6);
  }
  subbyte_phases(DLX_FLOAT4_E2M1FN, 4);
  subbyte_phases(DLX_FLOAT6_E3M2FN, 6);
}

/* ---- storage-only dtypes refuse anything but a copy to themselves */

static void test_storage_only(void) {
  dlx_buffer *b = new_buffer(64);
  int64_t shape[1] = {4}, one[1] = {1};
  dlx_error err;
  dlx_tensor f8 = make_tensor(b, DLX_FLOAT8_E4M3FN, 1, shape, one, 0);
  dlx_tensor e5 = make_tensor(b, DLX_FLOAT8_E5M2, 1, shape, one, 16);
  dlx_tensor f32 = make_tensor(b, DLX_FLOAT32, 1, shape, one, 8);
  dlx_tensor u8 = make_tensor(b, DLX_UINT8, 1, shape, one, 32);
  dlx_scalar zero = {.kind = DLX_KIND_FLOAT, .v.f = 0.0};
  CHECK_EQ_INT(dlx_cpu_backend.copy(&e5, &f8, &err), DLX_TYPE_ERROR);
  CHECK(strstr(err.message, "float8_e4m3fn") != NULL);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&f32, &f8, &err), DLX_TYPE_ERROR);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&f8, &f32, &err), DLX_TYPE_ERROR);
  CHECK_EQ_INT(dlx_cpu_backend.copy(&f8, &u8, &err), DLX_TYPE_ERROR);
  CHECK_EQ_INT(dlx_cpu_backend.fill(&f8, &zero, &err), DLX_TYPE_ERROR);
  free_buffer(b);
}

/* ---- fill */

typedef struct fill_case {
  dlx_dtype dtype;
  dlx_scalar value;
  uint64_t want_lo, want_hi; /* expected bytes, little-endian */
} fill_case;

#define B(x)                                                                                       \
  { .kind = DLX_KIND_BOOL, .v.b = (x) }
#define I(x)                                                                                       \
  { .kind = DLX_KIND_INT, .v.i = (x) }
#define U(x)                                                                                       \
  { .kind = DLX_KIND_UINT, .v.u = (x) }
#define F(x)                                                                                       \
  { .kind = DLX_KIND_FLOAT, .v.f = (x) }
#define C(x, y)                                                                                    \
  {                                                                                                \
    .kind = DLX_KIND_COMPLEX, .v.c = {(x), (y) }                                                   \
  }

static const fill_case fill_cases[] = {
    {DLX_BOOL, F(NAN), 1, 0},
    {DLX_BOOL, F(-0.0), 0, 0},
    {DLX_BOOL, C(0, 1), 1, 0},
    {DLX_BOOL, I(-5), 1, 0},
    {DLX_INT8, I(300), 44, 0},
    {DLX_INT8, F(-200.5), 0x80, 0},
    {DLX_INT16, B(true), 1, 0},
    {DLX_INT32, F(3.9), 3, 0},
    {DLX_INT32, F(-3.9), 0xfffffffd, 0},
    {DLX_INT32, F(NAN), 0, 0},
    {DLX_INT64, U(UINT64_MAX), UINT64_MAX, 0},
    {DLX_INT64, F(1e30), INT64_MAX, 0},
    {DLX_UINT8, I(-1), 255, 0},
    {DLX_UINT16, F(1e9), 65535, 0},
    {DLX_UINT32, F(-7.5), 0, 0},
    {DLX_UINT64, F(18446744073709551616.0), UINT64_MAX, 0},
    {DLX_UINT64, F(INFINITY), UINT64_MAX, 0},
    {DLX_FLOAT16, F(1.0 / 3.0), 0x3555, 0},
    {DLX_FLOAT16, F(65520.0), 0x7c00, 0},
    {DLX_FLOAT16, I(-2049), 0xe800, 0},
    {DLX_FLOAT16, F(0x1p-24), 0x0001, 0},
    {DLX_BFLOAT16, F(1.0 / 3.0), 0x3eab, 0},
    {DLX_BFLOAT16, U(UINT64_MAX), 0x5f80, 0},
    {DLX_FLOAT32, I(16777217), 0x4b800000, 0},
    {DLX_FLOAT32, C(1.5, 2.5), 0x3fc00000, 0},
    {DLX_FLOAT64, U(UINT64_MAX), 0x43f0000000000000, 0},
    {DLX_FLOAT64, F(-0.0), 0x8000000000000000, 0},
    {DLX_COMPLEX64, C(1.0, -2.0), 0xc00000003f800000, 0},
    {DLX_COMPLEX64, I(3), 0x0000000040400000, 0},
    {DLX_COMPLEX128, C(0.5, 4.0), 0x3fe0000000000000, 0x4010000000000000},
};

static void test_fill_values(void) {
  dlx_buffer *b = new_buffer(16 * 9);
  int64_t shape[1] = {7}, one[1] = {1};
  dlx_error err;
  for (size_t k = 0; k < sizeof fill_cases / sizeof fill_cases[0]; k++) {
    const fill_case *c = &fill_cases[k];
    int64_t size = dlx_itemsize(c->dtype);
    unsigned char want[16];
    memcpy(want, &c->want_lo, 8);
    memcpy(want + 8, &c->want_hi, 8);
    memset(b->data, SENTINEL, b->nbytes);
    dlx_tensor t = make_tensor(b, c->dtype, 1, shape, one, 1);
    CHECK_EQ_INT(dlx_cpu_backend.fill(&t, &c->value, &err), 0);
    int ok = 1;
    for (int64_t i = 1; i <= 7; i++)
      ok &= memcmp((unsigned char *)b->data + i * size, want, (size_t)size) == 0;
    for (int64_t i = 0; i < size; i++) ok &= ((unsigned char *)b->data)[i] == SENTINEL;
    for (int64_t i = 8 * size; i < 9 * size; i++) ok &= ((unsigned char *)b->data)[i] == SENTINEL;
    if (!ok) fprintf(stderr, "fill case %zu (%s) failed\n", k, dlx_dtype_info_of(c->dtype)->name);
    CHECK(ok);
  }
  free_buffer(b);
}

/* Strided, reversed and broadcast destinations; gaps stay untouched. */
static void test_fill_layouts(void) {
  dlx_scalar v = F(2.5);
  dlx_error err;
  for (int i = 0; i < 500; i++) {
    int64_t shape[DLX_MAX_NDIM], strides[DLX_MAX_NDIM], offset;
    int ndim = random_shape(shape);
    int64_t ext = random_layout(ndim, shape, 1, strides, &offset);
    dlx_buffer *b = new_buffer((size_t)ext * 8);
    unsigned char *covered = calloc((size_t)ext, 1);
    dlx_tensor t = make_tensor(b, DLX_FLOAT64, ndim, shape, strides, offset);
    CHECK_EQ_INT(dlx_cpu_backend.fill(&t, &v, &err), 0);
    int64_t index[DLX_MAX_NDIM] = {0};
    if (numel(ndim, shape) > 0) {
      do covered[position(&t, index)] = 1;
      while (next_index(ndim, shape, index));
    }
    int ok = 1;
    for (int64_t e = 0; e < ext; e++) {
      double x;
      memcpy(&x, (unsigned char *)b->data + e * 8, 8);
      if (covered[e] ? x != 2.5 : ((unsigned char *)b->data)[e * 8] != SENTINEL) ok = 0;
    }
    CHECK(ok);
    free(covered);
    free_buffer(b);
  }
}

/* ---- the table and the allocator */

static int fail_always(void *ctx) {
  (void)ctx;
  return 1;
}

static void test_backend_table(void) {
  CHECK(strcmp(dlx_cpu_backend.name, "cpu") == 0);
  CHECK_EQ_INT(dlx_cpu_backend.device_type, kDLCPU);
  CHECK(dlx_cpu_backend.host_accessible);
  CHECK_EQ_INT(dlx_cpu_backend.device_count(), 1);
  CHECK(dlx_cpu_backend.synchronize == NULL);
}

static void test_allocator(void) {
  dlx_error err = {DLX_OK, ""};
  size_t before = dlx_cpu_memory_allocated();
  void *p = dlx_cpu_backend.alloc(0, 1000, &err);
  CHECK(p != NULL && (uintptr_t)p % 64 == 0);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), before + 1000);
  void *q = dlx_cpu_backend.alloc(0, 0, &err);
  CHECK(q != NULL);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), before + 1000);
  dlx_cpu_backend.free(0, p, 1000);
  dlx_cpu_backend.free(0, q, 0);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), before);

  CHECK(dlx_cpu_backend.alloc(0, SIZE_MAX, &err) == NULL);
  CHECK_EQ_INT(err.code, DLX_MEMORY_ERROR);
  err.code = DLX_OK;
  CHECK(dlx_cpu_backend.alloc(0, SIZE_MAX / 2, &err) == NULL);
  CHECK_EQ_INT(err.code, DLX_MEMORY_ERROR);
  dlx_set_alloc_fail_hook(fail_always, NULL);
  err.code = DLX_OK;
  CHECK(dlx_cpu_backend.alloc(0, 100, &err) == NULL);
  CHECK_EQ_INT(err.code, DLX_MEMORY_ERROR);
  CHECK(strstr(err.message, "100 bytes") != NULL);
  dlx_set_alloc_fail_hook(NULL, NULL);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), before);
}

int main(void) {
  rnd_seed("test_cpu_kernels", UINT64_C(0x9E3779B97F4A7C15));
  size_t before = dlx_cpu_memory_allocated();
  test_backend_table();
  test_allocator();
  test_random_copies();
  test_named_layouts();
  test_misaligned();
  test_subbyte();
  test_storage_only();
  test_fill_values();
  test_fill_layouts();
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), before); /* every test freed what it took */
  return check_report("test_cpu_kernels");
}
