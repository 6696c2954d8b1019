/* random_multinomial.c -- the CPU's multinomial: rows split over the pool, each row computed as
 * dlx_mn_row (src/common/distributions.h) defines it, bit for bit, but faster:
 * - without replacement, the keys of a chunk of the row at a time from random_batch.c's Philox
 *   blocks and vectorized exponentials (dlx_mn_key's bits), offered to dlx_mn_offer's heap while
 *   the weights are checked;
 * - with replacement, the check and the cdf in one pass, then a binary search per draw.
 * Built with -ffp-contract=off (CMakeLists.txt), as every file computing random numbers. */
#include <stdatomic.h>
#include <stdlib.h>

#include "common/distributions.h"
#include "cpu/kernels.h"
#include "cpu/parallel.h"
#include "cpu/random_batch.h"

/* Elements of a row whose keys are computed at a time (an even count: whole blocks). */
#define CHUNK 512

typedef struct mn_job {
  const float *w32;
  const double *w64;
  int is64;
  int64_t k, n;
  bool replacement;
  uint64_t seed, offset;
  int64_t *out, *status;
  const dlx_cpu_random_batch *batch;
  atomic_bool failed; /* a block could not get its scratch memory */
} mn_job;

/* A row's scratch: the heap's keys (n) or the cdf (k), and a chunk's blocks and exponentials. */
typedef struct mn_scratch {
  double *values;
  double *e;                /* CHUNK + 2 */
  dlx_philox_block *blocks; /* CHUNK / 2 + 1 */
} mn_scratch;

/* The state of a row from its sums, once every weight was finite and >= 0. */
static int final_state(const mn_job *j, double total, int64_t positive) {
  if (positive == 0) return DLX_MN_ZERO_SUM;
  if (!(total <= 1.7976931348623157e308)) return DLX_MN_INF_SUM;
  return !j->replacement && positive < j->n ? DLX_MN_TOO_FEW : DLX_MN_OK;
}

/* Without replacement: the exponential race of dlx_mn_row, a chunk of keys at a time. */
static void row_without(const mn_job *j, int64_t r, const mn_scratch *s) {
  int64_t k = j->k, n = j->n, first = r * k, size = 0, positive = 0;
  int64_t *out = j->out + r * n;
  double total = 0;
  for (int64_t c = 0; c < k; c += CHUNK) {
    int64_t len = k - c < CHUNK ? k - c : CHUNK, e0 = first + c;
    int64_t b0 = e0 / 2, blocks = (e0 + len - 1) / 2 - b0 + 1;
    const double *e = s->e + (e0 - 2 * b0); /* e[i]: element e0 + i */
    if (n > 0) {
      j->batch->philox_blocks(j->seed, j->offset + (uint64_t)b0, blocks, s->blocks);
      j->batch->exponentials_wide((const uint32_t *)s->blocks, 2 * blocks, s->e);
    }
    for (int64_t i = 0; i < len; i++) {
      double w = j->is64 ? j->w64[e0 + i] : (double)j->w32[e0 + i];
      if (!(w >= 0 && w <= 1.7976931348623157e308)) {
        j->status[r] = DLX_MN_BAD_WEIGHT;
        return;
      }
      total += w;
      if (w > 0) {
        positive++;
        if (n > 0) dlx_mn_offer(s->values, out, &size, n, w / e[i], c + i);
      }
    }
  }
  j->status[r] = final_state(j, total, positive);
  if (j->status[r] == DLX_MN_OK) dlx_mn_sort(s->values, out, size);
}

/* With replacement: the check and dlx_mn_cdf in one pass, then each draw's search. */
static void row_with(const mn_job *j, int64_t r, const mn_scratch *s) {
  int64_t k = j->k, n = j->n, first = r * k, positive = 0, last = 0;
  int64_t *out = j->out + r * n;
  double total = 0, *cdf = s->values;
  for (int64_t i = 0; i < k; i++) {
    double w = j->is64 ? j->w64[first + i] : (double)j->w32[first + i];
    if (!(w >= 0 && w <= 1.7976931348623157e308)) {
      j->status[r] = DLX_MN_BAD_WEIGHT;
      return;
    }
    total += w;
    cdf[i] = total;
    if (w > 0) {
      positive++;
      last = i;
    }
  }
  j->status[r] = final_state(j, total, positive);
  if (j->status[r] != DLX_MN_OK) return;
  for (int64_t c = 0; c < n; c += CHUNK) {
    int64_t len = n - c < CHUNK ? n - c : CHUNK, e0 = r * n + c;
    int64_t b0 = e0 / 2, blocks = (e0 + len - 1) / 2 - b0 + 1;
    j->batch->philox_blocks(j->seed, j->offset + (uint64_t)b0, blocks, s->blocks);
    for (int64_t i = 0; i < len; i++) {
      int64_t e = e0 + i;
      double u = dlx_rng_unit(s->blocks[e / 2 - b0], (int)(e % 2), 53);
      out[c + i] = dlx_mn_search(cdf, k, last, u) + 1;
    }
  }
}

/* Rows [begin, end), with scratch of this thread's own. */
static void rows_range(void *ctx, int64_t begin, int64_t end) {
  mn_job *j = ctx;
  size_t values = (size_t)(j->replacement ? j->k : j->n);
  mn_scratch s;
  char *mem =
      malloc((values + CHUNK + 2) * sizeof(double) + (CHUNK / 2 + 1) * sizeof(dlx_philox_block));
  if (mem == NULL) {
    atomic_store(&j->failed, true);
    return;
  }
  s.values = (double *)(void *)mem;
  s.e = s.values + values;
  s.blocks = (dlx_philox_block *)(void *)(s.e + CHUNK + 2);
  for (int64_t r = begin; r < end; r++) {
    if (j->replacement)
      row_with(j, r, &s);
    else
      row_without(j, r, &s);
  }
  free(mem);
}

int dlx_cpu_multinomial(const dlx_multinomial_request *r, dlx_error *err) {
  const dlx_tensor *w = r->weights;
  mn_job j = {.is64 = w->dtype == DLX_FLOAT64,
              .k = w->shape[1],
              .n = r->n,
              .replacement = r->replacement,
              .seed = r->seed,
              .offset = r->offset,
              .out = (int64_t *)r->out->buffer->data + r->out->offset,
              .status = (int64_t *)r->status->buffer->data + r->status->offset,
              .batch = dlx_cpu_random_batch_best()};
  int64_t per_row = j.k + (j.replacement ? j.n : 0);
  j.w32 = (const float *)w->buffer->data + w->offset;
  j.w64 = (const double *)w->buffer->data + w->offset;
  atomic_init(&j.failed, false);
  if ((size_t)(j.replacement ? j.k : j.n) > (SIZE_MAX / sizeof(double)) - CHUNK * 2)
    return dlx_fail(err, DLX_MEMORY_ERROR, "multinomial: scratch of %lld doubles is too large",
                    (long long)(j.replacement ? j.k : j.n));
  /* a grain: rows whose weights and draws come to DLX_CPU_GRAIN_BYTES / 8 items */
  dlx_cpu_parallel_for(w->shape[0], dlx_cpu_grain_items(8 * (per_row > 0 ? per_row : 1)),
                       rows_range, &j);
  if (atomic_load(&j.failed))
    return dlx_fail(err, DLX_MEMORY_ERROR, "multinomial: out of memory for a row's scratch");
  return 0;
}
