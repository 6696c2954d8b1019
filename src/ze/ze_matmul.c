/* ze_matmul.c -- the Level Zero backend's matmul entry (src/core/backend.h's dlx_matmul_request):
 * one launch of the kernel dlx_matmul (src/ze/kernels/matmul.cl; its argument block
 * dlx_ze_matmul_args in ze_args.h) per request, every computable dtype. The request's strides
 * become byte strides; alpha and beta are passed in the precision the kernel computes in (float
 * for float16, bfloat16, float32 and complex64), and "beta is zero" is decided in that precision,
 * as the CPU decides it. Products whose m and n are both at least TILED_SIDE run TILED (a
 * work-group per tile of c, launched in chunks of MAX_GROUPS work-groups); thinner ones, and
 * batches of small matrices, DIRECT (a work-item per element of c). */
#include <stdint.h>
#include <string.h>

#include "core/backend.h"
#include "core/dtype.h"
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"

_Static_assert(sizeof(dlx_ze_matmul_args) <= DLX_ZE_ARGS_SIZE,
               "dlx_ze_device.args holds the matmul argument block");

/* Both m and n at least this: TILED (a tile is then at least a quarter busy). */
#define TILED_SIDE 32
/* Work-groups a launch (DIRECT is grid-stride; TILED launches again for more tiles). */
#define MAX_GROUPS 65536

static char *first_of(const dlx_matrix_operand *o, int64_t itemsize) {
  return (char *)o->buffer->data + o->offset * itemsize;
}

/* The operand's strides in bytes. */
static void set_strides(dlx_ze_i64 *rs, dlx_ze_i64 *cs, dlx_ze_i64 *bs, const dlx_matrix_operand *o,
                        int64_t itemsize) {
  *rs = o->row_stride * itemsize;
  *cs = o->col_stride * itemsize;
  *bs = o->batch_stride * itemsize;
}

/* alpha or beta into the block: real and imaginary parts (float and complex dtypes) or the
 * integer (bool: 0 or 1); returns whether it is zero in the class's precision. */
static bool set_scalar(double *f, dlx_ze_u64 *i, const dlx_scalar *s, int cls) {
  f[0] = f[1] = 0;
  *i = 0;
  switch (s->kind) {
  case DLX_KIND_COMPLEX:
    f[0] = s->v.c[0];
    f[1] = s->v.c[1];
    break;
  case DLX_KIND_FLOAT:
    f[0] = s->v.f;
    break;
  case DLX_KIND_BOOL:
    *i = s->v.b;
    return !s->v.b;
  default: /* DLX_KIND_INT: wraps as the dtype does */
    *i = (uint64_t)s->v.i;
    return s->v.i == 0;
  }
  if (cls == DLX_ZE_MM_CLASS_FLOAT || cls == DLX_ZE_MM_CLASS_C64)
    return (float)f[0] == 0 && (float)f[1] == 0;
  return f[0] == 0 && f[1] == 0;
}

int dlx_ze_matmul(const dlx_matmul_request *r, dlx_error *err) {
  dlx_ze_device *dev = dlx_ze_device_get(r->c.buffer->device.device_id);
  int64_t itemsize = dlx_itemsize(r->dtype);
  int64_t part = dlx_dtype_kind(r->dtype) == DLX_KIND_COMPLEX ? itemsize / 2 : itemsize;
  int cls = dlx_ze_mm_class(r->dtype);
  void *const ptrs[3] = {first_of(&r->c, itemsize), first_of(&r->a, itemsize),
                         first_of(&r->b, itemsize)};
  dlx_ze_matmul_args a;
  int rc;
  memset(&a, 0, sizeof a);
  a.dtype = r->dtype;
  a.batch = r->batch;
  a.m = r->m;
  a.n = r->n;
  a.k = r->k;
  a.mode = r->m >= TILED_SIDE && r->n >= TILED_SIDE ? DLX_ZE_MATMUL_TILED : DLX_ZE_MATMUL_DIRECT;
  a.aligned = 1;
  for (int i = 0; i < 3; i++)
    if ((uintptr_t)ptrs[i] % (uintptr_t)part != 0) a.aligned = 0; /* imports may be unaligned */
  set_strides(&a.a_rs, &a.a_cs, &a.a_bs, &r->a, itemsize);
  set_strides(&a.b_rs, &a.b_cs, &a.b_bs, &r->b, itemsize);
  set_strides(&a.c_rs, &a.c_cs, &a.c_bs, &r->c, itemsize);
  a.conj_a = r->a.conj;
  a.conj_b = r->b.conj;
  set_scalar(a.alpha_f, &a.alpha_i, &r->alpha, cls);
  a.beta_zero = set_scalar(a.beta_f, &a.beta_i, &r->beta, cls);
  pthread_mutex_lock(&dev->lock);
  if (a.mode == DLX_ZE_MATMUL_DIRECT) {
    rc = dlx_ze_launch(dev, DLX_ZE_MATMUL, dlx_ze_groups_for(a.batch * a.m * a.n), &a, sizeof a,
                       ptrs, 3, err);
  } else { /* a work-group a tile, for the most tiles any sub-group size makes */
    int64_t tiles = a.batch * dlx_ze_mm_tiles_max(cls, a.m, a.n);
    for (rc = 0; rc == 0 && a.first_tile < tiles; a.first_tile += MAX_GROUPS) {
      int64_t groups = tiles - a.first_tile < MAX_GROUPS ? tiles - a.first_tile : MAX_GROUPS;
      rc = dlx_ze_launch(dev, DLX_ZE_MATMUL, (uint32_t)groups, &a, sizeof a, ptrs, 3, err);
    }
  }
  pthread_mutex_unlock(&dev->lock);
  return rc;
}
