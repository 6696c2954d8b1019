/* host.c -- the per-call cost of the host API, as an embedding host pays it: a game frame, a
 * control tick or a request hands a small tensor to a script and reads the answer.
 *
 *   lend + call + unborrow  dlx_push_borrowed of a 16-element float32 tensor, a Lua function
 *                           returning t:sum():item(), the number read, dlx_unborrow
 *   lend + empty call + ...  the loan alone: a function that ignores the tensor
 *   give + call             the same with dlx_push_tensor (the host's memory given, no deleter)
 *   capsule + call          the same through a capsule that the script imports with
 *                           dlx.from_dlpack (the path a host had before loans)
 *   empty call              the Lua call alone, returning a number (the floor)
 *   dlx_tensor_view         a borrowed DLTensor of a Lua tensor, from C
 *
 * Each case runs DLX_BENCH_CALLS calls (default 20000) five times; the table shows the best
 * round's time per call. Build: the target dlx_host_bench (with DLX_BUILD_BENCH). */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dlx.h"

#define ROUNDS 5

static float host_data[16];
static int64_t host_shape[1] = {16}, host_strides[1] = {1};
static lua_State *L;
static int sum_ref, empty_ref, import_ref;
static volatile double sink;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "host bench: %s: %s\n", what, lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
  exit(1);
}

/* Calls the function of registry ref with the value on top of the stack; reads the number. */
static void call_with_top(int ref) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
  lua_insert(L, -2);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) die("the script failed");
  sink = lua_tonumber(L, -1);
  lua_pop(L, 1);
}

static void lend_call_unborrow(void) {
  DLTensor dl = {host_data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, host_shape, NULL, 0};
  dlx_borrow *loan;
  if (dlx_push_borrowed(L, &dl, 0, &loan) != DLX_OK) die("dlx_push_borrowed");
  call_with_top(sum_ref);
  dlx_unborrow(loan, NULL);
}

/* The loan alone: the script does nothing with it. */
static void lend_unborrow(void) {
  DLTensor dl = {host_data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, host_shape, NULL, 0};
  dlx_borrow *loan;
  if (dlx_push_borrowed(L, &dl, 0, &loan) != DLX_OK) die("dlx_push_borrowed");
  call_with_top(empty_ref);
  dlx_unborrow(loan, NULL);
}

static void give_call(void) {
  if (dlx_push_tensor(L, host_data, (DLDataType){kDLFloat, 32, 1}, (DLDevice){kDLCPU, 0}, 1,
                      host_shape, NULL, 0, NULL, NULL) != DLX_OK)
    die("dlx_push_tensor");
  call_with_top(sum_ref);
}

static DLManagedTensorVersioned capsule_mt;
static void capsule_call(void) {
  capsule_mt = (DLManagedTensorVersioned){
      {1, 3},
      NULL,
      NULL,
      0,
      {host_data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, host_shape, host_strides, 0}};
  if (dlx_push_capsule(L, &capsule_mt) != DLX_OK) die("dlx_push_capsule");
  call_with_top(import_ref);
}

static void empty_call(void) {
  lua_pushnil(L);
  call_with_top(empty_ref);
}

static DLTensor view;
static void tensor_view(void) {
  if (dlx_tensor_view(L, 1, &view) != DLX_OK) die("dlx_tensor_view");
}

/* Best seconds per call over the rounds. */
static double time_case(void (*once)(void), long calls) {
  double best = 1e30;
  for (int round = 0; round < ROUNDS; round++) {
    double start = now();
    for (long i = 0; i < calls; i++) once();
    double each = (now() - start) / (double)calls;
    if (each < best) best = each;
  }
  return best;
}

static int ref_of(const char *chunk) {
  if (luaL_loadstring(L, chunk) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) die(chunk);
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

int main(void) {
  const char *env = getenv("DLX_BENCH_CALLS");
  long calls = env != NULL ? atol(env) : 20000;
  static const struct {
    const char *name;
    void (*once)(void);
    const char *goal;
  } cases[] = {
      {"lend + call + unborrow", lend_call_unborrow, "<= 1000 ns"},
      {"lend + empty call + unborrow", lend_unborrow, ""},
      {"give + call", give_call, ""},
      {"capsule + call", capsule_call, ""},
      {"empty call", empty_call, ""},
      {"dlx_tensor_view", tensor_view, "<= 50 ns"},
  };
  for (int i = 0; i < 16; i++) host_data[i] = (float)i;
  L = luaL_newstate();
  luaL_openlibs(L);
  dlx_openlibs(L);
  if (luaL_dostring(L, "dlx = require 'dlx'") != LUA_OK) die("require 'dlx'");
  sum_ref = ref_of("return function(t) return t:sum():item() end");
  empty_ref = ref_of("return function() return 120 end");
  import_ref = ref_of("return function(c) return dlx.from_dlpack(c):sum():item() end");
  if (luaL_dostring(L, "return dlx.zeros(16)") != LUA_OK) die("dlx.zeros");
  lend_call_unborrow();
  if (sink != 120.0) die("the sum of 0..15 is not 120");
  printf("%-26s %12s %12s\n", "per call (C host)", "ns", "goal");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    printf("%-26s %12.0f %12s\n", cases[i].name, 1e9 * time_case(cases[i].once, calls),
           cases[i].goal);
  lua_close(L);
  return 0;
}
