/* order_stats.c -- the CPU's row_op: kthvalue, median, nanmedian, mode, quantile and
 * nanquantile of each row by selection, and the scans cummax, cummin and logcumsumexp.
 *
 * Selection is a most-significant-digit radix select over the elements' sort keys
 * (src/common/sort_keys.h, widened to 64 bits): a pass over the row counts the top 11 bits of
 * every key; the bucket holding the wanted rank is copied out, and the next 11 bits of those
 * copies are counted, until every bit is known. It makes at most 6 passes over ever fewer keys
 * (3 for 32-bit dtypes), whatever the data, and finds the rank's key K, how many keys are below
 * it and how many equal it. The element a stable sort puts at the rank is then the occurrence of
 * K of that number among its equals, found by one more pass when its index or its exact bits
 * (-0.0, a NaN's payload) are needed.
 *
 * Rows are spread over the pool's threads; a single long row has its first two passes (the top
 * digit's counts, then the copy of one bucket) cut into blocks over the threads. */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/convert.h"
#include "common/half.h"
#include "common/row_scans.h"
#include "common/sort_keys.h"
#include "core/sort.h"
#include "core/stats.h"
#include "cpu/kernels.h"
#include "cpu/parallel.h"

#define DIGIT_BITS 11
#define RADIX (1 << DIGIT_BITS)
#define CHUNK 1024    /* keys converted at a time */
#define MAX_BLOCKS 64 /* blocks of a long row's first passes */
#define NO_KEY                                                                                     \
  UINT64_MAX /* no key above K (a float64 NaN's key too: the quantiles, the only                   \
               users, never need a NaN as the next key) */

typedef struct row_job {
  const dlx_row_request *r;
  const char *src;
  char *values;
  int64_t *indices;
  int64_t n, out_n; /* elements a row in and out */
  size_t size;      /* bytes an element */
  int kind, width;  /* key kind and bits */
  bool is_float;
  dlx_dtype dtype, out_dtype;
  atomic_bool failed;
} row_job;

/* ---- keys */

static uint64_t key_of(const row_job *job, const char *p) { return dlx_sort_key_at(job->kind, p); }

/* keys[0 .. count) = the keys of elements [i0, i0 + count) of row. */
static void keys_of(const row_job *job, const char *row, int64_t i0, int64_t count,
                    uint64_t *keys) {
  const char *p = row + (size_t)i0 * job->size;
#define KEYS(T, FN)                                                                                \
  for (int64_t i = 0; i < count; i++) {                                                            \
    T x;                                                                                           \
    memcpy(&x, p + (size_t)i * sizeof(T), sizeof(T));                                              \
    keys[i] = FN(x);                                                                               \
  }                                                                                                \
  break
  switch (job->kind) {
  case DLX_SORT_KEY_F32:
    KEYS(uint32_t, dlx_sort_key_f32);
  case DLX_SORT_KEY_F64:
    KEYS(uint64_t, dlx_sort_key_f64);
  case DLX_SORT_KEY_I32:
    KEYS(uint32_t, dlx_sort_key_i32);
  case DLX_SORT_KEY_I64:
    KEYS(uint64_t, dlx_sort_key_i64);
  default:
    for (int64_t i = 0; i < count; i++) keys[i] = key_of(job, p + (size_t)i * job->size);
    break;
  }
#undef KEYS
}

static uint64_t nan_key(const row_job *job) {
  return job->width == 64 ? UINT64_MAX : (UINT64_C(1) << job->width) - 1;
}

/* The element's bits of a key that stands for one bit pattern only (not -0.0's or NaN's). */
static uint64_t bits_of_key(const row_job *job, uint64_t key) {
  uint64_t sign = UINT64_C(1) << (job->width - 1), mask = nan_key(job);
  switch (job->kind) {
  case DLX_SORT_KEY_I8:
  case DLX_SORT_KEY_I16:
  case DLX_SORT_KEY_I32:
  case DLX_SORT_KEY_I64:
    return key ^ sign;
  case DLX_SORT_KEY_F16:
  case DLX_SORT_KEY_BF16:
  case DLX_SORT_KEY_F32:
  case DLX_SORT_KEY_F64:
    return (key & sign) ? key ^ sign : ~key & mask;
  default:
    return key;
  }
}

