/* temps.c -- temporaries of an op the core composes of other ops (see temps.h). */
#include "core/temps.h"

#include "core/indexing.h"
#include "core/ops.h"
#include "core/stats.h"

dlx_tensor *dlx_temps_take(dlx_temps *tp, int *rc, dlx_error *err) {
  if (*rc != 0) return NULL;
  if (tp->n == DLX_TEMPS_MAX) {
    /* a bug of dlx's, not of the call: the compositions are fixed lists of steps */
    *rc = dlx_fail(err, DLX_VALUE_ERROR, "a composed op needs more than %d temporaries",
                   DLX_TEMPS_MAX);
    return NULL;
  }
  return &tp->t[tp->n++];
}

void dlx_temps_drop(dlx_temps *tp) { tp->n--; }

void dlx_temps_close_to(dlx_temps *tp, int mark) {
  while (tp->n > mark) dlx_tensor_close(&tp->t[--tp->n]);
}

void dlx_temps_close(dlx_temps *tp) { dlx_temps_close_to(tp, 0); }

/* The end of a step that took out: out when the call it made (status called) worked, else NULL
 * with out given back. */
static dlx_tensor *made(dlx_temps *tp, int *rc, int called, dlx_tensor *out) {
  *rc = called;
  if (called == 0) return out;
  dlx_temps_drop(tp);
  return NULL;
}

dlx_tensor *dlx_temps_ew(dlx_temps *tp, int *rc, dlx_ew_op op, dlx_operand a, const dlx_operand *b,
                         dlx_error *err) {
  dlx_tensor *out = dlx_temps_take(tp, rc, err);
  return out == NULL ? NULL : made(tp, rc, dlx_elementwise(op, &a, b, NULL, out, err), out);
}

dlx_tensor *dlx_temps_ew_n(dlx_temps *tp, int *rc, dlx_ew_op op, const dlx_operand *in,
                           dlx_error *err) {
  dlx_tensor *out = dlx_temps_take(tp, rc, err);
  return out == NULL ? NULL : made(tp, rc, dlx_elementwise_n(op, in, NULL, out, err), out);
}

dlx_tensor *dlx_temps_cast(dlx_temps *tp, int *rc, const dlx_tensor *t, dlx_dtype dtype,
                           dlx_error *err) {
  dlx_tensor *out = dlx_temps_take(tp, rc, err);
  if (out == NULL) return NULL;
  return made(tp, rc,
              dlx_clone_as_memory(out, t, dtype, t->buffer->device, dlx_tensor_memory(t), err),
              out);
}

dlx_tensor *dlx_temps_slice(dlx_temps *tp, int *rc, const dlx_tensor *t, int32_t dim, int64_t first,
                            int64_t last, dlx_error *err) {
  dlx_tensor *out = dlx_temps_take(tp, rc, err);
  return out == NULL ? NULL : made(tp, rc, dlx_slice(out, t, dim, first, last, 1, err), out);
}

dlx_tensor *dlx_temps_full(dlx_temps *tp, int *rc, const dlx_tensor *like, const int64_t *shape,
                           int32_t ndim, dlx_dtype dtype, int64_t value, dlx_error *err) {
  dlx_scalar v = {.kind = DLX_KIND_INT, .v.i = value};
  dlx_tensor *out = dlx_temps_take(tp, rc, err);
  if (out == NULL) return NULL;
  out = made(tp, rc, dlx_empty_on(out, like, shape, ndim, dtype, err), out);
  if (out != NULL) *rc = dlx_fill(out, &v, err); /* out stays taken: closed with the others */
  return *rc == 0 ? out : NULL;
}

dlx_tensor *dlx_temps_reduce(dlx_temps *tp, int *rc, dlx_reduce_op op, const dlx_tensor *t,
                             uint64_t dims, bool keepdim, dlx_error *err) {
  dlx_tensor *out = dlx_temps_take(tp, rc, err);
  return out == NULL ? NULL : made(tp, rc, dlx_reduce(out, op, t, dims, keepdim, err), out);
}

dlx_tensor *dlx_temps_along(dlx_temps *tp, int *rc, dlx_dim_op op, const dlx_tensor *t, int32_t dim,
                            dlx_error *err) {
  dlx_tensor *out = dlx_temps_take(tp, rc, err);
  return out == NULL ? NULL : made(tp, rc, dlx_along_dim(out, op, t, dim, err), out);
}

dlx_tensor *dlx_temps_gather(dlx_temps *tp, int *rc, const dlx_tensor *t, int32_t dim,
                             const dlx_tensor *at, dlx_error *err) {
  dlx_tensor *out = dlx_temps_take(tp, rc, err);
  return out == NULL ? NULL : made(tp, rc, dlx_gather(out, t, dim, at, err), out);
}
