/* elementwise.c -- the elementwise ops in Lua. For every op of core/elementwise.h: a method
 * t:add(b), an in-place method t:add_(b) that returns t, a function dlx.add(a, b[, {out = c}])
 * (either operand may be a Lua number, boolean or complex table there), and the operators
 * + - * / // % ^ & | ~ << >> and unary - and ~ as metamethods of dlx.Tensor. Each method and
 * function is a closure whose upvalues are dlx.core's state (state.h) and its op; each operator
 * is a C function of its own, with the state as its upvalue. `==` stays identity:
 * comparisons are the methods. The ops of three operands work the same way (clamp's bounds may
 * be nil; where is a function only); nan_to_num takes its values from an options table. */
#include <float.h>
#include <stdio.h>

#include "lua/args.h"
#include "lua/errors.h"
#include "lua/memory.h"
#include "lua/state.h"
#include "lua/tables.h"
#include "lua/tensor.h"
#include "lua/values.h"

static dlx_ew_op op_of(lua_State *L) { return (dlx_ew_op)lua_tointeger(L, lua_upvalueindex(2)); }

/* An op and its operands, as the core takes them: a tensor operand is a view of its userdata. */
typedef struct call {
  dlx_ew_op op;
  int32_t ndim; /* the most dims of a tensor operand: the result's */
  dlx_operand in[DLX_EW_MAX_INPUTS];
  const dlxl_tensor *userdata[DLX_EW_MAX_INPUTS]; /* of the tensor operands, else NULL */
  dlx_tensor views[DLX_EW_MAX_INPUTS];
} call;

/* A call of op with no operands read yet (the views are left as they are: they are large). */
static void call_init(call *c, dlx_ew_op op) {
  c->op = op;
  c->ndim = 0;
  for (int k = 0; k < DLX_EW_MAX_INPUTS; k++) {
    c->in[k].tensor = NULL;
    c->userdata[k] = NULL;
  }
}

/* Operand k is the open tensor u. */
static void set_tensor(call *c, int k, const dlxl_tensor *u) {
  c->userdata[k] = u;
  c->in[k].tensor = dlxl_getview(u, &c->views[k]);
  if (u->ndim > c->ndim) c->ndim = u->ndim;
}

/* Operand k, at idx, which is not a tensor: a weak scalar. */
static void check_scalar(lua_State *L, int idx, call *c, int k) {
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER:
  case LUA_TBOOLEAN:
  case LUA_TTABLE:
    dlxl_checkscalar(L, idx, &c->in[k].scalar);
    return;
  default:
    dlxl_error(L, DLX_TYPE_ERROR,
               "%s: expected a tensor, a number, a boolean or a complex table {re =, im =}, "
               "got %s",
               dlx_ew_name(c->op), dlxl_typename(L, idx));
  }
}

/* Operand k, at idx: a tensor, or a weak scalar. */
static void check_operand(lua_State *L, const dlxl_state *s, int idx, call *c, int k) {
  dlxl_tensor *u = dlxl_totensor_in(L, s, idx);
  if (u != NULL)
    set_tensor(c, k, dlxl_checkopen(L, u));
  else
    check_scalar(L, idx, c, k);
}

/* After a collection (dlxl_reclaim) ran finalizers, every tensor operand must still be open. */
static bool reclaim(lua_State *L, int rc, bool *retried, const call *c, const dlxl_tensor *dst) {
  if (!dlxl_reclaim(L, rc, retried, dst)) return false;
  for (int k = 0; k < DLX_EW_MAX_INPUTS; k++)
    if (c->userdata[k] != NULL) dlxl_checkopen(L, (dlxl_tensor *)c->userdata[k]);
  return true;
}

/* Pushes the call's result as a new tensor, whose metatable is at mt_idx when not 0. */
static int push_result(lua_State *L, dlxl_state *s, const call *c, int mt_idx) {
  dlxl_tensor *out =
      mt_idx != 0 ? dlxl_newtensor_mt(L, c->ndim, mt_idx) : dlxl_newtensor(L, c->ndim);
  dlx_tensor made;
  dlx_error err;
  bool retried = false;
  int rc;
  do rc = dlx_elementwise_n(c->op, c->in, NULL, &made, &err);
  while (reclaim(L, rc, &retried, c, NULL));
  dlxl_check(L, rc, &err);
  dlxl_settensor(L, out, &made);
  dlxl_gcdebt_in(L, s, dlx_tensor_nbytes(&made));
  return 1;
}

