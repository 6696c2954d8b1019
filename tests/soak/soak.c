/* soak.c -- the host API under a sustained load: several host threads, each with its own Lua
 * state, for DLX_SOAK_SECONDS seconds (default 3; CI runs 60 under ThreadSanitizer). Each thread
 * in turn
 *   - lends its own buffer (dlx_push_borrowed), lets a script take random views and reductions
 *     of it and keep some of them, and ends the loan (dlx_unborrow); the views a script kept from
 *     earlier loans must raise "borrowed tensor expired";
 *   - gives a tensor (dlx_push_tensor, whose deleter frees it) to a script that answers with a
 *     zero-copy capsule of a view, which the host sends to the next thread's state; a copy of
 *     the borrowed tensor goes there too, now and then;
 *   - imports what the other threads sent it (dlx_push_capsule, dlx.from_dlpack), checks the
 *     values, keeps some, and collects now and then.
 * At the end: every given tensor's deleter ran exactly once, whichever thread let go last; the
 * live heap (the bytes malloc'd and not freed, with the states collected) did not grow after the
 * warm-up, in every build, sanitizers included; the resident memory after the warm-up stayed
 * flat (in plain builds); dlx's CPU allocator holds nothing. */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu/cpu.h"
#include "cpu/cpu_cache.h"
#include "dlx.h"

/* The sanitizers' own memory grows by design (AddressSanitizer's quarantine of freed blocks,
 * ThreadSanitizer's metadata): resident memory is checked in plain builds only. The live heap is
 * checked in every build: under a sanitizer its allocator counts the bytes in use (a block in
 * ASan's quarantine counts as freed), elsewhere glibc's mallinfo2 does. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif
#define RSS_CHECKED (!SANITIZED)

#if SANITIZED
/* the sanitizers' allocator interface (sanitizer/allocator_interface.h, not shipped by every
 * compiler) */
size_t __sanitizer_get_current_allocated_bytes(void);
#define HEAP_CHECKED 1
static size_t heap_bytes(void) { return __sanitizer_get_current_allocated_bytes(); }
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HEAP_CHECKED 1
static size_t heap_bytes(void) {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd; /* in use in the arenas, and in blocks mmap'd on their own */
}
#else
#define HEAP_CHECKED 0
static size_t heap_bytes(void) { return 0; }
#endif

/* What may stay live after a round without being leaked: the tensors each script keeps (up to 8
 * views of loans and 8 received tensors; the slots are full after the warm-up, their contents
 * differ), a collected state's tables grown a step further, the allocators' bookkeeping. A leak
 * of one small block per loan passes it within seconds in a plain build, and within the CI's
 * minute under ThreadSanitizer, whose run is slower. */
#define HEAP_GROWTH_ALLOWED ((size_t)64 << 10)

#define THREADS 4
#define QUEUE_SIZE 256
#define GIFT_SIZE 32 /* a 4 x 8 float64 tensor 0, 1, ..., 31 */

static atomic_int failures;
static atomic_long gifts_made, gifts_deleted, loans_made, capsules_sent, capsules_received;

#define FAIL(...)                                                                                  \
  do {                                                                                             \
    fprintf(stderr, __VA_ARGS__);                                                                  \
    fputc('\n', stderr);                                                                           \
    atomic_fetch_add(&failures, 1);                                                                \
  } while (0)

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long resident_kib(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f == NULL) return 0;
  if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* ---- the mailboxes between threads */

typedef struct letter {
  DLManagedTensorVersioned *mt;
  double sum; /* what the sender's script computed */
} letter;

typedef struct mailbox {
  pthread_mutex_t lock;
  letter letters[QUEUE_SIZE];
  int count;
} mailbox;

static mailbox boxes[THREADS];

static void post(int to, DLManagedTensorVersioned *mt, double sum) {
  mailbox *box = &boxes[to];
  bool full;
  pthread_mutex_lock(&box->lock);
  full = box->count == QUEUE_SIZE;
  if (!full) box->letters[box->count++] = (letter){mt, sum};
  pthread_mutex_unlock(&box->lock);
  if (full) mt->deleter(mt); /* a busy receiver: the letter is dropped, and released here */
}

