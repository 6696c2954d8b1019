/* ze_stream.c -- backend.h's stream entries for Level Zero. A stream is an immediate command
 * list of the device, named by its handle (an integer, so a dlx.Stream made in one Lua state can
 * be wrapped in another with dlx.stream("oneapi:N", handle)); each device's own list is its
 * default stream. Every operation of this backend waits for its commands before returning, so
 * work is never pending on a stream when another stream (or the host, or a DLPack consumer)
 * looks at the memory: ordering between streams needs no events. */
#include <stdlib.h>

#include "core/backend.h"
#include "ze/ze.h"

/* The command lists that ze_stream_create made and ze_stream_destroy has not destroyed yet, with
 * their devices, for the whole process (a dlx.Stream's handle may be used in another Lua state).
 * The driver cannot say whether an integer is a command list (it would dereference it), so this
 * is what lets a DLPack `stream` value be checked. */
typedef struct made_list {
  ze_command_list_handle_t list;
  int32_t device_id;
} made_list;

static pthread_mutex_t made_lock = PTHREAD_MUTEX_INITIALIZER;
static made_list *made;
static size_t made_count, made_capacity;

static int remember_list(int32_t device_id, ze_command_list_handle_t list, dlx_error *err) {
  int rc = 0;
  pthread_mutex_lock(&made_lock);
  if (made_count == made_capacity) {
    size_t capacity = made_capacity > 0 ? 2 * made_capacity : 8;
    made_list *grown = realloc(made, capacity * sizeof *grown);
    if (grown == NULL) {
      rc = dlx_fail(err, DLX_MEMORY_ERROR, "out of memory recording a oneapi stream");
    } else {
      made = grown;
      made_capacity = capacity;
    }
  }
  if (rc == 0) made[made_count++] = (made_list){list, device_id};
  pthread_mutex_unlock(&made_lock);
  return rc;
}

static void forget_list(ze_command_list_handle_t list) {
  pthread_mutex_lock(&made_lock);
  for (size_t i = 0; i < made_count; i++) {
    if (made[i].list == list) {
      made[i] = made[--made_count];
      break;
    }
  }
  if (made_count == 0) { /* nothing to remember: hold no memory */
    free(made);
    made = NULL;
    made_capacity = 0;
  }
  pthread_mutex_unlock(&made_lock);
}

/* The record goes with the library when a build without -z nodelete is unloaded (lua_close
 * dlcloses dlx/core.so): the lists themselves belong to the driver, which is going too. */
__attribute__((destructor)) static void forget_all_at_unload(void) {
  free(made);
  made = NULL;
  made_count = made_capacity = 0;
}

/* The device of a command list dlx made, or -1. */
static int32_t device_of_made_list(ze_command_list_handle_t list) {
  int32_t device_id = -1;
  pthread_mutex_lock(&made_lock);
  for (size_t i = 0; i < made_count && device_id < 0; i++) {
    if (made[i].list == list) device_id = made[i].device_id;
  }
  pthread_mutex_unlock(&made_lock);
  return device_id;
}

static int ze_stream_create(int32_t device_id, dlx_stream_handle *out, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_get(device_id);
  ze_command_queue_desc_t queue = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                   .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                   .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_list_handle_t list = NULL;
  int rc = dlx_ze_check(
      dlx_ze_api_get()->zeCommandListCreateImmediate(dev->context, dev->device, &queue, &list),
      "zeCommandListCreateImmediate", err);
  if (rc == 0) rc = remember_list(device_id, list, err);
  if (rc != 0) {
    if (list != NULL) dlx_ze_api_get()->zeCommandListDestroy(list);
    return rc;
  }
  *out = (dlx_stream_handle)list;
  return 0;
}

static void ze_stream_destroy(int32_t device_id, dlx_stream_handle stream) {
  dlx_ze_device *dev = dlx_ze_device_get(device_id);
  ze_command_list_handle_t list = (ze_command_list_handle_t)stream;
  if (list == dev->list) return; /* the default stream lives as long as the process */
  if (dlx_ze_current_list(dev) == list) dlx_ze_set_current_list(dev, dev->list);
  forget_list(list);
  dlx_ze_api_get()->zeCommandListDestroy(list);
}