/* ---- values as float64, and back */

static double load_double(dlx_dtype dtype, const char *p) {
  union {
    uint8_t u8;
    int8_t i8;
    uint16_t u16;
    int16_t i16;
    uint32_t u32;
    int32_t i32;
    uint64_t u64;
    int64_t i64;
    float f;
    double d;
  } v;
  memcpy(&v, p, (size_t)dlx_dtype_bits(dtype) / 8);
  switch (dtype) {
  case DLX_BOOL:
    return v.u8 != 0;
  case DLX_UINT8:
    return v.u8;
  case DLX_INT8:
    return v.i8;
  case DLX_UINT16:
    return v.u16;
  case DLX_INT16:
    return v.i16;
  case DLX_UINT32:
    return v.u32;
  case DLX_INT32:
    return v.i32;
  case DLX_UINT64:
    return (double)v.u64;
  case DLX_INT64:
    return (double)v.i64;
  case DLX_FLOAT16:
    return dlx_half_to_float(v.u16);
  case DLX_BFLOAT16:
    return dlx_bf16_to_float(v.u16);
  case DLX_FLOAT32:
    return v.f;
  default:
    return v.d;
  }
}

/* Stores x rounded once to a float dtype. */
static void store_double(dlx_dtype dtype, char *p, double x) {
  switch (dtype) {
  case DLX_FLOAT16:
    store_float16(p, to_float16_from_d(x));
    break;
  case DLX_BFLOAT16:
    store_bfloat16(p, to_bfloat16_from_d(x));
    break;
  case DLX_FLOAT32:
    store_float32(p, to_float32_from_d(x));
    break;
  default:
    store_float64(p, x);
    break;
  }
}

/* ---- radix select */

/* A row's selection state: the top digit's counts (per block for a long row) and scratch for
 * the keys of one bucket. */
typedef struct row_select {
  row_job *job;
  const char *row;
  int64_t blocks;
  int64_t (*hist)[RADIX]; /* [blocks][RADIX] */
  int64_t nan[MAX_BLOCKS];
  uint64_t *bucket; /* n keys */
  int64_t offset[MAX_BLOCKS];
  uint64_t above[MAX_BLOCKS]; /* each block's least key above the bucket's digit */
  int digit, shift;           /* the top digit's bucket being copied, and its shift */
} row_select;

static int64_t block_begin(int64_t n, int64_t blocks, int64_t b) {
  int64_t rest = n % blocks;
  return b * (n / blocks) + (b < rest ? b : rest);
}

static void run_blocks(row_select *s, dlx_cpu_range_fn fn) {
  if (s->blocks == 1)
    fn(s, 0, 1);
  else
    dlx_cpu_parallel_for(s->blocks, 1, fn, s);
}

/* Counts of the top digit of blocks [b0, b1), and their NaNs. */
static void count_top(void *ctx, int64_t b0, int64_t b1) {
  row_select *s = ctx;
  uint64_t keys[CHUNK], nan = nan_key(s->job);
  for (int64_t b = b0; b < b1; b++) {
    int64_t hi = block_begin(s->job->n, s->blocks, b + 1), nans = 0, *h = s->hist[b];
    memset(h, 0, sizeof s->hist[b]);
    for (int64_t i = block_begin(s->job->n, s->blocks, b); i < hi; i += CHUNK) {
      int64_t count = hi - i < CHUNK ? hi - i : CHUNK;
      keys_of(s->job, s->row, i, count, keys);
      for (int64_t j = 0; j < count; j++) {
        h[keys[j] >> s->shift]++;
        nans += keys[j] == nan;
      }
    }
    s->nan[b] = s->job->is_float ? nans : 0;
  }
}

