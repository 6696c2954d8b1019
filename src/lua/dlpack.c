/* dlpack.c -- DLPack in Lua, under the Python array API's rules: the producer side,
 * t:__dlpack{...} and t:__dlpack_device() (the core's dlx_export applies the rules), and the
 * consumer side, dlx.from_dlpack. The consumer takes dlx's own tensors and capsules here, in C;
 * any other producer is asked for a capsule by lua/dlx/dlpack.lua, under the whole protocol. */
#include "lua/args.h"
#include "lua/capsule.h"
#include "lua/copies.h"
#include "lua/device.h"
#include "lua/errors.h"
#include "lua/memory.h"
#include "lua/result.h"
#include "lua/state.h"
#include "lua/stream.h"
#include "lua/tables.h"
#include "lua/tensor.h"

/* ---- t:__dlpack(opts) */

/* Each reader gets the value's Lua type, read once by read_export_options. */
static void read_max_version(lua_State *L, int idx, int type, dlx_export_options *opts) {
  int isint = 0, minor_isint = 0;
  lua_Integer major = 0, minor = 0;
  if (type == LUA_TNIL) return; /* legacy */
  if (type != LUA_TTABLE)
    dlxl_error(L, DLX_TYPE_ERROR, "max_version must be a table {major, minor}, got %s",
               dlxl_typename(L, idx));
  /* lua_tointegerx also takes floats and strings: the rawgeti type says which is a number, and
   * lua_isinteger which number is an integer */
  if (lua_rawgeti(L, idx, 1) == LUA_TNUMBER && lua_isinteger(L, -1))
    major = lua_tointegerx(L, -1, &isint);
  if (lua_rawgeti(L, idx, 2) == LUA_TNUMBER && lua_isinteger(L, -1))
    minor = lua_tointegerx(L, -1, &minor_isint);
  if (!isint || !minor_isint || major < 0 || minor < 0)
    dlxl_error(L, DLX_TYPE_ERROR,
               "max_version must be a table {major, minor} of integers >= 0, "
               "such as {1, 3}");
  lua_pop(L, 2);
  opts->versioned = major >= 1;
}

static void read_dl_device(lua_State *L, int idx, int type, dlx_export_options *opts) {
  lua_Integer device_type, id;
  if (type == LUA_TNIL) return;
  if (type == LUA_TTABLE) {
    lua_rawgeti(L, idx, 1);
    lua_rawgeti(L, idx, 2);
  } else {
    lua_pushnil(L);
    lua_pushnil(L);
  }
  device_type = lua_tointeger(L, -2);
  id = lua_tointeger(L, -1);
  if (!lua_isinteger(L, -2) || !lua_isinteger(L, -1) || device_type < 0 ||
      device_type > INT32_MAX || id < 0 || id > INT32_MAX)
    dlxl_error(L, DLX_TYPE_ERROR,
               "dl_device must be a pair {device_type, device_id} of "
               "integers >= 0, such as {1, 0}, got %s",
               dlxl_typename(L, idx));
  lua_pop(L, 2);
  opts->has_dl_device = true;
  opts->dl_device.device_type = (DLDeviceType)device_type;
  opts->dl_device.device_id = (int32_t)id;
}

static void read_copy(lua_State *L, int idx, int type, dlx_export_options *opts) {
  if (type == LUA_TNIL) return;
  if (type != LUA_TBOOLEAN)
    dlxl_error(L, DLX_TYPE_ERROR, "copy must be true, false or nil, got %s", dlxl_typename(L, idx));
  opts->copy = lua_toboolean(L, idx) ? DLX_COPY_ALWAYS : DLX_COPY_NEVER;
}

/* A dlx.Stream, or an integer, passed on to the core (which refuses any stream for CPU memory).
 * Another value is a ValueError for CPU memory, like any stream, and a TypeError for devices with
 * streams. */
