/* create.h -- where a new tensor goes, from the options table of the creation functions
 * (create.c). */
#ifndef DLX_LUA_CREATE_H
#define DLX_LUA_CREATE_H

#include "lua/binding.h"

/* Where a new tensor goes, from an options table {dtype =, device =, usm =}. */
typedef struct dlxl_placement {
  int dtype; /* a dlx_dtype, or -1 when not given */
  DLDevice device;
  dlx_memory memory;
} dlxl_placement;
/* Reads the options table (or nil) at idx of the function fname; the device defaults to the
 * state's default device. */
void dlxl_checkplacement(lua_State *L, int idx, const char *fname, dlxl_placement *out);

#endif
