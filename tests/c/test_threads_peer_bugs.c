/* test_threads_peer_bugs.c -- bugs of other DLPack libraries (docs/peer-bugs.md) that need a
 * host's view of dlx; a test_threads* file, so the ThreadSanitizer build runs it too:
 *   bug 9:  a dlx export outlives its Lua state and is released on a thread that never saw it;
 *           its deleter must touch no lua_State (dmlc/dlpack#103);
 *   bug 10: several threads start Lua states, load dlx and import at the same time: nothing in
 *           the import path may be a lazily made global (numpy/numpy#28881); run it under
 *           ThreadSanitizer to see a race that did not happen to corrupt anything;
 *   bug 18: an export is one dlx allocation, whatever the view: no normalised or copied data
 *           (pytorch/pytorch#162113). */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/alloc.h"
#include "cpu/cpu.h"
#include "dlx.h"
#include "lua_host.h"
#include "producer.h"

#define THREADS 8
#define ROUNDS 100

/* ---- bug 18: one allocation per export */

static long dlx_allocations;
static int count_hook(void *ctx) {
  (void)ctx;
  dlx_allocations++;
  return 0;
}

static void test_bug18_one_allocation_per_export(void) {
  static producer p;
  lua_State *L = host_new_state(NULL);
  int base;
  producer_make(&p, (DLDataType){kDLFloat, 32, 1}, 4, 6, 6, 1, 0);
  CHECK_EQ_INT(dlx_push_capsule(L, &p.mt), 0);
  CHECK(host_run(L,
                 "local imp = dlx.from_dlpack(...)\n"
                 "local t = dlx.arange(60, {dtype = 'float32'}):view{3, 4, 5}\n"
                 "return t:permute{3, 1, 2}, t:slice(3, 2, 5, 2):flip(2), t:select(1, 2),\n"
                 "       t:select(3, 1):unsqueeze(3):expand{3, 4, 9}, dlx.tensor(5),\n"
                 "       imp:transpose(1, 2), imp:slice(1, 2, 3)",
                 1, 7));
  base = lua_gettop(L) - 7;
  for (int i = base + 1; i <= base + 7; i++) {
    DLManagedTensorVersioned *v = NULL;
    DLManagedTensor *l = NULL;
    size_t before = dlx_cpu_memory_allocated();
    dlx_allocations = 0;
    dlx_set_alloc_fail_hook(count_hook, NULL);
    CHECK_EQ_INT(dlx_to_dlpack(L, i, &v), 0);
    CHECK_EQ_INT(dlx_allocations, 1);
    dlx_allocations = 0;
    if (i == base + 4) { /* the expand: READ_ONLY, which a legacy struct cannot carry */
      CHECK_EQ_INT(dlx_to_dlpack_legacy(L, i, &l), DLX_BUFFER_ERROR);
      CHECK_EQ_INT(dlx_allocations, 0);
      lua_pop(L, 1); /* the message */
    } else {
      CHECK_EQ_INT(dlx_to_dlpack_legacy(L, i, &l), 0);
      CHECK_EQ_INT(dlx_allocations, 1);
    }
    dlx_set_alloc_fail_hook(NULL, NULL);
    CHECK_EQ_INT(dlx_cpu_memory_allocated(), before); /* no data was copied */
    if (v != NULL && l != NULL) {
      CHECK(v->dl_tensor.data == l->dl_tensor.data);
      CHECK_EQ_INT(v->dl_tensor.byte_offset, l->dl_tensor.byte_offset);
      for (int d = 0; d < v->dl_tensor.ndim; d++)
        CHECK_EQ_INT(v->dl_tensor.strides[d], l->dl_tensor.strides[d]);
    }
    if (i >= base + 6 && v != NULL) CHECK(v->dl_tensor.data == (void *)&p.data); /* the import */
    if (v != NULL) v->deleter(v);
    if (l != NULL) l->deleter(l);
  }
  lua_close(L);
  CHECK_EQ_INT(p.deleted, 1);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
}

/* ---- bug 9: released after lua_close, on another thread */

static void *release_versioned(void *arg) {
  DLManagedTensorVersioned *mt = arg;
  mt->deleter(mt);
  return NULL;
}

static void *release_legacy(void *arg) {
  DLManagedTensor *mt = arg;
  mt->deleter(mt);
  return NULL;
}

