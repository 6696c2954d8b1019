/* test_binding_capi.c -- the host C API of include/dlx.h: pushing capsules, exporting tensors
 * and capsules back, never raising, and every deleter exactly once (collected, consumed, closed,
 * failed, or still pending at lua_close). */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/alloc.h"
#include "core/device.h"
#include "dlx.h"
#include "producer.h"

/* ---- a host producer whose deleters count their calls */

/* A 2x3 float32 tensor {{0, 1, 2}, {3, 4, 5}}, as versioned (1.3) and legacy structs. */
static void produce(producer *p, uint64_t flags) {
  producer_make(p, (DLDataType){kDLFloat, 32, 1}, 2, 3, 3, 1, flags);
}

/* ---- Lua states */

static lua_State *new_state(void) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "dlx.core", luaopen_dlx_core, 0);
  lua_setglobal(L, "core");
  return L;
}

/* Runs a chunk that must succeed (with the values on the stack as its ...). */
static void run(lua_State *L, const char *chunk, int nargs) {
  int base = lua_gettop(L) - nargs;
  if (luaL_loadstring(L, chunk) != LUA_OK) {
    CHECK(!"chunk does not compile");
    fprintf(stderr, "%s\n", lua_tostring(L, -1));
    lua_settop(L, base);
    return;
  }
  lua_insert(L, base + 1);
  if (lua_pcall(L, nargs, 0, 0) != LUA_OK) {
    fprintf(stderr, "chunk failed: %s\n", lua_tostring(L, -1));
    CHECK(!"chunk raised");
    lua_settop(L, base);
  }
}

