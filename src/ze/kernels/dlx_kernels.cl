/* dlx_kernels.cl -- the Level Zero backend's kernels in OpenCL C, compiled at build time to
 * SPIR-V (clang -target spir64, llvm-spirv) and loaded with zeModuleCreate. The same source runs
 * on the CPU through PoCL in tests/ze_kernels, against the CPU backend's results.
 *
 * The casting rules are those every backend shares (src/common/convert.h and half.h): one
 * definition of every conversion, written in integer arithmetic, so a device computes the same
 * bits as the CPU whatever its floating-point rounding modes or denormal handling.
 * float64 needs cl_khr_fp64 (Intel data-centre GPUs have it; Arc A-series only emulates it).
 *
 * Every kernel runs in work-groups of DLX_ZE_GROUP_SIZE work-items and walks its elements with a
 * grid-stride loop, so the host may launch fewer groups than elements. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* The dtype codes of the argument blocks are dlx_dtype values (common/dtypes.h). The kernels
 * include src/common, their own headers and the shims of the C headers that src/common names
 * (kernels/shim), never the core. */
#include "common/convert.h"
#include "common/dtypes.h"

#include "ze/kernels/ze_args.h"

#define GROUP DLX_ZE_GROUP_SIZE

/* ---- element access: global bytes <-> private bytes (any alignment) */

static void read_bytes(char *to, __global const uchar *from, int n) {
  for (int k = 0; k < n; k++) to[k] = (char)from[k];
}

static void write_bytes(__global uchar *to, const char *from, int n) {
  for (int k = 0; k < n; k++) to[k] = (uchar)from[k];
}

#define SIZE_CASE(name, E, T)                                                                      \
  case E:                                                                                          \
    return (int)sizeof(T);
static int dtype_size(long dtype) {
  switch (dtype) { DLX_COMPUTABLE_TYPES(SIZE_CASE) }
  return 1;
}
#undef SIZE_CASE

/* (i % s and i / s together would let LLVM emit a `freeze`, which llvm-spirv 14 cannot
 * translate; hence i - q * s.) */
/* Byte offsets of the element at flat row-major position i in two layouts of one shape. */
static void offsets2(long i, long ndim, __global const long *shape, __global const long *a_strides,
                     __global const long *b_strides, long *a_off, long *b_off) {
  long a = 0, b = 0;
  for (long d = ndim - 1; d >= 0; d--) {
    long q = i / shape[d], k = i - q * shape[d];
    i = q;
    a += k * a_strides[d];
    b += k * b_strides[d];
  }
  *a_off = a;
  *b_off = b;
}

static long offset1(long i, long ndim, __global const long *shape, __global const long *strides) {
  long off = 0;
  for (long d = ndim - 1; d >= 0; d--) {
    long q = i / shape[d];
    off += (i - q * shape[d]) * strides[d];
    i = q;
  }
  return off;
}

/* ---- casts: load the source into its exact class, convert once to the destination */

#define STORE_CASE(cls, name, E, T)                                                                \
  case E: {                                                                                        \
    T out_ = to_##name##_from_##cls(v);                                                            \
    __builtin_memcpy(p, &out_, sizeof out_);                                                       \
    break;                                                                                         \
  }
#define DEFINE_STORE_FROM(cls, C)                                                                  \
  static void store_from_##cls(long dtype, char *p, C v) {                                         \
    switch (dtype) {                                                                               \
      DLX_COMPUTABLE_TYPES_WITH(STORE_CASE, cls)                                                   \
    default:                                                                                       \
      break;                                                                                       \
    }                                                                                              \
  }
DEFINE_STORE_FROM(i, int64_t)
DEFINE_STORE_FROM(u, uint64_t)
DEFINE_STORE_FROM(f, float)
DEFINE_STORE_FROM(d, double)
DEFINE_STORE_FROM(cf, dlx_c64)
DEFINE_STORE_FROM(cd, dlx_c128)
#undef DEFINE_STORE_FROM
#undef STORE_CASE

/* Each source dtype loads into its class and converts once (no function pointers in OpenCL C,
 * so no _Generic over functions). */
