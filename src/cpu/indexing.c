/* indexing.c -- the CPU's index_op (backend.h): gather, scatter, masks and nonzero, over
 * tensors of any strides, walked in row-major order, on the pool's threads (parallel.h).
 * Elements move as whole bytes. Operands may sit at any address (foreign memory imported through
 * DLPack may hold float32 at an odd one), so elements and indices are read and written with
 * memcpy of a constant size (one move, aligned or not), never through typed pointers.
 *
 * How the work is split, so that no result depends on the thread count:
 * - GATHER, SCATTER and SCATTER_ADD share one walk (move_segment) over the index's shape, in
 *   opposite directions. GATHER splits any dim; the scatters split a dim other than `dim`, so
 *   that each line along `dim` stays on one thread and is walked in order: the last write wins
 *   and sums add in the order of the index, as on one thread.
 * - CHECK, COUNT and the ops that need the running count of true mask elements (MASKED_SELECT,
 *   MASKED_SCATTER, NONZERO) cut the elements, in row-major order, into chunks of a fixed size:
 *   each chunk's true elements are counted, an exclusive scan of the counts gives each chunk
 *   where its output starts, and the chunks then write in parallel. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/convert.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/ops.h"
#include "cpu/kernels.h"
#include "cpu/parallel.h"

#define MAX_OPS 3

/* Elements per chunk of the chunked ops: fixed, so that chunk boundaries (and with them every
 * result) are the same on any number of threads. */
#define CHUNK ((int64_t)1 << 16)

/* Chunk counts kept in the job itself; more are allocated. */
#define LOCAL_CHUNKS 16

/* Row-major walk of up to MAX_OPS operands of one shape: an odometer over the outer dims around
 * the last one, whose rows (segments of them) the kernels loop over. A 0-d shape is one row of
 * one element. */
typedef struct walk {
  int32_t ndim;
  int64_t shape[DLX_MAX_NDIM];
  int64_t coord[DLX_MAX_NDIM];
  int nops;
  int64_t strides[MAX_OPS][DLX_MAX_NDIM];
  int64_t pos[MAX_OPS]; /* the first element of the current row, in elements from the base */
} walk;

static void walk_init(walk *w, const dlx_tensor *shape_of, int nops, const dlx_tensor *const *ops) {
  w->ndim = shape_of->ndim > 0 ? shape_of->ndim : 1;
  w->nops = nops;
  for (int32_t d = 0; d < w->ndim; d++) {
    w->shape[d] = shape_of->ndim > 0 ? shape_of->shape[d] : 1;
    w->coord[d] = 0;
    for (int k = 0; k < nops; k++) w->strides[k][d] = ops[k]->ndim > 0 ? ops[k]->strides[d] : 0;
  }
  for (int k = 0; k < nops; k++) w->pos[k] = 0;
}

/* Moves to the next row; false after the last one. */
static bool walk_next(walk *w) {
  for (int32_t d = w->ndim - 2; d >= 0; d--) {
    if (++w->coord[d] < w->shape[d]) {
      for (int k = 0; k < w->nops; k++) w->pos[k] += w->strides[k][d];
      return true;
    }
    w->coord[d] = 0;
    for (int k = 0; k < w->nops; k++) w->pos[k] -= (w->shape[d] - 1) * w->strides[k][d];
  }
  return false;
}

/* Moves a fresh walk to its row-th row (0-based). */
static void walk_seek(walk *w, int64_t row) {
  for (int32_t d = w->ndim - 2; d >= 0; d--) {
    w->coord[d] = row % w->shape[d];
    row /= w->shape[d];
    for (int k = 0; k < w->nops; k++) w->pos[k] += w->coord[d] * w->strides[k][d];
  }
}

/* Narrows a fresh walk to [begin, end) of dim d. */
static void walk_restrict(walk *w, int32_t d, int64_t begin, int64_t end) {
  w->shape[d] = end - begin;
  for (int k = 0; k < w->nops; k++) w->pos[k] += begin * w->strides[k][d];
}

static int64_t rows_inner(const walk *w) { return w->shape[w->ndim - 1]; }
static int64_t inner_stride(const walk *w, int k) { return w->strides[k][w->ndim - 1]; }

static int64_t walk_numel(const walk *w) {
  int64_t n = 1;
  for (int32_t d = 0; d < w->ndim; d++) n *= w->shape[d];
  return n;
}

/* Called on n elements of the current row of w from its element j0 on. */
typedef void (*segment_fn)(void *ctx, const walk *w, int64_t j0, int64_t n);

