/* borrow.c -- tensors over a host's memory: lent (dlx_push_borrowed, ended by dlx_unborrow)
 * or given (dlx_push_tensor, with the host's deleter).
 *
 * A loan is a small refcounted object with two holders: the host, until dlx_unborrow, and the
 * buffer over the memory, until its last release (collection, t:close(), lua_close). Whichever
 * comes last frees it, so that neither side ever reaches freed memory, in any order and on any
 * thread. The buffer points at the loan's `revoked` flag: dlx_unborrow sets it, and the core
 * checks it wherever it reads or writes data, so every view of the loan expires at once without
 * a search for them. */
#include "lua/capi.h"
#include "lua/errors.h"
#include "lua/tensor.h"

struct dlx_borrow {
  atomic_int refs;     /* the host's and the buffer's */
  atomic_bool revoked; /* set by dlx_unborrow */
  atomic_bool in_use;  /* the buffer over the memory still exists */
};

static void loan_drop(dlx_borrow *loan) {
  if (atomic_fetch_sub_explicit(&loan->refs, 1, memory_order_acq_rel) == 1) dlx_free(loan);
}

/* The buffer's release: the memory is the host's, only the loan's reference goes. */
static void release_loan(dlx_buffer *self) {
  dlx_borrow *loan = self->owner;
  atomic_store_explicit(&loan->in_use, false, memory_order_release);
  loan_drop(loan);
}

typedef struct borrow_request {
  const DLTensor *dl;
  uint64_t flags;
  dlx_borrow **loan;
} borrow_request;

/* The userdata first, then the loan, then the import: a failure at any step leaves nothing. */
static int push_borrowed_protected(lua_State *L) {
  const borrow_request *req = lua_touserdata(L, 1);
  dlxl_tensor *out;
  dlx_tensor made;
  dlx_borrow *loan;
  dlx_error err;
  if (req->dl == NULL) return dlxl_error(L, DLX_VALUE_ERROR, "NULL DLTensor");
  if (req->loan == NULL) return dlxl_error(L, DLX_VALUE_ERROR, "loan must not be NULL");
  out = dlxl_newtensor(L, req->dl->ndim);
  loan = dlx_malloc(sizeof *loan);
  if (loan == NULL) return dlxl_error(L, DLX_MEMORY_ERROR, "out of memory lending a tensor");
  atomic_init(&loan->refs, 2);
  atomic_init(&loan->revoked, false);
  atomic_init(&loan->in_use, true);
  if (dlx_import_dltensor(req->dl, req->flags, release_loan, loan, &made, &err) != 0) {
    dlx_free(loan);
    return dlxl_raise(L, &err);
  }
  made.buffer->revoked = &loan->revoked;
  dlxl_settensor(L, out, &made);
  *req->loan = loan;
  return 1;
}

DLXL_PUBLIC int dlx_push_borrowed(lua_State *L, const DLTensor *t, uint64_t flags,
                                  dlx_borrow **loan) {
  borrow_request req = {t, flags, loan};
  int status;
  if (loan != NULL) *loan = NULL;
  if (!lua_checkstack(L, 4)) return DLX_MEMORY_ERROR;
  lua_pushcfunction(L, push_borrowed_protected);
  lua_pushlightuserdata(L, &req);
  status = lua_pcall(L, 1, 1, 0);
  return status == LUA_OK ? DLX_OK : dlxl_failure_class(L, status);
}

DLXL_PUBLIC int dlx_unborrow(dlx_borrow *loan, int *held) {
  if (held != NULL) *held = 0;
  if (loan == NULL) return DLX_VALUE_ERROR;
  /* release: a thread that later sees the flag also sees that the host took the memory back */
  atomic_store_explicit(&loan->revoked, true, memory_order_release);
  if (held != NULL) *held = atomic_load_explicit(&loan->in_use, memory_order_acquire) ? 1 : 0;
  loan_drop(loan);
  return DLX_OK;
}

/* ---- dlx_push_tensor: the host's memory, given to dlx with its deleter */

static void release_host_tensor(dlx_buffer *self) {
  if (self->owner_free != NULL) self->owner_free(self->owner);
}

typedef struct give_request {
  DLTensor dl;
  uint64_t flags;
  void (*deleter)(void *ctx);
  void *ctx;
  bool taken; /* the buffer owns the memory: the deleter is its business now */
} give_request;

static int push_tensor_protected(lua_State *L) {
  give_request *req = lua_touserdata(L, 1);
  dlxl_tensor *out;
  dlx_tensor made;
  dlx_error err;
  out = dlxl_newtensor(L, req->dl.ndim);
  if (dlx_import_dltensor(&req->dl, req->flags, release_host_tensor, req->ctx, &made, &err) != 0)
    return dlxl_raise(L, &err);
  made.buffer->owner_free = req->deleter;
  req->taken = true;
  dlxl_settensor(L, out, &made);
  dlxl_gcdebt(L, dlx_tensor_nbytes(&made));
  return 1;
}

DLXL_PUBLIC int dlx_push_tensor(lua_State *L, void *data, DLDataType dtype, DLDevice device,
                                int32_t ndim, const int64_t *shape, const int64_t *strides,
                                uint64_t flags, void (*deleter)(void *ctx), void *ctx) {
  give_request req = {{data, device, ndim, dtype, (int64_t *)shape, (int64_t *)strides, 0},
                      flags,
                      deleter,
                      ctx,
                      false};
  int status;
  if (!lua_checkstack(L, 4)) {
    if (deleter != NULL) deleter(ctx);
    return DLX_MEMORY_ERROR;
  }
  lua_pushcfunction(L, push_tensor_protected);
  lua_pushlightuserdata(L, &req);
  status = lua_pcall(L, 1, 1, 0);
  if (status == LUA_OK) return DLX_OK;
  if (!req.taken && deleter != NULL) deleter(ctx);
  return dlxl_failure_class(L, status);
}