static void cast_element(long dst_dtype, char *out, long src_dtype, const char *in) {
  switch (src_dtype) {
  case DLX_BOOL:
    store_from_i(dst_dtype, out, load_boolean(in));
    break;
  case DLX_INT8:
    store_from_i(dst_dtype, out, load_int8(in));
    break;
  case DLX_INT16:
    store_from_i(dst_dtype, out, load_int16(in));
    break;
  case DLX_INT32:
    store_from_i(dst_dtype, out, load_int32(in));
    break;
  case DLX_INT64:
    store_from_i(dst_dtype, out, load_int64(in));
    break;
  case DLX_UINT8:
    store_from_u(dst_dtype, out, load_uint8(in));
    break;
  case DLX_UINT16:
    store_from_u(dst_dtype, out, load_uint16(in));
    break;
  case DLX_UINT32:
    store_from_u(dst_dtype, out, load_uint32(in));
    break;
  case DLX_UINT64:
    store_from_u(dst_dtype, out, load_uint64(in));
    break;
  case DLX_FLOAT16:
    store_from_f(dst_dtype, out, load_float16(in));
    break;
  case DLX_BFLOAT16:
    store_from_f(dst_dtype, out, load_bfloat16(in));
    break;
  case DLX_FLOAT32:
    store_from_f(dst_dtype, out, load_float32(in));
    break;
  case DLX_FLOAT64:
    store_from_d(dst_dtype, out, load_float64(in));
    break;
  case DLX_COMPLEX64:
    store_from_cf(dst_dtype, out, load_complex64(in));
    break;
  case DLX_COMPLEX128:
    store_from_cd(dst_dtype, out, load_complex128(in));
    break;
  default:
    break;
  }
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_copy_cast(__global uchar *dst, __global const uchar *src, __global const dlx_ze_copy_args *a) {
  int dsize = dtype_size(a->dst_dtype), ssize = dtype_size(a->src_dtype);
  for (long i = get_global_id(0); i < a->n; i += get_global_size(0)) {
    char in[16], out[16];
    long doff, soff;
    offsets2(i, a->ndim, a->shape, a->dst_strides, a->src_strides, &doff, &soff);
    read_bytes(in, src + soff, ssize);
    cast_element(a->dst_dtype, out, a->src_dtype, in);
    write_bytes(dst + doff, out, dsize);
  }
}

/* Bit-for-bit copy between identical dtypes (NaN payloads and odd bool bytes kept). */
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_copy_raw(__global uchar *dst, __global const uchar *src, __global const dlx_ze_copy_args *a) {
  int size = (int)a->itemsize;
  for (long i = get_global_id(0); i < a->n; i += get_global_size(0)) {
    long doff, soff;
    offsets2(i, a->ndim, a->shape, a->dst_strides, a->src_strides, &doff, &soff);
    for (int k = 0; k < size; k++) dst[doff + k] = src[soff + k];
  }
}

/* The value arrives already converted to dst's dtype by the host (with the CPU's rules). */
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_fill(__global uchar *dst, __global const dlx_ze_fill_args *a) {
  ulong words[2] = {a->value[0], a->value[1]};
  char value[16];
  int size = (int)a->itemsize;
  __builtin_memcpy(value, words, sizeof value);
  for (long i = get_global_id(0); i < a->n; i += get_global_size(0))
    write_bytes(dst + offset1(i, a->ndim, a->shape, a->strides), value, size);
}

/* ---- reductions */

enum { KIND_INT, KIND_UINT, KIND_FLOAT, KIND_COMPLEX };

static int value_kind(long dtype) {
  switch (dtype) {
  case DLX_UINT8:
  case DLX_UINT16:
  case DLX_UINT32:
  case DLX_UINT64:
    return KIND_UINT;
  case DLX_FLOAT16:
  case DLX_BFLOAT16:
  case DLX_FLOAT32:
  case DLX_FLOAT64:
    return KIND_FLOAT;
  case DLX_COMPLEX64:
  case DLX_COMPLEX128:
    return KIND_COMPLEX;
  default:
    return KIND_INT; /* bool and signed integers */
  }
}

static dlx_ze_acc acc_identity(long op) {
  dlx_ze_acc acc = {0, 0, 0, 0, 0, 0};
  if (op == DLX_ZE_OP_PROD) {
    acc.u = 1;
    acc.re = 1;
  }
  if (op == DLX_ZE_OP_ALL) acc.i = 1;
  return acc;
}

/* One element as a singleton partial result at flat reduced position r. */
#define LOAD_INT_CASE(name, E)                                                                     \
  case E:                                                                                          \
    acc.i = load_##name(in);                                                                       \
    acc.u = (ulong)acc.i;                                                                          \
    acc.re = (double)acc.i;                                                                        \
    break;
#define LOAD_UINT_CASE(name, E)                                                                    \
  case E:                                                                                          \
    acc.u = load_##name(in);                                                                       \
    acc.re = (double)acc.u;                                                                        \
    break;
static dlx_ze_acc acc_of_element(long dtype, __global const uchar *p, long r) {
  dlx_ze_acc acc = {0, 0, 0, 0, r, 1};
  char in[16];
  read_bytes(in, p, dtype_size(dtype));
  switch (dtype) {
    LOAD_INT_CASE(boolean, DLX_BOOL)
    LOAD_INT_CASE(int8, DLX_INT8)
    LOAD_INT_CASE(int16, DLX_INT16)
    LOAD_INT_CASE(int32, DLX_INT32)
    LOAD_INT_CASE(int64, DLX_INT64)
    LOAD_UINT_CASE(uint8, DLX_UINT8)
    LOAD_UINT_CASE(uint16, DLX_UINT16)
    LOAD_UINT_CASE(uint32, DLX_UINT32)
    LOAD_UINT_CASE(uint64, DLX_UINT64)
  case DLX_FLOAT16:
    acc.re = load_float16(in);
    break;
  case DLX_BFLOAT16:
    acc.re = load_bfloat16(in);
    break;
  case DLX_FLOAT32:
    acc.re = load_float32(in);
    break;
  case DLX_FLOAT64:
    acc.re = load_float64(in);
    break;
  case DLX_COMPLEX64: {
    dlx_c64 c = load_complex64(in);
    acc.re = c.re;
    acc.im = c.im;
    break;
  }
  case DLX_COMPLEX128: {
    dlx_c128 c = load_complex128(in);
    acc.re = c.re;
    acc.im = c.im;
    break;
  }
  default:
    break;
  }
  return acc;
}
#undef LOAD_INT_CASE
#undef LOAD_UINT_CASE

static bool is_nonzero(int kind, const dlx_ze_acc *x) {
  if (kind == KIND_INT || kind == KIND_UINT) return x->u != 0;
  return x->re != 0 || x->im != 0; /* NaN != 0: true */
}

/* -1 when a orders before b, 1 after, 0 when equal; NaN orders first (it propagates). */
static int compare(int kind, const dlx_ze_acc *a, const dlx_ze_acc *b) {
  if (kind == KIND_INT) return a->i < b->i ? -1 : a->i > b->i;
  if (kind == KIND_UINT) return a->u < b->u ? -1 : a->u > b->u;
  if (isnan(a->re)) return isnan(b->re) ? 0 : -1;
  if (isnan(b->re)) return 1;
  return a->re < b->re ? -1 : a->re > b->re;
}

/* True when b wins over a as the extreme: the smaller (min) or larger (max) value, NaN first,
 * the lower position among equals. Positions make the choice independent of combine order. */
static bool extreme_wins(long op, int kind, const dlx_ze_acc *a, const dlx_ze_acc *b) {
  bool nan_a = kind == KIND_FLOAT && isnan(a->re), nan_b = kind == KIND_FLOAT && isnan(b->re);
  int c;
  if (nan_a || nan_b) return nan_b && (!nan_a || b->index < a->index);
  c = compare(kind, b, a);
  if (op == DLX_ZE_OP_MAX || op == DLX_ZE_OP_ARGMAX) c = -c;
  return c < 0 || (c == 0 && b->index < a->index);
}

/* a = a (op) b, for partial results over disjoint sets of elements. */
static void combine(long op, int kind, dlx_ze_acc *a, const dlx_ze_acc *b) {
  switch (op) {
  case DLX_ZE_OP_SUM:
  case DLX_ZE_OP_MEAN:
    a->u += b->u; /* wraps, as integer sums do */
    a->re += b->re;
    a->im += b->im;
    break;
  case DLX_ZE_OP_PROD:
    a->u *= b->u;
    if (kind == KIND_COMPLEX) {
      double re = a->re * b->re - a->im * b->im;
      a->im = a->re * b->im + a->im * b->re;
      a->re = re;
    } else {
      a->re *= b->re;
    }
    break;
  case DLX_ZE_OP_ALL:
    a->i = a->i && b->i;
    break;
  case DLX_ZE_OP_ANY:
    a->i = a->i || b->i;
    break;
  default: /* min, max, argmin, argmax */
    if (b->has && (!a->has || extreme_wins(op, kind, a, b))) *a = *b;
    break;
  }
}

static dlx_ze_acc take(long op, int kind, dlx_ze_acc x) {
  if (op == DLX_ZE_OP_ALL || op == DLX_ZE_OP_ANY) x.i = is_nonzero(kind, &x);
  return x;
}

/* ---- sub-groups
 *
 * A work-group's partial results are combined in three steps: within each sub-group through
 * register shuffles, across the sub-groups' results in local memory, and (in dlx_reduce_finish)
 * across work-groups. Intel GPUs run sub-groups of 8, 16 or 32 work-items (cl_intel_subgroups;
 * SPV_INTEL_subgroups in the SPIR-V). Where the compiler offers no sub-groups (PoCL, which runs
 * these kernels in tests/ze_kernels), every work-item is a sub-group of one: the same code then
 * does the whole combine in local memory. */
#if defined(cl_intel_subgroups)
static uint subgroup_size(void) { return get_sub_group_size(); }
static uint subgroup_id(void) { return get_sub_group_id(); }
static uint subgroup_lane(void) { return get_sub_group_local_id(); }
static uint subgroup_count(void) { return get_num_sub_groups(); }

/* x as held by the lane whose index is this lane's xor mask. Doubles travel as their bits:
 * cl_intel_subgroups shuffles 64-bit integers but not doubles. */
static dlx_ze_acc shuffle_xor(dlx_ze_acc x, uint mask) {
  dlx_ze_acc y;
  y.re = as_double(intel_sub_group_shuffle_xor(as_ulong(x.re), mask));
  y.im = as_double(intel_sub_group_shuffle_xor(as_ulong(x.im), mask));
  y.i = intel_sub_group_shuffle_xor(x.i, mask);
  y.u = intel_sub_group_shuffle_xor(x.u, mask);
  y.index = intel_sub_group_shuffle_xor(x.index, mask);
  y.has = intel_sub_group_shuffle_xor(x.has, mask);
  return y;
}
#else
#if defined(DLX_ZE_REQUIRE_SUBGROUPS)
#error "the Level Zero kernels need cl_intel_subgroups (SPV_INTEL_subgroups)"
#endif
static uint subgroup_size(void) { return 1; }
static uint subgroup_id(void) { return (uint)get_local_id(0); }
static uint subgroup_lane(void) { return 0; }
static uint subgroup_count(void) { return GROUP; }
static dlx_ze_acc shuffle_xor(dlx_ze_acc x, uint mask) { /* not reached: one lane, no step */
  (void)mask;
  return x;
}
#endif

/* Combines the sub-group's partial results; its lane 0 gets the total. A tree over the lanes:
 * at step m, a lane whose bit m is clear takes the partial of lane + m. Every lane runs every
 * shuffle (sub-group functions must be reached by the whole sub-group); the last sub-group of a
 * work-group may be smaller than the others, hence the bound. */
static dlx_ze_acc subgroup_combine(long op, int kind, dlx_ze_acc mine) {
  uint lane = subgroup_lane(), size = subgroup_size();
  for (uint m = 1; m < size; m <<= 1) {
    dlx_ze_acc other = shuffle_xor(mine, m);
    if ((lane & m) == 0 && lane + m < size) combine(op, kind, &mine, &other);
  }
  return mine;
}

/* Combines the work-group's partial results; work-item 0 gets the total. scratch holds one
 * partial per sub-group (GROUP of them at most, with sub-groups of one). Every sub-group then
 * combines those partials, though only the first one's total is used: with the shuffles under a
 * branch taken by the first sub-group alone (which OpenCL allows), Intel's CPU OpenCL runtime
 * computed wrong totals from the unoptimised SPIR-V; a GPU compiler might too. */
static dlx_ze_acc group_combine(long op, int kind, __local dlx_ze_acc *scratch, dlx_ze_acc mine) {
  uint lane = subgroup_lane();
  mine = subgroup_combine(op, kind, mine);
  if (lane == 0) scratch[subgroup_id()] = mine;
  barrier(CLK_LOCAL_MEM_FENCE);
  mine = acc_identity(op);
  for (uint k = lane; k < subgroup_count(); k += subgroup_size()) {
    dlx_ze_acc x = scratch[k];
    combine(op, kind, &mine, &x);
  }
  return subgroup_combine(op, kind, mine);
}

/* tests/ze_kernels pins the sub-group size, to run the reductions at every size a device offers;
 * otherwise the driver's compiler chooses. */
#if defined(DLX_ZE_TEST_SUBGROUP_SIZE)
#define REDUCE_KERNEL                                                                              \
  __kernel __attribute__((reqd_work_group_size(GROUP, 1, 1),                                       \
                          intel_reqd_sub_group_size(DLX_ZE_TEST_SUBGROUP_SIZE)))
#else
#define REDUCE_KERNEL __kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
#endif

REDUCE_KERNEL void dlx_reduce_partial(__global const uchar *src, __global dlx_ze_acc *partials,
                                      __global const dlx_ze_reduce_args *a) {
  __local dlx_ze_acc scratch[GROUP];
  long g = get_group_id(0), o = g / a->chunks, c = g - o * a->chunks;
  long base = offset1(o, a->out_ndim, a->out_shape, a->out_strides);
  long first = c * a->chunk_len, last = min(first + a->chunk_len, a->n_red);
  int kind = value_kind(a->src_dtype);
  dlx_ze_acc acc = acc_identity(a->op);
  for (long r = first + (long)get_local_id(0); r < last; r += GROUP) {
    long off = base + offset1(r, a->red_ndim, a->red_shape, a->red_strides);
    dlx_ze_acc x = take(a->op, kind, acc_of_element(a->src_dtype, src + off, r));
    combine(a->op, kind, &acc, &x);
  }
  acc = group_combine(a->op, kind, scratch, acc);
  if (get_local_id(0) == 0) partials[g] = acc;
}

static void write_result(__global uchar *dst, __global const dlx_ze_reduce_args *a, int kind,
                         const dlx_ze_acc *acc) {
  char out[16];
  long dtype = a->dst_dtype;
  switch (a->op) {
  case DLX_ZE_OP_SUM:
  case DLX_ZE_OP_PROD:
    if (kind == KIND_INT || kind == KIND_UINT)
      store_from_u(dtype, out, acc->u); /* int64 or uint64: wraps */
    else
      store_from_cd(dtype, out, (dlx_c128){acc->re, acc->im});
    break;
  case DLX_ZE_OP_MEAN:
    store_from_cd(dtype, out, (dlx_c128){acc->re / (double)a->n_red, acc->im / (double)a->n_red});
    break;
  case DLX_ZE_OP_ARGMIN:
  case DLX_ZE_OP_ARGMAX:
    store_from_i(dtype, out, acc->index + 1); /* 1-based */
    break;
  case DLX_ZE_OP_ALL:
  case DLX_ZE_OP_ANY:
    store_from_i(dtype, out, acc->i);
    break;
  default: /* min, max: the extreme itself, exactly representable in dtype */
    if (kind == KIND_INT)
      store_from_i(dtype, out, acc->i);
    else if (kind == KIND_UINT)
      store_from_u(dtype, out, acc->u);
    else
      store_from_d(dtype, out, acc->re);
    break;
  }
  write_bytes(dst, out, dtype_size(dtype));
}

REDUCE_KERNEL void dlx_reduce_finish(__global uchar *dst, __global const dlx_ze_acc *partials,
                                     __global const dlx_ze_reduce_args *a) {
  __local dlx_ze_acc scratch[GROUP];
  long o = get_group_id(0);
  int kind = value_kind(a->src_dtype);
  dlx_ze_acc acc = acc_identity(a->op);
  for (long k = get_local_id(0); k < a->chunks; k += GROUP) {
    dlx_ze_acc x = partials[o * a->chunks + k];
    combine(a->op, kind, &acc, &x);
  }
  acc = group_combine(a->op, kind, scratch, acc);
  if (get_local_id(0) == 0) write_result(dst + o * dtype_size(a->dst_dtype), a, kind, &acc);
}

/* ---- elementwise ops */

#include "ze/kernels/elementwise.cl"

/* ---- var, std, logsumexp, norm; cumsum, cumprod, softmax, log_softmax */

#include "ze/kernels/stats.cl"
#include "ze/kernels/random.cl"
#include "ze/kernels/sort.cl"
#include "ze/kernels/rows.cl"
#include "ze/kernels/image.cl"
#include "ze/kernels/count.cl"
#include "ze/kernels/indexing.cl"
#include "ze/kernels/matmul.cl"
