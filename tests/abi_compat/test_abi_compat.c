/* test_abi_compat.c -- our DLPack 1.3 header against Debian's 0.6 one (libdlpack-dev): the
 * legacy structs have the same sizes and offsets, the enum values that 0.6 knows are the same,
 * and a DLManagedTensor written under 0.6 reads correctly under 1.3. The 0.6 side lives in
 * legacy_layout.c, its own translation unit (both headers use the same include guard). */
#include <stddef.h>
#include <string.h>

#include "abi_items.h"
#include "check.h"
#include "dlpack/dlpack.h"

const dlx_abi_item *dlx_legacy_abi_items(int *count, int *version);
void dlx_legacy_fill(void *managed, void (*deleter)(void *));

/* (X-macro lists: clang-format would run them together.) */
/* clang-format off */
static const dlx_abi_item ours[] = {
    DLX_ABI_LEGACY_LAYOUT(DLX_ABI_ITEM)
    DLX_ABI_ENUMS_V06(DLX_ABI_ITEM)
    DLX_ABI_ENUMS_V07(DLX_ABI_ITEM)
    DLX_ABI_ENUMS_V08(DLX_ABI_ITEM)
};
/* How many facts any 0.6 or later header must report. */
enum { NUM_V06 = 0 DLX_ABI_LEGACY_LAYOUT(DLX_ABI_COUNT) DLX_ABI_ENUMS_V06(DLX_ABI_COUNT) };
/* clang-format on */
#define NUM_OURS ((int)(sizeof ours / sizeof ours[0]))

static const dlx_abi_item *find_ours(const char *expr) {
  for (int i = 0; i < NUM_OURS; i++) {
    if (strcmp(ours[i].expr, expr) == 0) return &ours[i];
  }
  return NULL;
}

static int deleter_calls = 0;
static void *deleted = NULL;
static void count_deleter(void *self) {
  deleter_calls++;
  deleted = self;
}

int main(void) {
  int count, version;
  const dlx_abi_item *legacy = dlx_legacy_abi_items(&count, &version);
  DLManagedTensor m;

  printf("test_abi_compat: libdlpack-dev DLPACK_VERSION %d, %d facts\n", version, count);
  CHECK(version >= 60 && version < 100);
  CHECK(count >= NUM_V06);
  for (int i = 0; i < count; i++) {
    const dlx_abi_item *mine = find_ours(legacy[i].expr);
    if (mine == NULL) {
      fprintf(stderr, "test_abi_compat: %s is not in our header\n", legacy[i].expr);
      CHECK(mine != NULL);
    } else if (mine->value != legacy[i].value) {
      fprintf(stderr, "test_abi_compat: %s: 0.x has %lld, ours %lld\n", legacy[i].expr,
              legacy[i].value, mine->value);
      CHECK_EQ_INT(mine->value, legacy[i].value);
    } else {
      CHECK_EQ_INT(mine->value, legacy[i].value);
    }
  }

  /* A tensor written by the 0.6 side, read through our header. */
  memset(&m, 0, sizeof m);
  dlx_legacy_fill(&m, count_deleter);
  CHECK(m.dl_tensor.data == DLX_ABI_PROBE_DATA);
  CHECK_EQ_INT(m.dl_tensor.device.device_type, kDLCUDAManaged);
  CHECK_EQ_INT(m.dl_tensor.device.device_id, DLX_ABI_PROBE_DEVICE_ID);
  CHECK_EQ_INT(m.dl_tensor.ndim, DLX_ABI_PROBE_NDIM);
  CHECK_EQ_INT(m.dl_tensor.dtype.code, kDLBfloat);
  CHECK_EQ_INT(m.dl_tensor.dtype.bits, 16);
  CHECK_EQ_INT(m.dl_tensor.dtype.lanes, DLX_ABI_PROBE_LANES);
  CHECK(m.dl_tensor.shape != NULL && m.dl_tensor.shape[0] == 5 && m.dl_tensor.shape[1] == 7);
  CHECK(m.dl_tensor.strides != NULL && m.dl_tensor.strides[0] == 7 && m.dl_tensor.strides[1] == 1);
  CHECK_EQ_INT(m.dl_tensor.byte_offset, DLX_ABI_PROBE_OFFSET);
  CHECK(m.manager_ctx == (void *)&m);
  CHECK(m.deleter != NULL);
  if (m.deleter != NULL) m.deleter(&m);
  CHECK_EQ_INT(deleter_calls, 1);
  CHECK(deleted == (void *)&m);
  return check_report("test_abi_compat");
}
