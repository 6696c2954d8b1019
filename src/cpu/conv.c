/* conv.c -- the CPU's convolution (the entry conv, core/backend.h): the output of each image and
 * group is cut into slices of positions; a task of the pool copies a slice's windows into
 * columns of its own (im2col, small enough to stay in the core's caches) and multiplies them by
 * the group's weight with one single-threaded BLAS call into the output. The tasks share
 * nothing, so the pool deals them out without a barrier between the copy and the product, which
 * the composed path (a threaded copy, then a threaded product, slice after slice) has. */
#include <stdatomic.h>
#include <string.h>

#include "cpu/blas.h"
#include "cpu/cpu_cache.h"
#include "cpu/kernels.h"
#include "cpu/parallel.h"

/* Bytes of one task's columns: a few hundred KiB, in the L2 cache with the weight's rows. */
#define COLUMN_BYTES (512 << 10)

typedef struct conv_job {
  const dlx_conv_request *r;
  size_t esize;
  int64_t rows;      /* of the columns: c_group * the kernel's size */
  int64_t positions; /* output positions of one image */
  int64_t slice;     /* positions a task takes */
  int64_t slices;    /* per image and group */
  const char *src, *weight, *bias;
  char *out;
  atomic_bool failed;
} conv_job;

static const char *data_of(const dlx_tensor *t, size_t esize) {
  return (const char *)t->buffer->data + (size_t)t->offset * esize;
}

/* The columns of positions first .. first + count - 1 of image n, group g: row (c, q) holds
 * src[n, g c_group + c, p * stride + q * dilation] for each p, a run of the last dim at a time. */
static void im2col(const conv_job *j, int64_t n, int64_t g, int64_t first, int64_t count,
                   char *cols) {
  const dlx_conv_request *r = j->r;
  const int64_t *in = r->in, *k = r->kernel, *o = r->out_size;
  size_t es = j->esize;
  int64_t plane = in[0] * in[1] * in[2], row = 0;
  const char *image = j->src + (size_t)((n * r->groups + g) * r->c_group * plane) * es;
  for (int64_t c = 0; c < r->c_group; c++)
    for (int64_t q0 = 0; q0 < k[0]; q0++)
      for (int64_t q1 = 0; q1 < k[1]; q1++)
        for (int64_t q2 = 0; q2 < k[2]; q2++, row++) {
          char *dst = cols + (size_t)(row * count) * es;
          int64_t p = first, end = first + count;
          while (p < end) {
            int64_t p2 = p % o[2], p1 = p / o[2] % o[1], p0 = p / o[2] / o[1];
            int64_t run = o[2] - p2 < end - p ? o[2] - p2 : end - p;
            int64_t i0 = p0 * r->stride[0] + q0 * r->dilation[0];
            int64_t i1 = p1 * r->stride[1] + q1 * r->dilation[1];
            int64_t i2 = p2 * r->stride[2] + q2 * r->dilation[2];
            const char *from = image + (size_t)(c * plane + (i0 * in[1] + i1) * in[2] + i2) * es;
            if (r->stride[2] == 1) {
              memcpy(dst, from, (size_t)run * es);
            } else {
              size_t step = (size_t)r->stride[2] * es;
              for (int64_t i = 0; i < run; i++) memcpy(dst + (size_t)i * es, from + i * step, es);
            }
            dst += (size_t)run * es;
            p += run;
          }
        }
}

/* 1 and 0 of the dtype, as dlx_cpu_gemm takes alpha and beta. */
typedef union blas_scalar {
  float f[2];
  double d[2];
} blas_scalar;

static blas_scalar scalar_of(dlx_dtype dtype, double value) {
  blas_scalar s;
  memset(&s, 0, sizeof s);
  if (dtype == DLX_FLOAT32 || dtype == DLX_COMPLEX64)
    s.f[0] = (float)value;
  else
    s.d[0] = value;
  return s;
}

/* Task t: image, group and slice of positions. */
static void run_task(const conv_job *j, int64_t t, char *cols) {
  const dlx_conv_request *r = j->r;
  size_t es = j->esize;
  int64_t slice = t % j->slices, g = t / j->slices % r->groups, n = t / j->slices / r->groups;
  int64_t first = slice * j->slice, count = j->positions - first;
  int64_t c_out = r->groups * r->out_group;
  char *out = j->out + (size_t)((n * c_out + g * r->out_group) * j->positions + first) * es;
  blas_scalar one = scalar_of(r->dtype, 1), beta = scalar_of(r->dtype, j->bias != NULL);
  dlx_blas_matrix a = {j->weight + (size_t)(g * r->out_group * j->rows) * es, j->rows, 1, false};
  dlx_blas_matrix b = {cols, 0, 1, false};
  if (count > j->slice) count = j->slice;
  b.rs = count;
  im2col(j, n, g, first, count, cols);
  if (j->bias != NULL) /* the bias first, then beta = 1 adds the product to it */
    for (int64_t o = 0; o < r->out_group; o++) {
      const char *value = j->bias + (size_t)(g * r->out_group + o) * es;
      char *line = out + (size_t)(o * j->positions) * es;
      for (int64_t i = 0; i < count; i++) memcpy(line + (size_t)i * es, value, es);
    }
  dlx_cpu_gemm(r->dtype, r->out_group, count, j->rows, &one, &a, &b, &beta, out, j->positions, 1);
}

/* The columns are a block of the CPU's cache: the pool calls this once per task, and a block
 * malloc'd and freed each time would fault its pages in again every time. */
static void conv_range(void *ctx, int64_t begin, int64_t end) {
  conv_job *j = ctx;
  size_t nbytes = (size_t)(j->rows * j->slice) * j->esize;
  char *cols = dlx_cpu_block_alloc(nbytes);
  if (cols == NULL) {
    atomic_store(&j->failed, true);
    return;
  }
  for (int64_t t = begin; t < end; t++) run_task(j, t, cols);
  dlx_cpu_block_free(cols, nbytes);
}

int dlx_cpu_conv(const dlx_conv_request *r, dlx_error *err) {
  conv_job j;
  int64_t tasks;
  memset(&j, 0, sizeof j);
  j.r = r;
  j.esize = (size_t)dlx_dtype_bits(r->dtype) / 8;
  j.rows = r->c_group * r->kernel[0] * r->kernel[1] * r->kernel[2];
  j.positions = r->out_size[0] * r->out_size[1] * r->out_size[2];
  /* at least 64 positions (a product too thin is slow), at most those of an image */
  j.slice = COLUMN_BYTES / ((int64_t)j.esize * j.rows);
  if (j.slice < 64) j.slice = 64;
  if (j.slice > j.positions) j.slice = j.positions;
  j.slices = (j.positions + j.slice - 1) / j.slice;
  j.src = data_of(r->src, j.esize);
  j.weight = data_of(r->weight, j.esize);
  j.bias = r->bias != NULL ? data_of(r->bias, j.esize) : NULL;
  j.out = (char *)data_of(r->out, j.esize);
  atomic_init(&j.failed, false);
  tasks = r->batch * r->groups * j.slices;
  dlx_cpu_parallel_for(tasks, 1, conv_range, &j);
  if (atomic_load(&j.failed))
    return dlx_fail(err, DLX_MEMORY_ERROR, "conv: out of memory for the columns (%lld bytes)",
                    (long long)((size_t)(j.rows * j.slice) * j.esize));
  return 0;
}
