/* dlpack_io.c -- the producer (export) and consumer (import) rules of DLPack. */
#include "core/dlpack_io.h"

#include <string.h>

#include "core/alloc.h"
#include "core/device.h"
#include "core/ops.h"

#define KNOWN_FLAGS                                                                                \
  (DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED |                                 \
   DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED)

/* ================= export ================= */

/* The deleters: release the buffer reference and free the one block. They never touch Lua and
 * may run on any thread (the buffer's refcount is atomic). */
static void versioned_deleter(DLManagedTensorVersioned *self) {
  dlx_buffer_release(self->manager_ctx);
  dlx_free(self);
}

static void legacy_deleter(DLManagedTensor *self) {
  dlx_buffer_release(self->manager_ctx);
  dlx_free(self);
}

/* Fills dl from t; shape and strides point at `dims` (2 * ndim entries, owned by the block). */
static void describe(DLTensor *dl, const dlx_tensor *t, int64_t *dims) {
  dl->data = t->buffer->data;
  dl->device = t->buffer->device;
  dl->ndim = t->ndim;
  dl->dtype = dlx_dtype_info_of(t->dtype)->dl;
  dl->byte_offset = (uint64_t)(t->offset * dlx_dtype_bits(t->dtype) / 8);
  if (t->ndim == 0) {
    dl->shape = dl->strides = NULL; /* allowed for 0-d, as NumPy does */
    return;
  }
  memcpy(dims, t->shape, (size_t)t->ndim * sizeof *dims);
  memcpy(dims + t->ndim, t->strides, (size_t)t->ndim * sizeof *dims);
  dl->shape = dims;
  dl->strides = dims + t->ndim;
}

/* One allocation per export: the struct followed by shape and strides (NumPy's layout). */
static int make_managed(const dlx_tensor *t, bool versioned, uint64_t flags,
                        DLManagedTensorVersioned **vout, DLManagedTensor **lout, dlx_error *err) {
  size_t head = versioned ? sizeof(DLManagedTensorVersioned) : sizeof(DLManagedTensor);
  char *block = dlx_malloc(head + 2 * (size_t)t->ndim * sizeof(int64_t));
  if (block == NULL) return dlx_fail(err, DLX_MEMORY_ERROR, "out of memory exporting a tensor");
  dlx_buffer_retain(t->buffer);
  if (versioned) {
    DLManagedTensorVersioned *mt = (DLManagedTensorVersioned *)block;
    mt->version.major = DLPACK_MAJOR_VERSION;
    mt->version.minor = DLPACK_MINOR_VERSION;
    mt->manager_ctx = t->buffer;
    mt->deleter = versioned_deleter;
    mt->flags = flags;
    describe(&mt->dl_tensor, t, (int64_t *)(block + head));
    *vout = mt;
  } else {
    DLManagedTensor *mt = (DLManagedTensor *)block;
    mt->manager_ctx = t->buffer;
    mt->deleter = legacy_deleter;
    describe(&mt->dl_tensor, t, (int64_t *)(block + head));
    *lout = mt;
  }
  return 0;
}

/* Why the data cannot be exported as it is (so a copy is needed), or NULL. */
const char *dlx_export_copy_reason(const dlx_tensor *t, DLDevice target) {
  if (dlx_buffer_is_borrowed(t->buffer))
    return "the tensor is borrowed from the host, whose loan may end before the consumer is done";
  if (!dlx_device_equal(target, t->buffer->device)) return "the export is to another device";
  if (t->offset * dlx_dtype_bits(t->dtype) % 8 != 0)
    return "the view starts inside a byte, which byte_offset cannot express";
  return NULL;
}

/* A consumer's stream for an export to host-like memory (dlpack-spec.md 6.2). The CUDA-aware
 * consumers pass one where the host or a GPU reads the data: PyTorch and JAX with dl_device =
 * {1, 0} (their stream on the tensor's device), CuPy for cuda_managed memory (its stream). Such
 * an export is complete when it returns (a copy to the host waits for it; the GPU's copies into
 * lent memory do too), so nothing waits; the value is checked by the rules of the tensor's
 * device when it has streams. Plain host memory takes no stream. */
static int check_host_stream(const dlx_tensor *t, const dlx_export_options *opts, DLDevice target,
                             dlx_error *err) {
  const dlx_backend *source = t->buffer->backend;
  const dlx_backend *lender =
      dlx_device_equal(target, t->buffer->device) ? source : dlx_backend_for(target.device_type);
  dlx_stream_request ignored;
  char name[48];
  if (source->stream != NULL)
    return source->stream->from_dlpack(t->buffer->device.device_id, true, opts->stream, &ignored,
                                       err);
  if (lender == NULL || lender->prepare_host_access == NULL)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "stream must be nil for a %s export (got %lld): "
                    "CPU memory has no streams",
                    dlx_device_format(target, name, sizeof name), (long long)opts->stream);
  if (opts->stream < -1)
    return dlx_fail(err, DLX_VALUE_ERROR, "stream = %lld: a DLPack stream value is -1 or more",
                    (long long)opts->stream);
  return 0;
}

