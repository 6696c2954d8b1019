/* memory.c -- dlx.core.memory_allocated, memory_cached and empty_cache, for every backend, and
 * what the binding does before it reports a MemoryError: collect, empty the caches, retry. */
#include "lua/memory.h"

#include "lua/device.h"
#include "lua/errors.h"
#include "lua/tables.h"
#include "lua/tensor.h"

/* memory_allocated([device]) -> bytes dlx's allocator holds on that device now. */
static int core_memory_allocated(lua_State *L) {
  DLDevice device = dlxl_parsedevice(L, 1);
  const dlx_backend *backend = dlx_backend_for(device.device_type);
  size_t bytes = 0; /* a device that is not there holds nothing */
  if (dlx_device_check(device, NULL) == 0 && backend->memory_allocated != NULL)
    bytes = backend->memory_allocated(device.device_id);
  lua_pushinteger(L, (lua_Integer)bytes);
  return 1;
}

/* memory_cached([device]) -> bytes the caching allocator of the device's backend holds there,
 * ready for reuse; 0 for backends without a cache and devices that are not there. */
static int core_memory_cached(lua_State *L) {
  DLDevice device = dlxl_parsedevice(L, 1);
  const dlx_backend *backend = dlx_backend_for(device.device_type);
  size_t bytes = 0;
  if (dlx_device_check(device, NULL) == 0 && backend->memory_cached != NULL)
    bytes = backend->memory_cached(device.device_id);
  lua_pushinteger(L, (lua_Integer)bytes);
  return 1;
}

/* Empties the cache of every backend that has one; the first failure is reported in err. */
static int empty_every_cache(dlx_error *err) {
  int count, rc = 0;
  const dlx_backend *const *backends = dlx_backends(&count);
  for (int i = 0; i < count; i++) {
    if (backends[i]->empty_cache == NULL) continue;
    int status = backends[i]->empty_cache(err);
    if (rc == 0) rc = status;
  }
  return rc;
}

/* empty_cache([device]): gives the cached blocks of every device of that device's backend
 * back (nothing for backends without a cache, or not built); with no device, of every
 * backend. */
static int core_empty_cache(lua_State *L) {
  const dlx_backend *backend;
  dlx_error err;
  if (lua_isnoneornil(L, 1)) {
    dlxl_check(L, empty_every_cache(&err), &err);
    return 0;
  }
  backend = dlx_backend_for(dlxl_parsedevice(L, 1).device_type);
  if (backend != NULL && backend->empty_cache != NULL)
    dlxl_check(L, backend->empty_cache(&err), &err);
  return 0;
}

/* The collection runs in the binding, between core calls, never inside one: finalizers run Lua
 * code, which could close a tensor a core call is reading. */
bool dlxl_reclaim(lua_State *L, int rc, bool *retried, const dlxl_tensor *src) {
  dlx_error ignored;
  if (rc != DLX_MEMORY_ERROR || *retried) return false;
  *retried = true;
  lua_gc(L, LUA_GCCOLLECT); /* closes the tensors nothing references: their blocks are cached */
  (void)empty_every_cache(&ignored); /* ... and go back to the OS and drivers */
  if (src != NULL && src->buffer == NULL) dlxl_error(L, DLX_VALUE_ERROR, "tensor is closed");
  return true;
}

const luaL_Reg dlxl_memory_funcs[] = {
    {"memory_allocated", core_memory_allocated},
    {"memory_cached", core_memory_cached},
    {"empty_cache", core_empty_cache},
    {NULL, NULL},
};
