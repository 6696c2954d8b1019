/* embed.c -- a host application that embeds Lua and dlx.
 *
 * It wraps its own float32 buffer as a DLPack capsule, runs a Lua script on it (the script
 * writes into the buffer: zero-copy), takes the script's result back as a DLPack tensor, and
 * checks that every deleter ran exactly once, even after lua_close.
 *
 *   dlx_embed script.lua
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <dlx.h>

static int failures = 0;

#define EXPECT(cond)                                                                               \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                          \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

/* One capsule of the host's memory: the DLPack struct and its shape and strides in one block.
 * The deleter frees the block and counts the call; the data stays the host's. */
typedef struct host_tensor {
  DLManagedTensorVersioned managed;
  int64_t shape[2];
  int64_t strides[2];
} host_tensor;

static void host_deleter(DLManagedTensorVersioned *self) {
  int *calls = (int *)self->manager_ctx;
  (*calls)++;
  free(self); /* managed is the first member of host_tensor */
}

/* Wraps rows x cols floats at data (row-major) as a versioned DLPack tensor. */
static DLManagedTensorVersioned *wrap(float *data, int64_t rows, int64_t cols, int *calls) {
  host_tensor *h = (host_tensor *)calloc(1, sizeof *h);
  if (h == NULL) return NULL;
  h->shape[0] = rows;
  h->shape[1] = cols;
  h->strides[0] = cols;
  h->strides[1] = 1;
  h->managed.version.major = DLPACK_MAJOR_VERSION;
  h->managed.version.minor = DLPACK_MINOR_VERSION;
  h->managed.manager_ctx = calls;
  h->managed.deleter = host_deleter;
  h->managed.flags = 0; /* writable, not a copy */
  h->managed.dl_tensor.data = data;
  h->managed.dl_tensor.device.device_type = kDLCPU;
  h->managed.dl_tensor.device.device_id = 0;
  h->managed.dl_tensor.ndim = 2;
  h->managed.dl_tensor.dtype.code = kDLFloat;
  h->managed.dl_tensor.dtype.bits = 32;
  h->managed.dl_tensor.dtype.lanes = 1;
  h->managed.dl_tensor.shape = h->shape;
  h->managed.dl_tensor.strides = h->strides;
  h->managed.dl_tensor.byte_offset = 0;
  return &h->managed;
}

/* Element i of a 1-d float32 DLPack tensor, honouring byte_offset and strides. */
static float element(const DLTensor *t, int64_t i) {
  const char *first = (const char *)t->data + t->byte_offset;
  int64_t stride = t->strides != NULL ? t->strides[0] : 1;
  return ((const float *)(const void *)first)[i * stride];
}

static int traceback(lua_State *L) {
  luaL_traceback(L, L, lua_tostring(L, 1), 1);
  return 1;
}

int main(int argc, char **argv) {
  float data[2][3] = {{1, 2, 3}, {4, 5, 6}}; /* the host's own buffer */
  int host_calls = 0, unused_calls = 0;
  DLManagedTensorVersioned *host, *unused, *result = NULL;
  lua_State *L;

  if (argc != 2) {
    fprintf(stderr, "usage: %s script.lua\n", argv[0]);
    return 2;
  }
  L = luaL_newstate();
  if (L == NULL) return 1;
  luaL_openlibs(L);
  dlx_openlibs(L); /* require "dlx" now works with no files on disk */

  lua_pushcfunction(L, traceback);
  if (luaL_loadfile(L, argv[1]) != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(L, -1));
    lua_close(L);
    return 1;
  }
  host = wrap(&data[0][0], 2, 3, &host_calls);
  unused = wrap(&data[0][0], 2, 3, &unused_calls);
  if (host == NULL || unused == NULL) {
    fprintf(stderr, "out of memory\n");
    free(host);
    free(unused);
    lua_close(L);
    return 1;
  }
  /* Ownership passes to dlx on push, even when the push fails (dlx has then called the
   * deleter), so from here on only dlx releases these two. */
  if (dlx_push_capsule(L, host) != 0) {
    fprintf(stderr, "dlx_push_capsule: %s\n", lua_tostring(L, -1));
    unused->deleter(unused);
    lua_close(L);
    return 1;
  }
  if (dlx_push_capsule(L, unused) != 0) {
    fprintf(stderr, "dlx_push_capsule: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return 1;
  }
  if (lua_pcall(L, 2, 1, 1) != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(L, -1));
    lua_close(L);
    return 1;
  }

  /* The script wrote 10s into row 2 of our buffer: it worked on our memory, not a copy. */
  EXPECT(data[0][0] == 1 && data[0][1] == 2 && data[0][2] == 3);
  EXPECT(data[1][0] == 10 && data[1][1] == 10 && data[1][2] == 10);

  if (dlx_to_dlpack(L, -1, &result) != 0) {
    fprintf(stderr, "dlx_to_dlpack: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return 1;
  }

  /* Closing the state releases every Lua reference: the imported tensor (whose buffer is ours)
   * and the unconsumed capsule. Each host deleter has then run once. The result stays valid:
   * its memory is refcounted in C and its deleter needs no lua_State. */
  lua_close(L);
  EXPECT(host_calls == 1);
  EXPECT(unused_calls == 1);

  EXPECT(result->version.major == 1);
  EXPECT(result->dl_tensor.device.device_type == kDLCPU);
  EXPECT(result->dl_tensor.ndim == 1 && result->dl_tensor.shape[0] == 3);
  EXPECT(result->dl_tensor.dtype.code == kDLFloat && result->dl_tensor.dtype.bits == 32 &&
         result->dl_tensor.dtype.lanes == 1);
  if (result->dl_tensor.ndim == 1 && result->dl_tensor.shape[0] == 3) {
    EXPECT(element(&result->dl_tensor, 0) == 11);
    EXPECT(element(&result->dl_tensor, 1) == 12);
    EXPECT(element(&result->dl_tensor, 2) == 13);
  }
  if (result->deleter != NULL) result->deleter(result);

  if (failures == 0) printf("embed: ok (sums 11 12 13, each deleter ran once)\n");
  return failures == 0 ? 0 : 1;
}
