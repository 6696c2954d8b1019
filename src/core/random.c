/* random.c -- random numbers: generator state, request checks, dispatch to fill_random, randperm
 * (see random.h). */
#include "core/random.h"

#include <math.h>
#include <stdlib.h>

#include "common/distributions.h"
#include "core/device.h"
#include "core/ops.h"

_Static_assert(DLX_RANDOM_UNIFORM == DLX_RNG_UNIFORM && DLX_RANDOM_NORMAL == DLX_RNG_NORMAL &&
                   DLX_RANDOM_INT == DLX_RNG_INT && DLX_RANDOM_BERNOULLI == DLX_RNG_BERNOULLI &&
                   DLX_RANDOM_EXPONENTIAL == DLX_RNG_EXPONENTIAL &&
                   DLX_RANDOM_CAUCHY == DLX_RNG_CAUCHY &&
                   DLX_RANDOM_LOG_NORMAL == DLX_RNG_LOG_NORMAL &&
                   DLX_RANDOM_GEOMETRIC == DLX_RNG_GEOMETRIC &&
                   DLX_RANDOM_POISSON == DLX_RNG_POISSON,
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

int dlx_random_lanes(dlx_random_kind kind, dlx_dtype dtype, uint64_t range) {
  switch (kind) {
  case DLX_RANDOM_INT:
    return dlx_rng_lanes(dlx_rng_int_wide(range));
  case DLX_RANDOM_BERNOULLI:
    return 2;
  case DLX_RANDOM_POISSON:
    return 1;
  case DLX_RANDOM_GEOMETRIC:
    return dlx_rng_lanes(dlx_itemsize(dtype) == 8);
  default:
    return dlx_rng_lanes(dtype == DLX_FLOAT64);
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

/* bool, the integers and the float dtypes random numbers are made in. */
static bool is_real(dlx_dtype dtype) {
  return dtype == DLX_BOOL || is_integer(dtype) || dlx_random_float_bits(dtype) != 0;
}

/* The dtypes a kind fills, in words, for messages. */
static const char *kind_dtypes(dlx_random_kind kind) {
  switch (kind) {
  case DLX_RANDOM_INT:
    return "an integer, float or bool";
  case DLX_RANDOM_BERNOULLI:
  case DLX_RANDOM_GEOMETRIC:
    return "a bool, integer or float";
  default:
    return "a float";
  }
}

static bool dtype_fits_kind(dlx_random_kind kind, dlx_dtype dtype) {
  switch (kind) {
  case DLX_RANDOM_INT:
  case DLX_RANDOM_BERNOULLI:
  case DLX_RANDOM_GEOMETRIC:
    return is_real(dtype);
  default:
    return dlx_random_float_bits(dtype) != 0;
  }
}

/* INT: [low, low + range) fits t's dtype: every value, or for a float dtype every integer
 * exactly (|x| <= 2^bits), or for bool 0 and 1. */
static int check_int_range(const dlx_tensor *t, const dlx_random_request *r, const char *name,
                           dlx_error *err) {
  const char *dtype = dlx_dtype_info_of(t->dtype)->name;
  uint64_t last_u = (uint64_t)r->low + (r->range - 1);
  int64_t lo;
  uint64_t hi;
  bool fits;
  int bits = dlx_random_float_bits(t->dtype);
  if (t->dtype == DLX_BOOL) {
    fits = r->low >= 0 && r->low <= 1 && r->range <= (uint64_t)(2 - r->low);
  } else if (bits != 0) {
    int64_t bound = (int64_t)1 << bits;
    fits = r->low >= -bound && r->range <= (uint64_t)(2 * bound + 1) &&
           r->low + (int64_t)r->range - 1 <= bound;
  } else {
    int_bounds(t->dtype, &lo, &hi);
    fits = r->low >= lo && (lo < 0 ? (int64_t)last_u <= (int64_t)hi : last_u <= hi);
  }
  if (!fits)
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: [%lld, %lld] does not fit in %s", name,
                    (long long)r->low, (long long)last_u, dtype);
  return 0;
}

/* A number parameter's range: lo <= x <= hi (lo_open / hi_open: strictly), finite. */
typedef struct param_rule {
  const char *what;
  double lo, hi;
  bool lo_open, hi_open;
} param_rule;

static bool in_rule(const param_rule *rule, double x) {
  return isfinite(x) && (rule->lo_open ? x > rule->lo : x >= rule->lo) &&
         (rule->hi_open ? x < rule->hi : x <= rule->hi);
}

static int rule_error(const param_rule *rule, const char *name, const char *got, double x,
                      dlx_error *err) {
  return dlx_fail(err, DLX_VALUE_ERROR, "%s: %s must be finite, in %s%g, %g%s, got %s%g", name,
                  rule->what, rule->lo_open ? "(" : "[", rule->lo, rule->hi,
                  rule->hi_open ? ")" : "]", got, x);
}

/* The rules of a kind's parameters a and b (what NULL: the kind has no such parameter). */
static void kind_rules(dlx_random_kind kind, param_rule *a, param_rule *b) {
  const double big = HUGE_VAL;
  *a = (param_rule){NULL, -big, big, true, true};
  *b = (param_rule){NULL, -big, big, true, true};
  switch (kind) {
  case DLX_RANDOM_NORMAL:
    *a = (param_rule){"mean", -big, big, true, true};
    *b = (param_rule){"std", 0, big, false, true};
    break;
  case DLX_RANDOM_BERNOULLI:
    *a = (param_rule){"p", 0, 1, false, false};
    break;
  case DLX_RANDOM_EXPONENTIAL:
    *a = (param_rule){"lambda", 0, big, true, true};
    break;
  case DLX_RANDOM_CAUCHY:
    *a = (param_rule){"median", -big, big, true, true};
    *b = (param_rule){"sigma", 0, big, true, true};
    break;
  case DLX_RANDOM_LOG_NORMAL:
    *a = (param_rule){"mean", -big, big, true, true};
    *b = (param_rule){"std", 0, big, true, true};
    break;
  case DLX_RANDOM_GEOMETRIC:
    *a = (param_rule){"p", 0, 1, true, false};
    break;
  case DLX_RANDOM_POISSON:
    *a = (param_rule){"rate", 0, 4503599627370496.0, false, true}; /* 2^52 */
    break;
  default:
    break;
  }
}

/* The checks of the kind's number parameters and t's dtype. */
static int check_request(const dlx_tensor *t, const dlx_random_request *r, const char *name,
                         dlx_error *err) {
  param_rule ra, rb;
  if (!dtype_fits_kind(r->kind, t->dtype))
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: dtype %s is not %s dtype", name,
                    dlx_dtype_info_of(t->dtype)->name, kind_dtypes(r->kind));
  if (r->kind == DLX_RANDOM_INT) return check_int_range(t, r, name, err);
  if (r->kind == DLX_RANDOM_UNIFORM && !(isfinite(r->a) && isfinite(r->b) && r->a <= r->b))
    return dlx_fail(err, DLX_VALUE_ERROR, "%s: needs finite a <= b, got a = %g and b = %g", name,
                    r->a, r->b);
  if (r->kind == DLX_RANDOM_GEOMETRIC && r->ta != NULL)
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: p must be a number", name);
  kind_rules(r->kind, &ra, &rb);
  if (ra.what != NULL && r->ta == NULL && !in_rule(&ra, r->a))
    return rule_error(&ra, name, "", r->a, err);
  if (rb.what != NULL && r->tb == NULL && !in_rule(&rb, r->b))
    return rule_error(&rb, name, "", r->b, err);
  return 0;
}

/* Blocks (POISSON: counters) a request of n elements uses: ceil(n / L). */
static uint64_t blocks_used(const dlx_random_request *r, int64_t n) {
  uint64_t lanes = (uint64_t)r->lanes;
  return ((uint64_t)n + lanes - 1) / lanes;
}

/* The backend that computes on t's memory fills it. */
static int run_fill_random(const dlx_tensor *t, const dlx_random_request *r, dlx_error *err) {
  const dlx_backend *backend;
  int rc = dlx_compute_on(t, &backend, err);
  return rc != 0 ? rc : backend->fill_random(t, r, err);
}

/* The least and the greatest element of p (float64, numel >= 1): NaN when one is NaN. */
static int param_extremes(const dlx_tensor *p, double *lo, double *hi, dlx_error *err) {
  uint64_t dims = p->ndim == 0 ? 0 : (p->ndim >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << p->ndim) - 1);
  dlx_reduce_op ops[2] = {DLX_REDUCE_MIN, DLX_REDUCE_MAX};
  double *out[2] = {lo, hi};
  for (int i = 0; i < 2; i++) {
    dlx_tensor m;
    dlx_scalar s;
    int rc = dlx_reduce(&m, ops[i], p, dims, false, err);
    if (rc != 0) return rc;
    rc = dlx_get_element(&m, NULL, &s, err);
    dlx_tensor_close(&m);
    if (rc != 0) return rc;
    *out[i] = s.v.f;
  }
  return 0;
}

