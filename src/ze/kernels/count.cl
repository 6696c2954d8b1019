/* count.cl -- the Level Zero backend's count_op (dlx_count, ze_args.h): counts by 32-bit atomics
 * (SPIR-V for OpenCL has no 64-bit ones without an extension), sums of weights by one work-item
 * in element order (the CPU's order, so its bits), and searchsorted by a binary search a value,
 * with the rules of src/common/count_rules.h that the CPU takes, so the bins and the positions
 * are the CPU's. Part of the module that dlx_kernels.cl makes (it includes this file, after
 * sort.cl). */
#include "common/count_rules.h"

#ifndef __ENDIAN_LITTLE__
#error "count.cl counts in the low word of an int64 first"
#endif

/* *count += 1 on an int64 count as two 32-bit words, the low one first: the low word's wrap
 * carries into the high one, so the count is exact once the launch ends. */
static void count_one(__global long *count) {
  volatile __global uint *w = (volatile __global uint *)count;
  if (atomic_inc(w) == 0xffffffffu) atomic_inc(w + 1);
}

/* The bin of element i of src. */
static long count_bin(__global const uchar *src, __global const uchar *edges,
                      __global const dlx_ze_count_args *a, long i) {
  long b = DLX_COUNT_LEFT_OUT, nb = a->nbins;
  if (a->op == DLX_ZE_COUNT_OP_BINCOUNT) return ((__global const long *)src)[i];
  if (a->op == DLX_ZE_COUNT_OP_LINEAR)
    return a->is64 ? dlx_count_linear_bin_f64(((__global const double *)src)[i], a->lo, a->hi, nb)
                   : dlx_count_linear_bin_f32(((__global const float *)src)[i], (float)a->lo,
                                              (float)a->hi, nb);
  if (a->is64) {
    __global const double *e = (__global const double *)edges;
    DLX_COUNT_EDGES_BIN(double, e, ((__global const double *)src)[i], nb, a->uniform, b);
  } else {
    __global const float *e = (__global const float *)edges;
    DLX_COUNT_EDGES_BIN(float, e, ((__global const float *)src)[i], nb, a->uniform, b);
  }
  return b;
}

/* The 1-based position of value i (row-major in [rows, m]) in its sorted row. */
static long search_one(__global const uchar *src, __global const uchar *edges,
                       __global const dlx_ze_count_args *a, long i) {
  long row = a->shared_row ? 0 : i / a->m, below = 0;
  switch (a->key_kind) {
#define SEARCH_CASE(K, T, KEY)                                                                     \
  case K: {                                                                                        \
    __global const T *s = (__global const T *)edges + row * a->n;                                  \
    T key = KEY(((__global const T *)src)[i]);                                                     \
    DLX_COUNT_BELOW(__global const T *, T, KEY, s, a->n, key, a->right, below);                                        \
    break;                                                                                         \
  }
    DLX_SORT_KEY_KINDS(SEARCH_CASE)
#undef SEARCH_CASE
  default:
    break;
  }
  return 1 + below;
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_count(__global uchar *out, __global const uchar *src, __global const uchar *edges,
          __global const uchar *weights, __global const dlx_ze_count_args *a) {
  long count = a->phase == DLX_ZE_COUNT_ZERO     ? a->nbins
               : a->phase == DLX_ZE_COUNT_SEARCH ? a->rows * a->m
                                                 : a->n;
  if (a->phase == DLX_ZE_COUNT_BINS && a->has_weights) {
    /* one work-item adds the weights in element order */
    __global double *sums = (__global double *)out;
    if (get_global_id(0) != 0) return;
    for (long i = 0; i < count; i++) {
      long b = count_bin(src, edges, a, i);
      if (b != DLX_COUNT_LEFT_OUT) sums[b] += ((__global const double *)weights)[i];
    }
    return;
  }
  for (long i = get_global_id(0); i < count; i += get_global_size(0)) {
    if (a->phase == DLX_ZE_COUNT_ZERO) {
      ((__global long *)out)[i] = 0;
    } else if (a->phase == DLX_ZE_COUNT_SEARCH) {
      ((__global long *)out)[i] = search_one(src, edges, a, i);
    } else {
      long b = count_bin(src, edges, a, i);
      if (b != DLX_COUNT_LEFT_OUT) count_one((__global long *)out + b);
    }
  }
}
