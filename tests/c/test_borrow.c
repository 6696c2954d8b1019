/* test_borrow.c -- borrowed tensors (dlx_push_borrowed, dlx_unborrow): the loan ends in every
 * order against collection, t:close() and lua_close; after it every tensor and view over the
 * memory raises instead of touching it (the host's memory is freed right after dlx_unborrow, so
 * that ASan reports any access), copies stay valid, exports copy, and nothing leaks when an
 * allocation fails anywhere. Loans on states of other threads: test_threads_borrow.c. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/alloc.h"
#include "cpu/cpu.h"
#include "dlx.h"
#include "fail_alloc.h"
#include "lua_host.h"

#define EXPIRED "ValueError: borrowed tensor expired"

/* ---- the host's memory: a 3x4 float32 tensor 0, 1, ..., 11 on the heap */

typedef struct lent {
  float *data;
  int64_t shape[2];
  DLTensor dl;
} lent;

static void lend_make(lent *h) {
  h->data = malloc(12 * sizeof *h->data);
  if (h->data == NULL) abort();
  for (int i = 0; i < 12; i++) h->data[i] = (float)i;
  h->shape[0] = 3;
  h->shape[1] = 4;
  h->dl = (DLTensor){h->data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, h->shape, NULL, 0};
}

/* The host takes its memory back: any later access by dlx is a use after free under ASan. */
static void lend_free(lent *h) {
  free(h->data);
  h->data = NULL;
}

static bool top_has(lua_State *L, const char *text) {
  const char *s = lua_tostring(L, -1);
  return s != NULL && strstr(s, text) != NULL;
}

/* Runs chunk with the top nargs values as its ...; it must succeed. */
static void run_ok(lua_State *L, const char *chunk, int nargs) {
  CHECK(host_run(L, chunk, nargs, 0));
}

/* A new state with the host's memory (made in h) lent to it as *loan, and chunk run with the
 * tensor as its argument. */
static lua_State *lend_and_run(lent *h, dlx_borrow **loan, const char *chunk) {
  lua_State *L = host_new_state(NULL);
  lend_make(h);
  *loan = NULL;
  CHECK_EQ_INT(dlx_push_borrowed(L, &h->dl, 0, loan), DLX_OK);
  CHECK(*loan != NULL);
  run_ok(L, chunk, 1);
  return L;
}

/* Ends the loan and takes the memory back; returns whether Lua still held tensors over it. */
static int unborrow_and_free(lent *h, dlx_borrow *loan) {
  int held = -1;
  CHECK_EQ_INT(dlx_unborrow(loan, &held), DLX_OK);
  lend_free(h);
  return held;
}

/* Every way to reach the memory of the tensors in the global table `kept` must raise EXPIRED;
 * what does not reach it still works. */
static const char *const check_expired =
    "local n = 0\n"
    "local function expired(f, ...)\n"
    "  local ok, err = pcall(f, ...)\n"
    "  assert(not ok, 'reached expired memory: ' .. debug.traceback())\n"
    "  assert(tostring(err):find('" EXPIRED "', 1, true), err)\n"
    "  assert(dlx.error_class(err) == 'ValueError')\n"
    "  n = n + 1\n"
    "end\n"
    "for _, t in ipairs(kept) do\n"
    "  local _ = t.shape, t.strides, t.dtype, t.ndim, t.device\n"
    "  local text = ('tensor(<expired>, shape={%s}, dtype=%s, device=cpu)')\n"
    "    :format(table.concat(t.shape, ', '), t.dtype)\n"
    "  assert(tostring(t) == text, tostring(t))\n" /* printed without touching the memory */
    "  expired(t.sum, t)\n"
    "  expired(t.max, t)\n"
    "  expired(t.clone, t)\n"
    "  expired(t.astype, t, 'float64')\n"
    "  expired(t.totable, t)\n"
    "  expired(t.fill_, t, 1)\n"
    "  expired(t.copy_, t, dlx.zeros(t.shape))\n"
    "  local z = dlx.zeros(t.shape)\n"
    "  expired(z.copy_, z, t)\n"
    "  expired(t.__dlpack, t, {max_version = {1, 3}})\n"
    "  expired(dlx.from_dlpack, t)\n"
    "  expired(t.to, t, {dtype = 'int32'})\n"
    "  if t.ndim == 2 then\n"
    "    expired(t.contiguous, t:flip(1))\n"
    "    expired(t.item, t:select(1, 1):select(1, 1))\n"
    "  end\n"
    "end\n"
    "return n\n";

