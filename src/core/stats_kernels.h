/* stats_kernels.h -- the host side of the shared statistics partials (common/stats_ops.h), for
 * the C code of backends whose kernels use them (Level Zero, CUDA): the kernel's kind of a
 * dlx_stat_op. In the core, not in src/common: dlx_stat_op is the core's. */
#ifndef DLX_CORE_STATS_KERNELS_H
#define DLX_CORE_STATS_KERNELS_H

#include "common/stats_ops.h"
#include "core/backend.h"

/* The DLX_STAT_K_* of op; for norm, param is p (1, 2, or anything else for inf: the core has
 * checked it). */
static inline int dlx_stat_kind(dlx_stat_op op, double param) {
  switch (op) {
  case DLX_STAT_VAR:
    return DLX_STAT_K_VAR;
  case DLX_STAT_STD:
    return DLX_STAT_K_STD;
  case DLX_STAT_LOGSUMEXP:
    return DLX_STAT_K_LSE;
  default:
    return param == 1 ? DLX_STAT_K_NORM1 : param == 2 ? DLX_STAT_K_NORM2 : DLX_STAT_K_NORMINF;
  }
}

#endif