static int check_export_request(const dlx_tensor *t, const dlx_export_options *opts,
                                DLDevice target, dlx_error *err) {
  char name[48];
  if (opts->has_stream && dlx_device_type_is_host_like(target.device_type)) {
    int rc = check_host_stream(t, opts, target, err);
    if (rc != 0) return rc;
  }
  if (!dlx_device_equal(target, t->buffer->device)) {
    dlx_error why;
    if (dlx_device_check(target, &why) != 0)
      return dlx_fail(err, DLX_BUFFER_ERROR, "cannot export to dl_device %s: %s",
                      dlx_device_format(target, name, sizeof name), why.message);
  }
  return 0;
}

/* The stream rules of the producer (dlpack-spec.md 6.2): on a device with streams, the work
 * queued on our current stream must be complete before the consumer's stream reads the data,
 * so the consumer's stream waits for it (never the host). Memory the CPU reads (a dl_device
 * export to the host) was copied synchronously and needs nothing. */
static int order_for_consumer(DLDevice target, const dlx_export_options *opts, dlx_error *err) {
  const dlx_backend *backend = dlx_backend_for(target.device_type);
  dlx_stream_request request;
  int rc;
  if (backend == NULL || backend->stream == NULL) return 0;
  rc =
      backend->stream->from_dlpack(target.device_id, opts->has_stream, opts->stream, &request, err);
  if (rc != 0 || !request.sync) return rc;
  return backend->stream->wait_for_current(target.device_id, request.stream, err);
}

int dlx_export(const dlx_tensor *t, const dlx_export_options *opts,
               DLManagedTensorVersioned **versioned_out, DLManagedTensor **legacy_out,
               dlx_error *err) {
  DLDevice target = opts->has_dl_device ? opts->dl_device : t->buffer->device;
  const char *reason = dlx_export_copy_reason(t, target);
  bool copy = opts->copy == DLX_COPY_ALWAYS || reason != NULL;
  dlx_tensor src;
  int rc;
  *versioned_out = NULL;
  *legacy_out = NULL;
  rc = dlx_buffer_check(t->buffer, err);
  if (rc == 0) rc = check_export_request(t, opts, target, err);
  if (rc != 0) return rc;
  if (reason != NULL && opts->copy == DLX_COPY_NEVER)
    return dlx_fail(err, DLX_BUFFER_ERROR, "a copy would be needed (%s) but copy = false", reason);
  if (!copy && !opts->versioned && (t->readonly || dlx_tensor_is_broadcast(t)))
    return dlx_fail(err, DLX_BUFFER_ERROR,
                    "the tensor is %s and a legacy (unversioned) DLPack tensor cannot carry the "
                    "READ_ONLY flag; ask for max_version = {1, 3} (or copy = true)",
                    t->readonly ? "read-only" : "a broadcast view (a stride-0 dim)");
  if (!copy) {
    rc = order_for_consumer(target, opts, err);
    if (rc != 0) return rc;
    return make_managed(t, opts->versioned,
                        t->readonly || dlx_tensor_is_broadcast(t) ? DLPACK_FLAG_BITMASK_READ_ONLY
                                                                  : 0,
                        versioned_out, legacy_out, err);
  }
  rc = dlx_clone_as(&src, t, t->dtype, target, err);
  if (rc != 0) return rc;
  rc = order_for_consumer(target, opts, err); /* after the copy was queued */
  if (rc != 0) {
    dlx_tensor_close(&src);
    return rc;
  }
  rc = make_managed(&src, opts->versioned, DLPACK_FLAG_BITMASK_IS_COPIED, versioned_out, legacy_out,
                    err);
  dlx_tensor_close(&src); /* the export holds its own reference */
  return rc;
}

/* ================= import ================= */

static void release_versioned(dlx_buffer *self) {
  DLManagedTensorVersioned *mt = self->owner;
  if (mt->deleter != NULL) mt->deleter(mt);
}

static void release_legacy(dlx_buffer *self) {
  DLManagedTensor *mt = self->owner;
  if (mt->deleter != NULL) mt->deleter(mt);
}

