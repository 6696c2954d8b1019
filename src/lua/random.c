/* random.c -- random numbers: dlx.manual_seed, dlx.Generator (a userdata holding a seed and a
 * counter), dlx.rand, randn, randint, randperm, bernoulli, multinomial, poisson, normal and
 * t:uniform_, t:normal_, bernoulli_, exponential_, cauchy_, log_normal_, geometric_, random_,
 * over core/random.h.
 * Each Lua state has its own default generator, so that scripts in different states (threads)
 * never draw from each other's sequence. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/ops.h"
#include "core/promote.h"
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
 * takes: `placed` false for the methods filling a tensor, which only take the generator). The
 * generator used ends up on the stack; the placement's dtype is -1 when not given. The device
 * and memory default to like's when like is not NULL (a parameter tensor), else to the state's
 * default device. */
static dlx_generator *check_opts_like(lua_State *L, int idx, const char *fname, bool placed,
                                      dlxl_placement *p, const dlx_tensor *like) {
  static const char *const all[] = {"dtype", "device", "usm", "generator", NULL};
  static const char *const only_generator[] = {"generator", NULL};
  const char *const *known = placed ? all : only_generator;
  int count = placed ? 4 : 1, others, top, found = 0;
  dlx_generator *g;
  p->dtype = -1;
  p->memory = DLX_MEMORY_DEFAULT;
  if (lua_isnoneornil(L, idx)) {
    if (placed) p->device = like != NULL ? dlx_tensor_device(like) : dlxl_default_device(L);
    if (placed && like != NULL) p->memory = dlx_tensor_memory(like);
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
    p->device = !lua_isnil(L, top - 2) ? dlxl_checkdevice(L, top - 2)
                : like != NULL         ? dlx_tensor_device(like)
                                       : dlxl_default_device(L);
    if (like != NULL && lua_isnil(L, top - 2)) p->memory = dlx_tensor_memory(like);
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

static dlx_generator *check_opts(lua_State *L, int idx, const char *fname, bool placed,
                                 dlxl_placement *p) {
  return check_opts_like(L, idx, fname, placed, p, NULL);
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

/* Pushes a new tensor of shape[0 .. ndim) filled as r asks, placed as the options at opts_idx say
 * (def: the dtype when they name none; like: see check_opts_like). */
static int push_filled(lua_State *L, const int64_t *shape, int32_t ndim, int opts_idx,
                       const char *fname, dlx_dtype def, const dlx_tensor *like,
                       dlx_random_request *r) {
  dlxl_placement p;
  dlx_generator *g = check_opts_like(L, opts_idx, fname, true, &p, like);
  dlx_tensor view;
  dlx_dtype dtype = p.dtype >= 0 ? (dlx_dtype)p.dtype : def;
  dlx_kind kind = dlx_dtype_kind(dtype);
  /* randint makes integers only (random_ fills floats and bool with them too) */
  if (r->kind == DLX_RANDOM_INT && kind != DLX_KIND_INT && kind != DLX_KIND_UINT)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: dtype %s is not an integer dtype", fname,
               dlx_dtype_info_of(dtype)->name);
  dlxl_tensor *out = dlxl_pushempty(L, NULL, shape, ndim, dtype, p.device, p.memory, &view);
  fill(L, g, out, &view, out, r, fname);
  dlxl_gcdebt(L, dlx_tensor_nbytes(&view));
  return 1;
}

/* Pushes a new tensor of the shape at shape_idx filled as r asks. */
static int push_random(lua_State *L, int shape_idx, int opts_idx, const char *fname, dlx_dtype def,
                       dlx_random_request *r) {
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim = dlxl_checkshape(L, shape_idx, shape, false);
  return push_filled(L, shape, ndim, opts_idx, fname, def, NULL, r);
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

/* ---- the distributions: Bernoulli, exponential, Cauchy, log-normal, geometric, Poisson,
 * normal with tensor parameters, random_ and multinomial (src/common/distributions.h) */

/* A parameter at idx: a tensor (*t its view, kept valid by the userdata on the stack) or a number
 * (*x; def when absent, and absent is a TypeError when required). */
static void check_param(lua_State *L, int idx, double def, bool required, const char *what,
                        dlx_tensor *view, const dlx_tensor **t, double *x) {
  *t = NULL;
  if (dlxl_totensor(L, idx) != NULL) {
    *t = dlxl_checktensor(L, idx, view);
    return;
  }
  if (lua_isnoneornil(L, idx) && !required) {
    *x = def;
    return;
  }
  if (lua_type(L, idx) != LUA_TNUMBER)
    dlxl_error(L, DLX_TYPE_ERROR, "%s must be a number or a tensor, got %s", what,
               dlxl_typename(L, idx));
  *x = (double)lua_tonumber(L, idx);
}

/* Fills the tensor at 1 in place as r asks, with the generator of the options at opts_idx, and
 * returns it. */
static int fill_self(lua_State *L, dlx_random_request *r, int opts_idx, const char *fname) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  dlxl_placement p;
  dlx_generator *g = check_opts(L, opts_idx, fname, false, &p);
  fill(L, g, lua_touserdata(L, 1), t, NULL, r, fname);
  lua_settop(L, 1);
  return 1;
}

/* t:bernoulli_([p = 0.5][, opts]) -> t: 1 with probability p, else 0; p a number or a tensor
 * broadcasting to t. */
static int tensor_bernoulli_(lua_State *L) {
  dlx_tensor pview;
  dlx_random_request r = {.kind = DLX_RANDOM_BERNOULLI};
  check_param(L, 2, 0.5, false, "bernoulli_: p", &pview, &r.ta, &r.a);
  return fill_self(L, &r, 3, "bernoulli_");
}

/* t:exponential_([lambda = 1][, opts]) -> t. */
static int tensor_exponential_(lua_State *L) {
  dlx_random_request r = {.kind = DLX_RANDOM_EXPONENTIAL};
  r.a = check_number(L, 2, 1, "exponential_: lambda");
  return fill_self(L, &r, 3, "exponential_");
}

/* t:cauchy_([median = 0, sigma = 1][, opts]) -> t. */
static int tensor_cauchy_(lua_State *L) {
  dlx_random_request r = {.kind = DLX_RANDOM_CAUCHY};
  r.a = check_number(L, 2, 0, "cauchy_: median");
  r.b = check_number(L, 3, 1, "cauchy_: sigma");
  return fill_self(L, &r, 4, "cauchy_");
}

/* t:log_normal_([mean = 1, std = 2][, opts]) -> t: e^x for x normal (PyTorch's defaults). */
static int tensor_log_normal_(lua_State *L) {
  dlx_random_request r = {.kind = DLX_RANDOM_LOG_NORMAL};
  r.a = check_number(L, 2, 1, "log_normal_: mean");
  r.b = check_number(L, 3, 2, "log_normal_: std");
  return fill_self(L, &r, 4, "log_normal_");
}

/* t:geometric_(p[, opts]) -> t: the trial of the first success, 1, 2, ... */
static int tensor_geometric_(lua_State *L) {
  dlx_random_request r = {.kind = DLX_RANDOM_GEOMETRIC};
  if (lua_isnoneornil(L, 2))
    return dlxl_error(L, DLX_TYPE_ERROR, "geometric_: p must be a number, got %s",
                      dlxl_typename(L, 2));
  r.a = check_number(L, 2, 0, "geometric_: p");
  return fill_self(L, &r, 3, "geometric_");
}

/* random_()'s range for t's dtype: [0, max] of an integer dtype (2^63 - 1 for 64 bits), [0, 2^s]
 * of a float dtype of s significand bits, [0, 1] of bool. */
static uint64_t default_range(dlx_dtype dtype) {
  int bits = dlx_random_float_bits(dtype);
  if (bits != 0) return (UINT64_C(1) << bits) + 1;
  if (dtype == DLX_BOOL) return 2;
  if (dlx_dtype_bits(dtype) == 64) return UINT64_C(1) << 63;
  return dlx_dtype_kind(dtype) == DLX_KIND_INT ? UINT64_C(1) << (dlx_dtype_bits(dtype) - 1)
                                               : UINT64_C(1) << dlx_dtype_bits(dtype);
}

/* t:random_([[low,] high][, opts]) -> t: integers in [low, high) (low 0 when only high is given;
 * default_range when neither is). */
static int tensor_random_(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  dlx_random_request r = {.kind = DLX_RANDOM_INT};
  int given = lua_type(L, 2) == LUA_TNUMBER ? (lua_type(L, 3) == LUA_TNUMBER ? 2 : 1) : 0;
  lua_Integer low = given == 2 ? dlxl_checkinteger(L, 2, "random_: low") : 0;
  if (given == 0) {
    r.range = default_range(t->dtype);
  } else {
    lua_Integer high = dlxl_checkinteger(L, given == 2 ? 3 : 2, "random_: high");
    if (low >= high)
      return dlxl_error(L, DLX_VALUE_ERROR, "random_: low (%lld) must be less than high (%lld)",
                        (long long)low, (long long)high);
    r.range = (uint64_t)high - (uint64_t)low;
  }
  r.low = low;
  return fill_self(L, &r, 2 + given, "random_");
}

/* The default dtype of a result made from a parameter tensor t: its own when it is a float
 * dtype, else float32. */
static dlx_dtype float_or_float32(const dlx_tensor *t) {
  return dlx_random_float_bits(t->dtype) != 0 ? t->dtype : DLX_FLOAT32;
}

/* dlx.bernoulli(p[, opts]) with p a tensor (a result of its shape, dtype and device unless opts
 * say otherwise), or dlx.bernoulli(p, shape[, opts]) with p a number (float32). */
static int api_bernoulli(lua_State *L) {
  dlx_tensor pview;
  dlx_random_request r = {.kind = DLX_RANDOM_BERNOULLI};
  check_param(L, 1, 0, true, "bernoulli: p", &pview, &r.ta, &r.a);
  if (r.ta == NULL) return push_random(L, 2, 3, "bernoulli", DLX_FLOAT32, &r);
  return push_filled(L, r.ta->shape, r.ta->ndim, 2, "bernoulli", float_or_float32(r.ta), r.ta, &r);
}

/* dlx.poisson(rates[, opts]): a Poisson count of each rate, of the rates' shape, dtype and
 * device unless opts say otherwise. */
static int api_poisson(lua_State *L) {
  dlx_tensor view;
  dlx_random_request r = {.kind = DLX_RANDOM_POISSON};
  if (dlxl_totensor(L, 1) == NULL)
    return dlxl_error(L, DLX_TYPE_ERROR, "poisson: rates must be a tensor, got %s",
                      dlxl_typename(L, 1));
  r.ta = dlxl_checktensor(L, 1, &view);
  return push_filled(L, r.ta->shape, r.ta->ndim, 2, "poisson", float_or_float32(r.ta), r.ta, &r);
}

/* The NumPy broadcast of a's and b's shapes into shape (*ndim dims), or a ValueError. */
static int32_t broadcast_params(lua_State *L, const dlx_tensor *a, const dlx_tensor *b,
                                int64_t *shape) {
  int32_t n = a->ndim > b->ndim ? a->ndim : b->ndim;
  for (int32_t i = 0; i < n; i++) {
    int64_t sa = i < n - a->ndim ? 1 : a->shape[i - (n - a->ndim)];
    int64_t sb = i < n - b->ndim ? 1 : b->shape[i - (n - b->ndim)];
    if (sa != sb && sa != 1 && sb != 1) {
      char ta[DLX_SHAPE_TEXT], tb[DLX_SHAPE_TEXT];
      dlxl_error(L, DLX_VALUE_ERROR, "normal: the shapes of mean %s and std %s do not broadcast",
                 dlx_shape_text(ta, sizeof ta, a->shape, a->ndim),
                 dlx_shape_text(tb, sizeof tb, b->shape, b->ndim));
    }
    shape[i] = sa == 1 ? sb : sa;
  }
  return n;
}

/* dlx.normal(mean, std[, shape][, opts]): normals of each mean and std, numbers or tensors.
 * Numbers both: a new tensor of shape (float32); else the tensors' broadcast shape, their float
 * dtype (promoted when both are) and device. */
static int api_normal(lua_State *L) {
  dlx_tensor aview, bview;
  dlx_random_request r = {.kind = DLX_RANDOM_NORMAL};
  const dlx_tensor *like;
  dlx_dtype dtype = DLX_FLOAT32;
  int64_t shape[DLX_MAX_NDIM];
  int32_t ndim;
  check_param(L, 1, 0, true, "normal: mean", &aview, &r.ta, &r.a);
  check_param(L, 2, 0, true, "normal: std", &bview, &r.tb, &r.b);
  if (r.ta == NULL && r.tb == NULL) return push_random(L, 3, 4, "normal", DLX_FLOAT32, &r);
  if (r.ta != NULL && r.tb != NULL) {
    dlx_error err;
    ndim = broadcast_params(L, r.ta, r.tb, shape);
    if (dlx_random_float_bits(r.ta->dtype) != 0 && dlx_random_float_bits(r.tb->dtype) != 0)
      dlxl_check(L, dlx_result_dtype(r.ta->dtype, r.tb->dtype, &dtype, &err), &err);
    else
      dtype = float_or_float32(dlx_random_float_bits(r.ta->dtype) != 0 ? r.ta : r.tb);
    like = r.ta;
  } else {
    like = r.ta != NULL ? r.ta : r.tb;
    ndim = like->ndim;
    memcpy(shape, like->shape, (size_t)ndim * sizeof shape[0]);
    dtype = float_or_float32(like);
  }
  return push_filled(L, shape, ndim, 3, "normal", dtype, like, &r);
}

/* dlx.multinomial(weights, n[, opts]): n draws from each row of weights (1-d or 2-d), 1-based
 * positions as int64; opts: {replacement = false, generator =}. */
static int api_multinomial(lua_State *L) {
  static const char *const known[] = {"replacement", "generator", NULL};
  dlx_tensor view, made;
  const dlx_tensor *w = dlxl_checktensor(L, 1, &view);
  lua_Integer n = dlxl_checkinteger(L, 2, "multinomial: n");
  bool replacement = false;
  dlx_generator *g = NULL;
  dlxl_tensor *out;
  dlx_error err;
  bool retried = false;
  int rc, top, found = 0, others = 0;
  if (!lua_isnoneornil(L, 3)) {
    if (lua_type(L, 3) != LUA_TTABLE)
      return dlxl_error(L, DLX_TYPE_ERROR,
                        "multinomial: opts must be a table {replacement =, generator =}, not a %s",
                        dlxl_typename(L, 3));
    others = dlxl_pushoptions(L, 3, known, 2);
    top = lua_gettop(L);
    found = !lua_isnil(L, top - 1) + !lua_isnil(L, top);
    replacement = dlxl_optboolean(L, top - 1, "multinomial: replacement");
    if (!lua_isnil(L, top)) g = check_generator(L, top);
    if (others != 0) dlxl_checkoptions(L, 3, "multinomial", known, found);
  }
  if (g == NULL) g = push_default(L);
  out = dlxl_newtensor(L, w->ndim);
  do rc = dlx_multinomial(&made, g, w, (int64_t)n, replacement, &err);
  while (dlxl_reclaim(L, rc, &retried, lua_touserdata(L, 1)));
  dlxl_check(L, rc, &err);
  dlxl_settensor(L, out, &made);
  dlxl_gcdebt(L, dlx_tensor_nbytes(&made));
  return 1;
}

const luaL_Reg dlxl_random_funcs[] = {
    {"manual_seed", api_manual_seed},
    {"Generator", api_generator},
    {"rand", api_rand},
    {"randn", api_randn},
    {"randint", api_randint},
    {"randperm", api_randperm},
    /* the distributions */
    {"bernoulli", api_bernoulli},
    {"multinomial", api_multinomial},
    {"poisson", api_poisson},
    {"normal", api_normal},
    {NULL, NULL},
};

const luaL_Reg dlxl_random_methods[] = {
    {"uniform_", tensor_uniform_},
    {"normal_", tensor_normal_},
    /* the distributions */
    {"bernoulli_", tensor_bernoulli_},
    {"exponential_", tensor_exponential_},
    {"cauchy_", tensor_cauchy_},
    {"log_normal_", tensor_log_normal_},
    {"geometric_", tensor_geometric_},
    {"random_", tensor_random_},
    {NULL, NULL},
};
