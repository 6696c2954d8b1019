/* elementwise.c -- the CPU's elementwise engine: one strided walk over dst and up to four inputs
 * (strided_iter.h), whose rows are processed in chunks. An operand that already has the
 * kernel's dtype and is contiguous (or one value) is handed to the kernel in place; any other
 * is cast or gathered a chunk at a time into a buffer on the stack with the cast loops of copy,
 * as NumPy's buffered iteration does, and a result whose dtype or layout differs from dst's goes
 * through a buffer the same way. So typed kernels exist only for same-dtype contiguous operands.
 * Large tensors are split over threads; each element's result is independent of the split. */
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/scalar.h"
#include "cpu/cast_loops.h"
#include "cpu/elementwise_kernels.h"
#include "cpu/elementwise_ternary.h"
#include "cpu/kernels.h"
#include "cpu/parallel.h"
#include "cpu/strided_iter.h"

/* Elements per chunk of a buffered row: with 16-byte complex128 a buffer is 8 KiB. */
#define CHUNK 512
/* Results from this many bytes on go out through the streamed kernels (non-temporal stores):
 * far larger than the caches, they would only push the inputs out of them, and a streamed line
 * is not read from memory before it is overwritten. Below it a result may still be in the cache
 * for the next op, which streaming would throw away. copy.c's transposes stream from the same
 * size. */
#define STREAM_MIN_BYTES ((int64_t)64 << 20)

#define NOPS (DLX_EW_MAX_INPUTS + 1)

typedef struct ew_plan {
  dlx_cpu_ew_kernel kernel;     /* unary and binary ops */
  dlx_cpu_ew_kernel streamed;   /* the same written with non-temporal stores, or NULL */
  dlx_cpu_ew_kernel_n kernel_n; /* ops of three or four operands */
  int nin;
  dlx_dtype kout; /* the kernel's result dtype */
  int64_t koutsize;
  dlx_strided it;
  /* operand 0 is dst, 1.. the inputs */
  char *base[NOPS];
  int64_t size[NOPS];
  dlx_dtype dtype[NOPS];
  dlx_dtype kin[NOPS];        /* inputs: the dtype the kernel takes them in */
  int64_t kinsize[NOPS];      /* and its size */
  dlx_cpu_loop_fn load[NOPS]; /* inputs: their dtype to kin (a raw copy when the same) */
  dlx_cpu_loop_fn store;      /* kout to dst's dtype (a raw copy when the same) */
  alignas(16) char scalars[DLX_EW_MAX_INPUTS][16]; /* scalar inputs, already in kin */
} ew_plan;

static dlx_cpu_loop_fn cast_or_copy(dlx_dtype from, dlx_dtype to) {
  return from == to ? dlx_cpu_copy_loop(dlx_itemsize(from)) : dlx_cpu_cast_loop(from, to);
}

/* Item sizes are powers of two: a mask, not a division (which would cost more than a small
 * kernel's whole loop). */
static bool aligned(const char *p, int64_t size) {
  uintptr_t align = size > 8 ? 8 : size > 0 ? (uintptr_t)size : 1;
  return ((uintptr_t)p & (align - 1)) == 0;
}

/* One input's chunk for the kernel: in place when it can be, else cast into buf. Returns the
 * pointer and whether it stands for one value. */
static const char *input_chunk(const ew_plan *p, int k, const char *src, int64_t step, int64_t m,
                               char *buf, bool *scalar) {
  bool direct = p->dtype[k] == p->kin[k] && aligned(src, p->kinsize[k]);
  *scalar = step == 0;
  if (direct && (step == 0 || step == p->kinsize[k])) return src;
  p->load[k](buf, (ptrdiff_t)p->kinsize[k], src, (ptrdiff_t)step, *scalar ? 1 : m);
  return buf;
}

/* The kernel on m elements whose inputs are in[] (scalar[k]: one value); to_dst: out is in dst
 * (not a buffer), where the streamed kernel writes when there is one. */
static void run_kernel(const ew_plan *p, char *out, const char *const *in, const bool *scalar,
                       int64_t m, bool to_dst) {
  if (p->kernel_n != NULL) {
    p->kernel_n(out, in, scalar, m);
    return;
  }
  dlx_cpu_ew_mode mode = p->nin == 2 && scalar[0]   ? DLX_CPU_EW_SV
                         : p->nin == 2 && scalar[1] ? DLX_CPU_EW_VS
                                                    : DLX_CPU_EW_VV;
  dlx_cpu_ew_kernel kernel = to_dst && p->streamed != NULL ? p->streamed : p->kernel;
  kernel(out, in[0], p->nin == 2 ? in[1] : NULL, m, mode);
}

