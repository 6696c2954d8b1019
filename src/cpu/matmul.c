/* matmul.c -- the CPU backend's matmul entry (backend.h's dlx_matmul_request).
 *
 * Three paths:
 * - small products (and every bool or integer product, which BLAS has not) run dlx's own loops
 *   (matmul_small.c), batch elements and blocks of rows split over the pool: a 4x4 product is
 *   about 64 multiply-adds, far less than a BLAS call's fixed cost; batches of 3x3, 4x4 and
 *   6x6 float32 and float64 products (alpha 1, beta 0) run the vector kernels of
 *   matmul_fixed.c, ranges of the batch at a time;
 * - float32, float64, complex64 and complex128 products of some size go to OpenBLAS: c is cut
 *   into tiles (several per thread when the product is large), which the pool hands out, each
 *   a single-threaded ?gemm on the operands as they lie (transposed and conjugated operands
 *   included: blas.c picks the BLAS op);
 * - float16 and bfloat16 products of that size are converted to float32 (exactly), multiplied by
 *   sgemm into a float32 temporary, and rounded once into c with alpha and beta applied. */
#include <stdlib.h>
#include <string.h>

#include "common/half.h"
#include "cpu/blas.h"
#include "cpu/kernels.h"
#include "cpu/matmul.h"
#include "cpu/parallel.h"

/* Products with fewer multiply-adds than this run the own loops (a BLAS call costs a few
 * hundred ns before it computes anything). */
#define SMALL_PRODUCT (32 * 32 * 32)
/* The least work of a BLAS tile, in flops, and the least side of one. */
#define MIN_TILE_FLOPS ((double)(1 << 23))
#define MIN_TILE_SIDE 64
#define MAX_TILES 8
/* The work of a block of the own loops, in multiply-adds. */
#define OWN_GRAIN ((int64_t)1 << 14)

/* ---- own loops over the pool: items are (batch element, block of rows) */

typedef struct own_job {
  const dlx_matmul_request *r;
  dlx_cpu_product_fn fn;
  int64_t rows, blocks; /* rows a block, blocks an element */
} own_job;

typedef struct fixed_job {
  const dlx_matmul_request *r;
  dlx_cpu_batch_fn fn;
} fixed_job;

static void fixed_range(void *ctx, int64_t begin, int64_t end) {
  const fixed_job *job = ctx;
  job->fn(job->r, begin, end);
}

static void own_range(void *ctx, int64_t begin, int64_t end) {
  const own_job *job = ctx;
  for (int64_t item = begin; item < end; item++) {
    int64_t i = item / job->blocks, first = item % job->blocks * job->rows;
    if (job->blocks == 1) {
      job->fn(job->r, i);
      continue;
    }
    dlx_matmul_request part = *job->r;
    part.m = part.m - first < job->rows ? part.m - first : job->rows;
    part.a.offset += first * part.a.row_stride;
    part.c.offset += first * part.c.row_stride;
    job->fn(&part, i);
  }
}

static void own_product(const dlx_matmul_request *r) {
  fixed_job fixed = {r, dlx_cpu_fixed_batch(r)};
  if (fixed.fn != NULL) { /* blocks of about DLX_CPU_GRAIN_BYTES of operands */
    int64_t bytes = 3 * r->m * r->n * (int64_t)dlx_dtype_bits(r->dtype) / 8;
    dlx_cpu_parallel_for(r->batch, dlx_cpu_grain_items(bytes), fixed_range, &fixed);
    return;
  }
  int64_t per_row = r->n * (r->k > 0 ? r->k : 1), per_element = per_row * r->m;
  own_job job = {r, dlx_cpu_small_product(r->dtype), r->m, 1};
  if (per_element > OWN_GRAIN && r->m > 1) { /* big elements: blocks of rows too */
    job.rows = OWN_GRAIN / per_row > 0 ? OWN_GRAIN / per_row : 1;
    job.blocks = (r->m + job.rows - 1) / job.rows;
  }
  int64_t items = r->batch * job.blocks, work = per_element / job.blocks;
  dlx_cpu_parallel_for(items, work >= OWN_GRAIN ? 1 : OWN_GRAIN / (work > 0 ? work : 1), own_range,
                       &job);
}

/* ---- BLAS tiles over the pool: items are (batch element, tile of c) */