/* *out = user's parameter tensor p as float64, C-contiguous, of t's shape on t's device (in t's
 * memory), its values checked against the rule. */
static int param_tensor(dlx_tensor *out, const dlx_tensor *p, const dlx_tensor *t,
                        const param_rule *rule, const char *name, dlx_error *err) {
  char d1[48], d2[48];
  double lo = 0, hi = 0;
  int rc = dlx_buffer_check(p->buffer, err);
  if (rc != 0) return rc;
  if (!dlx_device_equal(dlx_tensor_device(p), dlx_tensor_device(t)))
    return dlx_fail(err, DLX_DEVICE_ERROR, "%s: %s is on %s, the result on %s; copy it first", name,
                    rule->what, dlx_device_format(dlx_tensor_device(p), d1, sizeof d1),
                    dlx_device_format(dlx_tensor_device(t), d2, sizeof d2));
  if (!is_real(p->dtype))
    return dlx_fail(err, DLX_TYPE_ERROR, "%s: %s has dtype %s, not a real one", name, rule->what,
                    dlx_dtype_info_of(p->dtype)->name);
  rc = dlx_empty_on(out, t, t->shape, t->ndim, DLX_FLOAT64, err);
  if (rc != 0) return rc;
  rc = dlx_copy(out, p, err);
  if (rc == 0 && dlx_tensor_numel(out) > 0) rc = param_extremes(out, &lo, &hi, err);
  if (rc == 0 && dlx_tensor_numel(out) > 0 && !in_rule(rule, lo))
    rc = rule_error(rule, name, "a least value of ", lo, err);
  if (rc == 0 && dlx_tensor_numel(out) > 0 && !in_rule(rule, hi))
    rc = rule_error(rule, name, "a greatest value of ", hi, err);
  if (rc != 0) dlx_tensor_close(out);
  return rc;
}

