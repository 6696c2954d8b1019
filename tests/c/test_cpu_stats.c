/* test_cpu_stats.c -- var, std, logsumexp, norm and the ops along a dim below the Lua specs: the
 * same bytes on one thread and on two (long rows and many lines), a line that needs a scratch
 * copy (a float16 column), and a DeviceError from a backend without the entries. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/core.h"
#include "core/stats.h"
#include "cpu/parallel.h"
#include "cpu_test_util.h"

static const DLDevice cpu = {kDLCPU, 0};

/* A rows x cols float32 (or float64) tensor of seeded values in [-8, 8). */
static dlx_tensor random_matrix(dlx_dtype dtype, int64_t rows, int64_t cols) {
  int64_t shape[2] = {rows, cols};
  dlx_tensor t;
  dlx_error err;
  CHECK(dlx_tensor_empty(&t, shape, 2, dtype, cpu, &err) == 0);
  for (int64_t i = 0; i < rows * cols; i++) {
    double v = rnd_unit() * 16 - 8;
    if (dtype == DLX_FLOAT32)
      ((float *)t.buffer->data)[i] = (float)v;
    else
      ((double *)t.buffer->data)[i] = v;
  }
  return t;
}

static bool same_bytes(const dlx_tensor *a, const dlx_tensor *b) {
  return dlx_tensor_nbytes(a) == dlx_tensor_nbytes(b) &&
         memcmp(a->buffer->data, b->buffer->data, (size_t)dlx_tensor_nbytes(a)) == 0;
}

static void run_stat(dlx_tensor *out, dlx_stat_op op, double param, const dlx_tensor *t,
                     uint64_t dims, int threads) {
  dlx_error err;
  dlx_cpu_set_num_threads(threads);
  CHECK(dlx_reduce_stat(out, op, param, t, dims, false, &err) == 0);
  dlx_cpu_set_num_threads(0);
}

static void run_along(dlx_tensor *out, dlx_dim_op op, const dlx_tensor *t, int32_t dim,
                      int threads) {
  dlx_error err;
  dlx_cpu_set_num_threads(threads);
  CHECK(dlx_along_dim(out, op, t, dim, &err) == 0);
  dlx_cpu_set_num_threads(0);
}

/* Each op over shapes large enough for the pool, on 1 and on 2 threads. */
static void test_threads_do_not_change_results(void) {
  static const struct {
    dlx_stat_op op;
    double param;
  } stats[] = {{DLX_STAT_VAR, 1},  {DLX_STAT_STD, 0},  {DLX_STAT_LOGSUMEXP, 0},
               {DLX_STAT_NORM, 1}, {DLX_STAT_NORM, 2}, {DLX_STAT_NORM, INFINITY}};
  rng_state = 0x5eed5;
  printf("seed 0x5eed5\n");
  dlx_tensor m = random_matrix(DLX_FLOAT32, 1024, 1024), d = random_matrix(DLX_FLOAT64, 512, 1024);
  for (size_t s = 0; s < sizeof stats / sizeof stats[0]; s++) {
    for (uint64_t dims = 1; dims <= 3; dims++) {
      dlx_tensor one, two;
      run_stat(&one, stats[s].op, stats[s].param, &m, dims, 1);
      run_stat(&two, stats[s].op, stats[s].param, &m, dims, 2);
      CHECK(same_bytes(&one, &two));
      dlx_tensor_close(&one);
      dlx_tensor_close(&two);
    }
  }
  for (int op = DLX_DIM_CUMSUM; op <= DLX_DIM_LOG_SOFTMAX; op++) {
    for (int32_t dim = 0; dim < 2; dim++) {
      const dlx_tensor *inputs[2] = {&m, &d};
      for (int k = 0; k < 2; k++) {
        dlx_tensor one, two;
        run_along(&one, (dlx_dim_op)op, inputs[k], dim, 1);
        run_along(&two, (dlx_dim_op)op, inputs[k], dim, 2);
        CHECK(same_bytes(&one, &two));
        dlx_tensor_close(&one);
        dlx_tensor_close(&two);
      }
    }
  }
  dlx_tensor_close(&m);
  dlx_tensor_close(&d);
}

/* Softmax rows sum to 1 and log_softmax is their log, for contiguous rows (in place) and for
 * columns (through a scratch line). */
static void test_softmax_rows_and_columns(void) {
  rng_state = 0xabc;
  printf("seed 0xabc\n");
  dlx_tensor m = random_matrix(DLX_FLOAT64, 37, 1029);
  for (int32_t dim = 0; dim < 2; dim++) {
    dlx_tensor s, l;
    run_along(&s, DLX_DIM_SOFTMAX, &m, dim, 2);
    run_along(&l, DLX_DIM_LOG_SOFTMAX, &m, dim, 2);
    const double *sv = s.buffer->data, *lv = l.buffer->data;
    int64_t lines = dim == 1 ? 37 : 1029, len = dim == 1 ? 1029 : 37;
    for (int64_t i = 0; i < lines; i++) {
      double sum = 0;
      for (int64_t j = 0; j < len; j++) {
        int64_t at = dim == 1 ? i * 1029 + j : j * 1029 + i;
        sum += sv[at];
        CHECK(fabs(log(sv[at]) - lv[at]) <= 1e-12 * (1 + fabs(lv[at])));
      }
      CHECK(fabs(sum - 1) < 1e-12);
    }
    dlx_tensor_close(&s);
    dlx_tensor_close(&l);
  }
  dlx_tensor_close(&m);
}

/* A backend without the entries is a DeviceError that names the device. */
static void test_missing_entries(void) {
  int64_t shape[1] = {4}, strides[1] = {1};
  dlx_backend without = dlx_cpu_backend;
  dlx_buffer *b = new_buffer(16);
  dlx_error err;
  dlx_tensor out;
  without.reduce_stat = NULL;
  without.along_dim = NULL;
  dlx_tensor t = make_tensor(b, DLX_FLOAT32, 1, shape, strides, 0);
  b->backend = &without;
  CHECK(dlx_reduce_stat(&out, DLX_STAT_VAR, 0, &t, 1, false, &err) == DLX_DEVICE_ERROR);
  CHECK(strstr(err.message, "var is not implemented on cpu") != NULL);
  CHECK(dlx_along_dim(&out, DLX_DIM_SOFTMAX, &t, 0, &err) == DLX_DEVICE_ERROR);
  CHECK(strstr(err.message, "softmax is not implemented on cpu") != NULL);
  b->backend = &dlx_cpu_backend;
  free_buffer(b);
}

int main(void) {
  test_missing_entries();
  test_threads_do_not_change_results();
  test_softmax_rows_and_columns();
  return check_report("test_cpu_stats");
}
