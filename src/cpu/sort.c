/* sort.c -- the CPU's sort_rows: a least-significant-digit radix sort of each row's keys
 * (src/common/sort_keys.h), one digit a pass (8 or 11 bits), carrying the elements' positions
 * along. Each pass scatters the elements in the order they come, so equal keys keep their order
 * (stable) and the result does not depend on anything but the input; passes whose digit is the
 * same for the whole row are skipped.
 *
 * Rows are spread over the pool's threads. When there are fewer rows than threads, each long
 * row is cut into contiguous blocks, one a thread, for every step (the standard parallel LSD
 * radix sort): each block counts its digits, an exclusive prefix over (digit, block) gives
 * each block the first place of each digit, and each block scatters its elements in order. An
 * element's place is then the number of elements before it in (digit, position) order, as on
 * one thread: a stable sort has one result, so the blocks change nothing but the time. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/sort_keys.h"
#include "core/sort.h"
#include "cpu/kernels.h"
#include "cpu/parallel.h"

typedef struct sort_job {
  const char *src;
  char *values;
  int64_t *indices;
  int64_t n;   /* elements a row */
  size_t size; /* bytes an element, the key's width too */
  int kind;
  bool descending;
  atomic_bool failed; /* a block could not get its scratch memory */
} sort_job;

/* The histograms of one block: at most 8 passes of up to 2^11 buckets. */
#define HIST_WORDS ((size_t)8 * 2048)
#define HIST_BYTES (HIST_WORDS * sizeof(int64_t))

/* One row being sorted in `blocks` blocks. keys/pos hold the current order, keys2/pos2 receive
 * the next pass; hist holds HIST_WORDS counters a block ([pass][digit]). */
typedef struct row_sort {
  const sort_job *job;
  const char *row;
  char *values;
  int64_t *indices;
  int64_t blocks;
  void *keys, *keys2, *pos, *pos2;
  int64_t *hist;
  int pass;
} row_sort;

/* Block b of `blocks` of n elements: [block_begin(b), block_begin(b + 1)). */
static int64_t block_begin(int64_t n, int64_t blocks, int64_t b) {
  int64_t rest = n % blocks;
  return b * (n / blocks) + (b < rest ? b : rest);
}

/* Calls fn on every block of the row: on the pool's threads when there are several. */
static void run_blocks(row_sort *rs, dlx_cpu_range_fn fn) {
  if (rs->blocks == 1)
    fn(rs, 0, 1);
  else
    dlx_cpu_parallel_for(rs->blocks, 1, fn, rs);
}

/* Turns the counts of pass p into each block's first place for each digit: digits in order,
 * and within a digit the blocks in order, which keeps equal digits in their order. */
static void prefix_places(row_sort *rs, int p, int radix) {
  int64_t sum = 0;
  for (int d = 0; d < radix; d++)
    for (int64_t b = 0; b < rs->blocks; b++) {
      int64_t *count = rs->hist + (size_t)b * HIST_WORDS + (size_t)p * radix + d;
      int64_t c = *count;
      *count = sum;
      sum += c;
    }
}

/* Whether every element of the row has the same digit in pass p (the first element's, d). */
static bool one_digit(const row_sort *rs, int p, int radix, int d) {
  int64_t total = 0;
  for (int64_t b = 0; b < rs->blocks; b++)
    total += rs->hist[(size_t)b * HIST_WORDS + (size_t)p * radix + d];
  return total == rs->job->n;
}

/* keys[i] = the key of row[i], complemented when descending, for i in [lo, hi). The row may
 * sit at any address (foreign memory): its elements are read with memcpy, one load aligned or
 * not. */
#define FILL_KEYS(KT, FN)                                                                          \
  for (int64_t i = lo; i < hi; i++) {                                                              \
    KT element;                                                                                    \
    memcpy(&element, rs->row + i * (int64_t)sizeof(KT), sizeof(KT));                               \
    keys[i] = (KT)(FN(element) ^ flip);                                                            \
  }

/* The steps of sorting a row of key type KT, positions of type IT, BITS bits a digit (11 for
 * 32- and 64-bit keys: three passes over a float32 row instead of four, the 2^11 counters still
 * in the L1 cache), each a dlx_cpu_range_fn over blocks, and NAME, which runs them. */
