/*
 * testprod.c -- a Lua C module for the busted specs: a DLPack producer of edge-case tensors and a
 * consumer that looks inside what dlx exports.
 *
 * It reaches dlx only through dlx_capi_get(L) (include/dlx.h): it links neither dlx nor liblua,
 * exactly like a third-party C module would. Load dlx first (require "dlx"), then testprod.
 *
 *   make(spec) -> capsule, id     a DLManagedTensorVersioned (a DLManagedTensor when spec.legacy)
 *     spec.version {major, minor} (default {1, 3}), spec.flags (default 0),
 *     spec.device {type, id} (default {1, 0}), spec.dtype {code, bits, lanes} (default float32),
 *     spec.ndim (default #spec.shape; any integer, bogus ones included), spec.shape,
 *     spec.strides (default: C-contiguous for the shape), spec.null_shape (NULL shape),
 *     spec.null_strides (NULL strides), spec.byte_offset,
 *     spec.nbytes (default: enough for the extent), spec.null_data, spec.no_deleter,
 *     spec.data_shift (data points that many bytes into the block, e.g. to misalign it),
 *     spec.fill: "f32" | "f64" | "i64" | "i32" | "u8" | "bool" | "zero"
 *       (default by dtype: iota of float32, float64, int64 or int32, else bytes 0..255, 0..255)
 *     The data block is malloc'd by make; the deleter counts its calls per id and frees, once,
 *     what make allocated.
 *   deleted(id) -> number of deleter calls for id
 *   read(id, i, kind) / write(id, i, kind, v): element i (0-based, counted in kind's units from
 *     the start of the block, ignoring byte_offset) of the producer's memory;
 *     kind: "f32" "f64" "i64" "i32" "u8". read_f32/write_f32/read_u8/write_u8 are shorthands.
 *   address(id) -> the block's address as an integer (0 for NULL data); nbytes(id)
 *   export(value[, {legacy = bool, keep = bool}]) -> description | nil, message, out_was_nulled
 *     calls capi->to_dlpack (or to_dlpack_legacy) on value and describes the struct:
 *     {legacy, version = {major, minor}, flags, device = {type, id}, ndim,
 *      dtype = {code, bits, lanes}, shape = {...} | false, strides = {...} | false, byte_offset,
 *      data = integer address, has_deleter, stack_balanced, handle (with keep)}
 *     Without keep the deleter is called at once; with keep, release(handle) calls it later.
 *   release(handle); read_export(handle, i, kind) / write_export(handle, i, kind, v): element i
 *     counted from data + byte_offset; read_export_f32/write_export_f32 are shorthands.
 *   live_exports() -> number of kept exports not yet released
 *   has_capi() -> whether dlx_capi_get(L) finds dlx
 *   lend(shape[, {read_only = bool}]) -> tensor, loan: lends a malloc'd float32 block, C-ordered
 *     in shape and filled 0, 1, 2, ..., to the calling state with capi->push_borrowed
 *   unborrow(loan) -> held: ends the loan with capi->unborrow, then fills the block with NaN and
 *     frees it (the host takes its memory back at once); held is whether a tensor over it existed
 *   loan_read(loan, i) / loan_write(loan, i, v): float32 element i (0-based) of the host's block
 *   loan_address(loan) -> the block's address as an integer
 *   trace(on): when on, every deleter call prints "testprod deleted <id>" on stdout
 *
 * State is process-wide (static) so that deleters that run late still count; the structs stay
 * allocated (so that a second deleter call is counted, not a use after free) until the module's
 * sentinel is collected when the Lua state closes, which also ends the loans still open.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "dlx.h"

#define TP_MAX_BLOCK ((size_t)1 << 30)
#define TP_MAX_LOANS 64

typedef struct record {
  int deleted;
  int legacy;
  int no_deleter;      /* made with a NULL deleter: testprod frees it when the state closes */
  unsigned char *data; /* NULL after the first deleter call, or when made with null_data */
  uintptr_t address;   /* what data was, for address(id) */
  size_t nbytes;
  int64_t *shape;
  int64_t *strides;
  DLManagedTensorVersioned *mtv; /* kept until the sentinel is collected */
  DLManagedTensor *mtl;
} record;

