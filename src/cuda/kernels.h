/* kernels.h -- the C interface of the CUDA kernels (the .cu files of src/cuda), shared by the C11
 * host code of the backend and the CUDA C++ of the kernels. Every launcher queues work on `stream`
 * of the current device and returns a cudaError_t value (0 when the launch was accepted). */
#ifndef DLX_CUDA_KERNELS_H
#define DLX_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DLX_CUDA_MAX_DIMS 32 /* DLX_MAX_NDIM */

/* The computable dtypes, in the order of dlx_dtype (src/core/dtype.h), so the C side passes a
 * dlx_dtype value as is; the kernels never see storage-only dtypes. */
enum {
  DLX_CUDA_BOOL,
  DLX_CUDA_INT8,
  DLX_CUDA_INT16,
  DLX_CUDA_INT32,
  DLX_CUDA_INT64,
  DLX_CUDA_UINT8,
  DLX_CUDA_UINT16,
  DLX_CUDA_UINT32,
  DLX_CUDA_UINT64,
  DLX_CUDA_FLOAT16,
  DLX_CUDA_BFLOAT16,
  DLX_CUDA_FLOAT32,
  DLX_CUDA_FLOAT64,
  DLX_CUDA_COMPLEX64,
  DLX_CUDA_COMPLEX128
};

/* An element-wise loop over `ndim` dims; strides in elements, any sign; the pointers given
 * with it point at element 0 of each side. */
typedef struct dlx_cuda_layout {
  int32_t ndim;
  int64_t shape[DLX_CUDA_MAX_DIMS];
  int64_t dst_strides[DLX_CUDA_MAX_DIMS];
  int64_t src_strides[DLX_CUDA_MAX_DIMS];
} dlx_cuda_layout;

/* dst = src for elements of elem_size bytes (1, 2, 4, 8 or 16), any layout. */
int dlx_cuda_strided_copy(void *dst, const void *src, const dlx_cuda_layout *layout, int64_t numel,
                          int elem_size, void *stream);

/* A batch of 2-d transposes, the layout having been reordered so that:
 * dim ndim-1 (`a`) has dst stride 1 and dim `c` has src stride 1; the other dims are the batch.
 * Tiles of a x c go through shared memory so that both sides are read and written in rows. */
int dlx_cuda_transpose_copy(void *dst, const void *src, const dlx_cuda_layout *layout, int32_t c,
                            int elem_size, void *stream);

/* dst = cast(src) with the casting rules of backend.h, computable dtypes only. */
int dlx_cuda_cast_copy(void *dst, int dst_dtype, const void *src, int src_dtype,
                       const dlx_cuda_layout *layout, int64_t numel, void *stream);

/* Every element of dst (layout's dst_strides) = the elem_size bytes of `pattern`. */
int dlx_cuda_fill(void *dst, const dlx_cuda_layout *layout, int64_t numel, const void *pattern,
                  int elem_size, void *stream);

/* A kernel that keeps the device busy for about `cycles` clock cycles: lets tests leave work
 * running on a stream to check that what follows is ordered after it. */
int dlx_cuda_spin(int64_t cycles, void *stream);

/* Reductions (op: a dlx_reduce_op value; MEAN is a sum divided by the extent). src is
 * C-contiguous with shape [outer, extent, inner]; dst gets the outer x inner results, C order,
 * in dst_dtype (the reduction's result dtype). Arg reductions give 1-based positions within the
 * extent. */
int dlx_cuda_reduce(int op, const void *src, int src_dtype, int64_t outer, int64_t extent,
                    int64_t inner, void *dst, int dst_dtype, void *stream);

/* An elementwise op (src/common/elementwise_ops.h): dst = op(in[0], ..) over its nin inputs and
 * one shape, strides in elements, any sign (0 for broadcast inputs). in[k] NULL: the input is
 * value[k], already in its kernel dtype. Inputs are cast from in_dtype[k] to their kernel dtype
 * (dlx_ewk_input_dtype: kdtype, or bool for where's condition) on load, the result (kout, op's
 * result in kdtype) to dst_dtype on store. */