/* Calls fn on the elements [begin, end) of a fresh walk, in row-major order, row by row. */
static void walk_range(walk w, int64_t begin, int64_t end, segment_fn fn, void *ctx) {
  int64_t inner = rows_inner(&w), j0 = 0;
  if (begin > 0) { /* (divisions: not for the first chunk, often the only one) */
    j0 = begin % inner;
    walk_seek(&w, begin / inner);
  }
  while (begin < end) {
    int64_t n = inner - j0 < end - begin ? inner - j0 : end - begin;
    fn(ctx, &w, j0, n);
    begin += n;
    j0 = 0;
    if (begin < end) walk_next(&w);
  }
}

static char *base_of(const dlx_tensor *t) {
  return (char *)t->buffer->data + t->offset * (int64_t)(dlx_dtype_bits(t->dtype) / 8);
}

static size_t element_size(const dlx_tensor *t) { return (size_t)dlx_dtype_bits(t->dtype) / 8; }

/* The 0-based position of a checked 1-based or negative index. */
static inline int64_t zero_based(int64_t i, int64_t size) { return i < 0 ? i + size : i - 1; }

/* i in 1..size or -size..-1, without branches (so that loops of it vectorize). */
static inline bool in_range(int64_t i, int64_t size) {
  return ((uint64_t)i - 1 < (uint64_t)size) | ((uint64_t)i + (uint64_t)size < (uint64_t)size);
}

/* The index at p (any address). */
static inline int64_t index_at(const char *p) {
  int64_t i;
  memcpy(&i, p, sizeof i);
  return i;
}

/* ---- Strided copies of whole elements, one loop per element size ------------------------- */

/* Strides in elements; a copy of S bytes is one load and one store. */
#define COPY_N(name, S)                                                                            \
  static void name(char *dst, int64_t sd, const char *src, int64_t ss, int64_t n) {                \
    for (int64_t j = 0; j < n; j++) memcpy(dst + j * sd * S, src + j * ss * S, S);                 \
  }
COPY_N(copy_n1, 1)
COPY_N(copy_n2, 2)
COPY_N(copy_n4, 4)
COPY_N(copy_n8, 8)
COPY_N(copy_n16, 16)
#undef COPY_N

/* n elements of size bytes from src (stride ss) to dst (stride sd), strides in elements. */
static void copy_strided(char *dst, int64_t sd, const char *src, int64_t ss, int64_t n,
                         size_t size) {
  if (sd == 1 && ss == 1) {
    memcpy(dst, src, (size_t)n * size);
    return;
  }
  switch (size) {
  case 1:
    copy_n1(dst, sd, src, ss, n);
    return;
  case 2:
    copy_n2(dst, sd, src, ss, n);
    return;
  case 4:
    copy_n4(dst, sd, src, ss, n);
    return;
  case 8:
    copy_n8(dst, sd, src, ss, n);
    return;
  case 16:
    copy_n16(dst, sd, src, ss, n);
    return;
  default:
    for (int64_t j = 0; j < n; j++)
      memcpy(dst + j * sd * (int64_t)size, src + j * ss * (int64_t)size, size);
  }
}

/* ---- Additions of SCATTER_ADD, one function per dtype ------------------------------------- */

typedef void (*add_fn)(char *dst, const char *src);

#define ADD_INT(name, type, wide)                                                                  \
  static void name(char *dst, const char *src) {                                                   \
    type a, b;                                                                                     \
    memcpy(&a, dst, sizeof a);                                                                     \
    memcpy(&b, src, sizeof b);                                                                     \
    a = (type)((wide)a + (wide)b); /* integers wrap: computed unsigned */                          \
    memcpy(dst, &a, sizeof a);                                                                     \
  }
ADD_INT(add_i8, int8_t, uint32_t)
ADD_INT(add_i16, int16_t, uint32_t)
ADD_INT(add_i32, int32_t, uint32_t)
ADD_INT(add_i64, int64_t, uint64_t)
ADD_INT(add_u8, uint8_t, uint32_t)
ADD_INT(add_u16, uint16_t, uint32_t)
ADD_INT(add_u32, uint32_t, uint32_t)
ADD_INT(add_u64, uint64_t, uint64_t)
ADD_INT(add_f32, float, float)
ADD_INT(add_f64, double, double)
#undef ADD_INT

static void add_bool(char *dst, const char *src) {
  *(uint8_t *)dst = (uint8_t)(*(uint8_t *)dst || *(const uint8_t *)src);
}

static void add_f16(char *dst, const char *src) {
  uint16_t a, b;
  memcpy(&a, dst, 2);
  memcpy(&b, src, 2);
  a = dlx_float_to_half(dlx_half_to_float(a) + dlx_half_to_float(b));
  memcpy(dst, &a, 2);
}

