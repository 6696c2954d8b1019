/* test_host_api.c -- the host API with less boilerplate: dlx_push_tensor (deleter exactly once,
 * whoever lets go last), dlx_to_dlpack_ex (each option), dlx_tensor_view (no allocation, the
 * true layout), the exchange table, and the dlx_capi tables of versions 1 and 2. */
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
#include "producer.h"

static bool top_has(lua_State *L, const char *text) {
  const char *s = lua_tostring(L, -1);
  return s != NULL && strstr(s, text) != NULL;
}

static void run_ok(lua_State *L, const char *chunk, int nargs) {
  CHECK(host_run(L, chunk, nargs, 0));
}

/* ---- dlx_push_tensor */

typedef struct given {
  double data[6];
  int deleted;
} given;

static void count_delete(void *ctx) { ((given *)ctx)->deleted++; }

static void give_make(given *g) {
  for (int i = 0; i < 6; i++) g->data[i] = i;
  g->deleted = 0;
}

static const DLDataType F64 = {kDLFloat, 64, 1};
static const DLDevice CPU = {kDLCPU, 0};

static void test_push_tensor_collected(void) {
  given g;
  int64_t shape[2] = {2, 3}, strides[2] = {1, 2}; /* column-major */
  lua_State *L = host_new_state(NULL);
  give_make(&g);
  CHECK_EQ_INT(dlx_push_tensor(L, g.data, F64, CPU, 2, shape, strides, 0, count_delete, &g),
               DLX_OK);
  run_ok(L,
         "local t = ...\n"
         "assert(dlx.is_tensor(t) and t.dtype == 'float64' and not t.readonly)\n"
         "assert(t.strides[1] == 1 and t.strides[2] == 2)\n"
         "assert(t:select(1, 2):select(1, 3):item() == 5)\n"
         "assert(t:sum():item() == 15)\n"
         "t:select(2, 1):fill_(9)\n"
         "v = t:transpose(1, 2)\n",
         1);
  CHECK(g.data[0] == 9 && g.data[1] == 9 && g.data[2] == 2);
  lua_gc(L, LUA_GCCOLLECT);
  CHECK_EQ_INT(g.deleted, 0); /* the view keeps it */
  run_ok(L, "v = nil; collectgarbage()", 0);
  CHECK_EQ_INT(g.deleted, 1);
  lua_close(L);
  CHECK_EQ_INT(g.deleted, 1);
}

