/*
 * floor.c -- the Lua C module bench_floor: the cheapest C implementation of each call shape that
 * bench/overhead.lua times in dlx, so that the overhead table can show how far a call sits above
 * what Lua itself costs for that shape (bench/overhead.py explains the column).
 *
 * Each function does what the matching dlx call cannot avoid and nothing more: it reads its
 * arguments (a shape table, an options table), makes a full userdata of a minimal tensor header
 * with a __gc metamethod, mallocs the data block, and keeps the block refcounted so that views
 * and capsules share it. No dtype, device or stride handling, no errors beyond what keeps it
 * memory-safe, no thread safety (plain counts): anything dlx does on top is dlx's cost.
 *
 *   new(shape[, value])         a float32 tensor of the shape's size (filled with value if given)
 *   new_opts(shape, opts)       the same, reading opts.dtype ("float64" makes 8-byte elements)
 *   arange(n)                   n float32 values 0, 1, ..., n - 1
 *   from_values(list)           the list's numbers as doubles
 *   alias(u)                    a new userdata over u's block (from_dlpack of a tensor)
 *   is_tensor(v)                whether v is one of these userdata (a plain C call)
 *   capsule(u, opts)            reads opts.max_version[1], mallocs a struct holding u's block,
 *                               returns a capsule userdata whose __gc frees it unless consumed
 *   import(capsule)             consumes a capsule into a tensor userdata, freeing the struct
 *   u.shape                     a new 1-element table (through the __index metamethod)
 *   u:view(shape)               a userdata sharing u's block, with the shape table read
 *   u:sum()                     the sum of u's float32 values in a new 1-element tensor
 *   u + v                       a new tensor of the float32 sums of u's and v's elements
 *                               (__add: two userdata in, one out; same element count)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

/* The data block: a count of holders, then the data. */
typedef struct block {
  long refs;
  size_t nbytes;
  unsigned char data[]; /* at offset 16: malloc's alignment holds for any element */
} block;

/* The userdata: what a minimal tensor header needs (64 bytes). */
typedef struct header {
  block *b;
  int64_t shape[4];
  int32_t ndim;
  int32_t itemsize;
  int64_t numel;
  int64_t offset;
} header;

/* The struct behind a capsule (the size of a DLManagedTensorVersioned, roughly). */
typedef struct exported {
  block *b;
  int64_t shape[4];
  uint64_t flags;
  uint32_t version[2];
  void *spare[4];
} exported;

typedef struct capsule {
  exported *e; /* NULL once consumed */
} capsule;

/* Upvalues of every function: 1 the tensor metatable, 2 the capsule metatable. */
#define TENSOR_MT lua_upvalueindex(1)
#define CAPSULE_MT lua_upvalueindex(2)

static void drop(block *b) {
  if (--b->refs == 0) free(b);
}

static int header_gc(lua_State *L) {
  header *h = lua_touserdata(L, 1);
  if (h->b != NULL) drop(h->b);
  h->b = NULL;
  return 0;
}

static int capsule_gc(lua_State *L) {
  capsule *c = lua_touserdata(L, 1);
  if (c->e != NULL) {
    drop(c->e->b);
    free(c->e);
  }
  c->e = NULL;
  return 0;
}

/* The userdata at idx if its metatable is mt (an upvalue index), else an error. */
static void *check(lua_State *L, int idx, int mt) {
  void *p = lua_touserdata(L, idx);
  if (p == NULL || !lua_getmetatable(L, idx) || !lua_rawequal(L, -1, mt))
    luaL_argerror(L, idx, "not the expected userdata");
  lua_pop(L, 1);
  return p;
}

/* A new tensor userdata over b (whose reference it takes), 1-d of numel. */
static header *push_header(lua_State *L, block *b, int64_t numel, int32_t itemsize) {
  header *h = lua_newuserdatauv(L, sizeof(header), 0);
  h->b = b;
  h->shape[0] = numel;
  h->ndim = 1;
  h->itemsize = itemsize;
  h->numel = numel;
  h->offset = 0;
  lua_pushvalue(L, TENSOR_MT);
  lua_setmetatable(L, -2);
  return h;
}

/* A new block of nbytes, with one reference; the userdata is made first so that a failed malloc
 * leaves only a userdata with a NULL block. */