typedef struct gemm_job {
  dlx_dtype dtype;
  size_t itemsize;
  int64_t m, n, k;
  const char *a, *b; /* element (0, 0) of batch element 0 */
  char *c;
  int64_t a_bs, b_bs, c_bs; /* batch strides, in elements */
  dlx_blas_matrix ma, mb;   /* strides and conj (data set per tile) */
  int64_t crs, ccs;
  union {
    float f[2];
    double d[2];
  } alpha, beta;
  int64_t tile_m, tile_n, tiles_n, tiles;
} gemm_job;

static void gemm_range(void *ctx, int64_t begin, int64_t end) {
  const gemm_job *j = ctx;
  for (int64_t item = begin; item < end; item++) {
    int64_t i = item / j->tiles, t = item % j->tiles;
    int64_t r0 = t / j->tiles_n * j->tile_m, c0 = t % j->tiles_n * j->tile_n;
    int64_t rows = j->m - r0 < j->tile_m ? j->m - r0 : j->tile_m;
    int64_t cols = j->n - c0 < j->tile_n ? j->n - c0 : j->tile_n;
    dlx_blas_matrix a = j->ma, b = j->mb;
    a.data = j->a + (size_t)(i * j->a_bs + r0 * a.rs) * j->itemsize;
    b.data = j->b + (size_t)(i * j->b_bs + c0 * b.cs) * j->itemsize;
    char *c = j->c + (size_t)(i * j->c_bs + r0 * j->crs + c0 * j->ccs) * j->itemsize;
    dlx_cpu_gemm(j->dtype, rows, cols, j->k, &j->alpha, &a, &b, &j->beta, c, j->crs, j->ccs);
  }
}

static int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

/* Cuts each product into tiles, halving the longer side each time: up to MAX_TILES in all (a
 * thread kept busy by another process then takes fewer), none under MIN_TILE_FLOPS. The cut
 * depends on the sizes only, never on the thread count, so that every thread count makes the
 * same BLAS calls and gets the same bits. */
static void plan_tiles(gemm_job *j, int64_t batch) {
  double flops = 2.0 * (double)j->m * (double)j->n * (double)j->k;
  double want = MAX_TILES;
  if (want > flops * (double)batch / MIN_TILE_FLOPS) want = flops * (double)batch / MIN_TILE_FLOPS;
  int64_t per = (int64_t)(want / (double)batch + 0.999), tm = 1, tn = 1;
  while (tm * tn < per) {
    int64_t side_m = (j->m + tm - 1) / tm, side_n = (j->n + tn - 1) / tn;
    if (side_m >= side_n && side_m >= 2 * MIN_TILE_SIDE)
      tm *= 2;
    else if (side_n >= 2 * MIN_TILE_SIDE)
      tn *= 2;
    else
      break;
  }
  j->tile_m = round_up((j->m + tm - 1) / tm, 16);
  j->tile_n = round_up((j->n + tn - 1) / tn, 16);
  j->tiles_n = (j->n + j->tile_n - 1) / j->tile_n;
  j->tiles = (j->m + j->tile_m - 1) / j->tile_m * j->tiles_n;
}

static void run_tiles(gemm_job *j, int64_t batch) {
  plan_tiles(j, batch);
  dlx_cpu_blas_use_threads(1); /* the pool's threads are the only ones */
  dlx_cpu_parallel_for(batch * j->tiles, 1, gemm_range, j);
}

static void set_scalars(gemm_job *j, const dlx_matmul_request *r, dlx_dtype dtype) {
  const dlx_scalar *s[2] = {&r->alpha, &r->beta};
  for (int w = 0; w < 2; w++) {
    double re = s[w]->kind == DLX_KIND_COMPLEX ? s[w]->v.c[0] : s[w]->v.f;
    double im = s[w]->kind == DLX_KIND_COMPLEX ? s[w]->v.c[1] : 0;
    if (dtype == DLX_FLOAT64 || dtype == DLX_COMPLEX128) {
      (w == 0 ? &j->alpha : &j->beta)->d[0] = re;
      (w == 0 ? &j->alpha : &j->beta)->d[1] = im;
    } else {
      (w == 0 ? &j->alpha : &j->beta)->f[0] = (float)re;
      (w == 0 ? &j->alpha : &j->beta)->f[1] = (float)im;
    }
  }
}

