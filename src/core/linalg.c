/* linalg.c -- matrix products: NumPy's matmul rules over the backends' matmul (see linalg.h).
 *
 * The steps: the operands become matrices (a 1-d a a row, a 1-d b a column) in a layout BLAS
 * takes as it is (a copy once otherwise, which also casts to the result dtype); the batch dims
 * broadcast, and those that can be walked with one stride in every operand merge, so most calls
 * are one request; the result goes straight into a fresh tensor or a suitable destination, else
 * through a temporary copied out at the end. */
#include "core/linalg.h"

#include <string.h>

#include "core/backend.h"
#include "core/device.h"
#include "core/ops.h"
#include "core/plan.h"
#include "core/promote.h"

#define BLAS_INT_MAX 2147483647 /* m, n, k and the leading dims BLAS takes (int) */

dlx_matmul_args dlx_matmul_args_of(const char *name, const dlx_tensor *a, const dlx_tensor *b) {
  dlx_matmul_args args;
  memset(&args, 0, sizeof args);
  args.name = name;
  args.a = a;
  args.b = b;
  args.alpha.kind = args.beta.kind = DLX_KIND_INT;
  args.alpha.v.i = 1;
  return args;
}

/* ---- checks */

static int shape_mismatch(const dlx_matmul_args *args, const char *why, dlx_error *err) {
  char sa[DLX_SHAPE_TEXT], sb[DLX_SHAPE_TEXT];
  return dlx_fail(err, DLX_VALUE_ERROR, "%s: shapes %s and %s do not match: %s", args->name,
                  dlx_shape_text(sa, sizeof sa, args->a->shape, args->a->ndim),
                  dlx_shape_text(sb, sizeof sb, args->b->shape, args->b->ndim), why);
}

static int check_buffers(const dlx_matmul_args *args, dlx_error *err) {
  const dlx_tensor *all[4] = {args->a, args->b, args->c, args->dst};
  int rc = 0;
  for (int i = 0; i < 4 && rc == 0; i++)
    if (all[i] != NULL) rc = dlx_buffer_check(all[i]->buffer, err);
  if (rc != 0) return rc;
  for (int i = 1; i < 4; i++)
    if (all[i] != NULL && !dlx_device_equal(dlx_tensor_device(all[0]), dlx_tensor_device(all[i]))) {
      char d0[32], d1[32];
      return dlx_fail(err, DLX_DEVICE_ERROR, "%s: tensors on different devices (%s and %s)",
                      args->name, dlx_device_format(dlx_tensor_device(all[0]), d0, sizeof d0),
                      dlx_device_format(dlx_tensor_device(all[i]), d1, sizeof d1));
    }
  return 0;
}

static int result_dtype(const dlx_matmul_args *args, dlx_dtype *dtype, dlx_error *err) {
  int rc = dlx_result_dtype(args->a->dtype, args->b->dtype, dtype, err);
  if (rc == 0 && args->c != NULL) rc = dlx_result_dtype(*dtype, args->c->dtype, dtype, err);
  if (rc != 0) {
    char text[sizeof err->message];
    memcpy(text, err->message, sizeof text);
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: %s", args->name, text);
  }
  return 0;
}

/* alpha or beta as a value of dtype's kind (the request's rule); TypeError for a kind above it. */
static int scalar_for(const dlx_matmul_args *args, const char *which, const dlx_scalar *s,
                      dlx_dtype dtype, dlx_scalar *out, dlx_error *err) {
  dlx_kind kind = dlx_dtype_kind(dtype);
  double re = s->kind == DLX_KIND_BOOL    ? s->v.b
              : s->kind == DLX_KIND_INT   ? (double)s->v.i
              : s->kind == DLX_KIND_UINT  ? (double)s->v.u
              : s->kind == DLX_KIND_FLOAT ? s->v.f
                                          : s->v.c[0];
  double im = s->kind == DLX_KIND_COMPLEX ? s->v.c[1] : 0;
  bool integral = s->kind == DLX_KIND_BOOL || s->kind == DLX_KIND_INT || s->kind == DLX_KIND_UINT;
  out->kind = kind == DLX_KIND_UINT ? DLX_KIND_INT : kind;
  switch (kind) {
  case DLX_KIND_COMPLEX:
    out->v.c[0] = re;
    out->v.c[1] = im;
    return 0;
  case DLX_KIND_FLOAT:
    if (s->kind != DLX_KIND_COMPLEX) {
      out->v.f = re;
      return 0;
    }
    break;
  case DLX_KIND_BOOL:
    if (integral) {
      out->v.b = re != 0;
      return 0;
    }
    break;
  default: /* integers: bool, int and uint scalars, wrapping as the dtype does */
    if (integral) {
      out->v.i = s->kind == DLX_KIND_UINT  ? (int64_t)s->v.u
                 : s->kind == DLX_KIND_INT ? s->v.i
                                           : (int64_t)s->v.b;
      return 0;
    }
  }
  return dlx_fail(err, DLX_TYPE_ERROR, "%s: %s must be %s for a %s product", args->name, which,
                  kind == DLX_KIND_FLOAT ? "a real number" : "an integer or a boolean",
                  dlx_dtype_info_of(dtype)->name);
}