typedef struct handle {
  int legacy;
  int released;
  DLManagedTensorVersioned *v;
  DLManagedTensor *l;
} handle;

static record *records = NULL;
static int nrecords = 0, caprecords = 0;
static handle *handles = NULL;
static int nhandles = 0, caphandles = 0;
static int tracing = 0;

/* The host's side of a loan: its block stays the host's; dlx never frees it. */
typedef struct loan_record {
  dlx_borrow *loan;
  int (*unborrow)(dlx_borrow *loan, int *held); /* the capi's, kept for the sentinel */
  float *data;                                  /* NULL: a free slot */
  size_t count;
} loan_record;

static loan_record loans[TP_MAX_LOANS];

/* ---- helpers */

static const dlx_capi *need_capi(lua_State *L) {
  const dlx_capi *api = dlx_capi_get(L);
  if (api == NULL) luaL_error(L, "testprod: dlx_capi_get(L) is NULL (require \"dlx\" first)");
  return api;
}

static int64_t opt_int_field(lua_State *L, int t, const char *k, int64_t def) {
  int64_t v = def;
  if (lua_getfield(L, t, k) != LUA_TNIL) {
    if (!lua_isinteger(L, -1)) luaL_error(L, "testprod: spec.%s must be an integer", k);
    v = (int64_t)lua_tointeger(L, -1);
  }
  lua_pop(L, 1);
  return v;
}

