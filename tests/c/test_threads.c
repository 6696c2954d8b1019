/* test_threads.c -- DLPack across threads (pthreads), run in the normal suite and under
 * ThreadSanitizer (cmake -DDLX_TSAN=ON, ctest tsan.test_threads):
 *   - the host releases exported tensors from another thread while Lua keeps working on the
 *     same buffers (views, copies, closes, collections), so the last reference drops on either
 *     thread;
 *   - two Lua states in two threads exchange tensors through DLPack: one produces, the other
 *     imports, checks and answers with a tensor of its own, which the first imports in turn.
 * Every deleter runs exactly once, and dlx's CPU allocator holds nothing at the end. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu/cpu.h"
#include "dlx.h"
#include "lua_host.h"

#define ROUNDS 300

/* ---- a blocking queue of managed tensors (versioned, or legacy when the flag says so) */

typedef struct item {
  void *mt;
  bool legacy;
} item;

typedef struct queue {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  item items[16];
  int head, count;
} queue;

static void queue_init(queue *q) {
  memset(q, 0, sizeof *q);
  pthread_mutex_init(&q->lock, NULL);
  pthread_cond_init(&q->changed, NULL);
}

static void queue_destroy(queue *q) {
  pthread_mutex_destroy(&q->lock);
  pthread_cond_destroy(&q->changed);
}

static void queue_put(queue *q, item it) {
  pthread_mutex_lock(&q->lock);
  while (q->count == 16) pthread_cond_wait(&q->changed, &q->lock);
  q->items[(q->head + q->count++) % 16] = it;
  pthread_cond_broadcast(&q->changed);
  pthread_mutex_unlock(&q->lock);
}

static item queue_take(queue *q) {
  item it;
  pthread_mutex_lock(&q->lock);
  while (q->count == 0) pthread_cond_wait(&q->changed, &q->lock);
  it = q->items[q->head];
  q->head = (q->head + 1) % 16;
  q->count--;
  pthread_cond_broadcast(&q->changed);
  pthread_mutex_unlock(&q->lock);
  return it;
}

static void release(item it) {
  if (it.legacy) {
    DLManagedTensor *mt = it.mt;
    mt->deleter(mt);
  } else {
    DLManagedTensorVersioned *mt = it.mt;
    mt->deleter(mt);
  }
}

/* ---- 1. exports released on another thread while Lua works */

typedef struct producer {
  DLManagedTensorVersioned mt;
  int64_t shape[1], strides[1];
  double data[64];
  atomic_int deleted;
} producer;

static void producer_deleter(DLManagedTensorVersioned *self) {
  atomic_fetch_add(&((producer *)self->manager_ctx)->deleted, 1);
}

static void produce(producer *p) {
  memset(p, 0, sizeof *p);
  for (int i = 0; i < 64; i++) p->data[i] = i;
  p->shape[0] = 64;
  p->strides[0] = 1;
  p->mt.version.major = 1;
  p->mt.version.minor = 3;
  p->mt.manager_ctx = p;
  p->mt.deleter = producer_deleter;
  p->mt.dl_tensor = (DLTensor){p->data, {kDLCPU, 0}, 1, {kDLFloat, 64, 1}, p->shape, p->strides, 0};
}

static void *releaser(void *arg) {
  queue *q = arg;
  for (;;) {
    item it = queue_take(q);
    if (it.mt == NULL) return NULL;
    release(it);
  }
}

/* Exports the value at the top of the stack in the form asked; NULL when it failed. */
static item export_top(lua_State *L, bool legacy) {
  item it = {NULL, legacy};
  if (legacy) {
    DLManagedTensor *out = NULL;
    if (dlx_to_dlpack_legacy(L, -1, &out) != 0) lua_pop(L, 1);
    it.mt = out;
  } else {
    DLManagedTensorVersioned *out = NULL;
    if (dlx_to_dlpack(L, -1, &out) != 0) lua_pop(L, 1);
    it.mt = out;
  }
  lua_pop(L, 1);
  return it;
}