/* ---- shapes */

/* The matrix form of an operand as a borrowed view: a 1-d a is {1, k}, a 1-d b is {k, 1}. */
static void as_matrix(dlx_tensor *m, const dlx_tensor *t, bool is_a) {
  *m = *t;
  if (t->ndim != 1) return;
  m->ndim = 2;
  if (is_a) {
    m->shape[0] = 1;
    m->shape[1] = t->shape[0];
    m->strides[0] = 0;
    m->strides[1] = t->strides[0];
  } else {
    m->shape[1] = 1;
    m->strides[1] = 0;
  }
}

typedef struct plan {
  int32_t batch_ndim;
  int64_t batch[DLX_MAX_NDIM];
  int64_t m, n, k;
  int32_t ndim; /* of the result as the caller sees it */
  int64_t shape[DLX_MAX_NDIM];
} plan;

static int make_plan(const dlx_matmul_args *args, const dlx_tensor *ma, const dlx_tensor *mb,
                     plan *p, dlx_error *err) {
  int32_t na = ma->ndim - 2, nb = mb->ndim - 2;
  p->m = ma->shape[ma->ndim - 2];
  p->k = ma->shape[ma->ndim - 1];
  p->n = mb->shape[mb->ndim - 1];
  if (mb->shape[mb->ndim - 2] != p->k)
    return shape_mismatch(args,
                          "the last dim of the first must equal the second-to-last "
                          "(or only) dim of the second",
                          err);
  p->batch_ndim = na > nb ? na : nb;
  for (int32_t d = 0; d < p->batch_ndim; d++) {
    int64_t sa = d - (p->batch_ndim - na) >= 0 ? ma->shape[d - (p->batch_ndim - na)] : 1;
    int64_t sb = d - (p->batch_ndim - nb) >= 0 ? mb->shape[d - (p->batch_ndim - nb)] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      return shape_mismatch(args, "the batch dims do not broadcast", err);
    p->batch[d] = sa == 1 ? sb : sa;
  }
  if (p->m > BLAS_INT_MAX || p->n > BLAS_INT_MAX || p->k > BLAS_INT_MAX)
    return shape_mismatch(args, "a matrix dim is over 2^31 - 1", err);
  p->ndim = 0;
  for (int32_t d = 0; d < p->batch_ndim; d++) p->shape[p->ndim++] = p->batch[d];
  if (args->a->ndim > 1) p->shape[p->ndim++] = p->m;
  if (args->b->ndim > 1) p->shape[p->ndim++] = p->n;
  return 0;
}

/* ---- layouts */

/* Whether the last two dims of t are a matrix BLAS takes as it is (backend.h's rule, with the
 * stride of a size-1 dim free). */
static bool blas_layout(const dlx_tensor *t) {
  int64_t rows = t->shape[t->ndim - 2], cols = t->shape[t->ndim - 1];
  int64_t rs = t->strides[t->ndim - 2], cs = t->strides[t->ndim - 1];
  if (rows <= 1) rs = cols > 1 ? cs * cols : 1;
  if (cols <= 1) cs = 1;
  if (rows <= 1 && cols <= 1) rs = cs = 1;
  if (rs > BLAS_INT_MAX || cs > BLAS_INT_MAX) return false;
  return (cs == 1 && rs >= (cols > 1 ? cols : 1)) || (rs == 1 && cs >= (rows > 1 ? rows : 1));
}

