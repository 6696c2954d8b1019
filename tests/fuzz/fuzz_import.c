/* fuzz_import.c -- libFuzzer target: bytes become a DLManagedTensor or DLManagedTensorVersioned
 * (any version, flags, device, dtype, ndim, shape, strides, byte_offset, data) that goes through
 * dlx_push_capsule*, dlx.from_dlpack, a view, a copy, a cast, a reduction, an export to Lua and
 * one to the host. Whatever the bytes, the run must end with the producer's deleter called
 * exactly once, no sanitizer report, and every error a string starting with a dlx error class.
 * The last byte of the input may instead hand the same tensor over as a loan
 * (dlx_push_borrowed: the loan ends before or after a collection, the host frees its memory at
 * once, and the tensor must then raise "borrowed tensor expired" without touching it) or as a
 * host's tensor (dlx_push_tensor, whose deleter must run exactly once).
 *
 * The data of a tensor dlx could accept points into a heap block that holds exactly the bytes
 * its extent covers, so ASan's redzones around the block guard any read or write past it.
 * Tensors whose extent cannot be addressed (overflowing sizes or strides) point at a small
 * block: dlx must refuse them before touching their data.
 *
 * Build: cmake -DDLX_FUZZ=ON with clang (cmake/DlxHostile.cmake). Run:
 *   build-fuzz/fuzz_import -max_total_time=60 build-fuzz/corpus tests/fuzz/corpus
 * DLX_FUZZ_PRINT_ERRORS=1 prints each error message (to collect the bad-input table of
 * docs/dlpack.md), and DLX_FUZZ_DEBUG=1 the layout of each input's tensor (to read a crash
 * input). DLX_FUZZ_MODE=capsule, loan or host_tensor hands every input over that way (ctest
 * replays the corpus in each). */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/tensor.h"
#include "dlx.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size);

/* Larger valid extents are shrunk to this (the shape's sizes are cut) so runs stay fast. */
#define MAX_EXTENT_BYTES 4096

/* ---- reading the input */

typedef struct reader {
  const uint8_t *p;
  size_t left;
} reader;

static uint64_t take(reader *r, int nbytes) {
  uint64_t v = 0;
  for (int i = 0; i < nbytes; i++) {
    v <<= 8;
    if (r->left > 0) {
      v |= *r->p++;
      r->left--;
    }
  }
  return v;
}

/* An integer that is usually small but sometimes any 64-bit value, negative included. */
static int64_t take_size(reader *r) {
  uint8_t mode = (uint8_t)take(r, 1);
  if (mode < 200) return mode % 6;                 /* 0..5: the common case */
  if (mode < 230) return -(int64_t)(mode % 4) - 1; /* -1..-4 */
  return (int64_t)take(r, 8);                      /* anything */
}

/* ---- the producer: one struct of each kind, whose deleter counts its calls */

typedef struct producer {
  DLManagedTensorVersioned versioned;
  DLManagedTensor legacy;
  int64_t shape[40], strides[40];
  unsigned char *block; /* the heap block data points into (ASan guards its ends) */
  int deleted;
} producer;

static producer current;

static void delete_versioned(DLManagedTensorVersioned *self) {
  ((producer *)self->manager_ctx)->deleted++;
}

static void delete_legacy(DLManagedTensor *self) { ((producer *)self->manager_ctx)->deleted++; }

/* Sizes, strides and offset as dlx could accept them: 1 when the element count and the
 * extent fit int64 (lo and hi: the lowest and one past the highest bit the view touches), 0
 * when they cannot be addressed (then dlx must refuse the tensor before touching its data). */
static int addressable(const DLTensor *dl, int bits, int64_t *numel, __int128 *lo, __int128 *hi) {
  int64_t count = 1, up = 0, down = 0, stride = 1;
  if (dl->ndim < 0 || dl->ndim > DLX_MAX_NDIM || (dl->ndim > 0 && dl->shape == NULL)) return 0;
  for (int32_t d = 0; d < dl->ndim; d++)
    if (dl->shape[d] < 0 || __builtin_mul_overflow(count, dl->shape[d], &count)) return 0;
  for (int32_t d = dl->ndim - 1; count > 0 && d >= 0; d--) {
    int64_t s = dl->strides != NULL ? dl->strides[d] : stride, part;
    if (s == INT64_MIN || __builtin_mul_overflow(dl->shape[d] - 1, s < 0 ? -s : s, &part) ||
        __builtin_add_overflow(s < 0 ? down : up, part, s < 0 ? &down : &up) ||
        __builtin_add_overflow(up, down, &part))
      return 0;
    stride = (int64_t)((uint64_t)stride * (uint64_t)dl->shape[d]);
  }
  *numel = count;
  *lo = count == 0 ? 0 : (__int128)-down * bits + (__int128)dl->byte_offset * 8;
  *hi = count == 0 ? 0 : (__int128)(up + 1) * bits + (__int128)dl->byte_offset * 8;
  return 1;
}

