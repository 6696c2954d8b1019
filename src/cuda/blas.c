/* blas.c -- the matmul entry of a CUDA device through cuBLAS, loaded at run time, and the cuBLAS
 * routines of the decompositions (solver.c): trsm and the batched LU routines (getrfBatched,
 * getrsBatched, matinvBatched).
 *
 * The library. cuBLAS is opened with dlopen at the first product on a CUDA device, never linked:
 * dlx/core.so loads on machines without it, and there a product says "cuBLAS not found". The
 * names tried are $DLX_CUBLAS_LIBRARY alone when it is set (a path or a soname), else
 * libcublas.so.13, libcublas.so.12 and libcublas.so; the first that opens and has every function
 * below is used for the rest of the process. It is never closed (as the Level Zero loader): its
 * handles live until the process ends, and unloading it under another thread's call would crash.
 *
 * Handles. A cuBLAS handle may be shared by threads only if none changes its settings, and every
 * call here sets its stream and workspace, so each thread has its own handle per device
 * (handles.h: made on first use, taken over by a new thread when its thread ends, never
 * destroyed).
 *
 * Each call (the decompositions' too): cublasSetStream to the calling thread's current stream of
 * the device, a workspace from the caching allocator on that stream (32 MiB on sm_90 and later,
 * 4 MiB before: NVIDIA's recommendation; freed after the call is queued, so only later work on
 * that stream reuses it, and a stream never shares it with another; the handle keeps the
 * pointer, so every call sets its own), then for a product one cublasGemmStridedBatchedEx per
 * DLX_CUDA_GEMM_MAX_BATCH batch elements (blas_plan.h maps the request). The math mode is
 * CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION, set once per handle:
 * float32 in float32 unless the request allows TF32 (then CUBLAS_COMPUTE_32F_FAST_TF32), and
 * float16 and bfloat16 sums kept in float32 up to the single rounding into c. */
#include <cublas_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "cuda/blas.h"
#include "cuda/blas_plan.h"
#include "cuda/cuda_internal.h"
#include "cuda/handles.h"

_Static_assert(DLX_CUDA_HANDLE_DEVICES == DLX_CUDA_MAX_DEVICES, "handles.h counts devices alike");

_Static_assert(DLX_CUBLAS_OP_N == (int)CUBLAS_OP_N && DLX_CUBLAS_OP_T == (int)CUBLAS_OP_T &&
                   DLX_CUBLAS_OP_C == (int)CUBLAS_OP_C,
               "blas_plan.h's ops are cuBLAS's");
_Static_assert(DLX_CUDA_R_16F == (int)CUDA_R_16F && DLX_CUDA_R_16BF == (int)CUDA_R_16BF &&
                   DLX_CUDA_R_32F == (int)CUDA_R_32F && DLX_CUDA_R_64F == (int)CUDA_R_64F &&
                   DLX_CUDA_C_32F == (int)CUDA_C_32F && DLX_CUDA_C_64F == (int)CUDA_C_64F,
               "blas_plan.h's data types are CUDA's");
_Static_assert(DLX_CUBLAS_COMPUTE_32F == (int)CUBLAS_COMPUTE_32F &&
                   DLX_CUBLAS_COMPUTE_64F == (int)CUBLAS_COMPUTE_64F &&
                   DLX_CUBLAS_COMPUTE_32F_FAST_TF32 == (int)CUBLAS_COMPUTE_32F_FAST_TF32,
               "blas_plan.h's compute types are cuBLAS's");

/* The functions dlx uses, resolved with dlsym (the _v2 names are the ones cublas_v2.h maps
 * cublasCreate, ... to; cuBLAS 12 and 13 export them alike). */
#define DLX_CUBLAS_FUNCTIONS(X)                                                                    \
  X(cublasCreate_v2)                                                                               \
  X(cublasSetStream_v2)                                                                            \
  X(cublasSetWorkspace_v2)                                                                         \
  X(cublasSetMathMode)                                                                             \
  X(cublasGetStatusName)                                                                           \
  X(cublasGetStatusString)                                                                         \
  X(cublasGemmStridedBatchedEx)                                                                    \
  X(cublasStrsm_v2)                                                                                \
  X(cublasDtrsm_v2)                                                                                \
  X(cublasCtrsm_v2)                                                                                \
  X(cublasZtrsm_v2)                                                                                \
  X(cublasSgetrfBatched)                                                                           \
  X(cublasDgetrfBatched)                                                                           \
  X(cublasCgetrfBatched)                                                                           \
  X(cublasZgetrfBatched)                                                                           \
  X(cublasSgetrsBatched)                                                                           \
  X(cublasDgetrsBatched)                                                                           \
  X(cublasCgetrsBatched)                                                                           \
  X(cublasZgetrsBatched)                                                                           \
  X(cublasSmatinvBatched)                                                                          \
  X(cublasDmatinvBatched)                                                                          \
  X(cublasCmatinvBatched)                                                                          \
  X(cublasZmatinvBatched)

