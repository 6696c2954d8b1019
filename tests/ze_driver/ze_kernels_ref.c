/* ze_kernels_ref.c -- reference implementations of dlx's Level Zero kernels for the test driver:
 * each checks its launch (group counts against the argument block, strides against dtypes) and
 * computes the result with dlx's CPU backend. The reductions' scratch ("partials") is private to
 * a kernel pair, so here dlx_reduce_partial leaves the finished values in it and
 * dlx_reduce_finish moves them to the output. */
#include "ze_kernels_ref.h"

#include <string.h>

#include "backends/builtin.h"
#include "common/philox.h"
#include "common/sort_keys.h"
#include "common/stats_ops.h"
#include "core/backend.h"
#include "core/buffer.h"
#include "core/dtype.h"
#include "core/elementwise_kernels.h"
#include "core/random.h"
#include "core/sort.h"
#include "core/stats.h"
#include "core/tensor.h"

/* ---- extents */

/* Bytes below and from a strided walk's first element (strides in bytes). */
static void walk_extent(int64_t n, int64_t ndim, const int64_t *shape, const int64_t *strides,
                        int64_t itemsize, size_t *lo, size_t *hi) {
  int64_t below = 0, above = itemsize;
  if (n == 0) {
    *lo = *hi = 0;
    return;
  }
  for (int64_t d = 0; d < ndim; d++) {
    if (strides[d] < 0)
      below += (shape[d] - 1) * -strides[d];
    else
      above += (shape[d] - 1) * strides[d];
  }
  *lo = (size_t)below;
  *hi = (size_t)above;
}

static int64_t size_of(int64_t dtype) {
  return dtype >= 0 && dtype < DLX_NUM_DTYPES ? dlx_itemsize((dlx_dtype)dtype) : 0;
}

static void copy_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_copy_args *a = args[2];
  if (i == 2) {
    *lo = 0;
    *hi = sizeof *a;
  } else if (i == 0) {
    walk_extent(a->n, a->ndim, a->shape, a->dst_strides, a->itemsize, lo, hi);
  } else {
    walk_extent(a->n, a->ndim, a->shape, a->src_strides,
                a->src_dtype == a->dst_dtype ? a->itemsize : size_of(a->src_dtype), lo, hi);
  }
}

static void fill_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_fill_args *a = args[1];
  if (i == 1) {
    *lo = 0;
    *hi = sizeof *a;
  } else {
    walk_extent(a->n, a->ndim, a->shape, a->strides, a->itemsize, lo, hi);
  }
}

/* The layout that the reductions and var, std, logsumexp and norm share (ze_args.h): the src
 * walked over the kept dims then the reduced ones, n_out * chunks partials of acc_size bytes. */
typedef struct reduce_layout {
  int64_t src_dtype, dst_dtype, n_out, n_red, chunks, chunk_len, out_ndim, red_ndim;
  const int64_t *out_shape, *out_strides, *red_shape, *red_strides;
  size_t args_size, acc_size;
} reduce_layout;

#define REDUCE_LAYOUT(a, acc)                                                                      \
  ((reduce_layout){(a)->src_dtype, (a)->dst_dtype, (a)->n_out, (a)->n_red, (a)->chunks,            \
                   (a)->chunk_len, (a)->out_ndim, (a)->red_ndim, (a)->out_shape, (a)->out_strides, \
                   (a)->red_shape, (a)->red_strides, sizeof *(a), sizeof(acc)})

/* The partial pass: src (0), partials (1), args (2). */
static void layout_extent(const reduce_layout *l, int i, size_t *lo, size_t *hi) {
  if (i == 2) {
    *lo = 0;
    *hi = l->args_size;
  } else if (i == 1) { /* partials */
    *lo = 0;
    *hi = (size_t)(l->n_out * l->chunks) * l->acc_size;
  } else { /* src (partial) or dst (finish: n_out results) */
    int64_t shape[2 * DLX_ZE_MAX_NDIM], strides[2 * DLX_ZE_MAX_NDIM];
    memcpy(shape, l->out_shape, (size_t)l->out_ndim * 8);
    memcpy(shape + l->out_ndim, l->red_shape, (size_t)l->red_ndim * 8);
    memcpy(strides, l->out_strides, (size_t)l->out_ndim * 8);
    memcpy(strides + l->out_ndim, l->red_strides, (size_t)l->red_ndim * 8);
    walk_extent(l->n_out * l->n_red, l->out_ndim + l->red_ndim, shape, strides,
                size_of(l->src_dtype), lo, hi);
  }
}

/* The finishing pass: dst (0, n_out results), partials (1), args (2). */
static void layout_finish_extent(const reduce_layout *l, int i, size_t *lo, size_t *hi) {
  if (i == 0) {
    *lo = 0;
    *hi = (size_t)(l->n_out * size_of(l->dst_dtype));
  } else {
    layout_extent(l, i, lo, hi);
  }
}

static void reduce_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  reduce_layout l = REDUCE_LAYOUT((const dlx_ze_reduce_args *)args[2], dlx_ze_acc);
  layout_extent(&l, i, lo, hi);
}

static void finish_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  reduce_layout l = REDUCE_LAYOUT((const dlx_ze_reduce_args *)args[2], dlx_ze_acc);
  layout_finish_extent(&l, i, lo, hi);
}

static bool computable(int64_t dtype);

/* Inputs that are scalars are not read (their pointer is the argument block, 0 bytes). */
static void ew_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_ew_args *a = args[1 + DLX_ZE_EW_INPUTS];
  if (i == 1 + DLX_ZE_EW_INPUTS) {
    *lo = 0;
    *hi = sizeof *a;
  } else if (i == 0) {
    walk_extent(a->n, a->ndim, a->shape, a->dst_strides, size_of(a->dst_dtype), lo, hi);
  } else if (i > a->nin || a->in_scalar[i - 1]) {
    *lo = *hi = 0;
  } else {
    walk_extent(a->n, a->ndim, a->shape, a->in_strides[i - 1], size_of(a->in_dtype[i - 1]), lo, hi);
  }
}

/* ---- tensors over raw memory, for the CPU backend */

static int wrap(dlx_tensor *t, void *first, dlx_dtype dtype, int64_t ndim, const int64_t *shape,
                const int64_t *byte_strides) {
  DLDevice cpu = {kDLCPU, 0};
  int64_t size = dlx_itemsize(dtype);
  memset(t, 0, sizeof *t);
  t->dtype = dtype;
  t->ndim = (int32_t)ndim;
  for (int64_t d = 0; d < ndim; d++) {
    if (size == 0 || byte_strides[d] % size != 0) return -1;
    t->shape[d] = shape[d];
    t->strides[d] = byte_strides[d] / size;
  }
  t->buffer = dlx_buffer_wrap(cpu, first, 0, NULL, NULL, NULL);
  return t->buffer != NULL ? 0 : -1;
}

static bool computable(int64_t dtype) {
  return dtype >= 0 && dtype < DLX_NUM_DTYPES && !dlx_dtype_is_storage_only((dlx_dtype)dtype) &&
         dlx_itemsize((dlx_dtype)dtype) > 0;
}

/* ---- kernels */

static const char *run_copy_cast(void *const *args, uint32_t groups) {
  const dlx_ze_copy_args *a = args[2];
  dlx_tensor dst, src;
  const char *why = NULL;
  (void)groups; /* grid-stride: any number of groups covers the elements */
  if (!computable(a->dst_dtype) || !computable(a->src_dtype) || a->dst_dtype == a->src_dtype)
    return "dlx_copy_cast is for casts between two different computable dtypes";
  if (wrap(&dst, args[0], (dlx_dtype)a->dst_dtype, a->ndim, a->shape, a->dst_strides) != 0 ||
      wrap(&src, args[1], (dlx_dtype)a->src_dtype, a->ndim, a->shape, a->src_strides) != 0)
    why = "strides that are not whole elements";
  else if (dlx_cpu_backend.copy(&dst, &src, NULL) != 0)
    why = "the CPU backend refused the copy";
  dlx_tensor_close(&dst);
  dlx_tensor_close(&src);
  return why;
}

static void step(int64_t *index, const int64_t *shape, int64_t ndim) {
  for (int64_t d = ndim - 1; d >= 0; d--) {
    if (++index[d] < shape[d]) return;
    index[d] = 0;
  }
}

static int64_t dot(const int64_t *index, const int64_t *strides, int64_t ndim) {
  int64_t off = 0;
  for (int64_t d = 0; d < ndim; d++) off += index[d] * strides[d];
  return off;
}