static void test_push_tensor_export_outlives(void) {
  given g;
  int64_t shape[1] = {6};
  DLManagedTensorVersioned *out = NULL;
  lua_State *L = host_new_state(NULL);
  give_make(&g);
  CHECK_EQ_INT(dlx_push_tensor(L, g.data, F64, CPU, 1, shape, NULL, DLPACK_FLAG_BITMASK_READ_ONLY,
                               count_delete, &g),
               DLX_OK);
  CHECK_EQ_INT(dlx_to_dlpack(L, -1, &out), DLX_OK);
  CHECK(out != NULL && out->dl_tensor.data == (void *)g.data); /* zero-copy */
  CHECK(out != NULL && (out->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0);
  run_ok(L, "local t = ...; assert(t.readonly and not pcall(t.fill_, t, 0))", 1);
  lua_close(L);
  CHECK_EQ_INT(g.deleted, 0); /* the export still holds it */
  if (out != NULL) out->deleter(out);
  CHECK_EQ_INT(g.deleted, 1);
}

static void test_push_tensor_failures(void) {
  given g;
  int64_t shape[2] = {2, 3}, bad[2] = {2, -3};
  lua_State *L = host_new_state(NULL);
  int top = lua_gettop(L);
  give_make(&g);
  CHECK_EQ_INT(dlx_push_tensor(L, g.data, F64, CPU, 2, bad, NULL, 0, count_delete, &g),
               DLX_BUFFER_ERROR);
  CHECK(top_has(L, "BufferError: negative size"));
  CHECK_EQ_INT(g.deleted, 1); /* ownership passed, even on failure */
  CHECK_EQ_INT(dlx_push_tensor(L, g.data, (DLDataType){kDLFloat, 7, 1}, CPU, 2, shape, NULL, 0,
                               count_delete, &g),
               DLX_BUFFER_ERROR);
  CHECK_EQ_INT(g.deleted, 2);
  CHECK_EQ_INT(dlx_push_tensor(L, g.data, F64, CPU, 2, shape, NULL, 0, NULL, NULL), DLX_OK);
  CHECK_EQ_INT(lua_gettop(L), top + 3);
  lua_close(L);
  CHECK_EQ_INT(g.deleted, 2);
}

/* Every allocation of a push fails in turn: the deleter runs exactly once whatever happens. */

static void test_push_tensor_allocation_failures(void) {
  int64_t shape[1] = {6};
  long n = 0;
  for (;; n++) {
    given g;
    lua_State *L = host_new_state(fail_lua_alloc);
    int rc;
    give_make(&g);
    alloc_count = 0;
    alloc_fail_at = n;
    dlx_set_alloc_fail_hook(fail_dlx_hook, NULL);
    rc = dlx_push_tensor(L, g.data, F64, CPU, 1, shape, NULL, 0, count_delete, &g);
    dlx_set_alloc_fail_hook(NULL, NULL);
    alloc_fail_at = -1;
    CHECK(rc == DLX_OK || rc == DLX_MEMORY_ERROR);
    CHECK_EQ_INT(g.deleted, rc == DLX_OK ? 0 : 1);
    lua_close(L);
    CHECK_EQ_INT(g.deleted, 1);
    if (alloc_count <= n) break;
  }
  CHECK(n > 1);
}

/* ---- dlx_to_dlpack_ex */

static void test_to_dlpack_ex(void) {
  DLManagedTensorVersioned *out = NULL;
  lua_State *L = host_new_state(NULL);
  int top;
  const void *data;
  run_ok(L, "t = dlx.arange(6, {dtype = 'float32'}):view{2, 3}", 0);
  lua_getglobal(L, "t");
  top = lua_gettop(L);
  /* NULL and zeroed options: the defaults, zero-copy */
  CHECK_EQ_INT(dlx_to_dlpack_ex(L, -1, NULL, &out), DLX_OK);
  CHECK(out != NULL && out->flags == 0 && out->version.minor == 3);
  data = out != NULL ? out->dl_tensor.data : NULL;
  if (out != NULL) out->deleter(out);
  {
    dlx_export_opts o = {.max_version = {2, 0}, .dl_device = {kDLCPU, 0}};
    CHECK_EQ_INT(dlx_to_dlpack_ex(L, -1, &o, &out), DLX_OK);
    CHECK(out != NULL && out->dl_tensor.data == data && out->version.major == 1);
    if (out != NULL) out->deleter(out);
  }
  {
    dlx_export_opts o = {.copy = DLX_EXPORT_COPY_ALWAYS};
    CHECK_EQ_INT(dlx_to_dlpack_ex(L, -1, &o, &out), DLX_OK);
    CHECK(out != NULL && out->dl_tensor.data != data);
    CHECK(out != NULL && out->flags == DLPACK_FLAG_BITMASK_IS_COPIED);
    CHECK(out != NULL && ((const float *)out->dl_tensor.data)[4] == 4.0f);
    if (out != NULL) out->deleter(out);
  }
  {
    dlx_export_opts o = {.max_version = {0, 8}};
    CHECK_EQ_INT(dlx_to_dlpack_ex(L, -1, &o, &out), DLX_VALUE_ERROR);
    CHECK(out == NULL && top_has(L, "dlx_to_dlpack_legacy"));
    lua_settop(L, top);
  }
  {
    dlx_export_opts o = {.has_stream = 1, .stream = 1};
    CHECK_EQ_INT(dlx_to_dlpack_ex(L, -1, &o, &out), DLX_VALUE_ERROR);
    CHECK(top_has(L, "ValueError: stream must be nil"));
    lua_settop(L, top);
  }
  {
    dlx_export_opts o = {.copy = 7};
    CHECK_EQ_INT(dlx_to_dlpack_ex(L, -1, &o, &out), DLX_VALUE_ERROR);
    lua_settop(L, top);
  }
  {
    dlx_export_opts o = {.dl_device = {kDLVulkan, 0}};
    CHECK_EQ_INT(dlx_to_dlpack_ex(L, -1, &o, &out), DLX_BUFFER_ERROR);
    CHECK(top_has(L, "BufferError: cannot export to dl_device"));
    lua_settop(L, top);
  }
  {
    dlx_export_opts o = {.copy = DLX_EXPORT_COPY_NEVER, .dl_device = {kDLCPU, 0}};
    CHECK_EQ_INT(dlx_to_dlpack_ex(L, -1, &o, &out), DLX_OK);
    CHECK(out != NULL && out->dl_tensor.data == data);
    if (out != NULL) out->deleter(out);
  }
  CHECK_EQ_INT(lua_gettop(L), top);
  lua_close(L);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
}

/* A capsule goes to the host as it is under the defaults, through an import and a copy when
 * the options ask for one; the producer's deleter runs once either way. */
static void test_to_dlpack_ex_capsules(void) {
  producer a, b;
  DLManagedTensorVersioned *out = NULL;
  dlx_export_opts copy = {.copy = DLX_EXPORT_COPY_ALWAYS};
  lua_State *L = host_new_state(NULL);
  producer_make(&a, (DLDataType){kDLFloat, 32, 1}, 2, 3, 3, 1, 0);
  producer_make(&b, (DLDataType){kDLFloat, 32, 1}, 2, 3, 3, 1, 0);
  CHECK_EQ_INT(dlx_push_capsule(L, &a.mt), DLX_OK);
  CHECK_EQ_INT(dlx_to_dlpack_ex(L, -1, NULL, &out), DLX_OK);
  CHECK(out == &a.mt);
  if (out != NULL) out->deleter(out);
  CHECK_EQ_INT(a.deleted, 1);
  CHECK_EQ_INT(dlx_push_capsule(L, &b.mt), DLX_OK);
  CHECK_EQ_INT(dlx_to_dlpack_ex(L, -1, &copy, &out), DLX_OK);
  CHECK(out != NULL && out != &b.mt && (out->flags & DLPACK_FLAG_BITMASK_IS_COPIED) != 0);
  lua_pop(L, 2);
  lua_gc(L, LUA_GCCOLLECT);
  CHECK_EQ_INT(b.deleted, 1); /* the import let go of it once copied */
  CHECK(out != NULL && ((const float *)out->dl_tensor.data)[5] == 5.0f);
  if (out != NULL) out->deleter(out);
  lua_close(L);
  CHECK_EQ_INT(a.deleted + b.deleted, 2);
}

/* ---- dlx_tensor_view */

static long lua_allocations;
static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (ptr == NULL || nsize > osize) lua_allocations++;
  return realloc(ptr, nsize);
}
static long dlx_allocations;
static int counting_hook(void *ctx) {
  (void)ctx;
  dlx_allocations++;
  return 0;
}

