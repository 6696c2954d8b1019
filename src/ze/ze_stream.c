/* ze_stream.c -- backend.h's stream entries for Level Zero. A stream is an immediate command
 * list of the device, named by its handle (an integer, so a dlx.Stream made in one Lua state can
 * be wrapped in another with dlx.stream("oneapi:N", handle)); each device's own list is its
 * default stream. Every operation of this backend waits for its commands before returning, so
 * work is never pending on a stream when another stream (or the host, or a DLPack consumer)
 * looks at the memory: ordering between streams needs no events. */
#include "core/backend.h"
#include "ze/ze.h"

static int ze_stream_create(int32_t device_id, dlx_stream_handle *out, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_get(device_id);
  ze_command_queue_desc_t queue = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                   .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                   .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_list_handle_t list;
  int rc = dlx_ze_check(
      dlx_ze_api_get()->zeCommandListCreateImmediate(dev->context, dev->device, &queue, &list),
      "zeCommandListCreateImmediate", err);
  if (rc == 0) *out = (dlx_stream_handle)list;
  return rc;
}

static void ze_stream_destroy(int32_t device_id, dlx_stream_handle stream) {
  dlx_ze_device *dev = dlx_ze_device_get(device_id);
  ze_command_list_handle_t list = (ze_command_list_handle_t)stream;
  if (list == dev->list) return; /* the default stream lives as long as the process */
  if (dlx_ze_current_list(dev) == list) dlx_ze_set_current_list(dev, dev->list);
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

/* DLPack defines no integer streams for kDLOneAPI (dpctl passes SYCL queues); dlx takes nil
 * (synchronise: the export is complete), -1 (no synchronisation) or a stream handle. */
static int ze_stream_from_dlpack(int32_t device_id, bool given, int64_t value,
                                 dlx_stream_request *out, dlx_error *err) {
  if (!given) {
    out->sync = true;
    out->stream = ze_stream_current(device_id);
  } else if (value == -1) {
    out->sync = false;
    out->stream = 0;
  } else if (value > 0) {
    out->sync = true;
    out->stream = (dlx_stream_handle)value;
  } else {
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "stream %lld for a oneapi export: expected nil, -1 or the handle of a "
                    "Level Zero immediate command list (a dlx stream)",
                    (long long)value);
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
