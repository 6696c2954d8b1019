/* indexing.cl -- the Level Zero backend's index_op, part of the module that dlx_kernels.cl makes
 * (it includes this file, after its byte helpers): the phases of dlx_ze_index_args (ze_args.h).
 * Elements move as bytes, so every dtype is moved bit for bit; only SCATTER_ADD computes, with
 * the CPU backend's rules (src/cpu/indexing.c). No phase uses atomics: a scatter's line is
 * walked in order by one work-item, and the masks number their elements from chunk counts, so
 * every result is the CPU's whatever the device's scheduling. */

/* Byte offsets of walk position i in the three operands' layouts. */
static void index_offsets(long i, __global const dlx_ze_index_args *a, long *off) {
  off[0] = off[1] = off[2] = 0;
  for (long d = a->ndim - 1; d >= 0; d--) {
    long q = i / a->shape[d], k = i - q * a->shape[d];
    i = q;
    for (int m = 0; m < 3; m++) off[m] += k * a->strides[m][d];
  }
}

static long load_index(__global const uchar *p) {
  long v;
  read_bytes((char *)&v, p, 8);
  return v;
}

/* The 0-based position of a checked 1-based or negative index. */
static long zero_based(long i, long size) { return i < 0 ? i + size : i - 1; }

static void move_element(__global uchar *to, __global const uchar *from, int size) {
  for (int k = 0; k < size; k++) to[k] = from[k];
}

/* *to += *from, as the CPU adds: integers wrap (the low bytes of the sum of the bit patterns,
 * little-endian), bool ors, float16 and bfloat16 add in float32, complex adds its parts. */
static void add_element(long dtype, __global uchar *to, __global const uchar *from) {
  ulong x[2] = {0, 0}, y[2] = {0, 0};
  int size = dtype_size(dtype);
  read_bytes((char *)x, to, size);
  read_bytes((char *)y, from, size);
  switch (dtype) {
  case DLX_BOOL:
    x[0] = (x[0] & 0xff) != 0 || (y[0] & 0xff) != 0;
    break;
  case DLX_FLOAT16:
    x[0] = dlx_float_to_half(dlx_half_to_float((ushort)x[0]) + dlx_half_to_float((ushort)y[0]));
    break;
  case DLX_BFLOAT16:
    x[0] = dlx_float_to_bf16(dlx_bf16_to_float((ushort)x[0]) + dlx_bf16_to_float((ushort)y[0]));
    break;
  case DLX_FLOAT32:
    ((float *)x)[0] += ((float *)y)[0];
    break;
  case DLX_COMPLEX64:
    ((float *)x)[0] += ((float *)y)[0];
    ((float *)x)[1] += ((float *)y)[1];
    break;
  case DLX_FLOAT64:
    ((double *)x)[0] += ((double *)y)[0];
    break;
  case DLX_COMPLEX128:
    ((double *)x)[0] += ((double *)y)[0];
    ((double *)x)[1] += ((double *)y)[1];
    break;
  default: /* the integers */
    x[0] += y[0];
  }
  write_bytes(to, (const char *)x, size);
}

/* The walk positions of chunk c: [*first, *end). */
static void chunk_range(long c, __global const dlx_ze_index_args *a, long *first, long *end) {
  *first = c * a->chunk_len;
  *end = *first + a->chunk_len < a->n ? *first + a->chunk_len : a->n;
}

static void index_check(__global const uchar *index, __global long *scratch,
                        __global const dlx_ze_index_args *a) {
  for (long c = get_global_id(0); c < a->chunks; c += get_global_size(0)) {
    long first, end, bad = a->n, off[3];
    chunk_range(c, a, &first, &end);
    for (long i = first; i < end && bad == a->n; i++) {
      long v;
      index_offsets(i, a, off);
      v = load_index(index + off[DLX_ZE_INDEX_IDX]);
      if (!((v >= 1 && v <= a->size) || (v < 0 && v >= -a->size))) bad = i;
    }
    scratch[c] = bad;
  }
}

/* FIRST and SCAN, by one work-group: each work-item takes a run of chunks, and work-item 0
 * combines the runs' results in order. */
static void index_combine(__global long *scratch, __local long *runs,
                          __global const dlx_ze_index_args *a) {
  long me = get_local_id(0), per = (a->chunks + GROUP - 1) / GROUP;
  long lo = me * per < a->chunks ? me * per : a->chunks;
  long hi = lo + per < a->chunks ? lo + per : a->chunks;
  bool first = a->phase == DLX_ZE_INDEX_FIRST;
  long acc = first ? a->n : 0;
  for (long c = lo; c < hi; c++) acc = first ? min(acc, scratch[c]) : acc + scratch[c];
  runs[me] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (me == 0) {
    long total = first ? a->n : 0;
    for (int k = 0; k < GROUP; k++) {
      long r = runs[k];
      if (first) {
        total = min(total, r);
      } else {
        runs[k] = total; /* the chunks before run k */
        total += r;
      }
    }
    scratch[a->chunks] = total;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!first) {
    long sum = runs[me];
    for (long c = lo; c < hi; c++) {
      long own = scratch[c];
      scratch[c] = sum;
      sum += own;
    }
  }
}

