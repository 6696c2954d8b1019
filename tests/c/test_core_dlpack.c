/* test_core_dlpack.c -- DLPack export and import in the core, with counted deleters. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/core.h"
#include "producer.h"

static const DLDevice cpu = {kDLCPU, 0};

/* ---- a producer whose deleter counts its calls */

/* A 2x3 float32 row-major tensor over p->data (versioned 1.3 and legacy views of it). */
static void produce(producer *p) { producer_make(p, (DLDataType){kDLFloat, 32, 1}, 2, 3, 3, 1, 0); }

/* Imports p->mt, expecting the error class `code`; the deleter must have run exactly once
 * by the time the tensor is gone. */
static void expect_versioned(producer *p, int code) {
  dlx_tensor t;
  dlx_error err;
  int rc = dlx_import_versioned(&p->mt, &t, &err);
  CHECK_EQ_INT(rc, code);
  if (rc == 0) {
    CHECK_EQ_INT(p->deleted, 0);
    dlx_tensor_close(&t);
  } else {
    CHECK(strlen(err.message) > 0);
  }
  CHECK_EQ_INT(p->deleted, 1);
}

static void test_import_checks(void) {
  producer p;
  produce(&p);
  expect_versioned(&p, 0);
  produce(&p);
  p.mt.version.major = 2;
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.mt.version.minor = 9; /* newer minor with known values: fine */
  expect_versioned(&p, 0);
  produce(&p);
  p.mt.flags = 1u << 5;
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.mt.flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.mt.dl_tensor.dtype.lanes = 4;
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.mt.dl_tensor.dtype = (DLDataType){kDLFloat6_e2m3fn, 8, 1};
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.mt.dl_tensor.device.device_type = kDLCUDA;
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.mt.dl_tensor.ndim = -1;
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.mt.dl_tensor.ndim = 1000;
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.mt.dl_tensor.shape = NULL;
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.shape[0] = -2;
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.shape[0] = INT64_MAX;
  p.shape[1] = 4;
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.shape[0] = 0; /* empty: the other size may be anything, as for creation */
  p.shape[1] = INT64_MAX;
  expect_versioned(&p, 0);
  produce(&p);
  p.strides[0] = INT64_MAX / 2;
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.mt.dl_tensor.strides = NULL; /* forbidden from 1.2 */
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.mt.version.minor = 1;
  p.mt.dl_tensor.strides = NULL; /* fine before 1.2 */
  expect_versioned(&p, 0);
  produce(&p);
  p.mt.dl_tensor.byte_offset = 2; /* not a multiple of 4 */
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.mt.dl_tensor.data = NULL;
  expect_versioned(&p, DLX_BUFFER_ERROR);
  produce(&p);
  p.mt.dl_tensor.data = NULL;
  p.shape[0] = 0; /* zero-size: NULL data is fine */
  expect_versioned(&p, 0);
  produce(&p);
  p.mt.dl_tensor.ndim = 0;
  p.mt.dl_tensor.shape = p.mt.dl_tensor.strides = NULL;
  expect_versioned(&p, 0);
  produce(&p);
  p.mt.deleter = NULL; /* allowed; nothing to call */
  {
    dlx_tensor t;
    dlx_error err;
    p.mt.version.major = 7;
    CHECK(dlx_import_versioned(&p.mt, &t, &err) == DLX_BUFFER_ERROR);
    CHECK_EQ_INT(p.deleted, 0);
  }
}

static void test_import_layout(void) {
  producer p;
  dlx_tensor t;
  dlx_error err;
  produce(&p);
  p.strides[0] = -3; /* rows reversed: the first element is row 1 of the data */
  p.mt.dl_tensor.byte_offset = 12;
  p.mt.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  CHECK(dlx_import_versioned(&p.mt, &t, &err) == 0);
  CHECK(t.readonly);
  CHECK_EQ_INT(t.offset, 3);
  CHECK_EQ_INT(t.strides[0], -3);
  {
    dlx_scalar v;
    int64_t index[2] = {1, 2};
    CHECK(dlx_get_element(&t, index, &v, &err) == 0);
    CHECK(v.kind == DLX_KIND_FLOAT && v.v.f == 2.0);
  }
  {
    dlx_scalar one = {.kind = DLX_KIND_FLOAT, .v.f = 1.0};
    CHECK(dlx_fill(&t, &one, &err) == DLX_VALUE_ERROR); /* read-only */
  }
  dlx_tensor_close(&t);
  CHECK_EQ_INT(p.deleted, 1);
  produce(&p);
  p.legacy.dl_tensor.strides = NULL; /* legacy: row-major */
  CHECK(dlx_import_legacy(&p.legacy, &t, &err) == 0);
  CHECK(!t.readonly);
  CHECK_EQ_INT(t.strides[0], 3);
  dlx_tensor_close(&t);
  CHECK_EQ_INT(p.deleted, 1);
}