/* The operand's strides as the request states them. */
static void matrix_strides(const dlx_tensor *t, int64_t *rs, int64_t *cs) {
  int64_t rows = t->shape[t->ndim - 2], cols = t->shape[t->ndim - 1];
  *rs = t->strides[t->ndim - 2];
  *cs = t->strides[t->ndim - 1];
  if (rows <= 1 && cols <= 1) {
    *rs = *cs = 1;
  } else if (cols <= 1) {
    *cs = 1;
    if (*rs < 1) *rs = 1;
  } else if (rows <= 1) {
    *rs = *cs == 1 ? cols : 1; /* a row: row-major when its elements are adjacent */
  }
}

/* *ready = m as it is (borrowed, *owned false) when it has the dtype and a BLAS layout, else a
 * C-contiguous copy in dtype (*owned true). */
static int ready_operand(dlx_tensor *ready, bool *owned, const dlx_tensor *m, dlx_dtype dtype,
                         dlx_error *err) {
  *owned = false;
  if (m->dtype == dtype && blas_layout(m)) {
    *ready = *m;
    return 0;
  }
  *owned = true;
  return dlx_clone_as_memory(ready, m, dtype, dlx_tensor_device(m), dlx_tensor_memory(m), err);
}

/* ---- batches */

/* The walk over the batch dims of the three operands (a, b, c): the core's plan broadcasts them
 * (a stride-0 dim where an operand has size 1 or lacks the dim), drops the size-1 dims and
 * merges neighbours where every operand allows. */
static void walk_batches(dlx_plan *w, const plan *p, const dlx_tensor *ops[3]) {
  dlx_plan_start(w, p->batch_ndim, p->batch);
  for (int i = 0; i < 3; i++)
    dlx_plan_add_broadcast(w, ops[i]->ndim - 2, ops[i]->shape, ops[i]->strides);
  (void)dlx_plan_finish(w, 0); /* no empty batch dim: the product runs for results with elements */
}

static void set_operand(dlx_matrix_operand *o, const dlx_tensor *t, bool conj) {
  o->buffer = t->buffer;
  o->offset = t->offset;
  matrix_strides(t, &o->row_stride, &o->col_stride);
  o->batch_stride = 0;
  o->conj = conj;
}

/* One request per index of the batch dims that did not merge into the last one. */
static int run_batched(dlx_matmul_request *r, const dlx_plan *w, dlx_error *err) {
  /* (dlx_matmul waited for memory lent to the host backend before the work began) */
  const dlx_backend *backend = dlx_compute_backend(r->c.buffer);
  int64_t base[3] = {r->a.offset, r->b.offset, r->c.offset}, index[DLX_MAX_NDIM] = {0};
  int32_t outer = w->ndim - 1, d;
  r->batch = w->ndim > 0 ? w->shape[outer] : 1;
  if (w->ndim > 0) {
    r->a.batch_stride = w->strides[0][outer];
    r->b.batch_stride = w->strides[1][outer];
    r->c.batch_stride = w->strides[2][outer];
  }
  do {
    int64_t off[3] = {base[0], base[1], base[2]};
    int rc;
    for (d = 0; d < outer; d++)
      for (int i = 0; i < 3; i++) off[i] += index[d] * w->strides[i][d];
    r->a.offset = off[0];
    r->b.offset = off[1];
    r->c.offset = off[2];
    rc = backend->matmul(r, err);
    if (rc != 0) return rc;
    for (d = outer - 1; d >= 0 && ++index[d] == w->shape[d]; d--) index[d] = 0;
  } while (d >= 0);
  return 0;
}

/* ---- the destination and the result */

static bool is_zero(const dlx_scalar *s) {
  switch (s->kind) {
  case DLX_KIND_BOOL:
    return !s->v.b;
  case DLX_KIND_FLOAT:
    return s->v.f == 0;
  case DLX_KIND_COMPLEX:
    return s->v.c[0] == 0 && s->v.c[1] == 0;
  default:
    return s->v.i == 0;
  }
}

static int check_added(const dlx_matmul_args *args, const plan *p, dlx_error *err) {
  const dlx_tensor *c = args->c;
  bool fits = c->ndim <= p->ndim;
  for (int32_t d = 0; fits && d < c->ndim; d++) {
    int64_t want = p->shape[p->ndim - c->ndim + d];
    fits = c->shape[d] == want || c->shape[d] == 1;
  }
  if (!fits) {
    char sc[DLX_SHAPE_TEXT], sp[DLX_SHAPE_TEXT];
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "%s: the added tensor of shape %s does not broadcast "
                    "to the product's shape %s",
                    args->name, dlx_shape_text(sc, sizeof sc, c->shape, c->ndim),
                    dlx_shape_text(sp, sizeof sp, p->shape, p->ndim));
  }
  return 0;
}

