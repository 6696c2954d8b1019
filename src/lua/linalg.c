/* linalg.c -- the matrix products of src/core/linalg.c: dlx.matmul and t:matmul (NumPy's rules),
 * the strict shapes of dlx.mm, bmm, mv, dot and vdot (PyTorch's), dlx.addmm and baddbmm, and the
 * view t:diagonal. lua/dlx/linalg_products.lua builds the rest (einsum, tensordot, kron, ...) on
 * these. */
#include <stdio.h>

#include "core/linalg.h"
#include "lua/args.h"
#include "lua/errors.h"
#include "lua/result.h"
#include "lua/state.h"
#include "lua/tables.h"
#include "lua/tensor.h"
#include "lua/values.h"

/* ValueError unless t has ndim dims; `which` names the operand. */
static void need_ndim(lua_State *L, const char *name, const char *which, const dlx_tensor *t,
                      int32_t ndim) {
  char shape[DLX_SHAPE_TEXT];
  if (t->ndim != ndim)
    dlxl_error(L, DLX_VALUE_ERROR, "%s: %s must be %d-d, got shape %s", name, which, (int)ndim,
               dlx_shape_text(shape, sizeof shape, t->shape, t->ndim));
}

/* ValueError naming both shapes unless a's dim da and b's dim db have one size. */
static void need_same(lua_State *L, const char *name, const dlx_tensor *a, int32_t da,
                      const dlx_tensor *b, int32_t db, const char *what) {
  char sa[DLX_SHAPE_TEXT], sb[DLX_SHAPE_TEXT];
  if (a->shape[da] != b->shape[db])
    dlxl_error(L, DLX_VALUE_ERROR, "%s: shapes %s and %s do not match (%s)", name,
               dlx_shape_text(sa, sizeof sa, a->shape, a->ndim),
               dlx_shape_text(sb, sizeof sb, b->shape, b->ndim), what);
}

/* Reads the options table at idx of fname (nil allowed) with the known keys; sets args->dst from
 * out, and alpha and beta when asked for. */
static void read_options(lua_State *L, int idx, dlx_matmul_args *args, dlx_tensor *out_view,
                         bool scalars) {
  static const char *const plain[] = {"out", NULL};
  static const char *const scaled[] = {"out", "alpha", "beta", NULL};
  const char *const *known = scalars ? scaled : plain;
  int count = scalars ? 3 : 1, top, others, found = 0;
  if (lua_isnoneornil(L, idx)) return;
  if (!lua_istable(L, idx))
    dlxl_error(L, DLX_TYPE_ERROR, "%s: opts must be a table, not a %s", args->name,
               dlxl_typename(L, idx));
  others = dlxl_pushoptions(L, idx, known, count);
  top = lua_gettop(L);
  for (int i = 0; i < count; i++) found += !lua_isnil(L, top - count + 1 + i);
  if (others != 0) dlxl_checkoptions(L, idx, args->name, known, found);
  if (!lua_isnil(L, top - count + 1)) {
    dlxl_tensor *u = dlxl_totensor(L, top - count + 1);
    if (u == NULL)
      dlxl_error(L, DLX_TYPE_ERROR, "%s: out must be a tensor, not a %s", args->name,
                 dlxl_typename(L, top - count + 1));
    args->dst = dlxl_getview(dlxl_checkopen(L, u), out_view);
  }
  if (scalars && !lua_isnil(L, top - 1)) dlxl_checkscalar(L, top - 1, &args->alpha);
  if (scalars && !lua_isnil(L, top)) dlxl_checkscalar(L, top, &args->beta);
  /* the values stay on the stack: out's userdata must outlive the call */
}

/* Runs the product and pushes its result: a new tensor, or the out tensor of the options table at
 * opts. */
static int push_product(lua_State *L, dlx_matmul_args *args, int opts) {
  dlxl_result r;
  int rc;
  int32_t room = args->a->ndim > args->b->ndim ? args->a->ndim : args->b->ndim;
  const dlxl_state *s = dlxl_getstate(L);
  args->allow_tf32 = s != NULL && s->allow_tf32;
  if (args->c != NULL && args->c->ndim > room) room = args->c->ndim;
  if (args->dst == NULL) {
    dlxl_result_begin(L, &r, room > 0 ? room : 1, NULL);
  } else { /* the product goes into out: no userdata, only the retry */
    r.src = NULL;
    r.retried = false;
  }
  do rc = dlx_matmul(&r.made, args, &r.err);
  while (dlxl_result_retry(L, &r, rc));
  if (args->dst == NULL) return dlxl_result_push(L, &r, rc);
  dlxl_check(L, rc, &r.err);
  lua_getfield(L, opts, "out");
  return 1;
}

/* a, b at 1 and 2: the common start of the products. */
static dlx_matmul_args product_args(lua_State *L, const char *name, dlx_tensor *va,
                                    dlx_tensor *vb) {
  const dlx_tensor *a = dlxl_checktensor(L, 1, va), *b = dlxl_checktensor(L, 2, vb);
  return dlx_matmul_args_of(name, a, b);
}

/* dlx.matmul(a, b[, {out =}]) */
static int api_matmul(lua_State *L) {
  dlx_tensor va, vb, vo;
  dlx_matmul_args args = product_args(L, "matmul", &va, &vb);
  read_options(L, 3, &args, &vo, false);
  return push_product(L, &args, 3);
}