/* Copies the keys of blocks [b0, b1) whose top digit is s->digit to the bucket, and finds each
 * block's least key of a higher top digit. */
static void copy_bucket(void *ctx, int64_t b0, int64_t b1) {
  row_select *s = ctx;
  uint64_t keys[CHUNK];
  for (int64_t b = b0; b < b1; b++) {
    int64_t hi = block_begin(s->job->n, s->blocks, b + 1), to = s->offset[b];
    uint64_t above = NO_KEY, digit = (uint64_t)s->digit;
    for (int64_t i = block_begin(s->job->n, s->blocks, b); i < hi; i += CHUNK) {
      int64_t count = hi - i < CHUNK ? hi - i : CHUNK;
      keys_of(s->job, s->row, i, count, keys);
      for (int64_t j = 0; j < count; j++) {
        uint64_t d = keys[j] >> s->shift;
        if (d == digit)
          s->bucket[to++] = keys[j];
        else if (d > digit && keys[j] < above)
          above = keys[j];
      }
    }
    s->above[b] = above;
  }
}

/* The bucket holding rank *k of counts h: *k becomes the rank within it, *below grows by the
 * keys of lower buckets. */
static int find_bucket(const int64_t *h, int64_t *k, int64_t *below) {
  int d = 0;
  while (*k >= h[d]) {
    *k -= h[d];
    *below += h[d];
    d++;
  }
  return d;
}

/* What a selection found: the key of the rank, how many keys are below it and equal to it, and
 * the least key above it (NO_KEY when none). */
typedef struct selected {
  uint64_t key, above;
  int64_t below, equal;
} selected;

static int64_t total_top(const row_select *s, int d) {
  int64_t total = 0;
  for (int64_t b = 0; b < s->blocks; b++) total += s->hist[b][d];
  return total;
}

/* The key of rank k (0-based) of the row, after count_top. */
static selected select_rank(row_select *s, int64_t k) {
  int64_t top[RADIX], below = 0, count, hist[RADIX];
  selected out;
  int d;
  for (int i = 0; i < RADIX; i++) top[i] = total_top(s, i);
  d = find_bucket(top, &k, &below);
  s->digit = d;
  for (int64_t b = 0, at = 0; b < s->blocks; b++) {
    s->offset[b] = at;
    at += s->hist[b][d];
  }
  run_blocks(s, copy_bucket);
  out.above = NO_KEY;
  for (int64_t b = 0; b < s->blocks; b++)
    if (s->above[b] < out.above) out.above = s->above[b];
  count = top[d];
  for (int shift = s->shift; shift > 0 && count > 1;) {
    int bits = shift < DIGIT_BITS ? shift : DIGIT_BITS;
    uint64_t mask = ((uint64_t)1 << bits) - 1, digit, above = NO_KEY;
    int64_t kept = 0;
    shift -= bits;
    memset(hist, 0, sizeof hist);
    for (int64_t i = 0; i < count; i++) hist[(s->bucket[i] >> shift) & mask]++;
    digit = (uint64_t)find_bucket(hist, &k, &below);
    for (int64_t i = 0; i < count; i++) {
      uint64_t x = s->bucket[i], dx = (x >> shift) & mask;
      if (dx == digit)
        s->bucket[kept++] = x;
      else if (dx > digit && x < above)
        above = x;
    }
    if (above < out.above) out.above = above;
    count = kept;
  }
  /* the count keys left are K's equals: every bit was looked at, or one is left */
  out.key = s->bucket[0];
  out.equal = count;
  out.below = below;
  return out;
}

/* The 0-based position of the occurrence `nth` (0-based) of key in the row. */
static int64_t locate(const row_select *s, uint64_t key, int64_t nth) {
  uint64_t keys[CHUNK];
  for (int64_t i = 0; i < s->job->n; i += CHUNK) {
    int64_t count = s->job->n - i < CHUNK ? s->job->n - i : CHUNK;
    keys_of(s->job, s->row, i, count, keys);
    for (int64_t j = 0; j < count; j++)
      if (keys[j] == key && nth-- == 0) return i + j;
  }
  return 0; /* not reached: the key occurs nth + 1 times */
}

