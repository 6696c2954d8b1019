/* random.c -- random numbers: generator state, request checks, dispatch to fill_random, randperm
 * (see random.h). */
#include "core/random.h"

#include <math.h>
#include <stdlib.h>

#include "common/philox.h"
#include "core/device.h"
#include "core/ops.h"

_Static_assert(DLX_RANDOM_UNIFORM == DLX_RNG_UNIFORM && DLX_RANDOM_NORMAL == DLX_RNG_NORMAL &&
                   DLX_RANDOM_INT == DLX_RNG_INT,
               "dlx_random_kind numbers the kinds as philox.h does");

void dlx_generator_seed(dlx_generator *g, uint64_t seed) {
  g->seed = seed;
  g->offset = 0;
}

int dlx_random_float_bits(dlx_dtype dtype) {
  switch (dtype) {
  case DLX_FLOAT16:
    return 11;
  case DLX_BFLOAT16:
    return 8;
  case DLX_FLOAT32:
    return 24;
  case DLX_FLOAT64:
    return 53;
  default:
    return 0;
  }
}

/* The smallest and largest values of an integer dtype. */
static void int_bounds(dlx_dtype dtype, int64_t *lo, uint64_t *hi) {
  int bits = dlx_dtype_bits(dtype);
  bool is_signed = dlx_dtype_kind(dtype) == DLX_KIND_INT;
  /* -2^(bits-1) without negating INT64_MIN for int64 */
  *lo = is_signed ? -(int64_t)((UINT64_C(1) << (bits - 1)) - 1) - 1 : 0;
  *hi = is_signed ? (UINT64_C(1) << (bits - 1)) - 1
                  : (bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1);
}

static bool is_integer(dlx_dtype dtype) {
  dlx_kind kind = dlx_dtype_kind(dtype);
  return kind == DLX_KIND_INT || kind == DLX_KIND_UINT;
}

/* The checks of the kind's parameters against t's dtype. */
static int check_request(const dlx_tensor *t, const dlx_random_request *r, const char *name,
                         dlx_error *err) {
  const char *dtype = dlx_dtype_info_of(t->dtype)->name;
  if (r->kind == DLX_RANDOM_INT) {
    int64_t lo;
    uint64_t hi, last = (uint64_t)r->low + (r->range - 1);
    if (!is_integer(t->dtype))
      return dlx_fail(err, DLX_TYPE_ERROR, "%s: dtype %s is not an integer dtype", name, dtype);
    int_bounds(t->dtype, &lo, &hi);
    if (r->low < lo || (lo < 0 ? (int64_t)last > (int64_t)hi : last > hi))
      return dlx_fail(err, DLX_VALUE_ERROR, "%s: [%lld, %lld] does not fit in %s", name,
                      (long long)r->low, (long long)last, dtype);
    return 0;
  }
  if (dlx_random_float_bits(t->dtype) == 0)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: dtype %s is not a float dtype", name, dtype);
  if (r->kind == DLX_RANDOM_UNIFORM && !(isfinite(r->a) && isfinite(r->b) && r->a <= r->b))
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: needs finite a <= b, got a = %g and b = %g", name,
                    r->a, r->b);
  if (r->kind == DLX_RANDOM_NORMAL && !(isfinite(r->a) && isfinite(r->b) && r->b >= 0))
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "%s: needs a finite mean and a finite std >= 0, got mean = %g and std = %g",
                    name, r->a, r->b);
  return 0;
}

/* Blocks a request of n elements uses: ceil(n / L). */
static uint64_t blocks_used(const dlx_tensor *t, const dlx_random_request *r, int64_t n) {
  int wide = r->kind == DLX_RANDOM_INT ? dlx_rng_int_wide(r->range) : t->dtype == DLX_FLOAT64;
  uint64_t lanes = (uint64_t)dlx_rng_lanes(wide);
  return ((uint64_t)n + lanes - 1) / lanes;
}

/* The backend that computes on t's memory fills it. */
static int run_fill_random(const dlx_tensor *t, const dlx_random_request *r, dlx_error *err) {
  const dlx_backend *backend;
  int rc = dlx_compute_on(t, &backend, err);
  return rc != 0 ? rc : backend->fill_random(t, r, err);
}

int dlx_random_fill(dlx_generator *g, const dlx_tensor *t, dlx_random_request *r, const char *name,
                    dlx_error *err) {
  int64_t n = dlx_tensor_numel(t);
  int rc = dlx_buffer_check(t->buffer, err);
  if (rc == 0) rc = dlx_check_writable(t, err);
  if (rc == 0) rc = check_request(t, r, name, err);
  if (rc != 0) return rc;
  if (dlx_compute_backend(t->buffer)->fill_random == NULL)
    return dlx_not_implemented(err, name, t->buffer->device);
  if (n == 0) return 0;
  r->seed = g->seed;
  r->offset = g->offset;
  if (dlx_tensor_is_contiguous(t)) {
    rc = run_fill_random(t, r, err);
  } else { /* a strided view: element i is still the i-th in row-major order */
    dlx_tensor tmp;
    rc = dlx_tensor_empty_memory(&tmp, t->shape, t->ndim, t->dtype, t->buffer->device,
                                 dlx_tensor_memory(t), err);
    if (rc != 0) return rc;
    rc = run_fill_random(&tmp, r, err);
    if (rc == 0) rc = dlx_copy(t, &tmp, err);
    dlx_tensor_close(&tmp);
  }
  if (rc == 0) g->offset += blocks_used(t, r, n);
  return rc;
}

uint64_t dlx_randperm_host(int64_t *perm, int64_t n, uint64_t seed, uint64_t offset) {
  for (int64_t i = 0; i < n; i++) perm[i] = i + 1;
  for (int64_t i = n - 1; i >= 1; i--) {
    dlx_philox_block b = dlx_philox_at(seed, offset + (uint64_t)i / 2);
    uint64_t x = dlx_rng_u64(b, (int)(i % 2));
    int64_t j = (int64_t)dlx_rng_mulhi64(x, (uint64_t)i + 1), swap = perm[i];
    perm[i] = perm[j];
    perm[j] = swap;
  }
  return ((uint64_t)n + 1) / 2;
}

int dlx_randperm(dlx_tensor *out, dlx_generator *g, int64_t n, dlx_dtype dtype, DLDevice device,
                 dlx_memory memory, dlx_error *err) {
  dlx_tensor host;
  int64_t lo;
  uint64_t hi;
  int rc;
  if (!is_integer(dtype))
    return dlx_fail(err, DLX_TYPE_ERROR, "randperm: dtype %s is not an integer dtype",
                    dlx_dtype_info_of(dtype)->name);
  if (n < 0)
    return dlx_fail(err, DLX_VALUE_ERROR, "randperm: n must be >= 0, got %lld", (long long)n);
  int_bounds(dtype, &lo, &hi);
  if ((uint64_t)n > hi)
    return dlx_fail(err, DLX_VALUE_ERROR, "randperm: n = %lld does not fit in %s", (long long)n,
                    dlx_dtype_info_of(dtype)->name);
  rc = dlx_tensor_empty(&host, &n, 1, DLX_INT64, (DLDevice){kDLCPU, 0}, err);
  if (rc != 0) return rc;
  g->offset += dlx_randperm_host((int64_t *)host.buffer->data, n, g->seed, g->offset);
  rc = dlx_clone_as_memory(out, &host, dtype, device, memory, err);
  dlx_tensor_close(&host);
  return rc;
}