/* ---- the orders */

static void test_unborrow_before_collection(void) {
  lent h;
  dlx_borrow *loan;
  lua_State *L =
      lend_and_run(&h, &loan,
                   "local t = ...\n"
                   "assert(t.shape[1] == 3 and t.shape[2] == 4 and t.dtype == 'float32')\n"
                   "assert(t:sum():item() == 66)\n"
                   "t:select(1, 2):fill_(1)\n" /* writes reach the host's memory */
                   "kept = {t, t:transpose(1, 2), t:select(1, 3), t:view{12}, "
                   "t:slice(2, 2, 3)}\n"
                   "copy = t:clone()\n"
                   "wide = t:astype('float64')\n"
                   "total = t:sum()\n");
  CHECK(h.data[4] == 1.0f && h.data[7] == 1.0f);
  CHECK_EQ_INT(unborrow_and_free(&h, loan), 1); /* the script kept them */
  if (host_run(L, check_expired, 0, 1)) {
    CHECK_EQ_INT(lua_tointeger(L, -1), 3 * 13 + 2 * 11); /* three 2-d tensors, two 1-d */
    lua_pop(L, 1);
  } else {
    CHECK(!"an expired tensor reached its memory");
  }
  run_ok(L,
         "assert(copy:sum():item() == 66 - 4 - 5 - 6 - 7 + 4)\n"
         "assert(wide.dtype == 'float64' and wide:select(1, 2):select(1, 1):item() == 1)\n"
         "assert(total:item() == 48)\n",
         0);
  run_ok(L, "kept = nil; collectgarbage()", 0);
  lua_close(L);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
}

static void test_unborrow_after_collection(void) {
  lent h;
  dlx_borrow *loan;
  lua_State *L = lend_and_run(
      &h, &loan, "local t = ...; local v = t:view{2, 6}; assert(v:sum():item() == 66)");
  lua_gc(L, LUA_GCCOLLECT);
  CHECK_EQ_INT(unborrow_and_free(&h, loan), 0); /* everything over the memory was collected */
  lua_close(L);
}

static void test_unborrow_after_close(void) {
  lent h;
  dlx_borrow *loan;
  lua_State *L = lend_and_run(&h, &loan, "t = ...; t:close()");
  CHECK_EQ_INT(unborrow_and_free(&h, loan), 0);
  run_ok(L, "local ok, err = pcall(t.sum, t); assert(not ok and err:find('closed'))", 0);
  lua_close(L);
}

static void test_close_after_unborrow(void) {
  lent h;
  dlx_borrow *loan;
  lua_State *L = lend_and_run(&h, &loan, "t = ...; v = t:transpose(1, 2)");
  CHECK_EQ_INT(unborrow_and_free(&h, loan), 1);
  run_ok(L, "t:close(); v:close(); t:close()", 0); /* closing expired tensors is fine */
  lua_close(L);
}

static void test_unborrow_after_lua_close(void) {
  lent h;
  dlx_borrow *loan;
  lua_State *L = lend_and_run(&h, &loan, "kept = {...}; kept[2] = kept[1]:view{4, 3}");
  lua_close(L); /* the loan outlives the state */
  CHECK_EQ_INT(unborrow_and_free(&h, loan), 0);
}

static void test_lua_close_after_unborrow(void) {
  lent h;
  dlx_borrow *loan;
  lua_State *L = lend_and_run(&h, &loan, "kept = {...}; kept[2] = kept[1]:flip(1)");
  CHECK_EQ_INT(unborrow_and_free(&h, loan), 1);
  lua_close(L); /* the buffer frees the loan; LSan checks that nothing is left */
}

/* Many loans of one buffer, one call each, never collected in between: each expires alone. */
static void test_loan_per_call(void) {
  lent h;
  lua_State *L = host_new_state(NULL);
  lend_make(&h);
  CHECK(host_run(L, "function per_call(t) last = t; return t:sum():item() end", 0, 0));
  for (int i = 0; i < 200; i++) {
    dlx_borrow *loan = NULL;
    h.data[0] = (float)i;
    lua_getglobal(L, "per_call");
    CHECK_EQ_INT(dlx_push_borrowed(L, &h.dl, 0, &loan), DLX_OK);
    CHECK(lua_pcall(L, 1, 1, 0) == LUA_OK);
    CHECK(lua_tonumber(L, -1) == 66.0 + i);
    lua_pop(L, 1);
    CHECK_EQ_INT(dlx_unborrow(loan, NULL), DLX_OK);
  }
  if (host_run(L, "local ok, err = pcall(last.sum, last); return not ok and err", 0, 1)) {
    CHECK(top_has(L, EXPIRED));
    lua_pop(L, 1);
  }
  lend_free(&h);
  lua_close(L);
}

