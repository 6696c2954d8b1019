/* allocator.c -- the caching allocator of CUDA device memory. cudaMalloc and cudaFree are slow
 * and cudaFree waits for the whole device, so freed blocks stay in a pool of the device,
 * tagged with the stream they were allocated for (and the thread, for the per-thread default
 * stream: pool_tags.h), and are handed out again to allocations with the same tag: work on one
 * stream runs in order, so the next user of a block can only run after the previous one. Blocks
 * are only given back to CUDA by empty_cache, or when cudaMalloc runs out of memory. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "cuda/cuda_internal.h"
#include "cuda/kernels.h"
#include "cuda/pool_tags.h"

typedef struct block {
  void *ptr;
  size_t size;
  dlx_cuda_tag tag;
  struct block *next;
} block;

static atomic_uint_fast64_t threads_numbered;
static _Thread_local uint64_t thread_number; /* 0 until the thread first needs one */

dlx_cuda_tag dlx_cuda_tag_of(uintptr_t stream) {
  dlx_cuda_tag tag = {stream, 0};
  if (stream == (uintptr_t)cudaStreamPerThread) {
    if (thread_number == 0) thread_number = (uint64_t)atomic_fetch_add(&threads_numbered, 1) + 1;
    tag.thread = thread_number;
  }
  return tag;
}

typedef struct pool {
  block *free_blocks; /* in the pool */
  block *used_blocks; /* handed out */
  size_t allocated, cached;
} pool;

static pool pools[DLX_CUDA_MAX_DEVICES];
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* Small blocks in 512-byte steps, large ones in 2 MiB steps: few distinct sizes to reuse. */
static size_t round_size(size_t nbytes) {
  size_t step = nbytes < ((size_t)1 << 20) ? 512 : ((size_t)2 << 20);
  return (nbytes + step - 1) / step * step;
}

/* Unlinks and returns the smallest pooled block for (size, tag) that wastes less than half. */
static block *take_cached(pool *p, size_t size, dlx_cuda_tag tag) {
  block **best = NULL;
  for (block **at = &p->free_blocks; *at != NULL; at = &(*at)->next) {
    block *b = *at;
    if (!dlx_cuda_same_tag(b->tag, tag) || b->size < size || b->size >= 2 * size) continue;
    if (best == NULL || b->size < (*best)->size) best = at;
  }
  if (best == NULL) return NULL;
  block *found = *best;
  *best = found->next;
  p->cached -= found->size;
  return found;
}

/* cudaFree of every pooled block of the current device (called with the lock held). */
static void release_cached(pool *p) {
  while (p->free_blocks != NULL) {
    block *b = p->free_blocks;
    p->free_blocks = b->next;
    (void)cudaFree(b->ptr);
    p->cached -= b->size;
    dlx_free(b);
  }
}

static cudaError_t malloc_block(pool *p, block *b) {
  cudaError_t status = cudaMalloc(&b->ptr, b->size);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    release_cached(p); /* the pool may hold what is missing */
    status = cudaMalloc(&b->ptr, b->size);
  }
  return status;
}

/* With the device current. */
static void *pool_alloc_here(int32_t device_id, size_t nbytes, cudaStream_t stream,
                             dlx_error *err) {
  pool *p = &pools[device_id];
  size_t size = round_size(nbytes);
  dlx_cuda_tag tag = dlx_cuda_tag_of((uintptr_t)stream);
  block *b;
  pthread_mutex_lock(&pool_lock);
  b = take_cached(p, size, tag);
  if (b == NULL) {
    cudaError_t status;
    b = dlx_malloc(sizeof *b);
    if (b == NULL) {
      pthread_mutex_unlock(&pool_lock);
      dlx_fail(err, DLX_MEMORY_ERROR, "out of host memory for the CUDA allocator");
      return NULL;
    }
    b->size = size;
    b->tag = tag;
    status = malloc_block(p, b);
    if (status != cudaSuccess) {
      pthread_mutex_unlock(&pool_lock);
      dlx_free(b);
      dlx_cuda_fail(err, status, "cudaMalloc");
      return NULL;
    }
  }
  b->next = p->used_blocks;
  p->used_blocks = b;
  p->allocated += b->size;
  pthread_mutex_unlock(&pool_lock);
  return b->ptr;
}