#define DLX_CUDA_EW_INPUTS 4
typedef struct dlx_cuda_ew_params {
  int op; /* enum dlx_ewk_op */
  int nin;
  int kdtype; /* enum dlx_ewk_dtype */
  int kout;
  int dst_dtype;
  int in_dtype[DLX_CUDA_EW_INPUTS];
  int32_t ndim;
  int64_t numel;
  int64_t shape[DLX_CUDA_MAX_DIMS];
  int64_t dst_strides[DLX_CUDA_MAX_DIMS];
  int64_t in_strides[DLX_CUDA_EW_INPUTS][DLX_CUDA_MAX_DIMS];
  void *dst;
  const void *in[DLX_CUDA_EW_INPUTS];
  double value[DLX_CUDA_EW_INPUTS][2]; /* 16 bytes each, aligned for every kernel dtype */
} dlx_cuda_ew_params;

/* Contiguous operands of the kernel dtype (and dst of kout) take vectorised kernels, any other
 * request one strided kernel that casts on load and store. */
int dlx_cuda_elementwise(const dlx_cuda_ew_params *p, void *stream);

/* var, std, logsumexp and norm (kind: a DLX_STAT_K_* of src/common/stats_ops.h; param: the
 * correction of var and std) of src, C-contiguous [outer, extent, inner], over the extent, into
 * dst: outer x inner results, C order, of dst_dtype. The work is split as stats_plan.h chose:
 * - WARP_ROWS (inner 1, short rows): a warp per row;
 * - BLOCK_ROWS (inner 1): a block per piece of part_len elements of a row, `parts` pieces a row;
 * - COLUMNS: a thread per column, the extent cut into `parts` pieces of part_len rows;
 * with parts > 1, the pieces' partials meet in a second kernel, always in the same order. */
#define DLX_CUDA_STAT_THREADS 256
enum { DLX_CUDA_STAT_WARP_ROWS, DLX_CUDA_STAT_BLOCK_ROWS, DLX_CUDA_STAT_COLUMNS };
typedef struct dlx_cuda_stat_request {
  int kind;
  double param;
  const void *src;
  int src_dtype;
  void *dst;
  int dst_dtype;
  int64_t outer, extent, inner;
  int mode;
  int64_t parts, part_len;
} dlx_cuda_stat_request;
int dlx_cuda_reduce_stat(const dlx_cuda_stat_request *r, void *stream);

/* An op along a dim (op: a dlx_dim_op value) of src, C-contiguous [outer, len, inner] (len >= 1),
 * into dst (C-contiguous, same shape, dst_dtype): each line (o, k) on its own. THREAD: a thread
 * per line, in order (the lines of a row side by side, so reads are coalesced when inner > 1);
 * BLOCK (inner 1 only): a block per line, with CUB's block scan and reductions. */
enum { DLX_CUDA_LINE_THREAD, DLX_CUDA_LINE_BLOCK, DLX_CUDA_LINE_TRANSPOSE };
typedef struct dlx_cuda_line_request {
  int op;
  const void *src;
  int src_dtype;
  void *dst;
  int dst_dtype;
  int64_t outer, len, inner;
  int mode;
} dlx_cuda_line_request;
int dlx_cuda_along_dim(const dlx_cuda_line_request *r, void *stream);

/* Random numbers (a fill_random request, src/core/backend.h): dst is C-contiguous, n elements of
 * dtype; block b of Philox gives elements b * lanes .. (random_element.h, over philox.h and
 * distributions.h; POISSON: lanes 1, a counter per element). pa and pb: the elements'
 * parameters (float64, n each), or NULL for the numbers a and b. */
typedef struct dlx_cuda_random_request {
  void *dst;
  int dtype;
  int kind;  /* DLX_RNG_* */
  int lanes; /* elements per block */
  int bits;  /* float dtypes: random bits of a uniform */
  int64_t n;
  uint64_t seed, offset;
  double a, b;
  const double *pa, *pb;
  int64_t low;
  uint64_t range;
} dlx_cuda_random_request;
int dlx_cuda_fill_random(const dlx_cuda_random_request *r, void *stream);

/* Multinomial draws (src/core/backend.h, multinomial): a thread per row of the C-contiguous
 * [rows, k] weights (float32, or float64 when is64) computes dlx_mn_row of
 * src/common/distributions.h into status[r] and out[r * n ..], with row r's scratch at
 * scratch + r * (replacement ? k : n). */
