/* device.h -- the dlx.Device userdata (a DLDevice), device specs, kinds of memory and the
 * default device of a Lua state (device.c). */
#ifndef DLX_LUA_DEVICE_H
#define DLX_LUA_DEVICE_H

#include "lua/binding.h"

#define DLXL_DEVICE "dlx.Device"

void dlxl_open_device(lua_State *L);
void dlxl_pushdevice(lua_State *L, DLDevice device);
/* A device spec (string, DLPack pair or device), checked for availability; nil gives cpu. */
DLDevice dlxl_checkdevice(lua_State *L, int idx);
/* The same, without the availability check. */
DLDevice dlxl_parsedevice(lua_State *L, int idx);
/* This state's default device: DLX_DEVICE (a comma-separated list of specs, the first available
 * wins), else the best available (cuda:0, oneapi:0, cpu); chosen on first use. */
DLDevice dlxl_default_device(lua_State *L);
/* A kind of USM: nil (the device's default), "device", "host" or "shared"; ValueError else. */
dlx_memory dlxl_checkmemory(lua_State *L, int idx);
/* The kind of memory t lives in, by its USM name; nil on devices with one kind. */
void dlxl_pushmemory(lua_State *L, const dlx_tensor *t);

#endif
