/* ze_kernels_ref.c -- reference implementations of dlx's Level Zero kernels for the test driver:
 * each checks its launch (group counts against the argument block, strides against dtypes) and
 * computes the result with dlx's CPU backend. The reductions' scratch ("partials") is private to
 * a kernel pair, so here dlx_reduce_partial leaves the finished values in it and
 * dlx_reduce_finish moves them to the output. */
#include "ze_kernels_ref.h"

#include <string.h>

#include "backends/builtin.h"
#include "common/elementwise_host.h"
#include "common/philox.h"
#include "common/sort_keys.h"
#include "common/stats_ops.h"
#include "core/backend.h"
#include "core/buffer.h"
#include "core/dtype.h"
#include "core/random.h"
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

static void reduce_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_reduce_args *a = args[2];
  if (i == 2) {
    *lo = 0;
    *hi = sizeof *a;
  } else if (i == 1) { /* partials */
    *lo = 0;
    *hi = (size_t)(a->n_out * a->chunks) * sizeof(dlx_ze_acc);
  } else { /* src (partial) or dst (finish: n_out results) */
    int64_t shape[2 * DLX_ZE_MAX_NDIM], strides[2 * DLX_ZE_MAX_NDIM];
    memcpy(shape, a->out_shape, (size_t)a->out_ndim * 8);
    memcpy(shape + a->out_ndim, a->red_shape, (size_t)a->red_ndim * 8);
    memcpy(strides, a->out_strides, (size_t)a->out_ndim * 8);
    memcpy(strides + a->out_ndim, a->red_strides, (size_t)a->red_ndim * 8);
    walk_extent(a->n_out * a->n_red, a->out_ndim + a->red_ndim, shape, strides,
                size_of(a->src_dtype), lo, hi);
  }
}

static void finish_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_reduce_args *a = args[2];
  if (i == 0) {
    *lo = 0;
    *hi = (size_t)(a->n_out * size_of(a->dst_dtype));
  } else {
    reduce_extent(args, i, lo, hi);
  }
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

static const char *check_reduce_launch(const dlx_ze_reduce_args *a) {
  if (a->op < DLX_ZE_OP_SUM || a->op > DLX_ZE_OP_ANY) return "unknown op";
  if (!computable(a->src_dtype) || !computable(a->dst_dtype)) return "dtype not computable";
  if (a->chunks < 1 || a->chunk_len * a->chunks < a->n_red ||
      (a->n_red > 0 && (a->chunks - 1) * a->chunk_len >= a->n_red))
    return "chunks do not split the reduced extent";
  return NULL;
}

static const char *run_reduce_partial(void *const *args, uint32_t groups) {
  const dlx_ze_reduce_args *a = args[2];
  int64_t shape[DLX_MAX_NDIM], strides[DLX_MAX_NDIM], out_strides[DLX_MAX_NDIM];
  int64_t out_shape[DLX_MAX_NDIM] = {0}; /* zeroed: GCC cannot tell only ndim are read */
  int64_t ndim = a->out_ndim + a->red_ndim;
  uint64_t dims = 0;
  dlx_tensor src, dst;
  const char *why = check_reduce_launch(a);
  if (why != NULL) return why;
  if ((int64_t)groups != a->n_out * a->chunks) return "group count is not n_out * chunks";
  if (ndim > DLX_MAX_NDIM) return "too many dims";
  for (int64_t d = 0; d < ndim; d++) {
    bool kept = d < a->out_ndim;
    shape[d] = kept ? a->out_shape[d] : a->red_shape[d - a->out_ndim];
    strides[d] = kept ? a->out_strides[d] : a->red_strides[d - a->out_ndim];
    out_shape[d] = kept ? shape[d] : 1;
    if (!kept) dims |= UINT64_C(1) << d;
  }
  dlx_contiguous_strides(out_shape, (int32_t)ndim, out_strides);
  for (int64_t d = 0; d < ndim; d++) out_strides[d] *= size_of(a->dst_dtype);
  if (wrap(&src, args[0], (dlx_dtype)a->src_dtype, ndim, shape, strides) != 0 ||
      wrap(&dst, args[1], (dlx_dtype)a->dst_dtype, ndim, out_shape, out_strides) != 0)
    why = "strides that are not whole elements";
  else if (dlx_cpu_backend.reduce((dlx_reduce_op)a->op, &src, dims, &dst, NULL) != 0)
    why = "the CPU backend refused the reduction";
  dlx_tensor_close(&src);
  dlx_tensor_close(&dst);
  return why;
}

