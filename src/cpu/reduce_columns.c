/* reduce_columns.c -- column sums and means of floats, for reductions over outer axes
 * (reduce_kernels.h describes the strips and the cascade). */
#include "cpu/reduce_loops.h"

void dlx_cpu_reduce_columns_init(dlx_reduce_columns *c) {
  c->rows = 0;
  c->used = 0;
}

/* The levels work as a binary counter: a full block lands on level columns_land(c) after the
 * levels below it (all in use) are added to it, lightest first; when every level below the top
 * is in use, the top one accumulates (it is added too). columns_landed updates the counter. */
static int columns_land(const dlx_reduce_columns *c) {
  int k = 0;
  while (k < DLX_REDUCE_COLUMN_LEVELS - 1 && ((c->used >> k) & 1)) k++;
  return k;
}

static int columns_carries(const dlx_reduce_columns *c, int land) {
  return land + (int)((c->used >> land) & 1);
}

static void columns_landed(dlx_reduce_columns *c, int land) {
  c->used &= ~((UINT64_C(1) << land) - 1);
  c->used |= UINT64_C(1) << land;
}

/* Moves a full block (in block_d) onto the levels. */
static void columns_push(dlx_reduce_columns *c, int64_t width) {
  int land = columns_land(c), carries = columns_carries(c, land);
  for (int64_t j = 0; j < width; j++) {
    double t = c->block_d[j];
    for (int m = 0; m < carries; m++) t += c->level[m][j];
    c->level[land][j] = t;
  }
  columns_landed(c, land);
}

/* The total of column j: the partial block first, then the levels from the lightest up. */
static double columns_total(const dlx_reduce_columns *c, int64_t j, double partial_block) {
  double t = c->rows % DLX_REDUCE_ROW_BLOCK != 0 ? partial_block : -0.0;
  for (int k = 0; k < DLX_REDUCE_COLUMN_LEVELS; k++) {
    if ((c->used >> k) & 1) t += c->level[k][j];
  }
  return t;
}

/* The first row of a block is assigned (so that a sum of -0.0s stays -0.0), the others added
 * in row order. Rows that start or end a block part-way go one at a time (add_row), through the
 * accumulators in block. Whole blocks (rows_block) are summed COLUMN_CHUNK_BYTES of
 * accumulators at a time, each a register, over the block's rows in the same order, and go
 * onto the levels in the same pass. That gives the same bits as row by row (for float16 and
 * bfloat16 up to which NaN survives when a column holds several: the compiler's operand order
 * never fixed that), but reads faster: a row by row pass loaded and stored the accumulators
 * once per vector of each row, then walked them again to push the block, and one thread summed
 * an 8192^2 float32 matrix over its rows ~1.3x slower (bench/RESULTS.md). */
