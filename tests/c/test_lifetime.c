/* test_lifetime.c -- hard lifetimes seen from a host: lua_close while tensors are still exported
 * to the host, or held by abandoned coroutines, pending <close> variables and capsules never
 * consumed; collections stepped in both collector modes between imports and exports; errors
 * thrown in the middle of an operation. Every producer deleter runs exactly once, and dlx's
 * CPU allocator holds nothing once the host has released what it holds. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu/cpu.h"
#include "dlx.h"
#include "lua_host.h"
#include "producer.h"

#define PRODUCERS 64

/* A 3x4 int32 tensor 0..11 (row-major), as both kinds of struct. */
static void produce(producer *p) { producer_make(p, (DLDataType){kDLInt, 32, 1}, 3, 4, 4, 1, 0); }

/* Pushes producer i's capsule (legacy for odd i). */
static void push(lua_State *L, producer *p, int i) {
  int rc = i % 2 ? dlx_push_capsule_legacy(L, &p[i].legacy) : dlx_push_capsule(L, &p[i].mt);
  CHECK_EQ_INT(rc, 0);
}

/* Runs a chunk that must not raise. */
static void run(lua_State *L, const char *chunk, int nargs, int nresults) {
  CHECK(host_run(L, chunk, nargs, nresults));
}

static int deleted_total(const producer *p, int n) {
  int total = 0;
  for (int i = 0; i < n; i++) total += p[i].deleted;
  return total;
}

/* lua_close while the host holds exports of views of imported and of dlx-made tensors; they
 * stay readable after the state is gone, and their deleters then run exactly once. */
static void test_exports_outlive_state(void) {
  static producer p[2];
  DLManagedTensorVersioned *out[4] = {NULL};
  lua_State *L = host_new_state(NULL);
  produce(&p[0]);
  produce(&p[1]);
  push(L, p, 0);
  push(L, p, 1);
  run(L,
      "local a, b = ...\n"
      "a, b = dlx.from_dlpack(a), dlx.from_dlpack(b)\n"
      "return a:transpose(1, 2), b:select(1, 3), dlx.arange(10):flip(1), a:slice(2, 2, 4, 2)",
      2, 4);
  for (int i = 0; i < 4; i++) CHECK_EQ_INT(dlx_to_dlpack(L, i - 4, &out[i]), 0);
  lua_close(L);
  CHECK_EQ_INT(deleted_total(p, 2), 0); /* the exports still hold the producers' memory */
  if (out[0] == NULL || out[1] == NULL || out[2] == NULL || out[3] == NULL) return;
  CHECK_EQ_INT(((int32_t *)out[0]->dl_tensor.data)[out[0]->dl_tensor.strides[0] * 3], 3);
  CHECK_EQ_INT(((int32_t *)out[1]->dl_tensor.data)[out[1]->dl_tensor.byte_offset / 4 + 1], 9);
  CHECK_EQ_INT(((int64_t *)out[2]->dl_tensor.data)[out[2]->dl_tensor.byte_offset / 8], 9);
  out[1]->deleter(out[1]);
  CHECK_EQ_INT(p[1].deleted, 1);
  out[0]->deleter(out[0]);
  CHECK_EQ_INT(p[0].deleted, 0); /* out[3] is a view of the same import */
  out[3]->deleter(out[3]);
  CHECK_EQ_INT(p[0].deleted, 1);
  out[2]->deleter(out[2]);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
}

/* Coroutines that hold tensors and are abandoned suspended, closed with pending <close>
 * variables, or dead from an error; unconsumed capsules; all at lua_close or collection. */
