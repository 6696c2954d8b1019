/* args.c -- argument checks: integers, booleans, dtypes, shapes and dims. A value of the wrong
 * Lua type is a TypeError; a value of the right type that is out of range is a ValueError. */
#include "lua/args.h"

#include <stdio.h>
#include <string.h>

#include "lua/errors.h"
#include "lua/state.h"

lua_Integer dlxl_checkinteger(lua_State *L, int idx, const char *what) {
  int isint = 0;
  lua_Integer value;
  if (lua_type(L, idx) != LUA_TNUMBER)
    dlxl_error(L, DLX_TYPE_ERROR, "%s must be an integer, got %s", what, dlxl_typename(L, idx));
  value = lua_tointegerx(L, idx, &isint);
  if (!isint)
    dlxl_error(L, DLX_VALUE_ERROR, "%s must be an integer, got %.14g", what,
               (double)lua_tonumber(L, idx));
  return value;
}

bool dlxl_optboolean(lua_State *L, int idx, const char *what) {
  int type = lua_type(L, idx);
  if (type != LUA_TNIL && type != LUA_TNONE && type != LUA_TBOOLEAN)
    dlxl_error(L, DLX_TYPE_ERROR, "%s must be true, false or nil, got %s", what,
               dlxl_typename(L, idx));
  return lua_toboolean(L, idx);
}

static int unknown_dtype(lua_State *L, const char *name) {
  char names[640];
  size_t used = 0;
  names[0] = '\0';
  for (int d = 0; d < DLX_NUM_DTYPES && used < sizeof names; d++)
    used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", d ? ", " : "",
                             dlx_dtype_info_of((dlx_dtype)d)->name);
  return dlxl_error(L, DLX_TYPE_ERROR, "unknown dtype '%s' (expected one of %s)", name, names);
}

dlx_dtype dlxl_checkdtype(lua_State *L, int idx, int def) {
  dlx_dtype dtype;
  const char *name;
  dlxl_state *s;
  if (lua_isnoneornil(L, idx) && def >= 0) return (dlx_dtype)def;
  if (lua_type(L, idx) != LUA_TSTRING)
    dlxl_error(L, DLX_TYPE_ERROR, "dtype must be a name such as \"float32\", got %s",
               dlxl_typename(L, idx));
  name = lua_tostring(L, idx);
  /* Lua interns short strings, so a script that names a dtype again passes the same bytes: the
   * last name's address, checked against its dtype's name (the address may have been freed and
   * reused since), skips the search of the dtype table. */
  s = dlxl_upstate(L);
  if (s != NULL && s->dtype_name == name &&
      strcmp(dlx_dtype_info_of(s->dtype_of_name)->name, name) == 0)
    return s->dtype_of_name;
  if (dlx_dtype_from_name(name, &dtype) != 0) unknown_dtype(L, name);
  if (s != NULL) {
    s->dtype_name = name;
    s->dtype_of_name = dtype;
  }
  return dtype;
}

static int64_t checksize(lua_State *L, int idx, bool allow_minus1) {
  lua_Integer size = dlxl_checkinteger(L, idx, "size");
  if (size >= 0 || (allow_minus1 && size == -1)) return (int64_t)size;
  if (allow_minus1)
    dlxl_error(L, DLX_VALUE_ERROR, "size %lld in shape must be >= 0, or -1", (long long)size);
  dlxl_error(L, DLX_VALUE_ERROR, "negative size %lld in shape; sizes must be >= 0",
             (long long)size);
  return 0;
}

int32_t dlxl_checkshape(lua_State *L, int idx, int64_t *shape, bool allow_minus1) {
  int type = lua_type(L, idx);
  size_t ndim;
  if (type == LUA_TNUMBER) {
    shape[0] = checksize(L, idx, allow_minus1);
    return 1;
  }
  if (type != LUA_TTABLE)
    dlxl_error(L, DLX_TYPE_ERROR, "shape must be a table of sizes or an integer, got %s",
               dlxl_typename(L, idx));
  idx = lua_absindex(L, idx);
  ndim = lua_rawlen(L, idx);
  if (ndim > DLX_MAX_NDIM)
    dlxl_error(L, DLX_VALUE_ERROR, "shape has %zu dims; dlx tensors have at most %d", ndim,
               DLX_MAX_NDIM);
  /* Shapes are on every creation and view: an integer size >= 0 costs two calls (the sizes stay
   * on the stack until the end), and anything else goes to checksize for its message. */
  if (ndim > 8) luaL_checkstack(L, (int)ndim, "shape");
  for (size_t d = 0; d < ndim; d++) {
    int isint = 0;
    lua_Integer size = 0;
    if (lua_rawgeti(L, idx, (lua_Integer)d + 1) == LUA_TNUMBER)
      size = lua_tointegerx(L, -1, &isint);
    shape[d] = isint && size >= 0 ? (int64_t)size : checksize(L, -1, allow_minus1);
  }
  if (ndim > 0) lua_pop(L, (int)ndim);
  return (int32_t)ndim;
}