#define COLUMN_CHUNK_BYTES 256
#define DEFINE_COLUMNS(name, e, T, ACC, block)                                                     \
  static CLONE_INLINE void add_row_##name(dlx_reduce_columns *c, const char *row, int64_t width) { \
    ACC *acc = c->block;                                                                           \
    const ptrdiff_t size = (ptrdiff_t)sizeof(T);                                                   \
    if (c->rows % DLX_REDUCE_ROW_BLOCK == 0) {                                                     \
      for (int64_t j = 0; j < width; j++) acc[j] = load_##name(row + j * size);                    \
    } else {                                                                                       \
      for (int64_t j = 0; j < width; j++) acc[j] += load_##name(row + j * size);                   \
    }                                                                                              \
    c->rows++;                                                                                     \
    if (c->rows % DLX_REDUCE_ROW_BLOCK == 0) {                                                     \
      for (int64_t j = 0; j < width; j++) c->block_d[j] = (double)acc[j];                          \
      columns_push(c, width);                                                                      \
    }                                                                                              \
  }                                                                                                \
  static CLONE_INLINE void rows_block_##name(dlx_reduce_columns *c, const char *rows,              \
                                             ptrdiff_t step, int64_t width) {                      \
    const ptrdiff_t size = (ptrdiff_t)sizeof(T);                                                   \
    enum { COLUMN_CHUNK = COLUMN_CHUNK_BYTES / sizeof(ACC) };                                      \
    int land = columns_land(c), carries = columns_carries(c, land);                                \
    int64_t j = 0;                                                                                 \
    for (; j + COLUMN_CHUNK <= width; j += COLUMN_CHUNK) {                                         \
      const char *q = rows + j * size;                                                             \
      ACC s[COLUMN_CHUNK];                                                                         \
      double t[COLUMN_CHUNK];                                                                      \
      for (int i = 0; i < COLUMN_CHUNK; i++) s[i] = load_##name(q + i * size);                     \
      for (int k = 1; k < DLX_REDUCE_ROW_BLOCK; k++) {                                             \
        for (int i = 0; i < COLUMN_CHUNK; i++) s[i] += load_##name(q + k * step + i * size);       \
      }                                                                                            \
      for (int i = 0; i < COLUMN_CHUNK; i++) t[i] = (double)s[i];                                  \
      for (int m = 0; m < carries; m++) {                                                          \
        for (int i = 0; i < COLUMN_CHUNK; i++) t[i] += c->level[m][j + i];                         \
      }                                                                                            \
      for (int i = 0; i < COLUMN_CHUNK; i++) c->level[land][j + i] = t[i];                         \
    }                                                                                              \
    for (; j < width; j++) {                                                                       \
      const char *q = rows + j * size;                                                             \
      ACC s = load_##name(q);                                                                      \
      for (int k = 1; k < DLX_REDUCE_ROW_BLOCK; k++) s += load_##name(q + k * step);               \
      double t = (double)s;                                                                        \
      for (int m = 0; m < carries; m++) t += c->level[m][j];                                       \
      c->level[land][j] = t;                                                                       \
    }                                                                                              \
    c->rows += DLX_REDUCE_ROW_BLOCK;                                                               \
    columns_landed(c, land);                                                                       \
  }                                                                                                \
  SIMD_CLONES static void add_rows_##name(dlx_reduce_columns *c, const char *rows, ptrdiff_t step, \
                                          int64_t nrows, int64_t width) {                          \
    for (; nrows > 0 && c->rows % DLX_REDUCE_ROW_BLOCK != 0; nrows--, rows += step) {              \
      add_row_##name(c, rows, width);                                                              \
    }                                                                                              \
    for (; nrows >= DLX_REDUCE_ROW_BLOCK; nrows -= DLX_REDUCE_ROW_BLOCK) {                         \
      rows_block_##name(c, rows, step, width);                                                     \
      rows += DLX_REDUCE_ROW_BLOCK * step;                                                         \
    }                                                                                              \
    for (; nrows > 0; nrows--, rows += step) add_row_##name(c, rows, width);                       \
  }                                                                                                \
  static void finish_columns_##name(dlx_reduce_columns *c, char *out, ptrdiff_t out_step,          \
                                    int64_t width, int64_t count) {                                \
    for (int64_t j = 0; j < width; j++) {                                                          \
      store_##name(out + j * out_step, DLX_CONVERT(name, columns_total(c, j, c->block[j])));       \
    }                                                                                              \
    (void)count;                                                                                   \
  }                                                                                                \
  static void finish_column_means_##name(dlx_reduce_columns *c, char *out, ptrdiff_t out_step,     \
                                         int64_t width, int64_t count) {                           \
    for (int64_t j = 0; j < width; j++) {                                                          \
      double mean = mean_of(columns_total(c, j, c->block[j]), count);                              \
      store_##name(out + j * out_step, DLX_CONVERT(name, mean));                                   \
    }                                                                                              \
  }
DEFINE_COLUMNS(float16, DLX_FLOAT16, uint16_t, float, block_f)
DEFINE_COLUMNS(bfloat16, DLX_BFLOAT16, uint16_t, float, block_f)
DEFINE_COLUMNS(float32, DLX_FLOAT32, float, float, block_f)
DEFINE_COLUMNS(float64, DLX_FLOAT64, double, double, block_d)

void dlx_cpu_reduce_columns_of(dlx_reduce_op op, dlx_dtype src, dlx_reduce_kernel *k) {
  bool mean = op == DLX_REDUCE_MEAN;
  if (op != DLX_REDUCE_SUM && !mean) return;
  switch (src) {
#define COLUMNS_CASE(name, e)                                                                      \
  case e:                                                                                          \
    k->add_rows = add_rows_##name;                                                                 \
    k->finish_columns = mean ? finish_column_means_##name : finish_columns_##name;                 \
    break;
    COLUMNS_CASE(float16, DLX_FLOAT16)
    COLUMNS_CASE(bfloat16, DLX_BFLOAT16)
    COLUMNS_CASE(float32, DLX_FLOAT32)
    COLUMNS_CASE(float64, DLX_FLOAT64)
#undef COLUMNS_CASE
  default:
    break;
  }
}
