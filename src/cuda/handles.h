/* handles.h -- library handles (cuBLAS, cuSOLVER) per thread and device. A handle whose settings
 * (stream, workspace) every call changes cannot be shared by threads, so each thread makes its
 * own, on first use, with the device current. When a thread ends, its handles go to a free list
 * of their kind and device, and the next thread that needs one takes it instead of making a new
 * one: a host that starts and ends threads does not pile them up. Handles are never destroyed,
 * not even at exit: destroying them after the CUDA context is gone (the order of atexit
 * handlers is not ours to choose) can crash, and the driver frees what a process held when it
 * ends (PyTorch leaves its handles for the same reason). */
#ifndef DLX_CUDA_HANDLES_H
#define DLX_CUDA_HANDLES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"

#define DLX_CUDA_HANDLE_DEVICES 64 /* DLX_CUDA_MAX_DEVICES */

/* One kind of handle: how to make one (on the current device), and its free lists. Define one
 * per kind with DLX_CUDA_HANDLES(create). */
typedef struct dlx_cuda_handles {
  int (*create)(void **out, dlx_error *err);
  pthread_mutex_t lock;
  atomic_bool key_made;
  bool key_ok;
  pthread_key_t key;
  void **free_list[DLX_CUDA_HANDLE_DEVICES];
  int free_count[DLX_CUDA_HANDLE_DEVICES], free_room[DLX_CUDA_HANDLE_DEVICES];
} dlx_cuda_handles;

#define DLX_CUDA_HANDLES(create_fn)                                                                \
  { .create = (create_fn), .lock = PTHREAD_MUTEX_INITIALIZER }

/* The calling thread's handle of this kind for device_id (which must be current). */
int dlx_cuda_thread_handle(dlx_cuda_handles *kind, int32_t device_id, void **out, dlx_error *err);

/* Loads a library that the CUDA backend opens at run time (cuBLAS, cuSOLVER): the one that the
 * environment variable `env` names, alone, when it is set; else the first of `names` (newest
 * soname first) that dlopen opens and resolve(lib, name) accepts (it looks up the functions and
 * writes what is missing into error[size]). When every name fails, error keeps the first name's
 * reason, the telling one (the last is usually only a development link). A library that opened
 * but lacks a function is left open: dlclose of these libraries is not safe. */
bool dlx_cuda_load_library(const char *env, const char *const *names, size_t count,
                           bool (*resolve)(void *lib, const char *name), char *error, size_t size);

#endif
