/* main.c -- dlx-runner: a Lua 5.4 interpreter with dlx built in (Lua linked statically, dlx's Lua
 * files embedded by dlx_openlibs), to run dlx scripts, specs and benchmarks on machines that
 * have no Lua installation, such as a GPU machine.
 *
 *   dlx-runner script.lua [args...]      runs a script (arg[0] = script, arg[1..] = args)
 *   dlx-runner -e 'code'                 runs a chunk
 *   dlx-runner --spec [--tags=T] files   runs busted-style spec files (lua/dlx_spec_runner.lua;
 *                                        --exclude-tags=T leaves tagged tests out)
 *
 * package.path gets <dir>/lua/?.lua and ./?.lua, package.cpath <dir>/?.so, where <dir> is the
 * directory of the executable: the carried luassert and the spec runner live there. Lua's API
 * is exported (-rdynamic) so that C modules such as the specs' testprod.so can be loaded. */
#define _POSIX_C_SOURCE 200809L /* readlink */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dlx.h"

/* The directory of the executable, from /proc/self/exe ("." when unknown). */
static void exe_dir(char *buf, size_t size) {
  ssize_t n = readlink("/proc/self/exe", buf, size - 1);
  char *slash;
  if (n <= 0) {
    snprintf(buf, size, ".");
    return;
  }
  buf[n] = '\0';
  slash = strrchr(buf, '/');
  if (slash != NULL) *slash = '\0';
}

static void set_paths(lua_State *L) {
  char dir[4096];
  exe_dir(dir, sizeof dir);
  lua_getglobal(L, "package");
  lua_pushfstring(L, "%s/lua/?.lua;%s/lua/?/init.lua;./?.lua;./?/init.lua", dir, dir);
  lua_setfield(L, -2, "path");
  lua_pushfstring(L, "%s/?.so;./?.so", dir);
  lua_setfield(L, -2, "cpath");
  lua_pushstring(L, dir);
  lua_setglobal(L, "DLX_RUNNER_DIR");
  lua_pop(L, 1);
}

/* arg = {[0] = script, args...}, as lua.c makes it. */
static void set_args(lua_State *L, int argc, char **argv, int script) {
  lua_createtable(L, argc - script, 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
}

static int traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  luaL_traceback(L, L, msg != NULL ? msg : "(error object is not a string)", 1);
  return 1;
}

/* Runs the loaded chunk on top of the stack with the script's arguments. */
static int run_chunk(lua_State *L, int status, int nargs, char **args) {
  if (status == LUA_OK) {
    int base;
    for (int i = 0; i < nargs; i++) lua_pushstring(L, args[i]);
    base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, traceback);
    lua_insert(L, base);
    status = lua_pcall(L, nargs, 0, base);
  }
  if (status != LUA_OK) {
    fprintf(stderr, "dlx-runner: %s\n", lua_tostring(L, -1));
    return 1;
  }
  return 0;
}

static void usage(void) {
  fprintf(stderr, "usage: dlx-runner script.lua [args...]\n"
                  "       dlx-runner -e 'lua code'\n"
                  "       dlx-runner --spec [--tags=a,b] [--exclude-tags=a,b] spec_files...\n");
}

int main(int argc, char **argv) {
  lua_State *L;
  int rc;
  if (argc < 2) {
    usage();
    return 2;
  }
  L = luaL_newstate();
  if (L == NULL) return 1;
  luaL_openlibs(L);
  dlx_openlibs(L);
  set_paths(L);
  if (strcmp(argv[1], "-e") == 0 && argc >= 3) {
    set_args(L, argc, argv, 0);
    rc = run_chunk(L, luaL_loadstring(L, argv[2]), 0, NULL);
  } else if (strcmp(argv[1], "--spec") == 0) {
    char path[4200], dir[4096];
    exe_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/lua/dlx_spec_runner.lua", dir);
    set_args(L, argc, argv, 1);
    rc = run_chunk(L, luaL_loadfile(L, path), argc - 2, argv + 2);
  } else {
    set_args(L, argc, argv, 1);
    rc = run_chunk(L, luaL_loadfile(L, argv[1]), argc - 2, argv + 2);
  }
  lua_close(L);
  return rc;
}