static const char *run_reduce_finish(void *const *args, uint32_t groups) {
  const dlx_ze_reduce_args *a = args[2];
  const char *why = check_reduce_launch(a);
  if (why != NULL) return why;
  if ((int64_t)groups != a->n_out) return "group count is not n_out";
  memcpy(args[0], args[1], (size_t)(a->n_out * size_of(a->dst_dtype)));
  return NULL;
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
  const dlx_ze_stat_args *a = args[2];
  if (i == 2) {
    *lo = 0;
    *hi = sizeof *a;
  } else if (i == 1) {
    *lo = 0;
    *hi = (size_t)(a->n_out * a->chunks) * sizeof(dlx_stat_acc);
  } else {
    int64_t shape[2 * DLX_ZE_MAX_NDIM], strides[2 * DLX_ZE_MAX_NDIM];
    memcpy(shape, a->out_shape, (size_t)a->out_ndim * 8);
    memcpy(shape + a->out_ndim, a->red_shape, (size_t)a->red_ndim * 8);
    memcpy(strides, a->out_strides, (size_t)a->out_ndim * 8);
    memcpy(strides + a->out_ndim, a->red_strides, (size_t)a->red_ndim * 8);
    walk_extent(a->n_out * a->n_red, a->out_ndim + a->red_ndim, shape, strides,
                size_of(a->src_dtype), lo, hi);
  }
}

static void stat_finish_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_stat_args *a = args[2];
  if (i == 0) {
    *lo = 0;
    *hi = (size_t)(a->n_out * size_of(a->dst_dtype));
  } else {
    stat_extent(args, i, lo, hi);
  }
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

static const char *check_stat_launch(const dlx_ze_stat_args *a) {
  dlx_dtype want;
  if (a->kind < 0 || a->kind > DLX_STAT_K_NORMINF) return "unknown kind";
  if (!computable(a->src_dtype) ||
      dlx_stat_dtype("stat", (dlx_dtype)a->src_dtype, &want, NULL) != 0 ||
      want != (dlx_dtype)a->dst_dtype)
    return "dtypes that var, std, logsumexp and norm do not take or give";
  if (a->chunks < 1 || a->chunk_len * a->chunks < a->n_red ||
      (a->n_red > 0 && (a->chunks - 1) * a->chunk_len >= a->n_red))
    return "chunks do not split the reduced extent";
  return NULL;
}