static void test_export(void) {
  dlx_tensor t, tr;
  dlx_error err;
  int64_t shape[2] = {2, 3};
  DLManagedTensorVersioned *v;
  DLManagedTensor *l;
  dlx_export_options opts = {.versioned = true, .copy = DLX_COPY_IF_NEEDED};
  CHECK(dlx_tensor_empty(&t, shape, 2, DLX_INT32, cpu, &err) == 0);
  CHECK(dlx_transpose(&tr, &t, 0, 1, &err) == 0);
  CHECK(dlx_export(&tr, &opts, &v, &l, &err) == 0);
  CHECK(v != NULL && l == NULL);
  CHECK_EQ_INT(v->version.major, 1);
  CHECK_EQ_INT(v->version.minor, 3);
  CHECK_EQ_INT(v->flags, 0);
  CHECK(v->dl_tensor.data == t.buffer->data); /* zero copy */
  CHECK_EQ_INT(v->dl_tensor.strides[0], 1);   /* true strides, not normalised */
  CHECK_EQ_INT(v->dl_tensor.strides[1], 3);
  CHECK((char *)v->dl_tensor.shape == (char *)(v + 1)); /* one allocation */
  dlx_tensor_close(&t);
  dlx_tensor_close(&tr);
  ((int32_t *)v->dl_tensor.data)[5] = 7; /* still alive: the export holds the buffer */
  v->deleter(v);

  CHECK(dlx_tensor_empty(&t, shape, 2, DLX_INT32, cpu, &err) == 0);
  opts.copy = DLX_COPY_ALWAYS;
  CHECK(dlx_export(&t, &opts, &v, &l, &err) == 0);
  CHECK(v->dl_tensor.data != t.buffer->data);
  CHECK_EQ_INT(v->flags, DLPACK_FLAG_BITMASK_IS_COPIED);
  v->deleter(v);
  opts.copy = DLX_COPY_IF_NEEDED;
  opts.has_stream = true;
  opts.stream = 1;
  CHECK(dlx_export(&t, &opts, &v, &l, &err) == DLX_VALUE_ERROR);
  opts.has_stream = false;
  opts.has_dl_device = true;
  opts.dl_device = (DLDevice){kDLCUDA, 0};
  CHECK(dlx_export(&t, &opts, &v, &l, &err) == DLX_BUFFER_ERROR);
  opts.has_dl_device = false;

  t.readonly = true;
  CHECK(dlx_export(&t, &opts, &v, &l, &err) == 0);
  CHECK_EQ_INT(v->flags, DLPACK_FLAG_BITMASK_READ_ONLY);
  v->deleter(v);
  opts.versioned = false;
  CHECK(dlx_export(&t, &opts, &v, &l, &err) == DLX_BUFFER_ERROR); /* no flag to carry it */
  opts.copy = DLX_COPY_ALWAYS;
  CHECK(dlx_export(&t, &opts, &v, &l, &err) == 0); /* a writable copy is fine */
  CHECK(l != NULL && v == NULL);
  l->deleter(l);
  dlx_tensor_close(&t);
}

static void test_zero_dim_export(void) {
  dlx_tensor t;
  dlx_error err;
  DLManagedTensorVersioned *v;
  DLManagedTensor *l;
  dlx_export_options opts = {.versioned = true, .copy = DLX_COPY_NEVER};
  CHECK(dlx_tensor_empty(&t, NULL, 0, DLX_FLOAT64, cpu, &err) == 0);
  CHECK(dlx_export(&t, &opts, &v, &l, &err) == 0);
  CHECK_EQ_INT(v->dl_tensor.ndim, 0);
  v->deleter(v);
  dlx_tensor_close(&t);
}

static void test_wrap_legacy(void) {
  producer p;
  dlx_error err;
  DLManagedTensorVersioned *v;
  produce(&p);
  p.legacy.dl_tensor.strides = NULL;
  v = dlx_wrap_legacy(&p.legacy, &err);
  CHECK(v != NULL);
  CHECK_EQ_INT(v->dl_tensor.strides[0], 3);
  CHECK_EQ_INT(v->dl_tensor.strides[1], 1);
  v->deleter(v);
  CHECK_EQ_INT(p.deleted, 1);
}

/* ---- a consumer's stream for an export to host-like memory */

static int stream_checks; /* calls of the stand-in's from_dlpack */