/* ---- the ops on one row */

/* The rank an op selects, from the row's length and NaN count. */
static int64_t median_rank(dlx_row_op op, int64_t n, int64_t nans) {
  int64_t m = n - nans;
  if (op == DLX_ROW_MEDIAN) return nans > 0 ? m : (n - 1) / 2;
  return m > 0 ? (m - 1) / 2 : 0; /* NANMEDIAN; all NaN: the first NaN */
}

/* Writes the element of rank k: its bits, and its 1-based index when asked. */
static void put_rank(row_select *s, int64_t r, int64_t k) {
  row_job *job = s->job;
  selected sel = select_rank(s, k);
  uint64_t zero = UINT64_C(1) << (job->width - 1);
  bool exact = !job->is_float || (sel.key != nan_key(job) && sel.key != zero);
  char *out = job->values + (size_t)r * job->size;
  if (job->indices != NULL || !exact) {
    int64_t at = locate(s, sel.key, k - sel.below);
    memcpy(out, s->row + (size_t)at * job->size, job->size);
    if (job->indices != NULL) job->indices[r] = at + 1;
  } else {
    uint64_t bits = bits_of_key(job, sel.key);
    memcpy(out, &bits, job->size); /* little-endian: the low bytes */
  }
}

static double key_value(const row_job *job, uint64_t key) {
  uint64_t bits = bits_of_key(job, key);
  return load_double(job->dtype, (const char *)&bits);
}

/* The value of the occurrence nth (0-based) of key: the key's own for all but -0.0 and 0.0,
 * which share a key and are told apart by finding the element (its bits are what a stable sort
 * puts at that rank). */
static double value_at(row_select *s, uint64_t key, int64_t nth) {
  if (s->job->is_float && key == UINT64_C(1) << (s->job->width - 1))
    return load_double(s->job->dtype, s->row + (size_t)locate(s, key, nth) * s->job->size);
  return key_value(s->job, key);
}

static double lerp(double a, double b, double w) {
  return w < 0.5 ? a + w * (b - a) : b - (b - a) * (1 - w);
}

/* One quantile of the m non-NaN elements (the lowest m keys). */
static double quantile_of(row_select *s, int64_t m, double q, dlx_interpolation how) {
  double rank = q * (double)(m - 1), lo = floor(rank), w;
  int64_t k;
  selected sel;
  double a, b;
  if (how == DLX_INTERP_NEAREST) lo = nearbyint(rank);
  if (how == DLX_INTERP_HIGHER) lo = ceil(rank);
  k = (int64_t)lo;
  if (k > m - 1) k = m - 1;
  sel = select_rank(s, k);
  a = value_at(s, sel.key, k - sel.below);
  if (how == DLX_INTERP_LOWER || how == DLX_INTERP_HIGHER || how == DLX_INTERP_NEAREST) return a;
  /* the next rank (a when the rank is whole: a + 0 (a - a), NaN for an infinite a, as
   * PyTorch): K again while its equals last, else the least key above */
  if (rank == lo)
    b = a;
  else if (k - sel.below + 1 < sel.equal)
    b = value_at(s, sel.key, k - sel.below + 1);
  else
    b = value_at(s, sel.above, 0);
  w = how == DLX_INTERP_MIDPOINT ? (rank == lo ? 0 : 0.5) : rank - lo;
  return lerp(a, b, w);
}

static void put_quantiles(row_select *s, int64_t r, int64_t nans) {
  row_job *job = s->job;
  const dlx_row_request *req = job->r;
  int64_t m = job->n - nans;
  bool none = m == 0 || (req->op == DLX_ROW_QUANTILE && nans > 0);
  for (int64_t i = 0; i < req->nq; i++) {
    double v = none ? NAN : quantile_of(s, m, req->q[i], req->interpolation);
    store_double(job->dtype, job->values + ((size_t)r * (size_t)req->nq + (size_t)i) * job->size,
                 v);
  }
}

