/* indexing.c -- the phases of the indexing kernel (indexing.cl) against the CPU backend's
 * index_op, bit for bit: gather, scatter, scatter_add, the bad-index check, the masks and
 * nonzero, every whole-byte dtype, stride-0 operands, repeated indices, empty and 0-d masks. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"

/* An operand of the indexing tests: a random layout of shape, now and then with a stride-0 dim
 * when `broadcast`, in SVM memory of random bytes, mapped for the host. */
typedef struct operand {
  layout l;
  dlx_dtype dtype;
  unsigned char *mem;
} operand;

static operand make_operand(int32_t ndim, const int64_t *shape, dlx_dtype dtype, bool broadcast) {
  operand o = {.dtype = dtype};
  int64_t size = dlx_itemsize(dtype);
  o.l = random_layout(ndim, shape, size);
  if (broadcast && ndim > 0 && next_random() % 2) o.l.strides[next_random() % (uint64_t)ndim] = 0;
  set_span(&o.l, size);
  o.mem = svm((size_t)o.l.span);
  host_access(o.mem, (size_t)o.l.span, 1);
  random_bytes(o.mem, o.l.span);
  return o;
}

static void operand_access(operand *o, int on) { host_access(o->mem, (size_t)o->l.span, on); }

static void free_operand(operand *o) { clSVMFree(context, o->mem); }

/* Random indices in -size..size, zeros made 1 (bad ones added by the caller). */
static void fill_indices(operand *o, int64_t size) {
  dlx_tensor view = as_tensor(&o->l, DLX_INT64, o->mem), values;
  int64_t n = 1;
  for (int32_t d = 0; d < o->l.ndim; d++) n *= o->l.shape[d];
  CHECK(dlx_tensor_empty(&values, o->l.shape, o->l.ndim, DLX_INT64, (DLDevice){kDLCPU, 0}, NULL) ==
        0);
  for (int64_t i = 0; i < n; i++) {
    int64_t v = (int64_t)(next_random() % (uint64_t)(2 * size + 1)) - size;
    ((int64_t *)values.buffer->data)[i] = v == 0 ? 1 : v;
  }
  CHECK(dlx_cpu_backend.copy(&view, &values, NULL) == 0);
  dlx_tensor_close(&values);
  dlx_tensor_close(&view);
}

/* Values whose sums every runtime rounds alike: random bytes for integers and bool, numbers in
 * -100..100 with fractions for floats (no NaN payloads, which runtimes may pass on differently). */
static void addable_values(operand *o) {
  dlx_tensor view, wide;
  int64_t n = 1;
  if (dlx_dtype_kind(o->dtype) != DLX_KIND_FLOAT && dlx_dtype_kind(o->dtype) != DLX_KIND_COMPLEX)
    return;
  for (int32_t d = 0; d < o->l.ndim; d++) n *= o->l.shape[d];
  CHECK(dlx_tensor_empty(&wide, o->l.shape, o->l.ndim, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, NULL) ==
        0);
  for (int64_t i = 0; i < n; i++)
    ((double *)wide.buffer->data)[i] = (double)(int64_t)(next_random() % 20001 - 10000) / 97.0;
  view = as_tensor(&o->l, o->dtype, o->mem);
  CHECK(dlx_cpu_backend.copy(&view, &wide, NULL) == 0);
  dlx_tensor_close(&view);
  dlx_tensor_close(&wide);
}

/* The walk of src/ze/ze_indexing.c (unmerged) over shape_of's dims but skip. */
static void index_walk(dlx_ze_index_args *a, const dlx_tensor *shape_of,
                       const dlx_tensor *const ops[3], int32_t skip) {
  a->n = 1;
  a->ndim = 0;
  for (int32_t d = 0; d < shape_of->ndim; d++) {
    if (d == skip) continue;
    a->shape[a->ndim] = shape_of->shape[d];
    for (int m = 0; m < 3; m++)
      a->strides[m][a->ndim] = ops[m] ? ops[m]->strides[d] * dlx_itemsize(ops[m]->dtype) : 0;
    a->n *= shape_of->shape[d];
    a->ndim++;
  }
}

/* Launches phase `phase` of dlx_index: one work-group for FIRST and SCAN, else one or enough
 * for a work-item per item (grid-stride loops either way). */
