/* reduce_logical.c -- all, any: element != 0 (NaN counts as non-zero, complex when either part
 * is). */
#include "cpu/reduce_loops.h"

#define DEFINE_LOGICAL(name, e, T)                                                                 \
  static void all_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {            \
    EACH(T, p, step, n, {                                                                          \
      if (!DLX_CONVERT(boolean, load_##name(q))) {                                                 \
        a->flag = false;                                                                           \
        a->stop = true;                                                                            \
        break;                                                                                     \
      }                                                                                            \
    });                                                                                            \
  }                                                                                                \
  static void any_##name(dlx_reduce_acc *a, const char *p, ptrdiff_t step, int64_t n) {            \
    EACH(T, p, step, n, {                                                                          \
      if (DLX_CONVERT(boolean, load_##name(q))) {                                                  \
        a->flag = true;                                                                            \
        a->stop = true;                                                                            \
        break;                                                                                     \
      }                                                                                            \
    });                                                                                            \
  }
DLX_COMPUTABLE_TYPES(DEFINE_LOGICAL)

static void flag_finish(const dlx_reduce_acc *a, char *out, int64_t count) {
  (void)count;
  store_boolean(out, a->flag);
}

#define ALL_ENTRY(name, e, T) ENTRY(e, all_##name, flag_finish, DLX_BOOL)
#define ANY_ENTRY(name, e, T) ENTRY(e, any_##name, flag_finish, DLX_BOOL)

const dlx_reduce_kernel dlx_cpu_all_kernels[NTYPES] = {DLX_COMPUTABLE_TYPES(ALL_ENTRY)};
const dlx_reduce_kernel dlx_cpu_any_kernels[NTYPES] = {DLX_COMPUTABLE_TYPES(ANY_ENTRY)};