static int check_dtype(DLDataType dl, dlx_dtype *out, dlx_error *err) {
  if ((dl.code == kDLFloat6_e2m3fn || dl.code == kDLFloat6_e3m2fn) && dl.bits != 6)
    return dlx_fail(err, DLX_BUFFER_ERROR, "float6 data with bits = %d (DLPack requires 6)",
                    dl.bits);
  if (dl.code == kDLFloat4_e2m1fn && dl.bits != 4)
    return dlx_fail(err, DLX_BUFFER_ERROR, "float4 data with bits = %d (DLPack requires 4)",
                    dl.bits);
  if (dlx_dtype_from_dl(dl, out) != 0)
    return dlx_fail(err, DLX_BUFFER_ERROR, "unsupported dtype (code %d, bits %d, lanes %d)",
                    dl.code, dl.bits, dl.lanes);
  return 0;
}

static int check_device(DLDevice dev, const void *data, DLDevice *out, dlx_error *err) {
  const char *name = dlx_device_type_name(dev.device_type);
  const dlx_backend *backend = dlx_backend_for(dev.device_type);
  if (backend == NULL)
    return dlx_fail(err, DLX_BUFFER_ERROR, "device type %d (%s) is not supported by this dlx",
                    (int)dev.device_type, name != NULL ? name : "unknown");
  /* Any id the producer gave: a kDLOneAPI id is often a SYCL index, which refine corrects. */
  if (backend->refine_import != NULL && backend->device_count() > 0)
    backend->refine_import(&dev, data);
  if (dev.device_id < 0) /* refine_import: no device of this type owns data */
    return dlx_fail(err, DLX_BUFFER_ERROR,
                    "the data pointer is not memory of any %s device dlx knows (the driver does "
                    "not recognise it)",
                    name);
  name = dlx_device_type_name(dev.device_type);
  *out = dev;
  if (dlx_device_type_is_host_like(dev.device_type)) out->device_id = 0;
  if (dlx_device_check(*out, NULL) != 0)
    return dlx_fail(err, DLX_BUFFER_ERROR, "device %s:%d is not available", name,
                    (int)dev.device_id);
  return 0;
}

/* Shape, strides and the extent in elements; every product checked for overflow. */
static int check_layout(const DLTensor *dl, bool allow_null_strides, dlx_tensor *t,
                        dlx_error *err) {
  int64_t numel = 1, span = 0;
  if (dl->ndim < 0 || dl->ndim > DLX_MAX_NDIM)
    return dlx_fail(err, DLX_BUFFER_ERROR, "ndim = %d (dlx takes 0 to %d)", (int)dl->ndim,
                    DLX_MAX_NDIM);
  if (dl->ndim > 0 && dl->shape == NULL)
    return dlx_fail(err, DLX_BUFFER_ERROR, "NULL shape with ndim = %d", (int)dl->ndim);
  if (dl->ndim > 0 && dl->strides == NULL && !allow_null_strides)
    return dlx_fail(err, DLX_BUFFER_ERROR,
                    "NULL strides with ndim = %d from a DLPack >= 1.2 "
                    "producer (strides are required since 1.2)",
                    (int)dl->ndim);
  t->ndim = dl->ndim;
  for (int32_t d = 0; d < dl->ndim; d++) {
    if (dl->shape[d] < 0)
      return dlx_fail(err, DLX_BUFFER_ERROR, "negative size %lld in dim %d",
                      (long long)dl->shape[d], (int)d + 1);
    t->shape[d] = dl->shape[d];
  }
  /* the rule of creation: an empty shape is never too large, whatever its other sizes */
  if (dlx_check_shape(t->shape, t->ndim, t->dtype, NULL) != 0)
    return dlx_fail(err, DLX_BUFFER_ERROR, "the element count or byte size overflows");
  numel = dlx_tensor_numel(t);
  if (dl->strides != NULL)
    memcpy(t->strides, dl->strides, (size_t)dl->ndim * sizeof(int64_t));
  else
    dlx_contiguous_strides(t->shape, t->ndim, t->strides);
  for (int32_t d = 0; numel > 0 && d < dl->ndim; d++) {
    int64_t s, part;
    if (t->strides[d] == INT64_MIN) /* cannot be negated */
      return dlx_fail(err, DLX_BUFFER_ERROR, "the strides reach beyond any addressable memory");
    s = t->strides[d] < 0 ? -t->strides[d] : t->strides[d];
    if (__builtin_mul_overflow(dl->shape[d] - 1, s, &part) ||
        __builtin_add_overflow(span, part, &span))
      return dlx_fail(err, DLX_BUFFER_ERROR, "the strides reach beyond any addressable memory");
  }
  if (numel > 0 && dl->data == NULL)
    return dlx_fail(err, DLX_BUFFER_ERROR, "NULL data for a tensor of %lld elements",
                    (long long)numel);
  return 0;
}

