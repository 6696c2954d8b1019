/* producer.h -- a host-side DLPack producer for the C tests: a small 2-d tensor over its own
 * memory, as a versioned (1.3) and a legacy struct, whose deleters count their calls. */
#ifndef DLX_TESTS_PRODUCER_H
#define DLX_TESTS_PRODUCER_H

#include <stdint.h>
#include <string.h>

#include "dlpack/dlpack.h"

typedef struct producer {
  DLManagedTensorVersioned mt;
  DLManagedTensor legacy;
  int64_t shape[4], strides[4];
  union {
    float f32[64];
    int32_t i32[64];
  } data; /* 0, 1, 2, ... in the tensor's dtype */
  int deleted;
} producer;

static inline void producer_count_versioned(DLManagedTensorVersioned *self) {
  ((producer *)self->manager_ctx)->deleted++;
}

static inline void producer_count_legacy(DLManagedTensor *self) {
  ((producer *)self->manager_ctx)->deleted++;
}

/* A rows x cols float32 or int32 tensor with strides (s0, s1) over data 0, 1, 2, ...; the
 * versioned struct carries flags. */
static inline void producer_make(producer *p, DLDataType dtype, int64_t rows, int64_t cols,
                                 int64_t s0, int64_t s1, uint64_t flags) {
  memset(p, 0, sizeof *p);
  for (int i = 0; i < 64; i++) {
    if (dtype.code == kDLFloat)
      p->data.f32[i] = (float)i;
    else
      p->data.i32[i] = i;
  }
  p->shape[0] = rows;
  p->shape[1] = cols;
  p->strides[0] = s0;
  p->strides[1] = s1;
  DLTensor dl = {&p->data, {kDLCPU, 0}, 2, dtype, p->shape, p->strides, 0};
  p->mt.version.major = 1;
  p->mt.version.minor = 3;
  p->mt.manager_ctx = p;
  p->mt.deleter = producer_count_versioned;
  p->mt.flags = flags;
  p->mt.dl_tensor = dl;
  p->legacy.manager_ctx = p;
  p->legacy.deleter = producer_count_legacy;
  p->legacy.dl_tensor = dl;
}

/* Both structs describe memory at data on device (a GPU's, say) instead of the producer's own. */
static inline void producer_point_at(producer *p, void *data, DLDevice device) {
  p->mt.dl_tensor.data = p->legacy.dl_tensor.data = data;
  p->mt.dl_tensor.device = p->legacy.dl_tensor.device = device;
}

#endif
