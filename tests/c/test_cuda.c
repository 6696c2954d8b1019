/* test_cuda.c -- the CUDA backend from C: its registration, the DLPack stream values and the
 * caching allocator's stream tags (checked everywhere: they need no GPU), and with a GPU copies,
 * casts, reductions, exports against the CPU backend and the allocator's blocks on two threads'
 * per-thread default streams. Without a device the GPU part prints why it did not run. */
#include <pthread.h>
#include <string.h>

#include "backends/builtin.h"
#include "check.h"
#include "core/core.h"
#include "cuda/pool_tags.h"

/* What the tables say of CUDA memory, which the core reads to name devices and check imports:
 * the same in every build, from the real tables or from the stand-ins of src/backends/builtin.c
 * when the backend is left out. */
static void check_memory_traits(void) {
  static const DLDeviceType types[] = {kDLCUDA, kDLCUDAHost, kDLCUDAManaged};
  static const char *const names[] = {"cuda", "cuda_host", "cuda_managed"};
  char buf[48];
  for (int i = 0; i < 3; i++) {
    const dlx_backend *described = dlx_backend_described(types[i]);
    CHECK(described != NULL);
    if (described == NULL) continue;
    CHECK(strcmp(described->name, names[i]) == 0);
    CHECK(described->aligned_elements); /* the kernels load whole elements */
    CHECK(described->host_accessible == (i > 0));
  }
  CHECK(strcmp(dlx_device_format((DLDevice){kDLCUDAHost, 0}, buf, sizeof buf), "cuda_host") == 0);
  CHECK(strcmp(dlx_device_format((DLDevice){kDLCUDA, 0}, buf, sizeof buf), "cuda:0") == 0);
}

#ifndef DLX_WITH_CUDA
int main(void) {
  CHECK(dlx_backend_for(kDLCUDA) == NULL);
  CHECK(dlx_backend_for(kDLCUDAHost) == NULL);
  check_memory_traits();
  printf("test_cuda: dlx is built without the CUDA backend (DLX_CUDA=OFF or no toolkit)\n");
  return check_report("test_cuda");
}
#else

static const DLDevice cpu = {kDLCPU, 0};
static const DLDevice gpu = {kDLCUDA, 0};

/* ---- the caching allocator's tags (src/cuda/pool_tags.h), with or without a device */

#define PER_THREAD ((uintptr_t)2)        /* cudaStreamPerThread, DLPack's stream value 2 */
#define LEGACY ((uintptr_t)0)            /* the legacy default stream */
#define MADE ((uintptr_t)0x7f0012345600) /* a stream made by cudaStreamCreate */

static void *tags_of_thread(void *out) {
  dlx_cuda_tag *t = out;
  t[0] = dlx_cuda_tag_of(PER_THREAD);
  t[1] = dlx_cuda_tag_of(PER_THREAD);
  t[2] = dlx_cuda_tag_of(LEGACY);
  t[3] = dlx_cuda_tag_of(MADE);
  return NULL;
}

/* The per-thread default stream is one handle for a different stream in each thread: its
 * blocks are tagged per thread (the same tag twice in one thread, another in each other thread,
 * also in one started after the first ended), every other handle's alike in all threads. */
static void check_pool_tags(void) {
  dlx_cuda_tag t[3][4];
  tags_of_thread(t[0]);
  for (int i = 1; i < 3; i++) { /* one after the other: the second may reuse the first's TLS */
    pthread_t thread;
    CHECK_EQ_INT(pthread_create(&thread, NULL, tags_of_thread, t[i]), 0);
    CHECK_EQ_INT(pthread_join(thread, NULL), 0);
  }
  for (int i = 0; i < 3; i++) {
    CHECK(dlx_cuda_same_tag(t[i][0], t[i][1]) && t[i][0].thread != 0);
    CHECK(t[i][2].thread == 0 && t[i][3].thread == 0);
    for (int j = 0; j < i; j++) {
      CHECK(!dlx_cuda_same_tag(t[i][0], t[j][0]));
      CHECK(dlx_cuda_same_tag(t[i][2], t[j][2]) && dlx_cuda_same_tag(t[i][3], t[j][3]));
    }
  }
}