int32_t dlxl_checkdim(lua_State *L, int idx, int32_t ndim) {
  lua_Integer dim = dlxl_checkinteger(L, idx, "dim");
  if (dim >= 1 && dim <= ndim) return (int32_t)dim - 1;
  if (dim < 0 && dim >= -ndim) return (int32_t)(ndim + dim);
  if (ndim == 0)
    dlxl_error(L, DLX_VALUE_ERROR, "dim %lld out of range for a 0-d tensor (it has no dims)",
               (long long)dim);
  dlxl_error(L, DLX_VALUE_ERROR,
             "dim %lld out of range for a %d-d tensor (expected -%d..%d, "
             "not 0)",
             (long long)dim, (int)ndim, (int)ndim, (int)ndim);
  return 0;
}

static uint64_t adddim(lua_State *L, int idx, int32_t ndim, uint64_t mask) {
  int32_t dim = dlxl_checkdim(L, idx, ndim);
  uint64_t bit = UINT64_C(1) << dim;
  if (mask & bit)
    dlxl_error(L, DLX_VALUE_ERROR, "dim %lld appears more than once in dims",
               (long long)lua_tointeger(L, idx));
  return mask | bit;
}

uint64_t dlxl_checkdims(lua_State *L, int idx, int32_t ndim) {
  uint64_t mask = 0;
  size_t count;
  idx = lua_absindex(L, idx);
  switch (lua_type(L, idx)) {
  case LUA_TNONE:
  case LUA_TNIL:
    return (UINT64_C(1) << ndim) - 1; /* all dims */
  case LUA_TNUMBER:
    return adddim(L, idx, ndim, 0);
  case LUA_TTABLE:
    break;
  default:
    dlxl_error(L, DLX_TYPE_ERROR, "dims must be nil, a dim or a list of dims, got %s",
               dlxl_typename(L, idx));
  }
  count = lua_rawlen(L, idx);
  for (size_t i = 1; i <= count; i++) {
    lua_rawgeti(L, idx, (lua_Integer)i);
    mask = adddim(L, -1, ndim, mask);
    lua_pop(L, 1);
  }
  return mask;
}

/* ---- options tables */

/* The optimal string alignment distance of a and b (edits, swaps of neighbours included), or a
 * large number for long names. */
static int edit_distance(const char *a, const char *b) {
  enum { MAX = 32 };
  int d[MAX + 1][MAX + 1];
  size_t la = strlen(a), lb = strlen(b);
  if (la > MAX || lb > MAX) return MAX;
  for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    for (size_t j = 1; j <= lb; j++) {
      int cost = a[i - 1] != b[j - 1], best = d[i - 1][j - 1] + cost;
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  }
  return d[la][lb];
}

static bool is_known(const char *key, const char *const *known) {
  for (; *known != NULL; known++)
    if (strcmp(key, *known) == 0) return true;
  return false;
}

/* Raises the TypeError for the unknown key at the top of the stack. */
static int unknown_option(lua_State *L, const char *fname, const char *const *known) {
  char names[160], hint[64] = "";
  const char *key, *closest = NULL;
  size_t used = 0;
  int best = 3; /* suggest names at most two edits away */
  names[0] = '\0';
  for (const char *const *k = known; *k != NULL && used < sizeof names; k++)
    used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", k == known ? "" : ", ", *k);
  if (lua_type(L, -1) != LUA_TSTRING)
    return dlxl_error(L, DLX_TYPE_ERROR, "%s: unknown option [%s] (options are %s)", fname,
                      luaL_tolstring(L, -1, NULL), names);
  key = lua_tostring(L, -1);
  for (const char *const *k = known; *k != NULL; k++) {
    int distance = edit_distance(key, *k);
    if (distance < best) {
      best = distance;
      closest = *k;
    }
  }
  if (closest != NULL) snprintf(hint, sizeof hint, "; did you mean '%s'?", closest);
  return dlxl_error(L, DLX_TYPE_ERROR, "%s: unknown option '%s'%s (options are %s)", fname, key,
                    hint, names);
}

int dlxl_pushoptions(lua_State *L, int idx, const char *const *known, int count) {
  int first, others = 0;
  idx = lua_absindex(L, idx);
  luaL_checkstack(L, count + 2, "too many options");
  first = lua_gettop(L) + 1;
  if (lua_getmetatable(L, idx)) { /* it may inherit options: read them as lua_getfield does */
    lua_pop(L, 1);
    for (int i = 0; i < count; i++) lua_getfield(L, idx, known[i]);
    return -1;
  }
  lua_settop(L, first + count); /* a nil for each known key, and the first key for lua_next */
  while (lua_next(L, idx) != 0) {
    int slot = -1;
    if (lua_type(L, -2) == LUA_TSTRING) {
      const char *key = lua_tostring(L, -2);
      for (int i = 0; i < count && slot < 0; i++)
        if (key[0] == known[i][0] && strcmp(key, known[i]) == 0) slot = i;
    }
    if (slot >= 0)
      lua_replace(L, first + slot);
    else {
      lua_pop(L, 1);
      others++;
    }
  }
  return others;
}

void dlxl_checkoptions(lua_State *L, int idx, const char *fname, const char *const *known,
                       int found) {
  int entries = 0, top = lua_gettop(L);
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_pop(L, 1);
    entries++;
  }
  /* every entry is a known key that was read; the count alone cannot tell when the table has a
   * metatable, since found counts the options it inherits as well as its own */
  if (entries == found && !lua_getmetatable(L, idx)) return;
  lua_settop(L, top); /* the metatable */
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING || !is_known(lua_tostring(L, -1), known))
      unknown_option(L, fname, known);
  }
}
