/* types.c -- dlx.type(v): which kind of dlx value v is, as io.type tells files. */
#include "lua/binding.h"

/* type(v) -> "tensor", "closed tensor", "capsule", "device", "stream", or nil for any other
 * value. A consumed capsule is still a "capsule", a closed stream still a "stream". */
static int core_type(lua_State *L) {
  const dlx_tensor *t = dlxl_totensor(L, 1);
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

const luaL_Reg dlxl_type_funcs[] = {
    {"type", core_type},
    {NULL, NULL},
};
