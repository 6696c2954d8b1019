/* test_alloc_fail.c -- allocation-failure injection, the way Lua's own test suite does it.
 *
 * One counter numbers every allocation of a scenario, those of the Lua state (its lua_Alloc)
 * and those of dlx (dlx_set_alloc_fail_hook) alike, and the run fails the N-th, for N = 0, 1,
 * 2, ... until a run makes fewer than N allocations. Each scenario is swept twice: failing only
 * the N-th allocation, and failing every allocation from the N-th on (memory that stays gone).
 *
 * Every run must end in success or in an out-of-memory error: a dlx "MemoryError: ...", or
 * Lua's own "not enough memory" (LUA_ERRMEM), which is how a failure of the Lua allocator
 * surfaces -- dlx never rewrites Lua's errors. Then, after lua_close, every producer deleter has
 * run exactly once and dlx's CPU allocator holds nothing; LeakSanitizer (the ASan build) and
 * valgrind catch any other leak.
 *
 * Before an allocation becomes a MemoryError, dlx collects, empties its caches and tries once
 * more: a failure of the first try alone is then not seen. test_retry checks that path: that
 * the collection frees what is missing, and that there is exactly one more try. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/alloc.h"
#include "cpu/cpu.h"
#include "cpu/cpu_cache.h"
#include "dlx.h"
#include "lua_host.h"
#include "producer.h"

/* ---- the failing door */

typedef struct injector {
  bool armed;
  bool sticky; /* fail every allocation from fail_at on, not only the fail_at-th */
  long count;  /* allocations seen while armed */
  long fail_at;
  long failed; /* allocations refused */
  long by_dlx; /* how many of count went through dlx's door */
} injector;

static injector inj;

static bool next_allocation_fails(void) {
  long n;
  if (!inj.armed) return false;
  n = inj.count++;
  if (n == inj.fail_at || (inj.sticky && n > inj.fail_at)) {
    inj.failed++;
    return true;
  }
  return false;
}

static int dlx_hook(void *ctx) {
  (void)ctx;
  if (inj.armed) inj.by_dlx++;
  return next_allocation_fails();
}

/* Lua requires that shrinking a block never fails, so only growth is counted. */
static void *lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if ((ptr == NULL || nsize > osize) && next_allocation_fails()) return NULL;
  return realloc(ptr, nsize);
}

/* ---- a host producer whose deleters count their calls */

/* A 2x3 float32 tensor viewed transposed (strides 1, 3), as both kinds of struct. */
static void produce(producer *p, uint64_t flags) {
  producer_make(p, (DLDataType){kDLFloat, 32, 1}, 3, 2, 1, 3, flags);
}

/* ---- scenarios: a Lua chunk, run with the capsules the host pushed as its arguments. Its
 * results go back to the host through dlx_to_dlpack and dlx_to_dlpack_legacy. */

typedef struct scenario {
  const char *name;
  int capsules; /* 0 to 3: versioned, legacy, read-only versioned */
  const char *chunk;
} scenario;