static void index_gather(__global uchar *dst, __global const uchar *src,
                         __global const uchar *index, __global const dlx_ze_index_args *a) {
  int size = (int)a->itemsize;
  for (long p = get_global_id(0); p < a->n; p += get_global_size(0)) {
    long off[3], i;
    index_offsets(p, a, off);
    i = zero_based(load_index(index + off[DLX_ZE_INDEX_IDX]), a->size);
    move_element(dst + off[DLX_ZE_INDEX_DST], src + off[DLX_ZE_INDEX_SRC] + i * a->stride, size);
  }
}

static void index_scatter(__global uchar *dst, __global const uchar *src,
                          __global const uchar *index, __global const dlx_ze_index_args *a) {
  bool add = a->phase == DLX_ZE_INDEX_SCATTER_ADD;
  int size = (int)a->itemsize;
  for (long line = get_global_id(0); line < a->n; line += get_global_size(0)) {
    long off[3];
    index_offsets(line, a, off);
    for (long j = 0; j < a->len; j++) {
      long i = zero_based(load_index(index + off[DLX_ZE_INDEX_IDX] + j * a->step[2]), a->size);
      __global uchar *to = dst + off[DLX_ZE_INDEX_DST] + j * a->step[0] + i * a->stride;
      __global const uchar *from = src + off[DLX_ZE_INDEX_SRC] + j * a->step[1];
      if (add)
        add_element(a->dtype, to, from);
      else
        move_element(to, from, size);
    }
  }
}

static void index_count(__global const uchar *mask, __global long *scratch,
                        __global const dlx_ze_index_args *a) {
  for (long c = get_global_id(0); c < a->chunks; c += get_global_size(0)) {
    long first, end, count = 0, off[3];
    chunk_range(c, a, &first, &end);
    for (long i = first; i < end; i++) {
      index_offsets(i, a, off);
      count += mask[off[DLX_ZE_INDEX_IDX]] != 0;
    }
    scratch[c] = count;
  }
}

/* NONZERO: the 1-based coordinates of walk position i. */
static void write_coords(__global long *out, long i, __global const dlx_ze_index_args *a) {
  for (long d = a->ndim - 1; d >= 0; d--) {
    long q = i / a->shape[d];
    out[d] = i - q * a->shape[d] + 1;
    i = q;
  }
}

static void index_masked_write(__global uchar *dst, __global const uchar *src,
                               __global const uchar *mask, __global const long *scratch,
                               __global const dlx_ze_index_args *a) {
  int size = (int)a->itemsize;
  for (long c = get_global_id(0); c < a->chunks; c += get_global_size(0)) {
    long first, end, k = scratch[c], off[3];
    chunk_range(c, a, &first, &end);
    for (long i = first; i < end; i++) {
      index_offsets(i, a, off);
      if (mask[off[DLX_ZE_INDEX_IDX]] == 0) continue;
      if (a->phase == DLX_ZE_INDEX_MASKED_SELECT)
        move_element(dst + k * size, src + off[DLX_ZE_INDEX_SRC], size);
      else if (a->phase == DLX_ZE_INDEX_MASKED_SCATTER)
        move_element(dst + off[DLX_ZE_INDEX_DST], src + k * a->src_step, size);
      else
        write_coords((__global long *)dst + k * a->ndim, i, a);
      k++;
    }
  }
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void
dlx_index(__global uchar *dst, __global const uchar *src, __global const uchar *index,
          __global long *scratch, __global const dlx_ze_index_args *a) {
  __local long runs[GROUP];
  switch (a->phase) {
  case DLX_ZE_INDEX_CHECK:
    index_check(index, scratch, a);
    break;
  case DLX_ZE_INDEX_FIRST:
  case DLX_ZE_INDEX_SCAN:
    index_combine(scratch, runs, a);
    break;
  case DLX_ZE_INDEX_GATHER:
    index_gather(dst, src, index, a);
    break;
  case DLX_ZE_INDEX_SCATTER:
  case DLX_ZE_INDEX_SCATTER_ADD:
    index_scatter(dst, src, index, a);
    break;
  case DLX_ZE_INDEX_COUNT:
    index_count(index, scratch, a);
    break;
  default:
    index_masked_write(dst, src, index, scratch, a);
  }
}
