/* solver.c -- the linalg entry of a CUDA device (dlx.linalg's decompositions) through cuSOLVER,
 * loaded at run time like cuBLAS (blas.c): $DLX_CUSOLVER_LIBRARY when set, else
 * libcusolver.so.12 (CUDA 13's), libcusolver.so.11 (CUDA 12's) and libcusolver.so, once per
 * process, never closed; without it a decomposition on a CUDA device is the DeviceError
 * "cuSOLVER not found". linalg_run.h turns each request into the solver calls below and dlx's
 * own ops; this file is the solver: cuSOLVER's 64-bit API (cusolverDnXgetrf, Xgetrs, Xpotrf,
 * Xgeqrf, Xgesvd, Xsyevd, Xgeev), its legacy orgqr/ungqr and ormqr/unmqr, cuBLAS's trsm, and
 * the batched routines for many small matrices: cuSOLVER's potrfBatched (up to 64 x 64) and
 * XsyevBatched (Hermitian, up to 32 x 32) when the library has them, cuBLAS's getrfBatched,
 * getrsBatched and matinvBatched (linalg_plan.h says when); the others loop over the batch, one
 * call a matrix, all queued on the calling thread's current stream with one workspace.
 * cusolverDnXgeev (eig, eigvals) came with cuSOLVER 11.7 (CUDA 12.6 Update 2): an older library
 * loads without it, and eig on CUDA then says so (a DeviceError).
 *
 * Each thread has its own cuSOLVER handle and parameters per device (handles.h), set to its
 * current stream before every request. The infos of the matrices (devInfo) are copied back to
 * the host where the plan needs them (a singular, non positive definite or non-converging
 * matrix is the request's failure, the core's LinAlgError, as on the CPU), which waits for the
 * stream. */
#include <cusolverDn.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "cuda/blas.h"
#include "cuda/cuda_internal.h"
#include "cuda/handles.h"
#include "cuda/linalg_run.h"
#include "cuda/solver.h"

#define DLX_CUSOLVER_FUNCTIONS(X)                                                                  \
  X(cusolverDnCreate)                                                                              \
  X(cusolverDnSetStream)                                                                           \
  X(cusolverDnCreateParams)                                                                        \
  X(cusolverDnXgetrf_bufferSize)                                                                   \
  X(cusolverDnXgetrf)                                                                              \
  X(cusolverDnXgetrs)                                                                              \
  X(cusolverDnXpotrf_bufferSize)                                                                   \
  X(cusolverDnXpotrf)                                                                              \
  X(cusolverDnXgeqrf_bufferSize)                                                                   \
  X(cusolverDnXgeqrf)                                                                              \
  X(cusolverDnXgesvd_bufferSize)                                                                   \
  X(cusolverDnXgesvd)                                                                              \
  X(cusolverDnXsyevd_bufferSize)                                                                   \
  X(cusolverDnXsyevd)                                                                              \
  X(cusolverDnSorgqr_bufferSize)                                                                   \
  X(cusolverDnSorgqr)                                                                              \
  X(cusolverDnDorgqr_bufferSize)                                                                   \
  X(cusolverDnDorgqr)                                                                              \
  X(cusolverDnCungqr_bufferSize)                                                                   \
  X(cusolverDnCungqr)                                                                              \
  X(cusolverDnZungqr_bufferSize)                                                                   \
  X(cusolverDnZungqr)                                                                              \
  X(cusolverDnSormqr_bufferSize)                                                                   \
  X(cusolverDnSormqr)                                                                              \
  X(cusolverDnDormqr_bufferSize)                                                                   \
  X(cusolverDnDormqr)                                                                              \
  X(cusolverDnCunmqr_bufferSize)                                                                   \
  X(cusolverDnCunmqr)                                                                              \
  X(cusolverDnZunmqr_bufferSize)                                                                   \
  X(cusolverDnZunmqr)
/* Used when the library has them (cuSOLVER 11.7 and later for XsyevBatched and Xgeev). */
#define DLX_CUSOLVER_OPTIONAL(X)                                                                   \
  X(cusolverDnSpotrfBatched)                                                                       \
  X(cusolverDnDpotrfBatched)                                                                       \
  X(cusolverDnCpotrfBatched)                                                                       \
  X(cusolverDnZpotrfBatched)                                                                       \
  X(cusolverDnXsyevBatched_bufferSize)                                                             \
  X(cusolverDnXsyevBatched)                                                                        \
  X(cusolverDnXgeev_bufferSize)                                                                    \
  X(cusolverDnXgeev)

typedef struct cusolver_api {
#define DLX_CUSOLVER_POINTER(name) __typeof__(name) *name;
  DLX_CUSOLVER_FUNCTIONS(DLX_CUSOLVER_POINTER)
  DLX_CUSOLVER_OPTIONAL(DLX_CUSOLVER_POINTER)
#undef DLX_CUSOLVER_POINTER
} cusolver_api;

static cusolver_api api;
static bool api_ok;
static char api_error[sizeof(((dlx_error *)0)->message)];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