static int opt_bool_field(lua_State *L, int t, const char *k) {
  int v;
  lua_getfield(L, t, k);
  v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* Reads integers t[k][1..n] into out (n <= max); returns n, or -1 when t[k] is nil. */
static int int_list_field(lua_State *L, int t, const char *k, int64_t *out, int max) {
  int n;
  if (lua_getfield(L, t, k) == LUA_TNIL) {
    lua_pop(L, 1);
    return -1;
  }
  luaL_checktype(L, -1, LUA_TTABLE);
  n = (int)luaL_len(L, -1);
  if (n > max) luaL_error(L, "testprod: spec.%s has more than %d entries", k, max);
  for (int i = 0; i < n; i++) {
    lua_geti(L, -1, i + 1);
    if (!lua_isinteger(L, -1)) luaL_error(L, "testprod: spec.%s[%d] must be an integer", k, i + 1);
    out[i] = (int64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return n;
}

static size_t kind_size(lua_State *L, const char *kind) {
  if (strcmp(kind, "f32") == 0 || strcmp(kind, "i32") == 0) return 4;
  if (strcmp(kind, "f64") == 0 || strcmp(kind, "i64") == 0) return 8;
  if (strcmp(kind, "u8") == 0) return 1;
  return (size_t)luaL_error(L, "testprod: unknown kind '%s' (f32, f64, i64, i32, u8)", kind);
}

static void push_elem(lua_State *L, const unsigned char *p, const char *kind) {
  if (strcmp(kind, "f32") == 0) {
    float f;
    memcpy(&f, p, 4);
    lua_pushnumber(L, (lua_Number)f);
  } else if (strcmp(kind, "f64") == 0) {
    double d;
    memcpy(&d, p, 8);
    lua_pushnumber(L, (lua_Number)d);
  } else if (strcmp(kind, "i64") == 0) {
    int64_t v;
    memcpy(&v, p, 8);
    lua_pushinteger(L, (lua_Integer)v);
  } else if (strcmp(kind, "i32") == 0) {
    int32_t v;
    memcpy(&v, p, 4);
    lua_pushinteger(L, (lua_Integer)v);
  } else {
    lua_pushinteger(L, (lua_Integer)*p);
  }
}

static void store_elem(lua_State *L, unsigned char *p, const char *kind, int vidx) {
  if (strcmp(kind, "f32") == 0) {
    float f = (float)luaL_checknumber(L, vidx);
    memcpy(p, &f, 4);
  } else if (strcmp(kind, "f64") == 0) {
    double d = (double)luaL_checknumber(L, vidx);
    memcpy(p, &d, 8);
  } else if (strcmp(kind, "i64") == 0) {
    int64_t v = (int64_t)luaL_checkinteger(L, vidx);
    memcpy(p, &v, 8);
  } else if (strcmp(kind, "i32") == 0) {
    int32_t v = (int32_t)luaL_checkinteger(L, vidx);
    memcpy(p, &v, 4);
  } else {
    *p = (unsigned char)luaL_checkinteger(L, vidx);
  }
}

/* ---- the producer */

static void on_delete(intptr_t id) {
  record *r;
  if (tracing) {
    printf("testprod deleted %ld\n", (long)id);
    fflush(stdout);
  }
  if (id < 0 || id >= nrecords) return; /* after the sentinel reset */
  r = &records[id];
  r->deleted++;
  if (r->deleted == 1) {
    free(r->data);
    free(r->shape);
    free(r->strides);
    r->data = NULL;
    r->shape = NULL;
    r->strides = NULL;
  }
}

static void deleter_versioned(DLManagedTensorVersioned *mt) {
  on_delete((intptr_t)mt->manager_ctx);
}

static void deleter_legacy(DLManagedTensor *mt) { on_delete((intptr_t)mt->manager_ctx); }

static int new_record(lua_State *L) {
  if (nrecords == caprecords) {
    int cap = caprecords ? caprecords * 2 : 64;
    record *r = (record *)realloc(records, (size_t)cap * sizeof(record));
    if (r == NULL) return luaL_error(L, "testprod: out of memory");
    records = r;
    caprecords = cap;
  }
  memset(&records[nrecords], 0, sizeof(record));
  return nrecords++;
}

static void fill_block(unsigned char *p, size_t n, const char *fill) {
  size_t i;
  if (strcmp(fill, "f32") == 0) {
    for (i = 0; i + 4 <= n; i += 4) {
      float f = (float)(i / 4);
      memcpy(p + i, &f, 4);
    }
  } else if (strcmp(fill, "f64") == 0) {
    for (i = 0; i + 8 <= n; i += 8) {
      double d = (double)(i / 8);
      memcpy(p + i, &d, 8);
    }
  } else if (strcmp(fill, "i64") == 0) {
    for (i = 0; i + 8 <= n; i += 8) {
      int64_t v = (int64_t)(i / 8);
      memcpy(p + i, &v, 8);
    }
  } else if (strcmp(fill, "i32") == 0) {
    for (i = 0; i + 4 <= n; i += 4) {
      int32_t v = (int32_t)(i / 4);
      memcpy(p + i, &v, 4);
    }
  } else if (strcmp(fill, "bool") == 0) {
    for (i = 0; i < n; i++) p[i] = (unsigned char)(i % 2);
  } else if (strcmp(fill, "zero") == 0) {
    memset(p, 0, n);
  } else {
    for (i = 0; i < n; i++) p[i] = (unsigned char)(i & 255);
  }
}

/* Bytes needed for the view, or 0 when the description is bogus (then a small block is made). */
static size_t needed_bytes(int64_t ndim, int nshape, const int64_t *shape, const int64_t *strides,
                           uint64_t byte_offset, DLDataType dt) {
  double bytes_per = (double)dt.bits * (double)(dt.lanes ? dt.lanes : 1) / 8.0;
  double maxoff = 0, stride = 1, need;
  if (ndim < 0 || ndim > 64 || nshape < ndim) return 0;
  for (int64_t i = ndim - 1; i >= 0; i--) {
    double s = strides ? (double)strides[i] : stride;
    if (shape[i] <= 0) return shape[i] == 0 ? (size_t)byte_offset + 16 : 0;
    if (s > 0) maxoff += (double)(shape[i] - 1) * s;
    stride *= (double)shape[i];
  }
  need = (double)byte_offset + (maxoff + 1) * bytes_per + 16;
  if (need > (double)TP_MAX_BLOCK) return 0;
  return (size_t)need;
}

static int l_make(lua_State *L) {
  const dlx_capi *api = need_capi(L);
  int64_t ver[2] = {1, 3}, dev[2] = {1, 0}, dt[3] = {kDLFloat, 32, 1};
  int64_t shape_in[64], strides_in[64];
  int nshape, nstrides, id, legacy, rc;
  int64_t ndim, nbytes_opt, data_shift;
  uint64_t flags, byte_offset;
  DLDataType dtype;
  const char *fill;
  record *r;
  DLTensor *tensor;
  size_t nalloc;

  luaL_checktype(L, 1, LUA_TTABLE);
  legacy = opt_bool_field(L, 1, "legacy");
  int_list_field(L, 1, "version", ver, 2);
  int_list_field(L, 1, "device", dev, 2);
  int_list_field(L, 1, "dtype", dt, 3);
  nshape = int_list_field(L, 1, "shape", shape_in, 64);
  nstrides = int_list_field(L, 1, "strides", strides_in, 64);
  ndim = opt_int_field(L, 1, "ndim", nshape < 0 ? 0 : nshape);
  flags = (uint64_t)opt_int_field(L, 1, "flags", 0);
  byte_offset = (uint64_t)opt_int_field(L, 1, "byte_offset", 0);
  nbytes_opt = opt_int_field(L, 1, "nbytes", -1);
  data_shift = opt_int_field(L, 1, "data_shift", 0);
  if (data_shift < 0 || data_shift > 64) return luaL_error(L, "testprod: data_shift is 0..64");
  lua_getfield(L, 1, "fill");
  fill = lua_tostring(L, -1);
  lua_pop(L, 1); /* the spec table keeps the string alive */
  dtype.code = (uint8_t)dt[0];
  dtype.bits = (uint8_t)dt[1];
  dtype.lanes = (uint16_t)dt[2];
  if (fill == NULL) {
    if (dtype.code == kDLFloat && dtype.bits == 32)
      fill = "f32";
    else if (dtype.code == kDLFloat && dtype.bits == 64)
      fill = "f64";
    else if (dtype.code == kDLInt && dtype.bits == 64)
      fill = "i64";
    else if (dtype.code == kDLInt && dtype.bits == 32)
      fill = "i32";
    else if (dtype.code == kDLBool)
      fill = "bool";
    else
      fill = "u8";
  }

  id = new_record(L);
  r = &records[id];
  r->legacy = legacy;

  /* shape and strides: at least 64 entries, so that a consumer that reads a bogus ndim's worth
   * of a short list reads zeros, not beyond the allocation (up to 64) */
  nalloc = 64;
  if (nshape > 0 && (size_t)nshape > nalloc) nalloc = (size_t)nshape;
  if (nshape >= 0 && !opt_bool_field(L, 1, "null_shape")) {
    r->shape = (int64_t *)calloc(nalloc, sizeof(int64_t));
    if (r->shape == NULL) return luaL_error(L, "testprod: out of memory");
    memcpy(r->shape, shape_in, (size_t)nshape * sizeof(int64_t));
  }
  if (nstrides < 0 && nshape >= 0) {
    /* no strides given: C-contiguous ones, as a 1.2+ producer must give */
    uint64_t acc = 1; /* unsigned: bogus shapes may overflow, harmlessly */
    nstrides = nshape;
    for (int i = nshape - 1; i >= 0; i--) {
      strides_in[i] = (int64_t)acc;
      acc *= shape_in[i] > 0 ? (uint64_t)shape_in[i] : 1u;
    }
  }
  if (nstrides >= 0 && !opt_bool_field(L, 1, "null_strides")) {
    r->strides = (int64_t *)calloc(nalloc, sizeof(int64_t));
    if (r->strides == NULL) return luaL_error(L, "testprod: out of memory");
    memcpy(r->strides, strides_in, (size_t)nstrides * sizeof(int64_t));
  }
  if (!opt_bool_field(L, 1, "null_data")) {
    size_t n = nbytes_opt >= 0
                   ? (size_t)nbytes_opt
                   : needed_bytes(ndim, nshape, shape_in, nstrides >= 0 ? strides_in : NULL,
                                  byte_offset, dtype);
    if (n < 256) n = 256;
    n += (size_t)data_shift;
    if (n > TP_MAX_BLOCK) return luaL_error(L, "testprod: block too large");
    r->data = (unsigned char *)malloc(n);
    if (r->data == NULL) return luaL_error(L, "testprod: out of memory");
    fill_block(r->data, n, fill);
    r->nbytes = n;
    r->address = (uintptr_t)r->data;
  }

  if (legacy) {
    r->mtl = (DLManagedTensor *)calloc(1, sizeof(DLManagedTensor));
    if (r->mtl == NULL) return luaL_error(L, "testprod: out of memory");
    tensor = &r->mtl->dl_tensor;
    r->mtl->manager_ctx = (void *)(intptr_t)id;
    r->no_deleter = opt_bool_field(L, 1, "no_deleter");
    r->mtl->deleter = r->no_deleter ? NULL : deleter_legacy;
  } else {
    r->mtv = (DLManagedTensorVersioned *)calloc(1, sizeof(DLManagedTensorVersioned));
    if (r->mtv == NULL) return luaL_error(L, "testprod: out of memory");
    tensor = &r->mtv->dl_tensor;
    r->mtv->version.major = (uint32_t)ver[0];
    r->mtv->version.minor = (uint32_t)ver[1];
    r->mtv->flags = flags;
    r->mtv->manager_ctx = (void *)(intptr_t)id;
    r->no_deleter = opt_bool_field(L, 1, "no_deleter");
    r->mtv->deleter = r->no_deleter ? NULL : deleter_versioned;
  }
  tensor->data = r->data != NULL ? r->data + data_shift : NULL;
  tensor->device.device_type = (DLDeviceType)dev[0];
  tensor->device.device_id = (int32_t)dev[1];
  tensor->ndim = (int32_t)ndim;
  tensor->dtype = dtype;
  tensor->shape = r->shape;
  tensor->strides = r->strides;
  tensor->byte_offset = byte_offset;

  rc = legacy ? api->push_capsule_legacy(L, r->mtl) : api->push_capsule(L, r->mtv);
  if (rc != 0) return lua_error(L);
  lua_pushinteger(L, id);
  return 2;
}

static record *check_record(lua_State *L, int idx) {
  lua_Integer id = luaL_checkinteger(L, idx);
  luaL_argcheck(L, id >= 0 && id < nrecords, idx, "no such id");
  return &records[id];
}

static int l_deleted(lua_State *L) {
  lua_pushinteger(L, check_record(L, 1)->deleted);
  return 1;
}

static int l_address(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)check_record(L, 1)->address);
  return 1;
}

static int l_nbytes(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)check_record(L, 1)->nbytes);
  return 1;
}