/* t:matmul(b) */
static int tensor_matmul(lua_State *L) {
  dlx_tensor va, vb;
  dlx_matmul_args args = product_args(L, "matmul", &va, &vb);
  return push_product(L, &args, 0);
}

/* A product of operands of fixed ndims, what_a and what_b naming them in errors; 3-d ones have
 * one batch size. */
static int fixed_product(lua_State *L, const char *name, const char *what_a, int32_t ndim_a,
                         const char *what_b, int32_t ndim_b) {
  dlx_tensor va, vb, vo;
  dlx_matmul_args args = product_args(L, name, &va, &vb);
  need_ndim(L, name, what_a, args.a, ndim_a);
  need_ndim(L, name, what_b, args.b, ndim_b);
  if (ndim_a == 3) need_same(L, name, args.a, 0, args.b, 0, "the batch sizes differ");
  read_options(L, 3, &args, &vo, false);
  return push_product(L, &args, 3);
}

/* dlx.mm(a, b[, {out =}]): 2-d by 2-d */
static int api_mm(lua_State *L) {
  return fixed_product(L, "mm", "the first operand", 2, "the second operand", 2);
}

/* dlx.bmm(a, b[, {out =}]): 3-d by 3-d with one batch size */
static int api_bmm(lua_State *L) {
  return fixed_product(L, "bmm", "the first operand", 3, "the second operand", 3);
}

/* dlx.mv(a, v[, {out =}]): 2-d by 1-d */
static int api_mv(lua_State *L) { return fixed_product(L, "mv", "the matrix", 2, "the vector", 1); }

static int dot_product(lua_State *L, const char *name, bool conj) {
  dlx_tensor va, vb;
  dlx_matmul_args args = product_args(L, name, &va, &vb);
  need_ndim(L, name, "the first operand", args.a, 1);
  need_ndim(L, name, "the second operand", args.b, 1);
  need_same(L, name, args.a, 0, args.b, 0, "the lengths differ");
  args.conj_a = conj;
  return push_product(L, &args, 0);
}

/* dlx.dot(a, b): the sum of a[i] * b[i], a 0-d tensor */
static int api_dot(lua_State *L) { return dot_product(L, "dot", false); }

/* dlx.vdot(a, b): the sum of conj(a[i]) * b[i] */
static int api_vdot(lua_State *L) { return dot_product(L, "vdot", true); }

/* beta * c + alpha * (a @ b): addmm (2-d a and b) and baddbmm (3-d, one batch size). */
static int added_product(lua_State *L, const char *name, int32_t ndim) {
  dlx_tensor vc, va, vb, vo;
  const dlx_tensor *c = dlxl_checktensor(L, 1, &vc);
  const dlx_tensor *a = dlxl_checktensor(L, 2, &va), *b = dlxl_checktensor(L, 3, &vb);
  dlx_matmul_args args = dlx_matmul_args_of(name, a, b);
  args.c = c;
  args.beta = args.alpha; /* 1 */
  need_ndim(L, name, "the first factor", a, ndim);
  need_ndim(L, name, "the second factor", b, ndim);
  if (ndim == 3) need_same(L, name, a, 0, b, 0, "the batch sizes differ");
  read_options(L, 4, &args, &vo, true);
  return push_product(L, &args, 4);
}

/* dlx.addmm(c, a, b[, {beta =, alpha =, out =}]) */
static int api_addmm(lua_State *L) { return added_product(L, "addmm", 2); }

/* dlx.baddbmm(c, a, b[, {beta =, alpha =, out =}]) */
static int api_baddbmm(lua_State *L) { return added_product(L, "baddbmm", 3); }

/* t:diagonal([offset = 0[, d1 = 1, d2 = 2]]) -> a view */
static int tensor_diagonal(lua_State *L) {
  dlx_tensor view;
  const dlx_tensor *t = dlxl_checktensor(L, 1, &view);
  lua_Integer offset = lua_isnoneornil(L, 2) ? 0 : dlxl_checkinteger(L, 2, "diagonal: offset");
  int32_t ndim = t->ndim < 2 ? 2 : t->ndim, d1 = 0, d2 = 1;
  dlxl_result r;
  if (t->ndim >= 2 && !lua_isnoneornil(L, 3)) d1 = dlxl_checkdim(L, 3, ndim);
  if (t->ndim >= 2 && !lua_isnoneornil(L, 4)) d2 = dlxl_checkdim(L, 4, ndim);
  dlxl_result_begin(L, &r, ndim - 1, NULL);
  dlxl_result_set(L, &r, dlx_diagonal(&r.made, t, (int64_t)offset, d1, d2, &r.err));
  return 1;
}

const luaL_Reg dlxl_linalg_funcs[] = {
    {"matmul", api_matmul}, {"mm", api_mm},           {"bmm", api_bmm},
    {"mv", api_mv},         {"dot", api_dot},         {"vdot", api_vdot},
    {"addmm", api_addmm},   {"baddbmm", api_baddbmm}, {NULL, NULL},
};

const luaL_Reg dlxl_linalg_methods[] = {
    {"matmul", tensor_matmul},
    {"diagonal", tensor_diagonal},
    {NULL, NULL},
};
