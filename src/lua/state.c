/* state.c -- the per-state userdata of dlx.core (state.h, dlxl_state). */
#include "lua/state.h"

#include <string.h>

/* The registry holds the state under this key's address: a copy of the library loaded twice
 * into one process keeps its own, as it keeps its own metatable keys. */
static const char state_key;

dlxl_state *dlxl_getstate(lua_State *L) {
  dlxl_state *s = dlxl_upstate(L);
  if (s != NULL) return s;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &state_key);
  s = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return s;
}

dlxl_state *dlxl_openstate(lua_State *L) {
  dlxl_state *s;
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &state_key) == LUA_TUSERDATA) return lua_touserdata(L, -1);
  lua_pop(L, 1);
  s = lua_newuserdatauv(L, sizeof *s, DLXL_UV_COUNT);
  memset(s, 0, sizeof *s);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &state_key);
  return s;
}

void dlxl_require_core(lua_State *L) {
  const dlxl_state *s = dlxl_getstate(L); /* made by luaopen_dlx_core, with the metatables */
  if (s != NULL && s->tensor_mt != NULL) return;
  luaL_requiref(L, "dlx.core", luaopen_dlx_core, 0);
  lua_pop(L, 1);
}