static void read_stream(lua_State *L, int idx, DLDevice target, dlx_export_options *opts) {
  char name[48];
  if (lua_isnil(L, idx)) return;
  if (dlxl_tostreamvalue(L, idx, &opts->stream)) { /* a dlx.Stream names its stream value */
    opts->has_stream = true;
    if (dlx_device_type_is_host_like(target.device_type))
      dlxl_error(L, DLX_VALUE_ERROR,
                 "stream must be nil for a %s export: CPU memory has no streams",
                 dlx_device_format(target, name, sizeof name));
    return;
  }
  if (!lua_isinteger(L, idx) && dlx_device_type_is_host_like(target.device_type))
    dlxl_error(L, DLX_VALUE_ERROR,
               "stream must be nil for a %s export (got %s): CPU memory has "
               "no streams",
               dlx_device_format(target, name, sizeof name), luaL_tolstring(L, idx, NULL));
  if (!lua_isinteger(L, idx))
    dlxl_error(L, DLX_TYPE_ERROR, "stream must be an integer or nil, got %s",
               lua_type(L, idx) == LUA_TNUMBER ? "a float" : dlxl_typename(L, idx));
  opts->has_stream = true;
  opts->stream = (int64_t)lua_tointeger(L, idx);
}

/* opts: nil or {stream =, max_version =, dl_device =, copy =}, for an export of t. */
static void read_export_options(lua_State *L, int idx, const dlx_tensor *t,
                                dlx_export_options *opts) {
  opts->versioned = false;
  opts->copy = DLX_COPY_IF_NEEDED;
  opts->has_dl_device = false;
  opts->has_stream = false;
  opts->stream = 0;
  static const char *const known[] = {"stream", "max_version", "dl_device", "copy", NULL};
  int found = 0, others, stream, types[4];
  int type = lua_type(L, idx);
  if (type == LUA_TNIL || type == LUA_TNONE) return;
  if (type != LUA_TTABLE)
    dlxl_error(L, DLX_TYPE_ERROR,
               "__dlpack options must be a table {stream =, max_version =, "
               "dl_device =, copy =}, got %s",
               dlxl_typename(L, idx));
  others = dlxl_pushoptions(L, idx, known, 4);
  stream = lua_gettop(L) - 3; /* stream, max_version, dl_device and copy are the last four values */
  for (int i = 0; i < 4; i++) found += (types[i] = lua_type(L, stream + i)) != LUA_TNIL;
  read_max_version(L, stream + 1, types[1], opts);
  read_dl_device(L, stream + 2, types[2], opts);
  read_copy(L, stream + 3, types[3], opts);
  if (types[0] != LUA_TNIL)
    read_stream(L, stream, opts->has_dl_device ? opts->dl_device : dlx_tensor_device(t), opts);
  lua_pop(L, 4);
  if (others != 0) dlxl_checkoptions(L, idx, "__dlpack", known, found);
}

/* Exports t (a view of u) into the fresh capsule c. */
static void export_into(lua_State *L, const dlxl_tensor *u, const dlx_tensor *t,
                        const dlx_export_options *opts, dlxl_capsule *c) {
  DLManagedTensorVersioned *versioned = NULL;
  DLManagedTensor *legacy = NULL;
  const DLTensor *dl;
  dlx_error err;
  bool retried = false;
  int rc;
  do rc = dlx_export(t, opts, &versioned, &legacy, &err);
  while (dlxl_reclaim(L, rc, &retried, u));
  dlxl_check(L, rc, &err);
  c->versioned = versioned != NULL;
  c->ptr = versioned != NULL ? (void *)versioned : (void *)legacy;
  dl = versioned != NULL ? &versioned->dl_tensor : &legacy->dl_tensor;
  if (dl->data != t->buffer->data) dlxl_gcdebt(L, dlx_tensor_nbytes(t)); /* a copy */
}