static void test_coroutines(void) {
  static producer p[6];
  lua_State *L = host_new_state(NULL);
  for (int i = 0; i < 6; i++) produce(&p[i]);
  for (int i = 0; i < 6; i++) push(L, p, i);
  run(L,
      "local caps = {...}\n"
      "local function holder(cap)\n"
      "  local t = dlx.from_dlpack(cap)\n"
      "  local v = t:transpose(1, 2)\n"
      "  coroutine.yield(v:sum():item())\n"
      "  error('never resumed')\n"
      "end\n"
      /* 1: suspended and dropped: only the collector can release it */
      "local co = coroutine.wrap(holder); assert(co(caps[1]) == 66)\n"
      /* 2: suspended, kept in a global until lua_close */
      "kept = coroutine.create(holder); assert(coroutine.resume(kept, caps[2]))\n"
      /* 3: coroutine.close runs the pending <close> at once */
      "local closing = coroutine.create(function(cap)\n"
      "  local t <close> = dlx.from_dlpack(cap)\n"
      "  coroutine.yield()\n"
      "end)\n"
      "assert(coroutine.resume(closing, caps[3]))\n"
      "assert(coroutine.close(closing))\n"
      /* 4: dies from an error in the middle of an operation, holding a view */
      "local dying = coroutine.create(function(cap)\n"
      "  local t = dlx.from_dlpack(cap):flip(2)\n"
      "  return t:view{5}\n"
      "end)\n"
      "local ok, err = coroutine.resume(dying, caps[4])\n"
      "assert(not ok and err:find('ValueError', 1, true), err)\n"
      /* 5: a capsule that a suspended coroutine never consumes */
      "pending = coroutine.create(function(cap) coroutine.yield() return cap end)\n"
      "assert(coroutine.resume(pending, caps[5]))\n"
      /* 6: left unconsumed in a global */
      "unconsumed = caps[6]\n",
      6, 0);
  CHECK_EQ_INT(p[2].deleted, 1); /* closed by coroutine.close, with no collection */
  lua_gc(L, LUA_GCCOLLECT);
  CHECK_EQ_INT(p[0].deleted, 1);
  CHECK_EQ_INT(p[3].deleted, 1);
  CHECK_EQ_INT(p[1].deleted + p[4].deleted + p[5].deleted, 0); /* still reachable */
  lua_close(L);
  for (int i = 0; i < 6; i++) CHECK_EQ_INT(p[i].deleted, 1);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
}

/* Imports, views, <close> variables, exports and errors under both collector modes, with the
 * collector stepped between operations; the host releases its exports as it goes. */
static void test_collector_modes(void) {
  static producer p[PRODUCERS];
  const char *modes[] = {"incremental", "generational"};
  for (int m = 0; m < 2; m++) {
    lua_State *L = host_new_state(NULL);
    lua_pushstring(L, modes[m]);
    run(L, "collectgarbage(...)", 1, 0);
    for (int i = 0; i < PRODUCERS; i++) {
      DLManagedTensorVersioned *out = NULL;
      produce(&p[i]);
      push(L, p, i);
      lua_pushinteger(L, i);
      run(L,
          "local cap, i = ...\n"
          "local t = dlx.from_dlpack(cap)\n"
          "collectgarbage('step', i % 7)\n"
          "local ok = pcall(function()\n"
          "  local v <close> = t:transpose(1, 2):contiguous()\n"
          "  if i % 3 == 0 then error('thrown while holding a view') end\n"
          "  return v:select(1, 5)\n" /* out of range: a ValueError mid-operation */
          "end)\n"
          "assert(not ok)\n"
          "if i % 4 == 0 then t:close() end\n"
          "collectgarbage(i % 5 == 0 and 'collect' or 'step')\n"
          "return i % 4 == 0 and dlx.zeros(3) or t:narrow(1, 2, 2)",
          2, 1);
      CHECK_EQ_INT(dlx_to_dlpack(L, -1, &out), 0);
      lua_pop(L, 1);
      if (i % 2 == 0 && out != NULL) out->deleter(out), out = NULL; /* released at once */
      lua_gc(L, LUA_GCSTEP, 0);
      if (out != NULL) out->deleter(out); /* or after a collector step */
    }
    lua_close(L);
    for (int i = 0; i < PRODUCERS; i++) CHECK_EQ_INT(p[i].deleted, 1);
    CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
  }
}

int main(void) {
  test_exports_outlive_state();
  test_coroutines();
  test_collector_modes();
  return check_report("test_lifetime");
}
