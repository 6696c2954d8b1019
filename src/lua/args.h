/* args.h -- argument checks (args.c); `what` names the value in messages ("dim", "size", ...). */
#ifndef DLX_LUA_ARGS_H
#define DLX_LUA_ARGS_H

#include "lua/binding.h"

lua_Integer dlxl_checkinteger(lua_State *L, int idx, const char *what);
bool dlxl_optboolean(lua_State *L, int idx, const char *what);
/* A dtype name; nil gives def (pass -1 to make nil an error). */
dlx_dtype dlxl_checkdtype(lua_State *L, int idx, int def);
/* A shape (table of sizes or one integer) into shape[DLX_MAX_NDIM]; returns ndim. Sizes are
 * >= 0, or -1 too when allow_minus1. */
int32_t dlxl_checkshape(lua_State *L, int idx, int64_t *shape, bool allow_minus1);
/* A 1-based or negative dim of an ndim-d tensor, as a 0-based dim. */
int32_t dlxl_checkdim(lua_State *L, int idx, int32_t ndim);
/* A dim or a list of dims, as a 0-based bitmask; nil gives all dims. Duplicates are errors. */
uint64_t dlxl_checkdims(lua_State *L, int idx, int32_t ndim);

/* An options table at idx of function fname, once its known keys (a NULL-terminated list) were
 * read: found is how many of them held a value. Any other key is a TypeError naming it, as
 * Python rejects an unknown keyword; the check counts the entries, and looks for the culprit
 * only when the count differs. */
void dlxl_checkoptions(lua_State *L, int idx, const char *fname, const char *const *known,
                       int found);
/* The same table read in one pass: pushes the values of the first count known keys (nil for a
 * missing one), in that order, and returns how many other entries there are. The caller reads
 * them, pops them, and raises with dlxl_checkoptions when the result is not 0 (a table with a
 * metatable is read with lua_getfield instead, and the result is -1: check it the usual way). */
int dlxl_pushoptions(lua_State *L, int idx, const char *const *known, int count);

#endif