/* Fills contiguous or strided t (numel >= 1) with the prepared request. */
static int fill_prepared(const dlx_tensor *t, const dlx_random_request *r, dlx_error *err) {
  dlx_tensor tmp;
  int rc;
  if (dlx_tensor_is_contiguous(t)) return run_fill_random(t, r, err);
  /* a strided view: element i is still the i-th in row-major order */
  rc = dlx_empty_on(&tmp, t, t->shape, t->ndim, t->dtype, err);
  if (rc != 0) return rc;
  rc = run_fill_random(&tmp, r, err);
  if (rc == 0) rc = dlx_copy(t, &tmp, err);
  dlx_tensor_close(&tmp);
  return rc;
}

int dlx_random_fill(dlx_generator *g, const dlx_tensor *t, const dlx_random_request *r,
                    const char *name, dlx_error *err) {
  int64_t n = dlx_tensor_numel(t);
  const dlx_tensor *given[2] = {r->ta, r->tb};
  dlx_tensor params[2];
  param_rule rules[2];
  int made = 0; /* bit i: params[i] is open */
  int rc = dlx_buffer_check(t->buffer, err);
  if (rc == 0) rc = dlx_check_writable(t, err);
  if (rc == 0) rc = check_request(t, r, name, err);
  if (rc != 0) return rc;
  if (dlx_compute_backend(t->buffer)->fill_random == NULL)
    return dlx_not_implemented(err, name, t->buffer->device);
  kind_rules(r->kind, &rules[0], &rules[1]);
  for (int i = 0; i < 2 && rc == 0; i++) {
    if (given[i] == NULL) continue;
    rc = param_tensor(&params[i], given[i], t, &rules[i], name, err);
    if (rc == 0) made |= 1 << i;
  }
  if (rc == 0 && n > 0) { /* the backend's request: r stays as given, for a retry */
    dlx_random_request q = *r;
    q.ta = given[0] != NULL ? &params[0] : NULL;
    q.tb = given[1] != NULL ? &params[1] : NULL;
    q.seed = g->seed;
    q.offset = g->offset;
    q.lanes = dlx_random_lanes(r->kind, t->dtype, r->range);
    if (r->kind == DLX_RANDOM_GEOMETRIC) q.a = log1p(-r->a);
    rc = fill_prepared(t, &q, err);
    if (rc == 0) g->offset += blocks_used(&q, n);
  }
  for (int i = 0; i < 2; i++)
    if (made & (1 << i)) dlx_tensor_close(&params[i]);
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

/* ---- multinomial */

static const char *multinomial_problem(int64_t state) {
  switch (state) {
  case DLX_MN_BAD_WEIGHT:
    return "has a negative, infinite or NaN weight";
  case DLX_MN_ZERO_SUM:
    return "has no weight above 0";
  case DLX_MN_INF_SUM:
    return "has weights whose sum overflows";
  default:
    return "has fewer weights above 0 than draws without replacement";
  }
}

/* The rows' states (status, on the device) -> a ValueError naming the first bad row. */
static int check_states(const dlx_tensor *status, dlx_error *err) {
  dlx_tensor host;
  int rc = dlx_to_host_wide(&host, status, err);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < host.shape[0] && rc == 0; i++) {
    int64_t state = ((const int64_t *)host.buffer->data)[host.offset + i];
    if (state != DLX_MN_OK)
      rc = dlx_fail(err, DLX_VALUE_ERROR, "multinomial: row %lld %s", (long long)i + 1,
                    multinomial_problem(state));
  }
  dlx_tensor_close(&host);
  return rc;
}