static void index_phase(dlx_ze_index_args *blk, int64_t phase, void *const *ptrs, int64_t items,
                        dlx_ze_index_args *a) {
  size_t groups = next_random() % 3 == 0 ? 1 : (size_t)((items + 255) / 256);
  blk->phase = phase;
  if (phase == DLX_ZE_INDEX_FIRST || phase == DLX_ZE_INDEX_SCAN) groups = 1;
  host_access(a, sizeof *a, 1);
  *a = *blk;
  host_access(a, sizeof *a, 0);
  CHECK(run(DLX_ZE_KERNEL_INDEX, groups, (void *const[]){ptrs[0], ptrs[1], ptrs[2], ptrs[3], a},
            5) == 0);
}

static void set_chunks(dlx_ze_index_args *blk) {
  static const int64_t lens[4] = {1, 3, 7, 32};
  blk->chunk_len = lens[next_random() % 4];
  blk->chunks = (blk->n + blk->chunk_len - 1) / blk->chunk_len;
}

/* dst (its whole span, padding included) against want's bytes. */
static void same_span(operand *dst, const unsigned char *want, const char *what, dlx_dtype dtype) {
  if (memcmp(dst->mem, want, (size_t)dst->l.span) != 0) {
    fprintf(stderr, "%s %s differs from the CPU\n", what, dlx_dtype_info_of(dtype)->name);
    CHECK(0);
  }
}

/* A CPU tensor over a copy of o's bytes, in the same layout: where the CPU backend writes. */
static dlx_tensor want_copy(const operand *o, unsigned char **bytes) {
  *bytes = malloc((size_t)o->l.span);
  memcpy(*bytes, o->mem, (size_t)o->l.span);
  return as_tensor(&o->l, o->dtype, *bytes);
}

/* A gather or scatter: its operands, CPU tensors over them and over want (a copy of dst's
 * bytes, where the CPU backend writes), and the kernel's argument block (blk, copied to a). */
typedef struct move_case {
  operand src, dst, index;
  dlx_tensor st, dt, it, wt;
  unsigned char *want;
  dlx_ze_index_args blk, *a;
} move_case;

/* The tensors over the operands that the caller made and filled. */
static void move_case_tensors(move_case *m) {
  m->st = as_tensor(&m->src.l, m->src.dtype, m->src.mem);
  m->dt = as_tensor(&m->dst.l, m->dst.dtype, m->dst.mem);
  m->it = as_tensor(&m->index.l, DLX_INT64, m->index.mem);
  m->wt = want_copy(&m->dst, &m->want);
}

/* The kernel's phase over the operands, and dst against the CPU's want. */
static void move_case_check(move_case *m, int64_t phase, const char *what) {
  operand_access(&m->src, 0);
  operand_access(&m->dst, 0);
  operand_access(&m->index, 0);
  index_phase(&m->blk, phase,
              (void *const[]){m->dst.mem + m->dst.l.first, m->src.mem + m->src.l.first,
                              m->index.mem + m->index.l.first, m->a},
              m->blk.n, m->a);
  operand_access(&m->dst, 1);
  same_span(&m->dst, m->want, what, m->dst.dtype);
  operand_access(&m->dst, 0);
}

static void move_case_close(move_case *m) {
  dlx_tensor_close(&m->st);
  dlx_tensor_close(&m->dt);
  dlx_tensor_close(&m->it);
  dlx_tensor_close(&m->wt);
  free(m->want);
  free_operand(&m->src);
  free_operand(&m->dst);
  free_operand(&m->index);
  clSVMFree(context, m->a);
}

static void test_index_gather(dlx_dtype dtype) {
  int64_t src_shape[3] = {5, 6, 7}, shape[3] = {5, 6, 7}, size = dlx_itemsize(dtype);
  int32_t dim = (int32_t)(next_random() % 3);
  move_case m = {.a = svm(sizeof(dlx_ze_index_args))};
  shape[dim] = 1 + (int64_t)(next_random() % 9);
  m.src = make_operand(3, src_shape, dtype, true);
  m.dst = make_operand(3, shape, dtype, false);
  m.index = make_operand(3, shape, DLX_INT64, true);
  fill_indices(&m.index, src_shape[dim]);
  move_case_tensors(&m);
  {
    dlx_tensor walk_src = m.st;
    int64_t stride = m.st.strides[dim];
    memcpy(walk_src.shape, shape, sizeof shape);
    walk_src.strides[dim] = 0;
    dlx_index_request r = {DLX_INDEX_GATHER, &m.wt,  &walk_src, &m.it, dim,
                           src_shape[dim],   stride, 0};
    const dlx_tensor *const ops[3] = {&m.dt, &walk_src, &m.it};
    CHECK(dlx_cpu_backend.index_op(&r, NULL) == 0);
    index_walk(&m.blk, &m.dt, ops, -1);
    m.blk.dtype = dtype;
    m.blk.itemsize = size;
    m.blk.size = src_shape[dim];
    m.blk.stride = stride * size;
  }
  move_case_check(&m, DLX_ZE_INDEX_GATHER, "gather");
  move_case_close(&m);
}

