/* pool_tags.h -- what the caching allocator (allocator.c) keeps a freed block for: the stream it
 * was allocated on, and for the per-thread default stream the thread too. Blocks are reused only
 * by allocations with the same tag, whose work queues behind the block's earlier users on one
 * stream. A stream handle names one stream in every thread (a dlx stream, one made elsewhere,
 * the legacy default stream 0 or cudaStreamLegacy), except cudaStreamPerThread (DLPack's stream
 * value 2), which names a different stream in each thread: two threads each on their own
 * per-thread default stream must not share its blocks, since one thread's stream may still be
 * using a block that the other freed. No CUDA types here, so that tests/c/test_cuda.c checks the
 * rule without the toolkit's headers. */
#ifndef DLX_CUDA_POOL_TAGS_H
#define DLX_CUDA_POOL_TAGS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct dlx_cuda_tag {
  uintptr_t stream; /* the cudaStream_t */
  uint64_t thread;  /* cudaStreamPerThread: the allocating thread's number (1, 2, ...), else 0 */
} dlx_cuda_tag;

/* The tag of an allocation made now, by the calling thread, for stream. Thread numbers are
 * never given twice: the blocks of a thread that ended are reused by no other thread (only
 * empty_cache, or cudaMalloc running out of memory, gives them back, through cudaFree, which
 * waits for the device). */
dlx_cuda_tag dlx_cuda_tag_of(uintptr_t stream);

static inline bool dlx_cuda_same_tag(dlx_cuda_tag a, dlx_cuda_tag b) {
  return a.stream == b.stream && a.thread == b.thread;
}

#endif