void *dlx_cuda_pool_alloc(int32_t device_id, size_t nbytes, cudaStream_t stream, dlx_error *err) {
  dlx_cuda_guard guard;
  void *ptr;
  if (nbytes == 0) return NULL;
  if (device_id < 0 || device_id >= DLX_CUDA_MAX_DEVICES) {
    dlx_fail(err, DLX_DEVICE_ERROR, "cuda:%d is not a device dlx can use", (int)device_id);
    return NULL;
  }
  if (dlx_cuda_enter(device_id, &guard, err) != 0) return NULL;
  ptr = pool_alloc_here(device_id, nbytes, stream, err);
  dlx_cuda_leave(&guard);
  return ptr;
}

void dlx_cuda_pool_free(int32_t device_id, void *ptr) {
  pool *p;
  if (ptr == NULL || device_id < 0 || device_id >= DLX_CUDA_MAX_DEVICES) return;
  p = &pools[device_id];
  pthread_mutex_lock(&pool_lock);
  for (block **at = &p->used_blocks; *at != NULL; at = &(*at)->next) {
    block *b = *at;
    if (b->ptr != ptr) continue;
    *at = b->next;
    p->allocated -= b->size;
    p->cached += b->size;
    b->next = p->free_blocks;
    p->free_blocks = b;
    break;
  }
  pthread_mutex_unlock(&pool_lock);
}

/* The bytes a device's pool has handed out (or, with cached, keeps for reuse); 0 for an id out
 * of range. */
static size_t pool_bytes(int32_t device_id, bool cached) {
  size_t n;
  if (device_id < 0 || device_id >= DLX_CUDA_MAX_DEVICES) return 0;
  pthread_mutex_lock(&pool_lock);
  n = cached ? pools[device_id].cached : pools[device_id].allocated;
  pthread_mutex_unlock(&pool_lock);
  return n;
}

size_t dlx_cuda_memory_allocated(int32_t device_id) { return pool_bytes(device_id, false); }

size_t dlx_cuda_memory_cached(int32_t device_id) { return pool_bytes(device_id, true); }

/* Only the devices whose pool holds blocks are made current: making a device current makes a
 * context on it, which costs memory there and fails on a GPU that another process holds in
 * exclusive mode. */
int dlx_cuda_empty_cache(dlx_error *err) {
  int count = dlx_cuda_device_count();
  for (int32_t id = 0; id < count; id++) {
    dlx_cuda_guard guard;
    int rc;
    if (pool_bytes(id, true) == 0) continue;
    rc = dlx_cuda_enter(id, &guard, err);
    if (rc != 0) return rc;
    pthread_mutex_lock(&pool_lock);
    release_cached(&pools[id]);
    pthread_mutex_unlock(&pool_lock);
    dlx_cuda_leave(&guard);
  }
  dlx_cuda_free_staging();
  return 0;
}

/* ---- scratch memory for the kernels, on the current device */

void *dlx_cuda_scratch_alloc(size_t nbytes, void *stream) {
  int device;
  if (cudaGetDevice(&device) != cudaSuccess) return NULL;
  return pool_alloc_here(device, nbytes == 0 ? 1 : nbytes, (cudaStream_t)stream, NULL);
}

void dlx_cuda_scratch_free(void *ptr, size_t nbytes, void *stream) {
  int device;
  (void)nbytes;
  (void)stream;
  if (cudaGetDevice(&device) == cudaSuccess) dlx_cuda_pool_free(device, ptr);
}
