/* copy.c -- the CPU copy: dst[i] = cast(src[i]) over any strides.
 *
 * The dims are prepared once (strided_iter.h: sorted in destination order, negative strides
 * flipped, merged where both operands allow), then one of three walks runs:
 * - a blocked transpose, when src walks fastest along another dim than dst does (a transposed
 *   or permuted copy): tiles go through a small scratch buffer, so that both src and dst are
 *   read and written in whole cache lines;
 * - a cast with a strided operand: chunks of the run are gathered into a contiguous scratch
 *   buffer, cast there, and scattered, so that the cast loop itself is always contiguous;
 * - otherwise a 1-D loop per inner run, specialised by item size and layout (cast_loops.c).
 * Large copies split their rows (or their one long run, or their tiles) over threads. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu/cast_loops.h"
#include "cpu/kernels.h"
#include "cpu/parallel.h"
#include "cpu/strided_iter.h"

/* Elements staged per step of a strided cast: two buffers of at most 8 KiB, in L1. */
#define CAST_CHUNK 512
/* Transposes pay off from this many elements along both dims. */
#define TRANSPOSE_MIN 8

typedef struct copy_plan {
  dlx_strided it;
  char *dbase;
  const char *sbase;
  int64_t dsize, ssize;
  dlx_cpu_loop_fn loop;    /* dst = cast(src) along a run */
  dlx_cpu_loop_fn gather;  /* a cast with strided operands: src run -> scratch (else NULL) */
  dlx_cpu_loop_fn scatter; /* and scratch -> dst run */
  /* Blocked transpose (tdim >= 0): tdim is the dim src walks fastest, the inner dim dst's;
   * rest walks the other dims (its inner dim has size 1). */
  int tdim;
  dlx_strided rest;
  bool stream; /* non-temporal stores for the tiles (large transposes) */
} copy_plan;

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

/* ---- runs */

/* A cast whose operands are not both contiguous: gather, cast, scatter, a chunk at a time. */
static void cast_in_chunks(const copy_plan *p, char *d, ptrdiff_t dstep, const char *s,
                           ptrdiff_t sstep, int64_t n) {
  _Alignas(64) char sbuf[CAST_CHUNK * 16], dbuf[CAST_CHUNK * 16];
  for (int64_t i = 0; i < n; i += CAST_CHUNK) {
    int64_t m = n - i < CAST_CHUNK ? n - i : CAST_CHUNK;
    const char *from = s + i * sstep;
    ptrdiff_t from_step = sstep;
    if (sstep != p->ssize) {
      p->gather(sbuf, (ptrdiff_t)p->ssize, from, sstep, m);
      from = sbuf;
      from_step = (ptrdiff_t)p->ssize;
    }
    if (dstep == p->dsize) {
      p->loop(d + i * dstep, dstep, from, from_step, m);
    } else {
      p->loop(dbuf, (ptrdiff_t)p->dsize, from, from_step, m);
      p->scatter(d + i * dstep, dstep, dbuf, (ptrdiff_t)p->dsize, m);
    }
  }
}

/* Copies n elements of the inner dim from positions dpos and spos (in elements). */
static void copy_run(const copy_plan *p, int64_t dpos, int64_t spos, int64_t n) {
  char *d = p->dbase + dpos * p->dsize;
  const char *s = p->sbase + spos * p->ssize;
  ptrdiff_t dstep = (ptrdiff_t)(dlx_strided_inner_stride(&p->it, 0) * p->dsize);
  ptrdiff_t sstep = (ptrdiff_t)(dlx_strided_inner_stride(&p->it, 1) * p->ssize);
  bool contiguous = dstep == p->dsize && (sstep == p->ssize || sstep == 0);
  if (p->gather == NULL || contiguous) {
    p->loop(d, dstep, s, sstep, n);
  } else {
    cast_in_chunks(p, d, dstep, s, sstep, n);
  }
}