static unsigned char *record_elem(lua_State *L, const char *kind) {
  record *r = check_record(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  size_t sz = kind_size(L, kind);
  if (r->data == NULL) luaL_error(L, "testprod: no data (NULL or already deleted)");
  if (i < 0 || (size_t)(i + 1) * sz > r->nbytes) luaL_error(L, "testprod: index out of range");
  return r->data + (size_t)i * sz;
}

static int l_read(lua_State *L) {
  const char *kind = luaL_checkstring(L, 3);
  push_elem(L, record_elem(L, kind), kind);
  return 1;
}

static int l_write(lua_State *L) {
  const char *kind = luaL_checkstring(L, 3);
  store_elem(L, record_elem(L, kind), kind, 4);
  return 0;
}

static int l_read_f32(lua_State *L) {
  push_elem(L, record_elem(L, "f32"), "f32");
  return 1;
}

static int l_write_f32(lua_State *L) {
  store_elem(L, record_elem(L, "f32"), "f32", 3);
  return 0;
}

static int l_read_u8(lua_State *L) {
  push_elem(L, record_elem(L, "u8"), "u8");
  return 1;
}

static int l_write_u8(lua_State *L) {
  store_elem(L, record_elem(L, "u8"), "u8", 3);
  return 0;
}

/* ---- the consumer */

static void push_int_array(lua_State *L, const int64_t *a, int32_t n) {
  if (a == NULL) {
    lua_pushboolean(L, 0);
    return;
  }
  lua_createtable(L, n > 0 ? n : 0, 0);
  for (int32_t i = 0; i < n && i < 64; i++) {
    lua_pushinteger(L, (lua_Integer)a[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

static void push_pair(lua_State *L, lua_Integer a, lua_Integer b) {
  lua_createtable(L, 2, 0);
  lua_pushinteger(L, a);
  lua_rawseti(L, -2, 1);
  lua_pushinteger(L, b);
  lua_rawseti(L, -2, 2);
}

static void describe_tensor(lua_State *L, const DLTensor *t) {
  int32_t n = t->ndim >= 0 && t->ndim <= 64 ? t->ndim : 0;
  push_pair(L, t->device.device_type, t->device.device_id);
  lua_setfield(L, -2, "device");
  set_int(L, "ndim", t->ndim);
  lua_createtable(L, 3, 0);
  lua_pushinteger(L, t->dtype.code);
  lua_rawseti(L, -2, 1);
  lua_pushinteger(L, t->dtype.bits);
  lua_rawseti(L, -2, 2);
  lua_pushinteger(L, t->dtype.lanes);
  lua_rawseti(L, -2, 3);
  lua_setfield(L, -2, "dtype");
  push_int_array(L, t->shape, n);
  lua_setfield(L, -2, "shape");
  push_int_array(L, t->strides, n);
  lua_setfield(L, -2, "strides");
  set_int(L, "byte_offset", (lua_Integer)t->byte_offset);
  set_int(L, "data", (lua_Integer)(uintptr_t)t->data);
}

static int new_handle(lua_State *L) {
  if (nhandles == caphandles) {
    int cap = caphandles ? caphandles * 2 : 64;
    handle *h = (handle *)realloc(handles, (size_t)cap * sizeof(handle));
    if (h == NULL) return luaL_error(L, "testprod: out of memory");
    handles = h;
    caphandles = cap;
  }
  memset(&handles[nhandles], 0, sizeof(handle));
  return nhandles++;
}

static int l_export(lua_State *L) {
  const dlx_capi *api = need_capi(L);
  int legacy = 0, keep = 0, rc, top;
  if (lua_istable(L, 2)) {
    legacy = opt_bool_field(L, 2, "legacy");
    keep = opt_bool_field(L, 2, "keep");
  }
  lua_settop(L, 1);
  top = lua_gettop(L);
  if (legacy) {
    DLManagedTensor *out = (DLManagedTensor *)&rc; /* not NULL: the call must reset it */
    rc = api->to_dlpack_legacy(L, 1, &out);
    if (rc != 0) {
      lua_pushnil(L);
      lua_insert(L, -2);
      lua_pushboolean(L, out == NULL);
      return 3;
    }
    lua_createtable(L, 0, 16);
    lua_pushboolean(L, lua_gettop(L) == top + 1);
    lua_setfield(L, -2, "stack_balanced");
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "legacy");
    describe_tensor(L, &out->dl_tensor);
    lua_pushboolean(L, out->deleter != NULL);
    lua_setfield(L, -2, "has_deleter");
    if (keep) {
      int h = new_handle(L);
      handles[h].legacy = 1;
      handles[h].l = out;
      set_int(L, "handle", h);
    } else if (out->deleter != NULL) {
      out->deleter(out);
    }
  } else {
    DLManagedTensorVersioned *out = (DLManagedTensorVersioned *)&rc;
    rc = api->to_dlpack(L, 1, &out);
    if (rc != 0) {
      lua_pushnil(L);
      lua_insert(L, -2);
      lua_pushboolean(L, out == NULL);
      return 3;
    }
    lua_createtable(L, 0, 16);
    lua_pushboolean(L, lua_gettop(L) == top + 1);
    lua_setfield(L, -2, "stack_balanced");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "legacy");
    push_pair(L, out->version.major, out->version.minor);
    lua_setfield(L, -2, "version");
    set_int(L, "flags", (lua_Integer)out->flags);
    describe_tensor(L, &out->dl_tensor);
    lua_pushboolean(L, out->deleter != NULL);
    lua_setfield(L, -2, "has_deleter");
    if (keep) {
      int h = new_handle(L);
      handles[h].v = out;
      set_int(L, "handle", h);
    } else if (out->deleter != NULL) {
      out->deleter(out);
    }
  }
  return 1;
}

static handle *check_handle(lua_State *L, int idx) {
  lua_Integer h = luaL_checkinteger(L, idx);
  luaL_argcheck(L, h >= 0 && h < nhandles, idx, "no such handle");
  if (handles[h].released) luaL_error(L, "testprod: handle %d already released", (int)h);
  return &handles[h];
}

static void release_handle(handle *h) {
  h->released = 1;
  if (h->legacy) {
    if (h->l->deleter != NULL) h->l->deleter(h->l);
  } else {
    if (h->v->deleter != NULL) h->v->deleter(h->v);
  }
}

static int l_release(lua_State *L) {
  release_handle(check_handle(L, 1));
  lua_pushboolean(L, 1);
  return 1;
}

static unsigned char *export_elem(lua_State *L, const char *kind) {
  handle *h = check_handle(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  const DLTensor *t = h->legacy ? &h->l->dl_tensor : &h->v->dl_tensor;
  if (t->data == NULL) luaL_error(L, "testprod: the export has NULL data");
  return (unsigned char *)t->data + t->byte_offset + (ptrdiff_t)i * (ptrdiff_t)kind_size(L, kind);
}

static int l_read_export(lua_State *L) {
  const char *kind = luaL_checkstring(L, 3);
  push_elem(L, export_elem(L, kind), kind);
  return 1;
}

static int l_write_export(lua_State *L) {
  const char *kind = luaL_checkstring(L, 3);
  store_elem(L, export_elem(L, kind), kind, 4);
  return 0;
}

static int l_read_export_f32(lua_State *L) {
  push_elem(L, export_elem(L, "f32"), "f32");
  return 1;
}

static int l_write_export_f32(lua_State *L) {
  store_elem(L, export_elem(L, "f32"), "f32", 3);
  return 0;
}

static int l_live_exports(lua_State *L) {
  int n = 0;
  for (int i = 0; i < nhandles; i++) n += !handles[i].released;
  lua_pushinteger(L, n);
  return 1;
}

static int l_has_capi(lua_State *L) {
  lua_pushboolean(L, dlx_capi_get(L) != NULL);
  return 1;
}

static int l_trace(lua_State *L) {
  tracing = lua_toboolean(L, 1);
  return 0;
}

/* ---- the lender */

static int l_lend(lua_State *L) {
  const dlx_capi *api = need_capi(L);
  int64_t shape[8];
  int ndim, slot = -1;
  uint64_t flags = 0;
  size_t count = 1;
  loan_record *r;
  DLTensor t;
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_createtable(L, 0, 1); /* {shape = arg 1}, to read it with int_list_field */
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "shape");
  ndim = int_list_field(L, lua_gettop(L), "shape", shape, 8);
  lua_pop(L, 1);
  if (lua_istable(L, 2) && opt_bool_field(L, 2, "read_only"))
    flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0 || shape[i] > 4096)
      return luaL_error(L, "testprod: shape[%d] is 0..4096", i + 1);
    count *= (size_t)shape[i];
  }
  for (int i = 0; i < TP_MAX_LOANS && slot < 0; i++)
    if (loans[i].data == NULL) slot = i;
  if (slot < 0) return luaL_error(L, "testprod: more than %d loans open", TP_MAX_LOANS);
  r = &loans[slot];
  r->data = (float *)malloc((count ? count : 1) * sizeof(float));
  if (r->data == NULL) return luaL_error(L, "testprod: out of memory");
  r->count = count;
  r->unborrow = api->unborrow;
  for (size_t i = 0; i < count; i++) r->data[i] = (float)i;
  t = (DLTensor){r->data, {kDLCPU, 0}, ndim, {kDLFloat, 32, 1}, shape, NULL, 0};
  if (api->push_borrowed(L, &t, flags, &r->loan) != 0) {
    free(r->data);
    *r = (loan_record){0};
    return lua_error(L);
  }
  lua_pushinteger(L, slot);
  return 2;
}

static loan_record *check_loan(lua_State *L, int idx) {
  lua_Integer id = luaL_checkinteger(L, idx);
  luaL_argcheck(L, id >= 0 && id < TP_MAX_LOANS && loans[id].data != NULL, idx, "no such loan");
  return &loans[id];
}

/* Ends the loan and takes the block back at once, as a host would: poisoned with NaN, then freed
 * (a read through an expired tensor would see NaN, or be a use after free under ASan). */
static int end_loan(loan_record *r) {
  int held = -1;
  if (r->unborrow(r->loan, &held) != 0) held = -1;
  for (size_t i = 0; i < r->count; i++) r->data[i] = NAN;
  free(r->data);
  *r = (loan_record){0};
  return held;
}

static int l_unborrow(lua_State *L) {
  int held = end_loan(check_loan(L, 1));
  if (held < 0) return luaL_error(L, "testprod: unborrow failed");
  lua_pushboolean(L, held);
  return 1;
}

static float *loan_elem(lua_State *L) {
  loan_record *r = check_loan(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  luaL_argcheck(L, i >= 0 && (size_t)i < r->count, 2, "index out of range");
  return &r->data[i];
}

static int l_loan_read(lua_State *L) {
  lua_pushnumber(L, (lua_Number)*loan_elem(L));
  return 1;
}

static int l_loan_write(lua_State *L) {
  float *p = loan_elem(L);
  *p = (float)luaL_checknumber(L, 3);
  return 0;
}

static int l_loan_address(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)(uintptr_t)check_loan(L, 1)->data);
  return 1;
}