static int tensor_dlpack(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  dlx_export_options opts;
  read_export_options(L, 2, t, &opts);
  export_into(L, lua_touserdata(L, 1), t, &opts, dlxl_newcapsule(L));
  return 1;
}

/* t:__dlpack_device() -> device_type, device_id */
static int tensor_dlpack_device(lua_State *L) {
  dlx_tensor view;
  DLDevice device = dlx_tensor_device(dlxl_checktensor(L, 1, &view));
  lua_pushinteger(L, device.device_type);
  lua_pushinteger(L, device.device_id);
  return 2;
}

/* ---- dlx.from_dlpack(x[, opts]) */

typedef struct consume_options {
  bool has_target;
  DLDevice target; /* opts.device */
  int copy;        /* opts.copy: -1 for nil, else 0 or 1 */
} consume_options;

static void read_consume_options(lua_State *L, int idx, consume_options *opts) {
  static const char *const known[] = {"device", "copy", NULL};
  int found = 0;
  opts->has_target = false;
  opts->copy = -1;
  if (lua_isnoneornil(L, idx)) return;
  if (lua_type(L, idx) != LUA_TTABLE)
    dlxl_error(L, DLX_TYPE_ERROR,
               "from_dlpack options must be a table {device =, copy =}, not a %s",
               dlxl_typename(L, idx));
  if (lua_getfield(L, idx, "copy") != LUA_TNIL) {
    found++;
    if (!lua_isboolean(L, -1))
      dlxl_error(L, DLX_TYPE_ERROR, "from_dlpack copy must be true, false or nil, not a %s",
                 dlxl_typename(L, -1));
    opts->copy = lua_toboolean(L, -1);
  }
  if (lua_getfield(L, idx, "device") != LUA_TNIL) {
    found++;
    opts->has_target = true;
    opts->target = dlxl_checkdevice(L, -1);
  }
  lua_pop(L, 2);
  dlxl_checkoptions(L, idx, "from_dlpack", known, found);
}

/* Pushes a copy of t on device, in the default kind of memory, as an export with a copy makes. */
static int push_copy(lua_State *L, const dlx_tensor *t, DLDevice device) {
  dlxl_result r;
  dlxl_result_begin(L, &r, t->ndim, NULL);
  return dlxl_result_push(L, &r, dlx_clone_as(&r.made, t, t->dtype, device, &r.err));
}

/* A dlx tensor: what the export of t to ourselves and its import would give, without the
 * capsule. The export copies where dlx_export_copy_reason says so (a borrowed tensor, another
 * device, a view that starts inside a byte); it shares the buffer otherwise. Both ends are this
 * thread, whose current stream orders the work of each, so there is no stream to synchronise. */
static int consume_tensor(lua_State *L, const dlxl_tensor *u, const consume_options *opts) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_getview(u, &view);
  DLDevice target = opts->has_target ? opts->target : dlx_tensor_device(t);
  const char *reason = dlx_export_copy_reason(t, target);
  dlxl_result r;
  dlx_error err;
  dlxl_check(L, dlx_buffer_check(t->buffer, &err), &err); /* a borrowed tensor whose loan ended */
  if (reason != NULL && opts->copy == 0)
    return dlxl_error(L, DLX_BUFFER_ERROR, "a copy would be needed (%s) but copy = false", reason);
  if (reason != NULL || opts->copy == 1) return push_copy(L, t, target);
  dlxl_result_begin(L, &r, t->ndim, NULL);
  dlx_tensor_share(&r.made, t); /* no new memory: nothing to tell the collector */
  /* as an export and import would give it: a broadcast view travels READ_ONLY */
  if (dlx_tensor_is_broadcast(t)) r.made.readonly = true;
  dlxl_result_set(L, &r, 0);
  return 1;
}

static bool flagged_copied(const dlxl_capsule *c) {
  return c->versioned && !c->used && c->ptr != NULL &&
         (((const DLManagedTensorVersioned *)c->ptr)->flags & DLPACK_FLAG_BITMASK_IS_COPIED) != 0;
}

