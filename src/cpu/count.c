/* count.c -- the CPU's count_op: histograms (bincount, histc's linear bins, histogram's edges)
 * counted in private histograms, one a block of elements, added together at the end (counts are
 * integers: the sum is the same whatever the split); sums of weights on one thread in element
 * order (float64, as NumPy adds them); searchsorted by a branchless binary search of each value's
 * sort key (src/common/sort_keys.h: -0.0 equals 0.0, NaN above every number). */
#include <stdlib.h>
#include <string.h>

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

#define LEFT_OUT (-1)

/* The bin of x by the linear rule (histc) in T: PyTorch's formula, the multiplication first. A
 * quotient that is not a number (an infinite range) takes bin 0, never an undefined cast. */
#define LINEAR_BIN(T, NAME)                                                                        \
  static inline int64_t NAME(T x, T lo, T hi, int64_t nb) {                                        \
    T f;                                                                                           \
    if (!(x >= lo && x <= hi)) return LEFT_OUT;                                                    \
    f = (x - lo) * (T)nb / (hi - lo);                                                              \
    return f >= (T)nb ? nb - 1 : f > 0 ? (int64_t)f : 0;                                           \
  }

LINEAR_BIN(float, linear_bin_f32)
LINEAR_BIN(double, linear_bin_f64)

/* The bin of x between the edges e[0..nb] (the last bin closed); uniform edges take a first guess
 * from the formula and walk to the right bin, others a binary search. */
#define EDGES_BIN(T, x, e, nb, uniform, out)                                                       \
  do {                                                                                             \
    int64_t b_;                                                                                    \
    if (!((x) >= (e)[0] && (x) <= (e)[nb])) {                                                      \
      (out) = LEFT_OUT;                                                                            \
      break;                                                                                       \
    }                                                                                              \
    if (uniform) {                                                                                 \
      T f_ = ((x) - (e)[0]) / ((e)[nb] - (e)[0]) * (T)(nb);                                        \
      b_ = f_ >= (T)(nb) ? (nb)-1 : f_ > 0 ? (int64_t)f_ : 0;                                      \
    } else {                                                                                       \
      int64_t lo_ = 0, len_ = (nb) + 1; /* upper bound: the edges <= x */                          \
      while (len_ > 0) {                                                                           \
        int64_t half_ = len_ / 2;                                                                  \
        if ((e)[lo_ + half_] <= (x)) {                                                             \
          lo_ += half_ + 1;                                                                        \
          len_ -= half_ + 1;                                                                       \
        } else {                                                                                   \
          len_ = half_;                                                                            \
        }                                                                                          \
      }                                                                                            \
      b_ = lo_ - 1;                                                                                \
    }                                                                                              \
    while (b_ > 0 && (x) < (e)[b_]) b_--;                                                          \
    while (b_ < (nb)-1 && (x) >= (e)[b_ + 1]) b_++;                                                \
    (out) = b_ > (nb)-1 ? (nb)-1 : b_;                                                             \
  } while (0)

static void count_linear_f32(const bins_job *job, int64_t *h, int64_t begin, int64_t end) {
  const float *x = (const float *)job->src;
  float lo = (float)job->r->lo, hi = (float)job->r->hi;
  int64_t nb = job->nbins;
  for (int64_t i = begin; i < end; i++) {
    int64_t b = linear_bin_f32(x[i], lo, hi, nb);
    if (b != LEFT_OUT) h[b]++;
  }
}

static void count_linear_f64(const bins_job *job, int64_t *h, int64_t begin, int64_t end) {
  const double *x = (const double *)job->src;
  double lo = job->r->lo, hi = job->r->hi;
  int64_t nb = job->nbins;
  for (int64_t i = begin; i < end; i++) {
    int64_t b = linear_bin_f64(x[i], lo, hi, nb);
    if (b != LEFT_OUT) h[b]++;
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
      EDGES_BIN(float, x[i], e, nb, uniform, b);
      if (b != LEFT_OUT) h[b]++;
    }
  } else {
    const double *x = (const double *)job->src, *e = data_of(job->r->edges);
    for (int64_t i = begin; i < end; i++) {
      EDGES_BIN(double, x[i], e, nb, uniform, b);
      if (b != LEFT_OUT) h[b]++;
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
        b = linear_bin_f32(((const float *)job->src)[i], (float)r->lo, (float)r->hi, nb);
      else
        b = linear_bin_f64(((const double *)job->src)[i], r->lo, r->hi, nb);
      break;
    default:
      if (r->src->dtype == DLX_FLOAT32) {
        const float *e = data_of(r->edges);
        EDGES_BIN(float, ((const float *)job->src)[i], e, nb, r->uniform, b);
      } else {
        const double *e = data_of(r->edges);
        EDGES_BIN(double, ((const double *)job->src)[i], e, nb, r->uniform, b);
      }
      break;
    }
    if (b != LEFT_OUT) out[b] += job->weights[i];
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
} search_job;

