/* count.c -- the CPU's count_op: histograms (bincount, histc's linear bins, histogram's edges)
 * counted in private histograms, one a block of elements, added together at the end (counts are
 * integers: the sum is the same whatever the split); sums of weights on one thread in element
 * order (float64, as NumPy adds them); searchsorted by a branchless binary search of each value's
 * sort key (src/common/sort_keys.h: -0.0 equals 0.0, NaN above every number). The bins and the
 * search of one value are src/common/count_rules.h's, which the GPUs' kernels share. */
#include <stdlib.h>
#include <string.h>

#include "common/count_rules.h"
#include "common/sort_keys.h"
#include "core/sort.h"
#include "cpu/kernels.h"
#include "cpu/parallel.h"

/* ---- the bins */

typedef struct bins_job {
  const dlx_count_request *r;
  const void *src;
  const double *weights;
  int64_t n, nbins, block;
  int64_t **hists; /* a histogram a block; hists[0] is out */
} bins_job;

static void count_linear_f32(const bins_job *job, int64_t *h, int64_t begin, int64_t end) {
  const float *x = (const float *)job->src;
  float lo = (float)job->r->lo, hi = (float)job->r->hi;
  int64_t nb = job->nbins;
  for (int64_t i = begin; i < end; i++) {
    int64_t b = dlx_count_linear_bin_f32(x[i], lo, hi, nb);
    if (b != DLX_COUNT_LEFT_OUT) h[b]++;
  }
}

static void count_linear_f64(const bins_job *job, int64_t *h, int64_t begin, int64_t end) {
  const double *x = (const double *)job->src;
  double lo = job->r->lo, hi = job->r->hi;
  int64_t nb = job->nbins;
  for (int64_t i = begin; i < end; i++) {
    int64_t b = dlx_count_linear_bin_f64(x[i], lo, hi, nb);
    if (b != DLX_COUNT_LEFT_OUT) h[b]++;
  }
}

static const void *data_of(const dlx_tensor *t) {
  return (const char *)t->buffer->data + (size_t)t->offset * (size_t)(dlx_dtype_bits(t->dtype) / 8);
}

static void count_edges(const bins_job *job, int64_t *h, int64_t begin, int64_t end) {
  int64_t nb = job->nbins, b;
  bool uniform = job->r->uniform;
  if (job->r->src->dtype == DLX_FLOAT32) {
    const float *x = (const float *)job->src, *e = data_of(job->r->edges);
    for (int64_t i = begin; i < end; i++) {
      DLX_COUNT_EDGES_BIN(float, e, x[i], nb, uniform, b);
      if (b != DLX_COUNT_LEFT_OUT) h[b]++;
    }
  } else {
    const double *x = (const double *)job->src, *e = data_of(job->r->edges);
    for (int64_t i = begin; i < end; i++) {
      DLX_COUNT_EDGES_BIN(double, e, x[i], nb, uniform, b);
      if (b != DLX_COUNT_LEFT_OUT) h[b]++;
    }
  }
}

static void count_ints(const bins_job *job, int64_t *h, int64_t begin, int64_t end) {
  const int64_t *x = (const int64_t *)job->src;
  for (int64_t i = begin; i < end; i++) h[x[i]]++;
}

static void count_range(const bins_job *job, int64_t *h, int64_t begin, int64_t end) {
  switch (job->r->op) {
  case DLX_COUNT_BINCOUNT:
    count_ints(job, h, begin, end);
    break;
  case DLX_COUNT_LINEAR:
    if (job->r->src->dtype == DLX_FLOAT32)
      count_linear_f32(job, h, begin, end);
    else
      count_linear_f64(job, h, begin, end);
    break;
  default:
    count_edges(job, h, begin, end);
    break;
  }
}

static void count_blocks(void *ctx, int64_t begin, int64_t end) {
  bins_job *job = ctx;
  for (int64_t k = begin; k < end; k++) {
    int64_t first = k * job->block, last = first + job->block;
    count_range(job, job->hists[k], first, last < job->n ? last : job->n);
  }
}