/* A capsule (at the top of the stack): imports it, then moves or copies the result as opts ask.
 * A producer's IS_COPIED capsule (from_producer) already is the copy that copy = true asks for;
 * copy = false refuses any IS_COPIED capsule before it is consumed. */
static int consume_capsule(lua_State *L, dlxl_capsule *c, const consume_options *opts,
                           bool from_producer) {
  bool copied = flagged_copied(c);
  dlxl_tensor *u;
  dlx_tensor view;
  const dlx_tensor *t;
  DLDevice source;
  char from[48], to[48];
  if (copied && opts->copy == 0)
    return dlxl_error(L, DLX_BUFFER_ERROR,
                      "from_dlpack: the capsule is flagged IS_COPIED (the producer copied the "
                      "data), but copy = false");
  u = dlxl_importcapsule(L, c);
  t = dlxl_getview(u, &view);
  source = dlx_tensor_device(t);
  if (opts->has_target && !dlx_device_equal(source, opts->target)) {
    if (opts->copy == 0) {
      dlxl_closetensor(u);
      return dlxl_error(L, DLX_BUFFER_ERROR,
                        "from_dlpack: the tensor is on %s, and moving it to %s needs a copy, "
                        "but copy = false",
                        dlx_device_format(source, from, sizeof from),
                        dlx_device_format(opts->target, to, sizeof to));
    }
  } else if (opts->copy != 1 || (copied && from_producer)) {
    return 1;
  }
  dlxl_pushclone(L, u, t, t->dtype, opts->has_target ? opts->target : source);
  dlxl_closetensor(u);
  return 1;
}

/* from_dlpack(x[, opts]), a closure over the state and the Lua function (upvalue 2) that asks
 * other producers for a capsule: request(x, target device or nil, copy). Errors it raises at level
 * 3 point at the caller of from_dlpack. */
static int core_from_dlpack(lua_State *L) {
  consume_options opts;
  dlxl_capsule *c;
  const dlxl_state *s = dlxl_getstate(L);
  const void *mt;
  void *p;
  read_consume_options(L, 2, &opts);
  lua_settop(L, 1);
  /* a tensor or a capsule, told apart by one look at the metatable */
  if ((p = lua_touserdata(L, 1)) != NULL && lua_getmetatable(L, 1)) {
    mt = lua_topointer(L, -1);
    lua_pop(L, 1);
    if (mt == s->tensor_mt) return consume_tensor(L, dlxl_checkopen(L, p), &opts);
    if (mt == s->capsule_mt) return consume_capsule(L, p, &opts, false);
  }
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_pushvalue(L, 1);
  if (opts.has_target)
    dlxl_pushdevice(L, opts.target);
  else
    lua_pushnil(L);
  if (opts.copy < 0)
    lua_pushnil(L);
  else
    lua_pushboolean(L, opts.copy);
  lua_call(L, 3, 1);
  c = dlxl_tocapsule(L, -1);
  if (c == NULL)
    return dlxl_error(L, DLX_TYPE_ERROR, "__dlpack returned a %s, expected a capsule",
                      dlxl_typename(L, -1));
  return consume_capsule(L, c, &opts, true);
}

/* consumer(request) -> from_dlpack, for lua/dlx/dlpack.lua. */
static int core_consumer(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_pushvalue(L, DLXL_STATE);
  lua_insert(L, 1);
  lua_pushcclosure(L, core_from_dlpack, 2);
  return 1;
}

const luaL_Reg dlxl_dlpack_funcs[] = {
    {"consumer", core_consumer},
    {NULL, NULL},
};

const luaL_Reg dlxl_dlpack_methods[] = {
    {"__dlpack", tensor_dlpack},
    {"__dlpack_device", tensor_dlpack_device},
    {NULL, NULL},
};