/* ---- exports copy */

static void test_exports_copy(void) {
  lent h;
  dlx_borrow *loan = NULL;
  DLManagedTensorVersioned *out = NULL, *refused = NULL;
  DLManagedTensor *legacy = NULL;
  dlx_export_opts never = {.copy = DLX_EXPORT_COPY_NEVER};
  lua_State *L = host_new_state(NULL);
  int top = lua_gettop(L);
  lend_make(&h);
  CHECK_EQ_INT(dlx_push_borrowed(L, &h.dl, 0, &loan), DLX_OK);
  CHECK_EQ_INT(dlx_to_dlpack(L, -1, &out), DLX_OK);
  CHECK(out != NULL && out->dl_tensor.data != (void *)h.data);
  CHECK(out != NULL && (out->flags & DLPACK_FLAG_BITMASK_IS_COPIED) != 0);
  CHECK_EQ_INT(dlx_to_dlpack_legacy(L, -1, &legacy), DLX_OK);
  CHECK(legacy != NULL && legacy->dl_tensor.data != (void *)h.data);
  CHECK_EQ_INT(dlx_to_dlpack_ex(L, -1, &never, &refused), DLX_BUFFER_ERROR);
  CHECK(refused == NULL);
  CHECK(top_has(L, "BufferError: a copy would be needed (the tensor is borrowed"));
  lua_settop(L, top + 1);
  run_ok(L,
         "local t = ...\n"
         "local ok, err = pcall(t.__dlpack, t, {copy = false, max_version = {1, 3}})\n"
         "assert(not ok and err:find('BufferError: a copy would be needed', 1, true), err)\n"
         "local c = t:__dlpack{max_version = {1, 3}}\n"
         "assert(c.flags & 2 == 2)\n" /* IS_COPIED */
         "kept = {dlx.from_dlpack(c), dlx.from_dlpack(t)}\n"
         "local ok2 = pcall(dlx.from_dlpack, t, {copy = false})\n"
         "assert(not ok2)\n",
         1);
  CHECK_EQ_INT(dlx_unborrow(loan, NULL), DLX_OK);
  lend_free(&h);
  run_ok(L, "for _, k in ipairs(kept) do assert(k:sum():item() == 66) end", 0);
  lua_close(L);
  /* the exports are the host's, and outlive the loan and the state */
  if (out != NULL) {
    CHECK(((const float *)out->dl_tensor.data)[5] == 5.0f);
    out->deleter(out);
  }
  if (legacy != NULL) {
    CHECK(((const float *)legacy->dl_tensor.data)[11] == 11.0f);
    legacy->deleter(legacy);
  }
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
}

/* ---- flags, layouts and bad arguments */

static void test_read_only_and_strides(void) {
  lent h;
  dlx_borrow *loan = NULL;
  int64_t strides[2] = {1, 3}; /* the host's memory seen column-major: a 4x3 transposed view */
  int64_t shape[2] = {4, 3};
  lua_State *L = host_new_state(NULL);
  lend_make(&h);
  h.dl.shape = shape;
  h.dl.strides = strides;
  CHECK_EQ_INT(dlx_push_borrowed(L, &h.dl, DLPACK_FLAG_BITMASK_READ_ONLY, &loan), DLX_OK);
  run_ok(L,
         "local t = ...\n"
         "assert(t.readonly and t.strides[1] == 1 and t.strides[2] == 3)\n"
         "assert(t:select(1, 2):select(1, 3):item() == 7)\n"
         "local ok, err = pcall(t.fill_, t, 0)\n"
         "assert(not ok and err:find('read-only', 1, true), err)\n",
         1);
  CHECK_EQ_INT(dlx_unborrow(loan, NULL), DLX_OK);
  lend_free(&h);
  lua_close(L);
}