static const char *run_copy_raw(void *const *args, uint32_t groups) {
  const dlx_ze_copy_args *a = args[2];
  int64_t index[DLX_ZE_MAX_NDIM] = {0};
  (void)groups;
  if (a->itemsize < 1 || a->itemsize > 16) return "itemsize out of range";
  for (int64_t i = 0; i < a->n; i++) {
    memmove((char *)args[0] + dot(index, a->dst_strides, a->ndim),
            (const char *)args[1] + dot(index, a->src_strides, a->ndim), (size_t)a->itemsize);
    step(index, a->shape, a->ndim);
  }
  return NULL;
}

static const char *run_fill(void *const *args, uint32_t groups) {
  const dlx_ze_fill_args *a = args[1];
  int64_t index[DLX_ZE_MAX_NDIM] = {0};
  (void)groups;
  if (a->itemsize < 1 || a->itemsize > 16) return "itemsize out of range";
  for (int64_t i = 0; i < a->n; i++) {
    memcpy((char *)args[0] + dot(index, a->strides, a->ndim), a->value, (size_t)a->itemsize);
    step(index, a->shape, a->ndim);
  }
  return NULL;
}

/* The chunks split each output's reduced extent: none empty, none left over. */
static bool layout_chunks_ok(const reduce_layout *l) {
  return l->chunks >= 1 && l->chunk_len * l->chunks >= l->n_red &&
         (l->n_red == 0 || (l->chunks - 1) * l->chunk_len < l->n_red);
}

/* The partial pass's launch checked and its src and dst (the finished values, C-contiguous)
 * wrapped as tensors of the kept and reduced dims, with dims the reduced ones. src and dst are
 * zeroed first: the caller closes both whatever this returns. */
static const char *layout_tensors(const reduce_layout *l, void *const *args, uint32_t groups,
                                  dlx_tensor *src, dlx_tensor *dst, uint64_t *dims) {
  int64_t shape[DLX_MAX_NDIM], strides[DLX_MAX_NDIM], out_strides[DLX_MAX_NDIM];
  int64_t out_shape[DLX_MAX_NDIM] = {0}; /* zeroed: GCC cannot tell only ndim are read */
  int64_t ndim = l->out_ndim + l->red_ndim;
  memset(src, 0, sizeof *src);
  memset(dst, 0, sizeof *dst);
  if ((int64_t)groups != l->n_out * l->chunks) return "group count is not n_out * chunks";
  if (ndim > DLX_MAX_NDIM) return "too many dims";
  *dims = 0;
  for (int64_t d = 0; d < ndim; d++) {
    bool kept = d < l->out_ndim;
    shape[d] = kept ? l->out_shape[d] : l->red_shape[d - l->out_ndim];
    strides[d] = kept ? l->out_strides[d] : l->red_strides[d - l->out_ndim];
    out_shape[d] = kept ? shape[d] : 1;
    if (!kept) *dims |= UINT64_C(1) << d;
  }
  dlx_contiguous_strides(out_shape, (int32_t)ndim, out_strides);
  for (int64_t d = 0; d < ndim; d++) out_strides[d] *= size_of(l->dst_dtype);
  if (wrap(src, args[0], (dlx_dtype)l->src_dtype, ndim, shape, strides) != 0 ||
      wrap(dst, args[1], (dlx_dtype)l->dst_dtype, ndim, out_shape, out_strides) != 0)
    return "strides that are not whole elements";
  return NULL;
}

/* The finishing pass: the partial pass left the results in partials (args[1]). */
static const char *layout_finish(const reduce_layout *l, void *const *args, uint32_t groups) {
  if ((int64_t)groups != l->n_out) return "group count is not n_out";
  memcpy(args[0], args[1], (size_t)(l->n_out * size_of(l->dst_dtype)));
  return NULL;
}

static const char *check_reduce_launch(const reduce_layout *l, int64_t op) {
  if (op < DLX_ZE_OP_SUM || op > DLX_ZE_OP_ANY) return "unknown op";
  if (!computable(l->src_dtype) || !computable(l->dst_dtype)) return "dtype not computable";
  if (!layout_chunks_ok(l)) return "chunks do not split the reduced extent";
  return NULL;
}

static const char *run_reduce_partial(void *const *args, uint32_t groups) {
  const dlx_ze_reduce_args *a = args[2];
  reduce_layout l = REDUCE_LAYOUT(a, dlx_ze_acc);
  uint64_t dims;
  dlx_tensor src, dst;
  const char *why = check_reduce_launch(&l, a->op);
  if (why != NULL) return why;
  why = layout_tensors(&l, args, groups, &src, &dst, &dims);
  if (why == NULL && dlx_cpu_backend.reduce((dlx_reduce_op)a->op, &src, dims, &dst, NULL) != 0)
    why = "the CPU backend refused the reduction";
  dlx_tensor_close(&src);
  dlx_tensor_close(&dst);
  return why;
}

static const char *run_reduce_finish(void *const *args, uint32_t groups) {
  const dlx_ze_reduce_args *a = args[2];
  reduce_layout l = REDUCE_LAYOUT(a, dlx_ze_acc);
  const char *why = check_reduce_launch(&l, a->op);
  return why != NULL ? why : layout_finish(&l, args, groups);
}

/* A scalar input's bytes (in the kernel dtype) as the value the CPU backend takes. */
static dlx_scalar scalar_of(const dlx_ze_u64 *words, int64_t kdtype) {
  dlx_scalar s;
  char bytes[16];
  memcpy(bytes, words, sizeof bytes);
  memset(&s, 0, sizeof s);
  s.kind = dlx_dtype_kind((dlx_dtype)kdtype);
  switch (s.kind) {
  case DLX_KIND_BOOL:
    s.v.b = bytes[0] != 0;
    break;
  case DLX_KIND_INT: {
    int64_t v = 0;
    int64_t size = size_of(kdtype);
    memcpy(&v, bytes, (size_t)size); /* little-endian, then sign-extended */
    s.v.i = size < 8 ? (int64_t)((uint64_t)v << (64 - 8 * size)) >> (64 - 8 * size) : v;
    break;
  }
  case DLX_KIND_UINT:
    memcpy(&s.v.u, bytes, (size_t)size_of(kdtype));
    break;
  case DLX_KIND_COMPLEX:
    if (kdtype == DLX_COMPLEX64) {
      float parts[2];
      memcpy(parts, bytes, sizeof parts);
      s.v.c[0] = parts[0];
      s.v.c[1] = parts[1];
    } else {
      memcpy(s.v.c, bytes, sizeof s.v.c);
    }
    break;
  default:
    if (kdtype == DLX_FLOAT16 || kdtype == DLX_BFLOAT16) { /* where's values */
      uint16_t h;
      memcpy(&h, bytes, sizeof h);
      s.v.f = kdtype == DLX_FLOAT16 ? dlx_half_to_float(h) : dlx_bf16_to_float(h);
    } else if (kdtype == DLX_FLOAT32) {
      float f;
      memcpy(&f, bytes, sizeof f);
      s.v.f = f;
    } else {
      memcpy(&s.v.f, bytes, sizeof s.v.f);
    }
    break;
  }
  return s;
}

static const char *run_elementwise(void *const *args, uint32_t groups) {
  const dlx_ze_ew_args *a = args[1 + DLX_ZE_EW_INPUTS];
  dlx_tensor dst, t[DLX_ZE_EW_INPUTS];
  dlx_operand in[DLX_ZE_EW_INPUTS];
  int op = -1, wrapped = 0;
  const char *why = NULL;
  (void)groups; /* grid-stride */
  for (int o = 0; o < DLX_EW_NUM_OPS && op < 0; o++)
    if (dlx_ewk_op_of((dlx_ew_op)o) == a->op) op = o;
  if (op < 0 || a->nin != dlx_ew_arity((dlx_ew_op)op)) return "unknown op or wrong arity";
  if (!computable(a->kdtype) ||
      a->kdtype != dlx_ewk_kernel_dtype_of((dlx_ew_op)op, (dlx_dtype)a->kdtype) ||
      dlx_ewk_result((int)a->op, (int)a->kdtype) == DLX_EWK_RESULT_NONE)
    return "op not defined for the kernel dtype";
  if (a->kout != dlx_ew_result_of((dlx_ew_op)op, (dlx_dtype)a->kdtype)) return "wrong kout";
  if (!computable(a->dst_dtype)) return "dst dtype not computable";
  memset(in, 0, sizeof in);
  memset(t, 0, sizeof t);
  for (int k = 0; k < a->nin && why == NULL; k++) {
    if (a->in_scalar[k]) {
      in[k].scalar = scalar_of(a->scalar[k], dlx_ewk_input_dtype((int)a->op, k, (int)a->kdtype));
    } else if (!computable(a->in_dtype[k]) || wrap(&t[k], args[k + 1], (dlx_dtype)a->in_dtype[k],
                                                   a->ndim, a->shape, a->in_strides[k]) != 0) {
      why = "an input of a bad dtype or strides";
    } else {
      in[k].tensor = &t[k];
      wrapped |= 1 << k;
    }
  }
  if (why == NULL &&
      wrap(&dst, args[0], (dlx_dtype)a->dst_dtype, a->ndim, a->shape, a->dst_strides) != 0)
    why = "dst strides that are not whole elements";
  else if (why == NULL) {
    if (dlx_cpu_backend.elementwise((dlx_ew_op)op, &dst, in, (dlx_dtype)a->kdtype, NULL) != 0)
      why = "the CPU backend refused the op";
    dlx_tensor_close(&dst);
  }
  for (int k = 0; k < DLX_ZE_EW_INPUTS; k++)
    if (wrapped & (1 << k)) dlx_tensor_close(&t[k]);
  return why;
}