typedef struct dlx_cuda_multinomial_request {
  const void *weights;
  int64_t *out, *status;
  double *scratch;
  int64_t rows, k, n;
  int replacement, is64;
  uint64_t seed, offset;
} dlx_cuda_multinomial_request;
int dlx_cuda_multinomial(const dlx_cuda_multinomial_request *r, void *stream);

/* A stable sort of each row (sort_rows, src/core/backend.h): src, values (elem_size bytes an
 * element) and indices (int64, 1-based) are C-contiguous [rows, n]; key_kind is a DLX_SORT_KEY_*
 * of src/common/sort_keys.h. */
typedef struct dlx_cuda_sort_request {
  const void *src;
  void *values;
  int64_t *indices;
  int elem_size;
  int key_kind;
  int descending;
  int64_t rows, n;
} dlx_cuda_sort_request;
int dlx_cuda_sort_rows(const dlx_cuda_sort_request *r, void *stream);

/* The scans of row_op (src/core/backend.h) on C-contiguous [rows, n] src: op is DLX_ROW_CUMMAX,
 * DLX_ROW_CUMMIN or DLX_ROW_LOGCUMSUMEXP (dlx_row_op's numbers); values (values_dtype: src's,
 * or LOGCUMSUMEXP's float dtype) and indices (int64, 1-based; NULL for LOGCUMSUMEXP) are
 * C-contiguous [rows, n]. Scanned by row with CUB (row_kernels.cu), the elements as
 * row_element.h makes them. */
#define DLX_CUDA_ROW_CUMMAX 6
#define DLX_CUDA_ROW_CUMMIN 7
#define DLX_CUDA_ROW_LOGCUMSUMEXP 8
typedef struct dlx_cuda_row_request {
  int op;
  int src_dtype, values_dtype;
  int key_kind; /* DLX_SORT_KEY_* of src/common/sort_keys.h */
  int is_float;
  int elem_size; /* bytes of a src element */
  const void *src;
  void *values;
  int64_t *indices;
  int64_t rows, n;
} dlx_cuda_row_request;
int dlx_cuda_row_scan(const dlx_cuda_row_request *r, void *stream);

/* image_op (src/core/backend.h) on C-contiguous [planes, in_h, in_w] src of float32 (is_double
 * 0) or float64 into C-contiguous [planes, out_h, out_w] dst (and indices, int64, MAX_POOL only,
 * or NULL): op is dlx_image_op's number; a thread per output element (image_kernels.cu) with the
 * element code of image_element.h over src/common/image_rules.h. */
#define DLX_CUDA_IMAGE_MAX_POOL 0
#define DLX_CUDA_IMAGE_AVG_POOL 1
#define DLX_CUDA_IMAGE_NEAREST 2
#define DLX_CUDA_IMAGE_BILINEAR 3
#define DLX_CUDA_IMAGE_BICUBIC 4
typedef struct dlx_cuda_image_request {
  int op;
  int is_double;
  const void *src;
  void *dst;
  int64_t *indices;
  int64_t planes, in_h, in_w, out_h, out_w;
  int64_t kernel[2], stride[2], padding[2], dilation[2]; /* pools: h, then w */
  int count_include_pad;
  int64_t divisor;
  int align_corners;
  double scale[2];
} dlx_cuda_image_request;
int dlx_cuda_image(const dlx_cuda_image_request *r, void *stream);
/* count_op (src/core/backend.h) of a dlx_count_request (count.c fills this from one): op is
 * DLX_COUNT_*'s number. The bin ops: src holds n elements (BINCOUNT: int64; LINEAR, EDGES:
 * float64 when is64, else float32), edges nbins + 1 of src's dtype (EDGES), weights NULL or n
 * float64; out nbins int64 counts (atomics on the bins of a block in shared memory when they fit,
 * else on out) or float64 sums of the weights (atomics in float64: in no set order). SEARCH: src
 * the values, [rows, m] of elem_size bytes of key_kind (src/common/sort_keys.h), edges the sorted
 * rows of n (one for all when shared_row), out int64 [rows, m]. The element code is
 * count_element.h's. */
