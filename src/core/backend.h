/* backend.h -- the table of operations every device backend provides. The core validates and
 * prepares arguments (shapes, dtypes, broadcasting, overlap, read-only) before it calls a
 * backend, so kernels only see well-formed requests, documented per entry below. */
#ifndef DLX_CORE_BACKEND_H
#define DLX_CORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/elementwise.h"
#include "core/error.h"
#include "core/scalar.h"
#include "core/tensor.h"
#include "dlpack/dlpack.h"

typedef enum dlx_reduce_op {
  DLX_REDUCE_SUM,
  DLX_REDUCE_PROD,
  DLX_REDUCE_MEAN,
  DLX_REDUCE_MIN,
  DLX_REDUCE_MAX,
  DLX_REDUCE_ARGMIN,
  DLX_REDUCE_ARGMAX,
  DLX_REDUCE_ALL,
  DLX_REDUCE_ANY
} dlx_reduce_op;

/* Reductions with a float result and a parameter (reduce_stat). */
typedef enum dlx_stat_op {
  DLX_STAT_VAR,       /* param: the correction (the divisor is max(n - correction, 0)) */
  DLX_STAT_STD,       /* the square root of VAR */
  DLX_STAT_LOGSUMEXP, /* param unused */
  DLX_STAT_NORM       /* param: p, one of 1, 2 and inf */
} dlx_stat_op;

/* Ops along one dim whose result has the input's shape (along_dim). */
typedef enum dlx_dim_op {
  DLX_DIM_CUMSUM,
  DLX_DIM_CUMPROD,
  DLX_DIM_SOFTMAX,
  DLX_DIM_LOG_SOFTMAX
} dlx_dim_op;

/* Ops on each row of a [rows, n] tensor (the entry row_op): order statistics and the scans
 * that carry an extreme along. */
typedef enum dlx_row_op {
  DLX_ROW_KTH,         /* the element of 0-based rank k in the sort order, and its index */
  DLX_ROW_MEDIAN,      /* the lower median; a row with NaN gives its first NaN */
  DLX_ROW_NANMEDIAN,   /* the lower median of the non-NaN elements (all NaN: the first) */
  DLX_ROW_MODE,        /* the smallest most frequent value and its last position */
  DLX_ROW_QUANTILE,    /* the quantiles q[] (values only); a row with NaN gives NaN */
  DLX_ROW_NANQUANTILE, /* the quantiles of the non-NaN elements (all NaN: NaN) */
  DLX_ROW_CUMMAX,      /* running maximum and its index (ties and NaN: the latest) */
  DLX_ROW_CUMMIN,      /* running minimum and its index (ties and NaN: the latest) */
  DLX_ROW_LOGCUMSUMEXP /* log of the running sum of exp (values only) */
} dlx_row_op;

/* Every dlx_row_op, as the bits of dlx_backend's row_ops. */
#define DLX_ROW_ALL ((UINT32_C(1) << (DLX_ROW_LOGCUMSUMEXP + 1)) - 1)

/* How a quantile between two elements is taken (numbered as the Lua names' order). */
typedef enum dlx_interpolation {
  DLX_INTERP_LINEAR,
  DLX_INTERP_LOWER,
  DLX_INTERP_HIGHER,
  DLX_INTERP_NEAREST,
  DLX_INTERP_MIDPOINT
} dlx_interpolation;

/* A request to row_op. src is C-contiguous of shape [rows, n] (rows >= 1, n >= 1), bool, an
 * integer or a real float dtype (QUANTILE, NANQUANTILE: a float dtype). values and indices
 * (int64, 1-based; NULL for QUANTILE, NANQUANTILE and LOGCUMSUMEXP) are fresh and C-contiguous:
 * [rows, 1] for KTH, MEDIAN, NANMEDIAN and MODE, [rows, nq] for the quantiles, [rows, n] for
 * the scans. The order is src/common/sort_keys.h's (-0.0 equals 0.0, NaN above +inf) and a rank
 * names the element a stable sort puts there, so the index is unique. values has src's dtype,
 * except LOGCUMSUMEXP's (dlx_stat_dtype of src's). */
typedef struct dlx_row_request {
  dlx_row_op op;
  const dlx_tensor *src, *values, *indices;
  int64_t k;       /* KTH: 0 <= k < n */
  const double *q; /* the quantiles: nq values in [0, 1] */
  int64_t nq;
  dlx_interpolation interpolation;
} dlx_row_request;

/* The ops of the entry image_op: 2-d pooling and resizing of each plane of a [planes, h, w]
 * tensor (dlx.max_pool2d, dlx.avg_pool2d, dlx.interpolate). */
typedef enum dlx_image_op {
  DLX_IMAGE_MAX_POOL, /* the window's maximum (NaN wins) and its 1-based flat position */
  DLX_IMAGE_AVG_POOL, /* the window's sum over its divisor */
  DLX_IMAGE_NEAREST,  /* PyTorch's "nearest": the source index floor(dst * scale) */
  DLX_IMAGE_BILINEAR, /* two taps a dim, weights of the source position's fraction */
  DLX_IMAGE_BICUBIC   /* four taps a dim, Keys' cubic with A = -0.75, edges clamped */
} dlx_image_op;

