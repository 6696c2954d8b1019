/* errors.c -- Lua errors whose message starts with an error class ("ValueError: ..."), after
 * the position of the Lua code that called dlx; and dlx_error_class, the one place that tells
 * the class of an error value. */
#include "lua/errors.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lua/tables.h"

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

/* Registry keys (their addresses) of the last error raised here and of its class: an error
 * value that is this very string has its class as data, whatever its text. */
static const char last_message_key;
static const char last_class_key;

/* Records the message on top of the stack as the last error, raised with code. */
static void remember(lua_State *L, dlx_errclass code) {
  if (!lua_checkstack(L, 1)) return; /* then its class is read from its text */
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &last_message_key);
  lua_pushinteger(L, code);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &last_class_key);
}

static int throw_error(lua_State *L, dlx_errclass code, const char *message) {
  push_where(L);
  lua_pushfstring(L, "%s: %s", dlx_errclass_name(code), message);
  lua_concat(L, 2);
  remember(L, code);
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

/* ---- the class of an error value */

/* The class whose name starts s, followed by ": "; DLX_OK when none does. */
static dlx_errclass class_at(const char *s) {
  static const dlx_errclass classes[] = {DLX_TYPE_ERROR,   DLX_VALUE_ERROR,  DLX_BUFFER_ERROR,
                                         DLX_DEVICE_ERROR, DLX_MEMORY_ERROR, DLX_OS_ERROR,
                                         DLX_LINALG_ERROR};
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
    dlx_errclass code = classes[i];
    const char *name = dlx_errclass_name(code);
    size_t len = strlen(name);
    if (strncmp(s, name, len) == 0 && s[len] == ':' && s[len + 1] == ' ') return (dlx_errclass)code;
  }
  return DLX_OK;
}

/* s past a position prefix "<chunk>:<line>: " on its first line, or NULL when it has none. The
 * chunk's name may hold colons itself ([string "a:b"]), so every ":<digits>: " is tried. */
static const char *skip_position(const char *s) {
  for (const char *p = s; *p != '\0' && *p != '\n'; p++) {
    const char *q = p + 1;
    if (*p != ':' || !isdigit((unsigned char)*q)) continue;
    while (isdigit((unsigned char)*q)) q++;
    if (q[0] == ':' && q[1] == ' ') return q + 2;
  }
  return NULL;
}

/* The class named at the start of a message, after any number of position prefixes: Lua adds
 * one each time an error is raised again with error(message). */
static dlx_errclass class_in_text(const char *s) {
  for (; s != NULL; s = skip_position(s)) {
    dlx_errclass code = class_at(s);
    if (code != DLX_OK) return code;
  }
  return DLX_OK;
}

/* The recorded class when the string at idx is the last error raised here; DLX_OK otherwise. */
static dlx_errclass recorded_class(lua_State *L, int idx) {
  dlx_errclass code = DLX_OK;
  if (!lua_checkstack(L, 2)) return DLX_OK;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &last_message_key);
  if (lua_rawequal(L, idx, -1)) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &last_class_key);
    code = (dlx_errclass)lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return code;
}

DLXL_PUBLIC int dlx_error_class(lua_State *L, int idx) {
  dlx_errclass code;
  if (lua_type(L, idx) != LUA_TSTRING) return DLX_OK;
  idx = lua_absindex(L, idx);
  code = recorded_class(L, idx);
  return code != DLX_OK ? code : class_in_text(lua_tostring(L, idx));
}

/* error_class(err) -> "TypeError", "ValueError", ... or nil: dlx_error_class for scripts. */
static int core_error_class(lua_State *L) {
  int code = dlx_error_class(L, 1);
  if (code == DLX_OK)
    lua_pushnil(L);
  else
    lua_pushstring(L, dlx_errclass_name((dlx_errclass)code));
  return 1;
}

const luaL_Reg dlxl_error_funcs[] = {
    {"error_class", core_error_class},
    {NULL, NULL},
};