static void add_bf16(char *dst, const char *src) {
  uint16_t a, b;
  memcpy(&a, dst, 2);
  memcpy(&b, src, 2);
  a = dlx_float_to_bf16(dlx_bf16_to_float(a) + dlx_bf16_to_float(b));
  memcpy(dst, &a, 2);
}

static void add_c64(char *dst, const char *src) {
  add_f32(dst, src);
  add_f32(dst + 4, src + 4);
}

static void add_c128(char *dst, const char *src) {
  add_f64(dst, src);
  add_f64(dst + 8, src + 8);
}

/* The addition of a computable dtype (the core refuses the others). */
static add_fn add_of(dlx_dtype dtype) {
  switch (dtype) {
  case DLX_BOOL:
    return add_bool;
  case DLX_INT8:
    return add_i8;
  case DLX_INT16:
    return add_i16;
  case DLX_INT32:
    return add_i32;
  case DLX_INT64:
    return add_i64;
  case DLX_UINT8:
    return add_u8;
  case DLX_UINT16:
    return add_u16;
  case DLX_UINT32:
    return add_u32;
  case DLX_UINT64:
    return add_u64;
  case DLX_FLOAT16:
    return add_f16;
  case DLX_BFLOAT16:
    return add_bf16;
  case DLX_FLOAT32:
    return add_f32;
  case DLX_FLOAT64:
    return add_f64;
  case DLX_COMPLEX64:
    return add_c64;
  case DLX_COMPLEX128:
    return add_c128;
  default:
    return NULL;
  }
}

/* ---- GATHER, SCATTER, SCATTER_ADD: one walk, two directions ------------------------------ */

typedef struct move_job move_job;

/* A loop over n elements of one row: `plain` with stride sp, `indexed` with stride sx, `index`
 * with stride si (strides in elements). */
typedef void (*move_loop)(const move_job *job, char *plain, int64_t sp, char *indexed, int64_t sx,
                          const char *index, int64_t si, int64_t n);

/* The walk's operands: 0 the plain side (GATHER's dst, the scatters' src), 1 the indexed side
 * (GATHER's src, the scatters' dst, stride 0 along dim), 2 the index. */
struct move_job {
  walk w;
  char *plain, *indexed;
  const char *index; /* int64 indices */
  size_t size;
  int64_t dim_size, dim_stride;
  bool scatter;
  add_fn add;         /* SCATTER_ADD's addition; NULL for the plain moves */
  move_loop add_loop; /* SCATTER_ADD's typed loop, when the dtype has one */
  int32_t split;      /* the dim the threads share out */
};

#define PREFETCH_AHEAD 32
#define PREFETCH_BYTES ((int64_t)1 << 20)

/* The fewest elements of the inner dim a block takes when the threads split that dim. */
#define MIN_INNER_BLOCK 512

/* Loops over one segment with an index per element, one per element size S. GATHER: plain[j] =
 * indexed[j + index[j] * stride]; SCATTER: the other way, in the order of j. */
#define MOVE_N(name, S)                                                                            \
  static void name(const move_job *job, char *plain, int64_t sp, char *indexed, int64_t sx,        \
                   const char *index, int64_t si, int64_t n) {                                     \
    int64_t size = job->dim_size, stride = job->dim_stride * S; /* in bytes */                     \
    if (!job->scatter && sp == 1 && si == 1 && sx == 0) { /* index_select along the inner dim */   \
      /* random reads beyond the caches: asking early for the element PREFETCH_AHEAD places on     \
       * hides their misses (within the caches it only costs) */                                   \
      int64_t j = 0;                                                                               \
      bool far = size * stride > PREFETCH_BYTES;                                                   \
      for (; far && j + PREFETCH_AHEAD < n; j++) {                                                 \
        __builtin_prefetch(indexed +                                                               \
                           zero_based(index_at(index + (j + PREFETCH_AHEAD) * 8), size) * stride); \
        memcpy(plain + j * S, indexed + zero_based(index_at(index + j * 8), size) * stride, S);    \
      }                                                                                            \
      for (; j < n; j++)                                                                           \
        memcpy(plain + j * S, indexed + zero_based(index_at(index + j * 8), size) * stride, S);    \
    } else if (!job->scatter) {                                                                    \
      for (int64_t j = 0; j < n; j++)                                                              \
        memcpy(plain + j * sp * S,                                                                 \
               indexed + j * sx * S + zero_based(index_at(index + j * si * 8), size) * stride, S); \
    } else {                                                                                       \
      for (int64_t j = 0; j < n; j++)                                                              \
        memcpy(indexed + j * sx * S + zero_based(index_at(index + j * si * 8), size) * stride,     \
               plain + j * sp * S, S);                                                             \
    }                                                                                              \
  }