static const scenario scenarios[] = {
    {"creation", 0,
     "local a = dlx.zeros({3, 4})\n"
     "local b = dlx.ones(5, {dtype = 'float16'})\n"
     "local c = dlx.full({2, 2}, {re = 1, im = 2}, {dtype = 'complex64'})\n"
     "local d = dlx.arange(1, 10, 2)\n"
     "local e = dlx.tensor({{1, 2}, {3, 4.5}})\n"
     "local f = dlx.empty({0, 3}, {dtype = 'float8_e4m3fn'})\n"
     "return a, e\n"},
    {"views", 0,
     "local t = dlx.arange(24):view{2, 3, 4}\n"
     "local v = t:permute{3, 1, 2}:slice(1, 1, -1, 2):flip(2):transpose(1, 3)\n"
     "v = v:unsqueeze(1):squeeze(1):narrow(1, 1, 1):select(1, 1)\n"
     "local e = dlx.ones{1, 3}:expand{4, 3}\n"
     "local r = t:transpose(1, 2):reshape{6, 4}\n"
     "local f = t:flip()\n"
     /* a broadcast view is exported versioned only (READ_ONLY) */
     "return v, e:__dlpack{max_version = {1, 3}}, r, f\n"},
    {"copies", 0,
     "local t = dlx.arange(12):view{3, 4}:transpose(1, 2)\n"
     "local c = t:clone()\n"
     "local k = t:contiguous()\n"
     "local d = dlx.zeros{4, 3}:copy_(t)\n"
     "d:copy_(dlx.tensor{1, 2, 3})\n"
     "d:fill_(7)\n"
     "local o = t:to{dtype = 'float64', copy = true}\n"
     "return c, k, d, o\n"},
    {"casts", 0,
     "local t = dlx.arange(-3, 3):view{2, 3}:transpose(1, 2)\n"
     "local out = {}\n"
     "for _, dt in ipairs{'bool', 'int8', 'uint16', 'int32', 'uint64', 'float16', 'bfloat16',\n"
     "                    'float32', 'float64', 'complex64', 'complex128'} do\n"
     "  out[#out + 1] = t:astype(dt)\n"
     "end\n"
     "return out[6], out[11], out[7]:astype('int64')\n"},
    {"reductions", 0,
     "local t = dlx.arange(24, {dtype = 'float32'}):view{2, 3, 4}:transpose(1, 3)\n"
     "local s = t:sum()\n"
     "local m = t:mean({1, 3}, true)\n"
     "local p = dlx.arange(1, 6):prod(1)\n"
     "local a, b = t:min(2), t:max()\n"
     "local i, j = t:argmin(), t:argmax(2, true)\n"
     "local x, y = t:all(1), t:any()\n"
     "local v, tab, str = s:item(), m:totable(), tostring(t)\n"
     "return s, m, j\n"},
    {"export", 0,
     "local t = dlx.arange(6):view{2, 3}:transpose(1, 2)\n"
     "local v = t:__dlpack{max_version = {1, 3}}\n"
     "local l = t:__dlpack()\n"
     "local c = t:__dlpack{copy = true, max_version = {1, 3}}\n"
     "local back = dlx.from_dlpack(v)\n"
     "local r = dlx.from_dlpack(t, {copy = true})\n"
     "return t, l, back, r\n"},
    {"import", 3,
     "local v, l, ro = ...\n"
     "local a = dlx.from_dlpack(v)\n"
     "local b = dlx.from_dlpack(l)\n"
     "local c = dlx.from_dlpack(ro)\n"
     "local s = a:sum(1)\n"
     "local k = b:contiguous():astype('float64')\n"
     "local e = c:__dlpack{max_version = {1, 3}}\n"
     "return a, s, k, e\n"},
    {"capsules to the host", 3, "return ...\n"},
    /* blocks of 64 KiB and more: the CPU cache's blocks, taken and given back */
    {"temporaries", 0,
     "local x = dlx.ones(20000)\n"
     "local s = 0\n"
     "for i = 1, 3 do s = s + x:astype('float64'):sum():item() end\n"
     "collectgarbage()\n"
     "return x:astype('float64'), dlx.zeros(30000)\n"},
    /* dlx.linalg: the column-major copies, the results and the LinAlgError's cleanup */
    {"decompositions", 0,
     "local L = dlx.linalg\n"
     "local a = dlx.tensor({{4, 1}, {1, 3}}):transpose(1, 2):expand{2, 2, 2}\n"
     "local x = L.solve(a, dlx.ones(2))\n"
     "local q, r = L.qr(a)\n"
     "local u, s, vh = L.svd(a)\n"
     "local w, v = L.eigh(a, {uplo = 'U'})\n"
     "local sol, res, rank, sv = L.lstsq(a, dlx.ones{2, 1})\n"
     "local p, l, lu = L.lu(a)\n"
     "local sign, logdet = L.slogdet(a)\n"
     "local ok = pcall(L.inv, dlx.zeros{2, 2})\n"
     "return L.cholesky(a), L.pinv(a), x\n"},
};

/* ---- one run */

typedef struct run_result {
  bool ok;
  bool bad_error; /* an error that is not an out-of-memory error */
} run_result;

static bool is_out_of_memory(const char *msg) {
  return msg != NULL &&
         (strstr(msg, "MemoryError: ") != NULL || strcmp(msg, "not enough memory") == 0);
}

static void note_error(run_result *r, lua_State *L, const scenario *s, long n) {
  const char *msg = lua_tostring(L, -1);
  r->ok = false;
  if (!is_out_of_memory(msg)) {
    r->bad_error = true;
    fprintf(stderr, "%s, allocation %ld: not an out-of-memory error: %s\n", s->name, n,
            msg != NULL ? msg : "(not a string)");
  }
}

/* A C API call failed: it pushed a message, or nothing at all when the Lua stack itself could
 * not grow (then there is no room for one). Either way the stack goes back to top. */
static void fail_without_value(run_result *r, lua_State *L, int top, const scenario *s, long n) {
  if (lua_gettop(L) > top)
    note_error(r, L, s, n);
  else
    r->ok = false;
  lua_settop(L, top);
}

static int push_capsules(lua_State *L, producer *p, int count, run_result *r, const scenario *s,
                         long n) {
  int pushed = 0;
  for (int i = 0; i < count; i++) {
    int top = lua_gettop(L);
    int rc = i == 1 ? dlx_push_capsule_legacy(L, &p[i].legacy) : dlx_push_capsule(L, &p[i].mt);
    if (rc != 0) {
      fail_without_value(r, L, top, s, n); /* the deleter has run */
      continue;
    }
    pushed++;
  }
  return pushed;
}

/* Hands every result to the host in both forms, and releases what it got. */
static void export_results(lua_State *L, int base, run_result *r, const scenario *s, long n) {
  for (int i = base + 1; i <= lua_gettop(L); i++) {
    DLManagedTensorVersioned *out = NULL;
    DLManagedTensor *legacy = NULL;
    int top = lua_gettop(L);
    bool capsule = luaL_testudata(L, i, "dlx.Capsule") != NULL;
    if (dlx_to_dlpack(L, i, &out) == 0)
      out->deleter(out);
    else
      fail_without_value(r, L, top, s, n);
    if (capsule) continue; /* consumed by the first export (or by its failure) */
    if (dlx_to_dlpack_legacy(L, i, &legacy) == 0)
      legacy->deleter(legacy);
    else
      fail_without_value(r, L, top, s, n);
  }
}

