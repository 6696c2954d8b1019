/* temps.h -- temporaries of an op the core composes of other ops (the order statistics on a
 * device without row_op, histogram's density): a stack of tensors closed together, and the steps
 * that make one. Each step does nothing and returns NULL once *rc holds an error, so that a
 * composition reads as a list of steps with one check at its end. */
#ifndef DLX_CORE_TEMPS_H
#define DLX_CORE_TEMPS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/elementwise.h"
#include "core/tensor.h"

#define DLX_TEMPS_MAX 48 /* the most a composition holds (a quantile: 21, its rows 4) */

typedef struct dlx_temps {
  dlx_tensor t[DLX_TEMPS_MAX];
  int n;
} dlx_temps;

/* The next free temporary, or NULL with *rc an internal error when all are taken. The step
 * that takes one gives it back (dlx_temps_drop) when it fails to make it. */
dlx_tensor *dlx_temps_take(dlx_temps *tp, int *rc, dlx_error *err);
void dlx_temps_drop(dlx_temps *tp);
/* Closes the temporaries taken after the first mark ones (tp->n before a group of steps), and
 * every one. */
void dlx_temps_close_to(dlx_temps *tp, int mark);
void dlx_temps_close(dlx_temps *tp);

static inline dlx_operand dlx_operand_of(const dlx_tensor *t) { return (dlx_operand){.tensor = t}; }
static inline dlx_operand dlx_operand_int(int64_t i) {
  return (dlx_operand){.scalar = {.kind = DLX_KIND_INT, .v.i = i}};
}
static inline dlx_operand dlx_operand_float(double f) {
  return (dlx_operand){.scalar = {.kind = DLX_KIND_FLOAT, .v.f = f}};
}

/* op(a, b) (b NULL: a unary op), a new temporary. */
dlx_tensor *dlx_temps_ew(dlx_temps *tp, int *rc, dlx_ew_op op, dlx_operand a, const dlx_operand *b,
                         dlx_error *err);
/* op of its dlx_ew_arity(op) operands in[] (where, lerp), a new temporary. */
dlx_tensor *dlx_temps_ew_n(dlx_temps *tp, int *rc, dlx_ew_op op, const dlx_operand *in,
                           dlx_error *err);
static inline dlx_tensor *dlx_temps_ew2(dlx_temps *tp, int *rc, dlx_ew_op op, dlx_operand a,
                                        dlx_operand b, dlx_error *err) {
  return dlx_temps_ew(tp, rc, op, a, &b, err);
}
/* t cast to dtype, C-contiguous, on t's device and memory: a new temporary. */
dlx_tensor *dlx_temps_cast(dlx_temps *tp, int *rc, const dlx_tensor *t, dlx_dtype dtype,
                           dlx_error *err);
/* Elements first..last (0-based, inclusive) of t along dim (a view): a new temporary. */
dlx_tensor *dlx_temps_slice(dlx_temps *tp, int *rc, const dlx_tensor *t, int32_t dim, int64_t first,
                            int64_t last, dlx_error *err);
/* A new C-contiguous tensor of shape and dtype on like's device and memory, every element value:
 * a new temporary. */
dlx_tensor *dlx_temps_full(dlx_temps *tp, int *rc, const dlx_tensor *like, const int64_t *shape,
                           int32_t ndim, dlx_dtype dtype, int64_t value, dlx_error *err);
/* op over the dims of t in the bitmask (dlx_reduce): a new temporary. */
dlx_tensor *dlx_temps_reduce(dlx_temps *tp, int *rc, dlx_reduce_op op, const dlx_tensor *t,
                             uint64_t dims, bool keepdim, dlx_error *err);
/* op of t along dim (dlx_along_dim: cumsum, ...): a new temporary. */
dlx_tensor *dlx_temps_along(dlx_temps *tp, int *rc, dlx_dim_op op, const dlx_tensor *t, int32_t dim,
                            dlx_error *err);
/* t gathered along dim at the 1-based places at (dlx_gather): a new temporary. */
dlx_tensor *dlx_temps_gather(dlx_temps *tp, int *rc, const dlx_tensor *t, int32_t dim,
                             const dlx_tensor *at, dlx_error *err);

#endif