/* The weighted sums, in element order on this thread. */
static void sum_weights(const bins_job *job, double *out) {
  const dlx_count_request *r = job->r;
  int64_t nb = job->nbins, b;
  for (int64_t i = 0; i < job->n; i++) {
    switch (r->op) {
    case DLX_COUNT_BINCOUNT:
      b = ((const int64_t *)job->src)[i];
      break;
    case DLX_COUNT_LINEAR:
      if (r->src->dtype == DLX_FLOAT32)
        b = dlx_count_linear_bin_f32(((const float *)job->src)[i], (float)r->lo, (float)r->hi, nb);
      else
        b = dlx_count_linear_bin_f64(((const double *)job->src)[i], r->lo, r->hi, nb);
      break;
    default:
      if (r->src->dtype == DLX_FLOAT32) {
        const float *e = data_of(r->edges);
        DLX_COUNT_EDGES_BIN(float, e, ((const float *)job->src)[i], nb, r->uniform, b);
      } else {
        const double *e = data_of(r->edges);
        DLX_COUNT_EDGES_BIN(double, e, ((const double *)job->src)[i], nb, r->uniform, b);
      }
      break;
    }
    if (b != DLX_COUNT_LEFT_OUT) out[b] += job->weights[i];
  }
}

/* Blocks of counting: one a thread when each gets a grain of elements and the private
 * histograms cost less than the elements they count. */
static int64_t count_blocks_for(int64_t n, int64_t nbins, size_t item) {
  int64_t threads = dlx_cpu_num_threads(), grain = dlx_cpu_grain_items((int64_t)item);
  int64_t blocks = n / grain;
  if (blocks > threads) blocks = threads;
  if (blocks < 2 || nbins > n / (4 * blocks)) return 1;
  return blocks;
}

static int run_bins(const dlx_count_request *r, dlx_error *err) {
  bins_job job = {.r = r, .src = data_of(r->src), .n = r->src->shape[0], .nbins = r->nbins};
  size_t item = (size_t)(dlx_dtype_bits(r->src->dtype) / 8);
  int64_t blocks;
  if (r->weights != NULL) {
    double *out = (double *)data_of(r->out);
    memset(out, 0, (size_t)job.nbins * sizeof(double));
    job.weights = data_of(r->weights);
    sum_weights(&job, out);
    return 0;
  }
  blocks = count_blocks_for(job.n, job.nbins, item);
  job.block = (job.n + blocks - 1) / blocks;
  job.hists = calloc((size_t)blocks, sizeof *job.hists);
  if (job.hists == NULL) goto fail;
  job.hists[0] = (int64_t *)data_of(r->out);
  memset(job.hists[0], 0, (size_t)job.nbins * sizeof(int64_t));
  for (int64_t k = 1; k < blocks; k++) {
    job.hists[k] = calloc((size_t)job.nbins, sizeof(int64_t));
    if (job.hists[k] == NULL) goto fail;
  }
  dlx_cpu_parallel_for(blocks, 1, count_blocks, &job);
  for (int64_t k = 1; k < blocks; k++) {
    for (int64_t b = 0; b < job.nbins; b++) job.hists[0][b] += job.hists[k][b];
    free(job.hists[k]);
  }
  free(job.hists);
  return 0;
fail:
  if (job.hists != NULL)
    for (int64_t k = 1; k < blocks; k++) free(job.hists[k]);
  free(job.hists);
  return dlx_fail(err, DLX_MEMORY_ERROR, "out of memory for %lld histograms of %lld bins",
                  (long long)blocks, (long long)job.nbins);
}

/* ---- searchsorted */

typedef struct search_job {
  const dlx_count_request *r;
  int kind;
  int64_t rows, m, n;
  size_t item;
  void *samples; /* NULL, or the keys of each block's first element, nb a sorted row */
  int64_t nb;
} search_job;

/* A block of the sorted elements fills a cache line: a sorted row longer than the cache is
 * searched in two steps, first among the keys of each block's first element (a sample that
 * stays cached), then in one block, one line of memory. */
#define LINE_BYTES 64
#define GROUP 16

/* The branchless binary search over n >= 1 elements from base, of the elements whose key
 * (LOAD(p), p pointing to one) is below key (right: not above): GROUP searches step together,
 * as the lengths it halves do not depend on the data, so that their loads overlap where one
 * search waits on each. */
#define STEP_GROUP(T, LOAD, base, key, count, n, right)                                            \
  do {                                                                                             \
    int64_t len_ = (n);                                                                            \
    while (len_ > 1) {                                                                             \
      int64_t half_ = len_ / 2;                                                                    \
      for (int64_t g_ = 0; g_ < (count); g_++) {                                                   \
        T k_ = LOAD((base)[g_] + half_);                                                           \
        (base)[g_] = DLX_COUNT_BEFORE(k_, (key)[g_], right) ? (base)[g_] + half_ : (base)[g_];     \
      }                                                                                            \
      len_ -= half_;                                                                               \
    }                                                                                              \
  } while (0)

/* For each key function: the sample of a sorted row, and the 1-based positions of the values
 * v[0..m) among the sorted s[0..n) (n >= 1): 1 + the sorted elements whose key is below the
 * value's (right: not above), through the sample when there is one. */
