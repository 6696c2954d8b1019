/* elementwise.c -- the elementwise ops in Lua. For every op of core/elementwise.h: a method
 * t:add(b), an in-place method t:add_(b) that returns t, a function dlx.add(a, b[, {out = c}])
 * (either operand may be a Lua number, boolean or complex table there), and the operators
 * + - * / // % ^ & | ~ << >> and unary - and ~ as metamethods of dlx.Tensor. Each function is
 * a closure whose upvalues are dlx.core's state (binding.h) and its op. `==` stays identity:
 * comparisons are the methods. */
#include <stdio.h>

#include "lua/binding.h"

static dlx_ew_op op_of(lua_State *L) { return (dlx_ew_op)lua_tointeger(L, lua_upvalueindex(2)); }

/* The operand at idx: a tensor, or a weak scalar. */
static void check_operand(lua_State *L, int idx, dlx_ew_op op, dlx_operand *o) {
  dlx_tensor *t = dlxl_totensor(L, idx);
  o->tensor = NULL;
  if (t != NULL) {
    o->tensor = dlxl_checkopen(L, t);
    return;
  }
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER:
  case LUA_TBOOLEAN:
  case LUA_TTABLE:
    dlxl_checkscalar(L, idx, &o->scalar);
    return;
  default:
    dlxl_error(L, DLX_TYPE_ERROR,
               "%s: expected a tensor, a number, a boolean or a complex table {re =, im =}, "
               "got %s",
               dlx_ew_name(op), dlxl_typename(L, idx));
  }
}

/* The first tensor among the operands, checked again after a collection (dlxl_reclaim). */
static const dlx_tensor *first_tensor(const dlx_operand *a, const dlx_operand *b) {
  return a->tensor != NULL ? a->tensor : b != NULL ? b->tensor : NULL;
}

/* Pushes op(a, b) as a new tensor. */
static int push_result(lua_State *L, dlx_ew_op op, const dlx_operand *a, const dlx_operand *b) {
  dlx_tensor *out = dlxl_newtensor(L); /* dlx_elementwise leaves it closed when it fails */
  dlx_error err;
  bool retried = false;
  int rc;
  do rc = dlx_elementwise(op, a, b, NULL, out, &err);
  while (dlxl_reclaim(L, rc, &retried, first_tensor(a, b)));
  dlxl_check(L, rc, &err);
  dlxl_gcdebt(L, dlx_tensor_nbytes(out));
  return 1;
}

/* Writes op(a, b) into dst, the value at dst_idx, and returns it. */
static int write_result(lua_State *L, dlx_ew_op op, const dlx_operand *a, const dlx_operand *b,
                        const dlx_tensor *dst, int dst_idx) {
  dlx_error err;
  bool retried = false;
  int rc;
  do rc = dlx_elementwise(op, a, b, dst, NULL, &err);
  while (dlxl_reclaim(L, rc, &retried, dst));
  dlxl_check(L, rc, &err);
  lua_pushvalue(L, dst_idx);
  return 1;
}

/* Reads the operands at 1 (and 2 for binary ops); returns the index after them. */
static int check_operands(lua_State *L, dlx_ew_op op, dlx_operand *a, dlx_operand *b) {
  check_operand(L, 1, op, a);
  if (dlx_ew_arity(op) == 1) return 2;
  check_operand(L, 2, op, b);
  return 3;
}

/* t:add(b) */
static int ew_method(lua_State *L) {
  dlx_ew_op op = op_of(L);
  dlx_operand a, b;
  a.tensor = dlxl_checktensor(L, 1);
  if (dlx_ew_arity(op) == 2) check_operand(L, 2, op, &b);
  return push_result(L, op, &a, dlx_ew_arity(op) == 2 ? &b : NULL);
}

/* t:add_(b): t = t + b, returns t */
static int ew_inplace(lua_State *L) {
  dlx_ew_op op = op_of(L);
  dlx_operand a, b;
  a.tensor = dlxl_checktensor(L, 1);
  if (dlx_ew_arity(op) == 2) check_operand(L, 2, op, &b);
  return write_result(L, op, &a, dlx_ew_arity(op) == 2 ? &b : NULL, a.tensor, 1);
}

