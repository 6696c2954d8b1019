/* linalg_decomp.c -- the decompositions of dlx.linalg (src/core/linalg_decomp.c): dlx.linalg.solve,
 * inv, det, slogdet, cholesky, qr, svd, svdvals, eigh, eigvalsh, eig, eigvals, lstsq,
 * lu_factor, lu, lu_solve and solve_triangular. lua/dlx/linalg.lua adds the functions composed
 * of these (norms, pinv, matrix_rank, ...). */
#include <string.h>

#include "core/linalg_decomp.h"
#include "lua/args.h"
#include "lua/errors.h"
#include "lua/memory.h"
#include "lua/tables.h"
#include "lua/tensor.h"

/* What the options of a call said. */
typedef struct params {
  bool upper, left, unit, full;
  dlx_qr_mode mode;
  double rcond;
} params;

/* A core call: the results into out[], from the tensor arguments in[]. */
typedef int (*runner)(dlx_tensor *out, const dlx_tensor *const *in, const params *p,
                      dlx_error *err);

/* Calls fn on the nin tensor arguments 1..nin and returns its nout results. */
static int call(lua_State *L, int nin, int nout, runner fn, const params *p) {
  dlx_tensor views[3], out[4];
  const dlx_tensor *in[3];
  dlxl_tensor *u[4];
  int32_t room = 0;
  bool retried = false;
  dlx_error err;
  int rc;
  for (int i = 0; i < nin; i++) {
    in[i] = dlxl_checktensor(L, i + 1, &views[i]);
    if (in[i]->ndim + 1 > room) room = in[i]->ndim + 1;
  }
  if (room > DLX_MAX_NDIM) room = DLX_MAX_NDIM;
  for (int i = 0; i < nout; i++) u[i] = dlxl_newtensor(L, room);
  do {
    for (int i = 0; i < nin; i++) in[i] = dlxl_checktensor(L, i + 1, &views[i]);
    rc = fn(out, in, p, &err);
  } while (dlxl_reclaim(L, rc, &retried, NULL));
  dlxl_check(L, rc, &err);
  for (int i = 0; i < nout; i++) {
    dlxl_settensor(L, u[i], &out[i]);
    dlxl_gcdebt(L, dlx_tensor_nbytes(&out[i]));
  }
  return nout;
}

/* Reads the options table at idx (nil: none) of fname: pushes the values of the count known keys
 * in order (nil when missing) and returns the index of the first; other keys are a TypeError. */
static int options(lua_State *L, int idx, const char *fname, const char *const *known, int count) {
  int first = lua_gettop(L) + 1, found = 0, others;
  if (lua_isnoneornil(L, idx)) {
    for (int i = 0; i < count; i++) lua_pushnil(L);
    return first;
  }
  if (!lua_istable(L, idx))
    dlxl_error(L, DLX_TYPE_ERROR, "%s: opts must be a table or nil, got %s", fname,
               dlxl_typename(L, idx));
  others = dlxl_pushoptions(L, idx, known, count);
  for (int i = 0; i < count; i++) found += !lua_isnil(L, first + i);
  if (others != 0) dlxl_checkoptions(L, idx, fname, known, found);
  return first;
}

static bool flag(lua_State *L, int idx, const char *what, bool def) {
  return lua_isnil(L, idx) ? def : dlxl_optboolean(L, idx, what);
}

/* ---- the core calls */

static int run_solve(dlx_tensor *out, const dlx_tensor *const *in, const params *p,
                     dlx_error *err) {
  (void)p;
  return dlx_linalg_solve(&out[0], in[0], in[1], err);
}

static int run_inv(dlx_tensor *out, const dlx_tensor *const *in, const params *p, dlx_error *err) {
  (void)p;
  return dlx_linalg_inv(&out[0], in[0], err);
}

static int run_det(dlx_tensor *out, const dlx_tensor *const *in, const params *p, dlx_error *err) {
  (void)p;
  return dlx_linalg_det(&out[0], in[0], err);
}

static int run_slogdet(dlx_tensor *out, const dlx_tensor *const *in, const params *p,
                       dlx_error *err) {
  (void)p;
  return dlx_linalg_slogdet(&out[0], &out[1], in[0], err);
}

static int run_cholesky(dlx_tensor *out, const dlx_tensor *const *in, const params *p,
                        dlx_error *err) {
  return dlx_linalg_cholesky(&out[0], in[0], p->upper, err);
}

static int run_qr(dlx_tensor *out, const dlx_tensor *const *in, const params *p, dlx_error *err) {
  return dlx_linalg_qr(&out[0], &out[1], in[0], p->mode, err);
}

static int run_svd(dlx_tensor *out, const dlx_tensor *const *in, const params *p, dlx_error *err) {
  return dlx_linalg_svd(&out[0], &out[1], &out[2], in[0], p->full, err);
}

