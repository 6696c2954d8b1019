/* dlpack_io.h -- DLPack export and import: the producer and consumer rules of the protocol. */
#ifndef DLX_CORE_DLPACK_IO_H
#define DLX_CORE_DLPACK_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/tensor.h"
#include "dlpack/dlpack.h"

typedef enum dlx_copy_mode {
  DLX_COPY_IF_NEEDED = -1, /* copy = nil */
  DLX_COPY_NEVER = 0,      /* copy = false: BufferError when a copy would be needed */
  DLX_COPY_ALWAYS = 1      /* copy = true: always copy, and flag IS_COPIED */
} dlx_copy_mode;

typedef struct dlx_export_options {
  bool versioned; /* max_version with major >= 1 given: a DLManagedTensorVersioned */
  dlx_copy_mode copy;
  bool has_dl_device; /* export to dl_device instead of the tensor's own device */
  DLDevice dl_device;
  bool has_stream; /* a stream value was given (CPU accepts none) */
  int64_t stream;
} dlx_export_options;

/* Exports t under the rules of __dlpack: one allocation holding the managed struct, shape and
 * strides (never NULL strides when ndim > 0) and a buffer reference. Sets *versioned_out or
 * *legacy_out (the other stays NULL). Read-only tensors refuse legacy export unless copied. */
/* Why sharing t with a consumer on target would not do and an export must copy (a borrowed
 * tensor, another device, a view starting inside a byte), or NULL when it can be shared. The
 * from_dlpack fast path for dlx's own tensors asks the same question. */
const char *dlx_export_copy_reason(const dlx_tensor *t, DLDevice target);

/* Borrowed memory is always copied (the loan may end first); expired memory is refused. */
int dlx_export(const dlx_tensor *t, const dlx_export_options *opts,
               DLManagedTensorVersioned **versioned_out, DLManagedTensor **legacy_out,
               dlx_error *err);

/* Imports a managed tensor: ownership passes to dlx whatever happens. On success out is a
 * tensor whose buffer calls mt's deleter (when not NULL) at its last release; on failure the
 * deleter has already been called and err (BufferError) says what was wrong. */
int dlx_import_versioned(DLManagedTensorVersioned *mt, dlx_tensor *out, dlx_error *err);
int dlx_import_legacy(DLManagedTensor *mt, dlx_tensor *out, dlx_error *err);

/* Imports memory that no managed tensor owns (a host's loan, a host's own tensor): the checks
 * of an import (NULL strides mean row-major; flags as a versioned struct's), then a buffer whose
 * release(self) runs at its last release. On failure release is NOT called. */
int dlx_import_dltensor(const DLTensor *dl, uint64_t flags, void (*release)(dlx_buffer *),
                        void *owner, dlx_tensor *out, dlx_error *err);

/* A versioned struct that owns a legacy one (for hosts that want one kind only): its deleter
 * calls the legacy deleter. NULL on allocation failure (the legacy tensor is left untouched). */
DLManagedTensorVersioned *dlx_wrap_legacy(DLManagedTensor *legacy, dlx_error *err);

#endif