/* A request to image_op. src is float32 or float64, C-contiguous [planes, in_h, in_w]; dst
 * (src's dtype) and indices (MAX_POOL only, int64; NULL when not asked) are fresh and
 * C-contiguous [planes, out_h, out_w]; every size is >= 1. The core checked the parameters as
 * PyTorch does (kernel, stride, dilation >= 1, padding <= kernel / 2, and out_h and out_w are
 * the output sizes PyTorch gives them). Pools: the window of output (oh, ow) starts at
 * oh * stride - padding (rows; columns alike) and takes kernel elements dilation apart, those
 * outside src left out.
 * - MAX_POOL: the maximum in PyTorch's order (rows, then columns; a larger value or any NaN
 *   replaces the one held, so the last NaN wins and ties keep the first); its position is
 *   row * in_w + column + 1; a window of -inf only gives its first element's, and a window
 *   with no element of src (dilation and padding can make one) -inf and r * in_w + c + 1, r
 *   and c its first row and column at or past 0 (PyTorch's value and index: r may be in_h);
 * - AVG_POOL: the sum in the dtype, in the same order, over divisor (> 0), else over the
 *   window's size clipped to src padded by padding (count_include_pad), else clipped to src;
 *   0 for a window with no element of src.
 * Resizes: each output index's source position is computed in float32 for float32 (float64
 * for float64) as PyTorch does: scale is (in - 1) / (out - 1) with align_corners (0 when out
 * is 1), else 1 / scale[d] when scale[d] > 0, else in / out; the position is scale * dst with
 * align_corners, else scale * (dst + 0.5) - 0.5 (BILINEAR: at least 0). NEAREST takes
 * min(floor(dst * scale), in - 1) (dst itself when out == in, dst / 2 when out == 2 in).
 * BILINEAR and BICUBIC interpolate each of the rows they take along w first, then those
 * values along h, each sum in the order of its taps (PyTorch's); a dim whose out == in copies
 * in BILINEAR (weights 1 and 0). */
typedef struct dlx_image_request {
  dlx_image_op op;
  const dlx_tensor *src, *dst, *indices;
  int64_t kernel[2], stride[2], padding[2], dilation[2]; /* pools: h, then w */
  bool count_include_pad;                                /* AVG_POOL */
  int64_t divisor;                                       /* AVG_POOL: 0, or the divisor */
  bool align_corners;                                    /* BILINEAR, BICUBIC */
  double scale[2]; /* resizes: the caller's scale factor of h and w, 0 when not given */
} dlx_image_request;
/* What count_op computes: a histogram of a 1-d tensor (the bin of each element by one of three
 * rules, counted or summing weights), or the positions of values in sorted rows. */
typedef enum dlx_count_op {
  DLX_COUNT_BINCOUNT, /* the bin is the element itself (an integer in [0, nbins)) */
  DLX_COUNT_LINEAR,   /* histc: bin (int64)((x - lo) * nbins / (hi - lo)) computed in src's
                         dtype, nbins - 1 at most; x outside [lo, hi] and NaN are left out */
  DLX_COUNT_EDGES,    /* histogram: the bin b with edges[b] <= x < edges[b + 1], the last bin
                         closed; x outside [edges[0], edges[nbins]] and NaN are left out */
  DLX_COUNT_SEARCH    /* searchsorted: per value, the sorted elements below it (right: not above) */
} dlx_count_op;

/* A request to count_op. The bin ops: src is C-contiguous 1-d with n >= 1 elements (BINCOUNT:
 * int64, each in [0, nbins); LINEAR: float32 or float64; EDGES: edges' dtype, float32 or
 * float64), weights NULL or C-contiguous float64 of n elements, out fresh, C-contiguous [nbins]
 * (nbins >= 1), int64 counts without weights, float64 sums of the weights with them; edges
 * (EDGES) C-contiguous [nbins + 1], increasing; uniform says they are a linspace (a first guess
 * of the bin may come from the formula, the edges decide). SEARCH: src holds the values,
 * C-contiguous [rows, m] (m >= 1), edges the sorted elements, C-contiguous [rows or 1, n] (n >= 1;
 * 1 row: the same for every row) of src's dtype (bool, an integer or a real float dtype), sorted in
 * src/common/sort_keys.h's order (NaN last); out fresh int64 [rows, m] of 1-based positions: 1 +
 * the count of the row's sorted elements that sort before the value (right: not after it), -0.0
 * equal to 0.0, NaN equal to NaN and above every number. */
typedef struct dlx_count_request {
  dlx_count_op op;
  const dlx_tensor *src, *weights, *edges, *out;
  int64_t nbins;
  double lo, hi; /* LINEAR: lo < hi, finite, as src's dtype holds them */
  bool uniform;  /* EDGES */
  bool right;    /* SEARCH */
} dlx_count_request;

/* What fill_random draws (numbered as src/common/philox.h's DLX_RNG_*; distributions.h defines
 * the kinds after INT). */
typedef enum dlx_random_kind {
  DLX_RANDOM_UNIFORM,
  DLX_RANDOM_NORMAL,
  DLX_RANDOM_INT,
  DLX_RANDOM_BERNOULLI,
  DLX_RANDOM_EXPONENTIAL,
  DLX_RANDOM_CAUCHY,
  DLX_RANDOM_LOG_NORMAL,
  DLX_RANDOM_GEOMETRIC,
  DLX_RANDOM_POISSON
} dlx_random_kind;

/* A request to fill_random: the generator's state and the distribution. */
typedef struct dlx_random_request {
  dlx_random_kind kind;
  uint64_t seed;   /* the Philox key */
  uint64_t offset; /* the counter of the block of elements 0 .. L - 1 (POISSON: of element 0) */
  int lanes;       /* L, elements per block: 4 (one word each), 2 (two: wide) or 1 (POISSON) */
  double a, b;     /* the kind's parameters (philox.h's list), when ta and tb are NULL */
  /* Per-element parameters in place of a and b: float64, C-contiguous, dst's shape, on its
   * device (NULL: the number). */
  const dlx_tensor *ta, *tb;
  int64_t low;    /* INT: low + an integer in [0, range) */
  uint64_t range; /* INT: >= 1 */
} dlx_random_request;