/* The nested tables t:totable() (and so tostring) would make for an empty tensor, saturated at
 * 2^40: above 2^24 dlx refuses at once (MemoryError), below it makes them. */
static int64_t empty_tables(const DLTensor *dl) {
  int64_t total = 1, level = 1;
  for (int32_t d = 0; d + 1 < dl->ndim && level > 0; d++) {
    if (__builtin_mul_overflow(level, dl->shape[d], &level) ||
        __builtin_add_overflow(total, level, &total) || total > ((int64_t)1 << 40))
      return (int64_t)1 << 40;
  }
  return total;
}

/* Small: quick to copy and to print. Empty tensors whose tables would take long are not. */
static bool small_enough(const DLTensor *dl, int64_t numel, __int128 lo, __int128 hi) {
  const __int128 far = (__int128)1 << 40;
  int64_t tables = numel == 0 ? empty_tables(dl) : 0;
  if (tables > 4096 && tables <= ((int64_t)1 << 26)) return false;
  return numel <= 1024 && hi - lo <= (__int128)MAX_EXTENT_BYTES * 8 && lo > -far && hi < far;
}

/* Cuts the sizes (then strides and offset) of an addressable tensor until it is small, so that
 * its data fits a small block and dlx's copies stay fast. Others are left as they are. */
static void shrink_to_fit(DLTensor *dl, int bits) {
  int64_t numel;
  __int128 lo, hi;
  for (int round = 0; round < 4; round++) {
    if (!addressable(dl, bits, &numel, &lo, &hi) || small_enough(dl, numel, lo, hi)) return;
    for (int32_t d = 0; d < dl->ndim; d++) dl->shape[d] %= 3;
    if (round > 0 && dl->strides != NULL)
      for (int32_t d = 0; d < dl->ndim; d++) dl->strides[d] %= 5;
    if (round > 1) dl->byte_offset %= 64;
  }
  /* still too large (many dims of size 2): one element, at the block's start */
  for (int32_t d = 0; d < dl->ndim; d++) dl->shape[d] = dl->shape[d] > 0 ? 1 : 0;
  dl->byte_offset = 0;
}

/* Points data into a block holding exactly the extent's bytes, or at a small block, or NULL. */
static void place_data(DLTensor *dl, int bits, uint8_t data_mode) {
  int64_t numel = 0;
  __int128 lo = 0, hi = 0;
  size_t nbytes = 16;
  intptr_t shift = 0;
  if (bits > 0 && addressable(dl, bits, &numel, &lo, &hi) && small_enough(dl, numel, lo, hi) &&
      hi > lo) {
    __int128 first = lo >= 0 ? lo / 8 : -((-lo + 7) / 8); /* floor(lo / 8) */
    nbytes = (size_t)((hi + 7) / 8 - first);
    shift = (intptr_t)first;
  }
  current.block = malloc(nbytes);
  if (current.block == NULL) abort();
  memset(current.block, 0x3c, nbytes);
  /* data + shift is the block: computed on integers, since data may lie outside the block */
  dl->data = (void *)((uintptr_t)current.block - (uintptr_t)shift);
  if (data_mode % 8 == 0) dl->data = NULL;
  if (getenv("DLX_FUZZ_DEBUG") != NULL) {
    fprintf(stderr, "dtype %d/%d/%d ndim %d offset %llu block %zu bytes, shift %ld\n",
            dl->dtype.code, dl->dtype.bits, dl->dtype.lanes, (int)dl->ndim,
            (unsigned long long)dl->byte_offset, nbytes, (long)shift);
    for (int32_t d = 0; d < dl->ndim && d < 8 && dl->shape != NULL; d++)
      fprintf(stderr, "  size %lld stride %lld\n", (long long)dl->shape[d],
              dl->strides != NULL ? (long long)dl->strides[d] : 0LL);
  }
}

