/* legacy_layout.c -- the layout of Debian's DLPack 0.6 header (libdlpack-dev), compiled on its
 * own: it shares the include guard DLPACK_DLPACK_H_ with ours, so the two can never meet in one
 * translation unit. The build names the header by its full path (DLX_LEGACY_DLPACK_HEADER,
 * normally "/usr/include/dlpack/dlpack.h") and gives this file none of dlx's include
 * directories. */
#ifndef DLX_LEGACY_DLPACK_HEADER
#define DLX_LEGACY_DLPACK_HEADER <dlpack/dlpack.h>
#endif
#include DLX_LEGACY_DLPACK_HEADER
#include <stddef.h>

#include "abi_items.h"

#if defined(DLPACK_MAJOR_VERSION) || !defined(DLPACK_VERSION)
#error "expected the pre-1.0 dlpack.h of libdlpack-dev, found a 1.x header (dlx's own?)"
#endif

const dlx_abi_item *dlx_legacy_abi_items(int *count, int *version);
void dlx_legacy_fill(void *managed, void (*deleter)(void *));

/* Every fact under the 0.x header. */
const dlx_abi_item *dlx_legacy_abi_items(int *count, int *version) {
  /* clang-format off */
  static const dlx_abi_item items[] = {
      DLX_ABI_LEGACY_LAYOUT(DLX_ABI_ITEM)
      DLX_ABI_ENUMS_V06(DLX_ABI_ITEM)
#if DLPACK_VERSION >= 70
      DLX_ABI_ENUMS_V07(DLX_ABI_ITEM)
#endif
#if DLPACK_VERSION >= 80
      DLX_ABI_ENUMS_V08(DLX_ABI_ITEM)
#endif
  };
  /* clang-format on */
  *count = (int)(sizeof items / sizeof items[0]);
  *version = DLPACK_VERSION;
  return items;
}

static void (*probe_deleter)(void *);
static void call_probe_deleter(DLManagedTensor *self) { probe_deleter(self); }

/* Fills a DLManagedTensor the way a 0.6 producer would, for the other side to read with the
 * 1.3 header. */
void dlx_legacy_fill(void *managed, void (*deleter)(void *)) {
  static int64_t shape[2] = {5, 7};
  static int64_t strides[2] = {7, 1};
  DLManagedTensor *m = (DLManagedTensor *)managed;
  m->dl_tensor.data = DLX_ABI_PROBE_DATA;
  m->dl_tensor.device.device_type = kDLCUDAManaged;
  m->dl_tensor.device.device_id = DLX_ABI_PROBE_DEVICE_ID;
  m->dl_tensor.ndim = DLX_ABI_PROBE_NDIM;
  m->dl_tensor.dtype.code = kDLBfloat;
  m->dl_tensor.dtype.bits = 16;
  m->dl_tensor.dtype.lanes = DLX_ABI_PROBE_LANES;
  m->dl_tensor.shape = shape;
  m->dl_tensor.strides = strides;
  m->dl_tensor.byte_offset = DLX_ABI_PROBE_OFFSET;
  m->manager_ctx = managed;
  probe_deleter = deleter;
  m->deleter = call_probe_deleter;
}