MOVE_N(move_n1, 1)
MOVE_N(move_n2, 2)
MOVE_N(move_n4, 4)
MOVE_N(move_n8, 8)
MOVE_N(move_n16, 16)
#undef MOVE_N

/* SCATTER_ADD's loops for the dtypes whose addition `add` (add_of's) the compiler inlines into
 * them: integers add as unsigned (they wrap; signed and unsigned give the same bits), float32 and
 * float64 as themselves. In the order of j. */
#define ADD_N(name, S, add)                                                                        \
  static void name(const move_job *job, char *plain, int64_t sp, char *indexed, int64_t sx,        \
                   const char *index, int64_t si, int64_t n) {                                     \
    int64_t size = job->dim_size, stride = job->dim_stride * S;                                    \
    if (si == 0) { /* one index for the row */                                                     \
      char *at = indexed + zero_based(index_at(index), size) * stride;                             \
      for (int64_t j = 0; j < n; j++) add(at + j * sx * S, plain + j * sp * S);                    \
    } else {                                                                                       \
      for (int64_t j = 0; j < n; j++)                                                              \
        add(indexed + j * sx * S + zero_based(index_at(index + j * si * 8), size) * stride,        \
            plain + j * sp * S);                                                                   \
    }                                                                                              \
  }
ADD_N(add_n1, 1, add_u8)
ADD_N(add_n2, 2, add_u16)
ADD_N(add_n4, 4, add_u32)
ADD_N(add_n8, 8, add_u64)
ADD_N(add_float32, 4, add_f32)
ADD_N(add_float64, 8, add_f64)
#undef ADD_N

/* SCATTER_ADD's typed loop for dtype; NULL for the others (add_of's, element by element). */
static move_loop add_loop_of(dlx_dtype dtype) {
  switch (dtype) {
  case DLX_INT8:
  case DLX_UINT8:
    return add_n1;
  case DLX_INT16:
  case DLX_UINT16:
    return add_n2;
  case DLX_INT32:
  case DLX_UINT32:
    return add_n4;
  case DLX_INT64:
  case DLX_UINT64:
    return add_n8;
  case DLX_FLOAT32:
    return add_float32;
  case DLX_FLOAT64:
    return add_float64;
  default:
    return NULL;
  }
}

/* The loop for any element size, and SCATTER_ADD's for the dtypes without a typed loop. */
static void move_bytes(const move_job *job, char *plain, int64_t sp, char *indexed, int64_t sx,
                       const char *index, int64_t si, int64_t n) {
  int64_t size = (int64_t)job->size;
  for (int64_t j = 0; j < n; j++) {
    int64_t i = zero_based(index_at(index + j * si * 8), job->dim_size);
    char *at = indexed + (j * sx + i * job->dim_stride) * size;
    char *here = plain + j * sp * size;
    if (job->add != NULL)
      job->add(at, here);
    else if (job->scatter)
      memcpy(at, here, job->size);
    else
      memcpy(here, at, job->size);
  }
}

static void move_segment(void *ctx, const walk *w, int64_t j0, int64_t n) {
  const move_job *job = ctx;
  int64_t size = (int64_t)job->size;
  int64_t sp = inner_stride(w, 0), sx = inner_stride(w, 1), si = inner_stride(w, 2);
  char *plain = job->plain + (w->pos[0] + j0 * sp) * size;
  char *indexed = job->indexed + (w->pos[1] + j0 * sx) * size;
  const char *index = job->index + (w->pos[2] + j0 * si) * 8;
  if (si == 0 && job->add == NULL) { /* one index for the row: a strided copy (whole rows) */
    char *at = indexed + zero_based(index_at(index), job->dim_size) * job->dim_stride * size;
    if (job->scatter && sx == 0) /* every element to one place: the last one wins */
      copy_strided(at, 1, plain + (n - 1) * sp * size, 1, 1, job->size);
    else if (job->scatter)
      copy_strided(at, sx, plain, sp, n, job->size);
    else
      copy_strided(plain, sp, at, sx, n, job->size);
    return;
  }
  if (job->add_loop != NULL) {
    job->add_loop(job, plain, sp, indexed, sx, index, si, n);
    return;
  }
  if (job->add != NULL) {
    move_bytes(job, plain, sp, indexed, sx, index, si, n);
    return;
  }
  switch (job->size) {
  case 1:
    move_n1(job, plain, sp, indexed, sx, index, si, n);
    return;
  case 2:
    move_n2(job, plain, sp, indexed, sx, index, si, n);
    return;
  case 4:
    move_n4(job, plain, sp, indexed, sx, index, si, n);
    return;
  case 8:
    move_n8(job, plain, sp, indexed, sx, index, si, n);
    return;
  case 16:
    move_n16(job, plain, sp, indexed, sx, index, si, n);
    return;
  default:
    move_bytes(job, plain, sp, indexed, sx, index, si, n);
  }
}