/* A multinomial request (the backend entry multinomial): n draws from each row of weights, with
 * or without replacement, as src/common/distributions.h defines them. */
typedef struct dlx_multinomial_request {
  const dlx_tensor *weights; /* float32 or float64, C-contiguous [rows, k], k >= 1 */
  const dlx_tensor *out;     /* int64, C-contiguous [rows, n]: 1-based positions */
  const dlx_tensor *status;  /* int64, C-contiguous [rows]: each row's DLX_MN_* state */
  int64_t n;
  bool replacement;
  uint64_t seed, offset;
} dlx_multinomial_request;

/* The indexing ops of the backend entry index_op. Index tensors hold int64 indices, 1-based or
 * negative from the end (-1 is the last), and masks are bool; every tensor lives on the
 * backend's device and may have any strides, stride-0 dims included. Elements are moved bit for
 * bit (dtypes match; the core casts beforehand) and are whole bytes (no sub-byte dtypes). The
 * tensors an op reads (src, the indices, the mask) never share memory with the dst it writes:
 * the core copies them first. */
typedef enum dlx_index_op {
  /* index holds no value outside 1..size and -size..-1; else ValueError naming the first bad
   * one (in row-major order) and dim + 1. Writes nothing. */
  DLX_INDEX_CHECK,
  /* dst, src and index have dst's shape; src's stride along dim is 0: dst[p] = src[p + i *
   * stride], i being index[p] made 0-based. */
  DLX_INDEX_GATHER,
  /* dst, src and index have index's shape; dst's stride along dim is 0: dst[p + i * stride] =
   * src[p] (SCATTER: the last write wins) or += src[p] (SCATTER_ADD: duplicates accumulate;
   * integers wrap, bool ors, float16 and bfloat16 add in float32). */
  DLX_INDEX_SCATTER,
  DLX_INDEX_SCATTER_ADD,
  /* src and the mask `index` have one shape; dst is 1-D, C-contiguous, with one element per
   * true mask element: the chosen elements of src in row-major order. */
  DLX_INDEX_MASKED_SELECT,
  /* dst and the mask have one shape; src is 1-D (any stride, 0 too) with an element per true
   * mask element: the k-th true position of dst (row-major) gets src[k]. */
  DLX_INDEX_MASKED_SCATTER,
  /* dst is int64, C-contiguous, {count, ndim of the mask}: the 1-based positions of the true
   * elements of the mask, in row-major order (a 0-d mask: dst is {count, 0}). */
  DLX_INDEX_NONZERO,
  /* count = the true elements of the mask. */
  DLX_INDEX_COUNT
} dlx_index_op;

/* CHECK's error, the same on every backend: `value`, the first bad index, is out of range for
 * dim (0-based) of `size`. Returns DLX_VALUE_ERROR. */
int dlx_index_out_of_range(dlx_error *err, int64_t value, int32_t dim, int64_t size);

typedef struct dlx_index_request {
  dlx_index_op op;
  const dlx_tensor *dst;   /* written by GATHER, SCATTER*, MASKED_SELECT/SCATTER, NONZERO */
  const dlx_tensor *src;   /* read by GATHER, SCATTER*, MASKED_SELECT/SCATTER */
  const dlx_tensor *index; /* the int64 indices, or the bool mask of MASKED_*, NONZERO, COUNT */
  int32_t dim;             /* the indexed dim (0-based) */
  int64_t size;            /* its size: the range of the indices */
  int64_t stride;          /* its stride in the indexed tensor */
  int64_t count;           /* COUNT's result */
} dlx_index_request;

/* One operand of a matrix product (dlx_matmul_request): a batch of matrices in a buffer of the
 * backend's device. Element (r, c) of batch element i is at buffer->data + (offset + i *
 * batch_stride + r * row_stride + c * col_stride) elements. The core guarantees a layout that
 * BLAS takes as it is: col_stride == 1 and row_stride >= max(1, cols) ("row-major"), or
 * row_stride == 1 and col_stride >= max(1, rows) ("column-major"), both at most INT32_MAX.
 * batch_stride is any value >= 0 (0: one matrix for every batch element, for a and b only). */
typedef struct dlx_matrix_operand {
  const dlx_buffer *buffer;
  int64_t offset;
  int64_t row_stride, col_stride, batch_stride;
  bool conj; /* a and b of complex dtypes: the product uses the conjugate (vdot) */
} dlx_matrix_operand;

/* A batched, strided matrix product (the entry matmul): for every i < batch,
 *   c[i] = alpha * a[i] @ b[i] + beta * c[i],
 * a[i] being m x k, b[i] k x n and c[i] m x n. The core has broadcast the batch dims of the
 * Lua call and merged them into one (count, strides); it calls once per batch dim it could not
 * merge. It guarantees:
 * - a, b and c have `dtype`, a computable dtype (bool, an integer, a float or a complex dtype;
 *   the core cast mixed operands to the promoted dtype), and live on the backend's device;
 * - batch, m and n >= 1, k >= 0 (k = 0: c = beta * c), m, n and k at most INT32_MAX;
 * - c is writable, its batch elements do not overlap each other, and c overlaps neither a nor b;
 * - alpha and beta hold values of dtype's kind: DLX_KIND_COMPLEX for complex dtypes (c[2]),
 *   DLX_KIND_FLOAT for float dtypes (f), DLX_KIND_INT for integers (i, wrapping as the dtype
 *   does), DLX_KIND_BOOL for bool (b).
 * The backend must compute: float32, float64, complex64 and complex128 in their own precision
 * (float32 is true float32: no TF32 or other reduced-precision accumulation, unless allow_tf32
 * is set, which lets a device that has TF32 use it for float32 and complex64); float16 and
 * bfloat16 accumulate in float32 (or wider) and round once into c; integers accumulate in 64
 * bits and wrap into c's dtype; bool gives (alpha and (a[i, 0] and b[0, j] or ...)) or (beta and
 * c). When beta is 0, c is not read (NaN and inf there do not propagate), as BLAS does. */
