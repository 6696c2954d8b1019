/* stream.h -- the dlx.Stream userdata: streams of devices whose backend has them (stream.c). */
#ifndef DLX_LUA_STREAM_H
#define DLX_LUA_STREAM_H

#include "lua/binding.h"

#define DLXL_STREAM "dlx.Stream"

void dlxl_open_stream(lua_State *L);
/* The DLPack stream value of the dlx.Stream at idx; false when the value is not a stream. */
bool dlxl_tostreamvalue(lua_State *L, int idx, int64_t *value);

#endif
