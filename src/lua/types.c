/* types.c -- dlx.type(v): which kind of dlx value v is, as io.type tells files. */
#include "lua/capsule.h"
#include "lua/device.h"
#include "lua/stream.h"
#include "lua/tables.h"
#include "lua/tensor.h"

/* type(v) -> "tensor", "closed tensor", "capsule", "device", "stream", or nil for any other
 * value. A consumed capsule is still a "capsule", a closed stream still a "stream". */
static int core_type(lua_State *L) {
  const dlxl_tensor *t = dlxl_totensor(L, 1);
  if (t != NULL)
    lua_pushstring(L, t->buffer != NULL ? "tensor" : "closed tensor");
  else if (dlxl_tocapsule(L, 1) != NULL)
    lua_pushliteral(L, "capsule");
  else if (luaL_testudata(L, 1, DLXL_DEVICE) != NULL)
    lua_pushliteral(L, "device");
  else if (luaL_testudata(L, 1, DLXL_STREAM) != NULL)
    lua_pushliteral(L, "stream");
  else
    lua_pushnil(L);
  return 1;
}

/* expired(t) -> true for an open tensor over a loan that ended (dlx_unborrow), whose memory
 * must not be touched: lua/dlx/print.lua prints it without its values. */
static int core_expired(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  lua_pushboolean(L, dlx_buffer_is_borrowed(t->buffer) && dlx_buffer_check(t->buffer, NULL) != 0);
  return 1;
}

const luaL_Reg dlxl_type_funcs[] = {
    {"type", core_type},
    {"expired", core_expired},
    {NULL, NULL},
};