typedef struct cublas_api {
#define DLX_CUBLAS_POINTER(name) __typeof__(name) *name;
  DLX_CUBLAS_FUNCTIONS(DLX_CUBLAS_POINTER)
#undef DLX_CUBLAS_POINTER
} cublas_api;

static cublas_api api;
static bool api_ok;
static char api_error[sizeof(((dlx_error *)0)->message)];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

/* Resolves every function of the opened lib; false with api_error set otherwise. */
static bool resolve_functions(void *lib, const char *name) {
#define DLX_CUBLAS_RESOLVE(fn)                                                                     \
  *(void **)&api.fn = dlsym(lib, #fn);                                                             \
  if (api.fn == NULL) {                                                                            \
    snprintf(api_error, sizeof api_error, "%s has no %s (cuBLAS 11.0 or later is needed)", name,   \
             #fn);                                                                                 \
    return false;                                                                                  \
  }
  DLX_CUBLAS_FUNCTIONS(DLX_CUBLAS_RESOLVE)
#undef DLX_CUBLAS_RESOLVE
  return true;
}

static void load_library(void) {
  static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
  api_ok = dlx_cuda_load_library("DLX_CUBLAS_LIBRARY", names, sizeof names / sizeof names[0],
                                 resolve_functions, api_error, sizeof api_error);
}

int dlx_cuda_blas_load(dlx_error *err) {
  pthread_once(&api_once, load_library);
  if (api_ok) return 0;
  const char *chosen = getenv("DLX_CUBLAS_LIBRARY");
  if (chosen != NULL && chosen[0] != '\0')
    return dlx_fail(err, DLX_DEVICE_ERROR,
                    "cuBLAS not found: DLX_CUBLAS_LIBRARY=%s does not load (%s); matrix products "
                    "on CUDA devices need it",
                    chosen, api_error);
  return dlx_fail(err, DLX_DEVICE_ERROR,
                  "cuBLAS not found (libcublas.so.13 or .12, the CUDA toolkit's or pip's "
                  "nvidia-cublas; or name it in DLX_CUBLAS_LIBRARY): %s; matrix products on CUDA "
                  "devices need it",
                  api_error);
}

/* A failed cuBLAS call: MemoryError when it could not allocate, DeviceError otherwise. */
static int blas_fail(dlx_error *err, cublasStatus_t status, const char *what) {
  dlx_errclass code = status == CUBLAS_STATUS_ALLOC_FAILED ? DLX_MEMORY_ERROR : DLX_DEVICE_ERROR;
  return dlx_fail(err, code, "%s failed: %s (%s)", what, api.cublasGetStatusString(status),
                  api.cublasGetStatusName(status));
}

/* ---- handles (handles.h): one per thread and device */

static int create_handle(void **out, dlx_error *err) {
  cublasHandle_t h;
  cublasStatus_t status = api.cublasCreate_v2(&h);
  if (status != CUBLAS_STATUS_SUCCESS) return blas_fail(err, status, "cublasCreate");
  status = api.cublasSetMathMode(
      h, (cublasMath_t)(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
  if (status != CUBLAS_STATUS_SUCCESS) return blas_fail(err, status, "cublasSetMathMode");
  *out = h;
  return 0;
}

static dlx_cuda_handles handles = DLX_CUDA_HANDLES(create_handle);

/* The calling thread's handle for device_id (current), set to its current stream. */
static int thread_handle(int32_t device_id, cudaStream_t stream, cublasHandle_t *out,
                         dlx_error *err) {
  void *h;
  cublasStatus_t status;
  int rc = dlx_cuda_thread_handle(&handles, device_id, &h, err);
  if (rc != 0) return rc;
  status = api.cublasSetStream_v2((cublasHandle_t)h, stream);
  if (status != CUBLAS_STATUS_SUCCESS) return blas_fail(err, status, "cublasSetStream");
  *out = (cublasHandle_t)h;
  return 0;
}

/* ---- the workspace */

static size_t workspace_size(int32_t device_id) {
  static atomic_int majors[DLX_CUDA_MAX_DEVICES]; /* compute capability major; 0: not asked */
  int major = atomic_load(&majors[device_id]);
  if (major == 0) {
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device_id) !=
        cudaSuccess) {
      (void)cudaGetLastError();
      major = 1;
    }
    atomic_store(&majors[device_id], major);
  }
  return (size_t)(major >= 9 ? 32 : 4) << 20;
}

/* Gives h a workspace for the calls about to be queued on stream, from the caching allocator:
 * *workspace, which the caller frees once they are queued (stream-ordered: only later work on
 * that stream reuses it). Every entry sets its own: the handle keeps the last pointer it was
 * given, freed since. Without memory for one, none (cuBLAS then picks algorithms that need
 * none). */
static int use_workspace(int32_t device_id, cudaStream_t stream, cublasHandle_t h, void **workspace,
                         dlx_error *err) {
  dlx_error ignored;
  size_t size = workspace_size(device_id);
  cublasStatus_t status;
  *workspace = dlx_cuda_pool_alloc(device_id, size, stream, &ignored);
  if (*workspace == NULL) size = 0;
  status = api.cublasSetWorkspace_v2(h, *workspace, size);
  if (status == CUBLAS_STATUS_SUCCESS) return 0;
  if (*workspace != NULL) dlx_cuda_pool_free(device_id, *workspace);
  *workspace = NULL;
  return blas_fail(err, status, "cublasSetWorkspace");
}

/* ---- the entry */

static int gemm(const dlx_cuda_gemm *g, void *handle, dlx_error *err) {
  cublasStatus_t status = api.cublasGemmStridedBatchedEx(
      (cublasHandle_t)handle, (cublasOperation_t)g->transa, (cublasOperation_t)g->transb, (int)g->m,
      (int)g->n, (int)g->k, &g->alpha, g->a, (cudaDataType)g->data_type, (int)g->lda,
      (long long)g->stride_a, g->b, (cudaDataType)g->data_type, (int)g->ldb, (long long)g->stride_b,
      &g->beta, g->c, (cudaDataType)g->data_type, (int)g->ldc, (long long)g->stride_c,
      (int)g->batch, (cublasComputeType_t)g->compute_type, CUBLAS_GEMM_DEFAULT);
  return status == CUBLAS_STATUS_SUCCESS ? 0 : blas_fail(err, status, "cublasGemmStridedBatchedEx");
}

static int no_product(const dlx_matmul_request *r, dlx_error *err) {
  char device[32];
  return dlx_fail(err, DLX_TYPE_ERROR,
                  "matmul: %s has no %s matrix product (cuBLAS multiplies float16, bfloat16, "
                  "float32, float64, complex64 and complex128 matrices)",
                  dlx_device_format(r->c.buffer->device, device, sizeof device),
                  dlx_dtype_info_of(r->dtype)->name);
}

int dlx_cuda_matmul_tensor(const dlx_matmul_request *request, dlx_error *err) {
  int32_t id = request->c.buffer->device.device_id;
  dlx_matmul_request r = *request;
  dlx_tensor holders[2];
  bool held[2] = {false, false};
  dlx_cuda_guard guard;
  cublasHandle_t h = NULL;
  cudaStream_t stream;
  void *workspace = NULL;
  int rc;
  if (!dlx_cuda_gemm_has_dtype(r.dtype)) return no_product(&r, err);
  rc = dlx_cuda_blas_load(err);
  if (rc != 0) return rc;
  if (r.k == 0) return dlx_cuda_gemm_empty_inner(&r, err);
  rc = dlx_cuda_enter(id, &guard, err);
  if (rc != 0) return rc;
  stream = dlx_cuda_current_stream(id);
  rc = thread_handle(id, stream, &h, err);
  if (rc == 0) rc = use_workspace(id, stream, h, &workspace, err);
  if (rc == 0) rc = dlx_cuda_gemm_run(&r, DLX_CUDA_GEMM_MAX_BATCH, gemm, h, holders, held, err);
  /* stream-ordered: later work on this stream is the only one that reuses these blocks */
  if (workspace != NULL) dlx_cuda_pool_free(id, workspace);
  for (int i = 0; i < 2; i++)
    if (held[i]) dlx_tensor_close(&holders[i]);
  dlx_cuda_leave(&guard);
  return rc;
}

/* ---- trsm and the batched LU routines, for the decompositions (solver.c) */

/* The calling thread's handle for device_id (current) on its current stream, with a workspace
 * (use_workspace) that finish() frees once the call is queued. */
typedef struct session {
  int32_t id;
  cublasHandle_t h;
  void *workspace;
} session;

static int start(int32_t device_id, session *s, dlx_error *err) {
  cudaStream_t stream = dlx_cuda_current_stream(device_id);
  int rc = dlx_cuda_blas_load(err);
  s->id = device_id;
  s->h = NULL;
  s->workspace = NULL;
  if (rc == 0) rc = thread_handle(device_id, stream, &s->h, err);
  if (rc == 0) rc = use_workspace(device_id, stream, s->h, &s->workspace, err);
  return rc;
}

static int finish(session *s, cublasStatus_t status, const char *what, dlx_error *err) {
  if (s->workspace != NULL) dlx_cuda_pool_free(s->id, s->workspace);
  return status == CUBLAS_STATUS_SUCCESS ? 0 : blas_fail(err, status, what);
}

/* One call of the cuBLAS routine name for dtype: cublasS<name>, D, C or Z, the pointers cast to
 * T (float, double, cuComplex, cuDoubleComplex) by the ARGS(T) macro of the caller. */
#define DLX_BY_DTYPE(status, dtype, name, ARGS)                                                    \
  switch (dtype) {                                                                                 \
  case DLX_FLOAT32:                                                                                \
    status = api.cublasS##name(ARGS(float));                                                       \
    break;                                                                                         \
  case DLX_FLOAT64:                                                                                \
    status = api.cublasD##name(ARGS(double));                                                      \
    break;                                                                                         \
  case DLX_COMPLEX64:                                                                              \
    status = api.cublasC##name(ARGS(cuComplex));                                                   \
    break;                                                                                         \
  default:                                                                                         \
    status = api.cublasZ##name(ARGS(cuDoubleComplex));                                             \
  }

int dlx_cuda_blas_trsm(int32_t device_id, dlx_dtype dtype, bool upper, bool adjoint, bool unit,
                       int64_t n, int64_t k, const void *a, int64_t lda, void *b, int64_t ldb,
                       dlx_error *err) {
  static const float one_f[2] = {1, 0};
  static const double one_d[2] = {1, 0};
  const void *one = dtype == DLX_FLOAT32 || dtype == DLX_COMPLEX64 ? (const void *)one_f : one_d;
  cublasFillMode_t fill = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  cublasOperation_t op = adjoint ? CUBLAS_OP_C : CUBLAS_OP_N; /* C is T for real matrices */
  cublasDiagType_t diag = unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
  session ss;
  cublasStatus_t status;
  int rc = start(device_id, &ss, err);
  if (rc != 0) return rc;
#define DLX_TRSM_ARGS(T)                                                                           \
  ss.h, CUBLAS_SIDE_LEFT, fill, op, diag, (int)n, (int)k, (const T *)one, (const T *)a, (int)lda,  \
      (T *)b, (int)ldb
  DLX_BY_DTYPE(status, dtype, trsm_v2, DLX_TRSM_ARGS)
#undef DLX_TRSM_ARGS
  return finish(&ss, status, "cublas?trsm", err);
}

int dlx_cuda_blas_getrf_batched(int32_t device_id, dlx_dtype dtype, int n, void *const *a, int lda,
                                int *ipiv, int *info, int count, dlx_error *err) {
  session ss;
  cublasStatus_t status;
  int rc = start(device_id, &ss, err);
  if (rc != 0) return rc;
#define DLX_GETRF_ARGS(T) ss.h, n, (T *const *)a, lda, ipiv, info, count
  DLX_BY_DTYPE(status, dtype, getrfBatched, DLX_GETRF_ARGS)
#undef DLX_GETRF_ARGS
  return finish(&ss, status, "cublas?getrfBatched", err);
}

int dlx_cuda_blas_getrs_batched(int32_t device_id, dlx_dtype dtype, int n, int k, void *const *a,
                                int lda, const int *ipiv, void *const *b, int ldb, int count,
                                dlx_error *err) {
  session ss;
  cublasStatus_t status;
  int info = 0; /* on the host: only an argument refused */
  int rc = start(device_id, &ss, err);
  if (rc != 0) return rc;
#define DLX_GETRS_ARGS(T)                                                                          \
  ss.h, CUBLAS_OP_N, n, k, (const T *const *)a, lda, ipiv, (T *const *)b, ldb, &info, count
  DLX_BY_DTYPE(status, dtype, getrsBatched, DLX_GETRS_ARGS)
#undef DLX_GETRS_ARGS
  rc = finish(&ss, status, "cublas?getrsBatched", err);
  if (rc == 0 && info < 0)
    return dlx_fail(err, DLX_DEVICE_ERROR, "cublas?getrsBatched refused its argument %d", -info);
  return rc;
}

int dlx_cuda_blas_matinv_batched(int32_t device_id, dlx_dtype dtype, int n, void *const *a, int lda,
                                 void *const *out, int ldo, int *info, int count, dlx_error *err) {
  session ss;
  cublasStatus_t status;
  int rc = start(device_id, &ss, err);
  if (rc != 0) return rc;
#define DLX_MATINV_ARGS(T) ss.h, n, (const T *const *)a, lda, (T *const *)out, ldo, info, count
  DLX_BY_DTYPE(status, dtype, matinvBatched, DLX_MATINV_ARGS)
#undef DLX_MATINV_ARGS
  return finish(&ss, status, "cublas?matinvBatched", err);
}