static void copy_rows(void *ctx, int64_t begin, int64_t end) {
  const copy_plan *p = ctx;
  int64_t index[DLX_MAX_NDIM], pos[2];
  dlx_strided_seek(&p->it, begin, index, pos);
  for (int64_t row = begin; row < end; row++) {
    copy_run(p, pos[0], pos[1], dlx_strided_inner_size(&p->it));
    dlx_strided_next(&p->it, index, pos);
  }
}

/* One long run (a contiguous copy, say), split into spans of elements. */
static void copy_span(void *ctx, int64_t begin, int64_t end) {
  const copy_plan *p = ctx;
  copy_run(p, p->it.offset[0] + begin * dlx_strided_inner_stride(&p->it, 0),
           p->it.offset[1] + begin * dlx_strided_inner_stride(&p->it, 1), end - begin);
}

/* ---- blocked transpose. A tile is na elements along tdim (a: src's fast dim) by nb along the
 * inner dim (b: dst's fast dim). The src rows of the tile are read whole into scratch; dst rows
 * are then written whole, reading scratch down its columns. The scratch pitch is one element
 * more than the tile, so that a column does not hit the same cache set (or bank) each row. */

#define TILE_BYTES 256 /* a tile row: four cache lines */
#define TILE_MAX (TILE_BYTES / 4)
/* From this many bytes written, a transpose's dst rows go out with non-temporal stores: the
 * copy is far larger than the caches, and streaming whole lines spares reading each dst line
 * before it is overwritten (a third of the traffic). */
#define STREAM_MIN_BYTES ((int64_t)64 << 20)

typedef void (*tile_fn)(char *dst, ptrdiff_t da, ptrdiff_t db, const char *src, ptrdiff_t sa,
                        ptrdiff_t sb, int64_t na, int64_t nb, bool stream);

/* Writes nb elements of a scratch column (pitch apart) to the contiguous dst row d, streaming
 * when asked and d is 16-byte aligned; returns false when it did not. */
static bool stream_row(char *d, const char *col, ptrdiff_t pitch, int64_t size, int64_t nb) {
#if defined(__SSE2__)
  if (((uintptr_t)d & 15) != 0 || (nb * size) % 16 != 0) return false;
  if (size == 4) {
    for (int64_t b = 0; b < nb; b += 4) {
      float v[4];
      for (int k = 0; k < 4; k++) memcpy(&v[k], col + (b + k) * pitch, 4);
      _mm_stream_ps((float *)(void *)(d + b * 4), _mm_loadu_ps(v));
    }
    return true;
  }
  if (size == 8) {
    for (int64_t b = 0; b < nb; b += 2) {
      double v[2];
      for (int k = 0; k < 2; k++) memcpy(&v[k], col + (b + k) * pitch, 8);
      _mm_stream_pd((double *)(void *)(d + b * 8), _mm_loadu_pd(v));
    }
    return true;
  }
#else
  (void)d, (void)col, (void)pitch, (void)size, (void)nb;
#endif
  return false;
}

#define DEFINE_TILE(size)                                                                          \
  static void tile_##size(char *dst, ptrdiff_t da, ptrdiff_t db, const char *src, ptrdiff_t sa,    \
                          ptrdiff_t sb, int64_t na, int64_t nb, bool stream) {                     \
    enum { PITCH = (TILE_BYTES / (size) + 1) * (size) };                                           \
    _Alignas(64) char scratch[TILE_MAX * PITCH];                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      char *row = scratch + b * PITCH;                                                             \
      const char *s = src + b * sb;                                                                \
      if (sa == (size)) {                                                                          \
        memcpy(row, s, (size_t)(na * (size)));                                                     \
      } else {                                                                                     \
        for (int64_t a = 0; a < na; a++) memcpy(row + a * (size), s + a * sa, (size));             \
      }                                                                                            \
    }                                                                                              \
    for (int64_t a = 0; a < na; a++) {                                                             \
      char *d = dst + a * da;                                                                      \
      const char *col = scratch + a * (size);                                                      \
      if (db == (size)) {                                                                          \
        if (stream && stream_row(d, col, PITCH, (size), nb)) continue;                             \
        for (int64_t b = 0; b < nb; b++) memcpy(d + b * (size), col + b * PITCH, (size));          \
      } else {                                                                                     \
        for (int64_t b = 0; b < nb; b++) memcpy(d + b * db, col + b * PITCH, (size));              \
      }                                                                                            \
    }                                                                                              \
  }