static void blas_product(const dlx_matmul_request *r) {
  gemm_job j;
  memset(&j, 0, sizeof j);
  j.dtype = r->dtype;
  j.itemsize = (size_t)dlx_dtype_bits(r->dtype) / 8;
  j.m = r->m;
  j.n = r->n;
  j.k = r->k;
  j.a = (const char *)r->a.buffer->data + (size_t)r->a.offset * j.itemsize;
  j.b = (const char *)r->b.buffer->data + (size_t)r->b.offset * j.itemsize;
  j.c = (char *)r->c.buffer->data + (size_t)r->c.offset * j.itemsize;
  j.a_bs = r->a.batch_stride;
  j.b_bs = r->b.batch_stride;
  j.c_bs = r->c.batch_stride;
  j.ma = (dlx_blas_matrix){NULL, r->a.row_stride, r->a.col_stride, r->a.conj};
  j.mb = (dlx_blas_matrix){NULL, r->b.row_stride, r->b.col_stride, r->b.conj};
  j.crs = r->c.row_stride;
  j.ccs = r->c.col_stride;
  set_scalars(&j, r, r->dtype);
  run_tiles(&j, r->batch);
}

/* ---- float16 and bfloat16 through sgemm */

static float load_half(uint16_t x, bool bf16) {
  return bf16 ? dlx_bf16_to_float(x) : dlx_half_to_float(x);
}

/* dst (rows x cols, C-contiguous float32) = the matrix at src with strides rs, cs. */
static void widen(float *dst, const uint16_t *src, int64_t rows, int64_t cols, int64_t rs,
                  int64_t cs, bool bf16) {
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) dst[i * cols + j] = load_half(src[i * rs + j * cs], bf16);
}

static int half_product(const dlx_matmul_request *r, dlx_error *err) {
  bool bf16 = r->dtype == DLX_BFLOAT16;
  size_t na = (size_t)(r->m * r->k), nb = (size_t)(r->k * r->n), nc = (size_t)(r->m * r->n);
  float *wa = malloc(sizeof(float) * (na + nb + nc));
  float alpha = (float)r->alpha.v.f, beta = (float)r->beta.v.f;
  if (wa == NULL)
    return dlx_fail(err, DLX_MEMORY_ERROR, "matmul: no memory for float32 copies of %s operands",
                    bf16 ? "bfloat16" : "float16");
  float *wb = wa + na, *wc = wb + nb;
  for (int64_t i = 0; i < r->batch; i++) {
    const uint16_t *a = DLX_CPU_OPERAND(const uint16_t, &r->a, i);
    const uint16_t *b = DLX_CPU_OPERAND(const uint16_t, &r->b, i);
    uint16_t *c = DLX_CPU_OPERAND(uint16_t, &r->c, i);
    widen(wa, a, r->m, r->k, r->a.row_stride, r->a.col_stride, bf16);
    widen(wb, b, r->k, r->n, r->b.row_stride, r->b.col_stride, bf16);
    gemm_job j;
    memset(&j, 0, sizeof j);
    j.dtype = DLX_FLOAT32;
    j.itemsize = sizeof(float);
    j.m = r->m;
    j.n = r->n;
    j.k = r->k;
    j.a = (const char *)wa;
    j.b = (const char *)wb;
    j.c = (char *)wc;
    j.ma = (dlx_blas_matrix){NULL, r->k, 1, false};
    j.mb = (dlx_blas_matrix){NULL, r->n, 1, false};
    j.crs = r->n;
    j.ccs = 1;
    j.alpha.f[0] = 1;
    run_tiles(&j, 1);
    for (int64_t row = 0; row < r->m; row++)
      for (int64_t col = 0; col < r->n; col++) {
        uint16_t *cj = c + row * r->c.row_stride + col * r->c.col_stride;
        float v = alpha * wc[row * r->n + col];
        if (beta != 0) v += beta * load_half(*cj, bf16);
        *cj = bf16 ? dlx_float_to_bf16(v) : dlx_float_to_half(v);
      }
  }
  free(wa);
  return 0;
}

/* ---- the entry */

static bool has_blas(dlx_dtype dtype) {
  return dtype == DLX_FLOAT32 || dtype == DLX_FLOAT64 || dtype == DLX_COMPLEX64 ||
         dtype == DLX_COMPLEX128 || dtype == DLX_FLOAT16 || dtype == DLX_BFLOAT16;
}

int dlx_cpu_matmul(const dlx_matmul_request *r, dlx_error *err) {
  double macs = (double)r->m * (double)r->n * (double)r->k;
  if (!has_blas(r->dtype) || r->k == 0 || macs < SMALL_PRODUCT) {
    own_product(r);
    return 0;
  }
  if (r->dtype == DLX_FLOAT16 || r->dtype == DLX_BFLOAT16) return half_product(r, err);
  blas_product(r);
  return 0;
}
