/* reduce_kernels.c -- the CPU reductions' kernels by op and dtype: each family of loops
 * (reduce_sums.c, reduce_columns.c, reduce_extremes.c, reduce_logical.c) gives its tables, and
 * dlx_cpu_reduce_kernel picks the entry. */
#include "cpu/reduce_kernels.h"

#include "cpu/reduce_loops.h"

static const dlx_reduce_kernel *table_of(dlx_reduce_op op) {
  switch (op) {
  case DLX_REDUCE_SUM:
    return dlx_cpu_sum_kernels;
  case DLX_REDUCE_PROD:
    return dlx_cpu_prod_kernels;
  case DLX_REDUCE_MEAN:
    return dlx_cpu_mean_kernels;
  case DLX_REDUCE_MIN:
    return dlx_cpu_min_kernels;
  case DLX_REDUCE_MAX:
    return dlx_cpu_max_kernels;
  case DLX_REDUCE_ARGMIN:
    return dlx_cpu_argmin_kernels;
  case DLX_REDUCE_ARGMAX:
    return dlx_cpu_argmax_kernels;
  case DLX_REDUCE_ALL:
    return dlx_cpu_all_kernels;
  case DLX_REDUCE_ANY:
    return dlx_cpu_any_kernels;
  }
  return NULL;
}

int dlx_cpu_reduce_kernel(dlx_reduce_op op, dlx_dtype src, dlx_reduce_kernel *out) {
  const dlx_reduce_kernel *table = table_of(op);
  if (table == NULL || (int)src < 0 || src >= NTYPES || table[src].run == NULL) return -1;
  *out = table[src];
  dlx_cpu_reduce_columns_of(op, src, out);
  return 0;
}

void dlx_cpu_reduce_acc_init(dlx_reduce_acc *acc, dlx_reduce_op op) {
  bool prod = op == DLX_REDUCE_PROD;
  acc->stop = false;
  acc->has = false;
  acc->flag = op == DLX_REDUCE_ALL;
  acc->seen = 0;
  acc->index = 0;
  acc->i = 0;
  acc->u = prod ? 1 : 0;
  acc->f[0] = prod ? 1.0f : 0.0f;
  acc->f[1] = 0.0f;
  acc->d[0] = prod ? 1.0 : 0.0;
  acc->d[1] = 0.0;
  acc->used = 0;
}
