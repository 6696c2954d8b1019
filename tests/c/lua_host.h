/* lua_host.h -- for the C tests that act as a host: a Lua state with dlx loaded, and chunks run
 * in it. */
#ifndef DLX_TESTS_LUA_HOST_H
#define DLX_TESTS_LUA_HOST_H

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "dlx.h"

/* A state with Lua's libraries and the global dlx = require "dlx" (from the library itself,
 * dlx_openlibs); alloc NULL means Lua's own allocator. Exits when dlx cannot be loaded. */
static inline lua_State *host_new_state(lua_Alloc alloc) {
  lua_State *L = alloc != NULL ? lua_newstate(alloc, NULL) : luaL_newstate();
  luaL_openlibs(L);
  dlx_openlibs(L);
  if (luaL_dostring(L, "dlx = require 'dlx'") != LUA_OK) {
    fprintf(stderr, "require 'dlx' failed: %s\n", lua_tostring(L, -1));
    exit(1);
  }
  return L;
}

/* Runs chunk with the nargs values on top of the stack as its ... and leaves nresults; false
 * (and the error on stderr) when it raised. Exits when the chunk does not compile. */
static inline bool host_run(lua_State *L, const char *chunk, int nargs, int nresults) {
  if (luaL_loadstring(L, chunk) != LUA_OK) {
    fprintf(stderr, "does not compile: %s\n", lua_tostring(L, -1));
    exit(1);
  }
  lua_insert(L, -nargs - 1);
  if (lua_pcall(L, nargs, nresults, 0) != LUA_OK) {
    fprintf(stderr, "chunk raised: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    return false;
  }
  return true;
}

#endif