static void test_tensor_view(void) {
  DLTensor v;
  lua_State *L = host_new_state(counting_alloc);
  int top;
  run_ok(L,
         "t = dlx.arange(24, {dtype = 'int16'}):view{2, 3, 4}:transpose(1, 3):slice(2, 2, 3)\n"
         "s = dlx.tensor(5.5, {dtype = 'float64'})\n"
         "f4 = dlx.empty(8, {dtype = 'float4_e2m1fn'}):slice(1, 2, 8)\n"
         "c = dlx.zeros{2}; c:close()\n",
         0);
  lua_getglobal(L, "t");
  top = lua_gettop(L);
  lua_allocations = dlx_allocations = 0;
  dlx_set_alloc_fail_hook(counting_hook, NULL);
  CHECK_EQ_INT(dlx_tensor_view(L, -1, &v), DLX_OK);
  dlx_set_alloc_fail_hook(NULL, NULL);
  CHECK_EQ_INT(lua_allocations + dlx_allocations, 0);
  CHECK_EQ_INT(lua_gettop(L), top);
  CHECK_EQ_INT(v.ndim, 3);
  CHECK(v.dtype.code == kDLInt && v.dtype.bits == 16 && v.device.device_type == kDLCPU);
  CHECK(v.shape[0] == 4 && v.shape[1] == 2 && v.shape[2] == 2);
  CHECK(v.strides[0] == 1 && v.strides[1] == 4 && v.strides[2] == 12);
  CHECK_EQ_INT(v.byte_offset, 4 * 2);
  /* element (3, 1, 1) (0-based) is at 3 * 1 + 1 * 4 + 1 * 12 after the first, which is 4 */
  CHECK_EQ_INT(((const int16_t *)((const char *)v.data + v.byte_offset))[3 + 4 + 12], 23);
  lua_getglobal(L, "s");
  CHECK_EQ_INT(dlx_tensor_view(L, -1, &v), DLX_OK);
  CHECK(v.ndim == 0 && v.shape == NULL && v.strides == NULL);
  CHECK(*(const double *)v.data == 5.5);
  lua_getglobal(L, "f4");
  CHECK_EQ_INT(dlx_tensor_view(L, -1, &v), DLX_BUFFER_ERROR);
  CHECK(top_has(L, "BufferError: the view starts inside a byte"));
  lua_getglobal(L, "c");
  CHECK_EQ_INT(dlx_tensor_view(L, -1, &v), DLX_VALUE_ERROR);
  CHECK(top_has(L, "ValueError: tensor is closed"));
  CHECK_EQ_INT(dlx_error_class(L, -1), DLX_VALUE_ERROR);
  lua_pushinteger(L, 3);
  CHECK_EQ_INT(dlx_tensor_view(L, -1, &v), DLX_TYPE_ERROR);
  CHECK(top_has(L, "TypeError: expected a tensor, got number"));
  CHECK_EQ_INT(dlx_tensor_view(L, top, NULL), DLX_VALUE_ERROR);
  lua_close(L);
}