/* ---- var, std, logsumexp, norm: as the reductions, the partial pass leaves the results */

static void stat_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  reduce_layout l = REDUCE_LAYOUT((const dlx_ze_stat_args *)args[2], dlx_stat_acc);
  layout_extent(&l, i, lo, hi);
}

static void stat_finish_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  reduce_layout l = REDUCE_LAYOUT((const dlx_ze_stat_args *)args[2], dlx_stat_acc);
  layout_finish_extent(&l, i, lo, hi);
}

/* The op and param of a kind (DLX_STAT_K_*), false for an unknown kind. */
static bool stat_op_of(int64_t kind, double param, dlx_stat_op *op, double *p) {
  static const dlx_stat_op ops[] = {DLX_STAT_VAR,  DLX_STAT_STD,  DLX_STAT_LOGSUMEXP,
                                    DLX_STAT_NORM, DLX_STAT_NORM, DLX_STAT_NORM};
  static const double norms[] = {0, 0, 0, 1, 2, INFINITY};
  if (kind < 0 || kind > DLX_STAT_K_NORMINF) return false;
  *op = ops[kind];
  *p = kind < DLX_STAT_K_NORM1 ? param : norms[kind];
  return true;
}

static const char *check_stat_launch(const dlx_ze_stat_args *a, const reduce_layout *l) {
  dlx_dtype want;
  if (a->kind < 0 || a->kind > DLX_STAT_K_NORMINF) return "unknown kind";
  if (!computable(a->src_dtype) ||
      dlx_stat_dtype("stat", (dlx_dtype)a->src_dtype, &want, NULL) != 0 ||
      want != (dlx_dtype)a->dst_dtype)
    return "dtypes that var, std, logsumexp and norm do not take or give";
  if (!layout_chunks_ok(l)) return "chunks do not split the reduced extent";
  return NULL;
}

static const char *run_stat_partial(void *const *args, uint32_t groups) {
  const dlx_ze_stat_args *a = args[2];
  reduce_layout l = REDUCE_LAYOUT(a, dlx_stat_acc);
  uint64_t dims;
  dlx_stat_op op;
  double param;
  dlx_tensor src, dst;
  const char *why = check_stat_launch(a, &l);
  if (why != NULL) return why;
  if (!stat_op_of(a->kind, a->param, &op, &param)) return "unknown kind";
  why = layout_tensors(&l, args, groups, &src, &dst, &dims);
  if (why == NULL && dlx_cpu_backend.reduce_stat(op, param, &src, dims, &dst, NULL) != 0)
    why = "the CPU backend refused the reduction";
  dlx_tensor_close(&src);
  dlx_tensor_close(&dst);
  return why;
}

static const char *run_stat_finish(void *const *args, uint32_t groups) {
  const dlx_ze_stat_args *a = args[2];
  reduce_layout l = REDUCE_LAYOUT(a, dlx_stat_acc);
  const char *why = check_stat_launch(a, &l);
  return why != NULL ? why : layout_finish(&l, args, groups);
}

/* ---- ops along a dim */

static void dim_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_dim_args *a = args[2];
  int64_t shape[DLX_ZE_MAX_NDIM + 1], strides[DLX_ZE_MAX_NDIM + 1];
  if (i == 2) {
    *lo = 0;
    *hi = sizeof *a;
    return;
  }
  memcpy(shape, a->outer_shape, (size_t)a->outer_ndim * 8);
  memcpy(strides, i == 0 ? a->dst_strides : a->src_strides, (size_t)a->outer_ndim * 8);
  shape[a->outer_ndim] = a->len;
  strides[a->outer_ndim] = i == 0 ? a->dst_step : a->src_step;
  walk_extent(a->lines * a->len, a->outer_ndim + 1, shape, strides,
              size_of(i == 0 ? a->dst_dtype : a->src_dtype), lo, hi);
}

static const char *run_along_dim(void *const *args, uint32_t groups) {
  const dlx_ze_dim_args *a = args[2];
  int64_t shape[DLX_ZE_MAX_NDIM + 1], sstrides[DLX_ZE_MAX_NDIM + 1], dstrides[DLX_ZE_MAX_NDIM + 1];
  int64_t ndim = a->outer_ndim + 1, lines = 1;
  dlx_tensor src, dst;
  const char *why = NULL;
  memset(&src, 0, sizeof src); /* closed below even when wrap did not reach them */
  memset(&dst, 0, sizeof dst);
  if (a->op < DLX_ZE_DIM_CUMSUM || a->op > DLX_ZE_DIM_LOG_SOFTMAX) return "unknown op";
  if (!computable(a->src_dtype) || !computable(a->dst_dtype)) return "dtype not computable";
  if (a->outer_ndim < 0 || a->outer_ndim >= DLX_ZE_MAX_NDIM) return "too many dims";
  for (int64_t d = 0; d < a->outer_ndim; d++) lines *= a->outer_shape[d];
  if (lines != a->lines || a->len < 1) return "lines do not match the outer shape";
  if (groups < 1 || (a->per_group && (int64_t)groups > a->lines))
    return "more work-groups than lines";
  memcpy(shape, a->outer_shape, (size_t)a->outer_ndim * 8);
  memcpy(sstrides, a->src_strides, (size_t)a->outer_ndim * 8);
  memcpy(dstrides, a->dst_strides, (size_t)a->outer_ndim * 8);
  shape[a->outer_ndim] = a->len;
  sstrides[a->outer_ndim] = a->src_step;
  dstrides[a->outer_ndim] = a->dst_step;
  if (wrap(&src, args[1], (dlx_dtype)a->src_dtype, ndim, shape, sstrides) != 0 ||
      wrap(&dst, args[0], (dlx_dtype)a->dst_dtype, ndim, shape, dstrides) != 0)
    why = "strides that are not whole elements";
  else if (dlx_cpu_backend.along_dim((dlx_dim_op)a->op, &src, (int32_t)a->outer_ndim, &dst, NULL) !=
           0)
    why = "the CPU backend refused the op";
  dlx_tensor_close(&src);
  dlx_tensor_close(&dst);
  return why;
}

/* ---- random numbers */

/* The parameters pa and pb (args 1 and 2) are read only where has_a and has_b say so. */
static void random_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_random_args *a = args[3];
  *lo = 0;
  if (i == 3)
    *hi = sizeof *a;
  else if (i == 0)
    *hi = (size_t)(a->n * size_of(a->dtype));
  else
    *hi = (i == 1 ? a->has_a : a->has_b) ? (size_t)a->n * sizeof(double) : 0;
}

/* Wraps the float64 parameters of a request, when it has them (*p NULL otherwise). */
static int wrap_param(dlx_tensor *t, const dlx_tensor **p, void *data, int64_t has, int64_t n) {
  int64_t stride = sizeof(double);
  *p = NULL;
  if (!has) return 0;
  *p = t;
  return wrap(t, data, DLX_FLOAT64, 1, &n, &stride);
}

static const char *run_fill_random(void *const *args, uint32_t groups) {
  const dlx_ze_random_args *a = args[3];
  dlx_random_request r = {.kind = (dlx_random_kind)a->kind,
                          .seed = a->seed,
                          .offset = a->offset,
                          .lanes = (int)a->lanes,
                          .a = a->a,
                          .b = a->b,
                          .low = a->low,
                          .range = a->range};
  int64_t shape[1] = {a->n}, strides[1] = {size_of(a->dtype)};
  bool is_int = a->kind == DLX_RNG_INT;
  dlx_tensor dst, pa, pb;
  const char *why = NULL;
  (void)groups; /* grid-stride */
  if (a->kind < DLX_RNG_UNIFORM || a->kind > DLX_RNG_POISSON) return "unknown kind";
  if (!computable(a->dtype)) return "dtype not computable";
  if (is_int ? a->range < 1 : a->bits != dlx_random_float_bits((dlx_dtype)a->dtype))
    return "bits or range that do not match the request";
  if (a->lanes != dlx_random_lanes(r.kind, (dlx_dtype)a->dtype, a->range))
    return "lanes that do not match the kind, dtype or range";
  if (a->n < 1) return "no elements";
  memset(&dst, 0, sizeof dst);
  memset(&pa, 0, sizeof pa);
  memset(&pb, 0, sizeof pb);
  if (wrap(&dst, args[0], (dlx_dtype)a->dtype, 1, shape, strides) != 0 ||
      wrap_param(&pa, &r.ta, args[1], a->has_a, a->n) != 0 ||
      wrap_param(&pb, &r.tb, args[2], a->has_b, a->n) != 0)
    why = "a bad dtype";
  else if (dlx_cpu_backend.fill_random(&dst, &r, NULL) != 0)
    why = "the CPU backend refused the request";
  dlx_tensor_close(&dst);
  dlx_tensor_close(&pa);
  dlx_tensor_close(&pb);
  return why;
}