static bool fetch(int self, letter *out) {
  mailbox *box = &boxes[self];
  bool got;
  pthread_mutex_lock(&box->lock);
  got = box->count > 0;
  if (got) *out = box->letters[--box->count];
  pthread_mutex_unlock(&box->lock);
  return got;
}

/* ---- the host's tensors */

typedef struct gift {
  atomic_int deleted;
  double data[GIFT_SIZE];
} gift;

static void gift_delete(void *ctx) {
  gift *g = ctx;
  if (atomic_fetch_add(&g->deleted, 1) != 0) FAIL("a deleter ran twice");
  atomic_fetch_add(&gifts_deleted, 1);
  free(g);
}

/* ---- the scripts */

static const char *const script =
    "local dlx = require 'dlx'\n"
    "local kept, received = {}, {}\n"
    "function lend(t, r)\n" /* t: a borrowed 8 x 8 float32 tensor */
    "  local k, v = r % 5\n"
    "  if k == 0 then v = t:transpose(1, 2)\n"
    "  elseif k == 1 then v = t:flip(1)\n"
    "  elseif k == 2 then v = t:slice(1, 1, -1, 2)\n"
    "  elseif k == 3 then v = t:view{-1}\n"
    "  else v = t:select(2, r % 8 + 1) end\n"
    "  local s, c = v:sum():item(), v:contiguous():astype('float64'):sum():item()\n"
    "  assert(s == c, 'a view and its copy disagree')\n"
    "  if r % 7 == 0 then kept[#kept % 8 + 1] = v end\n"
    "  if r % 11 == 0 then kept_copy = v:clone() end\n"
    "  return t:sum():item(), t:max():item()\n"
    "end\n"
    "function check_kept()\n" /* every loan has ended: what a script kept must refuse */
    "  for _, v in ipairs(kept) do\n"
    "    local ok, err = pcall(v.sum, v)\n"
    "    assert(not ok and err:find('borrowed tensor expired', 1, true), 'an expired view "
    "worked')\n"
    "  end\n"
    "  if kept_copy then kept_copy:sum() end\n"
    "end\n"
    "function give(t, r)\n" /* t: the host's 4 x 8 float64 tensor */
    "  local v = r % 2 == 0 and t:transpose(1, 2) or t:select(1, r % 4 + 1)\n"
    "  return v:__dlpack{max_version = {1, 3}}, v:sum():item()\n"
    "end\n"
    "function receive(cap, expected, r)\n"
    "  local t = dlx.from_dlpack(cap)\n"
    "  local s = t:sum():item()\n"
    "  assert(s == expected, 'received ' .. s .. ', sent ' .. expected)\n"
    "  if r % 3 == 0 then received[#received % 8 + 1] = t:flip(1) end\n"
    "  return t:astype('float32'):mean():item()\n"
    "end\n";

typedef struct worker {
  int id;
  double deadline;
  unsigned rng;
  lua_State *L;
  float lent[64];
} worker;

static unsigned next_random(worker *w) {
  w->rng = w->rng * 1103515245u + 12345u;
  return (w->rng >> 8) & 0xffffff;
}

static bool call(lua_State *L, const char *fn, int nargs, int nresults) {
  lua_getglobal(L, fn);
  lua_insert(L, -nargs - 1);
  if (lua_pcall(L, nargs, nresults, 0) != LUA_OK) {
    FAIL("%s: %s", fn, lua_tostring(L, -1));
    lua_pop(L, 1);
    return false;
  }
  return true;
}