#define SEARCH_ROW(T, KEY)                                                                         \
  static void sample_##KEY(const T *s, int64_t n, T *sample) {                                     \
    int64_t per = LINE_BYTES / (int64_t)sizeof(T);                                                 \
    for (int64_t b = 0; b * per < n; b++) sample[b] = KEY(s[b * per]);                             \
  }                                                                                                \
  static void search_##KEY(const T *s, int64_t n, const T *sample, int64_t nb, const T *v,         \
                           int64_t m, bool right, int64_t *out) {                                  \
    int64_t per = LINE_BYTES / (int64_t)sizeof(T);                                                 \
    for (int64_t j = 0; j < m; j += GROUP) {                                                       \
      const T *base[GROUP];                                                                        \
      T key[GROUP];                                                                                \
      int64_t count = m - j < GROUP ? m - j : GROUP;                                               \
      for (int64_t g = 0; g < count; g++) {                                                        \
        base[g] = sample != NULL ? sample : s;                                                     \
        key[g] = KEY(v[j + g]);                                                                    \
      }                                                                                            \
      if (sample == NULL) {                                                                        \
        STEP_GROUP(T, KEY_AT_##KEY, base, key, count, n, right);                                   \
        for (int64_t g = 0; g < count; g++) {                                                      \
          T k = KEY(*base[g]);                                                                     \
          out[j + g] = 1 + (base[g] - s) + DLX_COUNT_BEFORE(k, key[g], right);                     \
        }                                                                                          \
        continue;                                                                                  \
      }                                                                                            \
      STEP_GROUP(T, *, base, key, count, nb, right);                                               \
      for (int64_t g = 0; g < count; g++) {                                                        \
        int64_t block = (base[g] - sample) + DLX_COUNT_BEFORE(*base[g], key[g], right);            \
        int64_t start = (block - 1) * per, len = n - start < per ? n - start : per, below;         \
        if (block == 0) {                                                                          \
          out[j + g] = 1; /* the row's first element is above the value */                         \
          continue;                                                                                \
        }                                                                                          \
        DLX_COUNT_BELOW(const T *, T, KEY, s + start, len, key[g], right, below);                  \
        out[j + g] = 1 + start + below;                                                            \
      }                                                                                            \
    }                                                                                              \
  }

#define KEY_AT_dlx_sort_key_bool(p) dlx_sort_key_bool(*(p))
#define KEY_AT_dlx_sort_key_u8(p) dlx_sort_key_u8(*(p))
#define KEY_AT_dlx_sort_key_i8(p) dlx_sort_key_i8(*(p))
#define KEY_AT_dlx_sort_key_u16(p) dlx_sort_key_u16(*(p))
#define KEY_AT_dlx_sort_key_i16(p) dlx_sort_key_i16(*(p))
#define KEY_AT_dlx_sort_key_f16(p) dlx_sort_key_f16(*(p))
#define KEY_AT_dlx_sort_key_bf16(p) dlx_sort_key_bf16(*(p))
#define KEY_AT_dlx_sort_key_u32(p) dlx_sort_key_u32(*(p))
#define KEY_AT_dlx_sort_key_i32(p) dlx_sort_key_i32(*(p))
#define KEY_AT_dlx_sort_key_f32(p) dlx_sort_key_f32(*(p))
#define KEY_AT_dlx_sort_key_u64(p) dlx_sort_key_u64(*(p))
#define KEY_AT_dlx_sort_key_i64(p) dlx_sort_key_i64(*(p))
#define KEY_AT_dlx_sort_key_f64(p) dlx_sort_key_f64(*(p))

SEARCH_ROW(uint8_t, dlx_sort_key_bool)
SEARCH_ROW(uint8_t, dlx_sort_key_u8)
SEARCH_ROW(uint8_t, dlx_sort_key_i8)
SEARCH_ROW(uint16_t, dlx_sort_key_u16)
SEARCH_ROW(uint16_t, dlx_sort_key_i16)
SEARCH_ROW(uint16_t, dlx_sort_key_f16)
SEARCH_ROW(uint16_t, dlx_sort_key_bf16)
SEARCH_ROW(uint32_t, dlx_sort_key_u32)
SEARCH_ROW(uint32_t, dlx_sort_key_i32)
SEARCH_ROW(uint32_t, dlx_sort_key_f32)
SEARCH_ROW(uint64_t, dlx_sort_key_u64)
SEARCH_ROW(uint64_t, dlx_sort_key_i64)
SEARCH_ROW(uint64_t, dlx_sort_key_f64)

#define KEY_CASES(X)                                                                               \
  X(DLX_SORT_KEY_BOOL, dlx_sort_key_bool)                                                          \
  X(DLX_SORT_KEY_U8, dlx_sort_key_u8)                                                              \
  X(DLX_SORT_KEY_I8, dlx_sort_key_i8)                                                              \
  X(DLX_SORT_KEY_U16, dlx_sort_key_u16)                                                            \
  X(DLX_SORT_KEY_I16, dlx_sort_key_i16)                                                            \
  X(DLX_SORT_KEY_F16, dlx_sort_key_f16)                                                            \
  X(DLX_SORT_KEY_BF16, dlx_sort_key_bf16)                                                          \
  X(DLX_SORT_KEY_U32, dlx_sort_key_u32)                                                            \
  X(DLX_SORT_KEY_I32, dlx_sort_key_i32)                                                            \
  X(DLX_SORT_KEY_F32, dlx_sort_key_f32)                                                            \
  X(DLX_SORT_KEY_U64, dlx_sort_key_u64)                                                            \
  X(DLX_SORT_KEY_I64, dlx_sort_key_i64)                                                            \
  X(DLX_SORT_KEY_F64, dlx_sort_key_f64)

static void search_part(const search_job *job, int64_t row, const void *s, const void *v, int64_t m,
                        int64_t *out) {
  const char *sample = job->samples != NULL
                           ? (const char *)job->samples + (size_t)(row * job->nb) * job->item
                           : NULL;
  switch (job->kind) {
#define SEARCH_CASE(K, KEY)                                                                        \
  case K:                                                                                          \
    search_##KEY(s, job->n, (const void *)sample, job->nb, v, m, job->r->right, out);              \
    break;
    KEY_CASES(SEARCH_CASE)
#undef SEARCH_CASE
  default:
    break;
  }
}

/* Items are the values of every row, flattened: a block may span rows. */
static void search_range(void *ctx, int64_t begin, int64_t end) {
  const search_job *job = ctx;
  const char *s = data_of(job->r->edges), *v = data_of(job->r->src);
  int64_t *out = (int64_t *)data_of(job->r->out);
  bool shared = job->r->edges->shape[0] == 1;
  while (begin < end) {
    int64_t row = begin / job->m, stop = (row + 1) * job->m;
    if (stop > end) stop = end;
    search_part(job, shared ? 0 : row, s + (shared ? 0 : (size_t)(row * job->n) * job->item),
                v + (size_t)begin * job->item, stop - begin, out + begin);
    begin = stop;
  }
}

/* The samples of every sorted row, when a row is longer than a few blocks and its values are
 * many enough to pay for one (else, or without memory for them: none, and plain searches). */
static void make_samples(search_job *job) {
  int64_t per = LINE_BYTES / (int64_t)job->item, srows = job->r->edges->shape[0];
  const char *s = data_of(job->r->edges);
  job->nb = (job->n + per - 1) / per;
  if (job->n < 4 * per || job->m * (job->rows / srows) < 4 * job->nb) return;
  job->samples = malloc((size_t)(srows * job->nb) * job->item);
  if (job->samples == NULL) return;
  for (int64_t r = 0; r < srows; r++) {
    const void *row = s + (size_t)(r * job->n) * job->item;
    void *sample = (char *)job->samples + (size_t)(r * job->nb) * job->item;
    switch (job->kind) {
#define SAMPLE_CASE(K, KEY)                                                                        \
  case K:                                                                                          \
    sample_##KEY(row, job->n, sample);                                                             \
    break;
      KEY_CASES(SAMPLE_CASE)
#undef SAMPLE_CASE
    default:
      break;
    }
  }
}

static int run_search(const dlx_count_request *r) {
  search_job job = {.r = r,
                    .kind = dlx_sort_key_kind(r->src->dtype),
                    .rows = r->src->shape[0],
                    .m = r->src->shape[1],
                    .n = r->edges->shape[1],
                    .item = (size_t)(dlx_dtype_bits(r->src->dtype) / 8)};
  /* a value costs a few dependent loads: a grain of values is far fewer than a grain of bytes */
  int64_t grain = dlx_cpu_grain_items(64 * (int64_t)job.item);
  make_samples(&job);
  dlx_cpu_parallel_for(job.rows * job.m, grain, search_range, &job);
  free(job.samples);
  return 0;
}

int dlx_cpu_count_op(const dlx_count_request *r, dlx_error *err) {
  if (r->op == DLX_COUNT_SEARCH) return run_search(r);
  return run_bins(r, err);
}