static int run_svdvals(dlx_tensor *out, const dlx_tensor *const *in, const params *p,
                       dlx_error *err) {
  (void)p;
  return dlx_linalg_svd(NULL, &out[0], NULL, in[0], false, err);
}

static int run_eigh(dlx_tensor *out, const dlx_tensor *const *in, const params *p, dlx_error *err) {
  return dlx_linalg_eigh(&out[0], &out[1], in[0], p->upper, err);
}

static int run_eigvalsh(dlx_tensor *out, const dlx_tensor *const *in, const params *p,
                        dlx_error *err) {
  return dlx_linalg_eigh(&out[0], NULL, in[0], p->upper, err);
}

static int run_eig(dlx_tensor *out, const dlx_tensor *const *in, const params *p, dlx_error *err) {
  (void)p;
  return dlx_linalg_eig(&out[0], &out[1], in[0], err);
}

static int run_eigvals(dlx_tensor *out, const dlx_tensor *const *in, const params *p,
                       dlx_error *err) {
  (void)p;
  return dlx_linalg_eig(&out[0], NULL, in[0], err);
}

static int run_lstsq(dlx_tensor *out, const dlx_tensor *const *in, const params *p,
                     dlx_error *err) {
  return dlx_linalg_lstsq(&out[0], &out[1], &out[2], &out[3], in[0], in[1], p->rcond, err);
}

static int run_lu_factor(dlx_tensor *out, const dlx_tensor *const *in, const params *p,
                         dlx_error *err) {
  (void)p;
  return dlx_linalg_lu_factor(&out[0], &out[1], in[0], err);
}

static int run_lu(dlx_tensor *out, const dlx_tensor *const *in, const params *p, dlx_error *err) {
  (void)p;
  return dlx_linalg_lu(&out[0], &out[1], &out[2], in[0], err);
}

static int run_lu_solve(dlx_tensor *out, const dlx_tensor *const *in, const params *p,
                        dlx_error *err) {
  (void)p;
  return dlx_linalg_lu_solve(&out[0], in[0], in[1], in[2], err);
}

static int run_triangular(dlx_tensor *out, const dlx_tensor *const *in, const params *p,
                          dlx_error *err) {
  return dlx_linalg_solve_triangular(&out[0], in[0], in[1], p->upper, p->left, p->unit, err);
}

/* ---- the Lua functions */

/* solve(A, B) -> X */
static int linalg_solve(lua_State *L) { return call(L, 2, 1, run_solve, &(params){0}); }

/* inv(A) -> A^-1 */
static int linalg_inv(lua_State *L) { return call(L, 1, 1, run_inv, &(params){0}); }

/* det(A) -> det */
static int linalg_det(lua_State *L) { return call(L, 1, 1, run_det, &(params){0}); }

/* slogdet(A) -> sign, logabsdet */
static int linalg_slogdet(lua_State *L) { return call(L, 1, 2, run_slogdet, &(params){0}); }

/* cholesky(A[, {upper = false}]) -> L */
static int linalg_cholesky(lua_State *L) {
  static const char *const known[] = {"upper", NULL};
  int first = options(L, 2, "linalg.cholesky", known, 1);
  params p = {.upper = flag(L, first, "linalg.cholesky: upper", false)};
  return call(L, 1, 1, run_cholesky, &p);
}

/* qr(A[, {mode = "reduced"}]) -> Q, R */
static int linalg_qr(lua_State *L) {
  static const char *const known[] = {"mode", NULL};
  static const char *const modes[] = {"reduced", "complete", "r", NULL};
  int first = options(L, 2, "linalg.qr", known, 1);
  params p = {.mode = DLX_QR_REDUCED};
  if (!lua_isnil(L, first)) {
    const char *mode = lua_tostring(L, first);
    int i = 0;
    while (mode != NULL && lua_type(L, first) == LUA_TSTRING && modes[i] != NULL &&
           strcmp(mode, modes[i]) != 0)
      i++;
    if (mode == NULL || lua_type(L, first) != LUA_TSTRING || modes[i] == NULL)
      dlxl_error(
          L, DLX_VALUE_ERROR, "linalg.qr: mode must be \"reduced\", \"complete\" or \"r\", got %s",
          mode != NULL && lua_type(L, first) == LUA_TSTRING ? mode : dlxl_typename(L, first));
    p.mode = (dlx_qr_mode)i;
  }
  return call(L, 1, 2, run_qr, &p);
}

/* svd(A[, {full_matrices = true}]) -> U, S, Vh */
static int linalg_svd(lua_State *L) {
  static const char *const known[] = {"full_matrices", NULL};
  int first = options(L, 2, "linalg.svd", known, 1);
  params p = {.full = flag(L, first, "linalg.svd: full_matrices", true)};
  return call(L, 1, 3, run_svd, &p);
}

/* svdvals(A) -> S */
static int linalg_svdvals(lua_State *L) { return call(L, 1, 1, run_svdvals, &(params){0}); }