typedef struct dlx_matmul_request {
  dlx_dtype dtype;
  int64_t batch, m, n, k;
  dlx_matrix_operand a, b, c;
  dlx_scalar alpha, beta;
  bool allow_tf32; /* the caller's switch (dlx.cuda.allow_tf32); devices without TF32 ignore it */
} dlx_matmul_request;

/* A convolution (the entry conv; core/conv.h composes the call, and every device without the
 * entry): for every image n < batch, group g < groups, o < out_group and output position p of
 * the three spatial dims (the missing ones of size 1),
 *   out[n, g out_group + o, p] = bias[g out_group + o]
 *     + sum over c < c_group and kernel offsets q of
 *       src[n, g c_group + c, p * stride + q * dilation] * weight[g, o, c, q].
 * src is the padded input, (batch, groups c_group, in...); weight (groups, out_group, c_group,
 * kernel...); bias NULL or (groups out_group); out (batch, groups out_group, out...): each
 * C-contiguous, of `dtype` (float32, float64, complex64 or complex128: the core composes the
 * others), on the backend's device; out is fresh, batch, groups, out_group and every size >= 1,
 * c_group * the kernel's size >= 1 and every window inside src. The sums are the dtype's BLAS
 * products' (float32 in float32). */
typedef struct dlx_conv_request {
  dlx_dtype dtype;
  const dlx_tensor *src, *weight, *bias, *out;
  int64_t batch, groups, c_group, out_group;
  int64_t in[3], kernel[3], out_size[3], stride[3], dilation[3];
} dlx_conv_request;

/* The decompositions of the backend entry linalg (dlx.linalg; src/core/linalg_decomp.c lays the
 * requests out). In each request:
 * - a "matrix" tensor holds r->batch matrices of its last two dims, rows x cols, each in
 *   column-major order (LAPACK's layout, leading dimension = rows) right after the previous one:
 *   it is fresh and writable, of shape [batch dims..., rows, cols] with strides [..., 1, rows];
 * - a "vector" tensor is fresh, C-contiguous, [batch dims..., len];
 * - matrices and vectors are of r->dtype (float32, float64, complex64 or complex128) unless said
 *   otherwise; "real" is its real dtype (float32 for complex64), "complex" its complex one;
 * - batch >= 1, m >= 1 and n >= 1 (the core answers empty requests itself); k >= 0 (LSTSQ:
 *   k >= 1, the core solving a B without columns as one zero column), and with k = 0 a backend
 *   still checks what fails A (a singular or zero-diagonal matrix, bad pivots), as LAPACK does;
 * - a singular, not positive definite or non-converging matrix is no error of the entry: the
 *   backend sets r->bad_batch to the 0-based index of the first such matrix (in batch order)
 *   and r->bad_info to LAPACK's info for it (a 1-based pivot, minor or count), and the core
 *   raises the LinAlgError; other failures (memory, sizes too large for the backend) are
 *   errors of the entry. Outputs are then garbage and the core closes them;
 * - results need not be bit for bit the same on every backend or thread count (LAPACK's
 *   blocked algorithms depend on both), only accurate to the dtype's precision. */
typedef enum dlx_linalg_op {
  /* a (m x n) is overwritten by its LU factors with partial pivoting (getrf: L unit lower, U
   * upper), ints (int64 vector, min(m, n)) by the 1-based pivots: row i was swapped with row
   * ints[i]. With DLX_LINALG_VECTORS, mats[0] (m x m) gets P, mats[1] (m x min) L and mats[2]
   * (min x n) U, A = P L U. A singular matrix is no failure. */
  DLX_LINALG_LU,
  /* a (n x n) holds LU factors and ints their pivots, as LU makes them (pivots out of 1..n:
   * ValueError); b (n x k) is overwritten by X, A X = B. Fails on a zero on U's diagonal (its
   * 1-based place). */
  DLX_LINALG_LU_SOLVE,
  /* a (n x n, overwritten), b (n x k) -> X in b, A X = B. Fails as LU_SOLVE. */
  DLX_LINALG_SOLVE,
  /* a (n x n) -> its inverse in a. Fails as LU_SOLVE. */
  DLX_LINALG_INV,
  /* a (n x n, overwritten) -> vecs[0] (vector of len 1): det(A); with DLX_LINALG_LOG, vecs[0]
   * the sign (det / |det|, 0 for a singular matrix) and vecs[1] (real) log |det|. */
  DLX_LINALG_DET,
  /* a (n x n) Hermitian positive definite, its lower triangle read (upper with
   * DLX_LINALG_UPPER) -> L (U) in a, the other triangle zeroed, A = L L^H (U^H U). Fails when
   * the leading minor of order bad_info is not positive definite (NaN included). */
  DLX_LINALG_CHOLESKY,
  /* a (m x n, overwritten) -> mats[1] R (rrows x n, upper, rrows = m with DLX_LINALG_FULL, else
   * min(m, n)) and, unless mats[0] is NULL, mats[0] Q (m x qcols, orthonormal columns, qcols =
   * m with FULL, else min(m, n)), A = Q R. */
  DLX_LINALG_QR,
  /* a (m x n, overwritten) -> vecs[0] (real, min(m, n)) the singular values, descending; with
   * DLX_LINALG_VECTORS mats[0] U (m x m with FULL, else m x min) and mats[1] V^H (n x n with
   * FULL, else min x n). Fails when the algorithm does not converge. */
  DLX_LINALG_SVD,
  /* a (n x n) Hermitian, its lower (UPPER: upper) triangle read -> vecs[0] (real, n) the
   * eigenvalues ascending; with DLX_LINALG_VECTORS a gets the orthonormal eigenvectors as
   * columns. Fails when the algorithm does not converge. */
  DLX_LINALG_EIGH,
  /* a (n x n, overwritten) -> vecs[0] (complex, n) the eigenvalues, in LAPACK's order; with
   * DLX_LINALG_VECTORS mats[0] (complex, n x n) the right eigenvectors as columns of 2-norm 1
   * (LAPACK's normalisation). Fails when the QR algorithm does not converge. */
  DLX_LINALG_EIG,
  /* a (m x n, overwritten), b (max(m, n) x k) -> b's first n rows the minimum-norm least
   * squares solution (SVD-based, gelsd), singular values below rcond * the largest treated as
   * zero; ints (int64 vector, len 1) the rank; vecs[0] (real, min(m, n)) the singular values;
   * vecs[1] (real, k), when m > n, the squared 2-norm of each column's residual (the sum of
   * |b[i][j]|^2 over rows n + 1 .. m of the transformed b, valid when the rank is n). Fails
   * when the SVD does not converge. A backend may solve full-rank matrices through QR instead
   * and say so in lstsq_qr (below). */
  DLX_LINALG_LSTSQ,
  /* a (n x n) triangular, upper with DLX_LINALG_UPPER (else lower; the other triangle is not
   * read), its diagonal taken as ones with DLX_LINALG_UNIT; b (n x k) -> X in b, A X = B.
   * Fails on a zero on the diagonal (its 1-based place). */
  DLX_LINALG_TRIANGULAR
} dlx_linalg_op;

