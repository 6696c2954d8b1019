/* ze_indexing.c -- the Level Zero backend's index_op (src/core/backend.h): the phases of the
 * kernel dlx_index (src/ze/kernels/indexing.cl, its argument block in ze_args.h). GATHER is a
 * work-item per element; SCATTER and SCATTER_ADD a work-item per line along the indexed dim,
 * walked in order, so that the last write wins and sums are added in the CPU's order, bit for
 * bit, without atomics; CHECK and the masks split the walk into chunks: a count (or the first
 * bad index) per chunk, one work-group combining them, then the writes, each chunk numbering its
 * elements from its exclusive prefix sum. */
#include <string.h>

#include "core/backend.h"
#include "core/plan.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

/* The chunks of CHECK and the masks: at most MAX_CHUNKS (8 bytes of scratch each), of at least
 * MIN_CHUNK elements, so that one work-group combines them quickly. */
#define MAX_CHUNKS (1 << 18)
#define MIN_CHUNK 32

/* The walk over shape_of's dims but `skip` (-1: none) with the byte strides of the operands
 * dst, src and index (NULL: not walked); a->n is its positions. When `merge`, the core's plan
 * drops its size-1 dims and merges the dims contiguous in all three (row-major order stays). */
static void set_walk(dlx_ze_index_args *a, const dlx_tensor *shape_of,
                     const dlx_tensor *const ops[3], int32_t skip, bool merge) {
  int32_t ndim = 0;
  dlx_plan p;
  a->n = 1;
  for (int32_t d = 0; d < shape_of->ndim; d++) {
    if (d == skip) continue;
    a->shape[ndim] = shape_of->shape[d];
    for (int m = 0; m < 3; m++)
      a->strides[m][ndim] = ops[m] ? ops[m]->strides[d] * dlx_itemsize(ops[m]->dtype) : 0;
    a->n *= shape_of->shape[d];
    ndim++;
  }
  a->ndim = ndim;
  if (!merge) return;
  dlx_plan_start(&p, ndim, a->shape);
  for (int m = 0; m < 3; m++) dlx_plan_add(&p, a->strides[m], 0);
  if (dlx_plan_finish(&p, 0)) /* else no positions: nothing is walked */
    a->ndim = dlx_ze_put_walk(&p, a->shape,
                              (int64_t *const[]){a->strides[0], a->strides[1], a->strides[2]},
                              (const int64_t[]){1, 1, 1});
}

static void set_chunks(dlx_ze_index_args *a) {
  int64_t len = (a->n + MAX_CHUNKS - 1) / MAX_CHUNKS;
  a->chunk_len = len < MIN_CHUNK ? MIN_CHUNK : len;
  a->chunks = (a->n + a->chunk_len - 1) / a->chunk_len;
}

/* One phase of dlx_index; the combining phases run on one work-group. Lock held. */
static int phase(dlx_ze_device *dev, dlx_ze_index_args *a, int64_t which, void *const *ptrs,
                 dlx_error *err) {
  uint32_t groups;
  a->phase = which;
  if (which == DLX_ZE_INDEX_FIRST || which == DLX_ZE_INDEX_SCAN)
    groups = 1;
  else if (which == DLX_ZE_INDEX_GATHER || which == DLX_ZE_INDEX_SCATTER ||
           which == DLX_ZE_INDEX_SCATTER_ADD)
    groups = dlx_ze_groups_for(a->n);
  else
    groups = dlx_ze_groups_for(a->chunks);
  return dlx_ze_launch(dev, DLX_ZE_INDEX, groups, a, sizeof *a, ptrs, 4, err);
}

/* Copies 8 bytes of device memory to *out. Lock held. */
static int read_back(dlx_ze_device *dev, int64_t *out, const void *from, dlx_error *err) {
  int rc = dlx_ze_check(dlx_ze_api_get()->zeCommandListAppendMemoryCopy(
                            dlx_ze_current_list(dev), out, from, 8, dev->done, 0, NULL),
                        "zeCommandListAppendMemoryCopy", err);
  return rc == 0 ? dlx_ze_wait(dev, err) : rc;
}

/* The element of index at row-major position p. */
static const char *element_at(const dlx_tensor *index, int64_t p) {
  int64_t off = 0;
  for (int32_t d = index->ndim - 1; d >= 0; d--) {
    off += p % index->shape[d] * index->strides[d];
    p /= index->shape[d];
  }
  return dlx_ze_first_element(index) + off * 8;
}

/* The given phases over chunks of the walk, with scratch for a result per chunk and their
 * combination; *result (when not NULL) gets that combination, scratch[chunks], at the end. */
static int run_chunked(const dlx_index_request *r, dlx_ze_index_args *a, const int64_t *phases,
                       int nphases, int64_t *result, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(r->index);
  int32_t id = r->index->buffer->device.device_id;
  size_t bytes;
  char *scratch;
  int rc = 0;
  set_chunks(a);
  bytes = (size_t)(a->chunks + 1) * 8;
  scratch = dlx_ze_backend.alloc(id, bytes, err);
  if (scratch == NULL) return DLX_MEMORY_ERROR;
  {
    void *const ptrs[4] = {r->dst != NULL ? dlx_ze_first_element(r->dst) : dev->args,
                           r->src != NULL ? dlx_ze_first_element(r->src) : dev->args,
                           dlx_ze_first_element(r->index), scratch};
    pthread_mutex_lock(&dev->lock);
    for (int k = 0; rc == 0 && k < nphases; k++) rc = phase(dev, a, phases[k], ptrs, err);
    if (rc == 0 && result != NULL) rc = read_back(dev, result, scratch + a->chunks * 8, err);
    pthread_mutex_unlock(&dev->lock);
  }
  dlx_ze_backend.free(id, scratch, bytes);
  return rc;
}