DEFINE_TILE(1)
DEFINE_TILE(2)
DEFINE_TILE(4)
DEFINE_TILE(8)
DEFINE_TILE(16)
#undef DEFINE_TILE

static tile_fn tile_of(int64_t size) {
  switch (size) {
  case 1:
    return tile_1;
  case 2:
    return tile_2;
  case 4:
    return tile_4;
  case 8:
    return tile_8;
  default:
    return tile_16;
  }
}

/* Tile edge in elements for an item size: TILE_BYTES along a, and as many rows along b, at
 * most TILE_MAX (the scratch then holds at most 16 KiB plus padding). */
static int64_t tile_edge(int64_t size) {
  int64_t edge = TILE_BYTES / size;
  return edge > TILE_MAX ? TILE_MAX : edge;
}

/* The dim src walks fastest, when it is not the inner dim and tiles pay off; -1 otherwise. */
static int transpose_dim(const dlx_strided *it) {
  int inner = it->ndim - 1, best = -1;
  if (inner < 1 || it->shape[inner] < TRANSPOSE_MIN) return -1;
  for (int d = 0; d < inner; d++) {
    int64_t s = abs64(it->strides[1][d]);
    if (s != 0 && it->shape[d] >= TRANSPOSE_MIN && (best < 0 || s < abs64(it->strides[1][best])))
      best = d;
  }
  if (best < 0 || abs64(it->strides[1][best]) >= abs64(it->strides[1][inner])) return -1;
  return best;
}

/* rest: it without dims tdim and inner, plus an inner dim of size 1. */
static void make_rest(copy_plan *p) {
  const dlx_strided *it = &p->it;
  dlx_strided *rest = &p->rest;
  rest->nops = 2;
  rest->ndim = 0;
  for (int d = 0; d <= it->ndim; d++) {
    bool last = d == it->ndim;
    if (!last && (d == p->tdim || d == it->ndim - 1)) continue;
    rest->shape[rest->ndim] = last ? 1 : it->shape[d];
    for (int k = 0; k < 2; k++) {
      rest->strides[k][rest->ndim] = last ? 0 : it->strides[k][d];
      rest->offset[k] = it->offset[k];
    }
    rest->ndim++;
  }
}

/* Work item u: tile row u % blocks (tile_edge elements along tdim) of rest row u / blocks. */
static void transpose_items(void *ctx, int64_t begin, int64_t end) {
  const copy_plan *p = ctx;
  const dlx_strided *it = &p->it;
  int a_dim = p->tdim, b_dim = it->ndim - 1;
  int64_t size = p->dsize, edge = tile_edge(size);
  int64_t na_all = it->shape[a_dim], nb_all = it->shape[b_dim];
  int64_t blocks = (na_all + edge - 1) / edge;
  ptrdiff_t da = (ptrdiff_t)(it->strides[0][a_dim] * size);
  ptrdiff_t db = (ptrdiff_t)(it->strides[0][b_dim] * size);
  ptrdiff_t sa = (ptrdiff_t)(it->strides[1][a_dim] * size);
  ptrdiff_t sb = (ptrdiff_t)(it->strides[1][b_dim] * size);
  tile_fn tile = tile_of(size);
  bool stream = p->stream;
  int64_t index[DLX_MAX_NDIM], pos[2];
  for (int64_t u = begin; u < end; u++) {
    dlx_strided_seek(&p->rest, u / blocks, index, pos);
    int64_t a0 = u % blocks * edge, na = na_all - a0 < edge ? na_all - a0 : edge;
    char *d = p->dbase + pos[0] * size + a0 * da;
    const char *s = p->sbase + pos[1] * size + a0 * sa;
    for (int64_t b0 = 0; b0 < nb_all; b0 += edge) {
      int64_t nb = nb_all - b0 < edge ? nb_all - b0 : edge;
      tile(d + b0 * db, da, db, s + b0 * sb, sa, sb, na, nb, stream);
    }
  }
#if defined(__SSE2__)
  if (stream) _mm_sfence(); /* the streamed lines are visible before the copy returns */
#endif
}