/* Builds current from the input; returns whether it is a versioned struct. */
static bool produce(reader *r) {
  uint8_t kind = (uint8_t)take(r, 1);
  bool versioned = kind & 1;
  DLTensor dl;
  dlx_dtype dtype;
  int bits = 0;
  memset(&current, 0, sizeof current);
  memset(&dl, 0, sizeof dl);
  dl.device.device_type = (kind & 2) ? (DLDeviceType)take(r, 1) : kDLCPU;
  dl.device.device_id = (kind & 4) ? (int32_t)take(r, 4) : 0;
  dl.dtype.code = (uint8_t)(take(r, 1) % 20);
  dl.dtype.bits = (uint8_t)take(r, 1);
  dl.dtype.lanes = (uint16_t)((kind & 8) ? take(r, 2) : 1);
  dl.ndim = (int32_t)take_size(r);
  if (kind & 16) dl.ndim = (int32_t)take(r, 4); /* huge and negative ndims */
  for (int d = 0; d < 40; d++) {
    current.shape[d] = take_size(r);
    current.strides[d] = take_size(r);
  }
  dl.shape = (kind & 32) && (take(r, 1) & 1) ? NULL : current.shape;
  dl.strides = (kind & 64) ? NULL : current.strides;
  dl.byte_offset = (kind & 128) ? take(r, 8) : take(r, 1);
  if (dlx_dtype_from_dl(dl.dtype, &dtype) == 0) bits = dlx_dtype_bits(dtype);
  if (bits > 0) shrink_to_fit(&dl, bits);
  place_data(&dl, bits, (uint8_t)take(r, 1));

  current.versioned.version.major = (take(r, 1) & 7) == 0 ? (uint32_t)take(r, 4) : 1;
  current.versioned.version.minor = (uint32_t)(take(r, 1) % 6);
  current.versioned.flags = (take(r, 1) & 3) == 0 ? take(r, 8) : take(r, 1) & 3;
  current.versioned.manager_ctx = &current;
  current.versioned.deleter = delete_versioned;
  current.versioned.dl_tensor = dl;
  current.legacy.manager_ctx = &current;
  current.legacy.deleter = delete_legacy;
  current.legacy.dl_tensor = dl;
  return versioned;
}

/* ---- the Lua side */

static lua_State *L;

/* The ways the tensor reaches Lua; DLX_FUZZ_MODE forces one for every input. */
enum { AS_CAPSULE, AS_LOAN, AS_HOST_TENSOR };
static int forced_mode = -1;

/* Takes a capsule, returns nil or the first error message. Every step that can fail runs
 * under pcall; a failure must be one of dlx's classes (checked in C). */
static const char *const script =
    "local dlx = require 'dlx'\n"
    "local cap = ...\n"
    "local ok, t = true, cap\n"
    "if not dlx.is_tensor(cap) then ok, t = pcall(dlx.from_dlpack, cap) end\n"
    "if not ok then return t end\n"
    "local errs = {}\n"
    "local function try(f, ...)\n"
    "  local good, r = pcall(f, ...)\n"
    "  if not good then errs[#errs + 1] = r end\n"
    "  return good and r or nil\n"
    "end\n"
    "local _ = t.shape, t.strides, t.numel, t.dtype, t.nbytes, t.readonly\n"
    "try(tostring, t)\n"
    "local v = t.ndim > 0 and try(t.flip, t, 1) or t\n"
    "local c = try(t.clone, t)\n"
    "try(t.astype, t, 'float64')\n"
    "try(t.sum, t)\n"
    "try(t.max, t)\n"
    "if c then try(c.copy_, c, t) end\n"
    "if v then\n"
    "  local cap2 = try(v.__dlpack, v, {max_version = {1, 3}})\n"
    "  if cap2 then\n"
    "    local back = try(dlx.from_dlpack, cap2)\n"
    "    if back then try(back.contiguous, back) end\n"
    "  end\n"
    "  try(v.__dlpack, v)\n"
    "end\n"
    "return #errs > 0 and errs[1] or nil, t\n";

/* Takes a tensor whose loan has ended: whatever reaches its memory must raise. */
static const char *const expired_script =
    "local t = ...\n"
    "local ok, err = pcall(t.sum, t)\n"
    "assert(not ok and err:find('ValueError: borrowed tensor expired', 1, true), err)\n"
    "ok, err = pcall(t.clone, t)\n"
    "assert(not ok and err:find('borrowed tensor expired', 1, true), err)\n"
    "ok, err = pcall(t.__dlpack, t, {max_version = {1, 3}})\n"
    "assert(not ok and err:find('borrowed tensor expired', 1, true), err)\n";

static bool has_error_class(const char *msg) {
  static const char *const classes[] = {
      "TypeError: ", "ValueError: ", "BufferError: ", "DeviceError: ", "MemoryError: "};
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
    if (strstr(msg, classes[i]) != NULL) return true;
  return false;
}

