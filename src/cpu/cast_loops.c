/* cast_loops.c -- the typed 1-D loops behind copy: raw copies by item size, and one cast loop
 * per (source, destination) pair of computable dtypes, generated from convert.h's type list. */
#include "cpu/cast_loops.h"

#include <string.h>

#include "common/convert.h"

/* ---- raw copies: contiguous runs are one memcpy, a broadcast source is read once */

#define DEFINE_COPY_LOOP(size)                                                                     \
  static void copy_##size(char *dst, ptrdiff_t dst_step, const char *src, ptrdiff_t src_step,      \
                          int64_t n) {                                                             \
    if (dst_step == (size) && src_step == (size)) {                                                \
      memcpy(dst, src, (size_t)(n * (size)));                                                      \
    } else if (src_step == 0) {                                                                    \
      char v[size];                                                                                \
      memcpy(v, src, (size));                                                                      \
      if (dst_step == (size)) {                                                                    \
        for (int64_t i = 0; i < n; i++) memcpy(dst + i * (size), v, (size));                       \
      } else {                                                                                     \
        for (int64_t i = 0; i < n; i++) memcpy(dst + i * dst_step, v, (size));                     \
      }                                                                                            \
    } else if (dst_step == (size)) { /* a gather: constant steps on one side */                    \
      for (int64_t i = 0; i < n; i++) memcpy(dst + i * (size), src + i * src_step, (size));        \
    } else if (src_step == (size)) { /* a scatter */                                               \
      for (int64_t i = 0; i < n; i++) memcpy(dst + i * dst_step, src + i * (size), (size));        \
    } else {                                                                                       \
      for (int64_t i = 0; i < n; i++) memcpy(dst + i * dst_step, src + i * src_step, (size));      \
    }                                                                                              \
  }
DEFINE_COPY_LOOP(1)
DEFINE_COPY_LOOP(2)
DEFINE_COPY_LOOP(4)
DEFINE_COPY_LOOP(8)
DEFINE_COPY_LOOP(16)
#undef DEFINE_COPY_LOOP

dlx_cpu_loop_fn dlx_cpu_copy_loop(int64_t itemsize) {
  switch (itemsize) {
  case 1:
    return copy_1;
  case 2:
    return copy_2;
  case 4:
    return copy_4;
  case 8:
    return copy_8;
  case 16:
    return copy_16;
  default:
    return NULL;
  }
}

/* ---- casts. The contiguous branch has constant steps so the compiler can vectorise it. */

#define CAST_ONE(S, D, dst, src) store_##D(dst, DLX_CONVERT(D, load_##S(src)))

#define DEFINE_CAST_LOOP(S, SE, ST, D, DE, DT)                                                     \
  static void cast_##S##_##D(char *dst, ptrdiff_t dst_step, const char *src, ptrdiff_t src_step,   \
                             int64_t n) {                                                          \
    const ptrdiff_t ds = (ptrdiff_t)sizeof(DT), ss = (ptrdiff_t)sizeof(ST);                        \
    if (dst_step == ds && src_step == ss) {                                                        \
      for (int64_t i = 0; i < n; i++) CAST_ONE(S, D, dst + i * ds, src + i * ss);                  \
    } else if (src_step == 0) {                                                                    \
      char v[sizeof(DT)];                                                                          \
      CAST_ONE(S, D, v, src);                                                                      \
      for (int64_t i = 0; i < n; i++) memcpy(dst + i * dst_step, v, sizeof v);                     \
    } else {                                                                                       \
      for (int64_t i = 0; i < n; i++) CAST_ONE(S, D, dst + i * dst_step, src + i * src_step);      \
    }                                                                                              \
  }
#define DEFINE_CAST_ROW(S, SE, ST) DLX_COMPUTABLE_TYPES_WITH(DEFINE_CAST_LOOP, S, SE, ST)
DLX_COMPUTABLE_TYPES(DEFINE_CAST_ROW)

#define CAST_ENTRY(S, SE, ST, D, DE, DT) [DE] = cast_##S##_##D,
#define CAST_ROW(S, SE, ST) [SE] = {DLX_COMPUTABLE_TYPES_WITH(CAST_ENTRY, S, SE, ST)},
static const dlx_cpu_loop_fn cast_table[DLX_COMPLEX128 + 1][DLX_COMPLEX128 + 1] = {
    DLX_COMPUTABLE_TYPES(CAST_ROW)};

dlx_cpu_loop_fn dlx_cpu_cast_loop(dlx_dtype src, dlx_dtype dst) {
  if (src > DLX_COMPLEX128 || dst > DLX_COMPLEX128) return NULL;
  return cast_table[src][dst];
}