/* *w2 = the weights as a C-contiguous [rows, k] float32 or float64 tensor on their device: a view
 * of them when they are one already, else a float64 copy. */
static int weights_2d(dlx_tensor *w2, const dlx_tensor *weights, int64_t rows, int64_t k,
                      dlx_error *err) {
  int64_t shape[2] = {rows, k};
  dlx_tensor flat;
  int rc;
  if ((weights->dtype == DLX_FLOAT32 || weights->dtype == DLX_FLOAT64) &&
      dlx_tensor_is_contiguous(weights))
    return dlx_view(w2, weights, shape, 2, err);
  rc = dlx_clone_as_memory(&flat, weights, DLX_FLOAT64, dlx_tensor_device(weights),
                           dlx_tensor_memory(weights), err);
  if (rc != 0) return rc;
  rc = dlx_view(w2, &flat, shape, 2, err);
  dlx_tensor_close(&flat);
  return rc;
}

static int check_multinomial(const dlx_tensor *weights, int64_t n, bool replacement,
                             dlx_error *err) {
  int64_t k = weights->ndim >= 1 ? weights->shape[weights->ndim - 1] : 0;
  int rc = dlx_buffer_check(weights->buffer, err);
  if (rc != 0) return rc;
  if (dlx_random_float_bits(weights->dtype) == 0)
    return dlx_fail(err, DLX_TYPE_ERROR, "multinomial: the weights' dtype %s is not a float dtype",
                    dlx_dtype_info_of(weights->dtype)->name);
  if (weights->ndim != 1 && weights->ndim != 2)
    return dlx_fail(err, DLX_VALUE_ERROR, "multinomial: the weights must be 1-d or 2-d, not %d-d",
                    (int)weights->ndim);
  if (k == 0) return dlx_fail(err, DLX_VALUE_ERROR, "multinomial: the weights have no category");
  if (n < 0)
    return dlx_fail(err, DLX_VALUE_ERROR, "multinomial: n must be >= 0, got %lld", (long long)n);
  if (!replacement && n > k)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "multinomial: cannot draw %lld of %lld categories without replacement",
                    (long long)n, (long long)k);
  if (dlx_compute_backend(weights->buffer)->multinomial == NULL)
    return dlx_not_implemented(err, "multinomial", weights->buffer->device);
  return 0;
}

/* Runs the request on the prepared weights w2 into out2 ([rows, n]) and checks the states. */
static int run_multinomial(const dlx_tensor *w2, const dlx_tensor *out2, dlx_generator *g,
                           int64_t n, bool replacement, dlx_error *err) {
  int64_t rows = w2->shape[0];
  dlx_tensor status;
  const dlx_backend *backend;
  dlx_multinomial_request r = {.weights = w2,
                               .out = out2,
                               .status = &status,
                               .n = n,
                               .replacement = replacement,
                               .seed = g->seed,
                               .offset = g->offset};
  int rc = dlx_empty_on(&status, w2, &rows, 1, DLX_INT64, err);
  if (rc != 0) return rc;
  rc = dlx_compute_on(w2, &backend, err);
  if (rc == 0) rc = backend->multinomial(&r, err);
  if (rc == 0) rc = check_states(&status, err);
  dlx_tensor_close(&status);
  return rc;
}

int dlx_multinomial(dlx_tensor *out, dlx_generator *g, const dlx_tensor *weights, int64_t n,
                    bool replacement, dlx_error *err) {
  int64_t rows, k, shape[2];
  dlx_tensor w2, out2;
  int rc = check_multinomial(weights, n, replacement, err);
  if (rc != 0) return rc;
  k = weights->shape[weights->ndim - 1];
  rows = weights->ndim == 2 ? weights->shape[0] : 1;
  shape[0] = rows;
  shape[1] = n;
  rc = dlx_empty_on(out, weights, weights->ndim == 2 ? shape : shape + 1, weights->ndim, DLX_INT64,
                    err);
  if (rc != 0 || rows == 0) return rc;
  rc = weights_2d(&w2, weights, rows, k, err);
  if (rc == 0) {
    rc = dlx_view(&out2, out, shape, 2, err);
    if (rc == 0) {
      rc = run_multinomial(&w2, &out2, g, n, replacement, err);
      dlx_tensor_close(&out2);
    }
    dlx_tensor_close(&w2);
  }
  if (rc != 0) {
    dlx_tensor_close(out);
    return rc;
  }
  if (n > 0) g->offset += ((uint64_t)rows * (uint64_t)(replacement ? n : k) + 1) / 2;
  return 0;
}
