/* test_core_promote.c -- every cell of the promotion tables (two tensors; a tensor and a weak
 * scalar), the range check of weak integer scalars and the same-kind rule, written out here
 * independently of src/core/promote.c. */
#include <string.h>

#include "check.h"
#include "core/core.h"
#include "core/promote.h"

static const char *const names[] = {"bool", "i8",  "i16",  "i32", "i64", "u8",  "u16", "u32",
                                    "u64",  "f16", "bf16", "f32", "f64", "c64", "c128"};
#define N 15

/* Row a, column b: the dtype a and b promote to, in the names above. */
static const char *const table[N] = {
    /*           bool i8   i16  i32  i64  u8   u16  u32  u64  f16  bf16 f32  f64  c64  c128 */
    /* bool  */ "bool i8   i16  i32  i64  u8   u16  u32  u64  f16  bf16 f32  f64  c64  c128",
    /* i8    */ "i8   i8   i16  i32  i64  i16  i32  i64  f64  f16  bf16 f32  f64  c64  c128",
    /* i16   */ "i16  i16  i16  i32  i64  i16  i32  i64  f64  f16  bf16 f32  f64  c64  c128",
    /* i32   */ "i32  i32  i32  i32  i64  i32  i32  i64  f64  f16  bf16 f32  f64  c64  c128",
    /* i64   */ "i64  i64  i64  i64  i64  i64  i64  i64  f64  f16  bf16 f32  f64  c64  c128",
    /* u8    */ "u8   i16  i16  i32  i64  u8   u16  u32  u64  f16  bf16 f32  f64  c64  c128",
    /* u16   */ "u16  i32  i32  i32  i64  u16  u16  u32  u64  f16  bf16 f32  f64  c64  c128",
    /* u32   */ "u32  i64  i64  i64  i64  u32  u32  u32  u64  f16  bf16 f32  f64  c64  c128",
    /* u64   */ "u64  f64  f64  f64  f64  u64  u64  u64  u64  f16  bf16 f32  f64  c64  c128",
    /* f16   */ "f16  f16  f16  f16  f16  f16  f16  f16  f16  f16  f32  f32  f64  c64  c128",
    /* bf16  */ "bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 f32  bf16 f32  f64  c64  c128",
    /* f32   */ "f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f64  c64  c128",
    /* f64   */ "f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  c128 c128",
    /* c64   */ "c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c128 c64  c128",
    /* c128  */ "c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128",
};

/* Row t, columns: a bool, an integer, a float and a complex weak scalar. */
static const char *const scalar_table[N][4] = {
    {"bool", "i64", "f32", "c64"},    {"i8", "i8", "f32", "c64"},
    {"i16", "i16", "f32", "c64"},     {"i32", "i32", "f32", "c64"},
    {"i64", "i64", "f32", "c64"},     {"u8", "u8", "f32", "c64"},
    {"u16", "u16", "f32", "c64"},     {"u32", "u32", "f32", "c64"},
    {"u64", "u64", "f32", "c64"},     {"f16", "f16", "f16", "c64"},
    {"bf16", "bf16", "bf16", "c64"},  {"f32", "f32", "f32", "c64"},
    {"f64", "f64", "f64", "c128"},    {"c64", "c64", "c64", "c64"},
    {"c128", "c128", "c128", "c128"},
};

static const dlx_kind scalar_kinds[4] = {DLX_KIND_BOOL, DLX_KIND_INT, DLX_KIND_FLOAT,
                                         DLX_KIND_COMPLEX};

/* The word at column col of a row of the table. */
static void cell(const char *row, int col, char *out) {
  int n = 0;
  for (int c = 0; c <= col; c++) {
    while (*row == ' ') row++;
    n = 0;
    while (row[n] != ' ' && row[n] != 0) n++;
    if (c < col) row += n;
  }
  memcpy(out, row, (size_t)n);
  out[n] = 0;
}

static dlx_dtype dtype_named(const char *name) {
  for (int i = 0; i < N; i++) {
    if (strcmp(names[i], name) == 0) return (dlx_dtype)i;
  }
  return DLX_NUM_DTYPES;
}

static void test_tensor_table(void) {
  dlx_error err;
  int cells = 0;
  for (int a = 0; a < N; a++) {
    for (int b = 0; b < N; b++) {
      dlx_dtype out = DLX_NUM_DTYPES;
      char want[8], mirror[8];
      cell(table[a], b, want);
      cell(table[b], a, mirror);
      CHECK(dlx_result_dtype((dlx_dtype)a, (dlx_dtype)b, &out, &err) == 0);
      if (out != dtype_named(want))
        fprintf(stderr, "%s with %s: got %s, want %s\n", names[a], names[b],
                out < N ? names[out] : "?", want);
      CHECK(out == dtype_named(want));
      CHECK(strcmp(want, mirror) == 0); /* the table itself is symmetric */
      cells++;
    }
  }
  CHECK_EQ_INT(cells, N * N);
}