/* Resolves every function of the opened lib; false with api_error set otherwise. */
static bool resolve_functions(void *lib, const char *name) {
#define DLX_CUSOLVER_RESOLVE(fn)                                                                   \
  *(void **)&api.fn = dlsym(lib, #fn);                                                             \
  if (api.fn == NULL) {                                                                            \
    snprintf(api_error, sizeof api_error, "%s has no %s (cuSOLVER 11.1 or later is needed)", name, \
             #fn);                                                                                 \
    return false;                                                                                  \
  }
  DLX_CUSOLVER_FUNCTIONS(DLX_CUSOLVER_RESOLVE)
#undef DLX_CUSOLVER_RESOLVE
#define DLX_CUSOLVER_MAYBE(fn) *(void **)&api.fn = dlsym(lib, #fn);
  DLX_CUSOLVER_OPTIONAL(DLX_CUSOLVER_MAYBE)
#undef DLX_CUSOLVER_MAYBE
  return true;
}

static void load_library(void) {
  static const char *const names[] = {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"};
  api_ok = dlx_cuda_load_library("DLX_CUSOLVER_LIBRARY", names, sizeof names / sizeof names[0],
                                 resolve_functions, api_error, sizeof api_error);
}

int dlx_cuda_solver_load(dlx_error *err) {
  pthread_once(&api_once, load_library);
  if (api_ok) return 0;
  const char *chosen = getenv("DLX_CUSOLVER_LIBRARY");
  if (chosen != NULL && chosen[0] != '\0')
    return dlx_fail(err, DLX_DEVICE_ERROR,
                    "cuSOLVER not found: DLX_CUSOLVER_LIBRARY=%s does not load (%s); dlx.linalg "
                    "on CUDA devices needs it",
                    chosen, api_error);
  return dlx_fail(err, DLX_DEVICE_ERROR,
                  "cuSOLVER not found (libcusolver.so.12 or .11, the CUDA toolkit's or pip's "
                  "nvidia-cusolver; or name it in DLX_CUSOLVER_LIBRARY): %s; dlx.linalg on CUDA "
                  "devices needs it",
                  api_error);
}

static bool has_geev(void) {
  return api_ok && api.cusolverDnXgeev != NULL && api.cusolverDnXgeev_bufferSize != NULL;
}

int dlx_cuda_solver_batched(void) {
  return (api_ok && api.cusolverDnSpotrfBatched != NULL && api.cusolverDnDpotrfBatched != NULL &&
                  api.cusolverDnCpotrfBatched != NULL && api.cusolverDnZpotrfBatched != NULL
              ? 1
              : 0) |
         (api_ok && api.cusolverDnXsyevBatched != NULL ? 2 : 0) | (has_geev() ? 4 : 0);
}

static const char *status_name(cusolverStatus_t s) {
  switch (s) {
  case CUSOLVER_STATUS_NOT_INITIALIZED:
    return "CUSOLVER_STATUS_NOT_INITIALIZED";
  case CUSOLVER_STATUS_ALLOC_FAILED:
    return "CUSOLVER_STATUS_ALLOC_FAILED";
  case CUSOLVER_STATUS_INVALID_VALUE:
    return "CUSOLVER_STATUS_INVALID_VALUE";
  case CUSOLVER_STATUS_ARCH_MISMATCH:
    return "CUSOLVER_STATUS_ARCH_MISMATCH";
  case CUSOLVER_STATUS_EXECUTION_FAILED:
    return "CUSOLVER_STATUS_EXECUTION_FAILED";
  case CUSOLVER_STATUS_INTERNAL_ERROR:
    return "CUSOLVER_STATUS_INTERNAL_ERROR";
  case CUSOLVER_STATUS_NOT_SUPPORTED:
    return "CUSOLVER_STATUS_NOT_SUPPORTED";
  default:
    return "a cuSOLVER status";
  }
}

static int solver_fail(dlx_error *err, cusolverStatus_t s, const char *what) {
  return dlx_fail(err, s == CUSOLVER_STATUS_ALLOC_FAILED ? DLX_MEMORY_ERROR : DLX_DEVICE_ERROR,
                  "%s failed: %s (%d)", what, status_name(s), (int)s);
}

/* ---- handles */

typedef struct handle_pair {
  cusolverDnHandle_t h;
  cusolverDnParams_t params;
} handle_pair;

static int create_pair(void **out, dlx_error *err) {
  handle_pair *p = calloc(1, sizeof *p);
  cusolverStatus_t s;
  if (p == NULL) return dlx_fail(err, DLX_MEMORY_ERROR, "no memory for a cuSOLVER handle");
  s = api.cusolverDnCreate(&p->h);
  if (s == CUSOLVER_STATUS_SUCCESS) s = api.cusolverDnCreateParams(&p->params);
  if (s != CUSOLVER_STATUS_SUCCESS) {
    free(p); /* a handle made before the failure is left: destroying it is not ours to risk */
    return solver_fail(err, s, "cusolverDnCreate");
  }
  *out = p;
  return 0;
}

static dlx_cuda_handles handles = DLX_CUDA_HANDLES(create_pair);

/* ---- the solver */

typedef struct ctx {
  int32_t id;
  cudaStream_t stream;
  cusolverDnHandle_t h;
  cusolverDnParams_t params;
} ctx;

static cudaDataType type_of(dlx_dtype t) {
  switch (t) {
  case DLX_FLOAT32:
    return CUDA_R_32F;
  case DLX_FLOAT64:
    return CUDA_R_64F;
  case DLX_COMPLEX64:
    return CUDA_C_32F;
  default:
    return CUDA_C_64F;
  }
}

static size_t item(const dlx_tensor *t) { return (size_t)dlx_dtype_bits(t->dtype) / 8; }

/* Matrix (or vector) i of a view: its first element. */
static char *nth(const dlx_tensor *t, int64_t i) {
  return (char *)t->buffer->data + (size_t)(t->offset + i * t->strides[0]) * item(t);
}

/* Device scratch: count infos and a workspace, from the caching allocator on the stream (freed
 * after the calls are queued: only later work on the stream reuses them), and host bytes. */
typedef struct scratch {
  int *infos;
  void *device, *host;
  size_t device_bytes, host_bytes;
} scratch;

static int take(const ctx *c, scratch *s, int64_t count, size_t device_bytes, size_t host_bytes,
                dlx_error *err) {
  memset(s, 0, sizeof *s);
  s->infos = dlx_cuda_pool_alloc(c->id, (size_t)count * sizeof(int), c->stream, err);
  if (s->infos == NULL) return DLX_MEMORY_ERROR;
  if (device_bytes > 0) {
    s->device = dlx_cuda_pool_alloc(c->id, device_bytes, c->stream, err);
    if (s->device == NULL) {
      dlx_cuda_pool_free(c->id, s->infos);
      return DLX_MEMORY_ERROR;
    }
  }
  s->device_bytes = device_bytes;
  s->host_bytes = host_bytes;
  if (host_bytes > 0 && (s->host = malloc(host_bytes)) == NULL) {
    if (s->device != NULL) dlx_cuda_pool_free(c->id, s->device);
    dlx_cuda_pool_free(c->id, s->infos);
    return dlx_fail(err, DLX_MEMORY_ERROR, "cuSOLVER: no host memory for a workspace of %zu bytes",
                    host_bytes);
  }
  return 0;
}

/* Frees the scratch; with info (and rc 0), copies the infos to it first, which waits for the
 * stream (without, nothing waits: an argument cuSOLVER refuses is its status already). A
 * negative info (an argument refused) is a DeviceError. */
static int give_back(const ctx *c, scratch *s, int64_t count, int32_t *info, const char *what,
                     int rc, dlx_error *err) {
  if (rc == 0 && info != NULL) {
    rc = dlx_cuda_copy_bytes_host(c->id, info, s->infos, (size_t)count * sizeof(int), false, err);
    for (int64_t i = 0; rc == 0 && i < count; i++)
      if (info[i] < 0)
        rc = dlx_fail(err, DLX_DEVICE_ERROR, "%s refused its argument %d", what, (int)-info[i]);
  }
  dlx_cuda_pool_free(c->id, s->infos);
  if (s->device != NULL) dlx_cuda_pool_free(c->id, s->device);
  free(s->host);
  return rc;
}

static int s_getrf(void *opaque, const dlx_tensor *a, const dlx_tensor *ipiv, int32_t *info,
                   dlx_error *err) {
  const ctx *c = opaque;
  int64_t count = a->shape[0], m = a->shape[1], n = a->shape[2], lda = a->strides[2];
  cudaDataType t = type_of(a->dtype);
  size_t dev = 0, host = 0;
  scratch s;
  cusolverStatus_t st =
      api.cusolverDnXgetrf_bufferSize(c->h, c->params, m, n, t, nth(a, 0), lda, t, &dev, &host);
  if (st != CUSOLVER_STATUS_SUCCESS) return solver_fail(err, st, "cusolverDnXgetrf_bufferSize");
  int rc = take(c, &s, count, dev, host, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < count && st == CUSOLVER_STATUS_SUCCESS; i++)
    st = api.cusolverDnXgetrf(c->h, c->params, m, n, t, nth(a, i), lda, (int64_t *)nth(ipiv, i), t,
                              s.device, dev, s.host, host, s.infos + i);
  if (st != CUSOLVER_STATUS_SUCCESS) rc = solver_fail(err, st, "cusolverDnXgetrf");
  return give_back(c, &s, count, info, "cusolverDnXgetrf", rc, err);
}

static int s_getrs(void *opaque, const dlx_tensor *a, const dlx_tensor *ipiv, const dlx_tensor *b,
                   dlx_error *err) {
  const ctx *c = opaque;
  int64_t count = a->shape[0], n = a->shape[1], k = b->shape[2];
  cudaDataType t = type_of(a->dtype);
  cusolverStatus_t st = CUSOLVER_STATUS_SUCCESS;
  scratch s;
  int rc = take(c, &s, count, 0, 0, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < count && st == CUSOLVER_STATUS_SUCCESS; i++)
    st = api.cusolverDnXgetrs(c->h, c->params, CUBLAS_OP_N, n, k, t, nth(a, i), a->strides[2],
                              (const int64_t *)nth(ipiv, i), t, nth(b, i), b->strides[2],
                              s.infos + i);
  if (st != CUSOLVER_STATUS_SUCCESS) rc = solver_fail(err, st, "cusolverDnXgetrs");
  return give_back(c, &s, count, NULL, "cusolverDnXgetrs", rc, err);
}

/* The batched routines take an array on the device of the matrices' addresses: *out, from the
 * caching allocator on the stream (the caller frees it once its call is queued). */
static int pointer_array(const ctx *c, const dlx_tensor *t, void ***out, dlx_error *err) {
  int64_t count = t->shape[0];
  void **host = malloc((size_t)count * sizeof *host), **dev;
  int rc;
  if (host == NULL) return dlx_fail(err, DLX_MEMORY_ERROR, "no memory for a batch's addresses");
  for (int64_t i = 0; i < count; i++) host[i] = nth(t, i);
  dev = dlx_cuda_pool_alloc(c->id, (size_t)count * sizeof *dev, c->stream, err);
  rc = dev == NULL
           ? DLX_MEMORY_ERROR
           : dlx_cuda_copy_bytes_host(c->id, dev, host, (size_t)count * sizeof *dev, true, err);
  free(host);
  if (rc != 0 && dev != NULL) dlx_cuda_pool_free(c->id, dev);
  if (rc == 0) *out = dev;
  return rc;
}

static int potrf_batched(const ctx *c, cublasFillMode_t fill, const dlx_tensor *a, scratch *s,
                         dlx_error *err) {
  int64_t count = a->shape[0];
  int n = (int)a->shape[1], lda = (int)a->strides[2];
  void **dev;
  cusolverStatus_t st;
  int rc = pointer_array(c, a, &dev, err);
  if (rc != 0) return rc;
  switch (a->dtype) {
  case DLX_FLOAT32:
    st = api.cusolverDnSpotrfBatched(c->h, fill, n, (float **)dev, lda, s->infos, (int)count);
    break;
  case DLX_FLOAT64:
    st = api.cusolverDnDpotrfBatched(c->h, fill, n, (double **)dev, lda, s->infos, (int)count);
    break;
  case DLX_COMPLEX64:
    st = api.cusolverDnCpotrfBatched(c->h, fill, n, (cuComplex **)dev, lda, s->infos, (int)count);
    break;
  default:
    st = api.cusolverDnZpotrfBatched(c->h, fill, n, (cuDoubleComplex **)dev, lda, s->infos,
                                     (int)count);
  }
  dlx_cuda_pool_free(c->id, dev);
  return st == CUSOLVER_STATUS_SUCCESS ? 0 : solver_fail(err, st, "cusolverDn?potrfBatched");
}

static int s_potrf(void *opaque, bool upper, const dlx_tensor *a, int32_t *info, dlx_error *err) {
  const ctx *c = opaque;
  int64_t count = a->shape[0], n = a->shape[1], lda = a->strides[2];
  cublasFillMode_t fill = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  cudaDataType t = type_of(a->dtype);
  size_t dev = 0, host = 0;
  scratch s;
  cusolverStatus_t st = CUSOLVER_STATUS_SUCCESS;
  int rc;
  if (count > 1 && n <= 64 && count <= INT32_MAX && api.cusolverDnSpotrfBatched != NULL &&
      api.cusolverDnDpotrfBatched != NULL && api.cusolverDnCpotrfBatched != NULL &&
      api.cusolverDnZpotrfBatched != NULL) {
    rc = take(c, &s, count, 0, 0, err);
    if (rc == 0) rc = potrf_batched(c, fill, a, &s, err);
    return give_back(c, &s, count, info, "cusolverDn?potrfBatched", rc, err);
  }
  st = api.cusolverDnXpotrf_bufferSize(c->h, c->params, fill, n, t, nth(a, 0), lda, t, &dev, &host);
  if (st != CUSOLVER_STATUS_SUCCESS) return solver_fail(err, st, "cusolverDnXpotrf_bufferSize");
  rc = take(c, &s, count, dev, host, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < count && st == CUSOLVER_STATUS_SUCCESS; i++)
    st = api.cusolverDnXpotrf(c->h, c->params, fill, n, t, nth(a, i), lda, t, s.device, dev, s.host,
                              host, s.infos + i);
  if (st != CUSOLVER_STATUS_SUCCESS) rc = solver_fail(err, st, "cusolverDnXpotrf");
  return give_back(c, &s, count, info, "cusolverDnXpotrf", rc, err);
}

static int s_geqrf(void *opaque, const dlx_tensor *a, const dlx_tensor *tau, dlx_error *err) {
  const ctx *c = opaque;
  int64_t count = a->shape[0], m = a->shape[1], n = a->shape[2], lda = a->strides[2];
  cudaDataType t = type_of(a->dtype);
  size_t dev = 0, host = 0;
  scratch s;
  cusolverStatus_t st = api.cusolverDnXgeqrf_bufferSize(c->h, c->params, m, n, t, nth(a, 0), lda, t,
                                                        nth(tau, 0), t, &dev, &host);
  if (st != CUSOLVER_STATUS_SUCCESS) return solver_fail(err, st, "cusolverDnXgeqrf_bufferSize");
  int rc = take(c, &s, count, dev, host, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < count && st == CUSOLVER_STATUS_SUCCESS; i++)
    st = api.cusolverDnXgeqrf(c->h, c->params, m, n, t, nth(a, i), lda, t, nth(tau, i), t, s.device,
                              dev, s.host, host, s.infos + i);
  if (st != CUSOLVER_STATUS_SUCCESS) rc = solver_fail(err, st, "cusolverDnXgeqrf");
  return give_back(c, &s, count, NULL, "cusolverDnXgeqrf", rc, err);
}

/* orgqr and ungqr have only the 32-bit API (the entry checked the sizes). */
static int s_orgqr(void *opaque, int64_t k, const dlx_tensor *q, const dlx_tensor *tau,
                   dlx_error *err) {
  const ctx *c = opaque;
  int64_t count = q->shape[0];
  int m = (int)q->shape[1], n = (int)q->shape[2], kk = (int)k, lda = (int)q->strides[2], lwork = 0;
  cusolverStatus_t st;
  scratch s;
  switch (q->dtype) {
  case DLX_FLOAT32:
    st = api.cusolverDnSorgqr_bufferSize(c->h, m, n, kk, (const float *)nth(q, 0), lda,
                                         (const float *)nth(tau, 0), &lwork);
    break;
  case DLX_FLOAT64:
    st = api.cusolverDnDorgqr_bufferSize(c->h, m, n, kk, (const double *)nth(q, 0), lda,
                                         (const double *)nth(tau, 0), &lwork);
    break;
  case DLX_COMPLEX64:
    st = api.cusolverDnCungqr_bufferSize(c->h, m, n, kk, (const cuComplex *)nth(q, 0), lda,
                                         (const cuComplex *)nth(tau, 0), &lwork);
    break;
  default:
    st = api.cusolverDnZungqr_bufferSize(c->h, m, n, kk, (const cuDoubleComplex *)nth(q, 0), lda,
                                         (const cuDoubleComplex *)nth(tau, 0), &lwork);
  }
  if (st != CUSOLVER_STATUS_SUCCESS) return solver_fail(err, st, "cusolverDn?orgqr_bufferSize");
  int rc = take(c, &s, count, (size_t)lwork * item(q), 0, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < count && st == CUSOLVER_STATUS_SUCCESS; i++) switch (q->dtype) {
    case DLX_FLOAT32:
      st = api.cusolverDnSorgqr(c->h, m, n, kk, (float *)nth(q, i), lda, (const float *)nth(tau, i),
                                s.device, lwork, s.infos + i);
      break;
    case DLX_FLOAT64:
      st = api.cusolverDnDorgqr(c->h, m, n, kk, (double *)nth(q, i), lda,
                                (const double *)nth(tau, i), s.device, lwork, s.infos + i);
      break;
    case DLX_COMPLEX64:
      st = api.cusolverDnCungqr(c->h, m, n, kk, (cuComplex *)nth(q, i), lda,
                                (const cuComplex *)nth(tau, i), s.device, lwork, s.infos + i);
      break;
    default:
      st = api.cusolverDnZungqr(c->h, m, n, kk, (cuDoubleComplex *)nth(q, i), lda,
                                (const cuDoubleComplex *)nth(tau, i), s.device, lwork, s.infos + i);
    }
  if (st != CUSOLVER_STATUS_SUCCESS) rc = solver_fail(err, st, "cusolverDn?orgqr");
  return give_back(c, &s, count, NULL, "cusolverDn?orgqr", rc, err);
}

static int s_gesvd(void *opaque, char job, const dlx_tensor *a, const dlx_tensor *sv,
                   const dlx_tensor *u, const dlx_tensor *vt, int32_t *info, dlx_error *err) {
  const ctx *c = opaque;
  int64_t count = a->shape[0], m = a->shape[1], n = a->shape[2], lda = a->strides[2];
  int64_t ldu = u != NULL ? u->strides[2] : m, ldvt = vt != NULL ? vt->strides[2] : n;
  cudaDataType t = type_of(a->dtype), rt = type_of(sv->dtype);
  size_t dev = 0, host = 0;
  scratch s;
  cusolverStatus_t st = api.cusolverDnXgesvd_bufferSize(
      c->h, c->params, (signed char)job, (signed char)job, m, n, t, nth(a, 0), lda, rt, nth(sv, 0),
      t, u != NULL ? nth(u, 0) : NULL, ldu, t, vt != NULL ? nth(vt, 0) : NULL, ldvt, t, &dev,
      &host);
  if (st != CUSOLVER_STATUS_SUCCESS) return solver_fail(err, st, "cusolverDnXgesvd_bufferSize");
  int rc = take(c, &s, count, dev, host, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < count && st == CUSOLVER_STATUS_SUCCESS; i++)
    st = api.cusolverDnXgesvd(c->h, c->params, (signed char)job, (signed char)job, m, n, t,
                              nth(a, i), lda, rt, nth(sv, i), t, u != NULL ? nth(u, i) : NULL, ldu,
                              t, vt != NULL ? nth(vt, i) : NULL, ldvt, t, s.device, dev, s.host,
                              host, s.infos + i);
  if (st != CUSOLVER_STATUS_SUCCESS) rc = solver_fail(err, st, "cusolverDnXgesvd");
  return give_back(c, &s, count, info, "cusolverDnXgesvd", rc, err);
}

static int s_syevd(void *opaque, bool vectors, bool upper, const dlx_tensor *a, const dlx_tensor *w,
                   int32_t *info, dlx_error *err) {
  const ctx *c = opaque;
  int64_t count = a->shape[0], n = a->shape[1], lda = a->strides[2];
  cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  cublasFillMode_t fill = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  cudaDataType t = type_of(a->dtype), rt = type_of(w->dtype);
  size_t dev = 0, host = 0;
  scratch s;
  cusolverStatus_t st;
  int rc;
  /* one call for a batch of small matrices lying one after the other, lda = n */
  bool batched = count > 1 && n <= 32 && api.cusolverDnXsyevBatched != NULL &&
                 api.cusolverDnXsyevBatched_bufferSize != NULL && lda == n &&
                 a->strides[0] == n * n && w->strides[0] == n;
  if (batched) {
    st = api.cusolverDnXsyevBatched_bufferSize(c->h, c->params, jobz, fill, n, t, nth(a, 0), lda,
                                               rt, nth(w, 0), t, &dev, &host, count);
    if (st != CUSOLVER_STATUS_SUCCESS)
      return solver_fail(err, st, "cusolverDnXsyevBatched_bufferSize");
    rc = take(c, &s, count, dev, host, err);
    if (rc != 0) return rc;
    st = api.cusolverDnXsyevBatched(c->h, c->params, jobz, fill, n, t, nth(a, 0), lda, rt,
                                    nth(w, 0), t, s.device, dev, s.host, host, s.infos, count);
    if (st != CUSOLVER_STATUS_SUCCESS) rc = solver_fail(err, st, "cusolverDnXsyevBatched");
    return give_back(c, &s, count, info, "cusolverDnXsyevBatched", rc, err);
  }
  st = api.cusolverDnXsyevd_bufferSize(c->h, c->params, jobz, fill, n, t, nth(a, 0), lda, rt,
                                       nth(w, 0), t, &dev, &host);
  if (st != CUSOLVER_STATUS_SUCCESS) return solver_fail(err, st, "cusolverDnXsyevd_bufferSize");
  rc = take(c, &s, count, dev, host, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < count && st == CUSOLVER_STATUS_SUCCESS; i++)
    st = api.cusolverDnXsyevd(c->h, c->params, jobz, fill, n, t, nth(a, i), lda, rt, nth(w, i), t,
                              s.device, dev, s.host, host, s.infos + i);
  if (st != CUSOLVER_STATUS_SUCCESS) rc = solver_fail(err, st, "cusolverDnXsyevd");
  return give_back(c, &s, count, info, "cusolverDnXsyevd", rc, err);
}

static int s_trsm(void *opaque, bool upper, bool adjoint, bool unit, const dlx_tensor *a,
                  const dlx_tensor *b, dlx_error *err) {
  const ctx *c = opaque;
  int rc = 0;
  for (int64_t i = 0; i < a->shape[0] && rc == 0; i++)
    rc = dlx_cuda_blas_trsm(c->id, a->dtype, upper, adjoint, unit, a->shape[1], b->shape[2],
                            nth(a, i), a->strides[2], nth(b, i), b->strides[2], err);
  return rc;
}

/* One ormqr or unmqr of matrix i (or, with i < 0, its workspace query into *lwork). */
static cusolverStatus_t ormqr_one(const ctx *c, bool adjoint, const dlx_tensor *q,
                                  const dlx_tensor *tau, const dlx_tensor *cm, int64_t i,
                                  void *work, int *lwork, int *info) {
  int64_t at = i < 0 ? 0 : i;
  bool cx = q->dtype == DLX_COMPLEX64 || q->dtype == DLX_COMPLEX128;
  cublasOperation_t op = !adjoint ? CUBLAS_OP_N : cx ? CUBLAS_OP_C : CUBLAS_OP_T;
  int m = (int)cm->shape[1], n = (int)cm->shape[2], k = (int)q->shape[2];
  int lda = (int)q->strides[2], ldc = (int)cm->strides[2];
#define DLX_ORMQR_ARGS(T)                                                                          \
  c->h, CUBLAS_SIDE_LEFT, op, m, n, k, (const T *)nth(q, at), lda, (const T *)nth(tau, at),        \
      (T *)nth(cm, at), ldc
#define DLX_ORMQR_CALL(T, name)                                                                    \
  (i < 0 ? api.name##_bufferSize(DLX_ORMQR_ARGS(T), lwork)                                         \
         : api.name(DLX_ORMQR_ARGS(T), (T *)work, *lwork, info))
  switch (q->dtype) {
  case DLX_FLOAT32:
    return DLX_ORMQR_CALL(float, cusolverDnSormqr);
  case DLX_FLOAT64:
    return DLX_ORMQR_CALL(double, cusolverDnDormqr);
  case DLX_COMPLEX64:
    return DLX_ORMQR_CALL(cuComplex, cusolverDnCunmqr);
  default:
    return DLX_ORMQR_CALL(cuDoubleComplex, cusolverDnZunmqr);
  }
#undef DLX_ORMQR_CALL
#undef DLX_ORMQR_ARGS
}

/* ormqr and unmqr have only the 32-bit API (the entry checked the sizes). */
static int s_ormqr(void *opaque, bool adjoint, const dlx_tensor *q, const dlx_tensor *tau,
                   const dlx_tensor *cm, dlx_error *err) {
  const ctx *c = opaque;
  int64_t count = q->shape[0];
  int lwork = 0;
  scratch s;
  cusolverStatus_t st = ormqr_one(c, adjoint, q, tau, cm, -1, NULL, &lwork, NULL);
  if (st != CUSOLVER_STATUS_SUCCESS) return solver_fail(err, st, "cusolverDn?ormqr_bufferSize");
  int rc = take(c, &s, count, (size_t)lwork * item(q), 0, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < count && st == CUSOLVER_STATUS_SUCCESS; i++)
    st = ormqr_one(c, adjoint, q, tau, cm, i, s.device, &lwork, s.infos + i);
  if (st != CUSOLVER_STATUS_SUCCESS) rc = solver_fail(err, st, "cusolverDn?ormqr");
  return give_back(c, &s, count, NULL, "cusolverDn?ormqr", rc, err);
}

/* geev: right eigenvectors only (cuSOLVER computes no left ones), every data type the matrix's
 * (a real w then holds the real parts and then the imaginary ones, as linalg_plan.h says). */
static int s_geev(void *opaque, const dlx_tensor *a, const dlx_tensor *w, const dlx_tensor *v,
                  int32_t *info, dlx_error *err) {
  const ctx *c = opaque;
  int64_t count = a->shape[0], n = a->shape[1], lda = a->strides[2];
  int64_t ldv = v != NULL ? v->strides[2] : n;
  cusolverEigMode_t jobvr = v != NULL ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  cudaDataType t = type_of(a->dtype);
  size_t dev = 0, host = 0;
  scratch s;
  cusolverStatus_t st = api.cusolverDnXgeev_bufferSize(
      c->h, c->params, CUSOLVER_EIG_MODE_NOVECTOR, jobvr, n, t, nth(a, 0), lda, t, nth(w, 0), t,
      NULL, 1, t, v != NULL ? nth(v, 0) : NULL, ldv, t, &dev, &host);
  if (st != CUSOLVER_STATUS_SUCCESS) return solver_fail(err, st, "cusolverDnXgeev_bufferSize");
  int rc = take(c, &s, count, dev, host, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < count && st == CUSOLVER_STATUS_SUCCESS; i++)
    st = api.cusolverDnXgeev(c->h, c->params, CUSOLVER_EIG_MODE_NOVECTOR, jobvr, n, t, nth(a, i),
                             lda, t, nth(w, i), t, NULL, 1, t, v != NULL ? nth(v, i) : NULL, ldv, t,
                             s.device, dev, s.host, host, s.infos + i);
  if (st != CUSOLVER_STATUS_SUCCESS) rc = solver_fail(err, st, "cusolverDnXgeev");
  return give_back(c, &s, count, info, "cusolverDnXgeev", rc, err);
}

/* ---- cuBLAS's batched LU routines (blas.c): address arrays, int32 pivots, device infos */

static int s_getrf_batched(void *opaque, const dlx_tensor *a, const dlx_tensor *ipiv, int32_t *info,
                           dlx_error *err) {
  const ctx *c = opaque;
  int64_t count = a->shape[0];
  void **arr;
  scratch s;
  int rc = pointer_array(c, a, &arr, err);
  if (rc != 0) return rc;
  rc = take(c, &s, count, 0, 0, err);
  if (rc == 0) {
    rc = dlx_cuda_blas_getrf_batched(c->id, a->dtype, (int)a->shape[1], arr, (int)a->strides[2],
                                     (int *)nth(ipiv, 0), s.infos, (int)count, err);
    rc = give_back(c, &s, count, info, "cublas?getrfBatched", rc, err);
  }
  dlx_cuda_pool_free(c->id, arr);
  return rc;
}

static int s_getrs_batched(void *opaque, const dlx_tensor *a, const dlx_tensor *ipiv,
                           const dlx_tensor *b, dlx_error *err) {
  const ctx *c = opaque;
  void **arr, **barr;
  int rc = pointer_array(c, a, &arr, err);
  if (rc != 0) return rc;
  rc = pointer_array(c, b, &barr, err);
  if (rc == 0) {
    rc = dlx_cuda_blas_getrs_batched(c->id, a->dtype, (int)a->shape[1], (int)b->shape[2], arr,
                                     (int)a->strides[2], (const int *)nth(ipiv, 0), barr,
                                     (int)b->strides[2], (int)a->shape[0], err);
    dlx_cuda_pool_free(c->id, barr);
  }
  dlx_cuda_pool_free(c->id, arr);
  return rc;
}

static int s_matinv_batched(void *opaque, const dlx_tensor *a, const dlx_tensor *out, int32_t *info,
                            dlx_error *err) {
  const ctx *c = opaque;
  int64_t count = a->shape[0];
  void **arr, **oarr;
  scratch s;
  int rc = pointer_array(c, a, &arr, err);
  if (rc != 0) return rc;
  rc = pointer_array(c, out, &oarr, err);
  if (rc == 0) {
    rc = take(c, &s, count, 0, 0, err);
    if (rc == 0) {
      rc = dlx_cuda_blas_matinv_batched(c->id, a->dtype, (int)a->shape[1], arr, (int)a->strides[2],
                                        oarr, (int)out->strides[2], s.infos, (int)count, err);
      rc = give_back(c, &s, count, info, "cublas?matinvBatched", rc, err);
    }
    dlx_cuda_pool_free(c->id, oarr);
  }
  dlx_cuda_pool_free(c->id, arr);
  return rc;
}

/* ---- the entry */

static bool fits_int(int64_t v) { return v >= 0 && v <= INT32_MAX; }

/* The solver of context c: the batched cuBLAS routines only with cuBLAS, geev only where the
 * library has it (the plan then says what is missing). */
static dlx_cuda_solver solver_of(ctx *c, bool blas) {
  dlx_cuda_solver s = {.ctx = c,
                       .getrf = s_getrf,
                       .getrs = s_getrs,
                       .potrf = s_potrf,
                       .geqrf = s_geqrf,
                       .orgqr = s_orgqr,
                       .ormqr = s_ormqr,
                       .gesvd = s_gesvd,
                       .syevd = s_syevd,
                       .geev = has_geev() ? s_geev : NULL,
                       .trsm = s_trsm,
                       .getrf_batched = blas ? s_getrf_batched : NULL,
                       .getrs_batched = blas ? s_getrs_batched : NULL,
                       .matinv_batched = blas ? s_matinv_batched : NULL};
  return s;
}

/* cuBLAS: needed for trsm (solve_triangular, lstsq), used by the batched LU routines when it
 * loads. */
static int load_blas(const dlx_linalg_request *r, bool *blas, dlx_error *err) {
  dlx_error blas_err;
  *blas = dlx_cuda_blas_load(&blas_err) == 0;
  if (*blas || (r->op != DLX_LINALG_TRIANGULAR && r->op != DLX_LINALG_LSTSQ)) return 0;
  if (err != NULL) *err = blas_err;
  return blas_err.code;
}

int dlx_cuda_linalg_tensor(dlx_linalg_request *r, dlx_error *err) {
  int32_t id = r->a->buffer->device.device_id;
  dlx_cuda_solver solver;
  dlx_cuda_guard guard;
  ctx c;
  void *pair;
  bool blas = false;
  cusolverStatus_t st;
  int rc;
  if (!fits_int(r->m) || !fits_int(r->n) || !fits_int(r->k) || !fits_int(r->m * r->n) ||
      !fits_int(r->k * (r->m > r->n ? r->m : r->n)))
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: matrices of %lld x %lld are too large for cuSOLVER",
                    r->name, (long long)r->m, (long long)r->n);
  rc = dlx_cuda_solver_load(err);
  if (rc == 0) rc = load_blas(r, &blas, err);
  if (rc != 0) return rc;
  rc = dlx_cuda_enter(id, &guard, err);
  if (rc != 0) return rc;
  c.id = id;
  c.stream = dlx_cuda_current_stream(id);
  rc = dlx_cuda_thread_handle(&handles, id, &pair, err);
  if (rc == 0) {
    c.h = ((handle_pair *)pair)->h;
    c.params = ((handle_pair *)pair)->params;
    st = api.cusolverDnSetStream(c.h, c.stream);
    if (st != CUSOLVER_STATUS_SUCCESS) rc = solver_fail(err, st, "cusolverDnSetStream");
  }
  if (rc == 0) {
    solver = solver_of(&c, blas);
    rc = dlx_cuda_linalg_run(r, &solver, err);
  }
  dlx_cuda_leave(&guard);
  return rc;
}