/* Writes the call's result into dst (a view of the userdata at dst_idx) and returns it. */
static int write_result(lua_State *L, const call *c, const dlx_tensor *dst, int dst_idx) {
  const dlxl_tensor *u = lua_touserdata(L, dst_idx);
  dlx_error err;
  bool retried = false;
  int rc;
  do rc = dlx_elementwise_n(c->op, c->in, dst, NULL, &err);
  while (reclaim(L, rc, &retried, c, u));
  dlxl_check(L, rc, &err);
  lua_pushvalue(L, dst_idx);
  return 1;
}

/* clamp(x, lo, hi) with a nil bound is maximum(x, lo) or minimum(x, hi); both nil is an error. */
static void resolve_clamp(lua_State *L, call *c, int lo_idx) {
  bool no_lo = lua_isnoneornil(L, lo_idx), no_hi = lua_isnoneornil(L, lo_idx + 1);
  if (no_lo && no_hi) dlxl_error(L, DLX_TYPE_ERROR, "clamp: give min, max or both (both are nil)");
  if (no_hi) {
    c->op = DLX_EW_MAXIMUM;
  } else if (no_lo) {
    c->op = DLX_EW_MINIMUM;
    c->in[1] = c->in[2];
  }
}

/* Operand 0, at idx: it must be a tensor. */
static void check_self(lua_State *L, const dlxl_state *s, int idx, call *c) {
  dlxl_tensor *u = dlxl_totensor_in(L, s, idx);
  if (u == NULL) dlxl_error(L, DLX_TYPE_ERROR, "expected a tensor, got %s", dlxl_typename(L, idx));
  set_tensor(c, 0, dlxl_checkopen(L, u));
}

/* Reads the operands from idx on into c (the first is the tensor at 1 when `self`); returns the
 * index after them. */
static int check_operands(lua_State *L, call *c, int idx, bool self) {
  const dlxl_state *s = dlxl_upstate(L);
  int arity = dlx_ew_arity(c->op);
  for (int k = 0; k < arity; k++, idx++) {
    if (k == 0 && self) {
      check_self(L, s, idx, c);
    } else if (c->op == DLX_EW_CLAMP && k > 0 && lua_isnoneornil(L, idx)) {
      c->in[k].tensor = NULL; /* resolve_clamp replaces the op */
    } else {
      check_operand(L, s, idx, c, k);
    }
  }
  if (c->op == DLX_EW_CLAMP) resolve_clamp(L, c, idx - 2);
  return idx;
}

/* t:add(b) */
static int ew_method(lua_State *L) {
  call c;
  call_init(&c, op_of(L));
  check_operands(L, &c, 1, true);
  return push_result(L, dlxl_upstate(L), &c, 0);
}

/* t:add_(b): t = t + b, returns t */
static int ew_inplace(lua_State *L) {
  call c;
  call_init(&c, op_of(L));
  check_operands(L, &c, 1, true);
  return write_result(L, &c, c.in[0].tensor, 1);
}

/* Reads {out =} (and the other known keys) of the options at idx of function fname: pushes the
 * values of the count keys; returns the out tensor (a view in *view, its userdata at the stack
 * index top - count + 1) or NULL. */
static const dlx_tensor *check_out(lua_State *L, int idx, const char *fname,
                                   const char *const *known, int count, dlx_tensor *view) {
  int others = dlxl_pushoptions(L, idx, known, count), found = 0, top = lua_gettop(L);
  dlxl_tensor *dst;
  for (int i = 0; i < count; i++) found += !lua_isnil(L, top - count + 1 + i);
  if (others != 0) dlxl_checkoptions(L, idx, fname, known, found);
  if (lua_isnil(L, top - count + 1)) return NULL; /* out is the first key */
  dst = dlxl_totensor(L, top - count + 1);
  if (dst == NULL)
    dlxl_error(L, DLX_TYPE_ERROR, "%s: out must be a tensor, not a %s", fname,
               dlxl_typename(L, top - count + 1));
  return dlxl_getview(dlxl_checkopen(L, dst), view);
}

static const char *const function_options[] = {"out", NULL};