/* n elements of one row: operand k starts at element pos[k] and moves by its inner stride. */
static void run_row(const ew_plan *p, const int64_t *pos, int64_t n) {
  alignas(16) char bufs[DLX_EW_MAX_INPUTS][CHUNK * 16], obuf[CHUNK * 16];
  int64_t step[NOPS];
  char *ptr[NOPS];
  bool out_direct, buffered = false;
  for (int k = 0; k <= p->nin; k++) {
    step[k] = dlx_strided_inner_stride(&p->it, k) * p->size[k];
    ptr[k] = p->base[k] + pos[k] * p->size[k];
    if (k > 0 && step[k] != 0 && (step[k] != p->kinsize[k] || p->dtype[k] != p->kin[k]))
      buffered = true;
  }
  out_direct = p->dtype[0] == p->kout && step[0] == p->koutsize && aligned(ptr[0], p->koutsize);
  if (!out_direct) buffered = true;
  for (int64_t done = 0; done < n;) {
    int64_t m = buffered && n - done > CHUNK ? CHUNK : n - done;
    const char *in[DLX_EW_MAX_INPUTS] = {NULL};
    bool scalar[DLX_EW_MAX_INPUTS] = {false}, all_scalar = true;
    char *out = out_direct ? ptr[0] + done * step[0] : obuf;
    for (int k = 0; k < p->nin; k++) {
      in[k] = input_chunk(p, k + 1, ptr[k + 1] + done * step[k + 1], step[k + 1], m, bufs[k],
                          &scalar[k]);
      all_scalar = all_scalar && scalar[k];
    }
    if (all_scalar) {
      /* every input is one value: compute it once, then repeat it */
      run_kernel(p, obuf, in, scalar, 1, false);
      p->store(ptr[0] + done * step[0], (ptrdiff_t)step[0], obuf, 0, m);
    } else {
      run_kernel(p, out, in, scalar, m, out_direct);
      if (!out_direct) p->store(ptr[0] + done * step[0], (ptrdiff_t)step[0], obuf, p->koutsize, m);
    }
    done += m;
  }
}

/* Elements [begin, end) in the walk's order. */
static void run_range(void *ctx, int64_t begin, int64_t end) {
  const ew_plan *p = ctx;
  int64_t inner = dlx_strided_inner_size(&p->it);
  int64_t index[DLX_MAX_NDIM], pos[DLX_STRIDED_MAX_OPS];
  int64_t col = begin % inner;
  dlx_strided_seek(&p->it, begin / inner, index, pos);
  while (begin < end) {
    int64_t n = inner - col < end - begin ? inner - col : end - begin;
    int64_t at[DLX_STRIDED_MAX_OPS];
    for (int k = 0; k <= p->nin; k++) at[k] = pos[k] + col * dlx_strided_inner_stride(&p->it, k);
    run_row(p, at, n);
    begin += n;
    col = 0;
    if (begin < end) dlx_strided_next(&p->it, index, pos);
  }
}

static const int64_t zero_strides[DLX_MAX_NDIM];

/* dlx_tensor_is_contiguous, deciding the 1-d tensors of small calls without a call. */
static bool is_contiguous(const dlx_tensor *t) {
  if (t->ndim == 1) return t->strides[0] == 1 || t->shape[0] <= 1;
  return dlx_tensor_is_contiguous(t);
}

/* The first element of a contiguous operand that the kernel can take in place (its dtype, C
 * order, aligned), else NULL. */
static const char *in_place(const dlx_tensor *t, dlx_dtype dtype) {
  const char *first;
  if (t->dtype != dtype || !is_contiguous(t)) return NULL;
  first = (const char *)t->buffer->data + t->offset * dlx_itemsize(dtype);
  return aligned(first, dlx_itemsize(dtype)) ? first : NULL;
}

/* Small operands that need no cast, gather or buffer: the one kernel call that the strided walk
 * would make for them (a contiguous walk is one row, and a row this short is one chunk on one
 * thread), without planning the walk. Returns false when the operands are not like that. */
static bool run_small(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in,
                      dlx_dtype compute) {
  alignas(16) char scalars[2][16];
  const char *x[2] = {NULL, NULL};
  int nin = dlx_ew_arity(op), given = 0;
  int64_t n = dlx_tensor_numel(dst);
  dlx_dtype kdtype = dlx_cpu_ew_kernel_dtype(compute);
  dlx_cpu_ew_kernel kernel;
  char *out;
  if (nin > 2 || n > CHUNK) return false;
  kernel = dlx_cpu_ew_kernel_for(op, kdtype);
  if (kernel == NULL || (out = (char *)in_place(dst, dlx_ew_result_of(op, kdtype))) == NULL)
    return false;
  for (int k = 0; k < nin; k++) {
    if (in[k].tensor == NULL) {
      (void)dlx_scalar_to_bytes(kdtype, &in[k].scalar, scalars[k], NULL);
      x[k] = scalars[k];
      continue;
    }
    if ((x[k] = in_place(in[k].tensor, kdtype)) == NULL) return false;
    given++;
  }
  if (given == 0) return false; /* one value repeated: the walk's case */
  kernel(out, x[0], x[1], n,
         nin == 2 && in[0].tensor == NULL   ? DLX_CPU_EW_SV
         : nin == 2 && in[1].tensor == NULL ? DLX_CPU_EW_VS
                                            : DLX_CPU_EW_VV);
  return true;
}

