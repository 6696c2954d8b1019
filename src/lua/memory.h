/* memory.h -- what the binding does before it reports a MemoryError: collect, empty the caches,
 * retry (memory.c). */
#ifndef DLX_LUA_MEMORY_H
#define DLX_LUA_MEMORY_H

#include "lua/tensor.h"

/* After a core call that allocates returned rc: true when the call should run once more. That
 * is after a MemoryError, when not yet *retried: then a full collection has closed the
 * tensors nothing references and every backend's cache was emptied. src, the call's tensor
 * argument (or NULL), is checked again, since a finalizer may have closed it (ValueError).
 *   do rc = dlx_reduce(&made, ..., &err); while (dlxl_reclaim(L, rc, &retried, t)); */
bool dlxl_reclaim(lua_State *L, int rc, bool *retried, const dlxl_tensor *src);

#endif
