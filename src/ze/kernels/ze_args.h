/* ze_args.h -- the argument blocks of the Level Zero kernels, shared by the OpenCL C kernels
 * (src/ze/kernels/dlx_kernels.cl), the host side that launches them (src/ze) and the test
 * driver's reference implementations (tests/ze_driver). Every field is 64 bits wide so that the
 * layout is the same in OpenCL C and in host C. Strides and offsets are in bytes. */
#ifndef DLX_ZE_ARGS_H
#define DLX_ZE_ARGS_H

#include "common/dtypes.h"

#ifdef __OPENCL_C_VERSION__
typedef long dlx_ze_i64;
typedef ulong dlx_ze_u64;
#else
#include <stdint.h>
typedef int64_t dlx_ze_i64;
typedef uint64_t dlx_ze_u64;
#endif

#define DLX_ZE_MAX_NDIM 32
/* Work-group size of every kernel (the reductions' local memory is sized by it). */
#define DLX_ZE_GROUP_SIZE 256

/* The kernels, by name. */
#define DLX_ZE_KERNEL_COPY_CAST "dlx_copy_cast"
#define DLX_ZE_KERNEL_COPY_RAW "dlx_copy_raw"
#define DLX_ZE_KERNEL_FILL "dlx_fill"
#define DLX_ZE_KERNEL_REDUCE_PARTIAL "dlx_reduce_partial"
#define DLX_ZE_KERNEL_REDUCE_FINISH "dlx_reduce_finish"
#define DLX_ZE_KERNEL_ELEMENTWISE "dlx_elementwise"
#define DLX_ZE_KERNEL_STAT_PARTIAL "dlx_stat_partial"
#define DLX_ZE_KERNEL_STAT_FINISH "dlx_stat_finish"
#define DLX_ZE_KERNEL_ALONG_DIM "dlx_along_dim"
#define DLX_ZE_KERNEL_FILL_RANDOM "dlx_fill_random"
#define DLX_ZE_KERNEL_MULTINOMIAL "dlx_multinomial"
#define DLX_ZE_KERNEL_SORT_ROWS "dlx_sort_rows"
#define DLX_ZE_KERNEL_INDEX "dlx_index"
#define DLX_ZE_KERNEL_MATMUL "dlx_matmul"
#define DLX_ZE_KERNEL_ROW_SCAN "dlx_row_scan"
#define DLX_ZE_KERNEL_IMAGE "dlx_image"
#define DLX_ZE_KERNEL_COUNT "dlx_count"

/* dlx_copy_cast(dst, src, args) and dlx_copy_raw(dst, src, args): element i of the row-major
 * walk over shape goes from src + sum(idx * src_strides) to dst + sum(idx * dst_strides). */