/* dlx.add(a, b[, {out = c}]) */
static int ew_function(lua_State *L) {
  call c;
  const char *name;
  int opts;
  dlx_tensor view;
  const dlx_tensor *dst;
  call_init(&c, op_of(L));
  name = dlx_ew_name(c.op);
  opts = check_operands(L, &c, 1, false);
  if (lua_isnoneornil(L, opts)) return push_result(L, dlxl_upstate(L), &c, 0);
  if (lua_type(L, opts) != LUA_TTABLE)
    return dlxl_error(L, DLX_TYPE_ERROR, "%s: opts must be a table {out =}, not a %s", name,
                      dlxl_typename(L, opts));
  dst = check_out(L, opts, name, function_options, 1, &view);
  if (dst == NULL) return push_result(L, dlxl_upstate(L), &c, 0);
  return write_result(L, &c, dst, lua_gettop(L));
}

/* The operators: Lua passes both operands (a unary operator gets its operand twice). The
 * metatables the checks leave on the stack stay there (the result goes on top), and the first
 * tensor's is the result's. */
static int run_operator(lua_State *L, dlx_ew_op op) {
  dlxl_state *s = dlxl_upstate(L);
  int mt_idx = 0;
  call c;
  call_init(&c, op);
  for (int k = 0; k < dlx_ew_arity(op); k++) {
    dlxl_tensor *u = dlxl_totensor_keep(L, s, k + 1);
    if (u == NULL) {
      check_scalar(L, k + 1, &c, k);
      continue;
    }
    set_tensor(&c, k, dlxl_checkopen(L, u));
    if (mt_idx == 0) mt_idx = lua_gettop(L);
  }
  return push_result(L, s, &c, mt_idx);
}

/* ---- nan_to_num(t[, {nan =, posinf =, neginf =, out =}]) */

/* The largest finite value of a float dtype (0 for others, whose elements are never replaced). */
static double finite_max(dlx_dtype dtype) {
  switch (dtype) {
  case DLX_FLOAT16:
    return 65504.0;
  case DLX_BFLOAT16:
    return 0x1.fep127;
  case DLX_FLOAT32:
    return FLT_MAX;
  case DLX_FLOAT64:
    return DBL_MAX;
  default:
    return 0;
  }
}

static const char *const nan_to_num_options[] = {"out", "nan", "posinf", "neginf", NULL};

/* The value of option `name` at idx, a number, or the default when nil. */
static void nan_to_num_value(lua_State *L, int idx, const char *name, double fallback,
                             dlx_scalar *s) {
  if (lua_isnil(L, idx)) {
    s->kind = DLX_KIND_FLOAT;
    s->v.f = fallback;
    return;
  }
  if (lua_type(L, idx) != LUA_TNUMBER)
    dlxl_error(L, DLX_TYPE_ERROR, "nan_to_num: %s must be a number, not a %s", name,
               dlxl_typename(L, idx));
  dlxl_checkscalar(L, idx, s);
}

/* mode 0: t:nan_to_num(opts), 1: t:nan_to_num_(opts), 2: dlx.nan_to_num(t, opts) */
static int nan_to_num_call(lua_State *L, int mode) {
  call c;
  const dlx_tensor *dst = NULL;
  dlx_tensor view;
  double big;
  int top;
  call_init(&c, DLX_EW_NAN_TO_NUM);
  check_self(L, dlxl_upstate(L), 1, &c);
  big = finite_max(c.in[0].tensor->dtype);
  if (!lua_isnoneornil(L, 2) && lua_type(L, 2) != LUA_TTABLE)
    return dlxl_error(L, DLX_TYPE_ERROR,
                      "nan_to_num: opts must be a table {nan =, posinf =, neginf =}, not a %s",
                      dlxl_typename(L, 2));
  lua_settop(L, 2);
  if (lua_isnil(L, 2)) lua_newtable(L), lua_replace(L, 2);
  dst = check_out(L, 2, "nan_to_num", nan_to_num_options, 4, &view);
  top = lua_gettop(L);
  if (dst != NULL && mode != 2)
    return dlxl_error(L, DLX_TYPE_ERROR, "nan_to_num: out is an option of dlx.nan_to_num only");
  nan_to_num_value(L, top - 2, "nan", 0.0, &c.in[1].scalar);
  nan_to_num_value(L, top - 1, "posinf", big, &c.in[2].scalar);
  nan_to_num_value(L, top, "neginf", -big, &c.in[3].scalar);
  c.in[1].tensor = c.in[2].tensor = c.in[3].tensor = NULL;
  if (mode == 1) return write_result(L, &c, c.in[0].tensor, 1);
  if (dst != NULL) return write_result(L, &c, dst, top - 3);
  return push_result(L, dlxl_upstate(L), &c, 0);
}