/* ---- multinomial: the rows on the CPU backend (the kernel's scratch is not needed there) */

static void multinomial_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_multinomial_args *a = args[4];
  *lo = 0;
  if (i == 4)
    *hi = sizeof *a;
  else if (i == 0)
    *hi = (size_t)(a->rows * a->n) * 8;
  else if (i == 1)
    *hi = (size_t)(a->rows * a->k) * (a->is64 ? 8 : 4);
  else if (i == 2)
    *hi = (size_t)a->rows * 8;
  else
    *hi = (size_t)(a->rows * (a->replacement ? a->k : a->n)) * 8;
}

static const char *run_multinomial(void *const *args, uint32_t groups) {
  const dlx_ze_multinomial_args *a = args[4];
  int64_t wshape[2] = {a->rows, a->k}, wstrides[2] = {a->k * (a->is64 ? 8 : 4), a->is64 ? 8 : 4};
  int64_t oshape[2] = {a->rows, a->n}, ostrides[2] = {a->n * 8, 8}, sstrides[1] = {8};
  dlx_tensor w, out, status;
  dlx_multinomial_request r = {.weights = &w,
                               .out = &out,
                               .status = &status,
                               .n = a->n,
                               .replacement = a->replacement != 0,
                               .seed = a->seed,
                               .offset = a->offset};
  const char *why = NULL;
  (void)groups; /* grid-stride */
  if (a->rows < 1 || a->k < 1 || a->n < 0) return "a bad shape";
  memset(&w, 0, sizeof w);
  memset(&out, 0, sizeof out);
  memset(&status, 0, sizeof status);
  if (wrap(&w, args[1], a->is64 ? DLX_FLOAT64 : DLX_FLOAT32, 2, wshape, wstrides) != 0 ||
      wrap(&out, args[0], DLX_INT64, 2, oshape, ostrides) != 0 ||
      wrap(&status, args[2], DLX_INT64, 1, &a->rows, sstrides) != 0)
    why = "no memory to wrap the operands";
  else if (dlx_cpu_backend.multinomial(&r, NULL) != 0)
    why = "the CPU backend refused the request";
  dlx_tensor_close(&w);
  dlx_tensor_close(&out);
  dlx_tensor_close(&status);
  return why;
}

/* ---- row scans: the rows on the CPU backend's row_op */

static void row_scan_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_row_scan_args *a = args[3];
  size_t count = (size_t)(a->rows * a->n);
  *lo = 0;
  if (i == 3)
    *hi = sizeof *a;
  else if (i == 0)
    *hi = count * (size_t)size_of(a->values_dtype);
  else if (i == 1) /* no indices for LOGCUMSUMEXP */
    *hi = a->op == DLX_ZE_ROW_LOGCUMSUMEXP ? 0 : count * sizeof(int64_t);
  else
    *hi = count * (size_t)size_of(a->src_dtype);
}

static const char *run_row_scan(void *const *args, uint32_t groups) {
  const dlx_ze_row_scan_args *a = args[3];
  bool lse = a->op == DLX_ZE_ROW_LOGCUMSUMEXP;
  int64_t shape[2] = {a->rows, a->n}, ss = size_of(a->src_dtype), vs = size_of(a->values_dtype);
  int64_t src_strides[2] = {a->n * ss, ss}, values_strides[2] = {a->n * vs, vs};
  int64_t index_strides[2] = {a->n * 8, 8};
  dlx_tensor src, values, indices;
  dlx_row_request r = {.op = (dlx_row_op)a->op, .src = &src, .values = &values};
  const char *why = NULL;
  (void)groups; /* grid-stride */
  if (a->op < DLX_ZE_ROW_CUMMAX || a->op > DLX_ZE_ROW_LOGCUMSUMEXP) return "an unknown op";
  if (a->rows < 1 || a->n < 1) return "a bad shape";
  if (!computable(a->src_dtype) || !computable(a->values_dtype) ||
      (lse ? dlx_dtype_kind((dlx_dtype)a->values_dtype) != DLX_KIND_FLOAT
           : a->values_dtype != a->src_dtype))
    return "a bad dtype";
  if (a->key_kind != dlx_sort_key_kind((dlx_dtype)a->src_dtype) ||
      a->is_float != (dlx_dtype_kind((dlx_dtype)a->src_dtype) == DLX_KIND_FLOAT))
    return "a key kind that is not the dtype's";
  memset(&src, 0, sizeof src);
  memset(&values, 0, sizeof values);
  memset(&indices, 0, sizeof indices);
  if (!lse) r.indices = &indices;
  if (wrap(&src, args[2], (dlx_dtype)a->src_dtype, 2, shape, src_strides) != 0 ||
      wrap(&values, args[0], (dlx_dtype)a->values_dtype, 2, shape, values_strides) != 0 ||
      (!lse && wrap(&indices, args[1], DLX_INT64, 2, shape, index_strides) != 0))
    why = "no memory to wrap the operands";
  else if (dlx_cpu_backend.row_op(&r, NULL) != 0)
    why = "the CPU backend refused the request";
  dlx_tensor_close(&src);
  dlx_tensor_close(&values);
  dlx_tensor_close(&indices);
  return why;
}

/* ---- image_op: the planes on the CPU backend's image_op */

static void image_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_image_args *a = args[3];
  size_t size = a->is_double ? 8 : 4;
  *lo = 0;
  if (i == 3)
    *hi = sizeof *a;
  else if (i == 0)
    *hi = (size_t)(a->planes * a->out_h * a->out_w) * size;
  else if (i == 1) /* indices: MAX_POOL with has_indices only */
    *hi = a->has_indices ? (size_t)(a->planes * a->out_h * a->out_w) * sizeof(int64_t) : 0;
  else
    *hi = (size_t)(a->planes * a->in_h * a->in_w) * size;
}

static const char *run_image(void *const *args, uint32_t groups) {
  const dlx_ze_image_args *a = args[3];
  dlx_dtype dtype = a->is_double ? DLX_FLOAT64 : DLX_FLOAT32;
  int64_t size = a->is_double ? 8 : 4, in[3] = {a->planes, a->in_h, a->in_w};
  int64_t out[3] = {a->planes, a->out_h, a->out_w};
  int64_t in_strides[3] = {a->in_h * a->in_w * size, a->in_w * size, size};
  int64_t out_strides[3] = {a->out_h * a->out_w * size, a->out_w * size, size};
  int64_t index_strides[3] = {a->out_h * a->out_w * 8, a->out_w * 8, 8};
  dlx_tensor src, dst, indices;
  dlx_image_request r;
  const char *why = NULL;
  (void)groups; /* grid-stride */
  if (a->op < DLX_ZE_IMAGE_MAX_POOL || a->op > DLX_ZE_IMAGE_BICUBIC) return "an unknown op";
  if (a->planes < 1 || a->in_h < 1 || a->in_w < 1 || a->out_h < 1 || a->out_w < 1)
    return "a bad shape";
  if (a->has_indices && a->op != DLX_ZE_IMAGE_MAX_POOL) return "indices of an op without them";
  memset(&r, 0, sizeof r);
  r.op = (dlx_image_op)a->op;
  for (int d = 0; d < 2; d++) {
    r.kernel[d] = a->size[d];
    r.stride[d] = a->stride[d];
    r.padding[d] = a->padding[d];
    r.dilation[d] = a->dilation[d];
    r.scale[d] = a->scale[d];
  }
  r.count_include_pad = a->count_include_pad != 0;
  r.divisor = a->divisor;
  r.align_corners = a->align_corners != 0;
  memset(&src, 0, sizeof src);
  memset(&dst, 0, sizeof dst);
  memset(&indices, 0, sizeof indices);
  r.src = &src;
  r.dst = &dst;
  r.indices = a->has_indices ? &indices : NULL;
  if (wrap(&src, args[2], dtype, 3, in, in_strides) != 0 ||
      wrap(&dst, args[0], dtype, 3, out, out_strides) != 0 ||
      (a->has_indices && wrap(&indices, args[1], DLX_INT64, 3, out, index_strides) != 0))
    why = "no memory to wrap the operands";
  else if (dlx_cpu_backend.image_op(&r, NULL) != 0)
    why = "the CPU backend refused the request";
  dlx_tensor_close(&src);
  dlx_tensor_close(&dst);
  dlx_tensor_close(&indices);
  return why;
}

