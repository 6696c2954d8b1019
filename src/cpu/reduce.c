/* reduce.c -- the CPU reduce: for each output element, walk the reduced sub-space as 1-D runs
 * and hand them to the dtype's kernel (reduce_kernels.h).
 *
 * The kept dims (outputs) and the reduced dims are prepared as two separate walks
 * (strided_iter.h). The reduced walk is reordered for memory order, except for argmin and
 * argmax, whose flattened indices need row-major order (merging dims keeps that order).
 *
 * When neighbouring outputs are closer in memory than neighbouring reduced elements (a sum
 * over the rows of a C-contiguous matrix), walking one output at a time would stride through
 * all of memory once per output. Sums and means of floats whose outputs are contiguous in src
 * then take whole rows of a strip of outputs at once (column sums, vectorised across outputs);
 * other such reductions go in tiles: TILE_OUTPUTS outputs side by side, TILE_ROWS reduced
 * elements at a time, so each cache line that is loaded serves the whole tile.
 *
 * Outputs are independent, so groups of them (one output, a tile or a strip) are spread over
 * threads; a single output over a long run is parallelised inside its kernel instead. Either
 * way each output is computed the same way on any number of threads. */
#include <stdint.h>
#include <stdlib.h>

#include "cpu/kernels.h"
#include "cpu/parallel.h"
#include "cpu/reduce_kernels.h"
#include "cpu/strided_iter.h"

#define TILE_OUTPUTS 16
#define TILE_ROWS 256

typedef struct reduce_plan {
  dlx_reduce_op op;
  bool stat; /* var, std, logsumexp or norm: stat_op and param, not op */
  dlx_stat_op stat_op;
  double param;
  dlx_reduce_kernel kernel;
  dlx_strided inner; /* the reduced dims of src */
  bool empty;        /* the reduced extent has no elements */
  int64_t count;     /* elements reduced into each output */
  const char *src;
  int64_t src_size;
} reduce_plan;

static int check_shapes(const dlx_tensor *src, uint64_t dims, const dlx_tensor *dst,
                        dlx_error *err) {
  if (src->ndim < 0 || src->ndim > DLX_MAX_NDIM || dst->ndim != src->ndim)
    return dlx_fail(err, DLX_VALUE_ERROR, "reduce: ndim %d and %d differ or are out of range",
                    (int)src->ndim, (int)dst->ndim);
  for (int d = 0; d < src->ndim; d++) {
    int64_t want = (dims >> d) & 1 ? 1 : src->shape[d];
    if (dst->shape[d] != want)
      return dlx_fail(err, DLX_VALUE_ERROR, "reduce: output dim %d has size %lld, expected %lld", d,
                      (long long)dst->shape[d], (long long)want);
  }
  return 0;
}

static int check_kernel(dlx_reduce_op op, const dlx_tensor *src, const dlx_tensor *dst,
                        dlx_reduce_kernel *kernel, dlx_error *err) {
  const char *name = dlx_dtype_info_of(src->dtype)->name;
  if (dlx_cpu_reduce_kernel(op, src->dtype, kernel) != 0)
    return dlx_fail(err, DLX_TYPE_ERROR, "reduce: this reduction is not defined for %s", name);
  if (dst->dtype != kernel->out)
    return dlx_fail(err, DLX_TYPE_ERROR, "reduce: a reduction of %s writes %s, not %s", name,
                    dlx_dtype_info_of(kernel->out)->name, dlx_dtype_info_of(dst->dtype)->name);
  return 0;
}

static bool needs_elements(dlx_reduce_op op) {
  return op == DLX_REDUCE_MIN || op == DLX_REDUCE_MAX || op == DLX_REDUCE_ARGMIN ||
         op == DLX_REDUCE_ARGMAX;
}

/* count * size, saturated: it only overflows when another dim has size 0 (no outputs). */
static int64_t count_times(int64_t count, int64_t size) {
  if (count == 0 || size == 0) return 0;
  return count > INT64_MAX / size ? INT64_MAX : count * size;
}

/* The reduced dims' walk; kept dims go to shape/dst_strides/src_strides (returns their count). */
static int split_dims(reduce_plan *plan, const dlx_tensor *src, uint64_t dims,
                      const dlx_tensor *dst, int64_t *shape, int64_t *dst_strides,
                      int64_t *src_strides) {
  int64_t rshape[DLX_MAX_NDIM], rstrides[DLX_MAX_NDIM];
  int nkept = 0, nreduced = 0;
  plan->count = 1;
  for (int d = 0; d < src->ndim; d++) {
    if ((dims >> d) & 1) {
      rshape[nreduced] = src->shape[d];
      rstrides[nreduced++] = src->strides[d];
      plan->count = count_times(plan->count, src->shape[d]);
    } else {
      shape[nkept] = src->shape[d];
      dst_strides[nkept] = dst->strides[d];
      src_strides[nkept++] = src->strides[d];
    }
  }
  const int64_t *strides[1] = {rstrides};
  bool arg = plan->op == DLX_REDUCE_ARGMIN || plan->op == DLX_REDUCE_ARGMAX;
  plan->empty = !dlx_strided_init(&plan->inner, nreduced, rshape, 1, strides, NULL,
                                  arg ? 0 : DLX_STRIDED_REORDER);
  return nkept;
}