/* The 1-based positions of the values v[0..m) among the sorted s[0..n) (n >= 1) by their keys
 * (KEY(x) of the element type T): 1 + the sorted elements whose key is below the value's (right:
 * not above). The branchless search halves the same lengths whatever the data, so GROUP values
 * step together: their loads are independent and overlap, where one search waits on each. */
#define GROUP 16
#define SEARCH_ROW(T, KEY)                                                                         \
  static void search_##KEY(const T *s, int64_t n, const T *v, int64_t m, bool right,               \
                           int64_t *out) {                                                         \
    for (int64_t j = 0; j < m; j += GROUP) {                                                       \
      const T *base[GROUP];                                                                        \
      T key[GROUP];                                                                                \
      int64_t len = n, g, count = m - j < GROUP ? m - j : GROUP;                                   \
      for (g = 0; g < count; g++) {                                                                \
        base[g] = s;                                                                               \
        key[g] = KEY(v[j + g]);                                                                    \
      }                                                                                            \
      while (len > 1) {                                                                            \
        int64_t half = len / 2;                                                                    \
        for (g = 0; g < count; g++) {                                                              \
          T k = KEY(base[g][half]);                                                                \
          base[g] = (right ? k <= key[g] : k < key[g]) ? base[g] + half : base[g];                 \
        }                                                                                          \
        len -= half;                                                                               \
      }                                                                                            \
      for (g = 0; g < count; g++) {                                                                \
        T k = KEY(*base[g]);                                                                       \
        out[j + g] = 1 + (base[g] - s) + (right ? k <= key[g] : k < key[g]);                       \
      }                                                                                            \
    }                                                                                              \
  }

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

static void search_part(const search_job *job, const void *s, const void *v, int64_t m,
                        int64_t *out) {
  int64_t n = job->n;
  bool right = job->r->right;
  switch (job->kind) {
  case DLX_SORT_KEY_BOOL:
    search_dlx_sort_key_bool(s, n, v, m, right, out);
    break;
  case DLX_SORT_KEY_U8:
    search_dlx_sort_key_u8(s, n, v, m, right, out);
    break;
  case DLX_SORT_KEY_I8:
    search_dlx_sort_key_i8(s, n, v, m, right, out);
    break;
  case DLX_SORT_KEY_U16:
    search_dlx_sort_key_u16(s, n, v, m, right, out);
    break;
  case DLX_SORT_KEY_I16:
    search_dlx_sort_key_i16(s, n, v, m, right, out);
    break;
  case DLX_SORT_KEY_F16:
    search_dlx_sort_key_f16(s, n, v, m, right, out);
    break;
  case DLX_SORT_KEY_BF16:
    search_dlx_sort_key_bf16(s, n, v, m, right, out);
    break;
  case DLX_SORT_KEY_U32:
    search_dlx_sort_key_u32(s, n, v, m, right, out);
    break;
  case DLX_SORT_KEY_I32:
    search_dlx_sort_key_i32(s, n, v, m, right, out);
    break;
  case DLX_SORT_KEY_F32:
    search_dlx_sort_key_f32(s, n, v, m, right, out);
    break;
  case DLX_SORT_KEY_U64:
    search_dlx_sort_key_u64(s, n, v, m, right, out);
    break;
  case DLX_SORT_KEY_I64:
    search_dlx_sort_key_i64(s, n, v, m, right, out);
    break;
  default:
    search_dlx_sort_key_f64(s, n, v, m, right, out);
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
    search_part(job, s + (shared ? 0 : (size_t)(row * job->n) * job->item),
                v + (size_t)begin * job->item, stop - begin, out + begin);
    begin = stop;
  }
}

static int run_search(const dlx_count_request *r) {
  search_job job = {.r = r,
                    .kind = dlx_sort_key_kind(r->src->dtype),
                    .rows = r->src->shape[0],
                    .m = r->src->shape[1],
                    .n = r->edges->shape[1],
                    .item = (size_t)(dlx_dtype_bits(r->src->dtype) / 8)};
  /* a value costs about log2(n) dependent loads: a grain of values is far fewer than a grain of
   * bytes */
  int64_t grain = dlx_cpu_grain_items(64 * (int64_t)job.item);
  dlx_cpu_parallel_for(job.rows * job.m, grain, search_range, &job);
  return 0;
}

int dlx_cpu_count_op(const dlx_count_request *r, dlx_error *err) {
  if (r->op == DLX_COUNT_SEARCH) return run_search(r);
  return run_bins(r, err);
}
