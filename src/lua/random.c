/* random.c -- random numbers: dlx.manual_seed, dlx.Generator (a userdata holding a seed and a
 * counter), dlx.rand, randn, randint, randperm and t:uniform_, t:normal_, over core/random.h.
 * Each Lua state has its own default generator, so that scripts in different states (threads)
 * never draw from each other's sequence. */
#include <stdio.h>
#include <time.h>

#include "core/random.h"
#include "lua/args.h"
#include "lua/create.h"
#include "lua/device.h"
#include "lua/errors.h"
#include "lua/memory.h"
#include "lua/result.h"
#include "lua/tables.h"
#include "lua/tensor.h"

#define GENERATOR "dlx.Generator"

static char default_key; /* registry[&default_key]: the state's default generator */

static dlx_generator *check_generator(lua_State *L, int idx) {
  dlx_generator *g = luaL_testudata(L, idx, GENERATOR);
  if (g == NULL)
    dlxl_error(L, DLX_TYPE_ERROR, "expected a dlx.Generator, got %s", dlxl_typename(L, idx));
  return g;
}

static uint64_t check_seed(lua_State *L, int idx) {
  /* any Lua integer; negative ones are taken modulo 2^64, as PyTorch does */
  return (uint64_t)dlxl_checkinteger(L, idx, "seed");
}

static int generator_tostring(lua_State *L) {
  dlx_generator *g = check_generator(L, 1);
  lua_pushfstring(L, "dlx.Generator(seed = %I, offset = %I)", (lua_Integer)g->seed,
                  (lua_Integer)g->offset);
  return 1;
}

/* g:manual_seed(n) -> g: seed n, counter 0. */
static int generator_manual_seed(lua_State *L) {
  dlx_generator *g = check_generator(L, 1);
  dlx_generator_seed(g, check_seed(L, 2));
  lua_settop(L, 1);
  return 1;
}

/* g:initial_seed() -> the seed (an integer; seeds of 2^63 and more read as negative). */
static int generator_initial_seed(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)check_generator(L, 1)->seed);
  return 1;
}

/* g:seed() -> a fresh seed from the clock and the generator's address, now in use. */
static int generator_seed(lua_State *L) {
  dlx_generator *g = check_generator(L, 1);
  struct timespec now;
  uint64_t mix;
  timespec_get(&now, TIME_UTC);
  mix = (uint64_t)now.tv_sec * UINT64_C(1000000007) ^ (uint64_t)now.tv_nsec ^
        (uint64_t)(uintptr_t)g << 16;
  dlx_generator_seed(g, mix & ((UINT64_C(1) << 63) - 1)); /* non-negative, as a Lua integer */
  lua_pushinteger(L, (lua_Integer)g->seed);
  return 1;
}

/* g:get_offset() -> the counter of the next request's first block. */
static int generator_get_offset(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)check_generator(L, 1)->offset);
  return 1;
}

/* g:set_offset(n) -> g: continues from counter n (>= 0). */
static int generator_set_offset(lua_State *L) {
  dlx_generator *g = check_generator(L, 1);
  lua_Integer n = dlxl_checkinteger(L, 2, "offset");
  if (n < 0) return dlxl_error(L, DLX_VALUE_ERROR, "offset must be >= 0, got %lld", (long long)n);
  g->offset = (uint64_t)n;
  lua_settop(L, 1);
  return 1;
}

static const luaL_Reg generator_methods[] = {
    {"manual_seed", generator_manual_seed},
    {"initial_seed", generator_initial_seed},
    {"seed", generator_seed},
    {"get_offset", generator_get_offset},
    {"set_offset", generator_set_offset},
    {NULL, NULL},
};

/* Pushes a new generator seeded with seed. */
static dlx_generator *push_generator(lua_State *L, uint64_t seed) {
  dlx_generator *g = lua_newuserdatauv(L, sizeof *g, 0);
  dlx_generator_seed(g, seed);
  if (luaL_newmetatable(L, GENERATOR)) {
    lua_newtable(L);
    luaL_setfuncs(L, generator_methods, 0);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, generator_tostring);
    lua_setfield(L, -2, "__tostring");
  }
  lua_setmetatable(L, -2);
  return g;
}