static void init_acc(const reduce_plan *plan, dlx_reduce_acc *acc) {
  if (plan->stat)
    dlx_cpu_stat_acc_init(acc, plan->stat_op, plan->param);
  else
    dlx_cpu_reduce_acc_init(acc, plan->op);
}

/* Reduces the sub-space whose first element is at position pos of src into out. */
static void reduce_one(const reduce_plan *plan, dlx_reduce_acc *acc, int64_t pos, char *out) {
  const dlx_strided *it = &plan->inner;
  init_acc(plan, acc);
  if (!plan->empty) {
    ptrdiff_t step = (ptrdiff_t)(dlx_strided_inner_stride(it, 0) * plan->src_size);
    int64_t n = dlx_strided_inner_size(it);
    int64_t index[DLX_MAX_NDIM], p[1] = {pos + it->offset[0]};
    for (int d = 0; d < it->ndim; d++) index[d] = 0;
    do {
      plan->kernel.run(acc, plan->src + p[0] * plan->src_size, step, n);
    } while (!acc->stop && dlx_strided_next(it, index, p));
  }
  plan->kernel.finish(acc, out, plan->count);
}

/* Reduces the nb outputs whose sub-spaces start at pos, pos + step, ... into out, out + out_step,
 * ..., walking the reduced elements in chunks of TILE_ROWS for all of them in turn. */
static void reduce_tile(const reduce_plan *plan, dlx_reduce_acc *accs, int nb, int64_t pos,
                        int64_t step, char *out, ptrdiff_t out_step) {
  const dlx_strided *it = &plan->inner;
  ptrdiff_t rstep = (ptrdiff_t)(dlx_strided_inner_stride(it, 0) * plan->src_size);
  int64_t n = dlx_strided_inner_size(it);
  int64_t index[DLX_MAX_NDIM], p[1] = {pos + it->offset[0]};
  for (int d = 0; d < it->ndim; d++) index[d] = 0;
  for (int j = 0; j < nb; j++) init_acc(plan, &accs[j]);
  do {
    for (int64_t r = 0; r < n; r += TILE_ROWS) {
      int64_t len = n - r < TILE_ROWS ? n - r : TILE_ROWS;
      for (int j = 0; j < nb; j++) {
        const char *run = plan->src + (p[0] + j * step) * plan->src_size + r * rstep;
        if (!accs[j].stop) plan->kernel.run(&accs[j], run, rstep, len);
      }
    }
  } while (dlx_strided_next(it, index, p));
  for (int j = 0; j < nb; j++) plan->kernel.finish(&accs[j], out + j * out_step, plan->count);
}

/* Sums the strip of width outputs whose sub-spaces start at pos, pos + 1, ... (contiguous in
 * src) into out, out + out_step, ..., a run of src rows of the strip at a time. */
static void reduce_columns(const reduce_plan *plan, dlx_reduce_columns *c, int64_t pos,
                           int64_t width, char *out, ptrdiff_t out_step) {
  const dlx_strided *it = &plan->inner;
  int64_t rstride = dlx_strided_inner_stride(it, 0), n = dlx_strided_inner_size(it);
  int64_t index[DLX_MAX_NDIM], p[1] = {pos + it->offset[0]};
  for (int d = 0; d < it->ndim; d++) index[d] = 0;
  dlx_cpu_reduce_columns_init(c);
  do {
    plan->kernel.add_rows(c, plan->src + p[0] * plan->src_size,
                          (ptrdiff_t)(rstride * plan->src_size), n, width);
  } while (dlx_strided_next(it, index, p));
  plan->kernel.finish_columns(c, out, out_step, width, plan->count);
}

/* Tiles pay off when the outputs' src stride is smaller than the reduced elements'. */
static bool use_tiles(const reduce_plan *plan, int64_t outputs, int64_t step) {
  if (plan->empty || outputs < 2) return false;
  return llabs(step) < llabs(dlx_strided_inner_stride(&plan->inner, 0));
}

typedef enum group_kind { GROUP_ONE, GROUP_TILE, GROUP_COLUMNS } group_kind;

/* The outputs: the outer walk's rows, each cut into groups of `group` outputs. */
typedef struct reduce_job {
  const reduce_plan *plan;
  dlx_strided outer;
  group_kind kind;
  int64_t group;  /* outputs per group */
  int64_t groups; /* groups per outer row */
  char *out;
  int64_t out_size;
} reduce_job;