static void test_release_on_another_thread(void) {
  static producer producers[ROUNDS];
  queue q;
  pthread_t thread;
  lua_State *L = host_new_state(NULL);
  int exported = 0;
  queue_init(&q);
  pthread_create(&thread, NULL, releaser, &q);
  for (int i = 0; i < ROUNDS; i++) {
    produce(&producers[i]);
    /* a host tensor imported, viewed and exported back: its deleter runs on the releaser */
    CHECK_EQ_INT(dlx_push_capsule(L, &producers[i].mt), 0);
    if (!host_run(L, "return dlx.from_dlpack(...):flip(1)", 1, 1)) continue;
    lua_pushvalue(L, -1);
    item it = export_top(L, i % 2 == 1);
    CHECK(it.mt != NULL);
    if (it.mt != NULL) queue_put(&q, it), exported++;
    /* Lua keeps using the same memory while the other thread may be releasing it */
    CHECK(host_run(L,
                   "local t = ...\n"
                   "local s = t:sum():item()\n"
                   "assert(s == 2016, s)\n"
                   "local c = t:astype('float32'):slice(1, 1, -1, 3):clone()\n"
                   "t:close()\n"
                   "made = dlx.arange(100):view{10, 10}:transpose(1, 2):contiguous()\n"
                   "if math.random() < 0.2 then collectgarbage() else collectgarbage('step') end",
                   1, 0));
    lua_getglobal(L, "made"); /* a tensor of dlx's own memory, released on the other thread */
    it = export_top(L, i % 3 == 0);
    if (it.mt != NULL) queue_put(&q, it), exported++;
  }
  queue_put(&q, (item){NULL, false});
  pthread_join(thread, NULL);
  lua_close(L);
  queue_destroy(&q);
  for (int i = 0; i < ROUNDS; i++) CHECK_EQ_INT(atomic_load(&producers[i].deleted), 1);
  CHECK_EQ_INT(exported, 2 * ROUNDS);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
}

/* ---- 2. two Lua states in two threads, exchanging tensors */

typedef struct exchange {
  queue to_worker, to_main;
  int checked; /* rounds the worker verified */
} exchange;

/* The worker: imports each tensor, checks it, and answers with its doubled row sums. */
static void *worker(void *arg) {
  exchange *ex = arg;
  lua_State *L = host_new_state(NULL);
  for (;;) {
    item it = queue_take(&ex->to_worker);
    int rc;
    if (it.mt == NULL) break;
    rc = it.legacy ? dlx_push_capsule_legacy(L, it.mt) : dlx_push_capsule(L, it.mt);
    if (rc != 0 || !host_run(L,
                             "local t = dlx.from_dlpack(...)\n"
                             "assert(t.shape[1] == 4 and t.shape[2] == 3 and t.dtype == 'int64')\n"
                             "return t:sum(2)",
                             1, 1)) {
      queue_put(&ex->to_main, (item){NULL, false});
      continue;
    }
    ex->checked++;
    queue_put(&ex->to_main, export_top(L, it.legacy));
    lua_gc(L, LUA_GCSTEP, 0);
  }
  lua_close(L);
  return NULL;
}

static void test_two_states(void) {
  exchange ex;
  pthread_t thread;
  lua_State *L = host_new_state(NULL);
  int answered = 0;
  queue_init(&ex.to_worker);
  queue_init(&ex.to_main);
  ex.checked = 0;
  pthread_create(&thread, NULL, worker, &ex);
  for (int i = 0; i < ROUNDS; i++) {
    bool legacy = i % 4 == 3;
    lua_pushinteger(L, i);
    CHECK(host_run(L, "local i = ...; return dlx.arange(i, i + 12):view{3, 4}:transpose(1, 2)", 1,
                   1));
    queue_put(&ex.to_worker, export_top(L, legacy));
    item answer = queue_take(&ex.to_main);
    CHECK(answer.mt != NULL);
    if (answer.mt == NULL) continue;
    int rc = legacy ? dlx_push_capsule_legacy(L, answer.mt) : dlx_push_capsule(L, answer.mt);
    CHECK_EQ_INT(rc, 0);
    lua_pushinteger(L, i);
    /* rows of the transposed view: column j of arange is i+j, i+j+4, i+j+8 */
    if (host_run(L,
                 "local cap, i = ...\n"
                 "local got = dlx.from_dlpack(cap):totable()\n"
                 "for j = 1, 4 do assert(got[j] == 3 * (i + j - 1) + 12, got[j]) end",
                 2, 0))
      answered++;
  }
  queue_put(&ex.to_worker, (item){NULL, false});
  pthread_join(thread, NULL);
  lua_close(L);
  queue_destroy(&ex.to_worker);
  queue_destroy(&ex.to_main);
  CHECK_EQ_INT(ex.checked, ROUNDS);
  CHECK_EQ_INT(answered, ROUNDS);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
}

int main(void) {
  test_release_on_another_thread();
  test_two_states();
  return check_report("test_threads");
}