typedef struct dlx_ze_copy_args {
  dlx_ze_i64 n;         /* elements */
  dlx_ze_i64 ndim;      /* 0 .. DLX_ZE_MAX_NDIM */
  dlx_ze_i64 dst_dtype; /* dlx_dtype values (cast) */
  dlx_ze_i64 src_dtype;
  dlx_ze_i64 itemsize; /* bytes of one element (raw) */
  dlx_ze_i64 shape[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 dst_strides[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 src_strides[DLX_ZE_MAX_NDIM];
} dlx_ze_copy_args;

/* dlx_fill(dst, args): writes the itemsize bytes of value (already in dst's dtype) everywhere. */
typedef struct dlx_ze_fill_args {
  dlx_ze_i64 n;
  dlx_ze_i64 ndim;
  dlx_ze_i64 itemsize; /* 1, 2, 4, 8 or 16 */
  dlx_ze_u64 value[2];
  dlx_ze_i64 shape[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 strides[DLX_ZE_MAX_NDIM];
} dlx_ze_fill_args;

/* The reductions, numbered as dlx_reduce_op in src/core/backend.h (src/ze checks that they
 * agree; OpenCL C cannot include backend.h). */
#define DLX_ZE_OP_SUM 0
#define DLX_ZE_OP_PROD 1
#define DLX_ZE_OP_MEAN 2
#define DLX_ZE_OP_MIN 3
#define DLX_ZE_OP_MAX 4
#define DLX_ZE_OP_ARGMIN 5
#define DLX_ZE_OP_ARGMAX 6
#define DLX_ZE_OP_ALL 7
#define DLX_ZE_OP_ANY 8

/* A partial result of a reduction; which fields count depends on the op and dtype. */
typedef struct dlx_ze_acc {
  double re, im;    /* float sums, products, extremes; complex parts */
  dlx_ze_i64 i;     /* signed extremes; all/any flag */
  dlx_ze_u64 u;     /* unsigned extremes; wrapping integer sums and products */
  dlx_ze_i64 index; /* argmin/argmax: 0-based flat position over the reduced dims */
  dlx_ze_i64 has;   /* min/max/argmin/argmax: a value was taken */
} dlx_ze_acc;

/* dlx_reduce_partial(src, partials, args): work-group g reduces chunk (g % chunks) of output
 * (g / chunks) into partials[g]. dlx_reduce_finish(dst, partials, args): work-group o combines
 * partials[o * chunks ...] and writes output o (dst is C-contiguous). */
typedef struct dlx_ze_reduce_args {
  dlx_ze_i64 op; /* dlx_reduce_op */
  dlx_ze_i64 src_dtype;
  dlx_ze_i64 dst_dtype;
  dlx_ze_i64 n_out;     /* outputs */
  dlx_ze_i64 n_red;     /* reduced elements per output */
  dlx_ze_i64 chunks;    /* work-groups per output in the first pass */
  dlx_ze_i64 chunk_len; /* reduced elements per chunk */
  dlx_ze_i64 out_ndim;  /* kept dims, in order */
  dlx_ze_i64 red_ndim;  /* reduced dims, in order */
  dlx_ze_i64 out_shape[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 out_strides[DLX_ZE_MAX_NDIM]; /* src strides of the kept dims */
  dlx_ze_i64 red_shape[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 red_strides[DLX_ZE_MAX_NDIM]; /* src strides of the reduced dims */
} dlx_ze_reduce_args;

/* dlx_elementwise(dst, in0, in1, in2, in3, args): element i of the row-major walk over shape
 * is dst[i] = op(in0[i], ..) over the op's nin inputs, computed in kdtype by the shared element
 * functions (src/common/elementwise_ops.h). Each tensor input is cast from its dtype to its
 * kernel dtype (dlx_ewk_input_dtype: kdtype, or bool for where's condition) on load; a scalar
 * input is the bytes in scalar[k] (already of its kernel dtype) and its pointer is not read (the
 * host passes the argument block); the result (dtype kout) is cast to dst's dtype on store.
 * Inputs past nin are not read. */
#define DLX_ZE_EW_INPUTS 4
typedef struct dlx_ze_ew_args {
  dlx_ze_i64 n;
  dlx_ze_i64 ndim;
  dlx_ze_i64 op;     /* enum dlx_ewk_op */
  dlx_ze_i64 nin;    /* 1 to DLX_ZE_EW_INPUTS */
  dlx_ze_i64 kdtype; /* enum dlx_ewk_dtype (dlx_dtype values) */
  dlx_ze_i64 kout;   /* dtype of op's result in kdtype */
  dlx_ze_i64 dst_dtype;
  dlx_ze_i64 in_dtype[DLX_ZE_EW_INPUTS];
  dlx_ze_i64 in_scalar[DLX_ZE_EW_INPUTS]; /* 1: the input is scalar[k] */
  dlx_ze_u64 scalar[DLX_ZE_EW_INPUTS][2];
  dlx_ze_i64 shape[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 dst_strides[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 in_strides[DLX_ZE_EW_INPUTS][DLX_ZE_MAX_NDIM];
} dlx_ze_ew_args;

/* dlx_stat_partial(src, partials, args) and dlx_stat_finish(dst, partials, args): var, std,
 * logsumexp or norm, laid out as the reductions above; partials are dlx_stat_acc
 * (src/common/stats_ops.h), n_out * chunks of them. */
typedef struct dlx_ze_stat_args {
  dlx_ze_i64 kind; /* DLX_STAT_K_* of src/common/stats_ops.h */
  double param;    /* var and std: the correction */
  dlx_ze_i64 src_dtype;
  dlx_ze_i64 dst_dtype;
  dlx_ze_i64 n_out;
  dlx_ze_i64 n_red;
  dlx_ze_i64 chunks;
  dlx_ze_i64 chunk_len;
  dlx_ze_i64 out_ndim;
  dlx_ze_i64 red_ndim;
  dlx_ze_i64 out_shape[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 out_strides[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 red_shape[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 red_strides[DLX_ZE_MAX_NDIM];
} dlx_ze_stat_args;

/* The ops along a dim, numbered as dlx_dim_op in src/core/backend.h. */
#define DLX_ZE_DIM_CUMSUM 0
#define DLX_ZE_DIM_CUMPROD 1
#define DLX_ZE_DIM_SOFTMAX 2
#define DLX_ZE_DIM_LOG_SOFTMAX 3

/* dlx_along_dim(dst, src, args): op along each of `lines` lines of len elements; line i starts at
 * the row-major position i of the walk over outer_shape (the other dims), src_step and dst_step
 * bytes apart along the line. per_group 0: a work-item per line (grid-stride); 1: a work-group
 * per line, split into DLX_ZE_GROUP_SIZE pieces of equal length. */
typedef struct dlx_ze_dim_args {
  dlx_ze_i64 op; /* DLX_ZE_DIM_* */
  dlx_ze_i64 src_dtype;
  dlx_ze_i64 dst_dtype;
  dlx_ze_i64 lines;
  dlx_ze_i64 len;
  dlx_ze_i64 src_step;
  dlx_ze_i64 dst_step;
  dlx_ze_i64 per_group;
  dlx_ze_i64 outer_ndim;
  dlx_ze_i64 outer_shape[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 src_strides[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 dst_strides[DLX_ZE_MAX_NDIM];
} dlx_ze_dim_args;

/* dlx_fill_random(dst, pa, pb, args): dst (C-contiguous, n elements of dtype) gets the random
 * numbers of src/common/philox.h and distributions.h: block `offset + b` gives elements
 * b * lanes .. b * lanes + lanes - 1 (a work-item per block, grid-stride; POISSON: lanes 1,
 * counter offset + e for element e). The parameters of element e are pa[e] and pb[e] (float64)
 * where has_a and has_b say so, else the numbers a and b (the pointers are not read). */
typedef struct dlx_ze_random_args {
  dlx_ze_i64 n;
  dlx_ze_i64 kind;  /* DLX_RNG_* */
  dlx_ze_i64 dtype; /* a real dtype the kind fills (src/core/backend.h, fill_random) */
  dlx_ze_i64 lanes; /* elements per block: 4, 2 (two words each) or 1 (POISSON) */
  dlx_ze_i64 bits;  /* float dtypes: the random bits of a uniform */
  dlx_ze_u64 seed;
  dlx_ze_u64 offset;
  double a, b;
  dlx_ze_i64 has_a, has_b;
  dlx_ze_i64 low;
  dlx_ze_u64 range;
} dlx_ze_random_args;

/* dlx_multinomial(out, weights, status, scratch, args): a work-item per row of the C-contiguous
 * [rows, k] weights (float32, or float64 when is64), grid-stride, computing dlx_mn_row of
 * src/common/distributions.h into status[r] and out[r * n ..] (int64), with row r's scratch at
 * scratch + r * (replacement ? k : n) (float64). */
typedef struct dlx_ze_multinomial_args {
  dlx_ze_i64 rows, k, n;
  dlx_ze_i64 replacement;
  dlx_ze_i64 is64;
  dlx_ze_u64 seed, offset;
} dlx_ze_multinomial_args;

/* dlx_sort_rows(src, values, indices, keys, pos, args): a stable sort of the rows of src
 * (C-contiguous [rows, n] of itemsize bytes) by a bitonic sort of (key, position) pairs, whose
 * pairs are all different, so the order is unique: the CPU's. keys (ulong) and pos (long) are
 * scratch of rows * padded elements, padded the power of two >= n. Launched once per phase:
 * - KEYS: keys = src/common/sort_keys.h's key (complemented within its width when descending),
 *   pos = the position in the row; the padding gets the key ~0 and positions >= n, last;
 * - STEP: one compare-exchange step of the bitonic network, (k, j), for all rows;
 * - GATHER: values = the element at each sorted position, indices = the position + 1. */
#define DLX_ZE_SORT_KEYS 0
#define DLX_ZE_SORT_STEP 1
#define DLX_ZE_SORT_GATHER 2
typedef struct dlx_ze_sort_args {
  dlx_ze_i64 phase;
  dlx_ze_i64 key_kind; /* DLX_SORT_KEY_* */
  dlx_ze_i64 itemsize; /* 1, 2, 4 or 8 */
  dlx_ze_u64 flip;     /* XOR of the keys: 0, or the key width's ones when descending */
  dlx_ze_i64 rows;
  dlx_ze_i64 n;
  dlx_ze_i64 padded;
  dlx_ze_i64 k; /* STEP: the size of the bitonic sequences being merged */
  dlx_ze_i64 j; /* STEP: the distance of the pairs compared */
} dlx_ze_sort_args;

/* dlx_row_scan(values, indices, src, args): the scans of row_op (src/core/backend.h) on the rows
 * of src (C-contiguous [rows, n] of src_dtype), a work-item per row (grid-stride), with the
 * steps of src/common/row_scans.h in the CPU's order:
 * - CUMMAX, CUMMIN: values (src_dtype) = the element of the running extreme of the sort keys
 *   (key_kind; NaN when is_float and the key is the kind's largest), bit for bit, and indices
 *   (int64) its 1-based position in the row;
 * - LOGCUMSUMEXP: values (values_dtype, a float dtype) = the running log_add_exp of the elements
 *   in float64, rounded once; indices is not touched. */
#define DLX_ZE_ROW_CUMMAX 6
#define DLX_ZE_ROW_CUMMIN 7
#define DLX_ZE_ROW_LOGCUMSUMEXP 8
typedef struct dlx_ze_row_scan_args {
  dlx_ze_i64 op; /* DLX_ZE_ROW_* (dlx_row_op's numbers) */
  dlx_ze_i64 src_dtype;
  dlx_ze_i64 values_dtype;
  dlx_ze_i64 key_kind; /* DLX_SORT_KEY_* */
  dlx_ze_i64 is_float;
  dlx_ze_i64 rows;
  dlx_ze_i64 n;
} dlx_ze_row_scan_args;

/* dlx_image(dst, indices, src, args): image_op (src/core/backend.h) on C-contiguous
 * [planes, in_h, in_w] src of float32 (is_double 0) or float64 into C-contiguous
 * [planes, out_h, out_w] dst, and for MAX_POOL with has_indices the int64 1-based positions into
 * indices (else not touched), a work-item per output element (grid-stride) with the rules of
 * src/common/image_rules.h, so the max pools and resizes give the CPU's bits. */
#define DLX_ZE_IMAGE_MAX_POOL 0
#define DLX_ZE_IMAGE_AVG_POOL 1
#define DLX_ZE_IMAGE_NEAREST 2
#define DLX_ZE_IMAGE_BILINEAR 3
#define DLX_ZE_IMAGE_BICUBIC 4
typedef struct dlx_ze_image_args {
  dlx_ze_i64 op; /* DLX_ZE_IMAGE_* (dlx_image_op's numbers) */
  dlx_ze_i64 is_double;
  dlx_ze_i64 has_indices;
  dlx_ze_i64 planes, in_h, in_w, out_h, out_w;
  dlx_ze_i64 size[2], stride[2], padding[2], dilation[2]; /* pools (size: the kernel size): h, w */
  dlx_ze_i64 count_include_pad;
  dlx_ze_i64 divisor;
  dlx_ze_i64 align_corners;
  double scale[2]; /* resizes: the caller's scale factors, 0 when not given */
} dlx_ze_image_args;
/* dlx_count(out, src, edges, weights, args): count_op (src/core/backend.h) by the rules of
 * src/common/count_rules.h, a work-item per element (grid-stride), one phase per launch:
 * - ZERO: out's nbins 8-byte bins = 0;
 * - BINS: each of the n elements of src (op BINCOUNT: int64; LINEAR, EDGES: float64 when is64,
 *   else float32; EDGES between the nbins + 1 edges of src's dtype) adds 1 to its bin's int64
 *   count in out (32-bit atomics on its two words: exact), or with has_weights its float64
 *   weight to the bin's float64 sum, all on work-item 0 in element order (launch 1 group);
 * - SEARCH: out (int64 [rows, m]) = the 1-based position of each value of src ([rows, m] of
 *   key_kind, src/common/sort_keys.h) in its sorted row of edges (n elements; the one row for
 *   every value when shared_row).
 * Pointers the phase does not read may be any of the others. */
#define DLX_ZE_COUNT_ZERO 0
#define DLX_ZE_COUNT_BINS 1
#define DLX_ZE_COUNT_SEARCH 2
#define DLX_ZE_COUNT_OP_BINCOUNT 0 /* dlx_count_op's numbers */
#define DLX_ZE_COUNT_OP_LINEAR 1
#define DLX_ZE_COUNT_OP_EDGES 2
#define DLX_ZE_COUNT_OP_SEARCH 3
typedef struct dlx_ze_count_args {
  dlx_ze_i64 phase; /* DLX_ZE_COUNT_ZERO, _BINS or _SEARCH */
  dlx_ze_i64 op;    /* DLX_ZE_COUNT_OP_* */
  dlx_ze_i64 is64;
  dlx_ze_i64 uniform;
  dlx_ze_i64 has_weights;
  dlx_ze_i64 right;
  dlx_ze_i64 key_kind; /* DLX_SORT_KEY_* */
  dlx_ze_i64 shared_row;
  dlx_ze_i64 n; /* BINS: the elements; SEARCH: the sorted elements of a row */
  dlx_ze_i64 nbins;
  dlx_ze_i64 rows, m; /* SEARCH */
  double lo, hi;      /* LINEAR */
} dlx_ze_count_args;

/* dlx_index(dst, src, index, scratch, args): the indexing ops of src/core/backend.h
 * (dlx_index_request), one phase per launch. The walk is row-major over shape (ndim dims) with
 * the byte strides of dst, src and index (DLX_ZE_INDEX_DST/SRC/IDX). Indices are int64, 1-based
 * or negative, already checked (but by CHECK); masks are bool. Pointers a phase does not read
 * are not touched (the host may pass any). Phases:
 * - CHECK: a work-item per chunk (chunk c: the walk positions c * chunk_len .. + chunk_len - 1):
 *   scratch[c] = the first position whose index is outside 1..size and -size..-1, or n;
 * - FIRST: one work-group: scratch[chunks] = the least of scratch[0 .. chunks - 1];
 * - GATHER: a work-item per element: dst[p] = src[p + i * stride], i the 0-based index[p];
 * - SCATTER, SCATTER_ADD: a work-item per line: shape and strides are the dims other than the
 *   indexed one (n lines), each line has len elements, step bytes apart in each operand; along
 *   its line, in order, a work-item sets (or adds to) dst[p + i * stride] from src[p];
 * - COUNT: a work-item per chunk: scratch[c] = the true elements of the mask `index` in chunk c;
 * - SCAN: one work-group: scratch[0 .. chunks - 1] becomes its exclusive prefix sum and
 *   scratch[chunks] the total;
 * - MASKED_SELECT, MASKED_SCATTER, NONZERO: a work-item per chunk, its true elements numbered
 *   from scratch[c] (SCAN's) on: the k-th true element goes to dst[k] (C-contiguous, itemsize
 *   bytes each), takes src + k * src_step, or gets its 1-based coordinates written to
 *   dst[k * ndim .. k * ndim + ndim - 1] (int64; NONZERO's shape is the mask's own, dims kept).
 * count is the total of true elements (the write phases' extents: the host knows it). */
#define DLX_ZE_INDEX_CHECK 0
#define DLX_ZE_INDEX_FIRST 1
#define DLX_ZE_INDEX_GATHER 2
#define DLX_ZE_INDEX_SCATTER 3
#define DLX_ZE_INDEX_SCATTER_ADD 4
#define DLX_ZE_INDEX_COUNT 5
#define DLX_ZE_INDEX_SCAN 6
#define DLX_ZE_INDEX_MASKED_SELECT 7
#define DLX_ZE_INDEX_MASKED_SCATTER 8
#define DLX_ZE_INDEX_NONZERO 9
#define DLX_ZE_INDEX_DST 0
#define DLX_ZE_INDEX_SRC 1
#define DLX_ZE_INDEX_IDX 2
typedef struct dlx_ze_index_args {
  dlx_ze_i64 phase;    /* DLX_ZE_INDEX_* */
  dlx_ze_i64 dtype;    /* the elements' dlx_dtype (SCATTER_ADD adds by it) */
  dlx_ze_i64 itemsize; /* bytes of one element: 1, 2, 4, 8 or 16 */
  dlx_ze_i64 n;        /* walk positions (SCATTER*: lines) */
  dlx_ze_i64 ndim;
  dlx_ze_i64 size;   /* the indexed dim's size (the range of the indices) */
  dlx_ze_i64 stride; /* its byte stride in the indexed tensor */
  dlx_ze_i64 len;    /* SCATTER*: elements per line */
  dlx_ze_i64 chunks;
  dlx_ze_i64 chunk_len;
  dlx_ze_i64 count;    /* the write phases: true elements in all */
  dlx_ze_i64 src_step; /* MASKED_SCATTER: bytes between src's elements (0 too) */
  dlx_ze_i64 step[3];  /* SCATTER*: bytes between a line's elements, per operand */
  dlx_ze_i64 shape[DLX_ZE_MAX_NDIM];
  dlx_ze_i64 strides[3][DLX_ZE_MAX_NDIM];
} dlx_ze_index_args;

/* dlx_matmul(c, a, b, args): the matrix product of src/core/backend.h's dlx_matmul_request,
 * c[i] = alpha * a[i] @ b[i] + beta * c[i] for i < batch, a[i] m x k, b[i] k x n, c[i] m x n;
 * element (r, s) of operand x's batch element i at x + i * x_bs + r * x_rs + s * x_cs bytes.
 * dtype is computable; the kernel accumulates in a class of it (DLX_ZE_MM_CLASS_*): float for
 * float16, bfloat16 and float32, double, complex64, complex128, and 64-bit wrapping integers for
 * bool and the integers (bool counts the true products). Each element of c sums its k products
 * in order (l = 0, 1, ...), in either mode:
 * - TILED: a work-group per tile of c, each work-item a micro-tile of DLX_ZE_MM_MR x
 *   DLX_ZE_MM_NR elements of c, b's rows in local memory, a's elements shared within a sub-group
 *   (broadcasts) or, without sub-groups, through local memory; the tile is (256 / S) * MR rows
 *   by S * NR columns for sub-groups of S (16 without sub-groups). The host launches batch *
 *   dlx_ze_mm_tiles_max work-groups, in launches of at most 65536: work-group g of a launch
 *   computes tile first_tile + g (batch element t / tiles, then row-major over the tiles), and
 *   a work-group past the device's own count of tiles does nothing;
 * - DIRECT: a work-item per element of c (grid-stride over batch x m x n): thin products and
 *   batches of small matrices, where a tile would stay mostly idle.
 * alpha and beta are in alpha_* and beta_* as the class reads them (f: re and im; i: the integer,
 * bool 0 or 1); beta_zero: c is not read. aligned: every element's address is a multiple of the
 * size of its scalar part (the element, or half a complex element), so elements load as typed
 * values; otherwise byte by byte. */
#define DLX_ZE_MATMUL_TILED 0
#define DLX_ZE_MATMUL_DIRECT 1
#define DLX_ZE_MM_CLASS_FLOAT 0   /* float16, bfloat16, float32 */
#define DLX_ZE_MM_CLASS_DOUBLE 1  /* float64 */
#define DLX_ZE_MM_CLASS_C64 2     /* complex64 */
#define DLX_ZE_MM_CLASS_C128 3    /* complex128 */
#define DLX_ZE_MM_CLASS_INTEGER 4 /* bool, the integers */
/* The class a dtype accumulates in. */
static inline int dlx_ze_mm_class(dlx_ze_i64 dtype) {
  switch (dtype) {
  case DLX_FLOAT16:
  case DLX_BFLOAT16:
  case DLX_FLOAT32:
    return DLX_ZE_MM_CLASS_FLOAT;
  case DLX_FLOAT64:
    return DLX_ZE_MM_CLASS_DOUBLE;
  case DLX_COMPLEX64:
    return DLX_ZE_MM_CLASS_C64;
  case DLX_COMPLEX128:
    return DLX_ZE_MM_CLASS_C128;
  default:
    return DLX_ZE_MM_CLASS_INTEGER;
  }
}
/* Rows and columns of c per work-item of TILED, and the longest k-step, by class: float 4 x 4,
 * k-steps of 16; 8-byte classes 4 x 2, 16; complex128 2 x 2, 8. */
#define DLX_ZE_MM_MR(cls) ((cls) == DLX_ZE_MM_CLASS_C128 ? 2 : 4)
#define DLX_ZE_MM_NR(cls) ((cls) == DLX_ZE_MM_CLASS_FLOAT ? 4 : 2)
#define DLX_ZE_MM_TK(cls) ((cls) == DLX_ZE_MM_CLASS_C128 ? 8 : 16)
/* TILED's tiles of one batch element for sub-groups of s lanes. */
static inline dlx_ze_i64 dlx_ze_mm_tiles(dlx_ze_i64 cls, dlx_ze_i64 s, dlx_ze_i64 m, dlx_ze_i64 n) {
  dlx_ze_i64 tm = DLX_ZE_GROUP_SIZE / s * DLX_ZE_MM_MR(cls), tn = s * DLX_ZE_MM_NR(cls);
  return (m + tm - 1) / tm * ((n + tn - 1) / tn);
}
/* The most tiles of one batch element over the sub-group sizes a device may choose (4 to 64; 16
 * without sub-groups): the host cannot know the driver compiler's choice. */
static inline dlx_ze_i64 dlx_ze_mm_tiles_max(dlx_ze_i64 cls, dlx_ze_i64 m, dlx_ze_i64 n) {
  dlx_ze_i64 most = 0;
  for (dlx_ze_i64 s = 4; s <= 64; s *= 2) {
    dlx_ze_i64 t = dlx_ze_mm_tiles(cls, s, m, n);
    most = t > most ? t : most;
  }
  return most;
}
typedef struct dlx_ze_matmul_args {
  dlx_ze_i64 dtype;
  dlx_ze_i64 mode;    /* DLX_ZE_MATMUL_* */
  dlx_ze_i64 aligned; /* 1: typed loads and stores */
  dlx_ze_i64 batch, m, n, k;
  dlx_ze_i64 first_tile;       /* TILED: work-group g computes tile first_tile + g (batch-major) */
  dlx_ze_i64 a_rs, a_cs, a_bs; /* byte strides: rows, columns, batch elements */
  dlx_ze_i64 b_rs, b_cs, b_bs;
  dlx_ze_i64 c_rs, c_cs, c_bs;
  dlx_ze_i64 conj_a, conj_b; /* complex: the product takes the conjugate */
  dlx_ze_i64 beta_zero;
  double alpha_f[2], beta_f[2];
  dlx_ze_u64 alpha_i, beta_i;
} dlx_ze_matmul_args;

#endif