/* The uplo option of eigh and eigvalsh: true for "U". */
static bool read_uplo(lua_State *L, int idx, const char *fname) {
  static const char *const known[] = {"uplo", NULL};
  int first = options(L, idx, fname, known, 1);
  const char *uplo = lua_type(L, first) == LUA_TSTRING ? lua_tostring(L, first) : NULL;
  if (lua_isnil(L, first)) return false;
  if (uplo == NULL || (strcmp(uplo, "L") != 0 && strcmp(uplo, "U") != 0))
    dlxl_error(L, DLX_VALUE_ERROR, "%s: uplo must be \"L\" or \"U\", got %s", fname,
               uplo != NULL ? uplo : dlxl_typename(L, first));
  return uplo[0] == 'U';
}

/* eigh(A[, {uplo = "L"}]) -> eigenvalues (ascending), eigenvectors */
static int linalg_eigh(lua_State *L) {
  params p = {.upper = read_uplo(L, 2, "linalg.eigh")};
  return call(L, 1, 2, run_eigh, &p);
}

/* eigvalsh(A[, {uplo = "L"}]) -> eigenvalues */
static int linalg_eigvalsh(lua_State *L) {
  params p = {.upper = read_uplo(L, 2, "linalg.eigvalsh")};
  return call(L, 1, 1, run_eigvalsh, &p);
}

/* eig(A) -> eigenvalues, eigenvectors (complex) */
static int linalg_eig(lua_State *L) { return call(L, 1, 2, run_eig, &(params){0}); }

/* eigvals(A) -> eigenvalues (complex) */
static int linalg_eigvals(lua_State *L) { return call(L, 1, 1, run_eigvals, &(params){0}); }

/* lstsq(A, B[, {rcond =}]) -> solution, residuals, rank, singular values */
static int linalg_lstsq(lua_State *L) {
  static const char *const known[] = {"rcond", NULL};
  int first = options(L, 3, "linalg.lstsq", known, 1);
  params p = {.rcond = -1};
  if (!lua_isnil(L, first)) {
    if (lua_type(L, first) != LUA_TNUMBER)
      dlxl_error(L, DLX_TYPE_ERROR, "linalg.lstsq: rcond must be a number, got %s",
                 dlxl_typename(L, first));
    p.rcond = lua_tonumber(L, first);
    if (!(p.rcond >= 0))
      dlxl_error(L, DLX_VALUE_ERROR, "linalg.lstsq: rcond must be >= 0, got %g", p.rcond);
  }
  return call(L, 2, 4, run_lstsq, &p);
}

/* lu_factor(A) -> LU, pivots */
static int linalg_lu_factor(lua_State *L) { return call(L, 1, 2, run_lu_factor, &(params){0}); }

/* lu(A) -> P, L, U */
static int linalg_lu(lua_State *L) { return call(L, 1, 3, run_lu, &(params){0}); }

/* lu_solve(LU, pivots, B) -> X */
static int linalg_lu_solve(lua_State *L) { return call(L, 3, 1, run_lu_solve, &(params){0}); }

/* solve_triangular(A, B, {upper =, left = true, unitriangular = false}) -> X */
static int linalg_solve_triangular(lua_State *L) {
  static const char *const known[] = {"upper", "left", "unitriangular", NULL};
  const char *fname = "linalg.solve_triangular";
  int first;
  params p;
  if (!lua_istable(L, 3))
    dlxl_error(L, DLX_TYPE_ERROR, "%s(A, B, {upper = true|false}): the options are needed, got %s",
               fname, dlxl_typename(L, 3));
  first = options(L, 3, fname, known, 3);
  if (lua_isnil(L, first))
    dlxl_error(L, DLX_TYPE_ERROR, "%s: opts.upper must be given (true or false)", fname);
  p.upper = flag(L, first, "linalg.solve_triangular: upper", false);
  p.left = flag(L, first + 1, "linalg.solve_triangular: left", true);
  p.unit = flag(L, first + 2, "linalg.solve_triangular: unitriangular", false);
  return call(L, 2, 1, run_triangular, &p);
}

const luaL_Reg dlxl_decomp_funcs[] = {
    {"solve", linalg_solve},
    {"inv", linalg_inv},
    {"det", linalg_det},
    {"slogdet", linalg_slogdet},
    {"cholesky", linalg_cholesky},
    {"qr", linalg_qr},
    {"svd", linalg_svd},
    {"svdvals", linalg_svdvals},
    {"eigh", linalg_eigh},
    {"eigvalsh", linalg_eigvalsh},
    {"eig", linalg_eig},
    {"eigvals", linalg_eigvals},
    {"lstsq", linalg_lstsq},
    {"lu_factor", linalg_lu_factor},
    {"lu", linalg_lu},
    {"lu_solve", linalg_lu_solve},
    {"solve_triangular", linalg_solve_triangular},
    {NULL, NULL},
};