static const char *run_stat_partial(void *const *args, uint32_t groups) {
  const dlx_ze_stat_args *a = args[2];
  int64_t shape[DLX_MAX_NDIM], strides[DLX_MAX_NDIM], out_strides[DLX_MAX_NDIM];
  int64_t out_shape[DLX_MAX_NDIM] = {0}; /* zeroed: GCC cannot tell only ndim are read */
  int64_t ndim = a->out_ndim + a->red_ndim;
  uint64_t dims = 0;
  dlx_stat_op op;
  double param;
  dlx_tensor src, dst;
  const char *why = check_stat_launch(a);
  memset(&src, 0, sizeof src); /* closed below even when wrap did not reach them */
  memset(&dst, 0, sizeof dst);
  if (why != NULL) return why;
  if ((int64_t)groups != a->n_out * a->chunks) return "group count is not n_out * chunks";
  if (ndim > DLX_MAX_NDIM) return "too many dims";
  if (!stat_op_of(a->kind, a->param, &op, &param)) return "unknown kind";
  for (int64_t d = 0; d < ndim; d++) {
    bool kept = d < a->out_ndim;
    shape[d] = kept ? a->out_shape[d] : a->red_shape[d - a->out_ndim];
    strides[d] = kept ? a->out_strides[d] : a->red_strides[d - a->out_ndim];
    out_shape[d] = kept ? shape[d] : 1;
    if (!kept) dims |= UINT64_C(1) << d;
  }
  dlx_contiguous_strides(out_shape, (int32_t)ndim, out_strides);
  for (int64_t d = 0; d < ndim; d++) out_strides[d] *= size_of(a->dst_dtype);
  if (wrap(&src, args[0], (dlx_dtype)a->src_dtype, ndim, shape, strides) != 0 ||
      wrap(&dst, args[1], (dlx_dtype)a->dst_dtype, ndim, out_shape, out_strides) != 0)
    why = "strides that are not whole elements";
  else if (dlx_cpu_backend.reduce_stat(op, param, &src, dims, &dst, NULL) != 0)
    why = "the CPU backend refused the reduction";
  dlx_tensor_close(&src);
  dlx_tensor_close(&dst);
  return why;
}

static const char *run_stat_finish(void *const *args, uint32_t groups) {
  const dlx_ze_stat_args *a = args[2];
  const char *why = check_stat_launch(a);
  if (why != NULL) return why;
  if ((int64_t)groups != a->n_out) return "group count is not n_out";
  memcpy(args[0], args[1], (size_t)(a->n_out * size_of(a->dst_dtype)));
  return NULL;
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

static void random_extent(void *const *args, int i, size_t *lo, size_t *hi) {
  const dlx_ze_random_args *a = args[1];
  *lo = 0;
  *hi = i == 1 ? sizeof *a : (size_t)(a->n * size_of(a->dtype));
}

static const char *run_fill_random(void *const *args, uint32_t groups) {
  const dlx_ze_random_args *a = args[1];
  dlx_random_request r = {.kind = (dlx_random_kind)a->kind,
                          .seed = a->seed,
                          .offset = a->offset,
                          .a = a->a,
                          .b = a->b,
                          .low = a->low,
                          .range = a->range};
  int64_t shape[1] = {a->n}, strides[1] = {size_of(a->dtype)};
  bool is_int = a->kind == DLX_RNG_INT;
  int wide = is_int ? dlx_rng_int_wide(a->range) : a->dtype == DLX_FLOAT64;
  dlx_tensor dst;
  const char *why = NULL;
  (void)groups; /* grid-stride */
  if (a->kind < DLX_RNG_UNIFORM || a->kind > DLX_RNG_INT) return "unknown kind";
  if (!computable(a->dtype)) return "dtype not computable";
  if (is_int ? a->range < 1 : a->bits != dlx_random_float_bits((dlx_dtype)a->dtype))
    return "bits or range that do not match the request";
  if (a->lanes != dlx_rng_lanes(wide)) return "lanes that do not match the dtype or range";
  if (a->n < 1) return "no elements";
  memset(&dst, 0, sizeof dst);
  if (wrap(&dst, args[0], (dlx_dtype)a->dtype, 1, shape, strides) != 0)
    why = "a bad dtype";
  else if (dlx_cpu_backend.fill_random(&dst, &r, NULL) != 0)
    why = "the CPU backend refused the request";
  dlx_tensor_close(&dst);
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
    {DLX_ZE_KERNEL_FILL_RANDOM, 2, random_extent, run_fill_random},
    {DLX_ZE_KERNEL_SORT_ROWS, 6, sort_extent, run_sort_rows},
};

const dlx_ze_ref_kernel *dlx_ze_ref_find(const char *name) {
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
    if (strcmp(kernels[i].name, name) == 0) return &kernels[i];
  }
  return NULL;
}
