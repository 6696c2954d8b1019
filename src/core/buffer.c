/* buffer.c -- refcounted memory shared by tensors and DLPack exports. */
#include "core/buffer.h"

#include "core/alloc.h"
#include "core/backend.h"
#include "core/device.h"

static void release_backend_memory(dlx_buffer *self) {
  self->backend->free(self->device.device_id, self->data, self->nbytes);
}

static void release_backend_memory_and_header(dlx_buffer *self) {
  self->backend->free_with_header(self->device.device_id, self, self->data, self->nbytes);
}

static void init_backend_buffer(dlx_buffer *buffer, DLDevice device, size_t nbytes,
                                const dlx_backend *backend, bool header_with_data) {
  atomic_init(&buffer->refs, 1);
  buffer->nbytes = nbytes;
  buffer->device = device;
  buffer->backend = backend;
  buffer->release = header_with_data ? release_backend_memory_and_header : release_backend_memory;
  buffer->owner = NULL;
  buffer->owner_free = NULL;
  buffer->revoked = NULL;
  buffer->header_with_data = header_with_data;
}

/* One allocation for the header and the data, from a backend that can make it. */
static dlx_buffer *new_with_header(const dlx_backend *backend, DLDevice device, size_t nbytes,
                                   dlx_error *err) {
  void *data;
  dlx_buffer *buffer =
      backend->alloc_with_header(device.device_id, sizeof *buffer, nbytes, &data, err);
  if (buffer == NULL) return NULL;
  buffer->data = data;
  init_backend_buffer(buffer, device, nbytes, backend, true);
  return buffer;
}

dlx_buffer *dlx_buffer_new(DLDevice device, size_t nbytes, dlx_error *err) {
  return dlx_buffer_new_memory(device, nbytes, DLX_MEMORY_DEFAULT, err);
}

dlx_buffer *dlx_buffer_new_memory(DLDevice device, size_t nbytes, dlx_memory memory,
                                  dlx_error *err) {
  const dlx_backend *backend = dlx_backend_for(device.device_type);
  dlx_buffer *buffer;
  if (backend == NULL) {
    dlx_fail(err, DLX_DEVICE_ERROR, "no backend for device type %d", (int)device.device_type);
    return NULL;
  }
  if (memory != DLX_MEMORY_DEFAULT && backend->alloc_memory == NULL) {
    dlx_fail(err, DLX_VALUE_ERROR,
             "only oneapi devices have kinds of memory (USM device, host, shared), not %s",
             backend->name);
    return NULL;
  }
  if (memory == DLX_MEMORY_DEFAULT && backend->alloc_with_header != NULL)
    return new_with_header(backend, device, nbytes, err);
  buffer = dlx_malloc(sizeof *buffer);
  if (buffer == NULL) {
    dlx_fail(err, DLX_MEMORY_ERROR, "out of memory allocating a buffer");
    return NULL;
  }
  if (memory == DLX_MEMORY_DEFAULT)
    buffer->data = backend->alloc(device.device_id, nbytes, err);
  else
    buffer->data = backend->alloc_memory(device.device_id, nbytes, memory, err);
  if (buffer->data == NULL && nbytes > 0) {
    dlx_free(buffer);
    return NULL;
  }
  init_backend_buffer(buffer, device, nbytes, backend, false);
  return buffer;
}

dlx_buffer *dlx_buffer_wrap(DLDevice device, void *data, size_t nbytes,
                            void (*release)(dlx_buffer *self), void *owner, dlx_error *err) {
  dlx_buffer *buffer = dlx_malloc(sizeof *buffer);
  if (buffer == NULL) {
    dlx_fail(err, DLX_MEMORY_ERROR, "out of memory wrapping foreign memory");
    return NULL;
  }
  atomic_init(&buffer->refs, 1);
  buffer->data = data;
  buffer->nbytes = nbytes;
  buffer->device = device;
  buffer->backend = dlx_backend_for(device.device_type);
  buffer->release = release;
  buffer->owner = owner;
  buffer->owner_free = NULL;
  buffer->revoked = NULL;
  buffer->header_with_data = false;
  return buffer;
}

void dlx_buffer_retain(dlx_buffer *buffer) {
  atomic_fetch_add_explicit(&buffer->refs, 1, memory_order_relaxed);
}

int dlx_buffer_check(const dlx_buffer *buffer, dlx_error *err) {
  /* acquire: pairs with the release store of dlx_unborrow */
  if (buffer->revoked != NULL && atomic_load_explicit(buffer->revoked, memory_order_acquire))
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "borrowed tensor expired: the host has taken its memory back (clone a "
                    "borrowed tensor to keep its values)");
  return 0;
}

void dlx_buffer_release(dlx_buffer *buffer) {
  if (buffer == NULL) return;
  /* acq_rel: every use of the memory by other holders happens before it is freed */
  if (atomic_fetch_sub_explicit(&buffer->refs, 1, memory_order_acq_rel) == 1) {
    bool header_with_data = buffer->header_with_data; /* release may free the header */
    if (buffer->release != NULL) buffer->release(buffer);
    if (!header_with_data) dlx_free(buffer);
  }
}