#define DEFINE_SORT_ROW(NAME, KT, IT, BITS)                                                        \
  enum { NAME##_passes = (8 * sizeof(KT) + BITS - 1) / BITS, NAME##_radix = 1 << BITS };           \
                                                                                                   \
  static void NAME##_fill_keys(row_sort *rs, int64_t lo, int64_t hi) {                             \
    KT *keys = rs->keys, flip = rs->job->descending ? (KT) ~(KT)0 : 0;                             \
    switch (rs->job->kind) {                                                                       \
    case DLX_SORT_KEY_BOOL:                                                                        \
      FILL_KEYS(KT, dlx_sort_key_bool);                                                            \
      break;                                                                                       \
    case DLX_SORT_KEY_U8:                                                                          \
      FILL_KEYS(KT, dlx_sort_key_u8);                                                              \
      break;                                                                                       \
    case DLX_SORT_KEY_I8:                                                                          \
      FILL_KEYS(KT, dlx_sort_key_i8);                                                              \
      break;                                                                                       \
    case DLX_SORT_KEY_U16:                                                                         \
      FILL_KEYS(KT, dlx_sort_key_u16);                                                             \
      break;                                                                                       \
    case DLX_SORT_KEY_I16:                                                                         \
      FILL_KEYS(KT, dlx_sort_key_i16);                                                             \
      break;                                                                                       \
    case DLX_SORT_KEY_F16:                                                                         \
      FILL_KEYS(KT, dlx_sort_key_f16);                                                             \
      break;                                                                                       \
    case DLX_SORT_KEY_BF16:                                                                        \
      FILL_KEYS(KT, dlx_sort_key_bf16);                                                            \
      break;                                                                                       \
    case DLX_SORT_KEY_U32:                                                                         \
      FILL_KEYS(KT, dlx_sort_key_u32);                                                             \
      break;                                                                                       \
    case DLX_SORT_KEY_I32:                                                                         \
      FILL_KEYS(KT, dlx_sort_key_i32);                                                             \
      break;                                                                                       \
    case DLX_SORT_KEY_F32:                                                                         \
      FILL_KEYS(KT, dlx_sort_key_f32);                                                             \
      break;                                                                                       \
    case DLX_SORT_KEY_U64:                                                                         \
      FILL_KEYS(KT, dlx_sort_key_u64);                                                             \
      break;                                                                                       \
    case DLX_SORT_KEY_I64:                                                                         \
      FILL_KEYS(KT, dlx_sort_key_i64);                                                             \
      break;                                                                                       \
    default:                                                                                       \
      FILL_KEYS(KT, dlx_sort_key_f64);                                                             \
      break;                                                                                       \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  /* Keys and positions of blocks [b0, b1), and each block's counts of every pass's digits. */     \
  static void NAME##_fill(void *ctx, int64_t b0, int64_t b1) {                                     \
    row_sort *rs = ctx;                                                                            \
    KT *keys = rs->keys;                                                                           \
    IT *pos = rs->pos;                                                                             \
    for (int64_t b = b0; b < b1; b++) {                                                            \
      int64_t lo = block_begin(rs->job->n, rs->blocks, b);                                         \
      int64_t hi = block_begin(rs->job->n, rs->blocks, b + 1);                                     \
      int64_t(*hist)[NAME##_radix] = (void *)(rs->hist + (size_t)b * HIST_WORDS);                  \
      NAME##_fill_keys(rs, lo, hi);                                                                \
      memset(hist, 0, (size_t)NAME##_passes *NAME##_radix * sizeof(int64_t));                      \
      for (int64_t i = lo; i < hi; i++) {                                                          \
        KT k = keys[i];                                                                            \
        pos[i] = (IT)i;                                                                            \
        for (int p = 0; p < NAME##_passes; p++) hist[p][(k >> (BITS * p)) & (NAME##_radix - 1)]++; \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  /* Each block's counts of the current pass's digits, in the current order. */                    \
  static void NAME##_count(void *ctx, int64_t b0, int64_t b1) {                                    \
    row_sort *rs = ctx;                                                                            \
    const KT *keys = rs->keys;                                                                     \
    int p = rs->pass;                                                                              \
    for (int64_t b = b0; b < b1; b++) {                                                            \
      int64_t *h = rs->hist + (size_t)b * HIST_WORDS + (size_t)p * NAME##_radix;                   \
      int64_t hi = block_begin(rs->job->n, rs->blocks, b + 1);                                     \
      memset(h, 0, NAME##_radix * sizeof(int64_t));                                                \
      for (int64_t i = block_begin(rs->job->n, rs->blocks, b); i < hi; i++)                        \
        h[(keys[i] >> (BITS * p)) & (NAME##_radix - 1)]++;                                         \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  /* Each block moves its elements, in order, to its places for their digits. */                   \
  static void NAME##_scatter(void *ctx, int64_t b0, int64_t b1) {                                  \
    row_sort *rs = ctx;                                                                            \
    const KT *keys = rs->keys;                                                                     \
    const IT *pos = rs->pos;                                                                       \
    KT *keys2 = rs->keys2;                                                                         \
    IT *pos2 = rs->pos2;                                                                           \
    int p = rs->pass;                                                                              \
    for (int64_t b = b0; b < b1; b++) {                                                            \
      int64_t *h = rs->hist + (size_t)b * HIST_WORDS + (size_t)p * NAME##_radix;                   \
      int64_t hi = block_begin(rs->job->n, rs->blocks, b + 1);                                     \
      for (int64_t i = block_begin(rs->job->n, rs->blocks, b); i < hi; i++) {                      \
        int64_t to = h[(keys[i] >> (BITS * p)) & (NAME##_radix - 1)]++;                            \
        keys2[to] = keys[i];                                                                       \
        pos2[to] = pos[i];                                                                         \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  /* The sorted values and their 1-based positions, block by block. */                             \
  static void NAME##_gather(void *ctx, int64_t b0, int64_t b1) {                                   \
    row_sort *rs = ctx;                                                                            \
    const IT *pos = rs->pos;                                                                       \
    int64_t lo = block_begin(rs->job->n, rs->blocks, b0);                                          \
    int64_t hi = block_begin(rs->job->n, rs->blocks, b1);                                          \
    for (int64_t i = lo; i < hi; i++) {                                                            \
      memcpy(rs->values + i * (int64_t)sizeof(KT),                                                 \
             rs->row + (int64_t)pos[i] * (int64_t)sizeof(KT), sizeof(KT));                         \
      rs->indices[i] = (int64_t)pos[i] + 1;                                                        \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  static void NAME(row_sort *rs) {                                                                 \
    bool skip[NAME##_passes], moved = false;                                                       \
    run_blocks(rs, NAME##_fill);                                                                   \
    for (int p = 0; p < NAME##_passes; p++) /* decided on the counts of the first order */         \
      skip[p] = one_digit(rs, p, NAME##_radix,                                                     \
                          (int)((((const KT *)rs->keys)[0] >> (BITS * p)) & (NAME##_radix - 1)));  \
    for (int p = 0; p < NAME##_passes; p++) {                                                      \
      void *swap;                                                                                  \
      if (skip[p]) continue;                                                                       \
      rs->pass = p;                                                                                \
      /* the fill's counts of a block hold until an element moves to another block */              \
      if (moved && rs->blocks > 1) run_blocks(rs, NAME##_count);                                   \
      prefix_places(rs, p, NAME##_radix);                                                          \
      run_blocks(rs, NAME##_scatter);                                                              \
      swap = rs->keys, rs->keys = rs->keys2, rs->keys2 = swap;                                     \
      swap = rs->pos, rs->pos = rs->pos2, rs->pos2 = swap;                                         \
      moved = true;                                                                                \
    }                                                                                              \
    run_blocks(rs, NAME##_gather);                                                                 \
  }

DEFINE_SORT_ROW(sort_row_8, uint8_t, uint32_t, 8)
DEFINE_SORT_ROW(sort_row_16, uint16_t, uint32_t, 8)
DEFINE_SORT_ROW(sort_row_32, uint32_t, uint32_t, 11)
DEFINE_SORT_ROW(sort_row_64, uint64_t, uint32_t, 11)
DEFINE_SORT_ROW(sort_row_8_long, uint8_t, uint64_t, 8)
DEFINE_SORT_ROW(sort_row_16_long, uint16_t, uint64_t, 8)
DEFINE_SORT_ROW(sort_row_32_long, uint32_t, uint64_t, 11)
DEFINE_SORT_ROW(sort_row_64_long, uint64_t, uint64_t, 11)

typedef void (*sort_row_fn)(row_sort *);

/* Rows longer than 2^32 elements number their positions in 64 bits. */
static bool long_rows(const sort_job *job) { return (uint64_t)job->n > UINT32_MAX; }

static sort_row_fn row_fn(const sort_job *job) {
  bool wide = long_rows(job);
  switch (job->size) {
  case 1:
    return wide ? sort_row_8_long : sort_row_8;
  case 2:
    return wide ? sort_row_16_long : sort_row_16;
  case 4:
    return wide ? sort_row_32_long : sort_row_32;
  default:
    return wide ? sort_row_64_long : sort_row_64;
  }
}

/* malloc's scratch for rows sorted in `blocks` blocks: the histograms, 2 n positions, then
 * 2 n keys, each part aligned for its type; NULL (and job->failed) when there is none. */
static void *scratch_new(sort_job *job, int64_t blocks, row_sort *rs) {
  size_t n = (size_t)job->n, pos_size = long_rows(job) ? 8 : 4, hist = (size_t)blocks * HIST_BYTES;
  char *scratch;
  if (n > (SIZE_MAX - hist) / 2 / (job->size + pos_size) ||
      (scratch = malloc(hist + 2 * n * (job->size + pos_size))) == NULL) {
    atomic_store(&job->failed, true);
    return NULL;
  }
  rs->job = job;
  rs->blocks = blocks;
  rs->hist = (int64_t *)scratch;
  rs->pos = scratch + hist;
  rs->pos2 = scratch + hist + n * pos_size;
  rs->keys = scratch + hist + 2 * n * pos_size;
  rs->keys2 = scratch + hist + 2 * n * pos_size + n * job->size;
  return scratch;
}

/* Row r's place in the source, values and indices. */
static void row_at(row_sort *rs, int64_t r) {
  const sort_job *job = rs->job;
  size_t n = (size_t)job->n;
  rs->row = job->src + (size_t)r * n * job->size;
  rs->values = job->values + (size_t)r * n * job->size;
  rs->indices = job->indices + (size_t)r * n;
}

/* Rows [begin, end), each on this thread. */
static void sort_rows_range(void *ctx, int64_t begin, int64_t end) {
  sort_job *job = ctx;
  sort_row_fn fn = row_fn(job);
  row_sort rs;
  void *scratch = scratch_new(job, 1, &rs);
  if (scratch == NULL) return;
  for (int64_t r = begin; r < end; r++) {
    row_at(&rs, r);
    fn(&rs);
  }
  free(scratch);
}

/* Blocks a row is cut into: one a thread when there are fewer rows than threads and each
 * block still gets a grain, else 1 (the rows are spread over the threads instead). */
static int64_t blocks_per_row(const sort_job *job, int64_t rows) {
  int64_t threads = dlx_cpu_num_threads(),
          blocks = job->n / dlx_cpu_grain_items((int64_t)job->size + 8);
  if (rows >= threads || blocks < 2) return 1;
  return blocks < threads ? blocks : threads;
}

/* The rows one after the other, each cut into `blocks` blocks over the pool's threads. */
static void sort_rows_in_blocks(sort_job *job, int64_t rows, int64_t blocks) {
  sort_row_fn fn = row_fn(job);
  row_sort rs;
  void *scratch = scratch_new(job, blocks, &rs);
  if (scratch == NULL) return;
  for (int64_t r = 0; r < rows; r++) {
    row_at(&rs, r);
    fn(&rs);
  }
  free(scratch);
}

int dlx_cpu_sort_rows(const dlx_tensor *src, bool descending, const dlx_tensor *values,
                      const dlx_tensor *indices, dlx_error *err) {
  sort_job job = {.n = src->shape[1],
                  .size = (size_t)dlx_dtype_bits(src->dtype) / 8,
                  .kind = dlx_sort_key_kind(src->dtype),
                  .descending = descending};
  int64_t rows = src->shape[0], blocks;
  job.src = (const char *)src->buffer->data + (size_t)src->offset * job.size;
  job.values = (char *)values->buffer->data + (size_t)values->offset * job.size;
  job.indices = (int64_t *)indices->buffer->data + indices->offset;
  atomic_init(&job.failed, false);
  blocks = blocks_per_row(&job, rows);
  if (blocks > 1)
    sort_rows_in_blocks(&job, rows, blocks);
  else /* a row moves its bytes and its positions several times: count a grain by both */
    dlx_cpu_parallel_for(rows, dlx_cpu_grain_items(job.n * (int64_t)(job.size + 8)),
                         sort_rows_range, &job);
  if (atomic_load(&job.failed))
    return dlx_fail(err, DLX_MEMORY_ERROR, "sort: out of memory for the scratch of %lld elements",
                    (long long)job.n);
  return 0;
}