static void test_bad_arguments(void) {
  lent h;
  dlx_borrow *loan = (dlx_borrow *)&loan;
  int held = 7;
  lua_State *L = host_new_state(NULL);
  int top = lua_gettop(L);
  lend_make(&h);
  CHECK_EQ_INT(dlx_push_borrowed(L, NULL, 0, &loan), DLX_VALUE_ERROR);
  CHECK(loan == NULL && top_has(L, "ValueError: NULL DLTensor"));
  CHECK_EQ_INT(dlx_push_borrowed(L, &h.dl, 0, NULL), DLX_VALUE_ERROR);
  h.dl.dtype.bits = 7; /* no such float */
  CHECK_EQ_INT(dlx_push_borrowed(L, &h.dl, 0, &loan), DLX_BUFFER_ERROR);
  CHECK(loan == NULL && top_has(L, "BufferError: unsupported dtype"));
  h.dl.dtype.bits = 32;
  CHECK_EQ_INT(dlx_push_borrowed(L, &h.dl, 1u << 5, &loan), DLX_BUFFER_ERROR);
  CHECK(top_has(L, "unknown DLPack flags"));
  h.dl.device.device_type = kDLVulkan;
  CHECK_EQ_INT(dlx_push_borrowed(L, &h.dl, 0, &loan), DLX_BUFFER_ERROR);
  CHECK(loan == NULL);
  CHECK_EQ_INT(lua_gettop(L), top + 5);
  CHECK_EQ_INT(dlx_unborrow(NULL, &held), DLX_VALUE_ERROR);
  CHECK_EQ_INT(held, 0);
  lend_free(&h);
  lua_close(L);
}

/* A host may lend before any script required dlx. */
static void test_before_require(void) {
  lent h;
  dlx_borrow *loan = NULL;
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  dlx_openlibs(L);
  lend_make(&h);
  CHECK_EQ_INT(dlx_push_borrowed(L, &h.dl, 0, &loan), DLX_OK);
  run_ok(L, "local t = ...; assert(require('dlx').is_tensor(t) and t:sum():item() == 66)", 1);
  CHECK_EQ_INT(dlx_unborrow(loan, NULL), DLX_OK);
  lend_free(&h);
  lua_close(L);
}

/* ---- allocation failures: every allocation of a lend, a call and a give-back fails in turn */

/* One lend under failure n; returns whether a failure was injected. */
static bool lend_failing(long n) {
  lent h;
  dlx_borrow *loan = NULL;
  lua_State *L = host_new_state(fail_lua_alloc);
  int top = lua_gettop(L), rc;
  bool injected;
  lend_make(&h);
  lua_getglobal(L, "dlx");
  alloc_count = 0;
  alloc_fail_at = n;
  dlx_set_alloc_fail_hook(fail_dlx_hook, NULL);
  rc = dlx_push_borrowed(L, &h.dl, 0, &loan);
  if (rc == DLX_OK) {
    CHECK(loan != NULL);
    if (luaL_loadstring(L, "local dlx, t = ...; kept = t:view{12}; return t:sum():item()") ==
        LUA_OK) {
      lua_insert(L, -3);
      if (lua_pcall(L, 2, 1, 0) == LUA_OK)
        CHECK(lua_tonumber(L, -1) == 66.0);
      else
        CHECK(top_has(L, "MemoryError") || top_has(L, "not enough memory"));
    }
    CHECK_EQ_INT(dlx_unborrow(loan, NULL), DLX_OK);
  } else {
    CHECK_EQ_INT(rc, DLX_MEMORY_ERROR);
    CHECK(loan == NULL);
  }
  injected = alloc_count > n;
  dlx_set_alloc_fail_hook(NULL, NULL);
  alloc_fail_at = -1;
  lua_settop(L, top);
  lend_free(&h);
  lua_close(L);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
  return injected;
}

static void test_allocation_failures(void) {
  long n = 0;
  while (lend_failing(n)) n++;
  CHECK(n > 3);
}

int main(void) {
  test_unborrow_before_collection();
  test_unborrow_after_collection();
  test_unborrow_after_close();
  test_close_after_unborrow();
  test_unborrow_after_lua_close();
  test_lua_close_after_unborrow();
  test_loan_per_call();
  test_exports_copy();
  test_read_only_and_strides();
  test_bad_arguments();
  test_before_require();
  test_allocation_failures();
  return check_report("test_borrow");
}