/* The one phase of GATHER and SCATTER*, without scratch. */
static int run_direct(const dlx_index_request *r, dlx_ze_index_args *a, int64_t which,
                      dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_of(r->index);
  void *const ptrs[4] = {dlx_ze_first_element(r->dst), dlx_ze_first_element(r->src),
                         dlx_ze_first_element(r->index), dev->args};
  int rc;
  if (a->n == 0) return 0;
  pthread_mutex_lock(&dev->lock);
  rc = phase(dev, a, which, ptrs, err);
  pthread_mutex_unlock(&dev->lock);
  return rc;
}

static int check_indices(const dlx_index_request *r, dlx_ze_index_args *a, dlx_error *err) {
  const dlx_tensor *const ops[3] = {NULL, NULL, r->index};
  const int64_t phases[2] = {DLX_ZE_INDEX_CHECK, DLX_ZE_INDEX_FIRST};
  int64_t bad = 0, value = 0;
  int rc;
  set_walk(a, r->index, ops, -1, true); /* merging keeps the row-major positions */
  rc = run_chunked(r, a, phases, 2, &bad, err);
  if (rc != 0 || bad >= a->n) return rc;
  {
    dlx_ze_device *dev = dlx_ze_device_of(r->index);
    pthread_mutex_lock(&dev->lock);
    rc = read_back(dev, &value, element_at(r->index, bad), err);
    pthread_mutex_unlock(&dev->lock);
  }
  if (rc != 0) return rc;
  return dlx_index_out_of_range(err, value, r->dim, r->size);
}

static int gather(const dlx_index_request *r, dlx_ze_index_args *a, dlx_error *err) {
  const dlx_tensor *const ops[3] = {r->dst, r->src, r->index};
  set_walk(a, r->dst, ops, -1, true);
  a->stride = r->stride * a->itemsize;
  return run_direct(r, a, DLX_ZE_INDEX_GATHER, err);
}

/* A work-item per line along dim: the lines are the other dims of the index's shape. */
static int scatter(const dlx_index_request *r, dlx_ze_index_args *a, int64_t which,
                   dlx_error *err) {
  const dlx_tensor *const ops[3] = {r->dst, r->src, r->index};
  set_walk(a, r->index, ops, r->dim, true);
  a->stride = r->stride * a->itemsize;
  a->len = r->index->shape[r->dim];
  for (int m = 0; m < 3; m++) a->step[m] = ops[m]->strides[r->dim] * dlx_itemsize(ops[m]->dtype);
  return run_direct(r, a, which, err);
}

/* COUNT, SCAN, then the write phase `which` over the mask's walk. */
static int masked(const dlx_index_request *r, dlx_ze_index_args *a, int64_t which, dlx_error *err) {
  const dlx_tensor *const ops[3] = {which == DLX_ZE_INDEX_MASKED_SCATTER ? r->dst : NULL,
                                    which == DLX_ZE_INDEX_MASKED_SELECT ? r->src : NULL, r->index};
  const int64_t phases[3] = {DLX_ZE_INDEX_COUNT, DLX_ZE_INDEX_SCAN, which};
  /* NONZERO writes coordinates: its walk keeps the mask's dims as they are */
  set_walk(a, r->index, ops, -1, which != DLX_ZE_INDEX_NONZERO);
  if (which == DLX_ZE_INDEX_MASKED_SCATTER) {
    a->count = r->src->shape[0];
    a->src_step = r->src->strides[0] * a->itemsize;
  } else {
    a->count = r->dst->shape[0];
  }
  return run_chunked(r, a, phases, 3, NULL, err);
}

static int count_true(dlx_index_request *r, dlx_ze_index_args *a, dlx_error *err) {
  const dlx_tensor *const ops[3] = {NULL, NULL, r->index};
  const int64_t phases[2] = {DLX_ZE_INDEX_COUNT, DLX_ZE_INDEX_SCAN};
  set_walk(a, r->index, ops, -1, true);
  return run_chunked(r, a, phases, 2, &r->count, err);
}

int dlx_ze_index_op(dlx_index_request *r, dlx_error *err) {
  dlx_ze_index_args a;
  const dlx_tensor *data = r->dst != NULL ? r->dst : r->src;
  memset(&a, 0, sizeof a);
  if (data != NULL) {
    a.dtype = data->dtype;
    a.itemsize = dlx_itemsize(data->dtype);
  }
  a.size = r->size;
  switch (r->op) {
  case DLX_INDEX_CHECK:
    return check_indices(r, &a, err);
  case DLX_INDEX_GATHER:
    return gather(r, &a, err);
  case DLX_INDEX_SCATTER:
    return scatter(r, &a, DLX_ZE_INDEX_SCATTER, err);
  case DLX_INDEX_SCATTER_ADD:
    return scatter(r, &a, DLX_ZE_INDEX_SCATTER_ADD, err);
  case DLX_INDEX_MASKED_SELECT:
    return masked(r, &a, DLX_ZE_INDEX_MASKED_SELECT, err);
  case DLX_INDEX_MASKED_SCATTER:
    return masked(r, &a, DLX_ZE_INDEX_MASKED_SCATTER, err);
  case DLX_INDEX_NONZERO:
    return masked(r, &a, DLX_ZE_INDEX_NONZERO, err);
  case DLX_INDEX_COUNT:
    return count_true(r, &a, err);
  }
  return dlx_fail(err, DLX_VALUE_ERROR, "unknown indexing op %d", (int)r->op);
}
