/* rows.cl -- the Level Zero backend's row_op scans (dlx_row_scan): cummax, cummin and
 * logcumsumexp, part of the module that dlx_kernels.cl makes (it includes this file, after its
 * cast helpers and sort.cl). A work-item walks a row in order with the steps of
 * src/common/row_scans.h, so cummax and cummin give the CPU's bits. */
#include "common/row_scans.h"

/* The running extreme of row r: values and 1-based indices. */
static void scan_extreme(__global uchar *values, __global long *indices,
                         __global const uchar *src, __global const dlx_ze_row_scan_args *a,
                         long r) {
  int size = dtype_size(a->src_dtype), max = a->op == DLX_ZE_ROW_CUMMAX;
  ulong nan_key = size == 8 ? ~(ulong)0 : ((ulong)1 << (size * 8)) - 1;
  __global const uchar *row = src + r * a->n * size;
  ulong best = 0;
  long at = 0;
  for (long i = 0; i < a->n; i++) {
    ulong element = 0; /* aligned for the widest key */
    ulong x;
    read_bytes((char *)&element, row + i * size, size);
    x = dlx_sort_key_at((int)a->key_kind, &element);
    if (i == 0 || dlx_scan_takes_over(max, x, a->is_float && x == nan_key, best,
                                      a->is_float && best == nan_key)) {
      best = x;
      at = i;
    }
    for (int k = 0; k < size; k++) values[(r * a->n + i) * size + k] = row[at * size + k];
    indices[r * a->n + i] = at + 1;
  }
}

/* The running log(sum(exp)) of row r, in float64, each result rounded once. */
static void scan_logsumexp(__global uchar *values, __global const uchar *src,
                           __global const dlx_ze_row_scan_args *a, long r) {
  int in_size = dtype_size(a->src_dtype), out_size = dtype_size(a->values_dtype);
  double acc = -(double)INFINITY;
  for (long i = 0; i < a->n; i++) {
    char out[8];
    acc = dlx_log_add_exp(acc, element_as_double(a->src_dtype, src + (r * a->n + i) * in_size));
    store_from_d(a->values_dtype, out, acc);
    write_bytes(values + (r * a->n + i) * out_size, out, out_size);
  }
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_row_scan(__global uchar *values, __global long *indices, __global const uchar *src,
             __global const dlx_ze_row_scan_args *a) {
  for (long r = get_global_id(0); r < a->rows; r += get_global_size(0)) {
    if (a->op == DLX_ZE_ROW_LOGCUMSUMEXP)
      scan_logsumexp(values, src, a, r);
    else
      scan_extreme(values, indices, src, a, r);
  }
}