static void lend_once(worker *w) {
  int64_t shape[2] = {8, 8};
  DLTensor dl = {w->lent, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  dlx_borrow *loan;
  unsigned r = next_random(w);
  int top = lua_gettop(w->L);
  for (int i = 0; i < 64; i++) w->lent[i] = (float)((i + r) % 64);
  if (dlx_push_borrowed(w->L, &dl, 0, &loan) != DLX_OK) {
    FAIL("dlx_push_borrowed: %s", lua_tostring(w->L, -1));
    lua_settop(w->L, top);
    return;
  }
  atomic_fetch_add(&loans_made, 1);
  if (r % 13 == 0) { /* a copy of the loan to the next thread */
    DLManagedTensorVersioned *mt;
    if (dlx_to_dlpack(w->L, -1, &mt) == DLX_OK)
      post((w->id + 1) % THREADS, mt, 63.0 * 64 / 2);
    else
      FAIL("dlx_to_dlpack of a loan: %s", lua_tostring(w->L, -1));
    lua_settop(w->L, top + 1);
  }
  lua_pushinteger(w->L, (lua_Integer)r);
  if (call(w->L, "lend", 2, 2)) {
    if (lua_tonumber(w->L, -2) != 63.0 * 64 / 2 || lua_tonumber(w->L, -1) != 63.0)
      FAIL("lend: sum %g, max %g", lua_tonumber(w->L, -2), lua_tonumber(w->L, -1));
  }
  lua_settop(w->L, top);
  dlx_unborrow(loan, NULL);
  memset(w->lent, 0xff, sizeof w->lent); /* the host reuses its memory at once */
  if (r % 5 == 0) call(w->L, "check_kept", 0, 0);
}

static void give_once(worker *w) {
  int64_t shape[2] = {4, 8};
  gift *g = malloc(sizeof *g);
  unsigned r = next_random(w);
  int top = lua_gettop(w->L);
  DLManagedTensorVersioned *mt;
  if (g == NULL) abort();
  atomic_init(&g->deleted, 0);
  for (int i = 0; i < GIFT_SIZE; i++) g->data[i] = i;
  atomic_fetch_add(&gifts_made, 1);
  if (dlx_push_tensor(w->L, g->data, (DLDataType){kDLFloat, 64, 1}, (DLDevice){kDLCPU, 0}, 2, shape,
                      NULL, 0, gift_delete, g) != DLX_OK) {
    FAIL("dlx_push_tensor: %s", lua_tostring(w->L, -1));
    lua_settop(w->L, top);
    return;
  }
  lua_pushinteger(w->L, (lua_Integer)r);
  if (call(w->L, "give", 2, 2)) {
    double sum = lua_tonumber(w->L, -1);
    if (dlx_to_dlpack(w->L, -2, &mt) == DLX_OK) {
      atomic_fetch_add(&capsules_sent, 1);
      post((w->id + 1) % THREADS, mt, sum);
    } else {
      FAIL("dlx_to_dlpack of a capsule: %s", lua_tostring(w->L, -1));
    }
  }
  lua_settop(w->L, top);
}

static void receive_all(worker *w) {
  letter l;
  while (fetch(w->id, &l)) {
    int top = lua_gettop(w->L);
    atomic_fetch_add(&capsules_received, 1);
    if (dlx_push_capsule(w->L, l.mt) != DLX_OK) {
      FAIL("dlx_push_capsule: %s", lua_tostring(w->L, -1));
      lua_settop(w->L, top);
      continue;
    }
    lua_pushnumber(w->L, l.sum);
    lua_pushinteger(w->L, (lua_Integer)next_random(w));
    call(w->L, "receive", 3, 1);
    lua_settop(w->L, top);
  }
}

static void *work(void *arg) {
  worker *w = arg;
  long rounds = 0;
  while (now() < w->deadline && atomic_load(&failures) == 0) {
    lend_once(w);
    receive_all(w);
    give_once(w);
    receive_all(w);
    if (++rounds % 64 == 0) lua_gc(w->L, next_random(w) % 2 ? LUA_GCCOLLECT : LUA_GCSTEP, 0);
  }
  return NULL;
}

static lua_State *new_state(void) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  dlx_openlibs(L);
  if (luaL_dostring(L, script) != LUA_OK) {
    fprintf(stderr, "soak: the script failed: %s\n", lua_tostring(L, -1));
    exit(1);
  }
  return L;
}