/* Walks [begin, end) of the split dim, row by row. */
static void move_range(void *ctx, int64_t begin, int64_t end) {
  const move_job *job = ctx;
  walk w = job->w;
  walk_restrict(&w, job->split, begin, end);
  do {
    move_segment(ctx, &w, 0, rows_inner(&w));
  } while (walk_next(&w));
}

/* Whether the indexed tensor of a scatter (the walk's operand 1 with dim's real stride and size)
 * has no two elements at one address, so that its lines along dim are apart: sorted by stride,
 * each dim steps past everything the smaller ones span. */
static bool scatter_target_apart(const dlx_index_request *r, const walk *w) {
  int64_t strides[DLX_MAX_NDIM], sizes[DLX_MAX_NDIM], span = 0;
  int count = 0;
  for (int32_t d = 0; d < w->ndim; d++) {
    int64_t size = d == r->dim ? r->size : w->shape[d];
    int64_t stride = d == r->dim ? r->stride : w->strides[1][d];
    if (size < 2) continue;
    int at = count++;
    for (; at > 0 && strides[at - 1] > llabs(stride); at--) {
      strides[at] = strides[at - 1];
      sizes[at] = sizes[at - 1];
    }
    strides[at] = llabs(stride);
    sizes[at] = size;
  }
  for (int k = 0; k < count; k++) {
    if (strides[k] <= span) return false;
    span += strides[k] * (sizes[k] - 1);
  }
  return true;
}

/* The dim the threads share out: the largest one (the outermost of equals), dim excepted for the
 * scatters; -1 when a scatter must stay on one thread. */
static int32_t split_dim(const dlx_index_request *r, const walk *w, bool scatter) {
  int32_t best = -1;
  if (scatter && !scatter_target_apart(r, w)) return -1;
  for (int32_t d = 0; d < w->ndim; d++) {
    if (scatter && d == r->dim) continue;
    if (best < 0 || w->shape[d] > w->shape[best]) best = d;
  }
  return best;
}

static int move(const dlx_index_request *r, bool scatter, bool accumulate) {
  move_job job;
  const dlx_tensor *plain = scatter ? r->src : r->dst, *indexed = scatter ? r->dst : r->src;
  const dlx_tensor *ops[3] = {plain, indexed, r->index};
  walk_init(&job.w, scatter ? r->index : r->dst, 3, ops);
  job.plain = base_of(plain);
  job.indexed = base_of(indexed);
  job.index = base_of(r->index);
  job.size = element_size(r->dst);
  job.dim_size = r->size;
  job.dim_stride = r->stride;
  job.scatter = scatter;
  job.add = accumulate ? add_of(r->dst->dtype) : NULL;
  job.add_loop = accumulate ? add_loop_of(r->dst->dtype) : NULL;
  /* small work stays on this thread without asking the pool */
  bool small = walk_numel(&job.w) * (int64_t)(2 * job.size + 8) < 2 * DLX_CPU_GRAIN_BYTES;
  job.split = small ? -1 : split_dim(r, &job.w, scatter);
  if (job.split < 0) { /* one thread: the whole walk as one range of its first dim */
    job.split = 0;
    move_range(&job, 0, job.w.shape[0]);
    return 0;
  }
  int64_t slice = walk_numel(&job.w) / job.w.shape[job.split];
  int64_t grain = dlx_cpu_grain_items(slice * (int64_t)(2 * job.size + 8));
  /* split along the inner dim, a block's rows should stay long enough to stream */
  if (job.split == job.w.ndim - 1 && job.w.ndim > 1 && grain < MIN_INNER_BLOCK)
    grain = MIN_INNER_BLOCK;
  dlx_cpu_parallel_for(job.w.shape[job.split], grain, move_range, &job);
  return 0;
}

/* ---- Chunked ops: CHECK, COUNT, MASKED_SELECT, MASKED_SCATTER, NONZERO -------------------- */

typedef struct chunk_job {
  const dlx_index_request *r;
  walk w; /* over the mask or index (operand 0), with the other operand as 1 */
  int64_t numel;
  int64_t chunks;
  int64_t chunk;             /* elements per chunk */
  int64_t *starts;           /* per chunk: its true count, then (after the scan) its first output */
  int64_t few[LOCAL_CHUNKS]; /* the starts of a few chunks, without an allocation */
  int64_t total;             /* the true elements: the output's length */
  char *dst, *src;
  const uint8_t *mask;
  size_t size;
  int64_t src_step; /* MASKED_SCATTER: src's stride in bytes */
  _Atomic int bad;  /* CHECK: an index out of range was seen */
} chunk_job;