/* Lines of up to 12 elements with indices among the first three (or last three) positions:
 * many repeats, so that the order of the writes and sums shows. */
static void test_index_scatter(dlx_dtype dtype, bool add) {
  int64_t dst_shape[3] = {5, 6, 7}, shape[3], size = dlx_itemsize(dtype);
  int32_t dim = (int32_t)(next_random() % 3);
  move_case m = {.a = svm(sizeof(dlx_ze_index_args))};
  for (int32_t d = 0; d < 3; d++)
    shape[d] = d == dim ? 1 + (int64_t)(next_random() % 12)
                        : 1 + (int64_t)(next_random() % (uint64_t)dst_shape[d]);
  m.src = make_operand(3, shape, dtype, true);
  m.dst = make_operand(3, dst_shape, dtype, false);
  m.index = make_operand(3, shape, DLX_INT64, true);
  fill_indices(&m.index, 3);
  if (add) {
    addable_values(&m.src);
    addable_values(&m.dst);
  }
  move_case_tensors(&m);
  {
    dlx_tensor walk_dst = m.dt, walk_want = m.wt;
    int64_t stride = m.dt.strides[dim];
    memcpy(walk_dst.shape, shape, sizeof shape);
    memcpy(walk_want.shape, shape, sizeof shape);
    walk_dst.strides[dim] = walk_want.strides[dim] = 0;
    dlx_index_request r = {add ? DLX_INDEX_SCATTER_ADD : DLX_INDEX_SCATTER,
                           &walk_want,
                           &m.st,
                           &m.it,
                           dim,
                           dst_shape[dim],
                           stride,
                           0};
    const dlx_tensor *const ops[3] = {&walk_dst, &m.st, &m.it};
    CHECK(dlx_cpu_backend.index_op(&r, NULL) == 0);
    index_walk(&m.blk, &m.it, ops, dim);
    m.blk.dtype = dtype;
    m.blk.itemsize = size;
    m.blk.size = dst_shape[dim];
    m.blk.stride = stride * size;
    m.blk.len = shape[dim];
    for (int k = 0; k < 3; k++) m.blk.step[k] = ops[k]->strides[dim] * dlx_itemsize(ops[k]->dtype);
  }
  move_case_check(&m, add ? DLX_ZE_INDEX_SCATTER_ADD : DLX_ZE_INDEX_SCATTER,
                  add ? "scatter_add" : "scatter");
  move_case_close(&m);
}

/* Byte offset of row-major position p in l (element strides). */
static int64_t offset_of(const layout *l, int64_t p, int64_t size) {
  int64_t off = 0;
  for (int32_t d = l->ndim - 1; d >= 0; d--) {
    off += p % l->shape[d] * l->strides[d];
    p /= l->shape[d];
  }
  return l->first + off * size;
}

/* CHECK and FIRST: the first bad index in row-major order, over many chunks (more than a
 * work-group's runs), with 0 to 3 bad ones. */
static void test_index_check(int bad) {
  int64_t shape[3] = {3, 50, 7}, n = 3 * 50 * 7, size = 4, first = n, got = -1;
  operand index = make_operand(3, shape, DLX_INT64, true);
  int64_t *scratch;
  dlx_tensor it = as_tensor(&index.l, DLX_INT64, index.mem);
  dlx_ze_index_args blk = {0}, *a = svm(sizeof *a);
  const dlx_tensor *const ops[3] = {NULL, NULL, &it};
  static const int64_t wrong[4] = {0, 5, -5, INT64_MIN};
  fill_indices(&index, size);
  for (int k = 0; k < bad; k++) {
    int64_t v = wrong[next_random() % 4];
    memcpy(index.mem + offset_of(&index.l, (int64_t)(next_random() % (uint64_t)n), 8), &v, 8);
  }
  for (int64_t p = 0; p < n && first == n; p++) {
    int64_t v;
    memcpy(&v, index.mem + offset_of(&index.l, p, 8), 8);
    if (!((v >= 1 && v <= size) || (v < 0 && v >= -size))) first = p;
  }
  index_walk(&blk, &it, ops, -1);
  blk.size = size;
  set_chunks(&blk);
  scratch = svm((size_t)(blk.chunks + 1) * 8);
  operand_access(&index, 0);
  {
    void *const ptrs[4] = {a, a, index.mem + index.l.first, scratch};
    index_phase(&blk, DLX_ZE_INDEX_CHECK, ptrs, blk.chunks, a);
    index_phase(&blk, DLX_ZE_INDEX_FIRST, ptrs, 1, a);
  }
  host_access(scratch, (size_t)(blk.chunks + 1) * 8, 1);
  got = scratch[blk.chunks];
  host_access(scratch, (size_t)(blk.chunks + 1) * 8, 0);
  if (got != first) {
    fprintf(stderr, "check: first bad index at %lld, the kernel says %lld (chunks of %lld)\n",
            (long long)first, (long long)got, (long long)blk.chunk_len);
    CHECK(0);
  }
  dlx_tensor_close(&it);
  free_operand(&index);
  clSVMFree(context, scratch);
  clSVMFree(context, a);
}