static int check_dst(const dlx_matmul_args *args, const plan *p, dlx_dtype dtype, dlx_error *err) {
  const dlx_tensor *dst = args->dst;
  bool same = dst->ndim == p->ndim;
  char sd[DLX_SHAPE_TEXT], sp[DLX_SHAPE_TEXT];
  for (int32_t d = 0; same && d < p->ndim; d++) same = dst->shape[d] == p->shape[d];
  if (!same)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: out has shape %s, the product %s", args->name,
                    dlx_shape_text(sd, sizeof sd, dst->shape, dst->ndim),
                    dlx_shape_text(sp, sizeof sp, p->shape, p->ndim));
  int rc = dlx_check_writable(dst, err);
  if (rc != 0) return rc;
  if (!dlx_can_cast_same_kind(dtype, dst->dtype))
    return dlx_fail(err, DLX_TYPE_ERROR,
                    "%s: cannot write a %s product into the %s out (results may only be cast to "
                    "a kind as high: bool, integer, float, complex)",
                    args->name, dlx_dtype_info_of(dtype)->name,
                    dlx_dtype_info_of(dst->dtype)->name);
  return 0;
}

/* t as a borrowed C-contiguous view of ndim dims (t is C-contiguous with as many elements). */
static void reshaped(dlx_tensor *view, const dlx_tensor *t, const int64_t *shape, int32_t ndim) {
  *view = *t;
  view->ndim = ndim;
  memcpy(view->shape, shape, sizeof(int64_t) * (size_t)ndim);
  dlx_contiguous_strides(shape, ndim, view->strides);
}

/* Whether the product can be written straight into dst. */
static bool dst_direct(const dlx_matmul_args *args, dlx_dtype dtype) {
  const dlx_tensor *dst = args->dst;
  return dst != NULL && dst->dtype == dtype && dlx_tensor_is_contiguous(dst) &&
         !dlx_tensors_may_overlap(dst, args->a) && !dlx_tensors_may_overlap(dst, args->b);
}

/* The work tensor (*work, of the full shape batch + {m, n}) that the backend writes, holding
 * beta's term already: dst itself or a fresh tensor (*owned). */
static int make_work(dlx_tensor *work, bool *owned, const dlx_matmul_args *args, const plan *p,
                     dlx_dtype dtype, const dlx_scalar *beta, dlx_error *err) {
  int64_t full[DLX_MAX_NDIM];
  int32_t ndim = p->batch_ndim + 2;
  dlx_tensor user;
  int rc = 0;
  memcpy(full, p->batch, sizeof(int64_t) * (size_t)p->batch_ndim);
  full[ndim - 2] = p->m;
  full[ndim - 1] = p->n;
  *owned = !dst_direct(args, dtype);
  if (*owned) {
    rc = dlx_empty_on(work, args->a, full, ndim, dtype, err);
    if (rc != 0) return rc;
  } else {
    reshaped(work, args->dst, full, ndim);
  }
  if (args->c != NULL && !is_zero(beta)) {
    reshaped(&user, work, p->shape, p->ndim);
    if (*owned || !dlx_tensors_same_view(args->c, args->dst)) rc = dlx_copy(&user, args->c, err);
    if (rc != 0 && *owned) dlx_tensor_close(work);
  }
  return rc;
}

static int64_t numel_of(const int64_t *shape, int32_t ndim) {
  int64_t n = 1;
  for (int32_t d = 0; d < ndim; d++) n *= shape[d];
  return n;
}

static int run_product(const dlx_matmul_args *args, const plan *p, dlx_matmul_request *r,
                       const dlx_tensor *work, dlx_error *err) {
  dlx_tensor ma, mb, ra, rb;
  bool own_a = false, own_b = false;
  dlx_plan w;
  int rc;
  as_matrix(&ma, args->a, true);
  as_matrix(&mb, args->b, false);
  rc = ready_operand(&ra, &own_a, &ma, r->dtype, err);
  if (rc == 0) rc = ready_operand(&rb, &own_b, &mb, r->dtype, err);
  if (rc == 0) {
    const dlx_tensor *ops[3] = {&ra, &rb, work};
    r->m = p->m;
    r->n = p->n;
    r->k = p->k;
    set_operand(&r->a, &ra, args->conj_a && dlx_dtype_kind(r->dtype) == DLX_KIND_COMPLEX);
    set_operand(&r->b, &rb, false);
    set_operand(&r->c, work, false);
    walk_batches(&w, p, ops);
    rc = run_batched(r, &w, err);
  }
  if (own_a) dlx_tensor_close(&ra);
  if (own_b) dlx_tensor_close(&rb);
  return rc;
}