static int compare_keys(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The smallest most frequent value and its last position. */
static void put_mode(row_select *s, int64_t r) {
  row_job *job = s->job;
  uint64_t best = 0, keys[CHUNK];
  int64_t most = 0, at = 0, n = job->n;
  for (int64_t i = 0; i < n; i += CHUNK) {
    int64_t count = n - i < CHUNK ? n - i : CHUNK;
    keys_of(job, s->row, i, count, s->bucket + i);
  }
  qsort(s->bucket, (size_t)n, sizeof *s->bucket, compare_keys);
  for (int64_t i = 0, run = 0; i < n; i++) {
    run = i > 0 && s->bucket[i] == s->bucket[i - 1] ? run + 1 : 1;
    if (run > most) {
      most = run;
      best = s->bucket[i];
    }
  }
  for (int64_t i = 0; i < n; i += CHUNK) {
    int64_t count = n - i < CHUNK ? n - i : CHUNK;
    keys_of(job, s->row, i, count, keys);
    for (int64_t j = 0; j < count; j++)
      if (keys[j] == best) at = i + j;
  }
  memcpy(job->values + (size_t)r * job->size, s->row + (size_t)at * job->size, job->size);
  job->indices[r] = at + 1;
}

/* cummax and cummin on keys: NaN (the largest key) takes over and stays, ties move the index
 * to the latest, as PyTorch (common/row_scans.h). */
static void put_cum_extreme(row_select *s, int64_t r) {
  row_job *job = s->job;
  bool max = job->r->op == DLX_ROW_CUMMAX;
  uint64_t keys[CHUNK], nan = nan_key(job), best = 0;
  int64_t at = 0, n = job->n;
  char *values = job->values + (size_t)r * (size_t)n * job->size;
  int64_t *indices = job->indices + (size_t)r * (size_t)n;
  for (int64_t i = 0; i < n; i += CHUNK) {
    int64_t count = n - i < CHUNK ? n - i : CHUNK;
    keys_of(job, s->row, i, count, keys);
    for (int64_t j = 0; j < count; j++) {
      uint64_t x = keys[j];
      bool x_nan = job->is_float && x == nan, best_nan = job->is_float && best == nan;
      if (i + j == 0 || dlx_scan_takes_over(max, x, x_nan, best, best_nan)) {
        best = x;
        at = i + j;
      }
      memcpy(values + (size_t)(i + j) * job->size, s->row + (size_t)at * job->size, job->size);
      indices[i + j] = at + 1;
    }
  }
}

static void put_logcumsumexp(row_select *s, int64_t r) {
  row_job *job = s->job;
  double acc = -INFINITY;
  size_t out_size = (size_t)dlx_dtype_bits(job->out_dtype) / 8;
  char *values = job->values + (size_t)r * (size_t)job->n * out_size;
  for (int64_t i = 0; i < job->n; i++) {
    acc = dlx_log_add_exp(acc, load_double(job->dtype, s->row + (size_t)i * job->size));
    store_double(job->out_dtype, values + (size_t)i * out_size, acc);
  }
}

/* Row r of the job, with s's scratch. */
static void run_row(row_select *s, int64_t r) {
  row_job *job = s->job;
  const dlx_row_request *req = job->r;
  int64_t nans = 0;
  s->row = job->src + (size_t)r * (size_t)job->n * job->size;
  switch (req->op) {
  case DLX_ROW_MODE:
    put_mode(s, r);
    return;
  case DLX_ROW_CUMMAX:
  case DLX_ROW_CUMMIN:
    put_cum_extreme(s, r);
    return;
  case DLX_ROW_LOGCUMSUMEXP:
    put_logcumsumexp(s, r);
    return;
  default:
    break;
  }
  run_blocks(s, count_top);
  for (int64_t b = 0; b < s->blocks; b++) nans += s->nan[b];
  if (req->op == DLX_ROW_KTH)
    put_rank(s, r, req->k);
  else if (req->op == DLX_ROW_MEDIAN || req->op == DLX_ROW_NANMEDIAN)
    put_rank(s, r, median_rank(req->op, job->n, nans));
  else
    put_quantiles(s, r, nans);
}

/* Scratch for rows done `blocks` blocks at a time; false (and job->failed) when there is none. */
static bool scratch_new(row_job *job, int64_t blocks, row_select *s) {
  size_t n = (size_t)job->n;
  s->job = job;
  s->blocks = blocks;
  s->shift = job->width > DIGIT_BITS ? job->width - DIGIT_BITS : 0;
  s->hist = malloc((size_t)blocks * sizeof *s->hist);
  s->bucket = n <= SIZE_MAX / sizeof(uint64_t) ? malloc(n * sizeof(uint64_t)) : NULL;
  if (s->hist == NULL || s->bucket == NULL) {
    free(s->hist);
    free(s->bucket);
    atomic_store(&job->failed, true);
    return false;
  }
  return true;
}

static void scratch_free(row_select *s) {
  free(s->hist);
  free(s->bucket);
}

static void rows_range(void *ctx, int64_t begin, int64_t end) {
  row_job *job = ctx;
  row_select s;
  if (!scratch_new(job, 1, &s)) return;
  for (int64_t r = begin; r < end; r++) run_row(&s, r);
  scratch_free(&s);
}

/* Blocks of a row's first passes: one a thread for fewer rows than threads, when each gets a
 * grain; 1 otherwise (the rows go over the threads). The scans run whole rows. */
static int64_t blocks_per_row(const row_job *job, int64_t rows) {
  int64_t threads = dlx_cpu_num_threads(),
          blocks = job->n / dlx_cpu_grain_items((int64_t)job->size);
  dlx_row_op op = job->r->op;
  if (op == DLX_ROW_MODE || op == DLX_ROW_CUMMAX || op == DLX_ROW_CUMMIN ||
      op == DLX_ROW_LOGCUMSUMEXP || rows >= threads || blocks < 2)
    return 1;
  if (blocks > threads) blocks = threads;
  return blocks < MAX_BLOCKS ? blocks : MAX_BLOCKS;
}

int dlx_cpu_row_op(const dlx_row_request *r, dlx_error *err) {
  const dlx_tensor *src = r->src;
  row_job job = {.r = r, .n = src->shape[1], .dtype = src->dtype, .out_dtype = r->values->dtype};
  int64_t rows = src->shape[0], blocks;
  job.size = (size_t)dlx_dtype_bits(src->dtype) / 8;
  job.kind = dlx_sort_key_kind(src->dtype);
  job.width = (int)job.size * 8;
  job.is_float = dlx_dtype_kind(src->dtype) == DLX_KIND_FLOAT;
  job.src = (const char *)src->buffer->data + (size_t)src->offset * job.size;
  job.values = (char *)r->values->buffer->data +
               (size_t)r->values->offset * (size_t)dlx_dtype_bits(r->values->dtype) / 8;
  job.indices =
      r->indices != NULL ? (int64_t *)r->indices->buffer->data + r->indices->offset : NULL;
  atomic_init(&job.failed, false);
  blocks = blocks_per_row(&job, rows);
  if (blocks > 1) {
    row_select s;
    if (scratch_new(&job, blocks, &s)) {
      for (int64_t i = 0; i < rows; i++) run_row(&s, i);
      scratch_free(&s);
    }
  } else {
    dlx_cpu_parallel_for(rows, dlx_cpu_grain_items(job.n * (int64_t)job.size), rows_range, &job);
  }
  if (atomic_load(&job.failed))
    return dlx_fail(err, DLX_MEMORY_ERROR, "out of memory for the scratch of %lld elements",
                    (long long)job.n);
  return 0;
}