/* ---- entry */

static int check_copy(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  if (dst->ndim != src->ndim || dst->ndim < 0 || dst->ndim > DLX_MAX_NDIM)
    return dlx_fail(err, DLX_VALUE_ERROR, "copy: ndim %d and %d differ or are out of range",
                    (int)dst->ndim, (int)src->ndim);
  for (int d = 0; d < dst->ndim; d++) {
    if (dst->shape[d] != src->shape[d])
      return dlx_fail(err, DLX_VALUE_ERROR, "copy: shapes differ in dim %d (%lld and %lld)", d,
                      (long long)dst->shape[d], (long long)src->shape[d]);
  }
  if (dst->dtype != src->dtype &&
      (dlx_dtype_is_storage_only(dst->dtype) || dlx_dtype_is_storage_only(src->dtype)))
    return dlx_fail(err, DLX_TYPE_ERROR, "copy: cannot cast %s to %s (storage-only dtype)",
                    dlx_dtype_info_of(src->dtype)->name, dlx_dtype_info_of(dst->dtype)->name);
  return 0;
}

static void run_plan(copy_plan *p) {
  int64_t bytes_per_element = p->dsize + p->ssize;
  int64_t n = dlx_strided_inner_size(&p->it), rows = dlx_strided_rows(&p->it);
  if (p->tdim >= 0) {
    make_rest(p);
    int64_t edge = tile_edge(p->dsize);
    int64_t blocks = (p->it.shape[p->tdim] + edge - 1) / edge;
    int64_t items = dlx_strided_rows(&p->rest) * blocks;
    int64_t item_bytes = edge * p->it.shape[p->it.ndim - 1] * bytes_per_element;
    int64_t elements =
        dlx_strided_rows(&p->rest) * p->it.shape[p->tdim] * p->it.shape[p->it.ndim - 1];
    p->stream = elements * p->dsize >= STREAM_MIN_BYTES;
    dlx_cpu_parallel_for(items, dlx_cpu_grain_items(item_bytes), transpose_items, p);
  } else if (rows == 1) {
    dlx_cpu_parallel_for(n, dlx_cpu_grain_items(bytes_per_element), copy_span, p);
  } else {
    dlx_cpu_parallel_for(rows, dlx_cpu_grain_items(n * bytes_per_element), copy_rows, p);
  }
}

int dlx_cpu_copy(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err) {
  int rc = check_copy(dst, src, err);
  if (rc != 0) return rc;
  copy_plan p = {.dsize = dlx_itemsize(dst->dtype), .ssize = dlx_itemsize(src->dtype)};
  if (p.dsize == 0) {
    dlx_cpu_copy_subbyte(dst, src);
    return 0;
  }
  const int64_t *strides[2] = {dst->strides, src->strides};
  const int64_t offsets[2] = {dst->offset, src->offset};
  if (!dlx_strided_init(&p.it, dst->ndim, dst->shape, 2, strides, offsets,
                        DLX_STRIDED_REORDER | DLX_STRIDED_DROP_BROADCAST))
    return 0; /* nothing to copy: the data pointers are not touched */
  p.dbase = dst->buffer->data;
  p.sbase = src->buffer->data;
  p.tdim = -1;
  if (dst->dtype == src->dtype) {
    p.loop = dlx_cpu_copy_loop(p.dsize);
    p.tdim = transpose_dim(&p.it);
  } else {
    p.loop = dlx_cpu_cast_loop(src->dtype, dst->dtype);
    p.gather = dlx_cpu_copy_loop(p.ssize);
    p.scatter = dlx_cpu_copy_loop(p.dsize);
  }
  run_plan(&p);
  return 0;
}