static void reduce_group(const reduce_job *job, dlx_reduce_acc *accs, dlx_reduce_columns **columns,
                         const int64_t *pos, int64_t g) {
  const dlx_strided *outer = &job->outer;
  int64_t n = dlx_strided_inner_size(outer), j = g * job->group;
  int64_t dstep = dlx_strided_inner_stride(outer, 0), sstep = dlx_strided_inner_stride(outer, 1);
  int64_t nb = n - j < job->group ? n - j : job->group;
  char *o = job->out + (pos[0] + j * dstep) * job->out_size;
  ptrdiff_t out_step = (ptrdiff_t)(dstep * job->out_size);
  if (job->kind == GROUP_COLUMNS && *columns == NULL) *columns = malloc(sizeof **columns);
  if (job->kind == GROUP_COLUMNS && *columns != NULL) {
    reduce_columns(job->plan, *columns, pos[1] + j * sstep, nb, o, out_step);
  } else if (job->kind == GROUP_ONE) {
    reduce_one(job->plan, &accs[0], pos[1] + j * sstep, o);
  } else { /* tiles; also column groups when their scratch cannot be had */
    for (int64_t t = 0; t < nb; t += TILE_OUTPUTS) {
      int count = nb - t < TILE_OUTPUTS ? (int)(nb - t) : TILE_OUTPUTS;
      reduce_tile(job->plan, accs, count, pos[1] + (j + t) * sstep, sstep, o + t * out_step,
                  out_step);
    }
  }
}

static void reduce_groups(void *ctx, int64_t begin, int64_t end) {
  const reduce_job *job = ctx;
  dlx_reduce_acc accs[TILE_OUTPUTS];
  dlx_reduce_columns *columns = NULL;
  int64_t index[DLX_MAX_NDIM], pos[2], row = begin / job->groups;
  dlx_strided_seek(&job->outer, row, index, pos);
  for (int64_t u = begin; u < end; u++) {
    if (u / job->groups != row) {
      dlx_strided_next(&job->outer, index, pos);
      row++;
    }
    reduce_group(job, accs, &columns, pos, u % job->groups);
  }
  free(columns);
}

/* Runs the plan, whose op and kernel are set, over src into dst. */
static int run_plan(reduce_plan plan, const dlx_tensor *src, uint64_t dims, const dlx_tensor *dst,
                    dlx_error *err) {
  dlx_reduce_op op = plan.op;
  int64_t shape[DLX_MAX_NDIM], dst_strides[DLX_MAX_NDIM], src_strides[DLX_MAX_NDIM];
  int nkept = split_dims(&plan, src, dims, dst, shape, dst_strides, src_strides);
  const int64_t *strides[2] = {dst_strides, src_strides};
  const int64_t offsets[2] = {dst->offset, src->offset};
  reduce_job job = {.plan = &plan, .out = dst->buffer->data};
  if (!dlx_strided_init(&job.outer, nkept, shape, 2, strides, offsets, DLX_STRIDED_REORDER))
    return 0; /* no outputs */
  if (plan.empty && needs_elements(op))
    return dlx_fail(err, DLX_VALUE_ERROR, "reduce: %s of an empty extent",
                    op == DLX_REDUCE_MIN || op == DLX_REDUCE_ARGMIN ? "min" : "max");
  plan.src = src->buffer->data;
  plan.src_size = dlx_itemsize(src->dtype);
  job.out_size = dlx_itemsize(dst->dtype);
  int64_t n = dlx_strided_inner_size(&job.outer), sstep = dlx_strided_inner_stride(&job.outer, 1);
  job.kind = GROUP_ONE;
  job.group = 1;
  if (use_tiles(&plan, n, sstep)) {
    bool columns = plan.kernel.add_rows != NULL && sstep == 1;
    job.kind = columns ? GROUP_COLUMNS : GROUP_TILE;
    job.group = columns ? DLX_REDUCE_STRIP : TILE_OUTPUTS;
  }
  job.groups = (n + job.group - 1) / job.group;
  int64_t groups = dlx_strided_rows(&job.outer) * job.groups;
  int64_t group_bytes = count_times(count_times(plan.count, job.group), plan.src_size);
  dlx_cpu_parallel_for(groups, dlx_cpu_grain_items(group_bytes), reduce_groups, &job);
  return 0;
}

int dlx_cpu_reduce(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims, const dlx_tensor *dst,
                   dlx_error *err) {
  reduce_plan plan = {.op = op};
  int rc = check_shapes(src, dims, dst, err);
  if (rc == 0) rc = check_kernel(op, src, dst, &plan.kernel, err);
  if (rc != 0) return rc;
  return run_plan(plan, src, dims, dst, err);
}

int dlx_cpu_reduce_stat(dlx_stat_op op, double param, const dlx_tensor *src, uint64_t dims,
                        const dlx_tensor *dst, dlx_error *err) {
  /* op SUM: the driver walks the reduced elements in memory order, and no element is skipped */
  reduce_plan plan = {.op = DLX_REDUCE_SUM, .stat = true, .stat_op = op, .param = param};
  int rc = check_shapes(src, dims, dst, err);
  if (rc != 0) return rc;
  if (dlx_cpu_stat_kernel(op, param, src->dtype, &plan.kernel) != 0)
    return dlx_fail(err, DLX_TYPE_ERROR, "reduce: this reduction is not defined for %s",
                    dlx_dtype_info_of(src->dtype)->name);
  if (dst->dtype != plan.kernel.out)
    return dlx_fail(err, DLX_TYPE_ERROR, "reduce: wrong output dtype %s",
                    dlx_dtype_info_of(dst->dtype)->name);
  return run_plan(plan, src, dims, dst, err);
}