/* ---- count: the phases on the CPU backend's count_op */

/* A dtype of each sort key kind (DLX_SORT_KEY_*'s order), for the searches. */
static const dlx_dtype count_key_dtypes[] = {
    DLX_BOOL,   DLX_UINT8, DLX_INT8,    DLX_UINT16, DLX_INT16, DLX_FLOAT16, DLX_BFLOAT16,
    DLX_UINT32, DLX_INT32, DLX_FLOAT32, DLX_UINT64, DLX_INT64, DLX_FLOAT64};

static dlx_dtype count_src_dtype(const dlx_ze_count_args *a) {
  if (a->phase == DLX_ZE_COUNT_SEARCH) return count_key_dtypes[a->key_kind];
  if (a->op == DLX_ZE_COUNT_OP_BINCOUNT) return DLX_INT64;
  return a->is64 ? DLX_FLOAT64 : DLX_FLOAT32;
}

static bool count_args_ok(const dlx_ze_count_args *a) {
  if (a->phase < DLX_ZE_COUNT_ZERO || a->phase > DLX_ZE_COUNT_SEARCH) return false;
  if (a->phase == DLX_ZE_COUNT_SEARCH)
    return a->op == DLX_ZE_COUNT_OP_SEARCH && a->key_kind >= 0 &&
           a->key_kind < (dlx_ze_i64)(sizeof count_key_dtypes / sizeof count_key_dtypes[0]) &&
           a->rows >= 1 && a->m >= 1 && a->n >= 1;
  return a->op >= DLX_ZE_COUNT_OP_BINCOUNT && a->op <= DLX_ZE_COUNT_OP_EDGES && a->n >= 1 &&
         a->nbins >= 1;
}

static void count_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_count_args *a = args[4];
  bool search = a->phase == DLX_ZE_COUNT_SEARCH, bins = a->phase == DLX_ZE_COUNT_BINS;
  size_t item = count_args_ok(a) ? (size_t)size_of(count_src_dtype(a)) : 0;
  *lo = 0;
  if (!count_args_ok(a))
    *hi = i == 4 ? sizeof *a : 0;
  else if (i == 4)
    *hi = sizeof *a;
  else if (i == 0)
    *hi = (size_t)(search ? a->rows * a->m : a->nbins) * 8;
  else if (i == 1)
    *hi = search ? (size_t)(a->rows * a->m) * item : bins ? (size_t)a->n * item : 0;
  else if (i == 2)
    *hi = search ? (size_t)((a->shared_row ? 1 : a->rows) * a->n) * item
          : bins && a->op == DLX_ZE_COUNT_OP_EDGES ? (size_t)(a->nbins + 1) * item
                                                   : 0;
  else
    *hi = bins && a->has_weights ? (size_t)a->n * sizeof(double) : 0;
}

static const char *run_count(void *const *args, uint32_t groups) {
  const dlx_ze_count_args *a = args[4];
  dlx_dtype dtype;
  int64_t item, srows, vshape[2], sshape[2], oshape[1], bshape[1];
  dlx_tensor out, src, edges, weights, sums;
  dlx_count_request r;
  const char *why = NULL;
  (void)groups; /* grid-stride */
  if (!count_args_ok(a)) return "bad arguments";
  if (a->phase == DLX_ZE_COUNT_ZERO) {
    memset(args[0], 0, (size_t)a->nbins * 8);
    return NULL;
  }
  dtype = count_src_dtype(a);
  item = size_of(dtype);
  memset(&r, 0, sizeof r);
  memset(&out, 0, sizeof out);
  memset(&src, 0, sizeof src);
  memset(&edges, 0, sizeof edges);
  memset(&weights, 0, sizeof weights);
  memset(&sums, 0, sizeof sums);
  r.op = (dlx_count_op)a->op;
  r.nbins = a->nbins;
  r.lo = a->lo;
  r.hi = a->hi;
  r.uniform = a->uniform != 0;
  r.right = a->right != 0;
  if (a->phase == DLX_ZE_COUNT_SEARCH) {
    int64_t vstrides[2] = {a->m * item, item}, sstrides[2] = {a->n * item, item};
    int64_t ostrides[2] = {a->m * 8, 8};
    srows = a->shared_row ? 1 : a->rows;
    vshape[0] = a->rows;
    vshape[1] = a->m;
    sshape[0] = srows;
    sshape[1] = a->n;
    if (wrap(&src, args[1], dtype, 2, vshape, vstrides) != 0 ||
        wrap(&edges, args[2], dtype, 2, sshape, sstrides) != 0 ||
        wrap(&out, args[0], DLX_INT64, 2, vshape, ostrides) != 0)
      why = "no memory to wrap the operands";
    r.src = &src;
    r.edges = &edges;
    r.out = &out;
    if (why == NULL && dlx_cpu_backend.count_op(&r, NULL) != 0)
      why = "the CPU backend refused the request";
  } else {
    /* the bins of this launch, added to out's (the atomics add to what is there) */
    DLDevice cpu = {kDLCPU, 0};
    int64_t one[1] = {item}, eight[1] = {8}, ne[1] = {a->nbins + 1};
    dlx_dtype sum_dtype = a->has_weights ? DLX_FLOAT64 : DLX_INT64;
    vshape[0] = a->n;
    oshape[0] = a->nbins;
    bshape[0] = a->n;
    if (wrap(&src, args[1], dtype, 1, vshape, one) != 0 ||
        (a->op == DLX_ZE_COUNT_OP_EDGES && wrap(&edges, args[2], dtype, 1, ne, one) != 0) ||
        (a->has_weights && wrap(&weights, args[3], DLX_FLOAT64, 1, bshape, eight) != 0) ||
        dlx_tensor_empty(&sums, oshape, 1, sum_dtype, cpu, NULL) != 0)
      why = "no memory to wrap the operands";
    r.src = &src;
    r.edges = a->op == DLX_ZE_COUNT_OP_EDGES ? &edges : NULL;
    r.weights = a->has_weights ? &weights : NULL;
    r.out = &sums;
    if (why == NULL && dlx_cpu_backend.count_op(&r, NULL) != 0)
      why = "the CPU backend refused the request";
    for (int64_t b = 0; why == NULL && b < a->nbins; b++) {
      if (a->has_weights)
        ((double *)args[0])[b] += ((const double *)sums.buffer->data)[b];
      else
        ((int64_t *)args[0])[b] += ((const int64_t *)sums.buffer->data)[b];
    }
  }
  dlx_tensor_close(&out);
  dlx_tensor_close(&src);
  dlx_tensor_close(&edges);
  dlx_tensor_close(&weights);
  dlx_tensor_close(&sums);
  return why;
}

/* ---- sort: each phase as the kernel computes it, element by element */

static void sort_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_sort_args *a = args[5];
  *lo = 0;
  if (i == 5)
    *hi = sizeof *a;
  else if (i <= 1)
    *hi = (size_t)(a->rows * a->n * a->itemsize);
  else if (i == 2)
    *hi = (size_t)(a->rows * a->n) * sizeof(int64_t);
  else
    *hi = (size_t)(a->rows * a->padded) * sizeof(uint64_t);
}

static int64_t key_size(int64_t kind) {
  if (kind <= DLX_SORT_KEY_I8) return 1;
  if (kind <= DLX_SORT_KEY_BF16) return 2;
  return kind <= DLX_SORT_KEY_F32 ? 4 : 8;
}

static const char *check_sort(const dlx_ze_sort_args *a) {
  if (a->phase < DLX_ZE_SORT_KEYS || a->phase > DLX_ZE_SORT_GATHER) return "unknown phase";
  if (a->key_kind < DLX_SORT_KEY_BOOL || a->key_kind > DLX_SORT_KEY_F64) return "unknown key";
  if (a->itemsize != key_size(a->key_kind)) return "an itemsize that is not the key's";
  if (a->flip != 0 &&
      a->flip != (a->itemsize == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * a->itemsize)) - 1))
    return "a flip that is not 0 or the key width's ones";
  if (a->rows < 1 || a->n < 1 || a->padded < a->n || a->padded >= 2 * a->n ||
      (a->padded & (a->padded - 1)) != 0)
    return "rows, n or padded (the power of two >= n) out of range";
  if (a->phase == DLX_ZE_SORT_STEP && (a->k < 2 || a->k > a->padded || (a->k & (a->k - 1)) != 0 ||
                                       a->j < 1 || a->j >= a->k || (a->j & (a->j - 1)) != 0))
    return "a bitonic step (k, j) out of range";
  return NULL;
}