static void test_bug9_release_after_close_on_another_thread(void) {
  static producer p;
  DLManagedTensorVersioned *a = NULL, *b = NULL;
  DLManagedTensor *c = NULL;
  pthread_t threads[3];
  lua_State *L = host_new_state(NULL);
  producer_make(&p, (DLDataType){kDLInt, 32, 1}, 3, 4, 4, 1, 0);
  CHECK_EQ_INT(dlx_push_capsule_legacy(L, &p.legacy), 0);
  CHECK(host_run(L,
                 "local t = dlx.from_dlpack(...)\n"
                 "return t:transpose(1, 2), dlx.arange(8):flip(1), t:select(1, 2)",
                 1, 3));
  CHECK_EQ_INT(dlx_to_dlpack(L, -3, &a), 0);
  CHECK_EQ_INT(dlx_to_dlpack(L, -2, &b), 0);
  CHECK_EQ_INT(dlx_to_dlpack_legacy(L, -1, &c), 0);
  lua_close(L); /* the state is gone; the exports still hold the memory */
  CHECK_EQ_INT(p.deleted, 0);
  if (a == NULL || b == NULL || c == NULL) return;
  CHECK_EQ_INT(((int32_t *)a->dl_tensor.data)[a->dl_tensor.strides[1] * 2 + 1], 9);
  pthread_create(&threads[0], NULL, release_versioned, a);
  pthread_create(&threads[1], NULL, release_versioned, b);
  pthread_create(&threads[2], NULL, release_legacy, c);
  for (int i = 0; i < 3; i++) pthread_join(threads[i], NULL);
  CHECK_EQ_INT(p.deleted, 1);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
}

/* ---- bug 10: states started and imports made on several threads at once */

typedef struct worker_arg {
  int index;
  int verified; /* rounds whose checks all passed */
  producer producers[ROUNDS];
} worker_arg;

static pthread_barrier_t start_line;

/* Each round imports a producer's 3x4 tensor (float32 or int32, versioned, legacy or read-only),
 * checks it, views, casts and reduces it, and sends it back out through both export calls. */
static const char round_chunk[] =
    "local cap, round = ...\n"
    "local t = dlx.from_dlpack(cap)\n"
    "local kind = round % 4\n"
    "assert(t.dtype == (kind == 1 and 'int32' or 'float32'), t.dtype)\n"
    "assert(t.readonly == (kind == 2), 'readonly')\n"
    "assert(t.shape[1] == 3 and t.shape[2] == 4 and t.strides[1] == 4)\n"
    "assert(t:sum():item() == 66)\n"
    "local v = t:transpose(1, 2):astype('float64'):flip(1)\n"
    "assert(v:totable()[1][3] == 11)\n"
    "assert(dlx.from_dlpack(t:__dlpack{max_version = {1, 3}}).readonly == t.readonly)\n"
    "if kind == 2 then assert(not pcall(t.fill_, t, 0)) end\n"
    "return t";

static void *worker(void *arg) {
  worker_arg *w = arg;
  lua_State *L;
  pthread_barrier_wait(&start_line); /* every thread loads dlx at the same time */
  L = host_new_state(NULL);
  pthread_barrier_wait(&start_line); /* and makes its first import at the same time */
  for (int r = 0; r < ROUNDS; r++) {
    producer *p = &w->producers[r];
    int kind = r % 4, rc;
    DLManagedTensorVersioned *out = NULL;
    DLManagedTensor *legacy = NULL;
    bool ok;
    producer_make(p, (DLDataType){kind == 1 ? kDLInt : kDLFloat, 32, 1}, 3, 4, 4, 1,
                  kind == 2 ? DLPACK_FLAG_BITMASK_READ_ONLY : 0);
    rc = kind == 3 ? dlx_push_capsule_legacy(L, &p->legacy) : dlx_push_capsule(L, &p->mt);
    if (rc != 0) continue;
    lua_pushinteger(L, r);
    if (!host_run(L, round_chunk, 2, 1)) continue;
    ok = dlx_to_dlpack(L, -1, &out) == 0 && out->dl_tensor.data == (void *)&p->data &&
         (out->flags & DLPACK_FLAG_BITMASK_READ_ONLY) == (kind == 2 ? 1u : 0u);
    if (out != NULL) out->deleter(out);
    lua_settop(L, 1);
    /* a read-only tensor refuses the legacy export; the others give one */
    ok = ok && (dlx_to_dlpack_legacy(L, -1, &legacy) == 0) == (kind != 2);
    if (legacy != NULL) legacy->deleter(legacy);
    lua_settop(L, 0);
    if (r % 8 == 0) lua_gc(L, LUA_GCCOLLECT);
    w->verified += ok;
  }
  lua_close(L);
  return NULL;
}

static void test_bug10_concurrent_loads_and_imports(void) {
  static worker_arg args[THREADS];
  pthread_t threads[THREADS];
  pthread_barrier_init(&start_line, NULL, THREADS);
  for (int i = 0; i < THREADS; i++) {
    args[i].index = i;
    args[i].verified = 0;
    pthread_create(&threads[i], NULL, worker, &args[i]);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&start_line);
  for (int i = 0; i < THREADS; i++) {
    CHECK_EQ_INT(args[i].verified, ROUNDS);
    for (int r = 0; r < ROUNDS; r++) CHECK_EQ_INT(args[i].producers[r].deleted, 1);
  }
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
}

int main(void) {
  test_bug18_one_allocation_per_export();
  test_bug9_release_after_close_on_another_thread();
  test_bug10_concurrent_loads_and_imports();
  return check_report("test_threads_peer_bugs");
}
