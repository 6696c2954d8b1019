/* errors.c -- Lua errors whose message starts with an error class ("ValueError: ..."), after
 * the position of the Lua code that called dlx. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lua/binding.h"

/* True for a chunk of dlx's own Lua layer: a file ".../dlx/<name>.lua", installed or embedded
 * by dlx_openlibs under the same name. */
static bool is_dlx_source(const char *source) {
  const char *name = strrchr(source, '/');
  size_t len = strlen(source);
  if (source[0] != '@' || name == NULL || len < 4 || strcmp(source + len - 4, ".lua") != 0)
    return false;
  return name - source >= 4 && strncmp(name - 3, "dlx", 3) == 0 &&
         (name - source == 4 || name[-4] == '/');
}

/* Like luaL_where(L, 1), but for the first caller outside dlx's Lua layer, so that an error
 * raised for dlx.zeros{-1} points at the script's line, not at lua/dlx/init.lua. */
static void push_where(lua_State *L) {
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    lua_getinfo(L, "Sl", &ar);
    if (is_dlx_source(ar.source)) continue;
    if (ar.currentline > 0) {
      lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
      return;
    }
    break;
  }
  lua_pushliteral(L, "");
}

static int throw_error(lua_State *L, dlx_errclass code, const char *message) {
  push_where(L);
  lua_pushfstring(L, "%s: %s", dlx_errclass_name(code), message);
  lua_concat(L, 2);
  return lua_error(L);
}

int dlxl_error(lua_State *L, dlx_errclass code, const char *fmt, ...) {
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  return throw_error(L, code, message);
}

int dlxl_raise(lua_State *L, const dlx_error *err) {
  return throw_error(L, err->code, err->message);
}

void dlxl_check(lua_State *L, int rc, const dlx_error *err) {
  if (rc != 0) dlxl_raise(L, err);
}

const char *dlxl_typename(lua_State *L, int idx) {
  int type;
  const char *name;
  idx = lua_absindex(L, idx);
  type = luaL_getmetafield(L, idx, "__name");
  name = type == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, idx);
  if (type != LUA_TNIL) lua_pop(L, 1); /* a __name string stays alive in its metatable */
  return name;
}
