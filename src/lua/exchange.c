/* exchange.c -- the exchange table of dlx.h: DLPack 1.3's DLPackExchangeAPI for Lua values
 * (a Lua value is (L, idx) where DLPack has a PyObject), for peer libraries that move tensors
 * in and out of a Lua state without capsules or Lua calls. */
#include "lua/exchange.h"

#include "lua/capi.h"
#include "lua/capsule.h"
#include "lua/errors.h"
#include "lua/tensor.h"

/* A new dlx tensor like the prototype, exported (the export holds the only reference). */
static int allocate(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                    DLPackSetError set_error) {
  dlx_export_options opts = {.versioned = true, .copy = DLX_COPY_NEVER};
  DLManagedTensor *legacy;
  dlx_tensor t;
  dlx_dtype dtype;
  dlx_error err;
  int rc;
  if (out != NULL) *out = NULL;
  if (prototype == NULL || out == NULL)
    rc = dlx_fail(&err, DLX_VALUE_ERROR, "NULL prototype or out");
  else if (prototype->ndim < 0 || prototype->ndim > DLX_MAX_NDIM ||
           (prototype->ndim > 0 && prototype->shape == NULL))
    rc = dlx_fail(&err, DLX_VALUE_ERROR, "prototype with ndim = %d and %s shape",
                  (int)prototype->ndim, prototype->shape == NULL ? "a NULL" : "a");
  else if (dlx_dtype_from_dl(prototype->dtype, &dtype) != 0)
    rc = dlx_fail(&err, DLX_TYPE_ERROR, "unsupported dtype (code %d, bits %d, lanes %d)",
                  prototype->dtype.code, prototype->dtype.bits, prototype->dtype.lanes);
  else if ((rc = dlx_device_check(prototype->device, &err)) == 0)
    rc = dlx_tensor_empty(&t, prototype->shape, prototype->ndim, dtype, prototype->device, &err);
  if (rc == 0) {
    rc = dlx_export(&t, &opts, out, &legacy, &err);
    dlx_tensor_close(&t);
  }
  if (rc == 0) return 0;
  if (set_error != NULL) set_error(error_ctx, dlx_errclass_name((dlx_errclass)rc), err.message);
  return -1;
}

typedef struct import_request {
  DLManagedTensorVersioned *mt;
  bool taken; /* dlx owns mt: its deleter is dlx's business now */
} import_request;

static int to_value_protected(lua_State *L) {
  import_request *req = lua_touserdata(L, 1);
  dlxl_tensor *out;
  dlx_tensor made;
  dlx_error err;
  if (req->mt == NULL) return dlxl_error(L, DLX_VALUE_ERROR, "NULL managed tensor");
  out = dlxl_newtensor(L, req->mt->dl_tensor.ndim);
  req->taken = true;
  dlxl_check(L, dlx_import_versioned(req->mt, &made, &err), &err); /* the deleter ran if not */
  dlxl_settensor(L, out, &made);
  dlxl_gcdebt(L, dlx_tensor_nbytes(&made));
  return 1;
}

/* Pushes a dlx tensor that imports tensor; ownership passes to dlx, even on failure. */
static int managed_tensor_to_value(lua_State *L, DLManagedTensorVersioned *tensor) {
  import_request req = {tensor, false};
  int status;
  if (!lua_checkstack(L, 4)) {
    dlxl_delete_managed(tensor, true);
    return DLX_MEMORY_ERROR;
  }
  lua_pushcfunction(L, to_value_protected);
  lua_pushlightuserdata(L, &req);
  status = lua_pcall(L, 1, 1, 0);
  if (status == LUA_OK) return DLX_OK;
  if (!req.taken) dlxl_delete_managed(tensor, true);
  return dlxl_failure_class(L, status);
}

/* The calling thread's current stream of the device: NULL where there are no streams. */
static int current_work_stream(DLDeviceType device_type, int32_t device_id, void **out) {
  const dlx_backend *backend = dlx_backend_for(device_type);
  DLDevice device = {device_type, device_id};
  if (out == NULL) return -1;
  *out = NULL;
  if (backend == NULL || dlx_device_check(device, NULL) != 0) return -1;
  if (backend->stream != NULL) *out = (void *)backend->stream->current(device_id);
  return 0;
}

const dlx_exchange_api dlxl_exchange_api = {
    .header = {.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, .prev_api = NULL},
    .managed_tensor_allocator = allocate,
    .managed_tensor_from_value = dlxl_to_dlpack_nosync,
    .managed_tensor_to_value = managed_tensor_to_value,
    .dltensor_from_value = dlx_tensor_view,
    .current_work_stream = current_work_stream,
};

DLXL_PUBLIC const dlx_exchange_api *dlx_get_exchange_api(void) { return &dlxl_exchange_api; }