/* The stream rule of a stand-in device with streams: CUDA's (0 and values < -1 refused). */
static int standin_from_dlpack(int32_t device_id, bool given, int64_t value,
                               dlx_stream_request *out, dlx_error *err) {
  (void)device_id;
  stream_checks++;
  out->sync = !given || value != -1;
  out->stream = 0;
  if (given && (value == 0 || value < -1))
    return dlx_fail(err, DLX_VALUE_ERROR, "stream = %lld is refused", (long long)value);
  return 0;
}

static const dlx_stream_ops standin_streams = {.from_dlpack = standin_from_dlpack};

/* Device memory that the host reaches only through copies (its bytes are host memory here). */
static int standin_copy_bytes_host(int32_t device_id, void *dst, const void *src, size_t nbytes,
                                   bool to_device, dlx_error *err) {
  (void)device_id;
  (void)to_device;
  (void)err;
  memcpy(dst, src, nbytes);
  return 0;
}

static const dlx_backend gpu_standin = {
    .name = "gpu_standin",
    .device_type = kDLCUDA,
    .copy_bytes_host = standin_copy_bytes_host,
    .stream = &standin_streams,
};

static int prepare(int32_t device_id, dlx_error *err) {
  (void)device_id;
  (void)err;
  return 0;
}

/* Host memory that a GPU backend lends the host (cuda_managed's traits). */
static const dlx_backend lent_standin = {
    .name = "lent_standin",
    .device_type = kDLCUDAManaged,
    .host_accessible = true,
    .prepare_host_access = prepare,
};

/* Exports t with stream `value`, to dl_device *to (or its own device); the export's error. */
static int export_with_stream(const dlx_tensor *t, int64_t value, const DLDevice *to) {
  dlx_export_options opts = {.versioned = true, .copy = DLX_COPY_IF_NEEDED};
  DLManagedTensorVersioned *v = NULL;
  DLManagedTensor *l = NULL;
  dlx_error err;
  int rc;
  opts.has_stream = true;
  opts.stream = value;
  opts.has_dl_device = to != NULL;
  if (to != NULL) opts.dl_device = *to;
  rc = dlx_export(t, &opts, &v, &l, &err);
  if (rc == 0) {
    CHECK(v != NULL);
    CHECK(((const float *)v->dl_tensor.data)[1] == 2.0f);
    CHECK(to == NULL ? v->dl_tensor.data == t->buffer->data : v->dl_tensor.data != t->buffer->data);
    v->deleter(v);
  }
  return rc;
}

/* PyTorch and JAX pass their stream with dl_device = {1, 0} for a CUDA tensor, CuPy its stream
 * for cuda_managed memory: taken (checked by the device's rule), where plain CPU memory takes
 * none. */
static void test_export_stream_to_host(void) {
  int64_t n = 3;
  dlx_tensor t;
  dlx_error err;
  const dlx_backend *own;
  DLDevice own_device;
  CHECK(dlx_tensor_empty(&t, &n, 1, DLX_FLOAT32, cpu, &err) == 0);
  for (int i = 0; i < 3; i++) ((float *)t.buffer->data)[i] = (float)(i + 1);
  own = t.buffer->backend;
  own_device = t.buffer->device;
  CHECK_EQ_INT(export_with_stream(&t, 1, NULL), DLX_VALUE_ERROR); /* CPU memory */
  t.buffer->backend = &gpu_standin;
  t.buffer->device = (DLDevice){kDLCUDA, 0};
  stream_checks = 0;
  CHECK_EQ_INT(export_with_stream(&t, 1, &cpu), 0);
  CHECK_EQ_INT(export_with_stream(&t, 7, &cpu), 0);
  CHECK_EQ_INT(export_with_stream(&t, 0, &cpu), DLX_VALUE_ERROR);
  CHECK_EQ_INT(stream_checks, 3);
  t.buffer->backend = &lent_standin;
  t.buffer->device = (DLDevice){kDLCUDAManaged, 0};
  CHECK_EQ_INT(export_with_stream(&t, 2, NULL), 0);
  CHECK_EQ_INT(export_with_stream(&t, -1, NULL), 0);
  CHECK_EQ_INT(export_with_stream(&t, -2, NULL), DLX_VALUE_ERROR);
  t.buffer->backend = own;
  t.buffer->device = own_device;
  dlx_tensor_close(&t);
}

int main(void) {
  test_import_checks();
  test_import_layout();
  test_export();
  test_zero_dim_export();
  test_wrap_legacy();
  test_export_stream_to_host();
  return check_report("test_core_dlpack");
}