/* Flags of a linalg request. */
enum {
  DLX_LINALG_UPPER = 1,   /* CHOLESKY, EIGH, TRIANGULAR: the upper triangle */
  DLX_LINALG_UNIT = 2,    /* TRIANGULAR: unit diagonal */
  DLX_LINALG_VECTORS = 4, /* LU (P, L, U), SVD, EIGH, EIG: the vectors too */
  DLX_LINALG_FULL = 8,    /* QR (complete), SVD (full_matrices) */
  DLX_LINALG_LOG = 16     /* DET: sign and log |det| */
};

typedef struct dlx_linalg_request {
  dlx_linalg_op op;
  int flags;                 /* DLX_LINALG_* */
  const char *name;          /* the function, for messages ("linalg.solve") */
  dlx_dtype dtype;           /* float32, float64, complex64 or complex128 */
  int64_t batch;             /* matrices */
  int64_t m, n, k;           /* a is m x n (n x n when square); b has k columns */
  double rcond;              /* LSTSQ */
  const dlx_tensor *a;       /* matrices, read and overwritten as the op says */
  const dlx_tensor *b;       /* matrices of right-hand sides (LU_SOLVE, SOLVE, LSTSQ, TRIANGULAR) */
  const dlx_tensor *mats[3]; /* matrix outputs, as the op says (NULL when not asked) */
  const dlx_tensor *vecs[2]; /* vector outputs */
  const dlx_tensor *ints;    /* int64 vector: LU's pivots (LU_SOLVE: read), LSTSQ's rank */
  /* A non-finite input: SVD, EIGH, EIG and LSTSQ never run LAPACK's iterations on a matrix
   * holding NaN or an infinity (some loop for ever on NaN): every value output of that batch
   * element (and a too, for EIGH's vectors; b for LSTSQ's solution) becomes NaN, LSTSQ's rank 0,
   * and it is no failure. */
  int64_t bad_batch; /* out: the first failing matrix, -1 when none */
  int64_t bad_info;  /* out: its LAPACK info */
  /* out, LSTSQ: set by a backend that solved through QR (CUDA) rather than gelsd. It computed
   * no singular values (the core returns s as an empty tensor, vecs[0] is not written), each
   * rank is min(m, n) (0 for a non-finite matrix), and a failure is a matrix it takes as
   * rank-deficient: bad_info is the 1-based place of the first element on R's diagonal whose
   * magnitude is at most rcond times the largest there. */
  bool lstsq_qr;
} dlx_linalg_request;