/* ---- the exchange table */

static int errors_set;
static char last_kind[32];
static void set_error(void *ctx, const char *kind, const char *message) {
  (void)message;
  *(int *)ctx += 1;
  snprintf(last_kind, sizeof last_kind, "%s", kind);
}

static void test_exchange_table(void) {
  const dlx_exchange_api *api = dlx_get_exchange_api();
  lua_State *L = host_new_state(NULL);
  DLManagedTensorVersioned *mt = NULL;
  int64_t shape[2] = {3, 2};
  DLTensor proto = {NULL, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor v;
  void *stream = (void *)&stream;
  int top = lua_gettop(L);
  CHECK(api != NULL);
  if (api == NULL) return;
  /* where C modules and hosts find it */
  lua_getfield(L, LUA_REGISTRYINDEX, DLX_EXCHANGE_API_KEY);
  CHECK(lua_touserdata(L, -1) == (void *)api);
  run_ok(L, "return dlx.zeros(1)", 0);
  lua_settop(L, top);
  CHECK(host_run(L, "return dlx.zeros(1)", 0, 1));
  CHECK(luaL_getmetafield(L, -1, "__dlpack_c_exchange_api") == LUA_TLIGHTUSERDATA);
  CHECK(lua_touserdata(L, -1) == (void *)api);
  CHECK(dlx_capi_get(L) != NULL && dlx_capi_get(L)->exchange_api == api);
  lua_settop(L, top);
  CHECK_EQ_INT(api->header.version.major, 1);
  CHECK_EQ_INT(api->header.version.minor, 3);
  CHECK(api->header.prev_api == NULL);
  CHECK(api->managed_tensor_allocator != NULL && api->managed_tensor_from_value != NULL &&
        api->managed_tensor_to_value != NULL && api->dltensor_from_value != NULL &&
        api->current_work_stream != NULL);
  /* the allocator, then the tensor into Lua (stolen) and back out, with no stream sync */
  CHECK_EQ_INT(api->managed_tensor_allocator(&proto, &mt, &errors_set, set_error), 0);
  CHECK(mt != NULL && mt->dl_tensor.ndim == 2 && mt->dl_tensor.shape[0] == 3);
  if (mt != NULL) memset(mt->dl_tensor.data, 0, 6 * sizeof(float));
  CHECK_EQ_INT(api->managed_tensor_to_value(L, mt), DLX_OK);
  run_ok(L, "local t = ...; assert(dlx.is_tensor(t)); t:fill_(2); back = t", 1);
  lua_getglobal(L, "back");
  CHECK_EQ_INT(api->dltensor_from_value(L, -1, &v), DLX_OK);
  CHECK(((const float *)v.data)[5] == 2.0f);
  CHECK_EQ_INT(api->managed_tensor_from_value(L, -1, &mt), DLX_OK);
  CHECK(mt != NULL && mt->dl_tensor.data == v.data);
  if (mt != NULL) mt->deleter(mt);
  lua_settop(L, top);
  /* failures */
  proto.dtype.bits = 3;
  CHECK_EQ_INT(api->managed_tensor_allocator(&proto, &mt, &errors_set, set_error), -1);
  CHECK(mt == NULL && errors_set == 1 && strcmp(last_kind, "TypeError") == 0);
  proto.dtype.bits = 32;
  proto.device.device_type = kDLVulkan;
  CHECK_EQ_INT(api->managed_tensor_allocator(&proto, &mt, NULL, NULL), -1);
  {
    producer p;
    producer_make(&p, (DLDataType){kDLFloat, 32, 1}, 2, 3, 3, 1, 0);
    p.mt.version.major = 9;
    CHECK_EQ_INT(api->managed_tensor_to_value(L, &p.mt), DLX_BUFFER_ERROR);
    CHECK_EQ_INT(p.deleted, 1);
    CHECK_EQ_INT(api->managed_tensor_to_value(L, NULL), DLX_VALUE_ERROR);
    lua_settop(L, top);
  }
  CHECK_EQ_INT(api->current_work_stream(kDLCPU, 0, &stream), 0);
  CHECK(stream == NULL);
  CHECK_EQ_INT(api->current_work_stream(kDLVulkan, 0, &stream), -1);
  lua_close(L);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), 0);
}