/* Whether the results go to dst through the streamed kernel (STREAM_MIN_BYTES): dst is large
 * and no input shares its memory (an op in place has just read dst's lines into the cache, and
 * streaming them out again costs more than it spares). */
static bool stream_to(const dlx_tensor *dst, const dlx_operand *in, int nin) {
  if (dlx_tensor_numel(dst) * dlx_itemsize(dst->dtype) < STREAM_MIN_BYTES) return false;
  for (int k = 0; k < nin; k++) {
    if (in[k].tensor != NULL && in[k].tensor->buffer == dst->buffer) return false;
  }
  return true;
}

/* The kernels of op for kernel dtype kdtype into p; false when there is none. */
static bool find_kernel(ew_plan *p, dlx_ew_op op, dlx_dtype kdtype) {
  p->kernel = NULL;
  p->streamed = NULL;
  p->kernel_n = NULL;
  if (p->nin > 2) {
    p->kernel_n = dlx_cpu_ew_ternary_kernel(op, kdtype);
    return p->kernel_n != NULL;
  }
  p->kernel = dlx_cpu_ew_kernel_for(op, kdtype);
  return p->kernel != NULL;
}

/* Any operands: the strided walk, its rows in chunks, over threads when large. */
static int run_walk(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in, dlx_dtype compute,
                    dlx_error *err) {
  ew_plan p;
  const int64_t *strides[DLX_STRIDED_MAX_OPS];
  int64_t offsets[DLX_STRIDED_MAX_OPS], bytes = 0;
  /* where only moves values: it keeps float16 and bfloat16 as they are */
  dlx_dtype kdtype = op == DLX_EW_WHERE ? compute : dlx_cpu_ew_kernel_dtype(compute);
  p.nin = dlx_ew_arity(op);
  p.kout = dlx_ew_result_of(op, kdtype);
  if (!find_kernel(&p, op, kdtype))
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: no CPU kernel for %s", dlx_ew_name(op),
                    dlx_dtype_info_of(compute)->name);
  p.koutsize = dlx_itemsize(p.kout);
  if (p.kernel != NULL && stream_to(dst, in, p.nin))
    p.streamed = dlx_cpu_ew_stream_kernel_for(op, kdtype);
  p.store = cast_or_copy(p.kout, dst->dtype);
  p.base[0] = dst->buffer->data;
  p.dtype[0] = dst->dtype;
  p.size[0] = dlx_itemsize(dst->dtype);
  strides[0] = dst->strides;
  offsets[0] = dst->offset;
  for (int k = 1; k <= p.nin; k++) {
    const dlx_operand *o = &in[k - 1];
    p.kin[k] = dlx_ew_input_dtype(op, k - 1, kdtype);
    p.kinsize[k] = dlx_itemsize(p.kin[k]);
    if (o->tensor == NULL) {
      (void)dlx_scalar_to_bytes(p.kin[k], &o->scalar, p.scalars[k - 1], NULL);
      p.base[k] = p.scalars[k - 1];
      p.dtype[k] = p.kin[k];
      strides[k] = zero_strides;
      offsets[k] = 0;
    } else {
      p.base[k] = o->tensor->buffer->data;
      p.dtype[k] = o->tensor->dtype;
      strides[k] = o->tensor->strides;
      offsets[k] = o->tensor->offset;
    }
    p.size[k] = dlx_itemsize(p.dtype[k]);
    p.load[k] = cast_or_copy(p.dtype[k], p.kin[k]);
    bytes += p.size[k];
  }
  if (!dlx_strided_init(&p.it, dst->ndim, dst->shape, p.nin + 1, strides, offsets,
                        DLX_STRIDED_REORDER))
    return 0;
  bytes += p.size[0];
  dlx_cpu_parallel_for(dlx_strided_rows(&p.it) * dlx_strided_inner_size(&p.it),
                       dlx_cpu_grain_items(bytes), run_range, &p);
  return 0;
}

int dlx_cpu_elementwise(dlx_ew_op op, const dlx_tensor *dst, const dlx_operand *in,
                        dlx_dtype compute, dlx_error *err) {
  /* the walk's planning is apart: small calls do not pay for its frame */
  if (run_small(op, dst, in, compute)) return 0;
  return run_walk(op, dst, in, compute, err);
}