static dlx_stream_handle ze_stream_current(int32_t device_id) {
  return (dlx_stream_handle)dlx_ze_current_list(dlx_ze_device_get(device_id));
}

static void ze_stream_set_current(int32_t device_id, dlx_stream_handle stream) {
  dlx_ze_set_current_list(dlx_ze_device_get(device_id), (ze_command_list_handle_t)stream);
}

/* A barrier on the list that signals the device's event, waited for on the host: whatever was
 * appended to the list before (by dlx or by the host application) has finished. */
static int ze_stream_synchronize(int32_t device_id, dlx_stream_handle stream, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_get(device_id);
  int rc;
  pthread_mutex_lock(&dev->lock);
  rc = dlx_ze_check(dlx_ze_api_get()->zeCommandListAppendBarrier((ze_command_list_handle_t)stream,
                                                                 dev->done, 0, NULL),
                    "zeCommandListAppendBarrier", err);
  if (rc == 0) rc = dlx_ze_wait(dev, err);
  pthread_mutex_unlock(&dev->lock);
  return rc;
}

static int ze_stream_wait_for_current(int32_t device_id, dlx_stream_handle consumer,
                                      dlx_error *err) {
  (void)device_id;
  (void)consumer;
  (void)err;
  return 0; /* dlx's work on the device is complete whenever an entry has returned */
}

/* DLPack defines no integer streams for kDLOneAPI (dpctl passes SYCL queues). dlx takes nil
 * (synchronise: the export is complete), -1 (no synchronisation) or a command list of the device
 * that dlx knows: the device's default list, the calling thread's current one (which may be a
 * handle a script wrapped with dlx.stream(device, handle)), or one dlx.stream made and has not
 * closed. Anything else cannot be checked by the driver, so it is refused: a consumer with
 * command lists of its own passes nil, which costs nothing here. */
static bool is_known_list(int32_t device_id, ze_command_list_handle_t list) {
  dlx_ze_device *dev = dlx_ze_device_get(device_id);
  return list == dev->list || list == dlx_ze_current_list(dev) ||
         device_of_made_list(list) == device_id;
}

static int ze_stream_from_dlpack(int32_t device_id, bool given, int64_t value,
                                 dlx_stream_request *out, dlx_error *err) {
  out->sync = true;
  out->stream = 0;
  if (!given) {
    out->stream = ze_stream_current(device_id);
  } else if (value == -1) {
    out->sync = false;
  } else if (value > 0 && is_known_list(device_id, (ze_command_list_handle_t)(uintptr_t)value)) {
    out->stream = (dlx_stream_handle)value;
  } else {
    int32_t owner =
        value > 0 ? device_of_made_list((ze_command_list_handle_t)(uintptr_t)value) : -1;
    if (owner >= 0)
      return dlx_fail(err, DLX_VALUE_ERROR,
                      "stream %lld for a oneapi:%d export is a stream of oneapi:%d",
                      (long long)value, (int)device_id, (int)owner);
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "stream %lld for a oneapi:%d export: expected nil, -1 or the handle of a "
                    "Level Zero command list that dlx knows on that device (its default stream, "
                    "the current stream, or an open dlx.stream)",
                    (long long)value, (int)device_id);
  }
  return 0;
}

static int64_t ze_stream_to_dlpack(int32_t device_id, dlx_stream_handle stream) {
  (void)device_id;
  return (int64_t)stream;
}

const dlx_stream_ops dlx_ze_stream_ops = {
    .create = ze_stream_create,
    .destroy = ze_stream_destroy,
    .current = ze_stream_current,
    .set_current = ze_stream_set_current,
    .synchronize = ze_stream_synchronize,
    .wait_for_current = ze_stream_wait_for_current,
    .from_dlpack = ze_stream_from_dlpack,
    .to_dlpack = ze_stream_to_dlpack,
};
