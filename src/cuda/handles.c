/* handles.c -- library handles per thread and device, recycled when a thread ends, and the
 * loading of the libraries (handles.h). */
#include "cuda/handles.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* A thread's handles of one kind; the thread-specific value of the kind's key. */
typedef struct slots {
  dlx_cuda_handles *kind;
  void *handle[DLX_CUDA_HANDLE_DEVICES];
} slots;

/* A thread ends: its handles go to the free lists (one that finds no room stays unused). */
static void release(void *value) {
  slots *t = value;
  dlx_cuda_handles *k = t->kind;
  pthread_mutex_lock(&k->lock);
  for (int d = 0; d < DLX_CUDA_HANDLE_DEVICES; d++) {
    if (t->handle[d] == NULL) continue;
    if (k->free_count[d] == k->free_room[d]) {
      int room = k->free_room[d] > 0 ? 2 * k->free_room[d] : 8;
      void **grown = realloc(k->free_list[d], sizeof *grown * (size_t)room);
      if (grown == NULL) continue;
      k->free_list[d] = grown;
      k->free_room[d] = room;
    }
    k->free_list[d][k->free_count[d]++] = t->handle[d];
  }
  pthread_mutex_unlock(&k->lock);
  free(t);
}

static bool make_key(dlx_cuda_handles *k) {
  if (!atomic_load(&k->key_made)) {
    pthread_mutex_lock(&k->lock);
    if (!atomic_load(&k->key_made)) {
      k->key_ok = pthread_key_create(&k->key, release) == 0;
      atomic_store(&k->key_made, true);
    }
    pthread_mutex_unlock(&k->lock);
  }
  return k->key_ok;
}

static void *take_free(dlx_cuda_handles *k, int32_t device_id) {
  void *h = NULL;
  pthread_mutex_lock(&k->lock);
  if (k->free_count[device_id] > 0) h = k->free_list[device_id][--k->free_count[device_id]];
  pthread_mutex_unlock(&k->lock);
  return h;
}

int dlx_cuda_thread_handle(dlx_cuda_handles *k, int32_t device_id, void **out, dlx_error *err) {
  slots *mine;
  if (device_id < 0 || device_id >= DLX_CUDA_HANDLE_DEVICES)
    return dlx_fail(err, DLX_DEVICE_ERROR, "no library handle for device %d", (int)device_id);
  if (!make_key(k))
    return dlx_fail(err, DLX_MEMORY_ERROR, "no thread-specific key for library handles");
  mine = pthread_getspecific(k->key);
  if (mine == NULL) {
    mine = calloc(1, sizeof *mine);
    if (mine == NULL) return dlx_fail(err, DLX_MEMORY_ERROR, "no memory for library handles");
    mine->kind = k;
    if (pthread_setspecific(k->key, mine) != 0) {
      free(mine);
      return dlx_fail(err, DLX_MEMORY_ERROR, "no memory for library handles");
    }
  }
  if (mine->handle[device_id] == NULL) {
    void *h = take_free(k, device_id);
    if (h == NULL) {
      int rc = k->create(&h, err);
      if (rc != 0) return rc;
    }
    mine->handle[device_id] = h;
  }
  *out = mine->handle[device_id];
  return 0;
}

/* Opens name and resolves its functions; false with error set otherwise. */
static bool open_one(const char *name, bool (*resolve)(void *lib, const char *name), char *error,
                     size_t size) {
  void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    const char *why = dlerror();
    snprintf(error, size, "%s", why != NULL ? why : name);
    return false;
  }
  return resolve(lib, name);
}

bool dlx_cuda_load_library(const char *env, const char *const *names, size_t count,
                           bool (*resolve)(void *lib, const char *name), char *error, size_t size) {
  const char *chosen = getenv(env);
  char first[sizeof(((dlx_error *)0)->message)] = "";
  bool ok = false;
  if (chosen != NULL && chosen[0] != '\0') return open_one(chosen, resolve, error, size);
  for (size_t i = 0; i < count && !ok; i++) {
    ok = open_one(names[i], resolve, error, size);
    if (!ok && i == 0) snprintf(first, sizeof first, "%s", error);
  }
  if (!ok && first[0] != '\0') snprintf(error, size, "%s", first);
  return ok;
}