static int check_offset(const DLTensor *dl, dlx_tensor *t, dlx_error *err) {
  int bits = dlx_dtype_bits(t->dtype);
  int64_t lo, hi, bytes;
  if (dl->byte_offset > (uint64_t)INT64_MAX / 8 || dl->byte_offset * 8 % (uint64_t)bits != 0)
    return dlx_fail(err, DLX_BUFFER_ERROR,
                    "byte_offset %llu is not a multiple of the %s item "
                    "size",
                    (unsigned long long)dl->byte_offset, dlx_dtype_info_of(t->dtype)->name);
  t->offset = (int64_t)(dl->byte_offset * 8 / (uint64_t)bits);
  dlx_tensor_extent(t, &lo, &hi);
  if (__builtin_mul_overflow(hi, (int64_t)bits, &bytes) || bytes / 8 > PTRDIFF_MAX / 2)
    return dlx_fail(err, DLX_BUFFER_ERROR, "the tensor's extent overflows");
  return 0;
}

/* The kernels of some backends load whole elements (aligned_elements, backend.h): one at an
 * address that is not a multiple of its size faults, and on CUDA leaves the context unusable
 * for the whole process. (CPU code reads any address, and the Level Zero kernels read bytes.)
 * Checked before the device, with the traits of a backend the build left out too, so the check
 * is the same on machines with and without a GPU. */
static int check_alignment(const DLTensor *dl, dlx_dtype dtype, dlx_error *err) {
  const dlx_backend *backend = dlx_backend_described(dl->device.device_type);
  int bits = dlx_dtype_bits(dtype);
  uintptr_t first;
  if (backend == NULL || !backend->aligned_elements) return 0;
  if (bits % 8 != 0 || dl->data == NULL) return 0; /* packed fp4/fp6 are read by bytes */
  first = (uintptr_t)dl->data + (uintptr_t)dl->byte_offset;
  if (first % (uintptr_t)(bits / 8) != 0)
    return dlx_fail(err, DLX_BUFFER_ERROR,
                    "%s data at %p + byte_offset %llu is not aligned to its %d-byte %s items",
                    backend->name, dl->data, (unsigned long long)dl->byte_offset, bits / 8,
                    dlx_dtype_info_of(dtype)->name);
  return 0;
}

/* The checks common to both kinds; fills t (without its buffer). */
static int check_tensor(const DLTensor *dl, bool allow_null_strides, dlx_tensor *t,
                        DLDevice *device, dlx_error *err) {
  int rc;
  memset(t, 0, sizeof *t);
  rc = check_dtype(dl->dtype, &t->dtype, err);
  if (rc == 0) rc = check_alignment(dl, t->dtype, err);
  if (rc == 0) rc = check_device(dl->device, dl->data, device, err);
  if (rc == 0) rc = check_layout(dl, allow_null_strides, t, err);
  if (rc == 0) rc = check_offset(dl, t, err);
  return rc;
}

static int check_flags(uint64_t flags, dlx_error *err) {
  if (flags & ~(uint64_t)KNOWN_FLAGS)
    return dlx_fail(err, DLX_BUFFER_ERROR, "unknown DLPack flags 0x%llx",
                    (unsigned long long)(flags & ~(uint64_t)KNOWN_FLAGS));
  if (flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED)
    return dlx_fail(err, DLX_BUFFER_ERROR,
                    "padded sub-byte data (IS_SUBBYTE_TYPE_PADDED) is not "
                    "supported; dlx takes packed fp4/fp6");
  return 0;
}

static int wrap_import(const DLTensor *dl, dlx_tensor *t, DLDevice device,
                       void (*release)(dlx_buffer *), void *owner, dlx_error *err) {
  int64_t lo, hi;
  dlx_tensor_extent(t, &lo, &hi);
  t->buffer = dlx_buffer_wrap(device, dl->data, (size_t)((hi * dlx_dtype_bits(t->dtype) + 7) / 8),
                              release, owner, err);
  return t->buffer == NULL ? DLX_MEMORY_ERROR : 0;
}

/* A struct that dlx exported (its deleter is ours) over the whole of the buffer it holds: the
 * import takes that buffer reference and frees the struct, instead of wrapping the data in a
 * new buffer whose release calls the deleter. The tensor is the same either way (the checks
 * ran on the struct as on any other); what is saved is an allocation and a release chain. */
