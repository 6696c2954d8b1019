/* binding.h -- what every file of the Lua binding dlx.core includes: Lua's headers, the core,
 * the public header and two macros. What a file lends to the others is declared in the header
 * of its own name (state.h, tensor.h, ...), and the function tables that module.c registers in
 * tables.h; every file uses only the files below it (tools/check_includes.lua fails on a
 * circle).
 *
 * Dims and indices are 1-based (negative from the end) on the Lua side and 0-based in the core;
 * the conversion happens in the binding, before any core call. Every raising helper returns int
 * so that a lua_CFunction can `return` it. */
#ifndef DLX_LUA_BINDING_H
#define DLX_LUA_BINDING_H

#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/core.h"
#include "dlx.h"

#if defined(__GNUC__)
#define DLXL_PUBLIC __attribute__((visibility("default")))
#define DLXL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DLXL_PUBLIC
#define DLXL_PRINTF(f, a)
#endif

#endif