static header *push_new(lua_State *L, int64_t numel, int32_t itemsize) {
  header *h = push_header(L, NULL, numel, itemsize);
  size_t nbytes = (size_t)numel * (size_t)itemsize;
  block *b = malloc(sizeof(block) + nbytes);
  if (b == NULL) luaL_error(L, "MemoryError: out of memory");
  b->refs = 1;
  b->nbytes = nbytes;
  h->b = b;
  return h;
}

/* The product of the shape table at idx (integers >= 0, up to 4 of them). */
static int64_t shape_numel(lua_State *L, int idx) {
  lua_Integer n = luaL_len(L, idx), numel = 1;
  luaL_argcheck(L, n <= 4, idx, "at most 4 dims");
  for (lua_Integer i = 1; i <= n; i++) {
    int ok;
    lua_Integer d;
    lua_geti(L, idx, i);
    d = lua_tointegerx(L, -1, &ok);
    lua_pop(L, 1);
    luaL_argcheck(L, ok && d >= 0 && d <= (1 << 20), idx, "dims are small integers");
    numel *= d;
  }
  luaL_argcheck(L, numel <= (1 << 20), idx, "too many elements");
  return numel;
}

static int f_new(lua_State *L) {
  int64_t numel;
  int fill = !lua_isnoneornil(L, 2);
  float v = fill ? (float)luaL_checknumber(L, 2) : 0, *p;
  luaL_checktype(L, 1, LUA_TTABLE);
  numel = shape_numel(L, 1);
  p = (float *)push_new(L, numel, 4)->b->data;
  if (fill)
    for (int64_t i = 0; i < numel; i++) p[i] = v;
  return 1;
}

static int f_new_opts(lua_State *L) {
  int64_t numel;
  int32_t itemsize = 4;
  const char *dtype;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  numel = shape_numel(L, 1);
  lua_getfield(L, 2, "dtype");
  dtype = lua_tostring(L, -1);
  if (dtype != NULL && strcmp(dtype, "float64") == 0) itemsize = 8;
  lua_pop(L, 1);
  push_new(L, numel, itemsize);
  return 1;
}

static int f_arange(lua_State *L) {
  lua_Integer n = luaL_checkinteger(L, 1);
  float *p;
  luaL_argcheck(L, n >= 0 && n <= (1 << 20), 1, "a small count");
  p = (float *)push_new(L, n, 4)->b->data;
  for (lua_Integer i = 0; i < n; i++) p[i] = (float)i;
  return 1;
}

