/* along_dim.c -- the CPU's ops along one dim: cumsum, cumprod, softmax and log_softmax.
 *
 * Each line along the dim is independent: lines are spread over the pool's threads, and each is
 * computed the same way on any number of them. Scans run element by element in a 64-bit
 * accumulator, side-by-side lines together. Softmax takes a contiguous, aligned line of float32 or
 * float64 in place (softmax.c); any other line (a misaligned one too: foreign memory may hold
 * float32 at an odd address) is cast into a scratch line of the compute dtype first and cast out
 * after, as the copy engine casts. */
#include <stdatomic.h>
#include <stdlib.h>

#include "cpu/cast_loops.h"
#include "cpu/kernels.h"
#include "cpu/parallel.h"
#include "cpu/reduce_loops.h"
#include "cpu/softmax.h"
#include "cpu/strided_iter.h"

/* Scans `width` lines at once whose elements lie side by side (line j starts j elements after
 * line 0, in src and in dst), n elements each, src_step and dst_step bytes apart along the
 * lines: a cumsum over the rows of a C-contiguous matrix reads and writes whole rows. Each line
 * accumulates in the same order whatever the width. */
typedef void (*scan_fn)(char *dst, ptrdiff_t dst_step, const char *src, ptrdiff_t src_step,
                        int64_t n, int64_t width);

#define SCAN_WIDTH 256 /* lines scanned together */