static int nan_to_num_method(lua_State *L) { return nan_to_num_call(L, 0); }
static int nan_to_num_inplace(lua_State *L) { return nan_to_num_call(L, 1); }
static int nan_to_num_function(lua_State *L) { return nan_to_num_call(L, 2); }

static void set_closure(lua_State *L, int state, lua_CFunction fn, dlx_ew_op op, const char *name) {
  lua_pushvalue(L, state);
  lua_pushinteger(L, op);
  lua_pushcclosure(L, fn, 2);
  lua_setfield(L, -2, name);
}

/* Ops with no generic closures: where is a function only, nan_to_num has its own. */
static bool generic(dlx_ew_op op) { return op != DLX_EW_NAN_TO_NUM; }
static bool has_methods(dlx_ew_op op) { return op != DLX_EW_WHERE && op != DLX_EW_NAN_TO_NUM; }

void dlxl_set_elementwise_methods(lua_State *L, int state) {
  char name[64];
  set_closure(L, state, nan_to_num_method, DLX_EW_NAN_TO_NUM, "nan_to_num");
  set_closure(L, state, nan_to_num_inplace, DLX_EW_NAN_TO_NUM, "nan_to_num_");
  for (int op = 0; op < DLX_EW_NUM_OPS; op++) {
    if (!has_methods((dlx_ew_op)op)) continue;
    set_closure(L, state, ew_method, (dlx_ew_op)op, dlx_ew_name((dlx_ew_op)op));
    snprintf(name, sizeof name, "%s_", dlx_ew_name((dlx_ew_op)op));
    set_closure(L, state, ew_inplace, (dlx_ew_op)op, name);
  }
}

void dlxl_set_elementwise_funcs(lua_State *L, int state) {
  set_closure(L, state, nan_to_num_function, DLX_EW_NAN_TO_NUM, "nan_to_num");
  for (int op = 0; op < DLX_EW_NUM_OPS; op++)
    if (generic((dlx_ew_op)op))
      set_closure(L, state, ew_function, (dlx_ew_op)op, dlx_ew_name((dlx_ew_op)op));
}

/* One C function per operator, its op a constant: reading it from an upvalue costs a Lua API
 * call on every operation. */
#define OPERATOR(fn, op)                                                                           \
  static int fn(lua_State *L) { return run_operator(L, op); }
OPERATOR(op_add, DLX_EW_ADD)
OPERATOR(op_sub, DLX_EW_SUB)
OPERATOR(op_mul, DLX_EW_MUL)
OPERATOR(op_div, DLX_EW_DIV)
OPERATOR(op_idiv, DLX_EW_FLOOR_DIVIDE)
OPERATOR(op_mod, DLX_EW_REMAINDER)
OPERATOR(op_pow, DLX_EW_POW)
OPERATOR(op_unm, DLX_EW_NEG)
OPERATOR(op_band, DLX_EW_BITWISE_AND)
OPERATOR(op_bor, DLX_EW_BITWISE_OR)
OPERATOR(op_bxor, DLX_EW_BITWISE_XOR)
OPERATOR(op_shl, DLX_EW_BITWISE_LEFT_SHIFT)
OPERATOR(op_shr, DLX_EW_BITWISE_RIGHT_SHIFT)
OPERATOR(op_bnot, DLX_EW_BITWISE_NOT)

const luaL_Reg dlxl_elementwise_operators[] = {
    {"__add", op_add},   {"__sub", op_sub},   {"__mul", op_mul},   {"__div", op_div},
    {"__idiv", op_idiv}, {"__mod", op_mod},   {"__pow", op_pow},   {"__unm", op_unm},
    {"__band", op_band}, {"__bor", op_bor},   {"__bxor", op_bxor}, {"__shl", op_shl},
    {"__shr", op_shr},   {"__bnot", op_bnot}, {NULL, NULL},
};
