/* capi.h -- what the files of the host C API of dlx.h share (capi.c): it never raises. borrow.c
 * has the loans and dlx_push_tensor, exchange.c the exchange table; module.c publishes the
 * tables. */
#ifndef DLX_LUA_CAPI_H
#define DLX_LUA_CAPI_H

#include "lua/binding.h"

/* The class of the error that a failed lua_pcall left on the stack; never DLX_OK. */
int dlxl_failure_class(lua_State *L, int status);
/* dlx_to_dlpack without stream synchronisation (the exchange table's export). */
int dlxl_to_dlpack_nosync(lua_State *L, int idx, DLManagedTensorVersioned **out);

#endif