static bool top_starts_with(lua_State *L, const char *prefix) {
  const char *s = lua_tostring(L, -1);
  return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- host -> Lua */

static void test_capi_table(void) {
  lua_State *L = luaL_newstate();
  CHECK(dlx_capi_get(L) == NULL);
  luaL_openlibs(L);
  luaL_requiref(L, "dlx.core", luaopen_dlx_core, 0);
  lua_pop(L, 1);
  const dlx_capi *api = dlx_capi_get(L);
  CHECK(api != NULL);
  if (api != NULL) {
    CHECK_EQ_INT(api->version, DLX_CAPI_VERSION);
    CHECK(api->push_capsule == dlx_push_capsule);
    CHECK(api->push_capsule_legacy == dlx_push_capsule_legacy);
    CHECK(api->to_dlpack == dlx_to_dlpack);
    CHECK(api->to_dlpack_legacy == dlx_to_dlpack_legacy);
  }
  lua_close(L);
}

static void test_push_and_import(void) {
  producer p;
  lua_State *L = new_state();
  produce(&p, 0);
  CHECK_EQ_INT(dlx_push_capsule(L, &p.mt), 0);
  run(L,
      "local cap = ...\n"
      "assert(core.is_capsule(cap) and cap.name == 'dltensor_versioned')\n"
      "local t = core.import_capsule(cap)\n"
      "assert(cap.name == 'used_dltensor_versioned')\n"
      "assert(t.dtype == 'float32' and t.shape[1] == 2 and t.shape[2] == 3)\n"
      "assert(t:totable()[2][3] == 5)\n"
      "local ok, err = pcall(core.import_capsule, cap)\n"
      "assert(not ok and err:find('ValueError: capsule already consumed', 1, true))\n"
      "t:close()\n",
      1);
  CHECK_EQ_INT(p.deleted, 1);
  lua_close(L);
  CHECK_EQ_INT(p.deleted, 1);
}

static void test_push_legacy_without_core(void) {
  producer p;
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  produce(&p, 0);
  /* dlx.core is not loaded yet: pushing loads it */
  CHECK_EQ_INT(dlx_push_capsule_legacy(L, &p.legacy), 0);
  lua_getfield(L, -1, "name");
  CHECK(top_starts_with(L, "dltensor"));
  lua_pop(L, 2);
  CHECK(dlx_capi_get(L) != NULL);
  lua_gc(L, LUA_GCCOLLECT);
  CHECK_EQ_INT(p.deleted, 1); /* an unconsumed capsule deletes when collected */
  lua_close(L);
  CHECK_EQ_INT(p.deleted, 1);
}

static void test_pending_at_close(void) {
  producer a, b, c;
  lua_State *L = new_state();
  produce(&a, 0);
  produce(&b, 0);
  produce(&c, DLPACK_FLAG_BITMASK_READ_ONLY);
  CHECK_EQ_INT(dlx_push_capsule(L, &a.mt), 0); /* left unconsumed on the stack */
  CHECK_EQ_INT(dlx_push_capsule_legacy(L, &b.legacy), 0);
  run(L, "held = core.import_capsule(...)", 1); /* imported and still alive */
  CHECK_EQ_INT(dlx_push_capsule(L, &c.mt), 0);
  run(L,
      "local t = core.import_capsule(...)\n"
      "assert(t.readonly and t:view{6}.readonly)\n"
      "assert(not pcall(t.fill_, t, 1))\n"
      "views = {t:transpose(1, 2), t:select(1, 2)}",
      1);
  CHECK_EQ_INT(a.deleted + b.deleted + c.deleted, 0);
  lua_close(L);
  CHECK_EQ_INT(a.deleted, 1);
  CHECK_EQ_INT(b.deleted, 1);
  CHECK_EQ_INT(c.deleted, 1);
}

static void test_push_null(void) {
  lua_State *L = new_state();
  int top = lua_gettop(L);
  CHECK_EQ_INT(dlx_push_capsule(L, NULL), DLX_VALUE_ERROR);
  CHECK_EQ_INT(lua_gettop(L), top + 1);
  CHECK(top_starts_with(L, "ValueError:"));
  CHECK_EQ_INT(dlx_push_capsule_legacy(L, NULL), DLX_VALUE_ERROR);
  lua_close(L);
}

/* ---- Lua -> host */

static void test_export_tensor(void) {
  DLManagedTensorVersioned *out = NULL;
  DLManagedTensor *legacy = NULL;
  lua_State *L = new_state();
  run(L, "t = core.arange(0, 6, 1, nil, core.device('cpu')):view{2, 3}:transpose(1, 2)", 0);
  lua_getglobal(L, "t");
  CHECK_EQ_INT(dlx_to_dlpack(L, -1, &out), 0);
  CHECK_EQ_INT(dlx_to_dlpack_legacy(L, -1, &legacy), 0);
  lua_pop(L, 1);
  CHECK(out != NULL && legacy != NULL);
  if (out == NULL || legacy == NULL) return;
  CHECK_EQ_INT(out->version.major, 1);
  CHECK_EQ_INT(out->dl_tensor.ndim, 2);
  CHECK_EQ_INT(out->dl_tensor.shape[0], 3);
  CHECK_EQ_INT(out->dl_tensor.strides[0], 1); /* the true strides of the transposed view */
  CHECK_EQ_INT(out->dl_tensor.strides[1], 3);
  CHECK_EQ_INT(out->dl_tensor.dtype.code, kDLInt);
  CHECK(out->dl_tensor.data == legacy->dl_tensor.data); /* zero-copy, both */
  run(L, "t:close(); t = nil; collectgarbage()", 0);
  lua_close(L);
  /* the exports outlive the Lua state */
  const int64_t *data = (const int64_t *)out->dl_tensor.data;
  CHECK_EQ_INT(data[out->dl_tensor.strides[0] * 2 + out->dl_tensor.strides[1] * 1], 5);
  out->deleter(out);
  legacy->deleter(legacy);
}

static void test_export_errors(void) {
  DLManagedTensorVersioned *out = (DLManagedTensorVersioned *)&out;
  DLManagedTensor *legacy = (DLManagedTensor *)&legacy;
  producer p;
  lua_State *L = new_state();
  int top = lua_gettop(L);
  lua_pushinteger(L, 42);
  CHECK_EQ_INT(dlx_to_dlpack(L, -1, &out), DLX_TYPE_ERROR);
  CHECK(out == NULL);
  CHECK(top_starts_with(L, "TypeError:"));
  CHECK_EQ_INT(lua_gettop(L), top + 2);
  lua_settop(L, top);
  /* a read-only tensor refuses a legacy export */
  produce(&p, DLPACK_FLAG_BITMASK_READ_ONLY);
  CHECK_EQ_INT(dlx_push_capsule(L, &p.mt), 0);
  run(L, "ro = core.import_capsule(...)", 1);
  lua_getglobal(L, "ro");
  CHECK_EQ_INT(dlx_to_dlpack_legacy(L, -1, &legacy), DLX_BUFFER_ERROR);
  CHECK(legacy == NULL);
  CHECK(top_starts_with(L, "BufferError:"));
  lua_settop(L, top);
  /* a closed tensor */
  run(L, "ro:close()", 0);
  CHECK_EQ_INT(p.deleted, 1);
  lua_getglobal(L, "ro");
  CHECK_EQ_INT(dlx_to_dlpack(L, -1, &out), DLX_VALUE_ERROR);
  CHECK(top_starts_with(L, "ValueError: tensor is closed"));
  lua_settop(L, top);
  run(L, "t = core.zeros(2, 'int8', core.device('cpu'))", 0);
  lua_getglobal(L, "t");
  CHECK_EQ_INT(dlx_to_dlpack(L, -1, NULL), DLX_VALUE_ERROR);
  CHECK(top_starts_with(L, "ValueError:"));
  CHECK_EQ_INT(dlx_to_dlpack_legacy(L, -2, NULL), DLX_VALUE_ERROR);
  lua_close(L);
}

static void test_export_capsules(void) {
  producer v, l, vl;
  DLManagedTensorVersioned *out = NULL;
  DLManagedTensor *legacy = NULL;
  lua_State *L = new_state();
  produce(&v, 0);
  produce(&l, 0);
  produce(&vl, 0);
  /* versioned -> versioned: the same struct, and the capsule is used */
  CHECK_EQ_INT(dlx_push_capsule(L, &v.mt), 0);
  CHECK_EQ_INT(dlx_to_dlpack(L, -1, &out), 0);
  CHECK(out == &v.mt);
  lua_getfield(L, -1, "name");
  CHECK(top_starts_with(L, "used_dltensor_versioned"));
  CHECK_EQ_INT(dlx_to_dlpack(L, -2, &out), DLX_VALUE_ERROR); /* consumed once */
  CHECK(top_starts_with(L, "ValueError: capsule already consumed"));
  lua_settop(L, 0);
  /* legacy -> versioned: wrapped */
  CHECK_EQ_INT(dlx_push_capsule_legacy(L, &l.legacy), 0);
  CHECK_EQ_INT(dlx_to_dlpack(L, -1, &out), 0);
  CHECK(out != NULL && out->dl_tensor.data == (void *)&l.data && out->dl_tensor.strides != NULL);
  lua_getfield(L, -1, "name");
  CHECK(top_starts_with(L, "used_dltensor") && !top_starts_with(L, "used_dltensor_versioned"));
  CHECK_EQ_INT(l.deleted, 0);
  if (out != NULL) out->deleter(out);
  CHECK_EQ_INT(l.deleted, 1);
  /* versioned -> legacy: imported, exported again */
  CHECK_EQ_INT(dlx_push_capsule(L, &vl.mt), 0);
  CHECK_EQ_INT(dlx_to_dlpack_legacy(L, -1, &legacy), 0);
  CHECK(legacy != NULL && legacy->dl_tensor.data == (void *)&vl.data);
  lua_settop(L, 0);
  lua_gc(L, LUA_GCCOLLECT);
  CHECK_EQ_INT(vl.deleted, 0); /* the legacy export still holds the memory */
  if (legacy != NULL) legacy->deleter(legacy);
  CHECK_EQ_INT(vl.deleted, 1);
  lua_close(L);
  CHECK_EQ_INT(v.deleted, 0); /* the host owns it */
  v.mt.deleter(&v.mt);
  CHECK_EQ_INT(v.deleted, 1);
  CHECK_EQ_INT(l.deleted, 1);
  CHECK_EQ_INT(vl.deleted, 1);
}

/* A value with a __dlpack method goes through require("dlx").from_dlpack. */
static void test_export_dlpack_object(void) {
  DLManagedTensorVersioned *out = NULL;
  lua_State *L = new_state();
  dlx_openlibs(L);
  run(L,
      "local dlx = require 'dlx'\n"
      "local t = dlx.arange(4)\n"
      "obj = {__dlpack = function(self, kw) return t:__dlpack(kw) end,\n"
      "       __dlpack_device = function(self) return t:__dlpack_device() end}",
      0);
  lua_getglobal(L, "obj");
  CHECK_EQ_INT(dlx_to_dlpack(L, -1, &out), 0);
  lua_close(L);
  CHECK(out != NULL && out->dl_tensor.shape[0] == 4);
  if (out != NULL) out->deleter(out);
}

/* ---- error classes */

/* The class that dlx_error_class gives the error of running chunk (named chunkname); checks
 * that it pushes nothing. */
static int class_of_chunk(lua_State *L, const char *chunk, const char *chunkname) {
  int code, top;
  if (luaL_loadbuffer(L, chunk, strlen(chunk), chunkname) != LUA_OK ||
      lua_pcall(L, 0, 0, 0) == LUA_OK) {
    CHECK(!"the chunk must compile and raise");
    lua_settop(L, 0);
    return -1;
  }
  top = lua_gettop(L);
  code = dlx_error_class(L, -1);
  CHECK_EQ_INT(lua_gettop(L), top);
  lua_pop(L, 1);
  return code;
}

static void test_error_class_of_dlx_errors(void) {
  lua_State *L = new_state();
  CHECK_EQ_INT(class_of_chunk(L, "core.zeros({-1}, 'float32', core.device('cpu'))", "=s"),
               DLX_VALUE_ERROR);
  CHECK_EQ_INT(class_of_chunk(L, "core.zeros(2, 'float', core.device('cpu'))", "=s"),
               DLX_TYPE_ERROR);
  CHECK_EQ_INT(class_of_chunk(L, "core.device('cuda:4096')", "=s"), DLX_DEVICE_ERROR);
  CHECK_EQ_INT(class_of_chunk(L, "core.empty({1 << 52}, 'uint8', core.device('cpu'))", "=s"),
               DLX_MEMORY_ERROR);
  /* raised again, with one more position prefix each time */
  CHECK_EQ_INT(class_of_chunk(L,
                              "local ok, e = pcall(core.device, false)\n"
                              "local ok2, e2 = pcall(error, e)\n"
                              "error(e2)",
                              "=s"),
               DLX_TYPE_ERROR);
  /* A chunk named like a class: the text starts "BufferError: ...", but dlx raised a
   * ValueError, and the class travels as data. */
  CHECK_EQ_INT(
      class_of_chunk(L, "core.zeros({-1}, 'float32', core.device('cpu'))", "=BufferError: a chunk"),
      DLX_VALUE_ERROR);
  lua_close(L);
}

static void test_error_class_of_other_values(void) {
  lua_State *L = new_state();
  /* a script's own errors: classed only when the class starts the message */
  CHECK_EQ_INT(class_of_chunk(L, "error('TypeError: from a script', 0)", "=s"), DLX_TYPE_ERROR);
  CHECK_EQ_INT(class_of_chunk(L, "error('DeviceError: from a script')", "=s"), DLX_DEVICE_ERROR);
  CHECK_EQ_INT(class_of_chunk(L, "error('oops')", "=s"), DLX_OK);
  CHECK_EQ_INT(class_of_chunk(L, "error('while loading: TypeError: no')", "=s"), DLX_OK);
  CHECK_EQ_INT(class_of_chunk(L, "error('the TypeError: no', 0)", "=s"), DLX_OK);
  CHECK_EQ_INT(class_of_chunk(L, "error('oops\\nValueError: on line two')", "=s"), DLX_OK);
  CHECK_EQ_INT(class_of_chunk(L, "error('TypeErrors: no', 0)", "=s"), DLX_OK);
  CHECK_EQ_INT(class_of_chunk(L, "error('ValueError:no space', 0)", "=s"), DLX_OK);
  CHECK_EQ_INT(class_of_chunk(L, "error('LuaError: not a dlx class', 0)", "=s"), DLX_OK);
  /* a chunk name with colons of its own */
  CHECK_EQ_INT(class_of_chunk(L, "error('BufferError: x')", "=a:1: b"), DLX_BUFFER_ERROR);
  /* values that are not strings */
  CHECK_EQ_INT(class_of_chunk(L, "error({'TypeError: in a table'})", "=s"), DLX_OK);
  CHECK_EQ_INT(class_of_chunk(L, "error(42)", "=s"), DLX_OK);
  CHECK_EQ_INT(class_of_chunk(L, "error()", "=s"), DLX_OK);
  CHECK_EQ_INT(class_of_chunk(L, "error(core.zeros(1, 'int8', core.device('cpu')))", "=s"), DLX_OK);
  lua_pushboolean(L, 1);
  CHECK_EQ_INT(dlx_error_class(L, -1), DLX_OK);
  CHECK_EQ_INT(dlx_error_class(L, 5), DLX_OK); /* an index above the top */
  lua_close(L);
}

/* A value whose __dlpack raises: the host gets the class of what it raised. */
static int export_raising(lua_State *L, const char *raise, const char *chunkname) {
  DLManagedTensorVersioned *out = NULL;
  char chunk[256];
  int code, top = lua_gettop(L);
  snprintf(chunk, sizeof chunk,
           "return {__dlpack = function() %s end, __dlpack_device = function() return 1, 0 end}",
           raise);
  if (luaL_loadbuffer(L, chunk, strlen(chunk), chunkname) != LUA_OK ||
      lua_pcall(L, 0, 1, 0) != LUA_OK) {
    CHECK(!"the producer chunk must run");
    lua_settop(L, top);
    return -1;
  }
  code = dlx_to_dlpack(L, -1, &out);
  CHECK(out == NULL);
  CHECK_EQ_INT(lua_gettop(L), top + 2); /* the value and the message */
  lua_settop(L, top);
  return code;
}

static void test_export_error_classes(void) {
  lua_State *L = new_state();
  const dlx_capi *api = dlx_capi_get(L);
  int top = lua_gettop(L);
  DLManagedTensor *legacy = NULL;
  dlx_openlibs(L);
  CHECK_EQ_INT(export_raising(L, "error('oops')", "=s"), DLX_LUA_ERROR);
  CHECK_EQ_INT(export_raising(L, "error({})", "=s"), DLX_LUA_ERROR);
  CHECK_EQ_INT(export_raising(L, "error('while exporting: BufferError: no')", "=s"), DLX_LUA_ERROR);
  CHECK_EQ_INT(export_raising(L, "error('BufferError: from the script')", "=s"), DLX_BUFFER_ERROR);
  CHECK_EQ_INT(export_raising(L, "return require('dlx').device('cuda:4096')", "=s"),
               DLX_DEVICE_ERROR);
  CHECK_EQ_INT(export_raising(L, "return 42", "=s"), DLX_TYPE_ERROR); /* not a capsule */
  /* raised in C with a misleading position: the class is the one dlx raised */
  CHECK_EQ_INT(
      export_raising(L, "local t = require('dlx').zeros{-1}; return t", "=TypeError: a chunk"),
      DLX_VALUE_ERROR);
  /* the table of C modules gives the same */
  lua_pushboolean(L, 1);
  CHECK(api != NULL && api->to_dlpack_legacy(L, -1, &legacy) == DLX_TYPE_ERROR);
  lua_settop(L, top);
  lua_close(L);
}

/* A Lua stack that cannot grow: a memory error, and no message. */
static void test_full_stack(void) {
  producer p;
  DLManagedTensorVersioned *out = NULL;
  lua_State *L = new_state();
  int top;
  run(L, "t = core.zeros(2, 'int8', core.device('cpu'))", 0);
  lua_getglobal(L, "t");
  while (lua_checkstack(L, 1)) lua_pushnil(L);
  top = lua_gettop(L);
  CHECK_EQ_INT(dlx_to_dlpack(L, 1, &out), DLX_MEMORY_ERROR);
  CHECK(out == NULL);
  produce(&p, 0);
  CHECK_EQ_INT(dlx_push_capsule(L, &p.mt), DLX_MEMORY_ERROR);
  CHECK_EQ_INT(p.deleted, 1);
  CHECK_EQ_INT(lua_gettop(L), top);
  lua_settop(L, 1);
  CHECK_EQ_INT(dlx_to_dlpack(L, 1, &out), DLX_OK);
  lua_close(L);
  if (out != NULL) out->deleter(out);
}

/* ---- failures: allocation failures inside dlx and inside Lua */

static int fail_countdown;
static int countdown_hook(void *ctx) {
  (void)ctx;
  return fail_countdown-- == 0;
}

static void test_allocation_failures(void) {
  for (int n = 0; n < 4; n++) {
    producer p;
    DLManagedTensorVersioned *out = NULL;
    lua_State *L = new_state();
    int rc;
    produce(&p, 0);
    CHECK_EQ_INT(dlx_push_capsule(L, &p.mt), 0);
    lua_setglobal(L, "cap");
    run(L, "t = core.arange(0, 6, 1, nil, core.device('cpu'))", 0);
    /* the n-th dlx allocation fails: importing the capsule and exporting a tensor */
    fail_countdown = n;
    dlx_set_alloc_fail_hook(countdown_hook, NULL);
    lua_getglobal(L, "core");
    lua_getfield(L, -1, "import_capsule");
    lua_getglobal(L, "cap");
    rc = lua_pcall(L, 1, 1, 0);
    CHECK(rc == LUA_OK || top_starts_with(L, "MemoryError:"));
    lua_getglobal(L, "t");
    rc = dlx_to_dlpack(L, -1, &out);
    CHECK(rc == DLX_OK || (rc == DLX_MEMORY_ERROR && top_starts_with(L, "MemoryError:")));
    dlx_set_alloc_fail_hook(NULL, NULL);
    if (out != NULL) out->deleter(out);
    lua_close(L);
    CHECK_EQ_INT(p.deleted, 1);
  }
}

/* A Lua allocator that fails once armed, to make the capsule userdata itself fail. */
static bool lua_alloc_fails;
static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (lua_alloc_fails && nsize > osize) return NULL;
  return realloc(ptr, nsize);
}