/* The state's default generator (made on first use), pushed. */
static dlx_generator *push_default(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &default_key) == LUA_TUSERDATA)
    return lua_touserdata(L, -1);
  lua_pop(L, 1);
  push_generator(L, DLX_DEFAULT_SEED);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &default_key);
  return lua_touserdata(L, -1);
}

/* dlx.Generator([seed]) -> a new generator (PyTorch's default seed when none is given). */
static int api_generator(lua_State *L) {
  push_generator(L, lua_isnoneornil(L, 1) ? DLX_DEFAULT_SEED : check_seed(L, 1));
  return 1;
}

/* dlx.manual_seed(n) -> the default generator, seeded with n. */
static int api_manual_seed(lua_State *L) {
  uint64_t seed = check_seed(L, 1);
  dlx_generator_seed(push_default(L), seed);
  return 1;
}

/* Options of the random functions: {dtype =, device =, usm =, generator =} (those that fname
 * takes: `placed` false for t:uniform_ and t:normal_, which only take the generator). The
 * generator used ends up on the stack; the placement's dtype is -1 when not given. */
static dlx_generator *check_opts(lua_State *L, int idx, const char *fname, bool placed,
                                 dlxl_placement *p) {
  static const char *const all[] = {"dtype", "device", "usm", "generator", NULL};
  static const char *const only_generator[] = {"generator", NULL};
  const char *const *known = placed ? all : only_generator;
  int count = placed ? 4 : 1, others, top, found = 0;
  dlx_generator *g;
  p->dtype = -1;
  p->memory = DLX_MEMORY_DEFAULT;
  if (lua_isnoneornil(L, idx)) {
    if (placed) p->device = dlxl_default_device(L);
    return push_default(L);
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    dlxl_error(
        L, DLX_TYPE_ERROR, "%s: opts must be a table {%s}, not a %s", fname,
        placed ? "dtype =, device =, usm =, generator =" : "generator =", dlxl_typename(L, idx));
  others = dlxl_pushoptions(L, idx, known, count);
  top = lua_gettop(L); /* the generator is the last value */
  if (placed) {
    if (!lua_isnil(L, top - 3)) {
      found++;
      p->dtype = (int)dlxl_checkdtype(L, top - 3, -1);
    }
    if (!lua_isnil(L, top - 2)) found++;
    p->device = lua_isnil(L, top - 2) ? dlxl_default_device(L) : dlxl_checkdevice(L, top - 2);
    if (!lua_isnil(L, top - 1)) {
      found++;
      p->memory = dlxl_checkmemory(L, top - 1);
    }
  }
  if (!lua_isnil(L, top)) {
    found++;
    g = check_generator(L, top);
    lua_pushvalue(L, top);
  } else {
    g = push_default(L);
  }
  lua_replace(L, top - count + 1);
  lua_settop(L, top - count + 1);
  if (others != 0) dlxl_checkoptions(L, idx, fname, known, found);
  return g;
}

/* Fills t (the view of the open userdata u on the stack) from g; on failure closes made (the
 * result being filled, or NULL) and raises, so that no half-made tensor is left open. */
static void fill(lua_State *L, dlx_generator *g, const dlxl_tensor *u, const dlx_tensor *t,
                 dlxl_tensor *made, dlx_random_request *r, const char *fname) {
  dlx_error err;
  bool retried = false;
  int rc;
  do rc = dlx_random_fill(g, t, r, fname, &err);
  while (dlxl_reclaim(L, rc, &retried, u));
  if (rc != 0) {
    if (made != NULL) dlxl_closetensor(made);
    dlxl_raise(L, &err);
  }
}

/* Pushes a new tensor of the shape at shape_idx filled as r asks. */
static int push_random(lua_State *L, int shape_idx, int opts_idx, const char *fname, dlx_dtype def,
                       dlx_random_request *r) {
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim = dlxl_checkshape(L, shape_idx, shape, false);
  dlxl_placement p;
  dlx_generator *g = check_opts(L, opts_idx, fname, true, &p);
  dlx_tensor view;
  dlxl_tensor *out = dlxl_pushempty(L, NULL, shape, ndim, p.dtype >= 0 ? (dlx_dtype)p.dtype : def,
                                    p.device, p.memory, &view);
  fill(L, g, out, &view, out, r, fname);
  dlxl_gcdebt(L, dlx_tensor_nbytes(&view));
  return 1;
}

/* dlx.rand(shape[, opts]): uniform in [0, 1), float32 unless opts say otherwise. */
static int api_rand(lua_State *L) {
  dlx_random_request r = {.kind = DLX_RANDOM_UNIFORM, .a = 0, .b = 1};
  return push_random(L, 1, 2, "rand", DLX_FLOAT32, &r);
}

/* dlx.randn(shape[, opts]): standard normal. */
static int api_randn(lua_State *L) {
  dlx_random_request r = {.kind = DLX_RANDOM_NORMAL, .a = 0, .b = 1};
  return push_random(L, 1, 2, "randn", DLX_FLOAT32, &r);
}

/* dlx.randint(low, high, shape[, opts]) or dlx.randint(high, shape[, opts]): integers in
 * [low, high) (low 0 in the short form), int64 unless opts say otherwise. */
static int api_randint(lua_State *L) {
  bool short_form = lua_type(L, 2) == LUA_TTABLE;
  lua_Integer low = short_form ? 0 : dlxl_checkinteger(L, 1, "randint: low");
  lua_Integer high = dlxl_checkinteger(L, short_form ? 1 : 2, "randint: high");
  dlx_random_request r = {.kind = DLX_RANDOM_INT, .low = low};
  if (low >= high)
    return dlxl_error(L, DLX_VALUE_ERROR, "randint: low (%lld) must be less than high (%lld)",
                      (long long)low, (long long)high);
  r.range = (uint64_t)high - (uint64_t)low;
  return push_random(L, short_form ? 2 : 3, short_form ? 3 : 4, "randint", DLX_INT64, &r);
}

/* dlx.randperm(n[, opts]): a random permutation of 1 .. n, int64 unless opts say otherwise. */
static int api_randperm(lua_State *L) {
  lua_Integer n = dlxl_checkinteger(L, 1, "randperm: n");
  dlxl_placement p;
  dlx_generator *g = check_opts(L, 2, "randperm", true, &p);
  dlxl_result r;
  int rc;
  dlxl_result_begin(L, &r, 1, NULL);
  do
    rc = dlx_randperm(&r.made, g, (int64_t)n, p.dtype >= 0 ? (dlx_dtype)p.dtype : DLX_INT64,
                      p.device, p.memory, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  return dlxl_result_push(L, &r, rc);
}

static double check_number(lua_State *L, int idx, double def, const char *what) {
  if (lua_isnoneornil(L, idx)) return def;
  if (lua_type(L, idx) != LUA_TNUMBER)
    dlxl_error(L, DLX_TYPE_ERROR, "%s must be a number, got %s", what, dlxl_typename(L, idx));
  return (double)lua_tonumber(L, idx);
}

/* t:uniform_([a = 0, b = 1][, opts]) -> t, filled with uniforms in [a, b). */
static int tensor_uniform_(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  dlx_random_request r = {.kind = DLX_RANDOM_UNIFORM};
  dlxl_placement p;
  dlx_generator *g;
  r.a = check_number(L, 2, 0, "uniform_: a");
  r.b = check_number(L, 3, 1, "uniform_: b");
  g = check_opts(L, 4, "uniform_", false, &p);
  fill(L, g, lua_touserdata(L, 1), t, NULL, &r, "uniform_");
  lua_settop(L, 1);
  return 1;
}

/* t:normal_([mean = 0, std = 1][, opts]) -> t, filled with normals. */
static int tensor_normal_(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  dlx_random_request r = {.kind = DLX_RANDOM_NORMAL};
  dlxl_placement p;
  dlx_generator *g;
  r.a = check_number(L, 2, 0, "normal_: mean");
  r.b = check_number(L, 3, 1, "normal_: std");
  g = check_opts(L, 4, "normal_", false, &p);
  fill(L, g, lua_touserdata(L, 1), t, NULL, &r, "normal_");
  lua_settop(L, 1);
  return 1;
}

const luaL_Reg dlxl_random_funcs[] = {
    {"manual_seed", api_manual_seed},
    {"Generator", api_generator},
    {"rand", api_rand},
    {"randn", api_randn},
    {"randint", api_randint},
    {"randperm", api_randperm},
    {NULL, NULL},
};

const luaL_Reg dlxl_random_methods[] = {
    {"uniform_", tensor_uniform_},
    {"normal_", tensor_normal_},
    {NULL, NULL},
};