/* The live heap with nothing in flight: the letters not yet read are released (as at the end),
 * every state is collected (twice: finalizers let go of more) and dlx's CPU cache is emptied.
 * Only between runs, when no worker runs. */
static size_t settled_heap_bytes(worker *workers) {
  letter l;
  for (int i = 0; i < THREADS; i++) {
    while (fetch(i, &l)) l.mt->deleter(l.mt);
    lua_gc(workers[i].L, LUA_GCCOLLECT, 0);
    lua_gc(workers[i].L, LUA_GCCOLLECT, 0);
  }
  dlx_cpu_cache_empty();
  return heap_bytes();
}

/* Runs all workers until deadline. */
static void run_workers(worker *workers, double deadline) {
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; i++) {
    workers[i].deadline = deadline;
    pthread_create(&threads[i], NULL, work, &workers[i]);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
}

int main(void) {
  const char *env = getenv("DLX_SOAK_SECONDS");
  double seconds = env != NULL ? atof(env) : 3.0, start = now();
  worker workers[THREADS];
  long warm_kib, end_kib;
  size_t warm_heap, end_heap;
  letter l;
  for (int i = 0; i < THREADS; i++) {
    pthread_mutex_init(&boxes[i].lock, NULL);
    workers[i] = (worker){.id = i, .rng = 2654435761u * (unsigned)(i + 1)};
    workers[i].L = new_state();
  }
  /* a quarter of the time to warm up (the collector finds its pace), then the rest */
  run_workers(workers, start + seconds / 4);
  warm_kib = resident_kib();
  warm_heap = settled_heap_bytes(workers);
  run_workers(workers, start + seconds);
  end_kib = resident_kib();
  end_heap = settled_heap_bytes(workers);
  for (int i = 0; i < THREADS; i++) {
    while (fetch(i, &l)) l.mt->deleter(l.mt); /* letters nobody read */
    lua_close(workers[i].L);
    pthread_mutex_destroy(&boxes[i].lock);
  }
  printf("soak: %d threads, %.1f s: %ld loans, %ld tensors given, %ld capsules sent, %ld "
         "received; live heap %zu bytes after the warm-up, %zu at the end%s; resident %ld KiB "
         "after the warm-up, %ld KiB at the end%s\n",
         THREADS, now() - start, atomic_load(&loans_made), atomic_load(&gifts_made),
         atomic_load(&capsules_sent), atomic_load(&capsules_received), warm_heap, end_heap,
         HEAP_CHECKED ? "" : " (not measured here)", warm_kib, end_kib,
         RSS_CHECKED ? "" : " (not checked under a sanitizer)");
  if (atomic_load(&gifts_deleted) != atomic_load(&gifts_made))
    FAIL("%ld tensors given, %ld deleters ran", atomic_load(&gifts_made),
         atomic_load(&gifts_deleted));
  if (atomic_load(&loans_made) == 0 || atomic_load(&capsules_received) == 0)
    FAIL("nothing was exchanged");
  /* flat: the growth after the warm-up stays under a quarter of it plus 16 MiB */
  if (RSS_CHECKED && end_kib > warm_kib + warm_kib / 4 + 16 * 1024)
    FAIL("resident memory grew from %ld KiB to %ld KiB", warm_kib, end_kib);
  if (HEAP_CHECKED && end_heap > warm_heap + HEAP_GROWTH_ALLOWED)
    FAIL("the live heap grew by %zu bytes after the warm-up (%zu allowed)", end_heap - warm_heap,
         HEAP_GROWTH_ALLOWED);
  if (dlx_cpu_memory_allocated() != 0)
    FAIL("dlx's CPU allocator still holds %zu bytes", dlx_cpu_memory_allocated());
  return atomic_load(&failures) == 0 ? 0 : 1;
}
