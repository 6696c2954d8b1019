/* embedded.h -- dlx's Lua modules compiled into the library (for dlx_openlibs). The table is
 * generated at build time from lua/dlx/ by cmake/embed_lua.cmake. */
#ifndef DLX_LUA_EMBEDDED_H
#define DLX_LUA_EMBEDDED_H

#include <stddef.h>

typedef struct dlx_embedded_lua {
  const char *module;          /* "dlx" for dlx/init.lua, "dlx.<name>" otherwise */
  const char *chunkname;       /* "@lua/dlx/init.lua": error messages name the source file */
  const unsigned char *source; /* Lua source text (not bytecode) */
  size_t size;                 /* bytes in source */
} dlx_embedded_lua;

/* Ends with an entry whose module is NULL. */
extern const dlx_embedded_lua dlx_embedded_lua_modules[];

#endif