#define DEFINE_SCAN(op, name, T, ACC, start, update, out, add)                                     \
  static void op##_##name(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss, int64_t n,           \
                          int64_t width) {                                                         \
    ACC acc[SCAN_WIDTH];                                                                           \
    for (int64_t j = 0; j < width; j++) acc[j] = start;                                            \
    for (int64_t k = 0; k < n; k++) {                                                              \
      const char *row = s + k * ss;                                                                \
      char *dst = d + k * ds;                                                                      \
      for (int64_t j = 0; j < width; j++) {                                                        \
        update(acc[j], (ACC)load_##name(row + j * (ptrdiff_t)sizeof(T)));                          \
        store_##out(dst + j * (ptrdiff_t)sizeof(add), DLX_CONVERT(out, acc[j]));                   \
      }                                                                                            \
    }                                                                                              \
  }
#define ADD(a, v) a += v
#define MUL(a, v) a *= v

/* Integers in uint64_t (wrapping, no UB); floats in double. */
#define DEFINE_INT_SCANS(name, e, T, C, field, se, sname)                                          \
  DEFINE_SCAN(cumsum, name, T, uint64_t, 0, ADD, sname, uint64_t)                                  \
  DEFINE_SCAN(cumprod, name, T, uint64_t, 1, MUL, sname, uint64_t)
INT_TYPES(DEFINE_INT_SCANS)

#define DEFINE_FLOAT_SCANS(name, e, T, ACC, field)                                                 \
  DEFINE_SCAN(cumsum, name, T, double, 0, ADD, name, T)                                            \
  DEFINE_SCAN(cumprod, name, T, double, 1, MUL, name, T)
FLOAT_TYPES(DEFINE_FLOAT_SCANS)

#define SCAN_ROW(name, e, ...) [e] = {cumsum_##name, cumprod_##name},
static const scan_fn scans[NTYPES][2] = {INT_TYPES(SCAN_ROW) FLOAT_TYPES(SCAN_ROW)};

/* ---- the lines */

typedef struct along_job {
  dlx_dim_op op;
  dlx_strided outer; /* operand 0: dst, 1: src, over every dim but the one */
  const char *src;
  char *dst;
  int64_t src_size, dst_size, len;
  ptrdiff_t src_step, dst_step; /* bytes along the dim */
  scan_fn scan;
  dlx_dtype src_dtype, dst_dtype, compute;
  bool aligned;       /* src and dst start at multiples of the compute dtype's size */
  _Atomic int failed; /* a scratch line could not be allocated */
} along_job;

static bool direct(const along_job *job) {
  int64_t size = dlx_itemsize(job->compute);
  return job->src_dtype == job->compute && job->dst_dtype == job->compute &&
         job->src_step == size && job->dst_step == size && job->aligned;
}

static void softmax_line(const along_job *job, char *dst, const char *src, char *scratch) {
  bool log_result = job->op == DLX_DIM_LOG_SOFTMAX;
  int64_t size = dlx_itemsize(job->compute);
  char *line = scratch != NULL ? scratch : dst;
  if (scratch != NULL)
    dlx_cpu_cast_loop(job->src_dtype, job->compute)(line, size, src, job->src_step, job->len);
  const void *in = scratch != NULL ? (const void *)line : (const void *)src;
  if (job->compute == DLX_FLOAT64)
    dlx_cpu_softmax_float64(in, (double *)(void *)line, job->len, log_result);
  else
    dlx_cpu_softmax_float32(in, (float *)(void *)line, job->len, log_result);
  if (scratch != NULL)
    dlx_cpu_cast_loop(job->compute, job->dst_dtype)(dst, job->dst_step, line, size, job->len);
}

static void run_lines(void *ctx, int64_t begin, int64_t end) {
  along_job *job = ctx;
  int64_t inner = dlx_strided_inner_size(&job->outer), row = begin / inner;
  int64_t dstep = dlx_strided_inner_stride(&job->outer, 0);
  int64_t sstep = dlx_strided_inner_stride(&job->outer, 1);
  int64_t index[DLX_MAX_NDIM], pos[2];
  char *scratch = NULL;
  bool softmax = job->op == DLX_DIM_SOFTMAX || job->op == DLX_DIM_LOG_SOFTMAX;
  if (softmax && !direct(job)) {
    scratch = malloc((size_t)job->len * (size_t)dlx_itemsize(job->compute));
    if (scratch == NULL) {
      atomic_store(&job->failed, 1);
      return;
    }
  }
  /* scans take side-by-side lines of one row of the outer walk together */
  int64_t width = !softmax && dstep == 1 && sstep == 1 ? SCAN_WIDTH : 1;
  dlx_strided_seek(&job->outer, row, index, pos);
  for (int64_t u = begin; u < end;) {
    if (u / inner != row) {
      dlx_strided_next(&job->outer, index, pos);
      row++;
    }
    int64_t j = u % inner, w = inner - j;
    if (w > width) w = width;
    if (w > end - u) w = end - u;
    char *d = job->dst + (pos[0] + j * dstep) * job->dst_size;
    const char *s = job->src + (pos[1] + j * sstep) * job->src_size;
    if (softmax)
      softmax_line(job, d, s, scratch);
    else
      job->scan(d, job->dst_step, s, job->src_step, job->len, w);
    u += w;
  }
  free(scratch);
}

int dlx_cpu_along_dim(dlx_dim_op op, const dlx_tensor *src, int32_t dim, const dlx_tensor *dst,
                      dlx_error *err) {
  int64_t shape[DLX_MAX_NDIM], dst_strides[DLX_MAX_NDIM], src_strides[DLX_MAX_NDIM];
  int n = 0;
  along_job job = {.op = op, .src = src->buffer->data, .dst = dst->buffer->data};
  if (dim < 0 || dim >= src->ndim || dst->ndim != src->ndim || (int)src->dtype < 0 ||
      src->dtype >= NTYPES)
    return dlx_fail(err, DLX_VALUE_ERROR, "along_dim: dim %d out of range", (int)dim);
  job.src_dtype = src->dtype;
  job.dst_dtype = dst->dtype;
  job.src_size = dlx_itemsize(src->dtype);
  job.dst_size = dlx_itemsize(dst->dtype);
  job.len = src->shape[dim];
  job.src_step = (ptrdiff_t)(src->strides[dim] * job.src_size);
  job.dst_step = (ptrdiff_t)(dst->strides[dim] * job.dst_size);
  if (op == DLX_DIM_CUMSUM || op == DLX_DIM_CUMPROD) {
    job.scan = scans[src->dtype][op == DLX_DIM_CUMPROD];
    if (job.scan == NULL)
      return dlx_fail(err, DLX_TYPE_ERROR, "%s is not defined for %s",
                      op == DLX_DIM_CUMSUM ? "cumsum" : "cumprod",
                      dlx_dtype_info_of(src->dtype)->name);
  } else {
    job.compute = dst->dtype == DLX_FLOAT64 ? DLX_FLOAT64 : DLX_FLOAT32;
    /* (offsets are whole elements: the lines are aligned when the buffers are) */
    job.aligned =
        ((uintptr_t)job.src | (uintptr_t)job.dst) % (uintptr_t)dlx_itemsize(job.compute) == 0;
    if (dlx_cpu_cast_loop(src->dtype, job.compute) == NULL ||
        dlx_cpu_cast_loop(job.compute, dst->dtype) == NULL)
      return dlx_fail(err, DLX_TYPE_ERROR, "softmax is not defined for %s",
                      dlx_dtype_info_of(src->dtype)->name);
  }
  for (int d = 0; d < src->ndim; d++) {
    if (d == dim) continue;
    shape[n] = src->shape[d];
    dst_strides[n] = dst->strides[d];
    src_strides[n++] = src->strides[d];
  }
  const int64_t *strides[2] = {dst_strides, src_strides};
  const int64_t offsets[2] = {dst->offset, src->offset};
  if (job.len == 0 ||
      !dlx_strided_init(&job.outer, n, shape, 2, strides, offsets, DLX_STRIDED_REORDER))
    return 0; /* no elements */
  int64_t lines = dlx_strided_rows(&job.outer) * dlx_strided_inner_size(&job.outer);
  int64_t line_bytes = job.len * (job.src_size > 4 ? job.src_size : 4);
  dlx_cpu_parallel_for(lines, dlx_cpu_grain_items(line_bytes), run_lines, &job);
  if (atomic_load(&job.failed))
    return dlx_fail(err, DLX_MEMORY_ERROR, "%s: out of memory for a line of %lld elements",
                    op == DLX_DIM_SOFTMAX ? "softmax" : "log_softmax", (long long)job.len);
  return 0;
}
