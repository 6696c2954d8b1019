/* conv.c -- core.conv, the core's convolution (src/core/conv.c) for lua/dlx/conv.lua, which
 * reads the options and builds dlx.conv1d, conv2d, conv3d, convolve and correlate on it. */
#include "core/conv.h"
#include "lua/args.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"

/* The list at idx of nspatial integers into out. */
static void check_list(lua_State *L, int idx, int32_t nspatial, const char *what, int64_t *out) {
  luaL_checktype(L, idx, LUA_TTABLE);
  if ((int32_t)lua_rawlen(L, idx) != nspatial)
    dlxl_error(L, DLX_VALUE_ERROR, "conv: %s must list %d numbers, got %d", what, (int)nspatial,
               (int)lua_rawlen(L, idx));
  for (int32_t s = 0; s < nspatial; s++) {
    lua_rawgeti(L, idx, s + 1);
    out[s] = (int64_t)dlxl_checkinteger(L, -1, what);
    lua_pop(L, 1);
  }
}

/* core.conv(name, input, weight, bias, stride, pad_lo, pad_hi, dilation, groups): the input
 * batched, bias nil or a tensor, the lists of input.ndim - 2 integers. */
static int core_conv(lua_State *L) {
  dlx_tensor vi, vw, vb;
  dlx_conv_args a;
  dlxl_result r;
  int rc;
  a.name = luaL_checkstring(L, 1);
  a.input = dlxl_checktensor(L, 2, &vi);
  a.weight = dlxl_checktensor(L, 3, &vw);
  a.bias = lua_isnil(L, 4) ? NULL : dlxl_checktensor(L, 4, &vb);
  a.nspatial = a.input->ndim - 2;
  if (a.nspatial < 1 || a.nspatial > DLX_CONV_MAX_SPATIAL)
    return dlxl_error(L, DLX_VALUE_ERROR, "%s: input must have 3 to 5 dims, got %d", a.name,
                      (int)a.input->ndim);
  check_list(L, 5, a.nspatial, "stride", a.stride);
  check_list(L, 6, a.nspatial, "padding", a.pad_lo);
  check_list(L, 7, a.nspatial, "padding", a.pad_hi);
  check_list(L, 8, a.nspatial, "dilation", a.dilation);
  a.groups = (int64_t)dlxl_checkinteger(L, 9, "groups");
  dlxl_result_begin(L, &r, a.input->ndim, lua_touserdata(L, 2));
  do rc = dlx_conv(&r.made, &a, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  return dlxl_result_push(L, &r, rc);
}

const luaL_Reg dlxl_conv_funcs[] = {
    {"conv", core_conv},
    {NULL, NULL},
};