static void check_registration(void) {
  CHECK(dlx_backend_for(kDLCUDA) == &dlx_cuda_backend);
  CHECK(dlx_backend_for(kDLCUDAHost) == &dlx_cuda_host_backend);
  CHECK(dlx_backend_for(kDLCUDAManaged) == &dlx_cuda_managed_backend);
  CHECK(dlx_cuda_backend.stream != NULL);
  /* the entries dlx.cuda reaches through the table: the cache, the current device, busy_wait */
  CHECK(dlx_cuda_backend.memory_allocated != NULL && dlx_cuda_backend.memory_cached != NULL);
  CHECK(dlx_cuda_backend.empty_cache != NULL && dlx_cuda_backend.current_device != NULL);
  CHECK(dlx_cuda_backend.stream->busy_wait != NULL);
  CHECK(!dlx_cuda_backend.host_accessible);
  CHECK(dlx_cuda_host_backend.host_accessible && dlx_cuda_managed_backend.host_accessible);
}

/* dlpack-spec.md 6.2's CUDA row, value by value. */
static void check_stream_values(void) {
  const dlx_stream_ops *ops = dlx_cuda_backend.stream;
  dlx_stream_request r;
  dlx_error err;
  CHECK_EQ_INT(ops->from_dlpack(0, false, 0, &r, &err), 0); /* None: legacy default */
  CHECK(r.sync && r.stream == 1);
  CHECK_EQ_INT(ops->from_dlpack(0, true, -1, &r, &err), 0); /* no synchronisation */
  CHECK(!r.sync);
  CHECK_EQ_INT(ops->from_dlpack(0, true, 0, &r, &err), DLX_VALUE_ERROR); /* ambiguous */
  CHECK(strstr(err.message, "ambiguous") != NULL);
  CHECK_EQ_INT(ops->from_dlpack(0, true, -7, &r, &err), DLX_VALUE_ERROR);
  CHECK_EQ_INT(ops->from_dlpack(0, true, 1, &r, &err), 0);
  CHECK(r.sync && r.stream == 1); /* cudaStreamLegacy */
  CHECK_EQ_INT(ops->from_dlpack(0, true, 2, &r, &err), 0);
  CHECK(r.sync && r.stream == 2); /* cudaStreamPerThread */
  CHECK_EQ_INT(ops->from_dlpack(0, true, 0x7f0012345600, &r, &err), 0);
  CHECK(r.sync && r.stream == (dlx_stream_handle)0x7f0012345600);
  CHECK_EQ_INT(ops->to_dlpack(0, 0), 1); /* the default stream is named 1, never 0 */
  CHECK_EQ_INT(ops->to_dlpack(0, 2), 2);
  CHECK_EQ_INT(ops->to_dlpack(0, 0x7f0012345600), 0x7f0012345600);
}

static void check_no_device(void) {
  dlx_error err;
  DLDevice pinned = {kDLCUDAHost, 0};
  CHECK_EQ_INT(dlx_cuda_backend.device_count(), 0);
  CHECK_EQ_INT(dlx_cuda_host_backend.device_count(), 0);
  CHECK_EQ_INT(dlx_device_check(gpu, &err), DLX_DEVICE_ERROR);
  CHECK_EQ_INT(dlx_device_check(pinned, &err), DLX_DEVICE_ERROR);
  CHECK_EQ_INT(dlx_cuda_backend.current_device(), -1);
  CHECK_EQ_INT(dlx_cuda_backend.empty_cache(&err), 0);
  CHECK_EQ_INT(dlx_cuda_backend.memory_cached(0), 0);
  printf("test_cuda: no CUDA device: the GPU checks did not run\n");
}

/* A 37 x 53 int32 tensor 0, 1, 2, ... on the CPU. */
static int make_iota(dlx_tensor *t, dlx_error *err) {
  int64_t shape[2] = {37, 53};
  int rc = dlx_tensor_empty(t, shape, 2, DLX_INT32, cpu, err);
  for (int32_t i = 0; rc == 0 && i < 37 * 53; i++) ((int32_t *)t->buffer->data)[i] = i;
  return rc;
}

static int64_t int64_sum(const dlx_tensor *t, dlx_error *err) {
  dlx_tensor s, host;
  int64_t v = -1;
  if (dlx_reduce(&s, DLX_REDUCE_SUM, t, ~UINT64_C(0) >> (64 - t->ndim), false, err) != 0) return -1;
  if (dlx_clone_as(&host, &s, DLX_INT64, cpu, err) == 0) {
    v = *(int64_t *)host.buffer->data;
    dlx_tensor_close(&host);
  }
  dlx_tensor_close(&s);
  return v;
}