static void ref_sort_keys(const unsigned char *src, uint64_t *keys, int64_t *pos,
                          const dlx_ze_sort_args *a) {
  for (int64_t g = 0; g < a->rows * a->padded; g++) {
    int64_t r = g / a->padded, i = g % a->padded;
    uint64_t element = 0;
    if (i < a->n) {
      memcpy(&element, src + (r * a->n + i) * a->itemsize, (size_t)a->itemsize);
      keys[g] = dlx_sort_key_at((int)a->key_kind, &element) ^ a->flip;
    } else {
      keys[g] = ~UINT64_C(0);
    }
    pos[g] = i;
  }
}

static void ref_sort_step(uint64_t *keys, int64_t *pos, const dlx_ze_sort_args *a) {
  for (int64_t g = 0; g < a->rows * a->padded; g++) {
    int64_t i = g % a->padded, partner = i ^ a->j, h = g + (partner - i);
    bool after;
    if (partner <= i) continue;
    after = keys[g] > keys[h] || (keys[g] == keys[h] && pos[g] > pos[h]);
    if (after == ((i & a->k) == 0)) {
      uint64_t key = keys[g];
      int64_t p = pos[g];
      keys[g] = keys[h];
      pos[g] = pos[h];
      keys[h] = key;
      pos[h] = p;
    }
  }
}

static const char *run_sort_rows(void *const *args, uint32_t groups) {
  const dlx_ze_sort_args *a = args[5];
  const char *why = check_sort(a);
  const unsigned char *src = args[0];
  uint64_t *keys = args[3];
  int64_t *pos = args[4];
  (void)groups; /* grid-stride */
  if (why != NULL) return why;
  if (a->phase == DLX_ZE_SORT_KEYS) {
    ref_sort_keys(src, keys, pos, a);
  } else if (a->phase == DLX_ZE_SORT_STEP) {
    ref_sort_step(keys, pos, a);
  } else {
    unsigned char *values = args[1];
    int64_t *indices = args[2];
    for (int64_t g = 0; g < a->rows * a->n; g++) {
      int64_t r = g / a->n, p = pos[r * a->padded + g % a->n];
      if (p < 0 || p >= a->n) return "a sorted position out of its row (keys not made?)";
      memcpy(values + g * a->itemsize, src + (r * a->n + p) * a->itemsize, (size_t)a->itemsize);
      indices[g] = p + 1;
    }
  }
  return NULL;
}

/* ---- indexing: the chunk phases in C, the moves on the CPU backend's index_op */

/* The walk of the block with up to two extra dims (shape, byte stride) appended. */
static void index_walk_extent(const dlx_ze_index_args *a, int m, int64_t itemsize, int extra,
                              const int64_t *extra_shape, const int64_t *extra_strides, size_t *lo,
                              size_t *hi) {
  int64_t shape[DLX_ZE_MAX_NDIM + 2], strides[DLX_ZE_MAX_NDIM + 2], n = 1;
  int64_t ndim = a->ndim < 0 ? 0 : a->ndim > DLX_ZE_MAX_NDIM ? DLX_ZE_MAX_NDIM : a->ndim;
  for (int64_t d = 0; d < ndim; d++) {
    shape[d] = a->shape[d];
    strides[d] = a->strides[m][d];
    n *= shape[d];
  }
  for (int k = 0; k < extra; k++) {
    shape[ndim + k] = extra_shape[k];
    strides[ndim + k] = extra_strides[k];
    n *= extra_shape[k];
  }
  walk_extent(n, ndim + extra, shape, strides, itemsize, lo, hi);
}

static bool index_is_scatter(int64_t phase) {
  return phase == DLX_ZE_INDEX_SCATTER || phase == DLX_ZE_INDEX_SCATTER_ADD;
}

static void index_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_index_args *a = args[4];
  int64_t p = a->phase, size = a->itemsize;
  int64_t line[2] = {a->len, a->size}, steps[2] = {0, a->stride};
  bool mask_phase = p == DLX_ZE_INDEX_COUNT || p >= DLX_ZE_INDEX_MASKED_SELECT;
  *lo = *hi = 0;
  if (i == 4) {
    *hi = sizeof *a;
  } else if (i == 3) { /* scratch */
    if (p != DLX_ZE_INDEX_GATHER && !index_is_scatter(p)) *hi = (size_t)(a->chunks + 1) * 8;
  } else if (i == 2) { /* the index or the mask */
    steps[0] = a->step[2];
    if (p == DLX_ZE_INDEX_CHECK || p == DLX_ZE_INDEX_GATHER)
      index_walk_extent(a, 2, 8, 0, NULL, NULL, lo, hi);
    else if (index_is_scatter(p))
      index_walk_extent(a, 2, 8, 1, line, steps, lo, hi);
    else if (mask_phase)
      index_walk_extent(a, 2, 1, 0, NULL, NULL, lo, hi);
  } else if (p == DLX_ZE_INDEX_GATHER) {
    index_walk_extent(a, i, size, i == 1, &a->size, &a->stride, lo, hi);
  } else if (index_is_scatter(p)) {
    steps[0] = a->step[i];
    index_walk_extent(a, i, size, i == 0 ? 2 : 1, line, steps, lo, hi);
  } else if (p == DLX_ZE_INDEX_MASKED_SELECT) {
    if (i == 0)
      *hi = (size_t)(a->count * size);
    else
      index_walk_extent(a, 1, size, 0, NULL, NULL, lo, hi);
  } else if (p == DLX_ZE_INDEX_MASKED_SCATTER) {
    if (i == 0)
      index_walk_extent(a, 0, size, 0, NULL, NULL, lo, hi);
    else
      walk_extent(a->count, 1, &a->count, &a->src_step, size, lo, hi);
  } else if (p == DLX_ZE_INDEX_NONZERO && i == 0) {
    *hi = (size_t)(a->count * a->ndim * 8);
  }
}

static const char *check_index_launch(const dlx_ze_index_args *a, uint32_t groups) {
  int64_t n = 1, p = a->phase;
  bool chunked = p != DLX_ZE_INDEX_GATHER && !index_is_scatter(p);
  if (p < DLX_ZE_INDEX_CHECK || p > DLX_ZE_INDEX_NONZERO) return "unknown phase";
  if (a->ndim < 0 || a->ndim > DLX_ZE_MAX_NDIM) return "ndim out of range";
  for (int64_t d = 0; d < a->ndim; d++) n *= a->shape[d];
  if (n != a->n || n < 1) return "n is not the walk's positions (or 0)";
  if (chunked && (a->chunk_len < 1 || a->chunks != (a->n + a->chunk_len - 1) / a->chunk_len))
    return "chunks do not split the walk";
  if ((p == DLX_ZE_INDEX_FIRST || p == DLX_ZE_INDEX_SCAN) && groups != 1)
    return "FIRST and SCAN run on one work-group";
  if (groups < 1 ||
      (int64_t)groups > ((chunked ? a->chunks : a->n) + DLX_ZE_GROUP_SIZE - 1) / DLX_ZE_GROUP_SIZE)
    return "more work-groups than work";
  if ((p == DLX_ZE_INDEX_GATHER || index_is_scatter(p) || p == DLX_ZE_INDEX_MASKED_SELECT ||
       p == DLX_ZE_INDEX_MASKED_SCATTER) &&
      (a->itemsize < 1 || a->itemsize != size_of(a->dtype)))
    return "an itemsize that is not the dtype's";
  if (p == DLX_ZE_INDEX_SCATTER_ADD && !computable(a->dtype)) return "a dtype that cannot add";
  if (index_is_scatter(p) && a->len < 1) return "empty lines";
  return NULL;
}

/* Element k of the walk's operand m, as a pointer. */
static const unsigned char *index_element(const unsigned char *base, const dlx_ze_index_args *a,
                                          int m, int64_t k) {
  int64_t off = 0;
  for (int64_t d = a->ndim - 1; d >= 0; d--) {
    off += k % a->shape[d] * a->strides[m][d];
    k /= a->shape[d];
  }
  return base + off;
}

static int64_t chunk_end(const dlx_ze_index_args *a, int64_t c) {
  int64_t end = (c + 1) * a->chunk_len;
  return end < a->n ? end : a->n;
}