#define DLX_CUDA_COUNT_BINCOUNT 0
#define DLX_CUDA_COUNT_LINEAR 1
#define DLX_CUDA_COUNT_EDGES 2
#define DLX_CUDA_COUNT_SEARCH 3
typedef struct dlx_cuda_count_request {
  int op;
  int is64;      /* LINEAR, EDGES */
  int uniform;   /* EDGES */
  int right;     /* SEARCH */
  int key_kind;  /* SEARCH: DLX_SORT_KEY_* */
  int elem_size; /* SEARCH: bytes of an element */
  int shared_row;
  const void *src, *edges;
  const double *weights;
  void *out;
  int64_t n, nbins, rows, m;
  double lo, hi; /* LINEAR */
} dlx_cuda_count_request;
int dlx_cuda_count(const dlx_cuda_count_request *r, void *stream);

/* Indexing (index_op, src/core/backend.h) over a walk of ndim >= 1 dims in row-major order:
 * each operand's strides in elements from its element 0 (all 0 for one the op does not walk).
 * indexing_plan.h builds it; indexing_element.h holds what a thread does with it. */
enum { DLX_CUDA_IX_DST, DLX_CUDA_IX_SRC, DLX_CUDA_IX_INDEX, DLX_CUDA_IX_OPERANDS };
/* The ops, in the order of dlx_index_op (src/core/backend.h). */
enum {
  DLX_CUDA_INDEX_CHECK,
  DLX_CUDA_INDEX_GATHER,
  DLX_CUDA_INDEX_SCATTER,
  DLX_CUDA_INDEX_SCATTER_ADD,
  DLX_CUDA_INDEX_MASKED_SELECT,
  DLX_CUDA_INDEX_MASKED_SCATTER,
  DLX_CUDA_INDEX_NONZERO,
  DLX_CUDA_INDEX_COUNT
};
typedef struct dlx_cuda_index_request {
  int op;        /* a dlx_index_op value */
  int dtype;     /* SCATTER_ADD: the dtype of dst and src */
  int elem_size; /* bytes of an element of dst and src */
  int32_t ndim;
  int32_t dim; /* SCATTER*: the dim the lines run along */
  int64_t numel;
  int64_t shape[DLX_CUDA_MAX_DIMS];
  int64_t strides[DLX_CUDA_IX_OPERANDS][DLX_CUDA_MAX_DIMS];
  int64_t size, stride; /* the indexed dim's size, and its stride in the indexed tensor */
  int64_t step;         /* MASKED_SCATTER: src's stride; NONZERO: dst's row (the mask's ndim) */
  void *dst;
  const void *src;
  const void *index; /* int64 indices or a bool mask */
} dlx_cuda_index_request;

/* CHECK: *first = the row-major position of the first bad index and *value that index, or
 * *first = numel when there is none. Waits for the stream. */
int dlx_cuda_index_check(const dlx_cuda_index_request *r, int64_t *first, int64_t *value,
                         void *stream);
/* GATHER (a thread per element), SCATTER and SCATTER_ADD (a thread per line along dim). */
int dlx_cuda_index_move(const dlx_cuda_index_request *r, void *stream);
/* COUNT: *count = the true mask elements; waits for the stream. */
int dlx_cuda_index_count(const dlx_cuda_index_request *r, int64_t *count, void *stream);
/* MASKED_SELECT, MASKED_SCATTER and NONZERO: the true mask elements counted per tile of
 * DLX_CUDA_INDEX_TILE elements, the counts scanned (CUB), then each tile written in order. */
#define DLX_CUDA_INDEX_THREADS 256
#define DLX_CUDA_INDEX_RUN 8 /* consecutive elements a thread takes */
#define DLX_CUDA_INDEX_TILE (DLX_CUDA_INDEX_THREADS * DLX_CUDA_INDEX_RUN)
int dlx_cuda_index_masked(const dlx_cuda_index_request *r, void *stream);

/* Scratch memory for the kernels (CUB's temporary storage, partial results): from the caching
 * allocator of the current device, for the given stream (allocator.c). */
void *dlx_cuda_scratch_alloc(size_t nbytes, void *stream);
void dlx_cuda_scratch_free(void *ptr, size_t nbytes, void *stream);

#ifdef __cplusplus
}
#endif

#endif
