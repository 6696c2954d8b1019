/* sort.c -- the CPU's sort_rows: a least-significant-digit radix sort of each row's keys
 * (src/common/sort_keys.h), one digit a pass (8 or 11 bits), carrying the elements' positions
 * along. Each pass scatters the elements in the order they come, so equal keys keep their order
 * (stable) and the result does not depend on anything but the input; passes whose digit is the
 * same for the whole row are skipped. Rows are spread over the pool's threads. */
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

/* keys[i] = the key of row[i], complemented when descending. The row may sit at any address
 * (foreign memory): its elements are read with memcpy, one load aligned or not. */
#define FILL_KEYS(KT, FN)                                                                          \
  for (int64_t i = 0; i < n; i++) {                                                                \
    KT element;                                                                                    \
    memcpy(&element, row + i * (int64_t)sizeof(KT), sizeof(KT));                                   \
    keys[i] = (KT)(FN(element) ^ flip);                                                            \
  }

/* The histograms of a row's digits: at most 8 passes of up to 2^11 buckets. */
#define HIST_BYTES ((size_t)8 * 2048 * sizeof(int64_t))

/* Sorts one row of n elements of key type KT, positions of type IT, BITS bits a digit (11 for
 * 32- and 64-bit keys: three passes over a float32 row instead of four, the 2^11 counters still
 * in the L1 cache). scratch (malloc's, aligned for any type) holds the histograms, 2 n
 * positions, then 2 n keys: each part starts aligned for its type. */
#define DEFINE_SORT_ROW(NAME, KT, IT, BITS)                                                        \
  static void NAME(const sort_job *job, const char *row, char *values, int64_t *indices,           \
                   void *scratch) {                                                                \
    enum { PASSES = (8 * sizeof(KT) + BITS - 1) / BITS, RADIX = 1 << BITS };                       \
    int64_t n = job->n, (*hist)[RADIX] = scratch;                                                  \
    IT *pos = (IT *)((char *)scratch + HIST_BYTES), *pos2 = pos + n;                               \
    KT *keys = (KT *)(pos2 + n), *keys2 = keys + n, flip = job->descending ? (KT) ~(KT)0 : 0;      \
    switch (job->kind) {                                                                           \
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
    memset(hist, 0, (size_t)PASSES *RADIX * sizeof(int64_t));                                      \
    for (int64_t i = 0; i < n; i++) {                                                              \
      KT k = keys[i];                                                                              \
      pos[i] = (IT)i;                                                                              \
      for (int p = 0; p < PASSES; p++) hist[p][(k >> (BITS * p)) & (RADIX - 1)]++;                 \
    }                                                                                              \
    for (int p = 0; p < PASSES; p++) {                                                             \
      int64_t *h = hist[p], sum = 0;                                                               \
      KT *swap_keys;                                                                               \
      IT *swap_pos;                                                                                \
      if (h[(keys[0] >> (BITS * p)) & (RADIX - 1)] == n) continue; /* one digit: nothing moves */  \
      for (int b = 0; b < RADIX; b++) {                                                            \
        int64_t count = h[b];                                                                      \
        h[b] = sum;                                                                                \
        sum += count;                                                                              \
      }                                                                                            \
      for (int64_t i = 0; i < n; i++) {                                                            \
        int64_t to = h[(keys[i] >> (BITS * p)) & (RADIX - 1)]++;                                   \
        keys2[to] = keys[i];                                                                       \
        pos2[to] = pos[i];                                                                         \
      }                                                                                            \
      swap_keys = keys, keys = keys2, keys2 = swap_keys;                                           \
      swap_pos = pos, pos = pos2, pos2 = swap_pos;                                                 \
    }                                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                              \
      memcpy(values + i * (int64_t)sizeof(KT), row + (int64_t)pos[i] * (int64_t)sizeof(KT),        \
             sizeof(KT));                                                                          \
      indices[i] = (int64_t)pos[i] + 1;                                                            \
    }                                                                                              \
  }

DEFINE_SORT_ROW(sort_row_8, uint8_t, uint32_t, 8)
DEFINE_SORT_ROW(sort_row_16, uint16_t, uint32_t, 8)
DEFINE_SORT_ROW(sort_row_32, uint32_t, uint32_t, 11)
DEFINE_SORT_ROW(sort_row_64, uint64_t, uint32_t, 11)
DEFINE_SORT_ROW(sort_row_8_long, uint8_t, uint64_t, 8)
DEFINE_SORT_ROW(sort_row_16_long, uint16_t, uint64_t, 8)
DEFINE_SORT_ROW(sort_row_32_long, uint32_t, uint64_t, 11)
DEFINE_SORT_ROW(sort_row_64_long, uint64_t, uint64_t, 11)

typedef void (*sort_row_fn)(const sort_job *, const char *, char *, int64_t *, void *);

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

static void sort_rows_range(void *ctx, int64_t begin, int64_t end) {
  sort_job *job = ctx;
  size_t n = (size_t)job->n, pos_size = long_rows(job) ? 8 : 4;
  sort_row_fn fn = row_fn(job);
  void *scratch;
  if (n > (SIZE_MAX - HIST_BYTES) / 2 / (job->size + pos_size) ||
      (scratch = malloc(HIST_BYTES + 2 * n * (job->size + pos_size))) == NULL) {
    atomic_store(&job->failed, true);
    return;
  }
  for (int64_t r = begin; r < end; r++)
    fn(job, job->src + (size_t)r * n * job->size, job->values + (size_t)r * n * job->size,
       job->indices + (size_t)r * n, scratch);
  free(scratch);
}

int dlx_cpu_sort_rows(const dlx_tensor *src, bool descending, const dlx_tensor *values,
                      const dlx_tensor *indices, dlx_error *err) {
  sort_job job = {.n = src->shape[1],
                  .size = (size_t)dlx_dtype_bits(src->dtype) / 8,
                  .kind = dlx_sort_key_kind(src->dtype),
                  .descending = descending};
  job.src = (const char *)src->buffer->data + (size_t)src->offset * job.size;
  job.values = (char *)values->buffer->data + (size_t)values->offset * job.size;
  job.indices = (int64_t *)indices->buffer->data + indices->offset;
  atomic_init(&job.failed, false);
  /* a row moves its bytes and its positions several times: count a grain by both */
  dlx_cpu_parallel_for(src->shape[0], dlx_cpu_grain_items(job.n * (int64_t)(job.size + 8)),
                       sort_rows_range, &job);
  if (atomic_load(&job.failed))
    return dlx_fail(err, DLX_MEMORY_ERROR, "sort: out of memory for the scratch of %lld elements",
                    (long long)job.n);
  return 0;
}