typedef struct dlx_backend {
  const char *name; /* "cpu", "cuda", ... */
  DLDeviceType device_type;
  /* The CPU can read and write its memory directly; such a device type has one device, id 0
   * (cpu, cuda_host, cuda_managed): its name is written without ":0". */
  bool host_accessible;
  /* Its kernels load elements whole, at addresses aligned to their size (CUDA): an import whose
   * first element is not aligned to its item size is refused (a BufferError) before a kernel can
   * fault on it (on CUDA the fault loses the context for the whole process). */
  bool aligned_elements;

  /* Devices of this type that can be used now; 0 when the driver or device is missing. */
  int (*device_count)(void);

  /* nbytes may be 0 (may then return NULL without error). Returns NULL and sets err
   * (MemoryError) on failure. */
  void *(*alloc)(int32_t device_id, size_t nbytes, dlx_error *err);
  void (*free)(int32_t device_id, void *ptr, size_t nbytes);
  /* Optional (NULL: the core allocates a buffer's header itself and its data with alloc): a
   * buffer's header of header_size bytes, aligned for any type, together with nbytes of data
   * as alloc gives them, from one allocation where the backend can (small blocks), so that a
   * small tensor costs one allocation and one free. Returns the header and sets *data (never
   * NULL, 0 bytes included); NULL with err set (MemoryError) on failure. The data counts in
   * memory_allocated as alloc's does. free_with_header frees both, with the same nbytes. */
  void *(*alloc_with_header)(int32_t device_id, size_t header_size, size_t nbytes, void **data,
                             dlx_error *err);
  void (*free_with_header)(int32_t device_id, void *header, void *data, size_t nbytes);
  /* Bytes this backend's allocator holds for live buffers on the device now
   * (dlx.memory_allocated); NULL when the backend does not count them. */
  size_t (*memory_allocated)(int32_t device_id);
  /* Backends with a caching allocator (NULL otherwise): the bytes it holds on the device, freed
   * by tensors and kept for reuse (dlx.cuda.memory_cached), and giving the cached blocks of
   * every device of the backend back to the driver (dlx.cuda.empty_cache). */
  size_t (*memory_cached)(int32_t device_id);
  int (*empty_cache)(dlx_error *err);
  /* Backends whose driver has a current device per thread, as cudaSetDevice sets (NULL
   * otherwise): the calling thread's one, -1 when there is none. The backend makes a tensor's
   * device current around its work and restores this one afterwards. */
  int (*current_device)(void);
  /* Backends with several kinds of memory (NULL otherwise): alloc of a given kind (never
   * DLX_MEMORY_DEFAULT; freed by free), and the kind of the memory at ptr, an allocation or an
   * import on device_id (DLX_MEMORY_DEFAULT when the driver cannot tell). */
  void *(*alloc_memory)(int32_t device_id, size_t nbytes, dlx_memory memory, dlx_error *err);
  dlx_memory (*memory_of)(int32_t device_id, const void *ptr);

  /* Element-wise copy dst[i] = cast(src[i]).
   * - dst and src live on this backend's device, have the same ndim and shape (the core has
   *   already broadcast src: its strides may be 0), and any strides, negative ones included;
   * - dst has no internal overlap and does not overlap src (the core copies through a
   *   temporary otherwise);
   * - dtypes differ only when both are computable (not DLX_KIND_STORAGE); storage-only dtypes
   *   are copied bit for bit between identical dtypes, sub-byte ones element by element.
   * Casting rules: round to nearest even (float16, bfloat16, float32); int to int wraps
   * (two's complement); float to int truncates toward zero, NaN gives 0 and out-of-range values
   * saturate; anything to bool is != 0 (NaN is true, complex is true when either part is);
   * bool to number is 0 or 1; complex to real drops the imaginary part. */
  int (*copy)(const dlx_tensor *dst, const dlx_tensor *src, dlx_error *err);

  /* Sets every element of dst (any strides; stride-0 dims allowed) to value, cast to dst's
   * computable dtype with the rules of copy. */
  int (*fill)(const dlx_tensor *dst, const dlx_scalar *value, dlx_error *err);

  /* Reduces src over the dims in the bitmask `dims` (bit d = dim d, 0-based) into dst.
   * - dst is fresh, C-contiguous, ndim == src->ndim, dst->shape[d] == 1 for reduced dims and
   *   src->shape[d] otherwise; dst->dtype is dlx_reduce_dtype(op, src->dtype);
   * - src has a computable dtype and any strides;
   * - SUM/PROD/MEAN: float16 and bfloat16 accumulate in float32; float32 sums on the CPU at
   *   least as accurately as a pairwise sum, on GPUs as CUB does (per-thread shares in order,
   *   then a tree); integers accumulate in 64 bits and wrap; MEAN of an empty extent is NaN,
   *   SUM 0, PROD 1;
   * - MIN/MAX propagate NaN; ARGMIN/ARGMAX give the first position of the extreme (or of the
   *   first NaN) as a 1-based index, flattened in row-major order over the reduced dims;
   *   the core only calls them with a non-empty reduced extent;
   * - ALL/ANY: element != 0, into bool; ALL of nothing is true, ANY false. */
  int (*reduce)(dlx_reduce_op op, const dlx_tensor *src, uint64_t dims, const dlx_tensor *dst,
                dlx_error *err);

  /* Optional (NULL: a DeviceError): var, std, logsumexp and norm, as `reduce` for the layout of
   * src, dims and dst (dst has at least one element, src's reduced extent may be empty).
   * - src is bool, an integer or a real float dtype; dst->dtype is dlx_stat_dtype(src->dtype):
   *   float32 for bool and integers, else src's; float16 and bfloat16 compute in float32 or
   *   wider; results are the same on any number of threads;
   * - VAR and STD: NaN for an empty extent; param is the correction, a finite number;
   * - LOGSUMEXP: -inf for an empty extent, +inf when an element is +inf, NaN when one is NaN;
   * - NORM: param is 1, 2 or inf; the 2-norm does not overflow or underflow in its squares;
   *   0 for an empty extent. */
  int (*reduce_stat)(dlx_stat_op op, double param, const dlx_tensor *src, uint64_t dims,
                     const dlx_tensor *dst, dlx_error *err);

  /* Optional (NULL: a DeviceError): an op along dim (0-based) of src into dst, which is fresh,
   * C-contiguous, of src's shape, with at least one element; src has any strides.
   * - CUMSUM, CUMPROD: dst->dtype is dlx_reduce_dtype(SUM, src->dtype); integers accumulate in
   *   64 bits and wrap; floats accumulate in float64 and round each result once;
   * - SOFTMAX, LOG_SOFTMAX: src is bool, an integer or a real float dtype and dst->dtype is
   *   dlx_stat_dtype(src->dtype); stable (the max of each line is subtracted first); a line
   *   holding NaN or +inf, or only -inf, is NaN throughout (as PyTorch). */
  int (*along_dim)(dlx_dim_op op, const dlx_tensor *src, int32_t dim, const dlx_tensor *dst,
                   dlx_error *err);

  /* Elementwise op (NULL: the device has none yet): dst[i] = op(in[0][i], ...) over the
   * dlx_ew_arity(op) operands in[] (one for unary ops, two for binary ones, three for where,
   * clamp and lerp, four for nan_to_num, whose last three are scalars). A backend with the entry
   * but no kernel for op raises the DeviceError "<op> is not implemented on <device> yet".
   * - tensor operands live on dst's device with dst's ndim and shape (the core has broadcast
   *   them: strides may be 0), any strides and any computable dtype; a scalar operand (tensor
   *   NULL) holds a value that fits `compute` (dlx_ew_dtypes checked it);
   * - operands are converted to dlx_ew_input_dtype(op, k, compute) (`compute`, or bool for
   *   where's condition) with the rules of copy and the op is computed there;
   *   float16 and bfloat16 may compute in float32, rounding once when the result is stored;
   * - dst is writable, has no internal overlap and overlaps no input, or is exactly the same
   *   view as one (same dtype, offset and strides); its dtype is the op's result dtype or one
   *   the result casts to by the same-kind rule (cast with the rules of copy); numel > 0;
   * - integer floor_divide and remainder see no zero divisor, integer pow no negative exponent
   *   (the core refused them); integers wrap; shifts by a negative amount or at least the width
   *   give 0 (left) or 0 or -1 (right); remainder has the divisor's sign and floor_divide
   *   floors; floats follow IEEE; maximum and minimum propagate NaN. */
  int (*elementwise)(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in, dlx_dtype compute,
                     dlx_error *err);

  /* Waits until all queued work on the device has finished (NULL for synchronous backends). */
  int (*synchronize)(int32_t device_id, dlx_error *err);

  /* Backends of host memory that the host backend (the CPU's) computes on, as CUDA's pinned and
   * managed memory (NULL for backends that compute on their own memory): waits until the
   * device no longer uses the memory of device_id (CUDA: every device idle), so that the CPU
   * may read and write it. Such a backend is host_accessible and leaves every compute entry
   * (copy, fill, reduce, ..., sort_rows, and those added later) NULL: the core resolves the
   * backend that computes on a tensor's memory in one place (dlx_compute_on, core/device.h),
   * which calls this first and then the host backend's entry. */
  int (*prepare_host_access)(int32_t device_id, dlx_error *err);

  /* ---- Entries of backends whose memory the CPU cannot address (NULL for host_accessible
   * ones). The core builds every cross-device copy from these and `copy`: it makes the source
   * contiguous on its own device, moves the bytes, then casts and scatters on the destination. */

  /* Copies nbytes between host memory and memory of device device_id: into the device when
   * to_device, out of it otherwise. Host memory may be pageable. When it returns, the host side
   * may be reused (to_device) or read (from the device). */
  int (*copy_bytes_host)(int32_t device_id, void *dst, const void *src, size_t nbytes,
                         bool to_device, dlx_error *err);
  /* Copies nbytes between two devices of this backend (the same one included). */
  int (*copy_bytes_device)(void *dst, int32_t dst_id, const void *src, int32_t src_id,
                           size_t nbytes, dlx_error *err);

  /* ---- Streams: entries of backends with queues of asynchronous work (NULL for synchronous
   * backends: then `stream` is NULL). A stream is an opaque dlx_stream_handle: a cudaStream_t
   * for CUDA, an immediate command list (or queue) for Level Zero. Each thread has a current
   * stream per device (the backend keeps it thread-local); every operation of the backend on
   * that device is queued on the calling thread's current stream and may still run when the
   * entry returns. Reading results on the host (item, totable, copies to CPU memory) waits. */
  const struct dlx_stream_ops *stream;

  /* Import: may correct the device a DLPack producer gave for `data` by asking the driver
   * (CUDA: managed memory labelled kDLCUDA becomes kDLCUDAManaged). NULL: trust the producer. */
  void (*refine_import)(DLDevice *device, const void *data);

  /* Threads of the backend's kernels on the host (the CPU's pool): how many a kernel may use,
   * the caller included, and setting that count for the rest of the process (n >= 1, the core
   * checked; the backend may cap it). Results must not depend on the count. NULL: the backend
   * has no such threads. */
  int (*num_threads)(void);
  void (*set_num_threads)(int n);

  /* Optional (NULL: a DeviceError): fills dst with random numbers, element i (row-major) being
   * what src/common/philox.h makes of r for i, bit for bit on every backend and thread count.
   * - dst is writable and C-contiguous, numel > 0;
   * - UNIFORM and NORMAL: dst is float16, bfloat16, float32 or float64; the element is computed
   *   in float64 (dlx_rng_real with the dtype's significand bits) and rounded once to dst;
   * - INT: dst is an integer dtype holding every value of [low, low + range), a float dtype
   *   holding every integer of it exactly, or bool;
   * - BERNOULLI, GEOMETRIC: dst is a real dtype (bool, an integer or a float one); the others:
   *   a float dtype. The value is computed in float64 (dlx_rng_draw, dlx_rng_poisson) and
   *   converted once to dst by the casting rules (integers saturate);
   * - r->lanes is the kind's (core/random.c sets it), r->ta and r->tb per-element parameters
   *   when not NULL, on dst's device. The core checked the parameters' values. */
  int (*fill_random)(const dlx_tensor *dst, const dlx_random_request *r, dlx_error *err);
  /* Optional (NULL: a DeviceError): multinomial draws (dlx_multinomial_request): r->status[i]
   * gets row i's state (DLX_MN_* of src/common/distributions.h) and, where it is DLX_MN_OK, row
   * i of r->out its draws, bit for bit as dlx_mn_row computes them. Every tensor lives on this
   * backend's device; rows >= 1. */
  int (*multinomial)(const dlx_multinomial_request *r, dlx_error *err);

  /* Optional (NULL: a DeviceError): the indexing ops of a dlx_index_request (below). */
  int (*index_op)(dlx_index_request *r, dlx_error *err);
  /* Optional (NULL: a DeviceError): a stable sort of each row of src.
   * - src is C-contiguous of shape [rows, n] (ndim 2, rows >= 1, n >= 1), bool, an integer or a
   *   real float dtype; values (src's dtype) and indices (int64) are fresh and C-contiguous of
   *   src's shape;
   * - the order is src/common/sort_keys.h's (-0.0 equals 0.0, NaN above +inf; descending
   *   reverses it) and equal keys keep their order, so the result is unique: the same on any
   *   number of threads and on every backend;
   * - indices[r][i] is the 1-based position in row r of the i-th element in order, and
   *   values[r][i] is that element, bit for bit. */
  int (*sort_rows)(const dlx_tensor *src, bool descending, const dlx_tensor *values,
                   const dlx_tensor *indices, dlx_error *err);
  /* Optional (NULL: a DeviceError): an op of dlx_row_request on each row (above). The
   * quantiles' ranks are q * (m - 1) in float64 over the m elements taken, and LINEAR and
   * MIDPOINT interpolate a + w (b - a) (w < 0.5) or b - (1 - w) (b - a) in float64, rounded once
   * to the dtype (NumPy's and PyTorch's formula); NEAREST rounds the rank half to even. */
  int (*row_op)(const dlx_row_request *r, dlx_error *err);
  /* The ops row_op computes, a bit (1u << op) each (DLX_ROW_ALL: every one). The core sorts the
   * rows for the others it can compose that way (the selections and MODE, with sort_rows,
   * elementwise, reduce, along_dim and index_op) and raises a DeviceError for the rest. */
  uint32_t row_ops;
  /* Optional (NULL: the Lua layer composes the op from views, reductions, gathers and
   * elementwise ops): the pooling or resize of a dlx_image_request (above), bit for bit the
   * same on any number of threads. */
  int (*image_op)(const dlx_image_request *r, dlx_error *err);
  /* Optional (NULL: a DeviceError): an op of dlx_count_request (above), with the per-element
   * rules of src/common/count_rules.h. Counts are exact; sums of weights are float64, in element
   * order on the CPU and on Level Zero, in the order of CUDA's atomics on CUDA. */
  int (*count_op)(const dlx_count_request *r, dlx_error *err);
  /* Optional (NULL: a DeviceError): the matrix product of a dlx_matmul_request (above), which
   * says what the core guarantees and what the backend computes. */
  int (*matmul)(const dlx_matmul_request *r, dlx_error *err);
  /* Optional (NULL: the core composes the convolution of copies, fills and matmul): a
   * convolution of dlx_conv_request (above). */
  int (*conv)(const dlx_conv_request *r, dlx_error *err);

  /* Optional (NULL: a DeviceError): the decompositions of dlx.linalg, one request a call, laid
   * out as dlx_linalg_request says. */
  int (*linalg)(dlx_linalg_request *r, dlx_error *err);

  /* Backends whose driver can work in a context a host made (Level Zero: a SYCL host's), NULL
   * otherwise: the backend uses `context` for the devices of `driver` and never destroys it
   * (dlx_share_level_zero_context of include/dlx.h calls it). 0, or DLX_DEVICE_ERROR once the
   * backend has looked for devices, for a NULL argument, or for too many drivers. */
  int (*share_context)(void *driver, void *context);
} dlx_backend;

