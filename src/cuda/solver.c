/* solver.c -- the linalg entry of a CUDA device (dlx.linalg's decompositions) through cuSOLVER,
 * loaded at run time like cuBLAS (blas.c): $DLX_CUSOLVER_LIBRARY when set, else
 * libcusolver.so.12 (CUDA 13's), libcusolver.so.11 (CUDA 12's) and libcusolver.so, once per
 * process, never closed; without it a decomposition on a CUDA device is the DeviceError
 * "cuSOLVER not found". linalg_plan.h turns each request into the solver calls below and dlx's
 * own ops; this file is the solver: cuSOLVER's 64-bit API (cusolverDnXgetrf, Xgetrs, Xpotrf,
 * Xgeqrf, Xgesvd, Xsyevd), its legacy orgqr/ungqr, cuBLAS's trsm, and the batched routines where
 * cuSOLVER has them (potrfBatched for a batch of matrices up to 64 x 64, XsyevBatched for a
 * batch of Hermitian matrices up to 32 x 32, when the library has them); the others loop over
 * the batch, one call a matrix, all queued on the calling thread's current stream with one
 * workspace.
 *
 * Each thread has its own cuSOLVER handle and parameters per device (handles.h), set to its
 * current stream before every request. The infos of the matrices (devInfo) are copied back to
 * the host where the plan needs them (a singular, non positive definite or non-converging
 * matrix is the request's failure, the core's LinAlgError, as on the CPU), which waits for the
 * stream. eig and lstsq have no mapping yet: a DeviceError, as for a device without the entry. */
#include <cusolverDn.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "cuda/blas.h"
#include "cuda/cuda_internal.h"
#include "cuda/handles.h"
#include "cuda/linalg_plan.h"
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
  X(cusolverDnZungqr)
/* Used when the library has them (cuSOLVER 11.7 and later for XsyevBatched). */
#define DLX_CUSOLVER_OPTIONAL(X)                                                                   \
  X(cusolverDnSpotrfBatched)                                                                       \
  X(cusolverDnDpotrfBatched)                                                                       \
  X(cusolverDnCpotrfBatched)                                                                       \
  X(cusolverDnZpotrfBatched)                                                                       \
  X(cusolverDnXsyevBatched_bufferSize)                                                             \
  X(cusolverDnXsyevBatched)

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

int dlx_cuda_solver_batched(void) {
  return (api_ok && api.cusolverDnSpotrfBatched != NULL && api.cusolverDnDpotrfBatched != NULL &&
                  api.cusolverDnCpotrfBatched != NULL && api.cusolverDnZpotrfBatched != NULL
              ? 1
              : 0) |
         (api_ok && api.cusolverDnXsyevBatched != NULL ? 2 : 0);
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

/* potrfBatched: an array of the matrices' addresses on the device. */
static int potrf_batched(const ctx *c, cublasFillMode_t fill, const dlx_tensor *a, scratch *s,
                         dlx_error *err) {
  int64_t count = a->shape[0];
  int n = (int)a->shape[1], lda = (int)a->strides[2];
  void **host = malloc((size_t)count * sizeof *host), **dev;
  cusolverStatus_t st;
  int rc;
  if (host == NULL) return dlx_fail(err, DLX_MEMORY_ERROR, "no memory for potrfBatched's array");
  for (int64_t i = 0; i < count; i++) host[i] = nth(a, i);
  dev = dlx_cuda_pool_alloc(c->id, (size_t)count * sizeof *dev, c->stream, err);
  rc = dev == NULL
           ? DLX_MEMORY_ERROR
           : dlx_cuda_copy_bytes_host(c->id, dev, host, (size_t)count * sizeof *dev, true, err);
  free(host);
  if (rc != 0) {
    if (dev != NULL) dlx_cuda_pool_free(c->id, dev);
    return rc;
  }
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

static int s_trsm(void *opaque, bool upper, bool unit, const dlx_tensor *a, const dlx_tensor *b,
                  dlx_error *err) {
  const ctx *c = opaque;
  int rc = 0;
  for (int64_t i = 0; i < a->shape[0] && rc == 0; i++)
    rc = dlx_cuda_blas_trsm(c->id, a->dtype, upper, unit, a->shape[1], b->shape[2], nth(a, i),
                            a->strides[2], nth(b, i), b->strides[2], err);
  return rc;
}

/* ---- the entry */

static bool fits_int(int64_t v) { return v >= 0 && v <= INT32_MAX; }

int dlx_cuda_linalg_tensor(dlx_linalg_request *r, dlx_error *err) {
  DLDevice device = r->a->buffer->device;
  int32_t id = device.device_id;
  dlx_cuda_solver solver = {NULL,    s_getrf, s_getrs, s_potrf, s_geqrf,
                            s_orgqr, s_gesvd, s_syevd, s_trsm};
  dlx_cuda_guard guard;
  ctx c;
  void *pair;
  cusolverStatus_t st;
  int rc;
  if (r->op == DLX_LINALG_EIG || r->op == DLX_LINALG_LSTSQ) {
    size_t len;
    dlx_not_implemented(err, r->name, device);
    len = strlen(err->message);
    snprintf(err->message + len, sizeof err->message - len,
             ": move the tensor to the CPU first (t:to(\"cpu\")) and back after");
    return DLX_DEVICE_ERROR;
  }
  if (!fits_int(r->m) || !fits_int(r->n) || !fits_int(r->k) || !fits_int(r->m * r->n))
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: matrices of %lld x %lld are too large for cuSOLVER",
                    r->name, (long long)r->m, (long long)r->n);
  rc = dlx_cuda_solver_load(err);
  if (rc == 0 && r->op == DLX_LINALG_TRIANGULAR) rc = dlx_cuda_blas_load(err);
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
    solver.ctx = &c;
    rc = dlx_cuda_linalg_run(r, &solver, err);
  }
  dlx_cuda_leave(&guard);
  return rc;
}