/* The running state of one chunk as its segments go by. */
typedef struct chunk_state {
  chunk_job *job;
  int64_t out;   /* the next output position */
  int64_t limit; /* where this chunk's output ends */
  int64_t count;
  bool bad;
} chunk_state;

/* Runs fn over the chunks [begin, end): a pass that counts (true elements into job->starts,
 * when there, or bad indices into job->bad), or one that writes from where the scanned
 * job->starts say. */
static void for_each_chunk(chunk_job *job, int64_t begin, int64_t end, segment_fn fn,
                           bool counting) {
  for (int64_t c = begin; c < end; c++) {
    chunk_state st = {job, 0, 0, 0, false};
    int64_t first = c * job->chunk, last = first + job->chunk;
    if (!counting) {
      st.out = job->starts[c];
      st.limit = c + 1 < job->chunks ? job->starts[c + 1] : job->total;
    }
    walk_range(job->w, first, last < job->numel ? last : job->numel, fn, &st);
    if (counting && job->starts != NULL) job->starts[c] = st.count;
    if (st.bad) atomic_store_explicit(&job->bad, 1, memory_order_relaxed);
  }
}

static void count_segment(void *ctx, const walk *w, int64_t j0, int64_t n) {
  chunk_state *st = ctx;
  int64_t sm = inner_stride(w, 0), count = 0;
  const uint8_t *mask = st->job->mask + w->pos[0] + j0 * sm;
  if (sm == 0) {
    count = mask[0] != 0 ? n : 0;
  } else if (sm == 1) {
    for (int64_t j = 0; j < n; j++) count += mask[j] != 0;
  } else {
    for (int64_t j = 0; j < n; j++) count += mask[j * sm] != 0;
  }
  st->count += count;
}

static void check_segment(void *ctx, const walk *w, int64_t j0, int64_t n) {
  chunk_state *st = ctx;
  int64_t si = inner_stride(w, 0), size = st->job->r->size;
  const char *index = st->job->src + (w->pos[0] + j0 * si) * 8;
  bool ok = true;
  if (si == 1) {
    for (int64_t j = 0; j < n; j++) ok &= in_range(index_at(index + j * 8), size);
  } else {
    for (int64_t j = 0; j < n; j++) ok &= in_range(index_at(index + j * si * 8), size);
  }
  st->bad |= !ok;
}

static void chunks_count(void *ctx, int64_t begin, int64_t end) {
  chunk_job *job = ctx;
  for_each_chunk(job, begin, end, job->r->op == DLX_INDEX_CHECK ? check_segment : count_segment,
                 true);
}

static segment_fn writer_of(dlx_index_op op);

static void chunks_write(void *ctx, int64_t begin, int64_t end) {
  chunk_job *job = ctx;
  for_each_chunk(job, begin, end, writer_of(job->r->op), false);
}

static void run_chunks(chunk_job *job, dlx_cpu_range_fn fn) {
  if (job->chunks == 1) {
    fn(job, 0, 1);
    return;
  }
  dlx_cpu_parallel_for(job->chunks, dlx_cpu_grain_items(job->chunk * (int64_t)(job->size + 1)), fn,
                       job);
}

static void chunk_job_init(chunk_job *job, const dlx_index_request *r, const dlx_tensor *shape_of,
                           const dlx_tensor *other) {
  const dlx_tensor *ops[2] = {r->index, other != NULL ? other : r->index};
  job->r = r;
  job->starts = NULL;
  job->dst = job->src = NULL;
  job->size = 0;
  job->src_step = 0;
  job->total = 0;
  walk_init(&job->w, shape_of, 2, ops);
  job->numel = walk_numel(&job->w);
  job->chunk = CHUNK;
  job->chunks = (job->numel + job->chunk - 1) / job->chunk;
  job->mask = (const uint8_t *)base_of(r->index);
  atomic_init(&job->bad, 0);
}

static int alloc_starts(chunk_job *job, dlx_error *err) {
  job->starts =
      job->chunks <= LOCAL_CHUNKS ? job->few : malloc((size_t)job->chunks * sizeof *job->starts);
  if (job->starts == NULL)
    return dlx_fail(err, DLX_MEMORY_ERROR, "out of memory for %lld chunk counts",
                    (long long)job->chunks);
  return 0;
}

static void free_starts(chunk_job *job) {
  if (job->starts != job->few) free(job->starts);
}