static int f_from_values(lua_State *L) {
  lua_Integer n;
  double *p;
  luaL_checktype(L, 1, LUA_TTABLE);
  n = luaL_len(L, 1);
  luaL_argcheck(L, n >= 0 && n <= (1 << 20), 1, "a short list");
  p = (double *)push_new(L, n, 8)->b->data;
  for (lua_Integer i = 0; i < n; i++) {
    lua_geti(L, 1, i + 1);
    p[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  return 1;
}

static int f_alias(lua_State *L) {
  header *src = check(L, 1, TENSOR_MT), *h;
  luaL_argcheck(L, src->b != NULL, 1, "no data");
  h = push_header(L, src->b, src->numel, src->itemsize);
  src->b->refs++;
  *h = *src;
  return 1;
}

static int f_is_tensor(lua_State *L) {
  int yes =
      lua_touserdata(L, 1) != NULL && lua_getmetatable(L, 1) && lua_rawequal(L, -1, TENSOR_MT);
  lua_pushboolean(L, yes);
  return 1;
}

static int f_capsule(lua_State *L) {
  header *src = check(L, 1, TENSOR_MT);
  lua_Integer major = 0;
  capsule *c;
  exported *e;
  luaL_argcheck(L, src->b != NULL, 1, "no data");
  if (lua_istable(L, 2)) {
    if (lua_getfield(L, 2, "max_version") == LUA_TTABLE) {
      lua_geti(L, -1, 1);
      major = lua_tointeger(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  c = lua_newuserdatauv(L, sizeof(capsule), 0);
  c->e = NULL;
  lua_pushvalue(L, CAPSULE_MT);
  lua_setmetatable(L, -2);
  e = malloc(sizeof(exported));
  if (e == NULL) return luaL_error(L, "MemoryError: out of memory");
  memset(e, 0, sizeof *e);
  e->b = src->b;
  src->b->refs++;
  memcpy(e->shape, src->shape, sizeof e->shape);
  e->version[0] = (uint32_t)(major >= 1 ? 1 : 0);
  e->version[1] = 3;
  c->e = e;
  return 1;
}

static int f_import(lua_State *L) {
  capsule *c = check(L, 1, CAPSULE_MT);
  exported *e = c->e;
  luaL_argcheck(L, e != NULL, 1, "consumed");
  c->e = NULL;
  push_header(L, e->b, e->shape[0], 4); /* the struct's reference moves to the tensor */
  free(e);
  return 1;
}

static int m_view(lua_State *L) {
  header *src = check(L, 1, TENSOR_MT), *h;
  int64_t numel;
  lua_Integer n;
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_argcheck(L, src->b != NULL, 1, "no data");
  numel = shape_numel(L, 2);
  luaL_argcheck(L, numel == src->numel, 2, "the same number of elements");
  n = luaL_len(L, 2);
  h = push_header(L, src->b, numel, src->itemsize);
  src->b->refs++;
  h->ndim = (int32_t)n;
  for (lua_Integer i = 0; i < n; i++) {
    lua_geti(L, 2, i + 1);
    h->shape[i] = lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
  return 1;
}

static int m_sum(lua_State *L) {
  header *src = check(L, 1, TENSOR_MT);
  const float *p;
  float s = 0;
  luaL_argcheck(L, src->b != NULL && src->itemsize == 4, 1, "float32 data");
  p = (const float *)src->b->data;
  for (int64_t i = 0; i < src->numel; i++) s += p[i];
  memcpy(push_new(L, 1, 4)->b->data, &s, sizeof s);
  return 1;
}

static int header_add(lua_State *L) {
  header *a = check(L, 1, TENSOR_MT), *b = check(L, 2, TENSOR_MT);
  const float *x, *y;
  float *z;
  luaL_argcheck(L, a->b != NULL && a->itemsize == 4, 1, "float32 data");
  luaL_argcheck(L, b->b != NULL && b->itemsize == 4 && b->numel == a->numel, 2,
                "float32 data of the same size");
  x = (const float *)a->b->data;
  y = (const float *)b->b->data;
  z = (float *)push_new(L, a->numel, 4)->b->data;
  for (int64_t i = 0; i < a->numel; i++) z[i] = x[i] + y[i];
  return 1;
}

/* __index: the shape property, else a method (upvalue 3, the methods table). */
static int header_index(lua_State *L) {
  const char *key = lua_tostring(L, 2);
  if (key != NULL && strcmp(key, "shape") == 0) {
    header *h = check(L, 1, TENSOR_MT);
    lua_createtable(L, h->ndim, 0);
    for (int32_t i = 0; i < h->ndim; i++) {
      lua_pushinteger(L, h->shape[i]);
      lua_rawseti(L, -2, i + 1);
    }
    return 1;
  }
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(3));
  return 1;
}

static const luaL_Reg functions[] = {
    {"new", f_new},         {"new_opts", f_new_opts},
    {"arange", f_arange},   {"from_values", f_from_values},
    {"alias", f_alias},     {"is_tensor", f_is_tensor},
    {"capsule", f_capsule}, {"import", f_import},
    {NULL, NULL},
};

static const luaL_Reg methods[] = {
    {"view", m_view},
    {"sum", m_sum},
    {NULL, NULL},
};

int luaopen_bench_floor(lua_State *L);

int luaopen_bench_floor(lua_State *L) {
  int tensor_mt, capsule_mt, method_table;
  lua_newtable(L); /* the module */
  lua_newtable(L);
  tensor_mt = lua_gettop(L);
  lua_newtable(L);
  capsule_mt = lua_gettop(L);
  lua_newtable(L);
  method_table = lua_gettop(L);
  lua_pushcfunction(L, header_gc);
  lua_setfield(L, tensor_mt, "__gc");
  lua_pushcfunction(L, capsule_gc);
  lua_setfield(L, capsule_mt, "__gc");
  /* every function and method sees both metatables; __index also the methods */
  lua_pushvalue(L, tensor_mt);
  lua_pushvalue(L, capsule_mt);
  luaL_setfuncs(L, methods, 2);
  lua_pushvalue(L, tensor_mt);
  lua_pushvalue(L, capsule_mt);
  lua_pushvalue(L, method_table);
  lua_pushcclosure(L, header_index, 3);
  lua_setfield(L, tensor_mt, "__index");
  lua_pushvalue(L, tensor_mt);
  lua_pushvalue(L, capsule_mt);
  lua_pushcclosure(L, header_add, 2);
  lua_setfield(L, tensor_mt, "__add");
  lua_settop(L, capsule_mt);
  luaL_setfuncs(L, functions, 2); /* into the module, below the two metatables */
  return 1;
}