static bool take_own_export(DLManagedTensorVersioned *mt, dlx_tensor *t, DLDevice device) {
  dlx_buffer *b = mt->manager_ctx;
  if (mt->deleter != versioned_deleter || b->data != mt->dl_tensor.data ||
      !dlx_device_equal(b->device, device))
    return false;
  t->buffer = b;
  dlx_free(mt); /* the struct's reference is the tensor's now */
  return true;
}

int dlx_import_versioned(DLManagedTensorVersioned *mt, dlx_tensor *out, dlx_error *err) {
  dlx_tensor t;
  DLDevice device;
  int rc;
  if (mt == NULL) return dlx_fail(err, DLX_BUFFER_ERROR, "NULL DLManagedTensorVersioned");
  if (mt->version.major != DLPACK_MAJOR_VERSION) {
    rc = dlx_fail(err, DLX_BUFFER_ERROR,
                  "DLPack version %u.%u is not supported (dlx speaks "
                  "%d.x)",
                  mt->version.major, mt->version.minor, DLPACK_MAJOR_VERSION);
  } else if ((rc = check_flags(mt->flags, err)) == 0) {
    rc = check_tensor(&mt->dl_tensor, mt->version.minor < 2, &t, &device, err);
    t.readonly = (mt->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0; /* mt may be freed next */
    if (rc == 0 && !take_own_export(mt, &t, device))
      rc = wrap_import(&mt->dl_tensor, &t, device, release_versioned, mt, err);
  }
  if (rc != 0) {
    if (mt->deleter != NULL) mt->deleter(mt); /* ours now: give it back exactly once */
    return rc;
  }
  *out = t;
  return 0;
}

int dlx_import_legacy(DLManagedTensor *mt, dlx_tensor *out, dlx_error *err) {
  dlx_tensor t;
  DLDevice device;
  int rc;
  if (mt == NULL) return dlx_fail(err, DLX_BUFFER_ERROR, "NULL DLManagedTensor");
  rc = check_tensor(&mt->dl_tensor, true, &t, &device, err);
  if (rc == 0) rc = wrap_import(&mt->dl_tensor, &t, device, release_legacy, mt, err);
  if (rc != 0) {
    if (mt->deleter != NULL) mt->deleter(mt);
    return rc;
  }
  *out = t;
  return 0;
}

int dlx_import_dltensor(const DLTensor *dl, uint64_t flags, void (*release)(dlx_buffer *),
                        void *owner, dlx_tensor *out, dlx_error *err) {
  dlx_tensor t;
  DLDevice device;
  int rc;
  if (dl == NULL) return dlx_fail(err, DLX_VALUE_ERROR, "NULL DLTensor");
  rc = check_flags(flags, err);
  if (rc == 0) rc = check_tensor(dl, true, &t, &device, err);
  if (rc == 0) rc = wrap_import(dl, &t, device, release, owner, err);
  if (rc != 0) return rc;
  t.readonly = (flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  *out = t;
  return 0;
}

/* ================= legacy -> versioned ================= */

static void wrapped_legacy_deleter(DLManagedTensorVersioned *self) {
  DLManagedTensor *legacy = self->manager_ctx;
  if (legacy->deleter != NULL) legacy->deleter(legacy);
  dlx_free(self);
}

DLManagedTensorVersioned *dlx_wrap_legacy(DLManagedTensor *legacy, dlx_error *err) {
  const DLTensor *dl = &legacy->dl_tensor;
  int32_t ndim = dl->ndim > 0 ? dl->ndim : 0;
  DLManagedTensorVersioned *mt = dlx_malloc(sizeof *mt + 2 * (size_t)ndim * sizeof(int64_t));
  int64_t *dims;
  if (mt == NULL) {
    dlx_fail(err, DLX_MEMORY_ERROR, "out of memory wrapping a legacy DLPack tensor");
    return NULL;
  }
  dims = (int64_t *)(mt + 1);
  mt->version.major = DLPACK_MAJOR_VERSION;
  mt->version.minor = DLPACK_MINOR_VERSION;
  mt->manager_ctx = legacy;
  mt->deleter = wrapped_legacy_deleter;
  mt->flags = 0;
  mt->dl_tensor = *dl;
  if (ndim > 0 && dl->shape != NULL) {
    /* a 1.3 struct must carry strides: copy them, computing row-major ones for NULL */
    memcpy(dims, dl->shape, (size_t)ndim * sizeof *dims);
    if (dl->strides != NULL)
      memcpy(dims + ndim, dl->strides, (size_t)ndim * sizeof *dims);
    else
      dlx_contiguous_strides(dims, ndim, dims + ndim);
    mt->dl_tensor.shape = dims;
    mt->dl_tensor.strides = dims + ndim;
  }
  return mt;
}