int dlx_matmul(dlx_tensor *out, const dlx_matmul_args *args, dlx_error *err) {
  static const dlx_scalar zero = {DLX_KIND_INT, {.i = 0}};
  const dlx_backend *backend;
  dlx_matmul_request r;
  dlx_tensor ma, mb, work, user;
  dlx_dtype dtype;
  bool owned;
  plan p;
  int rc;
  if (args->a->ndim == 0 || args->b->ndim == 0)
    return shape_mismatch(args, "0-d tensors have no matrix product (mul multiplies them)", err);
  rc = check_buffers(args, err);
  if (rc == 0) rc = result_dtype(args, &dtype, err);
  if (rc != 0) return rc;
  as_matrix(&ma, args->a, true);
  as_matrix(&mb, args->b, false);
  memset(&r, 0, sizeof r);
  r.dtype = dtype;
  r.allow_tf32 = args->allow_tf32;
  rc = make_plan(args, &ma, &mb, &p, err);
  if (rc == 0) rc = scalar_for(args, "alpha", &args->alpha, dtype, &r.alpha, err);
  if (rc == 0)
    rc = scalar_for(args, "beta", args->c != NULL ? &args->beta : &zero, dtype, &r.beta, err);
  if (rc == 0 && args->c != NULL) rc = check_added(args, &p, err);
  if (rc == 0 && args->dst != NULL) rc = check_dst(args, &p, dtype, err);
  if (rc != 0) return rc;
  rc = dlx_compute_on(args->a, &backend, err);
  if (rc != 0) return rc;
  if (backend->matmul == NULL)
    return dlx_not_implemented(err, args->name, dlx_tensor_device(args->a));
  rc = make_work(&work, &owned, args, &p, dtype, &r.beta, err);
  if (rc != 0) return rc;
  if (numel_of(p.shape, p.ndim) > 0) rc = run_product(args, &p, &r, &work, err);
  if (!owned) return rc;
  if (rc == 0 && args->dst != NULL) {
    reshaped(&user, &work, p.shape, p.ndim);
    rc = dlx_copy(args->dst, &user, err);
  }
  if (rc != 0 || args->dst != NULL) {
    dlx_tensor_close(&work);
    return rc;
  }
  reshaped(out, &work, p.shape, p.ndim);
  return 0;
}

/* ---- diagonal */

int dlx_diagonal(dlx_tensor *out, const dlx_tensor *src, int64_t offset, int32_t d1, int32_t d2,
                 dlx_error *err) {
  int64_t s1, s2, length, start = 0;
  int32_t to = 0;
  dlx_tensor view;
  if (src->ndim < 2)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "diagonal: a %d-d tensor has no diagonal (2 dims or "
                    "more)",
                    (int)src->ndim);
  if (d1 < 0 || d2 < 0 || d1 >= src->ndim || d2 >= src->ndim || d1 == d2)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "diagonal: dims %d and %d must be two different dims "
                    "of a %d-d tensor",
                    (int)d1 + 1, (int)d2 + 1, (int)src->ndim);
  s1 = src->shape[d1];
  s2 = src->shape[d2];
  if (offset >= 0) {
    length = offset >= s2 ? 0 : (s1 < s2 - offset ? s1 : s2 - offset);
    if (length > 0) start = offset * src->strides[d2];
  } else {
    length = -offset >= s1 ? 0 : (s1 + offset < s2 ? s1 + offset : s2);
    if (length > 0) start = -offset * src->strides[d1];
  }
  view = *src;
  for (int32_t d = 0; d < src->ndim; d++) {
    if (d == d1 || d == d2) continue;
    view.shape[to] = src->shape[d];
    view.strides[to++] = src->strides[d];
  }
  view.shape[to] = length;
  view.strides[to] = src->strides[d1] + src->strides[d2];
  view.ndim = to + 1;
  view.offset += start;
  dlx_tensor_share(out, &view);
  return 0;
}
