/* temps.c -- temporaries of an op the core composes of other ops (see temps.h). */
#include "core/temps.h"

#include "core/ops.h"

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

dlx_tensor *dlx_temps_ew(dlx_temps *tp, int *rc, dlx_ew_op op, dlx_operand a, const dlx_operand *b,
                         dlx_error *err) {
  dlx_tensor *out = dlx_temps_take(tp, rc, err);
  if (out == NULL) return NULL;
  *rc = dlx_elementwise(op, &a, b, NULL, out, err);
  if (*rc != 0) dlx_temps_drop(tp);
  return *rc == 0 ? out : NULL;
}

dlx_tensor *dlx_temps_cast(dlx_temps *tp, int *rc, const dlx_tensor *t, dlx_dtype dtype,
                           dlx_error *err) {
  dlx_tensor *out = dlx_temps_take(tp, rc, err);
  if (out == NULL) return NULL;
  *rc = dlx_clone_as_memory(out, t, dtype, t->buffer->device, dlx_tensor_memory(t), err);
  if (*rc != 0) dlx_temps_drop(tp);
  return *rc == 0 ? out : NULL;
}

dlx_tensor *dlx_temps_slice(dlx_temps *tp, int *rc, const dlx_tensor *t, int32_t dim, int64_t first,
                            int64_t last, dlx_error *err) {
  dlx_tensor *out = dlx_temps_take(tp, rc, err);
  if (out == NULL) return NULL;
  *rc = dlx_slice(out, t, dim, first, last, 1, err);
  if (*rc != 0) dlx_temps_drop(tp);
  return *rc == 0 ? out : NULL;
}