static void ref_index_chunks(void *const *args, const dlx_ze_index_args *a) {
  int64_t *scratch = args[3];
  for (int64_t c = 0; c < a->chunks; c++) {
    int64_t result = a->phase == DLX_ZE_INDEX_CHECK ? a->n : 0;
    for (int64_t k = c * a->chunk_len; k < chunk_end(a, c); k++) {
      const unsigned char *e = index_element(args[2], a, 2, k);
      if (a->phase == DLX_ZE_INDEX_COUNT) {
        result += *e != 0;
      } else {
        int64_t v;
        memcpy(&v, e, 8);
        if (!((v >= 1 && v <= a->size) || (v < 0 && v >= -a->size))) {
          result = k;
          break;
        }
      }
    }
    scratch[c] = result;
  }
}

static void ref_index_combine(int64_t *scratch, const dlx_ze_index_args *a) {
  int64_t acc = a->phase == DLX_ZE_INDEX_FIRST ? a->n : 0;
  for (int64_t c = 0; c < a->chunks; c++) {
    if (a->phase == DLX_ZE_INDEX_FIRST) {
      if (scratch[c] < acc) acc = scratch[c];
    } else {
      int64_t own = scratch[c];
      scratch[c] = acc;
      acc += own;
    }
  }
  scratch[a->chunks] = acc;
}

/* The write phases number a chunk's elements from scratch: it must hold SCAN's result. */
static const char *check_scanned(const int64_t *scratch, const unsigned char *mask,
                                 const dlx_ze_index_args *a) {
  int64_t before = 0;
  for (int64_t c = 0; c < a->chunks; c++) {
    if (scratch[c] != before) return "scratch does not hold the chunks' prefix sums (no SCAN?)";
    for (int64_t k = c * a->chunk_len; k < chunk_end(a, c); k++)
      before += *index_element(mask, a, 2, k) != 0;
  }
  if (scratch[a->chunks] != before || before != a->count) return "count is not the true elements";
  return NULL;
}

/* The launch as a request to the CPU backend: each operand walked as the kernel walks it (with
 * the line dim last for SCATTER*), or 1-D or 2-D where the block says so. */
static const char *ref_index_move(void *const *args, const dlx_ze_index_args *a) {
  int64_t p = a->phase, ndim = a->ndim, dims[3];
  int64_t shape[3][DLX_ZE_MAX_NDIM + 1], strides[3][DLX_ZE_MAX_NDIM + 1];
  dlx_dtype dtypes[3] = {(dlx_dtype)a->dtype, (dlx_dtype)a->dtype, DLX_INT64};
  dlx_tensor t[3];
  dlx_index_request r;
  const char *why = NULL;
  memset(t, 0, sizeof t);
  memset(&r, 0, sizeof r);
  for (int m = 0; m < 3; m++) {
    dims[m] = ndim;
    memcpy(shape[m], a->shape, (size_t)ndim * 8);
    memcpy(strides[m], a->strides[m], (size_t)ndim * 8);
    if (index_is_scatter(p)) {
      shape[m][ndim] = a->len;
      strides[m][ndim] = a->step[m];
      dims[m] = ndim + 1;
    }
  }
  if (p >= DLX_ZE_INDEX_MASKED_SELECT) dtypes[2] = DLX_BOOL;
  if (p == DLX_ZE_INDEX_MASKED_SELECT || p == DLX_ZE_INDEX_MASKED_SCATTER) {
    int m = p == DLX_ZE_INDEX_MASKED_SELECT ? 0 : 1; /* the 1-D side */
    dims[m] = 1;
    shape[m][0] = a->count;
    strides[m][0] = m == 0 ? a->itemsize : a->src_step;
  } else if (p == DLX_ZE_INDEX_NONZERO) {
    dtypes[0] = DLX_INT64;
    dims[0] = 2;
    shape[0][0] = a->count;
    shape[0][1] = ndim;
    strides[0][0] = ndim * 8;
    strides[0][1] = 8;
    dims[1] = 0; /* not read */
  }
  for (int m = 0; m < 3 && why == NULL; m++)
    if (wrap(&t[m], args[m], dtypes[m], dims[m], shape[m], strides[m]) != 0)
      why = "strides that are not whole elements";
  if (why == NULL && a->itemsize > 0 && a->stride % a->itemsize != 0)
    why = "an indexed stride that is not whole elements";
  if (why == NULL) {
    static const dlx_index_op ops[] = {
        [DLX_ZE_INDEX_GATHER] = DLX_INDEX_GATHER,
        [DLX_ZE_INDEX_SCATTER] = DLX_INDEX_SCATTER,
        [DLX_ZE_INDEX_SCATTER_ADD] = DLX_INDEX_SCATTER_ADD,
        [DLX_ZE_INDEX_MASKED_SELECT] = DLX_INDEX_MASKED_SELECT,
        [DLX_ZE_INDEX_MASKED_SCATTER] = DLX_INDEX_MASKED_SCATTER,
        [DLX_ZE_INDEX_NONZERO] = DLX_INDEX_NONZERO,
    };
    r.op = ops[p];
    r.dst = &t[0];
    r.src = &t[1];
    r.index = &t[2];
    r.dim = index_is_scatter(p) ? (int32_t)ndim : 0;
    r.size = a->size;
    r.stride = a->itemsize > 0 ? a->stride / a->itemsize : 0;
    if (dlx_cpu_backend.index_op(&r, NULL) != 0) why = "the CPU backend refused the request";
  }
  for (int m = 0; m < 3; m++)
    if (t[m].buffer != NULL) dlx_tensor_close(&t[m]);
  return why;
}

static const char *run_index(void *const *args, uint32_t groups) {
  const dlx_ze_index_args *a = args[4];
  const char *why = check_index_launch(a, groups);
  if (why != NULL) return why;
  switch (a->phase) {
  case DLX_ZE_INDEX_CHECK:
  case DLX_ZE_INDEX_COUNT:
    ref_index_chunks(args, a);
    return NULL;
  case DLX_ZE_INDEX_FIRST:
  case DLX_ZE_INDEX_SCAN:
    ref_index_combine(args[3], a);
    return NULL;
  case DLX_ZE_INDEX_MASKED_SELECT:
  case DLX_ZE_INDEX_MASKED_SCATTER:
  case DLX_ZE_INDEX_NONZERO:
    why = check_scanned(args[3], args[2], a);
    break;
  default:
    break;
  }
  return why != NULL ? why : ref_index_move(args, a);
}

/* ---- matmul: the launch checked as the core and the host promise it, computed by the CPU
 * backend's matmul (which the kernel matches) */

static void matmul_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_matmul_args *a = args[3];
  int64_t size = size_of(a->dtype);
  if (i == 3) {
    *lo = 0;
    *hi = sizeof *a;
  } else if (i == 0) {
    int64_t shape[3] = {a->batch, a->m, a->n}, strides[3] = {a->c_bs, a->c_rs, a->c_cs};
    walk_extent(a->batch * a->m * a->n, 3, shape, strides, size, lo, hi);
  } else if (i == 1) {
    int64_t shape[3] = {a->batch, a->m, a->k}, strides[3] = {a->a_bs, a->a_rs, a->a_cs};
    walk_extent(a->batch * a->m * a->k, 3, shape, strides, size, lo, hi);
  } else {
    int64_t shape[3] = {a->batch, a->k, a->n}, strides[3] = {a->b_bs, a->b_rs, a->b_cs};
    walk_extent(a->batch * a->k * a->n, 3, shape, strides, size, lo, hi);
  }
}

/* backend.h's layout rule for a rows x cols operand, in bytes: one dim of unit stride, the
 * other's at least the first's extent. */
static bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t size) {
  return (cs == size && rs >= (cols > 1 ? cols : 1) * size) ||
         (rs == size && cs >= (rows > 1 ? rows : 1) * size);
}

static bool is_zero_in(int cls, const double *f, uint64_t i, int64_t dtype) {
  (void)dtype;
  if (cls == DLX_ZE_MM_CLASS_INTEGER) return i == 0; /* bool: 0 or 1 */
  if (cls == DLX_ZE_MM_CLASS_FLOAT || cls == DLX_ZE_MM_CLASS_C64)
    return (float)f[0] == 0 && (float)f[1] == 0;
  return f[0] == 0 && f[1] == 0;
}