static void check_message(const char *msg) {
  if (msg == NULL) return;
  if (getenv("DLX_FUZZ_PRINT_ERRORS") != NULL) printf("dlx error: %s\n", msg);
  if (!has_error_class(msg)) {
    fprintf(stderr, "an error without a dlx class: %s\n", msg);
    abort();
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  L = luaL_newstate();
  luaL_openlibs(L);
  dlx_openlibs(L);
  if (luaL_loadstring(L, script) != LUA_OK) abort();
  lua_setglobal(L, "fuzz_script");
  if (luaL_loadstring(L, expired_script) != LUA_OK) abort();
  lua_setglobal(L, "expired_script");
  if (getenv("DLX_FUZZ_MODE") != NULL) {
    const char *mode = getenv("DLX_FUZZ_MODE");
    forced_mode = strcmp(mode, "loan") == 0          ? AS_LOAN
                  : strcmp(mode, "host_tensor") == 0 ? AS_HOST_TENSOR
                  : strcmp(mode, "capsule") == 0     ? AS_CAPSULE
                                                     : -1;
  }
  return 0;
}

/* Exports the tensor at the top of the stack to the host, then releases it there. */
static void export_to_host(void) {
  DLManagedTensorVersioned *out = NULL;
  DLManagedTensor *legacy = NULL;
  if (dlx_to_dlpack(L, -1, &out) == 0)
    out->deleter(out);
  else
    check_message(lua_tostring(L, -1));
  lua_settop(L, 2);
  if (dlx_to_dlpack_legacy(L, -1, &legacy) == 0)
    legacy->deleter(legacy);
  else
    check_message(lua_tostring(L, -1));
}

/* ---- the ways the tensor reaches Lua */

static void count_host_delete(void *ctx) { ((producer *)ctx)->deleted++; }

/* Pushes the tensor as the mode says; false when dlx refused it (the error is on the stack). */
static bool push(int mode, bool versioned, bool null_deleter, dlx_borrow **loan) {
  const DLTensor *dl = &current.versioned.dl_tensor;
  int rc;
  if (mode == AS_LOAN) {
    rc = dlx_push_borrowed(L, dl, current.versioned.flags, loan);
  } else if (mode == AS_HOST_TENSOR) {
    /* data is the first element: byte_offset folded in (on integers: it may be far away) */
    void *first = dl->data == NULL ? NULL : (void *)((uintptr_t)dl->data + dl->byte_offset);
    rc =
        dlx_push_tensor(L, first, dl->dtype, dl->device, dl->ndim, dl->shape, dl->strides,
                        current.versioned.flags, null_deleter ? NULL : count_host_delete, &current);
  } else {
    rc = versioned ? dlx_push_capsule(L, &current.versioned)
                   : dlx_push_capsule_legacy(L, &current.legacy);
    if (rc != 0) abort(); /* pushing a capsule can only fail for lack of memory */
  }
  if (rc == 0) return true;
  if (rc == DLX_MEMORY_ERROR) abort();
  check_message(lua_tostring(L, -1));
  return false;
}

/* Ends the loan before or after a collection, frees the host's memory at once, and checks that
 * the tensor the script returned (at 2), if any, now refuses to reach it. */
static void end_loan(dlx_borrow *loan, uint8_t order) {
  int held = -1;
  if (order & 1) lua_settop(L, 1);
  if (order & 2) lua_gc(L, LUA_GCCOLLECT);
  if (dlx_unborrow(loan, &held) != 0 || (held != 0 && held != 1)) abort();
  if ((order & 3) == 3 && held != 0) abort(); /* dropped and collected: nothing was left */
  free(current.block);
  current.block = NULL;
  if (lua_gettop(L) >= 2 && lua_isuserdata(L, 2)) {
    lua_getglobal(L, "expired_script");
    lua_pushvalue(L, 2);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
      fprintf(stderr, "an expired tensor: %s\n", lua_tostring(L, -1));
      abort();
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  reader r = {bytes, size};
  bool versioned = produce(&r);
  bool null_deleter = r.left > 0 && (take(&r, 1) & 15) == 0;
  uint8_t how = (uint8_t)take(&r, 1); /* 0 (a short input): a capsule, as before */
  int mode = forced_mode >= 0 ? forced_mode
             : how % 4 == 1   ? AS_LOAN
             : how % 4 == 2   ? AS_HOST_TENSOR
                              : AS_CAPSULE;
  int expected = null_deleter || mode == AS_LOAN ? 0 : 1;
  dlx_borrow *loan = NULL;
  if (null_deleter) current.versioned.deleter = NULL, current.legacy.deleter = NULL;
  lua_settop(L, 0);
  lua_getglobal(L, "fuzz_script");
  if (push(mode, versioned, null_deleter, &loan)) {
    if (lua_pcall(L, 1, 2, 0) != LUA_OK) {
      fprintf(stderr, "the script itself failed: %s\n", lua_tostring(L, -1));
      abort();
    }
    check_message(lua_tostring(L, 1));
    if (lua_isuserdata(L, 2)) export_to_host();
    if (mode == AS_LOAN) end_loan(loan, (uint8_t)(how >> 2));
  } else if (loan != NULL) {
    abort(); /* a refused loan is no loan */
  }
  lua_settop(L, 0);
  lua_gc(L, LUA_GCCOLLECT);
  if (current.deleted != expected) {
    fprintf(stderr, "the deleter ran %d times\n", current.deleted);
    abort();
  }
  free(current.block);
  return 0;
}