/* The Lua state closes: release what is still held and free the structs. Deleters that dlx
 * calls later (there should be none) find no record and are only traced. */
static int sentinel_gc(lua_State *L) {
  (void)L;
  for (int i = 0; i < TP_MAX_LOANS; i++)
    if (loans[i].data != NULL) end_loan(&loans[i]);
  for (int i = 0; i < nhandles; i++)
    if (!handles[i].released) release_handle(&handles[i]);
  free(handles);
  handles = NULL;
  nhandles = caphandles = 0;
  for (int i = 0; i < nrecords; i++) {
    record *r = &records[i];
    if (r->no_deleter && r->deleted == 0) on_delete(i); /* nobody else can free it */
    if (r->deleted == 0) continue;                      /* still owned by someone: leave it alone */
    free(r->mtv);
    free(r->mtl);
  }
  free(records);
  records = NULL;
  nrecords = caprecords = 0;
  return 0;
}

static const luaL_Reg functions[] = {
    {"make", l_make},
    {"deleted", l_deleted},
    {"address", l_address},
    {"nbytes", l_nbytes},
    {"read", l_read},
    {"write", l_write},
    {"read_f32", l_read_f32},
    {"write_f32", l_write_f32},
    {"read_u8", l_read_u8},
    {"write_u8", l_write_u8},
    {"export", l_export},
    {"release", l_release},
    {"read_export", l_read_export},
    {"write_export", l_write_export},
    {"read_export_f32", l_read_export_f32},
    {"write_export_f32", l_write_export_f32},
    {"live_exports", l_live_exports},
    {"has_capi", l_has_capi},
    {"trace", l_trace},
    {"lend", l_lend},
    {"unborrow", l_unborrow},
    {"loan_read", l_loan_read},
    {"loan_write", l_loan_write},
    {"loan_address", l_loan_address},
    {NULL, NULL},
};

int luaopen_testprod(lua_State *L);

int luaopen_testprod(lua_State *L) {
  luaL_newlib(L, functions);
  /* the sentinel: one per state, collected when the state closes */
  if (lua_getfield(L, LUA_REGISTRYINDEX, "testprod.sentinel") == LUA_TNIL) {
    lua_newuserdatauv(L, 1, 0);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, sentinel_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, "testprod.sentinel");
  }
  lua_pop(L, 1);
  return 1;
}
