/* image.c -- dlx.core.image_op and dlx.core.image_op_available, what lua/dlx/image.lua builds
 * dlx.max_pool2d, dlx.avg_pool2d and dlx.interpolate on (src/core/image.c). */
#include <string.h>

#include "core/image.h"
#include "lua/args.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"

static lua_Integer int_field(lua_State *L, int idx, const char *key, lua_Integer def) {
  lua_Integer v = def;
  if (lua_getfield(L, idx, key) != LUA_TNIL) v = dlxl_checkinteger(L, -1, key);
  lua_pop(L, 1);
  return v;
}

static double number_field(lua_State *L, int idx, const char *key) {
  double v = 0;
  if (lua_getfield(L, idx, key) != LUA_TNIL) v = luaL_checknumber(L, -1);
  lua_pop(L, 1);
  return v;
}

static bool bool_field(lua_State *L, int idx, const char *key) {
  bool v;
  lua_getfield(L, idx, key);
  v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* dlx.core.image_op(t, op, p): t is [planes, h, w]; op "max_pool", "avg_pool", "nearest",
 * "bilinear" or "bicubic"; p the checked parameters (out_h, out_w, kh, kw, sh, sw, ph, pw, dh,
 * dw, count_include_pad, divisor, align_corners, scale_h, scale_w, indices). Returns the output
 * and, for max_pool with p.indices, the indices. */
static int core_image_op(lua_State *L) {
  static const char *const ops[] = {"max_pool", "avg_pool", "nearest", "bilinear", "bicubic", NULL};
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  dlx_image_request req = {.op = (dlx_image_op)luaL_checkoption(L, 2, NULL, ops)};
  int64_t out_h, out_w;
  bool with_indices;
  dlxl_result out, indices; /* the call's error goes to out */
  int rc;
  luaL_checktype(L, 3, LUA_TTABLE);
  out_h = int_field(L, 3, "out_h", 0);
  out_w = int_field(L, 3, "out_w", 0);
  req.kernel[0] = int_field(L, 3, "kh", 1);
  req.kernel[1] = int_field(L, 3, "kw", 1);
  req.stride[0] = int_field(L, 3, "sh", 1);
  req.stride[1] = int_field(L, 3, "sw", 1);
  req.padding[0] = int_field(L, 3, "ph", 0);
  req.padding[1] = int_field(L, 3, "pw", 0);
  req.dilation[0] = int_field(L, 3, "dh", 1);
  req.dilation[1] = int_field(L, 3, "dw", 1);
  req.divisor = int_field(L, 3, "divisor", 0);
  req.count_include_pad = bool_field(L, 3, "count_include_pad");
  req.align_corners = bool_field(L, 3, "align_corners");
  req.scale[0] = number_field(L, 3, "scale_h");
  req.scale[1] = number_field(L, 3, "scale_w");
  with_indices = req.op == DLX_IMAGE_MAX_POOL && bool_field(L, 3, "indices");
  dlxl_result_begin(L, &out, 3, lua_touserdata(L, 1));
  if (with_indices) dlxl_result_begin(L, &indices, 3, NULL);
  do
    rc = dlx_image(&out.made, with_indices ? &indices.made : NULL, &req, t, out_h, out_w, &out.err);
  while (dlxl_result_retry(L, &out, rc));
  dlxl_result_push(L, &out, rc);
  if (!with_indices) return 1;
  dlxl_result_push(L, &indices, 0);
  return 2;
}

/* dlx.core.image_op_available(t): whether t's device has image_op. */
static int core_image_op_available(lua_State *L) {
  dlx_tensor view;
  lua_pushboolean(L, dlx_image_op_available(dlxl_checktensor(L, 1, &view)));
  return 1;
}

const luaL_Reg dlxl_image_funcs[] = {
    {"image_op", core_image_op},
    {"image_op_available", core_image_op_available},
    {NULL, NULL},
};
