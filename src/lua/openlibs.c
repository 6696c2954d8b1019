/* openlibs.c -- dlx_openlibs: require "dlx" from the library itself, with no files on disk. */
#include <lauxlib.h>
#include <lua.h>

#include "dlx.h"
#include "lua/embedded.h"

/* The package.preload loader of one embedded module; upvalue 1 is its table entry. Called by
 * require as loader(name, ":preload:"), and it passes both on to the chunk, as the file
 * searcher would pass (name, filename). */
static int load_embedded(lua_State *L) {
  const dlx_embedded_lua *m = (const dlx_embedded_lua *)lua_touserdata(L, lua_upvalueindex(1));
  /* Mode "t": the table holds source text, and a text-only load can never be fed bytecode. */
  if (luaL_loadbufferx(L, (const char *)m->source, m->size, m->chunkname, "t") != LUA_OK)
    return luaL_error(L, "error loading embedded module '%s':\n\t%s", m->module,
                      lua_tostring(L, -1));
  lua_insert(L, 1); /* chunk, name, extra */
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

void dlx_openlibs(lua_State *L) {
  /* The registry's _PRELOAD table is package.preload; luaL_getsubtable creates it when the
   * package library is not open yet, and luaopen_package adopts the same table later. */
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_dlx_core);
  lua_setfield(L, -2, "dlx.core");
  for (const dlx_embedded_lua *m = dlx_embedded_lua_modules; m->module != NULL; m++) {
    lua_pushlightuserdata(L, (void *)m);
    lua_pushcclosure(L, load_embedded, 1);
    lua_setfield(L, -2, m->module);
  }
  lua_pop(L, 1);
}
