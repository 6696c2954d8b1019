/* random.c -- the CPU's fill_random: blocks of Philox counters split over the pool, computed in
 * chunks and converted by src/common/philox.h's and distributions.h's functions, or, for the
 * Philox blocks and the normals, by random_batch.c's vector loops that give the same bits, so the
 * bits do not depend on the thread count (or on the device: the other backends use the same
 * headers). Built with -ffp-contract=off (CMakeLists.txt): every conversion must round as on
 * every other device. */
#include <string.h>

#include "common/convert.h"
#include "common/distributions.h"
#include "common/half.h"
#include "cpu/kernels.h"
#include "cpu/parallel.h"
#include "cpu/random_batch.h"

/* Blocks computed at a time before their words are converted (fits in L1). */
#define CHUNK 256

typedef struct random_job {
  const dlx_random_request *r;
  char *data;
  dlx_dtype dtype;
  int64_t n;             /* elements */
  int lanes;             /* elements per block (POISSON: 1, a counter each) */
  int bits;              /* float dtypes: random bits of a uniform */
  const double *pa, *pb; /* per-element parameters, or NULL */
  const dlx_cpu_random_batch *batch;
} random_job;

/* Element e of data, of type T, = value. The data may sit at any address (foreign memory): a
 * memcpy, one store aligned or not. Such a store may alias anything to the compiler, so the loops
 * below read what they need (data too) from locals, which it cannot touch, and still vectorize. */
#define STORE(T, e, value)                                                                         \
  do {                                                                                             \
    T stored = (value);                                                                            \
    memcpy(data + (e) * (int64_t)sizeof(T), &stored, sizeof(T));                                   \
  } while (0)

/* Stores elements [e0, e1) from blocks[] (block 0 holds element e0, a multiple of lanes). */
#define INT_LOOP(T)                                                                                \
  for (int64_t e = e0; e < e1; e++)                                                                \
    STORE(T, e, (T)dlx_rng_int(blocks[(e - e0) / L], (int)((e - e0) % L), low, range));

#define REAL_LOOP(T, CONVERT)                                                                      \
  for (int64_t e = e0; e < e1; e++)                                                                \
    STORE(T, e, CONVERT(dlx_rng_real(kind, blocks[(e - e0) / L], (int)((e - e0) % L), bits, a, b)));

#define AS_FLOAT(x) ((float)(x))
#define AS_DOUBLE(x) (x)

/* Any kind into any real dtype through convert.h's casting rules, element by element: INT's
 * integers (to floats and bool; the integer dtypes take INT_LOOP) and the other kinds' float64
 * values (dlx_rng_draw), with per-element parameters where there are some. */
#define CAST_CASE(name, E, T)                                                                      \
  case E:                                                                                          \
    for (int64_t e = e0; e < e1; e++) {                                                            \
      dlx_philox_block blk = blocks[(e - e0) / L];                                                 \
      int lane = (int)((e - e0) % L);                                                              \
      STORE(T, e,                                                                                  \
            kind == DLX_RNG_INT ? to_##name##_from_i(dlx_rng_int(blk, lane, low, range))           \
                                : to_##name##_from_d(dlx_rng_draw(kind, blk, lane, bits, wide,     \
                                                                  pa != NULL ? pa[e] : a,          \
                                                                  pb != NULL ? pb[e] : b)));       \
    }                                                                                              \
    break;

static void store_cast(const random_job *j, const dlx_philox_block *blocks, int64_t e0,
                       int64_t e1) {
  const dlx_random_request *r = j->r;
  const double *pa = j->pa, *pb = j->pb;
  int kind = (int)r->kind, bits = j->bits, wide = j->lanes == 2;
  int64_t L = j->lanes, low = r->low;
  uint64_t range = r->range;
  double a = r->a, b = r->b;
  char *data = j->data;
  switch (j->dtype) {
    DLX_COMPUTABLE_TYPES(CAST_CASE)
  default:
    break; /* the core checked the dtype */
  }
}

/* POISSON: element e from counter offset + e, in [e0, e1). */
#define POISSON_CASE(name, E, T)                                                                   \
  case E:                                                                                          \
    for (int64_t e = e0; e < e1; e++)                                                              \
      STORE(T, e,                                                                                  \
            to_##name##_from_d(dlx_rng_poisson(r->seed, r->offset + (uint64_t)e,                   \
                                               j->pa != NULL ? j->pa[e] : r->a)));                 \
    break;

static void store_poisson(const random_job *j, int64_t e0, int64_t e1) {
  const dlx_random_request *r = j->r;
  char *data = j->data;
  switch (j->dtype) {
    DLX_COMPUTABLE_TYPES(POISSON_CASE)
  default:
    break;
  }
}

/* Normals of elements [e0, e1), a pair of elements per pair of uniforms: the vectorized
 * Box-Muller in float64 (random_batch.c), then rounded once to the dtype. */
