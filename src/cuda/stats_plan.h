/* stats_plan.h -- how the CUDA kernels of the statistics and of the ops along a dim split their
 * work, from the sizes alone (the results depend on it: the order in which partials meet). Plain
 * C on the host (stats.c); tests/c/cuda_stats_rules.c checks the plans cover every element. */
#ifndef DLX_CUDA_STATS_PLAN_H
#define DLX_CUDA_STATS_PLAN_H

#include <stdint.h>

#include "cuda/kernels.h"

#define DLX_CUDA_STAT_PER_BLOCK (DLX_CUDA_STAT_THREADS * 16) /* elements a block takes at least */
#define DLX_CUDA_STAT_WARP_EXTENT 1024                       /* rows a warp takes whole */
#define DLX_CUDA_BUSY_BLOCKS 1024                            /* blocks that keep a large GPU busy */
#define DLX_CUDA_LONG_LINE 256    /* lines a block takes (shorter ones: a thread) */
#define DLX_CUDA_MANY_LINES 16384 /* lines enough for a thread each to fill the GPU */

typedef struct dlx_cuda_stat_plan {
  int mode; /* DLX_CUDA_STAT_* of kernels.h */
  int64_t parts, part_len;
} dlx_cuda_stat_plan;

static inline int64_t dlx_cuda_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Rows (inner 1): a warp per short row when there are many; otherwise blocks, a row cut into
 * pieces of at least DLX_CUDA_STAT_PER_BLOCK elements when there are too few rows for the GPU.
 * Columns: a thread each, the extent cut (pieces of at least 64 rows) when there are few. */
static inline dlx_cuda_stat_plan dlx_cuda_plan_stat(int64_t outer, int64_t extent, int64_t inner) {
  dlx_cuda_stat_plan plan;
  int64_t parts, limit;
  if (inner == 1) {
    parts = dlx_cuda_ceil_div(extent, DLX_CUDA_STAT_PER_BLOCK);
    limit = outer >= DLX_CUDA_BUSY_BLOCKS ? 1 : DLX_CUDA_BUSY_BLOCKS / outer;
    plan.parts = parts < 1 ? 1 : parts > limit ? limit : parts;
    plan.mode = plan.parts == 1 && extent <= DLX_CUDA_STAT_WARP_EXTENT && outer >= 64
                    ? DLX_CUDA_STAT_WARP_ROWS
                    : DLX_CUDA_STAT_BLOCK_ROWS;
  } else {
    int64_t column_blocks = dlx_cuda_ceil_div(outer * inner, DLX_CUDA_STAT_THREADS);
    parts = DLX_CUDA_BUSY_BLOCKS / column_blocks;
    if (parts > extent / 64) parts = extent / 64;
    if (parts > 65535) parts = 65535; /* gridDim.y */
    plan.parts = parts > 1 ? parts : 1;
    plan.mode = DLX_CUDA_STAT_COLUMNS;
  }
  plan.part_len = dlx_cuda_ceil_div(extent, plan.parts);
  if (plan.part_len > 0) plan.parts = dlx_cuda_ceil_div(extent, plan.part_len); /* none empty */
  return plan;
}

/* A line of a contiguous [outer, len, inner]: long lines (inner 1) a block each; short lines, or
 * enough lines side by side, a thread each; a few long lines across the memory (inner > 1) are
 * made rows first (TRANSPOSE: a copy with the dim last, then a block each). */
static inline int dlx_cuda_plan_line(int64_t outer, int64_t len, int64_t inner) {
  if (len < DLX_CUDA_LONG_LINE) return DLX_CUDA_LINE_THREAD;
  if (inner == 1) return DLX_CUDA_LINE_BLOCK;
  if (outer * inner >= DLX_CUDA_MANY_LINES) return DLX_CUDA_LINE_THREAD;
  return DLX_CUDA_LINE_TRANSPOSE;
}

#endif
