/* buffer.h -- refcounted memory, owned either by a backend's allocator or by a foreign DLPack
 * producer. A Lua tensor holds one reference, every exported DLPack tensor another. The last
 * release frees the memory (or calls the foreign deleter) on whatever thread it happens: a
 * buffer never touches a lua_State. */
#ifndef DLX_CORE_BUFFER_H
#define DLX_CORE_BUFFER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "dlpack/dlpack.h"

struct dlx_backend;

/* The kind of memory a new tensor gets. CPU and CUDA have one kind per device (pinned and managed
 * CUDA memory are devices of their own, as in DLPack); Level Zero has three kinds of USM, which
 * DLPack all calls kDLOneAPI. */
typedef enum dlx_memory {
  DLX_MEMORY_DEFAULT, /* the backend's own: device memory on a GPU */
  DLX_MEMORY_DEVICE,  /* device memory (Level Zero device USM) */
  DLX_MEMORY_HOST,    /* host memory the device reaches (Level Zero host USM) */
  DLX_MEMORY_SHARED   /* memory that migrates between host and device (Level Zero shared USM) */
} dlx_memory;

typedef struct dlx_buffer dlx_buffer;
struct dlx_buffer {
  atomic_long refs;
  void *data;    /* base address or device handle; may be NULL when nbytes == 0 */
  size_t nbytes; /* bytes addressable from data (for imports: the extent that was checked) */
  DLDevice device;
  const struct dlx_backend *backend;
  /* Frees data: the backend's free for our allocations, the producer's deleter for imports. */
  void (*release)(dlx_buffer *self);
  void *owner; /* for imports: the DLManagedTensor(Versioned) whose deleter release calls */
  void (*owner_free)(void *owner); /* for a host's tensor (dlx_push_tensor): its deleter */
  /* For memory a host lends (dlx_push_borrowed): the loan's flag, which outlives the buffer.
   * Once it is set the memory is the host's again and must not be touched; every entry point
   * of the core that reads or writes data checks it (dlx_buffer_check). NULL otherwise. */
  const atomic_bool *revoked;
  /* The header was allocated with the data (the backend's alloc_with_header): release frees
   * both, and the header must not be freed again. */
  bool header_with_data;
};

/* A new buffer of nbytes on device, from the device's backend (refs = 1). */
dlx_buffer *dlx_buffer_new(DLDevice device, size_t nbytes, dlx_error *err);
/* The same in a kind of memory: ValueError for a kind other than the default on a backend with
 * one kind. */
dlx_buffer *dlx_buffer_new_memory(DLDevice device, size_t nbytes, dlx_memory memory,
                                  dlx_error *err);
/* Wraps foreign memory (refs = 1); release(self) is called once, by the last release.
 * On failure release is NOT called: the caller still owns the foreign memory. */
dlx_buffer *dlx_buffer_wrap(DLDevice device, void *data, size_t nbytes,
                            void (*release)(dlx_buffer *self), void *owner, dlx_error *err);
void dlx_buffer_retain(dlx_buffer *buffer);
/* Borrowed memory: exports copy it, since the loan may end before a consumer is done. */
static inline bool dlx_buffer_is_borrowed(const dlx_buffer *buffer) {
  return buffer->revoked != NULL;
}
/* 0, or ValueError "borrowed tensor expired" once the host's loan of the memory has ended. */
int dlx_buffer_check(const dlx_buffer *buffer, dlx_error *err);
void dlx_buffer_release(dlx_buffer *buffer); /* NULL is accepted */

#endif
