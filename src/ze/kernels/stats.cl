/* stats.cl -- the Level Zero backend's kernels for var, std, logsumexp and norm (dlx_stat_partial,
 * dlx_stat_finish) and for the ops along one dim (dlx_along_dim), part of the module that
 * dlx_kernels.cl makes (it includes this file, after its cast and reduction helpers).
 *
 * Results depend on the sizes alone, never on the device: the reductions merge the partials of
 * src/common/stats_ops.h in local memory in a fixed tree (no sub-group shuffles, whose width the
 * driver's compiler chooses), and the ops along a dim give each line to one work-item, or to a
 * work-group that splits it into GROUP pieces of fixed length, as the host chose from the sizes.
 * Sums accumulate in float64, as on the CPU. */
#include "common/stats_ops.h"

/* ---- var, std, logsumexp, norm */

/* scratch[0] = the merge of scratch[0 .. GROUP), always in the same tree; every work-item calls
 * it (it holds barriers). */
static void stat_tree(int k, __local dlx_stat_acc *scratch) {
  uint lid = (uint)get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint span = GROUP / 2; span > 0; span >>= 1) {
    if (lid < span) {
      dlx_stat_acc a = scratch[lid], b = scratch[lid + span];
      scratch[lid] = dlx_stat_merge(k, a, b);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

static double element_as_double(long dtype, __global const uchar *p) {
  return acc_of_element(dtype, p, 0).re;
}

/* Work-group g reduces chunk (g % chunks) of output (g / chunks) into partials[g]. */
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_stat_partial(__global const uchar *src, __global dlx_stat_acc *partials,
                 __global const dlx_ze_stat_args *a) {
  __local dlx_stat_acc scratch[GROUP];
  int k = (int)a->kind;
  long g = get_group_id(0), o = g / a->chunks, c = g - o * a->chunks;
  long base = offset1(o, a->out_ndim, a->out_shape, a->out_strides);
  long first = c * a->chunk_len, last = min(first + a->chunk_len, a->n_red);
  dlx_stat_acc acc = dlx_stat_empty(k);
  for (long r = first + (long)get_local_id(0); r < last; r += GROUP) {
    long off = base + offset1(r, a->red_ndim, a->red_shape, a->red_strides);
    acc = dlx_stat_merge(k, acc, dlx_stat_one(k, element_as_double(a->src_dtype, src + off)));
  }
  scratch[get_local_id(0)] = acc;
  stat_tree(k, scratch);
  if (get_local_id(0) == 0) partials[g] = scratch[0];
}

/* Work-group o merges partials[o * chunks ...] and writes output o (dst is C-contiguous). */
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_stat_finish(__global uchar *dst, __global const dlx_stat_acc *partials,
                __global const dlx_ze_stat_args *a) {
  __local dlx_stat_acc scratch[GROUP];
  int k = (int)a->kind;
  long o = get_group_id(0);
  dlx_stat_acc acc = dlx_stat_empty(k);
  for (long c = get_local_id(0); c < a->chunks; c += GROUP)
    acc = dlx_stat_merge(k, acc, partials[o * a->chunks + c]);
  scratch[get_local_id(0)] = acc;
  stat_tree(k, scratch);
  if (get_local_id(0) == 0) {
    char out[16];
    int size = dtype_size(a->dst_dtype);
    store_from_d(a->dst_dtype, out, dlx_stat_result(k, scratch[0], a->param));
    write_bytes(dst + o * size, out, size);
  }
}

/* ---- cumsum, cumprod, softmax, log_softmax along one dim */

/* A line: its first elements and the byte steps along it. */
typedef struct line_ref {
  __global const uchar *src;
  __global uchar *dst;
  long src_step, dst_step, src_dtype, dst_dtype;
} line_ref;

/* A running sum or product: integers in 64 bits (wrapping), floats in float64. */
typedef struct scan_acc {
  ulong u;
  double d;
} scan_acc;

static bool integer_scan(long dtype) { return value_kind(dtype) != KIND_FLOAT; }

static scan_acc scan_start(long op) {
  scan_acc s = {op == DLX_ZE_DIM_CUMPROD ? 1UL : 0UL, op == DLX_ZE_DIM_CUMPROD ? 1.0 : 0.0};
  return s;
}

static scan_acc scan_step(long op, scan_acc s, scan_acc x) {
  if (op == DLX_ZE_DIM_CUMPROD) {
    s.u *= x.u;
    s.d *= x.d;
  } else {
    s.u += x.u;
    s.d += x.d;
  }
  return s;
}

static scan_acc scan_load(const line_ref *l, long i) {
  dlx_ze_acc e = acc_of_element(l->src_dtype, l->src + i * l->src_step, 0);
  scan_acc s = {e.u, e.re};
  return s;
}

static void scan_store(const line_ref *l, long i, scan_acc s) {
  char out[16];
  int size = dtype_size(l->dst_dtype);
  if (integer_scan(l->src_dtype))
    store_from_u(l->dst_dtype, out, s.u);
  else
    store_from_d(l->dst_dtype, out, s.d);
  write_bytes(l->dst + i * l->dst_step, out, size);
}

/* Elements [first, last) of the line scanned from s; writes them when `write`; the total. */
static scan_acc scan_piece(long op, const line_ref *l, long first, long last, scan_acc s,
                           bool write) {
  for (long i = first; i < last; i++) {
    s = scan_step(op, s, scan_load(l, i));
    if (write) scan_store(l, i, s);
  }
  return s;
}

/* Softmax computes in the compute dtype (float64 for a float64 result, else float32), with its
 * sum in float64, as the CPU: the element in the compute dtype, as a double. */
static double softmax_load(const line_ref *l, bool f64, long i) {
  char in[16], out[16];
  read_bytes(in, l->src + i * l->src_step, dtype_size(l->src_dtype));
  cast_element(f64 ? DLX_FLOAT64 : DLX_FLOAT32, out, l->src_dtype, in);
  return f64 ? load_float64(out) : (double)load_float32(out);
}

/* exp(x - max) in the compute dtype. */
static double softmax_exp(bool f64, double x, double max) {
  if (f64) return exp(x - max);
  return (double)exp((float)x - (float)max);
}

static double piece_max(const line_ref *l, bool f64, long first, long last) {
  double m = -(double)INFINITY;
  for (long i = first; i < last; i++) {
    double x = softmax_load(l, f64, i);
    m = x > m ? x : m; /* NaN ignored here; it makes the sum NaN */
  }
  return m;
}

static double piece_sum(const line_ref *l, bool f64, long first, long last, double max) {
  double s = 0;
  for (long i = first; i < last; i++) s += softmax_exp(f64, softmax_load(l, f64, i), max);
  return s;
}

static void piece_write(const line_ref *l, bool f64, bool log_result, long first, long last,
                        double max, double sum) {
  int size = dtype_size(l->dst_dtype);
  for (long i = first; i < last; i++) {
    double x = softmax_load(l, f64, i);
    char out[16];
    if (f64) {
      double y = log_result ? (x - max) - log(sum) : exp(x - max) / sum;
      store_from_d(l->dst_dtype, out, y);
    } else {
      float y = log_result ? ((float)x - (float)max) - (float)log(sum)
                           : (float)softmax_exp(false, x, max) / (float)sum;
      store_from_f(l->dst_dtype, out, y);
    }
    write_bytes(l->dst + i * l->dst_step, out, size);
  }
}

static line_ref line_of(__global const uchar *src, __global uchar *dst,
                        __global const dlx_ze_dim_args *a, long line) {
  line_ref l;
  long soff, doff;
  offsets2(line, a->outer_ndim, a->outer_shape, a->src_strides, a->dst_strides, &soff, &doff);
  l.src = src + soff;
  l.dst = dst + doff;
  l.src_step = a->src_step;
  l.dst_step = a->dst_step;
  l.src_dtype = a->src_dtype;
  l.dst_dtype = a->dst_dtype;
  return l;
}

/* One work-item, the whole line in order (as the CPU). */
static void line_alone(__global const dlx_ze_dim_args *a, const line_ref *l) {
  long op = a->op, n = a->len;
  bool f64 = a->dst_dtype == DLX_FLOAT64;
  if (op == DLX_ZE_DIM_CUMSUM || op == DLX_ZE_DIM_CUMPROD) {
    scan_piece(op, l, 0, n, scan_start(op), true);
  } else {
    double max = piece_max(l, f64, 0, n);
    piece_write(l, f64, op == DLX_ZE_DIM_LOG_SOFTMAX, 0, n, max, piece_sum(l, f64, 0, n, max));
  }
}

/* A work-group: work-item t takes piece t of ceil(len / GROUP) elements; the pieces' totals meet
 * in local memory in a fixed order (scans: work-item 0 chains them; softmax: a tree). Every
 * work-item calls it (it holds barriers). */
static void line_together(__global const dlx_ze_dim_args *a, const line_ref *l,
                          __local scan_acc *totals, __local double *values) {
  long op = a->op, n = a->len, lid = get_local_id(0), piece = (n + GROUP - 1) / GROUP;
  long first = min(lid * piece, n), last = min(first + piece, n);
  bool f64 = a->dst_dtype == DLX_FLOAT64;
  if (op == DLX_ZE_DIM_CUMSUM || op == DLX_ZE_DIM_CUMPROD) {
    totals[lid] = scan_piece(op, l, first, last, scan_start(op), false);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) { /* totals[t] becomes the running value before piece t */
      scan_acc s = scan_start(op);
      for (int t = 0; t < GROUP; t++) {
        scan_acc piece_total = totals[t];
        totals[t] = s;
        s = scan_step(op, s, piece_total);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    scan_piece(op, l, first, last, totals[lid], true);
    barrier(CLK_LOCAL_MEM_FENCE); /* totals is reused by the next line */
    return;
  }
  values[lid] = piece_max(l, f64, first, last);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int span = GROUP / 2; span > 0; span >>= 1) {
    if (lid < span)
      values[lid] = values[lid + span] > values[lid] ? values[lid + span] : values[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  double max = values[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  values[lid] = piece_sum(l, f64, first, last, max);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int span = GROUP / 2; span > 0; span >>= 1) {
    if (lid < span) values[lid] += values[lid + span];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  double sum = values[0];
  piece_write(l, f64, op == DLX_ZE_DIM_LOG_SOFTMAX, first, last, max, sum);
  barrier(CLK_LOCAL_MEM_FENCE); /* values is reused by the next line */
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_along_dim(__global uchar *dst, __global const uchar *src, __global const dlx_ze_dim_args *a) {
  __local scan_acc totals[GROUP];
  __local double values[GROUP];
  if (a->per_group == 0) {
    for (long line = get_global_id(0); line < a->lines; line += get_global_size(0)) {
      line_ref l = line_of(src, dst, a, line);
      line_alone(a, &l);
    }
    return;
  }
  for (long line = get_group_id(0); line < a->lines; line += get_num_groups(0)) {
    line_ref l = line_of(src, dst, a, line);
    line_together(a, &l, totals, values);
  }
}