static void store_normals(const random_job *j, const dlx_philox_block *blocks, int64_t e0,
                          int64_t e1) {
  double z[CHUNK * 4];
  const uint32_t *words = (const uint32_t *)blocks;
  int64_t count = e1 - e0;
  char *data = j->data;
  if (j->lanes == 2) /* float64: two words each */
    j->batch->normal_pairs_wide(words, (count + 1) / 2, j->r->a, j->r->b, z);
  else
    j->batch->normal_pairs(words, (count + 1) / 2, j->r->a, j->r->b, z);
  switch (j->dtype) {
  case DLX_FLOAT32:
    for (int64_t i = 0; i < count; i++) STORE(float, e0 + i, (float)z[i]);
    break;
  case DLX_FLOAT64:
    memcpy(data + e0 * (int64_t)sizeof *z, z, (size_t)count * sizeof *z);
    break;
  case DLX_FLOAT16:
    for (int64_t i = 0; i < count; i++) STORE(uint16_t, e0 + i, dlx_double_to_half(z[i]));
    break;
  case DLX_BFLOAT16:
    for (int64_t i = 0; i < count; i++) STORE(uint16_t, e0 + i, dlx_double_to_bf16(z[i]));
    break;
  default:
    break; /* the core checked the dtype */
  }
}

static void store_chunk(const random_job *j, const dlx_philox_block *blocks, int64_t e0,
                        int64_t e1) {
  const dlx_random_request *r = j->r;
  int kind = (int)r->kind, bits = j->bits;
  int64_t L = j->lanes, low = r->low;
  uint64_t range = r->range;
  double a = r->a, b = r->b;
  char *data = j->data;
  if ((kind != DLX_RNG_UNIFORM && kind != DLX_RNG_NORMAL && kind != DLX_RNG_INT) || j->pa != NULL ||
      j->pb != NULL ||
      (kind == DLX_RNG_INT && dlx_dtype_kind(j->dtype) != DLX_KIND_INT &&
       dlx_dtype_kind(j->dtype) != DLX_KIND_UINT)) {
    store_cast(j, blocks, e0, e1);
    return;
  }
  if (kind == DLX_RNG_NORMAL) {
    store_normals(j, blocks, e0, e1);
    return;
  }
  if (kind == DLX_RNG_UNIFORM && j->dtype == DLX_FLOAT32 && a == 0 && b == 1) {
    /* u itself: the same bits as the float64 path, without it */
    for (int64_t e = e0; e < e1; e++)
      STORE(float, e, (float)(blocks[(e - e0) / 4].w[(e - e0) % 4] >> 8) * 0x1p-24f);
    return;
  }
  switch (j->dtype) {
  case DLX_FLOAT32:
    REAL_LOOP(float, AS_FLOAT);
    break;
  case DLX_FLOAT64:
    REAL_LOOP(double, AS_DOUBLE);
    break;
  case DLX_FLOAT16:
    REAL_LOOP(uint16_t, dlx_double_to_half);
    break;
  case DLX_BFLOAT16:
    REAL_LOOP(uint16_t, dlx_double_to_bf16);
    break;
  case DLX_INT8:
    INT_LOOP(int8_t);
    break;
  case DLX_UINT8:
    INT_LOOP(uint8_t);
    break;
  case DLX_INT16:
    INT_LOOP(int16_t);
    break;
  case DLX_UINT16:
    INT_LOOP(uint16_t);
    break;
  case DLX_INT32:
    INT_LOOP(int32_t);
    break;
  case DLX_UINT32:
    INT_LOOP(uint32_t);
    break;
  case DLX_INT64:
    INT_LOOP(int64_t);
    break;
  case DLX_UINT64:
    INT_LOOP(uint64_t);
    break;
  default:
    break; /* the core checked the dtype */
  }
}

/* Blocks [begin, end) of the request. */
static void fill_blocks(void *ctx, int64_t begin, int64_t end) {
  const random_job *j = ctx;
  dlx_philox_block blocks[CHUNK];
  if (j->r->kind == DLX_RANDOM_POISSON) { /* a counter per element: blocks are elements */
    store_poisson(j, begin, end);
    return;
  }
  for (int64_t first = begin; first < end; first += CHUNK) {
    int count = (int)(end - first < CHUNK ? end - first : CHUNK);
    int64_t e0 = first * j->lanes, e1 = e0 + (int64_t)count * j->lanes;
    j->batch->philox_blocks(j->r->seed, j->r->offset + (uint64_t)first, count, blocks);
    store_chunk(j, blocks, e0, e1 < j->n ? e1 : j->n);
  }
}

int dlx_cpu_fill_random(const dlx_tensor *dst, const dlx_random_request *r, dlx_error *err) {
  random_job j;
  int64_t blocks;
  (void)err;
  j.r = r;
  j.batch = dlx_cpu_random_batch_best();
  j.dtype = dst->dtype;
  j.data = (char *)dst->buffer->data + dst->offset * dlx_itemsize(dst->dtype);
  j.n = dlx_tensor_numel(dst);
  j.bits = dst->dtype == DLX_FLOAT64    ? 53
           : dst->dtype == DLX_FLOAT16  ? 11
           : dst->dtype == DLX_BFLOAT16 ? 8
                                        : 24;
  j.lanes = r->lanes;
  j.pa = r->ta != NULL ? (const double *)r->ta->buffer->data + r->ta->offset : NULL;
  j.pb = r->tb != NULL ? (const double *)r->tb->buffer->data + r->tb->offset : NULL;
  blocks = (j.n + j.lanes - 1) / j.lanes;
  /* a Poisson element may take many tries: smaller grains */
  dlx_cpu_parallel_for(blocks,
                       r->kind == DLX_RANDOM_POISSON ? 256 : dlx_cpu_grain_items(16 * j.lanes),
                       fill_blocks, &j);
  return 0;
}