/* COUNT and SCAN, then MASKED_SELECT, MASKED_SCATTER and NONZERO, against the CPU backend: masks
 * of density 0, 1/2 or 1, 3-D or 0-d. */
static void test_index_masks(dlx_dtype dtype, int density, bool zero_d) {
  int64_t shape[3] = {6, 7, 8}, size = dlx_itemsize(dtype), count = 0, got = -1;
  int32_t ndim = zero_d ? 0 : 3;
  operand mask = make_operand(ndim, shape, DLX_BOOL, true);
  operand src = make_operand(ndim, shape, dtype, true),
          dst = make_operand(ndim, shape, dtype, false);
  dlx_tensor mt = as_tensor(&mask.l, DLX_BOOL, mask.mem), st = as_tensor(&src.l, dtype, src.mem);
  dlx_tensor dt = as_tensor(&dst.l, dtype, dst.mem);
  dlx_ze_index_args blk = {0}, *a = svm(sizeof *a);
  int64_t *scratch;
  int64_t n = zero_d ? 1 : 6 * 7 * 8;
  for (int64_t i = 0; i < mask.l.span; i++)
    mask.mem[i] = density == 0 ? 0 : density == 2 ? 1 : (unsigned char)(next_random() % 2);
  for (int64_t p = 0; p < n; p++) count += mask.mem[offset_of(&mask.l, p, 1)] != 0;
  blk.dtype = dtype;
  blk.itemsize = size;
  blk.count = count;
  {
    const dlx_tensor *const ops[3] = {NULL, NULL, &mt};
    index_walk(&blk, &mt, ops, -1);
  }
  set_chunks(&blk);
  scratch = svm((size_t)(blk.chunks + 1) * 8);
  operand_access(&mask, 0);
  operand_access(&src, 0);
  operand_access(&dst, 0);
  for (int64_t write = DLX_ZE_INDEX_MASKED_SELECT; write <= DLX_ZE_INDEX_NONZERO; write++) {
    int64_t out_bytes = write == DLX_ZE_INDEX_NONZERO ? count * ndim * 8 : count * size;
    int64_t one = count, line_len = count > 0 ? count : 1, line_shape[2] = {count, ndim};
    unsigned char *out = svm((size_t)out_bytes + 1), *want;
    operand line = make_operand(1, &line_len, dtype, true); /* MASKED_SCATTER's source */
    dlx_tensor lt = as_tensor(&line.l, dtype, line.mem), wt;
    const char *name = write == DLX_ZE_INDEX_MASKED_SELECT    ? "masked_select"
                       : write == DLX_ZE_INDEX_MASKED_SCATTER ? "masked_scatter"
                                                              : "nonzero";
    dlx_index_request r = {
        (dlx_index_op)(DLX_INDEX_MASKED_SELECT + write - DLX_ZE_INDEX_MASKED_SELECT),
        NULL,
        NULL,
        &mt,
        0,
        0,
        0,
        0};
    if (write == DLX_ZE_INDEX_NONZERO && ndim == 0) {
      dlx_tensor_close(&lt);
      free_operand(&line);
      clSVMFree(context, out);
      continue; /* the core asks for no coordinates of a 0-d mask */
    }
    operand_access(&mask, 1);
    operand_access(&src, 1);
    operand_access(&dst, 1);
    host_access(out, (size_t)out_bytes + 1, 1);
    memset(out, 0xa5, (size_t)out_bytes + 1);
    host_access(scratch, (size_t)(blk.chunks + 1) * 8, 1);
    memset(scratch, 0xff, (size_t)(blk.chunks + 1) * 8);
    host_access(scratch, (size_t)(blk.chunks + 1) * 8, 0);
    if (write == DLX_ZE_INDEX_MASKED_SCATTER) {
      wt = want_copy(&dst, &want);
      r.dst = &wt;
      r.src = &lt;
      blk.src_step = line.l.strides[0] * size;
    } else {
      int64_t strides[2] = {write == DLX_ZE_INDEX_NONZERO ? ndim : 1, 1};
      layout ol = {.ndim = write == DLX_ZE_INDEX_NONZERO ? 2 : 1, .span = out_bytes + 1};
      memcpy(ol.shape, write == DLX_ZE_INDEX_NONZERO ? line_shape : &one,
             sizeof(int64_t) * (size_t)ol.ndim);
      memcpy(ol.strides, strides, sizeof strides);
      want = malloc((size_t)out_bytes + 1);
      memcpy(want, out, (size_t)out_bytes + 1);
      wt = as_tensor(&ol, write == DLX_ZE_INDEX_NONZERO ? DLX_INT64 : dtype, want);
      r.dst = &wt;
      r.src = &st;
    }
    if (count > 0) CHECK(dlx_cpu_backend.index_op(&r, NULL) == 0);
    {
      const dlx_tensor *const ops[3] = {write == DLX_ZE_INDEX_MASKED_SCATTER ? &dt : NULL,
                                        write == DLX_ZE_INDEX_MASKED_SELECT ? &st : NULL, &mt};
      index_walk(&blk, &mt, ops, -1);
    }
    operand_access(&mask, 0);
    operand_access(&src, 0);
    operand_access(&dst, 0);
    operand_access(&line, 0);
    host_access(out, (size_t)out_bytes + 1, 0);
    {
      void *const ptrs[4] = {write == DLX_ZE_INDEX_MASKED_SCATTER ? dst.mem + dst.l.first : out,
                             write == DLX_ZE_INDEX_MASKED_SCATTER ? line.mem + line.l.first
                                                                  : src.mem + src.l.first,
                             mask.mem + mask.l.first, scratch};
      index_phase(&blk, DLX_ZE_INDEX_COUNT, ptrs, blk.chunks, a);
      index_phase(&blk, DLX_ZE_INDEX_SCAN, ptrs, 1, a);
      if (count > 0) index_phase(&blk, write, ptrs, blk.chunks, a);
    }
    host_access(scratch, (size_t)(blk.chunks + 1) * 8, 1);
    got = scratch[blk.chunks];
    host_access(scratch, (size_t)(blk.chunks + 1) * 8, 0);
    CHECK_EQ_INT(got, count);
    if (write == DLX_ZE_INDEX_MASKED_SCATTER) {
      operand_access(&dst, 1);
      same_span(&dst, want, name, dtype);
      operand_access(&dst, 0);
    } else {
      host_access(out, (size_t)out_bytes + 1, 1);
      if (memcmp(out, want, (size_t)out_bytes + 1) != 0) {
        fprintf(stderr, "%s %s differs from the CPU\n", name, dlx_dtype_info_of(dtype)->name);
        CHECK(0);
      }
      host_access(out, (size_t)out_bytes + 1, 0);
    }
    if (write == DLX_ZE_INDEX_MASKED_SCATTER) { /* the CPU's result is the next dst */
      operand_access(&dst, 1);
      memcpy(dst.mem, want, (size_t)dst.l.span);
      operand_access(&dst, 0);
    }
    dlx_tensor_close(&wt);
    dlx_tensor_close(&lt);
    free(want);
    free_operand(&line);
    clSVMFree(context, out);
  }
  dlx_tensor_close(&mt);
  dlx_tensor_close(&st);
  dlx_tensor_close(&dt);
  free_operand(&mask);
  free_operand(&src);
  free_operand(&dst);
  clSVMFree(context, scratch);
  clSVMFree(context, a);
}

void test_indexing(void) {
  for (int dtype = DLX_BOOL; dtype <= DLX_FLOAT8_E8M0FNU; dtype++) {
    if (dlx_itemsize((dlx_dtype)dtype) == 0) continue; /* fp4/fp6: no indexing */
    for (int rep = 0; rep < 3; rep++) {
      test_index_gather((dlx_dtype)dtype);
      test_index_scatter((dlx_dtype)dtype, false);
      if (dtype <= DLX_COMPLEX128) test_index_scatter((dlx_dtype)dtype, true);
    }
    for (int density = 0; density < 3; density++) {
      test_index_masks((dlx_dtype)dtype, density, false);
      test_index_masks((dlx_dtype)dtype, density, true);
    }
  }
  for (int bad = 0; bad <= 3; bad++)
    for (int rep = 0; rep < 4; rep++) test_index_check(bad);
}