static void test_scalar_table(void) {
  dlx_error err;
  for (int t = 0; t < N; t++) {
    for (int k = 0; k < 4; k++) {
      dlx_dtype out = DLX_NUM_DTYPES;
      CHECK(dlx_result_dtype_scalar((dlx_dtype)t, scalar_kinds[k], &out, &err) == 0);
      if (out != dtype_named(scalar_table[t][k]))
        fprintf(stderr, "%s with scalar kind %d: got %s, want %s\n", names[t], k,
                out < N ? names[out] : "?", scalar_table[t][k]);
      CHECK(out == dtype_named(scalar_table[t][k]));
    }
  }
}

static void test_storage_only(void) {
  dlx_error err;
  dlx_dtype out;
  CHECK(dlx_result_dtype(DLX_FLOAT8_E4M3FN, DLX_FLOAT32, &out, &err) == DLX_TYPE_ERROR);
  CHECK(strstr(err.message, "float8_e4m3fn") != NULL);
  CHECK(dlx_result_dtype(DLX_INT8, DLX_FLOAT4_E2M1FN, &out, &err) == DLX_TYPE_ERROR);
  CHECK(dlx_result_dtype_scalar(DLX_FLOAT8_E5M2, DLX_KIND_INT, &out, &err) == DLX_TYPE_ERROR);
  CHECK(!dlx_can_cast_same_kind(DLX_FLOAT8_E5M2, DLX_FLOAT32));
  CHECK(!dlx_can_cast_same_kind(DLX_FLOAT32, DLX_FLOAT8_E5M2));
}

static dlx_scalar int_scalar(int64_t i) {
  dlx_scalar s;
  s.kind = DLX_KIND_INT;
  s.v.i = i;
  return s;
}

static void test_scalar_fits(void) {
  dlx_error err;
  dlx_scalar s = int_scalar(300), f;
  CHECK(dlx_check_scalar_fits(&s, DLX_UINT8, &err) == DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "300") != NULL && strstr(err.message, "uint8") != NULL);
  s = int_scalar(255);
  CHECK(dlx_check_scalar_fits(&s, DLX_UINT8, &err) == 0);
  s = int_scalar(-1);
  CHECK(dlx_check_scalar_fits(&s, DLX_UINT8, &err) == DLX_VALUE_ERROR);
  CHECK(dlx_check_scalar_fits(&s, DLX_UINT64, &err) == DLX_VALUE_ERROR);
  CHECK(dlx_check_scalar_fits(&s, DLX_INT8, &err) == 0);
  s = int_scalar(1000);
  CHECK(dlx_check_scalar_fits(&s, DLX_INT8, &err) == DLX_VALUE_ERROR);
  s = int_scalar(-128);
  CHECK(dlx_check_scalar_fits(&s, DLX_INT8, &err) == 0);
  s = int_scalar(-129);
  CHECK(dlx_check_scalar_fits(&s, DLX_INT8, &err) == DLX_VALUE_ERROR);
  s = int_scalar(INT64_MIN);
  CHECK(dlx_check_scalar_fits(&s, DLX_INT64, &err) == 0);
  CHECK(dlx_check_scalar_fits(&s, DLX_INT32, &err) == DLX_VALUE_ERROR);
  s = int_scalar(INT64_MAX);
  CHECK(dlx_check_scalar_fits(&s, DLX_UINT64, &err) == 0);
  CHECK(dlx_check_scalar_fits(&s, DLX_UINT32, &err) == DLX_VALUE_ERROR);
  s = int_scalar(65535);
  CHECK(dlx_check_scalar_fits(&s, DLX_UINT16, &err) == 0);
  CHECK(dlx_check_scalar_fits(&s, DLX_INT16, &err) == DLX_VALUE_ERROR);
  CHECK(dlx_check_scalar_fits(&s, DLX_FLOAT16, &err) == 0); /* floats take any number */
  f.kind = DLX_KIND_BOOL;
  f.v.b = true;
  CHECK(dlx_check_scalar_fits(&f, DLX_UINT8, &err) == 0);
}

static void test_same_kind(void) {
  /* up the kinds, and any width within one kind (int and uint are one kind) */
  CHECK(dlx_can_cast_same_kind(DLX_BOOL, DLX_INT8));
  CHECK(dlx_can_cast_same_kind(DLX_INT64, DLX_INT8));
  CHECK(dlx_can_cast_same_kind(DLX_INT8, DLX_UINT8));
  CHECK(dlx_can_cast_same_kind(DLX_INT32, DLX_FLOAT16));
  CHECK(dlx_can_cast_same_kind(DLX_FLOAT64, DLX_FLOAT32));
  CHECK(dlx_can_cast_same_kind(DLX_FLOAT32, DLX_COMPLEX64));
  CHECK(dlx_can_cast_same_kind(DLX_COMPLEX128, DLX_COMPLEX64));
  /* never down */
  CHECK(!dlx_can_cast_same_kind(DLX_FLOAT32, DLX_INT64));
  CHECK(!dlx_can_cast_same_kind(DLX_INT8, DLX_BOOL));
  CHECK(!dlx_can_cast_same_kind(DLX_COMPLEX64, DLX_FLOAT64));
  CHECK(!dlx_can_cast_same_kind(DLX_FLOAT16, DLX_BOOL));
}

int main(void) {
  test_tensor_table();
  test_scalar_table();
  test_storage_only();
  test_scalar_fits();
  test_same_kind();
  return check_report("test_core_promote");
}
