/* errors.h -- raising "<Class>: <message>" with the Lua caller's position (errors.c). */
#ifndef DLX_LUA_ERRORS_H
#define DLX_LUA_ERRORS_H

#include "lua/binding.h"

int dlxl_error(lua_State *L, dlx_errclass code, const char *fmt, ...) DLXL_PRINTF(3, 4);
int dlxl_raise(lua_State *L, const dlx_error *err);
/* Raises err when rc is not 0. */
void dlxl_check(lua_State *L, int rc, const dlx_error *err);
/* The value's type for messages: __name for our userdata, else the Lua type name. */
const char *dlxl_typename(lua_State *L, int idx);

#endif