/* ---- the dlx_capi tables */

/* dlx_capi_get as dlx.h of version 1 wrote it, inlined into modules built against it. */
static const dlx_capi *capi_get_v1(lua_State *L) {
  const dlx_capi *api;
  lua_getfield(L, LUA_REGISTRYINDEX, "dlx.capi");
  api = (const dlx_capi *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  return api != NULL && api->version == 1 ? api : NULL;
}

static void test_capi_versions(void) {
  producer p;
  DLManagedTensorVersioned *out = NULL;
  lua_State *L = host_new_state(NULL);
  const dlx_capi *v1 = capi_get_v1(L), *v2 = dlx_capi_get(L);
  CHECK(v1 != NULL && v2 != NULL);
  if (v1 == NULL || v2 == NULL) return;
  CHECK_EQ_INT(v2->version, 2);
  CHECK(v2->push_borrowed == dlx_push_borrowed && v2->unborrow == dlx_unborrow &&
        v2->push_tensor == dlx_push_tensor && v2->to_dlpack_ex == dlx_to_dlpack_ex &&
        v2->tensor_view == dlx_tensor_view && v2->error_class == dlx_error_class &&
        v2->exchange_api == dlx_get_exchange_api());
  /* a version-1 module works as before */
  producer_make(&p, (DLDataType){kDLFloat, 32, 1}, 2, 3, 3, 1, 0);
  CHECK_EQ_INT(v1->push_capsule(L, &p.mt), DLX_OK);
  run_ok(L, "v1 = dlx.from_dlpack(...):clone()", 1);
  lua_getglobal(L, "v1");
  CHECK_EQ_INT(v1->to_dlpack(L, -1, &out), DLX_OK);
  CHECK(out != NULL && ((const float *)out->dl_tensor.data)[5] == 5.0f);
  if (out != NULL) out->deleter(out);
  lua_close(L);
  CHECK_EQ_INT(p.deleted, 1);
}

int main(void) {
  test_push_tensor_collected();
  test_push_tensor_export_outlives();
  test_push_tensor_failures();
  test_push_tensor_allocation_failures();
  test_to_dlpack_ex();
  test_to_dlpack_ex_capsules();
  test_tensor_view();
  test_exchange_table();
  test_capi_versions();
  return check_report("test_host_api");
}