static const char *check_matmul_launch(void *const *args, const dlx_ze_matmul_args *a,
                                       uint32_t groups) {
  int cls = dlx_ze_mm_class(a->dtype);
  int64_t size = size_of(a->dtype), part, tiles;
  if (!computable(a->dtype)) return "a dtype that is not computable";
  if (a->batch < 1 || a->m < 1 || a->n < 1 || a->k < 0) return "an empty product (or k < 0)";
  if (!blas_layout(a->m, a->k, a->a_rs, a->a_cs, size) ||
      !blas_layout(a->k, a->n, a->b_rs, a->b_cs, size) ||
      !blas_layout(a->m, a->n, a->c_rs, a->c_cs, size))
    return "an operand whose byte strides are not a layout BLAS takes";
  if (a->a_bs < 0 || a->b_bs < 0 || a->c_bs < 0 || (a->batch > 1 && a->c_bs == 0))
    return "negative batch strides, or c's batch elements on one another";
  part = dlx_dtype_kind((dlx_dtype)a->dtype) == DLX_KIND_COMPLEX ? size / 2 : size;
  bool aligned = true;
  for (int i = 0; i < 3; i++) aligned = aligned && (uintptr_t)args[i] % (uintptr_t)part == 0;
  if (a->aligned != aligned) return "the aligned flag does not say whether elements are aligned";
  if ((a->conj_a || a->conj_b) && cls != DLX_ZE_MM_CLASS_C64 && cls != DLX_ZE_MM_CLASS_C128)
    return "a conjugate of a real operand";
  if (a->beta_zero != is_zero_in(cls, a->beta_f, a->beta_i, a->dtype))
    return "beta_zero does not say whether beta is 0 in the compute precision";
  if (a->mode == DLX_ZE_MATMUL_DIRECT) {
    if ((int64_t)groups > (a->batch * a->m * a->n + DLX_ZE_GROUP_SIZE - 1) / DLX_ZE_GROUP_SIZE)
      return "more work-groups than elements of c";
    if (a->first_tile != 0) return "a first tile in DIRECT";
  } else if (a->mode == DLX_ZE_MATMUL_TILED) {
    tiles = a->batch * dlx_ze_mm_tiles_max(cls, a->m, a->n);
    if (a->first_tile < 0 || a->first_tile + (int64_t)groups > tiles)
      return "work-groups past the last tile";
  } else {
    return "unknown mode";
  }
  if (groups > 65536) return "more than 65536 work-groups (the kernel is grid-stride)";
  return NULL;
}

static dlx_scalar scalar_in(int cls, const double *f, uint64_t i, int64_t dtype) {
  dlx_scalar s;
  memset(&s, 0, sizeof s);
  if (cls == DLX_ZE_MM_CLASS_INTEGER) {
    s.kind = dtype == DLX_BOOL ? DLX_KIND_BOOL : DLX_KIND_INT;
    if (dtype == DLX_BOOL)
      s.v.b = i != 0;
    else
      s.v.i = (int64_t)i;
  } else if (cls == DLX_ZE_MM_CLASS_C64 || cls == DLX_ZE_MM_CLASS_C128) {
    s.kind = DLX_KIND_COMPLEX;
    s.v.c[0] = f[0];
    s.v.c[1] = f[1];
  } else {
    s.kind = DLX_KIND_FLOAT;
    s.v.f = f[0];
  }
  return s;
}

/* An operand of the CPU's request over the kernel's pointer (its first element), byte strides
 * made element strides. */
static void cpu_operand(dlx_matrix_operand *o, void *first, int64_t rs, int64_t cs, int64_t bs,
                        int64_t size) {
  DLDevice cpu = {kDLCPU, 0};
  o->buffer = dlx_buffer_wrap(cpu, first, 0, NULL, NULL, NULL);
  o->offset = 0;
  o->row_stride = rs / size;
  o->col_stride = cs / size;
  o->batch_stride = bs / size;
}

/* TILED's launch as a device with sub-groups of 16 runs it: each work-group's tile of c (those
 * past the last tile do nothing), by the CPU on that block of the operands. */
static const char *ref_matmul_tiles(const dlx_matmul_request *whole, const dlx_ze_matmul_args *a,
                                    uint32_t groups) {
  int cls = dlx_ze_mm_class(a->dtype);
  int64_t tm = DLX_ZE_GROUP_SIZE / 16 * DLX_ZE_MM_MR(cls), tn = 16 * DLX_ZE_MM_NR(cls);
  int64_t per = dlx_ze_mm_tiles(cls, 16, a->m, a->n), tiles_n = (a->n + tn - 1) / tn;
  for (int64_t t = a->first_tile; t < a->first_tile + (int64_t)groups; t++) {
    int64_t i = t / per, row0 = t % per / tiles_n * tm, col0 = t % per % tiles_n * tn;
    dlx_matmul_request r = *whole;
    if (i >= a->batch) break;
    r.batch = 1;
    r.m = a->m - row0 < tm ? a->m - row0 : tm;
    r.n = a->n - col0 < tn ? a->n - col0 : tn;
    r.a.offset = i * r.a.batch_stride + row0 * r.a.row_stride;
    r.b.offset = i * r.b.batch_stride + col0 * r.b.col_stride;
    r.c.offset = i * r.c.batch_stride + row0 * r.c.row_stride + col0 * r.c.col_stride;
    if (dlx_cpu_backend.matmul(&r, NULL) != 0) return "the CPU backend refused a tile";
  }
  return NULL;
}

static const char *run_matmul(void *const *args, uint32_t groups) {
  const dlx_ze_matmul_args *a = args[3];
  const char *why = check_matmul_launch(args, a, groups);
  int cls = dlx_ze_mm_class(a->dtype);
  int64_t size = size_of(a->dtype);
  dlx_matmul_request r;
  if (why != NULL) return why;
  memset(&r, 0, sizeof r);
  r.dtype = (dlx_dtype)a->dtype;
  r.batch = a->batch;
  r.m = a->m;
  r.n = a->n;
  r.k = a->k;
  cpu_operand(&r.c, args[0], a->c_rs, a->c_cs, a->c_bs, size);
  cpu_operand(&r.a, args[1], a->a_rs, a->a_cs, a->a_bs, size);
  cpu_operand(&r.b, args[2], a->b_rs, a->b_cs, a->b_bs, size);
  r.a.conj = a->conj_a != 0;
  r.b.conj = a->conj_b != 0;
  r.alpha = scalar_in(cls, a->alpha_f, a->alpha_i, a->dtype);
  r.beta = scalar_in(cls, a->beta_f, a->beta_i, a->dtype);
  if (r.a.buffer == NULL || r.b.buffer == NULL || r.c.buffer == NULL)
    why = "no memory to wrap the operands";
  else if (a->mode == DLX_ZE_MATMUL_TILED)
    why = ref_matmul_tiles(&r, a, groups);
  else if (dlx_cpu_backend.matmul(&r, NULL) != 0)
    why = "the CPU backend refused the product";
  dlx_buffer_release((dlx_buffer *)r.a.buffer);
  dlx_buffer_release((dlx_buffer *)r.b.buffer);
  dlx_buffer_release((dlx_buffer *)r.c.buffer);
  return why;
}

static const dlx_ze_ref_kernel kernels[] = {
    {DLX_ZE_KERNEL_COPY_CAST, 3, copy_extent, run_copy_cast},
    {DLX_ZE_KERNEL_COPY_RAW, 3, copy_extent, run_copy_raw},
    {DLX_ZE_KERNEL_FILL, 2, fill_extent, run_fill},
    {DLX_ZE_KERNEL_REDUCE_PARTIAL, 3, reduce_extent, run_reduce_partial},
    {DLX_ZE_KERNEL_REDUCE_FINISH, 3, finish_extent, run_reduce_finish},
    {DLX_ZE_KERNEL_ELEMENTWISE, 2 + DLX_ZE_EW_INPUTS, ew_extent, run_elementwise},
    {DLX_ZE_KERNEL_STAT_PARTIAL, 3, stat_extent, run_stat_partial},
    {DLX_ZE_KERNEL_STAT_FINISH, 3, stat_finish_extent, run_stat_finish},
    {DLX_ZE_KERNEL_ALONG_DIM, 3, dim_extent, run_along_dim},
    {DLX_ZE_KERNEL_FILL_RANDOM, 4, random_extent, run_fill_random},
    {DLX_ZE_KERNEL_MULTINOMIAL, 5, multinomial_extent, run_multinomial},
    {DLX_ZE_KERNEL_SORT_ROWS, 6, sort_extent, run_sort_rows},
    {DLX_ZE_KERNEL_INDEX, 5, index_extent, run_index},
    {DLX_ZE_KERNEL_MATMUL, 4, matmul_extent, run_matmul},
    {DLX_ZE_KERNEL_ROW_SCAN, 4, row_scan_extent, run_row_scan},
    {DLX_ZE_KERNEL_IMAGE, 4, image_extent, run_image},
    {DLX_ZE_KERNEL_COUNT, 5, count_extent, run_count},
};

const dlx_ze_ref_kernel *dlx_ze_ref_find(const char *name) {
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
    if (strcmp(kernels[i].name, name) == 0) return &kernels[i];
  }
  return NULL;
}