/* Counts each chunk's true elements into job->starts and scans them into first outputs. */
static void scan_chunks(chunk_job *job) {
  int64_t total = 0;
  if (job->chunks == 1) { /* one chunk starts at 0: no need to count it */
    job->starts[0] = 0;
    return;
  }
  run_chunks(job, chunks_count);
  for (int64_t c = 0; c < job->chunks; c++) {
    int64_t count = job->starts[c];
    job->starts[c] = total;
    total += count;
  }
}

static int check_indices(const dlx_index_request *r, dlx_error *err) {
  chunk_job job;
  chunk_job_init(&job, r, r->index, NULL);
  job.src = base_of(r->index);
  job.size = 8;
  run_chunks(&job, chunks_count);
  if (!atomic_load(&job.bad)) return 0;
  /* find the first bad one (row-major) on this thread */
  walk w = job.w;
  do {
    int64_t n = rows_inner(&w), s = inner_stride(&w, 0);
    for (int64_t j = 0; j < n; j++) {
      int64_t i = index_at(job.src + (w.pos[0] + j * s) * 8);
      if (in_range(i, r->size)) continue;
      return dlx_index_out_of_range(err, i, r->dim, r->size);
    }
  } while (walk_next(&w));
  return 0;
}

static int count_true(dlx_index_request *r, dlx_error *err) {
  chunk_job job;
  chunk_job_init(&job, r, r->index, NULL);
  job.size = 0;
  int rc = alloc_starts(&job, err);
  if (rc != 0) return rc;
  run_chunks(&job, chunks_count);
  r->count = 0;
  for (int64_t c = 0; c < job.chunks; c++) r->count += job.starts[c];
  free_starts(&job);
  return 0;
}

/* MASKED_SELECT: operand 0 the mask, 1 src. Writes every element and moves on over the true
 * ones (no branch to mispredict), up to the chunk's last true one. */
#define SELECT_N(name, S)                                                                          \
  static int64_t name(char *dst, int64_t out, int64_t limit, const char *src, int64_t ss,          \
                      const uint8_t *mask, int64_t sm, int64_t n) {                                \
    for (int64_t j = 0; j < n && out < limit; j++) {                                               \
      memcpy(dst + out * S, src + j * ss * S, S);                                                  \
      out += mask[j * sm] != 0;                                                                    \
    }                                                                                              \
    return out;                                                                                    \
  }
SELECT_N(select_n1, 1)
SELECT_N(select_n2, 2)
SELECT_N(select_n4, 4)
SELECT_N(select_n8, 8)
SELECT_N(select_n16, 16)
#undef SELECT_N

static void select_segment(void *ctx, const walk *w, int64_t j0, int64_t n) {
  chunk_state *st = ctx;
  const chunk_job *job = st->job;
  int64_t sm = inner_stride(w, 0), ss = inner_stride(w, 1), size = (int64_t)job->size;
  const uint8_t *mask = job->mask + w->pos[0] + j0 * sm;
  const char *src = job->src + (w->pos[1] + j0 * ss) * size;
  if (sm == 0) { /* one mask element for the row (a broadcast mask): all of it or nothing */
    if (mask[0] == 0) return;
    copy_strided(job->dst + st->out * size, 1, src, ss, n, job->size);
    st->out += n;
    return;
  }
  switch (job->size) {
#define SELECT_CASE(bytes, fn)                                                                     \
  case bytes:                                                                                      \
    st->out = fn(job->dst, st->out, st->limit, src, ss, mask, sm, n);                              \
    return;
    SELECT_CASE(1, select_n1)
    SELECT_CASE(2, select_n2)
    SELECT_CASE(4, select_n4)
    SELECT_CASE(8, select_n8)
    SELECT_CASE(16, select_n16)
#undef SELECT_CASE
  default:
    for (int64_t j = 0; j < n; j++) {
      if (mask[j * sm] == 0) continue;
      memcpy(job->dst + st->out * size, src + j * ss * size, job->size);
      st->out++;
    }
  }
}

/* MASKED_SCATTER: operand 0 the mask, 1 dst; the k-th true element takes src[k] (src's stride
 * in elements, 0 for a fill). Returns the next k. */
#define PLACE_N(name, S)                                                                           \
  static int64_t name(char *dst, int64_t sd, const char *src, int64_t step, int64_t out,           \
                      const uint8_t *mask, int64_t sm, int64_t n) {                                \
    for (int64_t j = 0; j < n; j++) {                                                              \
      if (mask[j * sm] == 0) continue;                                                             \
      memcpy(dst + j * sd * S, src + out * step * S, S);                                           \
      out++;                                                                                       \
    }                                                                                              \
    return out;                                                                                    \
  }
