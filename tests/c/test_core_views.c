/* test_core_views.c -- the core's views: metadata only, memory shared, strides kept. */
#include <string.h>

#include "check.h"
#include "core/core.h"

static const DLDevice cpu = {kDLCPU, 0};

static void make(dlx_tensor *t, int64_t a, int64_t b) {
  int64_t shape[2] = {a, b};
  dlx_error err;
  CHECK(dlx_tensor_empty(t, shape, 2, DLX_FLOAT32, cpu, &err) == 0);
  for (int64_t i = 0; i < a * b; i++) ((float *)t->buffer->data)[i] = (float)i;
}

static float at(const dlx_tensor *t, int64_t i, int64_t j) {
  return ((const float *)t->buffer->data)[t->offset + i * t->strides[0] + j * t->strides[1]];
}

static void test_transpose_and_contiguity(void) {
  dlx_tensor t, v;
  dlx_error err;
  make(&t, 3, 4);
  CHECK(dlx_tensor_is_contiguous(&t));
  CHECK(dlx_transpose(&v, &t, 0, 1, &err) == 0);
  CHECK_EQ_INT(v.shape[0], 4);
  CHECK_EQ_INT(v.strides[0], 1);
  CHECK_EQ_INT(v.strides[1], 4);
  CHECK(!dlx_tensor_is_contiguous(&v));
  CHECK(at(&v, 2, 1) == at(&t, 1, 2));
  CHECK_EQ_INT(atomic_load(&t.buffer->refs), 2);
  dlx_tensor_close(&t);
  CHECK(at(&v, 3, 2) == 11.0f); /* the view keeps the memory alive */
  dlx_tensor_close(&v);
  dlx_tensor_close(&v); /* idempotent */
}

static void test_view_rules(void) {
  dlx_tensor t, v, tr;
  dlx_error err;
  int64_t flat[1] = {-1}, bad[2] = {5, -1}, two_unknown[2] = {-1, -1}, split[3] = {3, 2, 2};
  make(&t, 3, 4);
  CHECK(dlx_view(&v, &t, flat, 1, &err) == 0);
  CHECK_EQ_INT(v.shape[0], 12);
  dlx_tensor_close(&v);
  CHECK(dlx_view(&v, &t, bad, 2, &err) == DLX_VALUE_ERROR);
  CHECK(dlx_view(&v, &t, two_unknown, 2, &err) == DLX_VALUE_ERROR);
  CHECK(dlx_view(&v, &t, split, 3, &err) == 0);
  CHECK_EQ_INT(v.strides[0], 4);
  CHECK_EQ_INT(v.strides[1], 2);
  dlx_tensor_close(&v);
  CHECK(dlx_transpose(&tr, &t, 0, 1, &err) == 0);
  CHECK(dlx_view(&v, &tr, flat, 1, &err) == DLX_VALUE_ERROR); /* needs a copy */
  CHECK(strstr(err.message, "reshape") != NULL);
  dlx_tensor_close(&tr);
  dlx_tensor_close(&t);
}

static void test_slice_select_flip(void) {
  dlx_tensor t, s, f, e;
  dlx_error err;
  make(&t, 3, 4);
  CHECK(dlx_slice(&s, &t, 1, 3, 0, -2, &err) == 0); /* columns 3, 1 */
  CHECK_EQ_INT(s.shape[1], 2);
  CHECK_EQ_INT(s.strides[1], -2);
  CHECK(at(&s, 1, 0) == 7.0f && at(&s, 1, 1) == 5.0f);
  dlx_tensor_close(&s);
  CHECK(dlx_slice(&s, &t, 1, 2, 1, 1, &err) == 0); /* empty */
  CHECK_EQ_INT(s.shape[1], 0);
  dlx_tensor_close(&s);
  CHECK(dlx_slice(&s, &t, 1, 0, 3, 0, &err) == DLX_VALUE_ERROR);
  CHECK(dlx_select(&s, &t, 0, 2, &err) == 0);
  CHECK_EQ_INT(s.ndim, 1);
  CHECK_EQ_INT(s.offset, 8);
  dlx_tensor_close(&s);
  CHECK(dlx_select(&s, &t, 0, 3, &err) == DLX_VALUE_ERROR);
  CHECK(dlx_flip(&f, &t, 0, &err) == 0);
  CHECK_EQ_INT(f.strides[0], -4);
  CHECK(at(&f, 0, 0) == 8.0f);
  {
    int64_t shape[3] = {2, 3, -1};
    int64_t lo, hi;
    CHECK(dlx_expand(&e, &f, shape, 3, &err) == 0);
    CHECK_EQ_INT(e.strides[0], 0);
    dlx_tensor_extent(&e, &lo, &hi);
    CHECK_EQ_INT(lo, 0);
    CHECK_EQ_INT(hi, 12);
    dlx_tensor_close(&e);
  }
  {
    int64_t shape[2] = {3, 5};
    CHECK(dlx_expand(&e, &t, shape, 2, &err) == DLX_VALUE_ERROR);
  }
  dlx_tensor_close(&f);
  dlx_tensor_close(&t);
}

static void test_squeeze_unsqueeze_permute(void) {
  dlx_tensor t, u, s, p;
  dlx_error err;
  int32_t perm[3] = {2, 0, 1}, dup[3] = {0, 0, 1};
  make(&t, 3, 4);
  CHECK(dlx_unsqueeze(&u, &t, 1, &err) == 0);
  CHECK_EQ_INT(u.ndim, 3);
  CHECK_EQ_INT(u.shape[1], 1);
  CHECK(dlx_permute(&p, &u, perm, &err) == 0);
  CHECK_EQ_INT(p.shape[0], 4);
  CHECK_EQ_INT(p.shape[1], 3);
  CHECK(dlx_permute(&s, &u, dup, &err) == DLX_VALUE_ERROR);
  CHECK(dlx_squeeze(&s, &u, -1, &err) == 0);
  CHECK_EQ_INT(s.ndim, 2);
  dlx_tensor_close(&s);
  CHECK(dlx_squeeze(&s, &u, 0, &err) == 0); /* size 3: kept */
  CHECK_EQ_INT(s.ndim, 3);
  dlx_tensor_close(&s);
  dlx_tensor_close(&p);
  dlx_tensor_close(&u);
  dlx_tensor_close(&t);
}

static void test_shape_checks(void) {
  dlx_error err;
  int64_t huge[2] = {INT64_MAX / 2, 4}, neg[1] = {-1};
  CHECK(dlx_check_shape(huge, 2, DLX_FLOAT32, &err) == DLX_VALUE_ERROR);
  CHECK(dlx_check_shape(neg, 1, DLX_FLOAT32, &err) == DLX_VALUE_ERROR);
  CHECK(dlx_check_shape(neg, DLX_MAX_NDIM + 1, DLX_FLOAT32, &err) == DLX_VALUE_ERROR);
  CHECK(dlx_check_shape(NULL, 0, DLX_FLOAT32, &err) == 0);
}

int main(void) {
  test_transpose_and_contiguity();
  test_view_rules();
  test_slice_select_flip();
  test_squeeze_unsqueeze_permute();
  test_shape_checks();
  return check_report("test_core_views");
}