/* Runs the scenario failing allocation n (and those after it when sticky); returns whether a
 * failure was injected, that is whether the sweep must go on. */
static bool run_once(const scenario *s, long n, bool sticky, int *errors, long *by_dlx) {
  producer p[3];
  run_result r = {true, false};
  lua_State *L = host_new_state(lua_alloc);
  int base, pushed;
  bool injected;
  produce(&p[0], 0);
  produce(&p[1], 0);
  produce(&p[2], DLPACK_FLAG_BITMASK_READ_ONLY);
  if (luaL_loadstring(L, s->chunk) != LUA_OK) {
    fprintf(stderr, "%s does not compile: %s\n", s->name, lua_tostring(L, -1));
    exit(1);
  }
  base = lua_gettop(L) - 1;
  inj = (injector){.armed = true, .sticky = sticky, .fail_at = n};
  dlx_set_alloc_fail_hook(dlx_hook, NULL);
  pushed = push_capsules(L, p, s->capsules, &r, s, n);
  if (lua_pcall(L, pushed, LUA_MULTRET, 0) != LUA_OK) {
    note_error(&r, L, s, n);
    lua_settop(L, base);
  }
  export_results(L, base, &r, s, n);
  inj.armed = false;
  dlx_set_alloc_fail_hook(NULL, NULL);
  injected = inj.failed > 0;
  *by_dlx = inj.by_dlx;
  lua_close(L);
  for (int i = 0; i < s->capsules; i++) CHECK_EQ_INT(p[i].deleted, 1);
  for (int i = s->capsules; i < 3; i++) CHECK_EQ_INT(p[i].deleted, 0);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
  CHECK(!r.bad_error);
  if (!injected) CHECK(r.ok); /* with no failure, everything succeeds */
  *errors += !r.ok;
  return injected;
}

static void sweep(const scenario *s, bool sticky) {
  long n = 0, by_dlx = 0;
  int errors = 0;
  while (run_once(s, n, sticky, &errors, &by_dlx)) n++;
  printf("%-20s %-8s %4ld allocations (%3ld by dlx) failed in turn: %4d runs ended in out of "
         "memory, the others succeeded\n",
         s->name, sticky ? "(sticky)" : "", n, by_dlx, errors);
  CHECK(n > 0 && by_dlx > 0);
}

/* ---- the retry before a MemoryError: a full collection, emptied caches, one more try */

/* dlx's allocations fail while the CPU tensors that are live hold budget bytes or more (so
 * the memory that garbage tensors hold is what is missing), or while fail_dlx > 0. */
static size_t budget = SIZE_MAX;
static int fail_dlx;

static int budget_hook(void *ctx) {
  (void)ctx;
  if (fail_dlx > 0) {
    fail_dlx--;
    return 1;
  }
  return dlx_cpu_memory_allocated() >= budget;
}

/* Runs chunk in a fresh state with the hook; returns its error message, or "" on success. */
static const char *run_with_hook(const char *chunk, char *message, size_t size) {
  lua_State *L = host_new_state(NULL);
  message[0] = '\0';
  dlx_set_alloc_fail_hook(budget_hook, NULL);
  if (luaL_dostring(L, chunk) != LUA_OK) snprintf(message, size, "%s", lua_tostring(L, -1));
  dlx_set_alloc_fail_hook(NULL, NULL);
  lua_close(L);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
  return message;
}

static void test_retry(void) {
  char message[256];
  /* the collector is stopped: only the retry's collection frees the 1 MiB temporaries */
  const char *loop = "collectgarbage('stop')\n"
                     "for i = 1, 40 do local t = dlx.ones(1 << 18):sum() end\n";
  budget = 8 << 20;
  CHECK(strcmp(run_with_hook(loop, message, sizeof message), "") == 0);
  budget = SIZE_MAX;
  /* a failure that a second try does not meet again is never seen */
  fail_dlx = 1;
  CHECK(strcmp(run_with_hook("dlx.zeros(100000)", message, sizeof message), "") == 0);
  CHECK_EQ_INT(fail_dlx, 0);
  /* one that it meets again is a MemoryError, after exactly one more try */
  fail_dlx = 2;
  run_with_hook("dlx.zeros(100000)", message, sizeof message);
  CHECK(strstr(message, "MemoryError: ") != NULL);
  CHECK_EQ_INT(fail_dlx, 0);
  fail_dlx = 0;
}

int main(void) {
  test_retry();
  for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
    sweep(&scenarios[i], false);
    sweep(&scenarios[i], true);
  }
  /* what the runs left in the CPU cache is given back whole */
  CHECK(dlx_cpu_cache_bytes() <= dlx_cpu_cache_limit());
  dlx_cpu_cache_empty();
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0);
  return check_report("test_alloc_fail");
}