/* A backend's stream, as an integer wide enough for a pointer (CUDA's default stream is 0). */
typedef uintptr_t dlx_stream_handle;

/* What a DLPack `stream` value asks the producer to do (dlpack-spec.md 6.2). */
typedef struct dlx_stream_request {
  bool sync;                /* false: the consumer said -1, do not synchronise at all */
  dlx_stream_handle stream; /* the consumer's stream, when sync */
} dlx_stream_request;

typedef struct dlx_stream_ops {
  /* A new stream on the device, ordered like the backend's usual streams. */
  int (*create)(int32_t device_id, dlx_stream_handle *out, dlx_error *err);
  /* Destroys a stream made by create; queued work still completes. If it is some thread's
   * current stream, that thread must not use it any more (the binding resets its own). */
  void (*destroy)(int32_t device_id, dlx_stream_handle stream);
  /* The calling thread's current stream on the device (the backend's default stream until
   * set_current is called on this thread). */
  dlx_stream_handle (*current)(int32_t device_id);
  /* Makes stream the calling thread's current stream; 0 makes the default stream current. */
  void (*set_current)(int32_t device_id, dlx_stream_handle stream);
  /* Waits on the host until the work queued so far on the stream has finished. */
  int (*synchronize)(int32_t device_id, dlx_stream_handle stream, dlx_error *err);
  /* Producer side of an exchange: makes `consumer` wait (on the device, without blocking the
   * host) for the work queued so far on the calling thread's current stream, e.g. by recording
   * an event there and queueing a wait for it on consumer. Nothing when they are the same. */
  int (*wait_for_current)(int32_t device_id, dlx_stream_handle consumer, dlx_error *err);
  /* The DLPack `stream` value a consumer passes (given = false for None/nil) -> what to do.
   * ValueError for values the device type does not define (CUDA: 0, and values < -1). */
  int (*from_dlpack)(int32_t device_id, bool given, int64_t value, dlx_stream_request *out,
                     dlx_error *err);
  /* The DLPack `stream` value that names `stream` to a producer (CUDA: the legacy default
   * stream is 1, the per-thread default stream 2, others their handle). */
  int64_t (*to_dlpack)(int32_t device_id, dlx_stream_handle stream);
  /* For tests of the order of work across streams (NULL when the backend has no such kernel):
   * queues work that keeps the device busy for about `cycles` clock cycles on the calling
   * thread's current stream, so that work queued after it is visibly still pending. */
  int (*busy_wait)(int32_t device_id, int64_t cycles, dlx_error *err);
} dlx_stream_ops;

#endif