/* One thread's part in check_per_thread_blocks: on its per-thread default stream, a float32
 * block of 4 MiB (its address), kept busy by a spinning kernel before it is freed; then (keep
 * set) the next block of that size, which must be the same one. */
typedef struct thread_blocks {
  bool keep;
  void *first, *again;
  int rc;
} thread_blocks;

static int block_on_own_stream(void **ptr, bool spin, dlx_error *err) {
  const dlx_stream_ops *ops = dlx_cuda_backend.stream;
  int64_t n = (int64_t)1 << 20;
  dlx_tensor t;
  dlx_scalar one = {.kind = DLX_KIND_FLOAT, .v.f = 1};
  int rc = dlx_tensor_empty(&t, &n, 1, DLX_FLOAT32, gpu, err);
  if (rc != 0) return rc;
  *ptr = t.buffer->data;
  if (spin) rc = ops->busy_wait(0, INT64_C(200000000), err); /* ~0.1 s: the stream still runs */
  if (rc == 0) rc = dlx_fill(&t, &one, err);                 /* queued behind the spin */
  dlx_tensor_close(&t);
  return rc;
}

static void *blocks_of_thread(void *arg) {
  thread_blocks *b = arg;
  dlx_error err;
  dlx_cuda_backend.stream->set_current(0, PER_THREAD);
  b->rc = block_on_own_stream(&b->first, true, &err);
  if (b->rc == 0 && b->keep) b->rc = block_on_own_stream(&b->again, false, &err);
  return NULL;
}

/* Thread A frees a block its per-thread default stream still uses; thread B, on its own
 * per-thread default stream (the same handle), must get another block, else B's work could
 * run on it before A's is done. A itself gets its block back. */
static void check_per_thread_blocks(void) {
  thread_blocks a = {.keep = true}, b = {.keep = false};
  pthread_t thread;
  dlx_error err;
  CHECK_EQ_INT(pthread_create(&thread, NULL, blocks_of_thread, &a), 0);
  CHECK_EQ_INT(pthread_join(thread, NULL), 0);
  CHECK_EQ_INT(pthread_create(&thread, NULL, blocks_of_thread, &b), 0);
  CHECK_EQ_INT(pthread_join(thread, NULL), 0);
  CHECK_EQ_INT(a.rc, 0);
  CHECK_EQ_INT(b.rc, 0);
  CHECK(a.first != NULL && a.again == a.first); /* reuse on the same thread's stream */
  CHECK(b.first != NULL && b.first != a.first); /* none across threads */
  CHECK_EQ_INT(dlx_cuda_backend.synchronize(0, &err), 0);
}

static void check_on_device(void) {
  dlx_tensor x, g, gt, back, want;
  dlx_error err;
  const int64_t total = (int64_t)(37 * 53 - 1) * (37 * 53) / 2;
  CHECK_EQ_INT(make_iota(&x, &err), 0);
  CHECK_EQ_INT(dlx_clone_as(&g, &x, DLX_FLOAT32, gpu, &err), 0); /* cast + host -> device */
  CHECK_EQ_INT(int64_sum(&g, &err), total);
  CHECK_EQ_INT(dlx_transpose(&gt, &g, 0, 1, &err), 0);
  CHECK_EQ_INT(dlx_clone_as(&back, &gt, DLX_INT32, cpu, &err), 0); /* transpose kernel */
  CHECK_EQ_INT(dlx_transpose(&want, &x, 0, 1, &err), 0);
  for (int64_t i = 0; i < 53; i++)
    for (int64_t j = 0; j < 37; j++)
      CHECK_EQ_INT(((int32_t *)back.buffer->data)[i * 37 + j], i + 53 * j);
  CHECK_EQ_INT(dlx_cuda_backend.memory_allocated(0) > 0, 1);
  dlx_tensor_close(&want);
  dlx_tensor_close(&back);
  dlx_tensor_close(&gt);
  dlx_tensor_close(&g);
  dlx_tensor_close(&x);
  check_per_thread_blocks();
  CHECK_EQ_INT(dlx_cuda_backend.empty_cache(&err), 0);
  CHECK_EQ_INT(dlx_cuda_backend.memory_cached(0), 0);
  printf("test_cuda: GPU checks ran on %d CUDA device(s)\n", dlx_cuda_backend.device_count());
}

int main(void) {
  check_registration();
  check_memory_traits();
  check_stream_values();
  check_pool_tags();
  if (dlx_cuda_backend.device_count() == 0)
    check_no_device();
  else
    check_on_device();
  return check_report("test_cuda");
}
#endif