static const char *const function_options[] = {"out", NULL};

/* dlx.add(a, b[, {out = c}]) */
static int ew_function(lua_State *L) {
  dlx_ew_op op = op_of(L);
  dlx_operand a, b;
  int opts = check_operands(L, op, &a, &b), others, out_idx;
  const dlx_tensor *dst;
  if (lua_isnoneornil(L, opts)) return push_result(L, op, &a, dlx_ew_arity(op) == 2 ? &b : NULL);
  if (lua_type(L, opts) != LUA_TTABLE)
    return dlxl_error(L, DLX_TYPE_ERROR, "%s: opts must be a table {out =}, not a %s",
                      dlx_ew_name(op), dlxl_typename(L, opts));
  others = dlxl_pushoptions(L, opts, function_options, 1);
  out_idx = lua_gettop(L);
  if (others != 0)
    dlxl_checkoptions(L, opts, dlx_ew_name(op), function_options, lua_isnil(L, out_idx) ? 0 : 1);
  if (lua_isnil(L, out_idx)) return push_result(L, op, &a, dlx_ew_arity(op) == 2 ? &b : NULL);
  dst = dlxl_totensor(L, out_idx);
  if (dst == NULL)
    return dlxl_error(L, DLX_TYPE_ERROR, "%s: out must be a tensor, not a %s", dlx_ew_name(op),
                      dlxl_typename(L, out_idx));
  dlxl_checkopen(L, (dlx_tensor *)dst);
  return write_result(L, op, &a, dlx_ew_arity(op) == 2 ? &b : NULL, dst, out_idx);
}

/* The operators: Lua passes both operands (a unary operator gets its operand twice). */
static int ew_operator(lua_State *L) {
  dlx_ew_op op = op_of(L);
  dlx_operand a, b;
  check_operands(L, op, &a, &b);
  return push_result(L, op, &a, dlx_ew_arity(op) == 2 ? &b : NULL);
}

static void set_closure(lua_State *L, int state, lua_CFunction fn, dlx_ew_op op, const char *name) {
  lua_pushvalue(L, state);
  lua_pushinteger(L, op);
  lua_pushcclosure(L, fn, 2);
  lua_setfield(L, -2, name);
}

void dlxl_set_elementwise_methods(lua_State *L, int state) {
  char name[64];
  for (int op = 0; op < DLX_EW_NUM_OPS; op++) {
    set_closure(L, state, ew_method, (dlx_ew_op)op, dlx_ew_name((dlx_ew_op)op));
    snprintf(name, sizeof name, "%s_", dlx_ew_name((dlx_ew_op)op));
    set_closure(L, state, ew_inplace, (dlx_ew_op)op, name);
  }
}

void dlxl_set_elementwise_funcs(lua_State *L, int state) {
  for (int op = 0; op < DLX_EW_NUM_OPS; op++)
    set_closure(L, state, ew_function, (dlx_ew_op)op, dlx_ew_name((dlx_ew_op)op));
}

static const struct {
  const char *event;
  dlx_ew_op op;
} operators[] = {
    {"__add", DLX_EW_ADD},
    {"__sub", DLX_EW_SUB},
    {"__mul", DLX_EW_MUL},
    {"__div", DLX_EW_DIV},
    {"__idiv", DLX_EW_FLOOR_DIVIDE},
    {"__mod", DLX_EW_REMAINDER},
    {"__pow", DLX_EW_POW},
    {"__unm", DLX_EW_NEG},
    {"__band", DLX_EW_BITWISE_AND},
    {"__bor", DLX_EW_BITWISE_OR},
    {"__bxor", DLX_EW_BITWISE_XOR},
    {"__shl", DLX_EW_BITWISE_LEFT_SHIFT},
    {"__shr", DLX_EW_BITWISE_RIGHT_SHIFT},
    {"__bnot", DLX_EW_BITWISE_NOT},
};

void dlxl_set_elementwise_metamethods(lua_State *L, int state) {
  for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
    set_closure(L, state, ew_operator, operators[i].op, operators[i].event);
}