PLACE_N(place_n1, 1)
PLACE_N(place_n2, 2)
PLACE_N(place_n4, 4)
PLACE_N(place_n8, 8)
PLACE_N(place_n16, 16)
#undef PLACE_N

static void scatter_segment(void *ctx, const walk *w, int64_t j0, int64_t n) {
  chunk_state *st = ctx;
  const chunk_job *job = st->job;
  int64_t sm = inner_stride(w, 0), sd = inner_stride(w, 1), size = (int64_t)job->size;
  int64_t step = job->src_step / size;
  const uint8_t *mask = job->mask + w->pos[0] + j0 * sm;
  char *dst = job->dst + (w->pos[1] + j0 * sd) * size;
  switch (job->size) {
#define PLACE_CASE(bytes, fn)                                                                      \
  case bytes:                                                                                      \
    st->out = fn(dst, sd, job->src, step, st->out, mask, sm, n);                                   \
    return;
    PLACE_CASE(1, place_n1)
    PLACE_CASE(2, place_n2)
    PLACE_CASE(4, place_n4)
    PLACE_CASE(8, place_n8)
    PLACE_CASE(16, place_n16)
#undef PLACE_CASE
  default:
    for (int64_t j = 0; j < n; j++) {
      if (mask[j * sm] == 0) continue;
      memcpy(dst + j * sd * size, job->src + st->out * job->src_step, job->size);
      st->out++;
    }
  }
}

/* NONZERO: the 1-based coordinates of each true element. The counters live in locals, which the
 * stores cannot alias. */
static void nonzero_segment(void *ctx, const walk *w, int64_t j0, int64_t n) {
  chunk_state *st = ctx;
  const chunk_job *job = st->job;
  int64_t sm = inner_stride(w, 0), found = 0, outer[DLX_MAX_NDIM];
  int32_t ndim = job->r->index->ndim;
  const uint8_t *mask = job->mask + w->pos[0] + j0 * sm;
  char *dst = job->dst + st->out * ndim * 8;
  for (int32_t d = 0; d + 1 < ndim; d++) outer[d] = w->coord[d] + 1;
  for (int64_t j = 0; j < n; j++) {
    if (mask[j * sm] == 0) continue;
    int64_t last = j0 + j + 1;
    for (int32_t d = 0; d + 1 < ndim; d++) memcpy(dst + d * 8, &outer[d], 8);
    memcpy(dst + (ndim - 1) * 8, &last, 8);
    dst += ndim * 8;
    found++;
  }
  st->out += found;
}

static segment_fn writer_of(dlx_index_op op) {
  return op == DLX_INDEX_MASKED_SELECT    ? select_segment
         : op == DLX_INDEX_MASKED_SCATTER ? scatter_segment
                                          : nonzero_segment;
}

/* The ops that write at the running count of true elements: count, scan, write. The total
 * is the output's length: MASKED_SCATTER's src, the others' dst. */
static int write_chunks(const dlx_index_request *r, const dlx_tensor *other, dlx_error *err) {
  chunk_job job;
  chunk_job_init(&job, r, r->index, other);
  job.dst = base_of(r->dst);
  job.src = r->src != NULL ? base_of(r->src) : NULL;
  job.size = element_size(r->op == DLX_INDEX_NONZERO ? r->index : r->dst);
  job.total = r->op == DLX_INDEX_MASKED_SCATTER ? r->src->shape[0] : r->dst->shape[0];
  if (r->op == DLX_INDEX_MASKED_SCATTER) job.src_step = r->src->strides[0] * (int64_t)job.size;
  int rc = alloc_starts(&job, err);
  if (rc != 0) return rc;
  scan_chunks(&job);
  run_chunks(&job, chunks_write);
  free_starts(&job);
  return 0;
}

int dlx_cpu_index_op(dlx_index_request *r, dlx_error *err) {
  switch (r->op) {
  case DLX_INDEX_CHECK:
    return check_indices(r, err);
  case DLX_INDEX_GATHER:
    return move(r, false, false);
  case DLX_INDEX_SCATTER:
    return move(r, true, false);
  case DLX_INDEX_SCATTER_ADD:
    return move(r, true, true);
  case DLX_INDEX_MASKED_SELECT:
    return write_chunks(r, r->src, err);
  case DLX_INDEX_MASKED_SCATTER:
    return write_chunks(r, r->dst, err);
  case DLX_INDEX_NONZERO:
    return write_chunks(r, NULL, err);
  case DLX_INDEX_COUNT:
    return count_true(r, err);
  }
  return dlx_fail(err, DLX_VALUE_ERROR, "unknown indexing op %d", (int)r->op);
}
