/* test_device_label.c -- bug 36 of docs/peer-bugs.md (dpctl#1397, pytorch#181140): the
 * device_id of a kDLOneAPI capsule is the producer's numbering (dpctl and PyTorch XPU write a
 * global SYCL index), so dlx must find the device from the USM pointer, not from device_id. Here
 * memory of oneapi:1 comes in labelled 3 (a SYCL index beyond dlx's count) and 0 (another device
 * dlx has): both imports must land on oneapi:1. Run by ctest on the test driver (two devices). */
#include <stdio.h>

#include "check.h"
#include "core/core.h"
#include "producer.h"

/* Imports oneapi:1 memory labelled (kDLOneAPI, label), both capsule kinds. */
static void check_label(void *data, int32_t label) {
  producer p;
  dlx_tensor out;
  dlx_error err;
  producer_make(&p, (DLDataType){kDLFloat, 32, 1}, 1, 4, 4, 1, 0);
  producer_point_at(&p, data, (DLDevice){kDLOneAPI, label});
  CHECK_EQ_INT(dlx_import_versioned(&p.mt, &out, &err), 0);
  CHECK_EQ_INT(out.buffer->device.device_type, kDLOneAPI);
  CHECK_EQ_INT(out.buffer->device.device_id, 1);
  dlx_tensor_close(&out);
  CHECK_EQ_INT(p.deleted, 1);
  CHECK_EQ_INT(dlx_import_legacy(&p.legacy, &out, &err), 0);
  CHECK_EQ_INT(out.buffer->device.device_id, 1);
  dlx_tensor_close(&out);
  CHECK_EQ_INT(p.deleted, 2);
}

int main(void) {
  const dlx_backend *ze;
  dlx_tensor t;
  dlx_error err;
  int64_t shape[1] = {4};
  DLDevice second = {kDLOneAPI, 1};
  ze = dlx_backend_for(kDLOneAPI);
  if (ze == NULL || ze->device_count() < 2) {
    fprintf(stderr, "test_device_label: needs two oneapi devices (the test driver has two)\n");
    return 1;
  }
  CHECK_EQ_INT(dlx_tensor_empty(&t, shape, 1, DLX_FLOAT32, second, &err), 0);
  check_label(t.buffer->data, 3); /* a SYCL-style global index */
  check_label(t.buffer->data, 0); /* another device that dlx does have */
  dlx_tensor_close(&t);
  return check_report("test_device_label");
}