static void test_lua_out_of_memory(void) {
  producer p;
  DLManagedTensorVersioned *out = NULL;
  lua_State *L = lua_newstate(failing_alloc, NULL);
  luaL_openlibs(L);
  luaL_requiref(L, "dlx.core", luaopen_dlx_core, 0);
  lua_setglobal(L, "core");
  run(L, "t = core.zeros({2, 2}, 'float32', core.device('cpu'))", 0);
  lua_getglobal(L, "t");
  produce(&p, 0);
  lua_gc(L, LUA_GCSTOP);
  lua_alloc_fails = true;
  CHECK_EQ_INT(dlx_push_capsule(L, &p.mt), DLX_MEMORY_ERROR); /* never raises; deleted */
  CHECK_EQ_INT(p.deleted, 1);
  lua_settop(L, 1);
  lua_alloc_fails = false;
  CHECK_EQ_INT(dlx_to_dlpack(L, -1, &out), 0);
  lua_close(L);
  if (out != NULL) out->deleter(out);
  CHECK_EQ_INT(p.deleted, 1);
}

/* The Level Zero call answers in every build: DeviceError for NULL handles, and for any handles
 * when dlx was built without Level Zero. (tests/ze_driver covers sharing a real context.) */
static void test_share_level_zero_context(void) {
  int driver, context; /* stand-ins, never dereferenced */
  CHECK_EQ_INT(dlx_share_level_zero_context(NULL, NULL), DLX_DEVICE_ERROR);
  if (dlx_backend_for(kDLOneAPI) == NULL)
    CHECK_EQ_INT(dlx_share_level_zero_context(&driver, &context), DLX_DEVICE_ERROR);
}

int main(void) {
  test_share_level_zero_context();
  test_capi_table();
  test_push_and_import();
  test_push_legacy_without_core();
  test_pending_at_close();
  test_push_null();
  test_export_tensor();
  test_export_errors();
  test_export_capsules();
  test_export_dlpack_object();
  test_error_class_of_dlx_errors();
  test_error_class_of_other_values();
  test_export_error_classes();
  test_full_stack();
  test_allocation_failures();
  test_lua_out_of_memory();
  return check_report("test_binding_capi");
}
