/* cuda_blas_rules.c -- the CUDA backend's mapping of matrix products to cuBLAS
 * (src/cuda/blas_plan.h) against the CPU backend, without a GPU: the calls the mapping makes are
 * run by a column-major strided-batched gemm written here with cuBLAS's semantics (ops N, T and
 * C, leading dims and batch strides checked as cuBLAS checks them, every element read or written
 * checked to lie in its operand's buffer, beta = 0 not reading c), and each result is compared
 * with the CPU backend's matmul.
 *
 * Two levels: requests made here (every layout the request allows: row- and column-major
 * operands and results, padded leading dims, strided vectors, batch strides of 0, conjugated
 * operands, batches cut into several calls) against the CPU's matmul entry; and products through
 * the core's dlx_matmul (broadcast batch dims, transposed and flipped views, 1-d operands, vdot's
 * conjugate, an added term) with the rules backend writing the result. Values are small integers,
 * so every dtype's result is exact and the comparison is by value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "check.h"
#include "common/half.h"
#include "core/core.h"
#include "core/linalg.h"
#include "cpu_test_util.h"
#include "cuda/blas_plan.h"

static dlx_backend rules_backend;
static int64_t max_batch = 2; /* a small batch per call, so that batches are cut */
/* what the cases went through: gemm calls, requests cut into several calls, conjugate copies,
 * empty inner dims */
static int calls, cut, copied, empty_inner;
static char case_name[160];

/* ---- random values */

static const dlx_dtype dtypes[] = {DLX_FLOAT16, DLX_BFLOAT16,  DLX_FLOAT32,
                                   DLX_FLOAT64, DLX_COMPLEX64, DLX_COMPLEX128};
#define N_DTYPES (int)(sizeof dtypes / sizeof dtypes[0])

static bool is_complex(dlx_dtype d) { return d == DLX_COMPLEX64 || d == DLX_COMPLEX128; }

/* Element i of p (of dtype) as a complex double, and stored from one. */
static void load(dlx_dtype d, const void *p, int64_t i, double v[2]) {
  uint16_t h;
  float f[2];
  v[1] = 0;
  switch (d) {
  case DLX_FLOAT16:
    memcpy(&h, (const char *)p + 2 * i, 2);
    v[0] = dlx_half_to_float(h);
    break;
  case DLX_BFLOAT16:
    memcpy(&h, (const char *)p + 2 * i, 2);
    v[0] = dlx_bf16_to_float(h);
    break;
  case DLX_FLOAT32:
    memcpy(f, (const char *)p + 4 * i, 4);
    v[0] = f[0];
    break;
  case DLX_FLOAT64:
    memcpy(v, (const char *)p + 8 * i, 8);
    break;
  case DLX_COMPLEX64:
    memcpy(f, (const char *)p + 8 * i, 8);
    v[0] = f[0];
    v[1] = f[1];
    break;
  default:
    memcpy(v, (const char *)p + 16 * i, 16);
  }
}

static void store(dlx_dtype d, void *p, int64_t i, const double v[2]) {
  uint16_t h;
  float f[2] = {(float)v[0], (float)v[1]};
  switch (d) {
  case DLX_FLOAT16:
    h = dlx_float_to_half(f[0]);
    memcpy((char *)p + 2 * i, &h, 2);
    break;
  case DLX_BFLOAT16:
    h = dlx_float_to_bf16(f[0]);
    memcpy((char *)p + 2 * i, &h, 2);
    break;
  case DLX_FLOAT32:
    memcpy((char *)p + 4 * i, f, 4);
    break;
  case DLX_FLOAT64:
    memcpy((char *)p + 8 * i, v, 8);
    break;
  case DLX_COMPLEX64:
    memcpy((char *)p + 8 * i, f, 8);
    break;
  default:
    memcpy((char *)p + 16 * i, v, 16);
  }
}

/* Fills a buffer of n elements with integers in [-2, 2] (both parts for complex), or NaN. */
static void fill_buffer(dlx_dtype d, void *p, int64_t n, bool nan) {
  for (int64_t i = 0; i < n; i++) {
    double v[2] = {nan ? NAN : (double)(rnd_below(5) - 2),
                   is_complex(d) ? (double)(rnd_below(5) - 2) : 0};
    store(d, p, i, v);
  }
}

/* ---- the gemm with cuBLAS's semantics, on the host */

static dlx_dtype dtype_of(int data_type) {
  switch (data_type) {
  case DLX_CUDA_R_16F:
    return DLX_FLOAT16;
  case DLX_CUDA_R_16BF:
    return DLX_BFLOAT16;
  case DLX_CUDA_R_32F:
    return DLX_FLOAT32;
  case DLX_CUDA_R_64F:
    return DLX_FLOAT64;
  case DLX_CUDA_C_32F:
    return DLX_COMPLEX64;
  default:
    return DLX_COMPLEX128;
  }
}

/* The buffers of the request being run: every element the gemm touches must lie in one. */
typedef struct rules_ctx {
  const dlx_matmul_request *r;
  dlx_dtype dtype;
} rules_ctx;

static const dlx_buffer *buffer_holding(const rules_ctx *ctx, const char *p) {
  const dlx_buffer *all[3] = {ctx->r->a.buffer, ctx->r->b.buffer, ctx->r->c.buffer};
  for (int i = 0; i < 3; i++) {
    const char *lo = all[i]->data;
    if (p >= lo && p < lo + all[i]->nbytes) return all[i];
  }
  return NULL;
}

static bool inside(const dlx_buffer *b, const char *p, size_t item) {
  const char *lo = b->data;
  return p >= lo && p + item <= lo + b->nbytes;
}

/* op(X)[i][j] of a column-major X at p (ld), as cuBLAS reads it. */
static void op_element(dlx_dtype d, const char *p, int64_t ld, int op, int64_t i, int64_t j,
                       const dlx_buffer *owner, bool *ok, double v[2]) {
  size_t item = (size_t)dlx_dtype_bits(d) / 8;
  int64_t at = op == DLX_CUBLAS_OP_N ? i + j * ld : j + i * ld;
  if (!inside(owner, p + at * (int64_t)item, item)) {
    *ok = false;
    v[0] = v[1] = 0;
    return;
  }
  load(d, p, at, v);
  if (op == DLX_CUBLAS_OP_C) v[1] = -v[1];
}

/* Rounds to float, as a COMPUTE_32F accumulator holds its values. */
static double as_compute(double x, int compute) {
  return compute == DLX_CUBLAS_COMPUTE_64F ? x : (double)(float)x;
}

static int host_gemm(const dlx_cuda_gemm *g, void *opaque, dlx_error *err) {
  const rules_ctx *ctx = opaque;
  dlx_dtype d = dtype_of(g->data_type);
  size_t item = (size_t)dlx_dtype_bits(d) / 8;
  int64_t rows_a = g->transa == DLX_CUBLAS_OP_N ? g->m : g->k;
  int64_t rows_b = g->transb == DLX_CUBLAS_OP_N ? g->k : g->n;
  bool c32 = g->compute_type != DLX_CUBLAS_COMPUTE_64F, ok = true;
  double alpha[2] = {c32 ? g->alpha.f[0] : g->alpha.d[0], c32 ? g->alpha.f[1] : g->alpha.d[1]};
  double beta[2] = {c32 ? g->beta.f[0] : g->beta.d[0], c32 ? g->beta.f[1] : g->beta.d[1]};
  const dlx_buffer *ba = buffer_holding(ctx, g->a), *bb = buffer_holding(ctx, g->b);
  const dlx_buffer *bc = buffer_holding(ctx, g->c);
  calls++;
  /* what cuBLAS checks (CUBLAS_STATUS_INVALID_VALUE otherwise) */
  CHECK(g->transa >= DLX_CUBLAS_OP_N && g->transa <= DLX_CUBLAS_OP_C);
  CHECK(g->transb >= DLX_CUBLAS_OP_N && g->transb <= DLX_CUBLAS_OP_C);
  CHECK(g->m >= 0 && g->n >= 0 && g->k >= 0 && g->m <= INT32_MAX && g->n <= INT32_MAX &&
        g->k <= INT32_MAX);
  CHECK(g->lda >= (rows_a > 1 ? rows_a : 1) && g->lda <= INT32_MAX);
  CHECK(g->ldb >= (rows_b > 1 ? rows_b : 1) && g->ldb <= INT32_MAX);
  CHECK(g->ldc >= (g->m > 1 ? g->m : 1) && g->ldc <= INT32_MAX);
  CHECK(g->batch >= 1 && g->batch <= max_batch);
  CHECK(d == ctx->dtype);
  /* the compute type the request asks for */
  CHECK_EQ_INT(g->compute_type, dlx_cuda_gemm_compute_type(d, ctx->r->allow_tf32));
  CHECK(ba != NULL && bb != NULL && bc == ctx->r->c.buffer);
  if (ba == NULL || bb == NULL || bc == NULL) return dlx_fail(err, DLX_VALUE_ERROR, "bad pointers");
  for (int64_t i = 0; i < g->batch; i++) {
    const char *a = g->a + i * g->stride_a * (int64_t)item;
    const char *b = g->b + i * g->stride_b * (int64_t)item;
    char *c = g->c + i * g->stride_c * (int64_t)item;
    for (int64_t col = 0; col < g->n; col++)
      for (int64_t row = 0; row < g->m; row++) {
        double sum[2] = {0, 0}, x[2], y[2], out[2], old[2] = {0, 0};
        for (int64_t l = 0; l < g->k; l++) {
          op_element(d, a, g->lda, g->transa, row, l, ba, &ok, x);
          op_element(d, b, g->ldb, g->transb, l, col, bb, &ok, y);
          sum[0] = as_compute(sum[0] + (x[0] * y[0] - x[1] * y[1]), g->compute_type);
          sum[1] = as_compute(sum[1] + (x[0] * y[1] + x[1] * y[0]), g->compute_type);
        }
        char *at = c + (row + col * g->ldc) * (int64_t)item;
        if (!inside(bc, at, item)) {
          ok = false;
          continue;
        }
        out[0] = alpha[0] * sum[0] - alpha[1] * sum[1];
        out[1] = alpha[0] * sum[1] + alpha[1] * sum[0];
        if (beta[0] != 0 || beta[1] != 0) { /* beta == 0: c is not read */
          load(d, at, 0, old);
          out[0] += beta[0] * old[0] - beta[1] * old[1];
          out[1] += beta[0] * old[1] + beta[1] * old[0];
        }
        store(d, at, 0, out);
      }
  }
  if (!ok) fprintf(stderr, "%s: the gemm reached outside an operand's buffer\n", case_name);
  CHECK(ok);
  return 0;
}

/* The matmul entry of the rules backend: blas.c's, with the host gemm for cuBLAS. */
static int rules_matmul(const dlx_matmul_request *request, dlx_error *err) {
  dlx_matmul_request r = *request;
  dlx_tensor holders[2];
  bool held[2] = {false, false};
  rules_ctx ctx = {&r, r.dtype};
  int rc;
  if (!dlx_cuda_gemm_has_dtype(r.dtype))
    return dlx_fail(err, DLX_TYPE_ERROR, "no %s product", dlx_dtype_info_of(r.dtype)->name);
  if (r.k == 0) {
    empty_inner++;
    return dlx_cuda_gemm_empty_inner(&r, err);
  }
  cut += r.batch > max_batch;
  rc = dlx_cuda_gemm_run(&r, max_batch, host_gemm, &ctx, holders, held, err);
  for (int i = 0; i < 2; i++)
    if (held[i]) dlx_tensor_close(&holders[i]);
  copied += held[0] || held[1];
  return rc;
}

/* ---- comparing */

/* Buffers of n elements equal by value (NaN equal to NaN, -0 to 0). */
static bool same_values(dlx_dtype d, const void *x, const void *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    double u[2], v[2];
    load(d, x, i, u);
    load(d, y, i, v);
    for (int p = 0; p < 2; p++)
      if (!(u[p] == v[p] || (isnan(u[p]) && isnan(v[p])))) {
        fprintf(stderr, "%s: element %lld: %g%+gi, the CPU %g%+gi\n", case_name, (long long)i, v[0],
                v[1], u[0], u[1]);
        return false;
      }
  }
  return true;
}

/* ---- requests made here, against the CPU's matmul entry */

/* A random layout of a batch of rows x cols matrices (the request's rule), in a new buffer of
 * the backend; batch stride 0 when shared. */
static void random_operand(dlx_matrix_operand *o, dlx_tensor *t, const dlx_backend *backend,
                           dlx_dtype d, int64_t batch, int64_t rows, int64_t cols, bool shared,
                           bool nan) {
  bool row_major = rnd_below(2) == 0;
  int64_t pad = rnd_below(3), ld, size, n;
  if (row_major) {
    ld = (cols > 1 ? cols : 1) + pad;
    o->row_stride = ld;
    o->col_stride = 1;
    size = rows > 0 ? (rows - 1) * ld + cols : 0;
  } else {
    ld = (rows > 1 ? rows : 1) + pad;
    o->row_stride = 1;
    o->col_stride = ld;
    size = cols > 0 ? (cols - 1) * ld + rows : 0;
  }
  o->batch_stride = shared ? 0 : size + rnd_below(3);
  o->offset = rnd_below(3);
  n = o->offset + (shared ? 1 : batch) * (o->batch_stride > size ? o->batch_stride : size) + 1;
  CHECK(dlx_tensor_empty(t, &n, 1, d, (DLDevice){kDLCPU, 0}, NULL) == 0);
  t->buffer->backend = backend;
  fill_buffer(d, t->buffer->data, n, nan);
  o->buffer = t->buffer;
  o->conj = false;
}

static void request_case(int iteration) {
  dlx_dtype d = dtypes[rnd_below(N_DTYPES)];
  int64_t batch = 1 + rnd_below(5), m = 1 + rnd_below(6), n = 1 + rnd_below(6),
          k = rnd_below(8) == 0 ? 0 : 1 + rnd_below(7);
  bool share_a = batch > 1 && rnd_below(4) == 0, share_b = batch > 1 && rnd_below(4) == 0;
  int beta_pick = (int)rnd_below(3), alpha_pick = (int)rnd_below(3);
  dlx_matmul_request r;
  dlx_tensor ta, tb, tc_cpu, tc_rules;
  dlx_error err;
  memset(&r, 0, sizeof r);
  r.dtype = d;
  r.batch = batch;
  r.m = m;
  r.n = n;
  r.k = k;
  r.allow_tf32 = rnd_below(2) == 0;
  random_operand(&r.a, &ta, &rules_backend, d, batch, m, k, share_a, false);
  random_operand(&r.b, &tb, &rules_backend, d, batch, k, n, share_b, false);
  random_operand(&r.c, &tc_rules, &rules_backend, d, batch, m, n, false, beta_pick == 0);
  if (is_complex(d)) {
    r.a.conj = rnd_below(2) == 0;
    r.b.conj = rnd_below(3) == 0;
  }
  double alphas[3] = {1, -1, 2}, betas[3] = {0, 1, -2};
  r.alpha.kind = r.beta.kind = is_complex(d) ? DLX_KIND_COMPLEX : DLX_KIND_FLOAT;
  if (is_complex(d)) {
    r.alpha.v.c[0] = alphas[alpha_pick];
    r.alpha.v.c[1] = alpha_pick == 2 ? 1 : 0;
    r.beta.v.c[0] = betas[beta_pick];
    r.beta.v.c[1] = 0;
  } else {
    r.alpha.v.f = alphas[alpha_pick];
    r.beta.v.f = betas[beta_pick];
  }
  snprintf(case_name, sizeof case_name,
           "request %d: %s, batch %lld (shared %d %d), %lldx%lld @ %lldx%lld, conj %d %d, "
           "strides a %lld %lld, b %lld %lld, c %lld %lld",
           iteration, dlx_dtype_info_of(d)->name, (long long)batch, share_a, share_b, (long long)m,
           (long long)k, (long long)k, (long long)n, r.a.conj, r.b.conj, (long long)r.a.row_stride,
           (long long)r.a.col_stride, (long long)r.b.row_stride, (long long)r.b.col_stride,
           (long long)r.c.row_stride, (long long)r.c.col_stride);
  /* the CPU gets the same operands and a copy of c */
  int64_t cn = dlx_tensor_numel(&tc_rules);
  CHECK(dlx_tensor_empty(&tc_cpu, &cn, 1, d, (DLDevice){kDLCPU, 0}, NULL) == 0);
  memcpy(tc_cpu.buffer->data, tc_rules.buffer->data, tc_rules.buffer->nbytes);
  dlx_matmul_request rc = r;
  rc.c.buffer = tc_cpu.buffer;
  CHECK_EQ_INT(dlx_cpu_backend.matmul(&rc, &err), 0);
  int status = rules_matmul(&r, &err);
  if (status != 0) fprintf(stderr, "%s: %s\n", case_name, err.message);
  CHECK_EQ_INT(status, 0);
  CHECK(same_values(d, tc_cpu.buffer->data, tc_rules.buffer->data, cn));
  dlx_tensor_close(&ta);
  dlx_tensor_close(&tb);
  dlx_tensor_close(&tc_cpu);
  dlx_tensor_close(&tc_rules);
}

/* ---- products through the core's dlx_matmul */

/* A tensor of shape on the backend, in a random layout: the last two dims swapped in memory, a
 * dim flipped, or contiguous. */
static void random_tensor(dlx_tensor *t, const dlx_backend *backend, dlx_dtype d,
                          const int64_t *shape, int32_t ndim, int how) {
  int64_t mem[DLX_MAX_NDIM];
  dlx_tensor base;
  memcpy(mem, shape, sizeof(int64_t) * (size_t)ndim);
  if (how == 1 && ndim >= 2) {
    mem[ndim - 2] = shape[ndim - 1];
    mem[ndim - 1] = shape[ndim - 2];
  }
  CHECK(dlx_tensor_empty(&base, mem, ndim, d, (DLDevice){kDLCPU, 0}, NULL) == 0);
  base.buffer->backend = backend;
  fill_buffer(d, base.buffer->data, dlx_tensor_numel(&base), false);
  if (how == 1 && ndim >= 2) {
    CHECK(dlx_transpose(t, &base, ndim - 2, ndim - 1, NULL) == 0);
  } else if (how == 2 && ndim > 0) {
    CHECK(dlx_flip(t, &base, (int32_t)rnd_below(ndim), NULL) == 0);
  } else {
    dlx_tensor_share(t, &base);
  }
  dlx_tensor_close(&base);
}

/* The same tensor's values in a buffer of the other backend, same layout. */
static void twin(dlx_tensor *out, const dlx_tensor *t, const dlx_backend *backend) {
  dlx_tensor_share(out, t);
  dlx_buffer *b = dlx_buffer_new((DLDevice){kDLCPU, 0}, t->buffer->nbytes, NULL);
  CHECK(b != NULL);
  memcpy(b->data, t->buffer->data, t->buffer->nbytes);
  b->backend = backend;
  dlx_buffer_release(out->buffer);
  out->buffer = b;
}

static void core_case(int iteration) {
  dlx_dtype d = dtypes[rnd_below(N_DTYPES)];
  int32_t batch_nd = (int32_t)rnd_below(3), na = 0, nb = 0, no = 0;
  int64_t batch[2], sa[DLX_MAX_NDIM], sb[DLX_MAX_NDIM], so[DLX_MAX_NDIM];
  int64_t m = 1 + rnd_below(5), n = 1 + rnd_below(5), k = rnd_below(10) == 0 ? 0 : 1 + rnd_below(6);
  dlx_tensor a[2], b[2], c[2], out[2];
  dlx_error err[2];
  bool one_d_a = rnd_below(6) == 0, one_d_b = rnd_below(6) == 0, added = rnd_below(3) == 0;
  bool conj_a = is_complex(d) && rnd_below(2) == 0;
  int rc[2];
  for (int32_t i = 0; i < batch_nd; i++) batch[i] = 1 + rnd_below(3);
  /* each operand has a suffix of the batch dims (a missing dim broadcasts), some of size 1 */
  int32_t bna = one_d_a ? 0 : batch_nd - (int32_t)rnd_below(batch_nd + 1);
  int32_t bnb = one_d_b ? 0 : batch_nd - (int32_t)rnd_below(batch_nd + 1);
  int32_t bn = bna > bnb ? bna : bnb;
  for (int32_t i = 0; i < bna; i++) sa[na++] = rnd_below(3) == 0 ? 1 : batch[batch_nd - bna + i];
  for (int32_t i = 0; i < bnb; i++) sb[nb++] = rnd_below(3) == 0 ? 1 : batch[batch_nd - bnb + i];
  for (int32_t i = 0; i < bn; i++) { /* the result's batch dims: NumPy's broadcast */
    int64_t x = i - (bn - bna) >= 0 ? sa[i - (bn - bna)] : 1;
    int64_t y = i - (bn - bnb) >= 0 ? sb[i - (bn - bnb)] : 1;
    so[no++] = x == 1 ? y : x;
  }
  if (!one_d_a) sa[na++] = m;
  sa[na++] = k;
  sb[nb++] = k;
  if (!one_d_b) sb[nb++] = n;
  if (!one_d_a) so[no++] = m;
  if (!one_d_b) so[no++] = n;
  random_tensor(&a[0], &dlx_cpu_backend, d, sa, na, (int)rnd_below(3));
  random_tensor(&b[0], &dlx_cpu_backend, d, sb, nb, (int)rnd_below(3));
  twin(&a[1], &a[0], &rules_backend);
  twin(&b[1], &b[0], &rules_backend);
  if (added) {
    int32_t cn = (int32_t)rnd_below(no + 1); /* c broadcasts to the result */
    random_tensor(&c[0], &dlx_cpu_backend, d, so + (no - cn), cn, 0);
    twin(&c[1], &c[0], &rules_backend);
  }
  snprintf(case_name, sizeof case_name, "core %d: %s, a %d-d, b %d-d, k %lld%s%s", iteration,
           dlx_dtype_info_of(d)->name, (int)na, (int)nb, (long long)k, added ? ", added" : "",
           conj_a ? ", conj a" : "");
  for (int w = 0; w < 2; w++) {
    const dlx_backend *backend = w == 0 ? &dlx_cpu_backend : &rules_backend;
    dlx_matmul_args args = dlx_matmul_args_of("matmul", &a[w], &b[w]);
    CHECK(dlx_tensor_empty(&out[w], so, no, d, (DLDevice){kDLCPU, 0}, NULL) == 0);
    out[w].buffer->backend = backend; /* the product is written straight into it */
    args.dst = &out[w];
    args.conj_a = conj_a;
    args.allow_tf32 = true;
    if (added) {
      args.c = &c[w];
      args.beta.kind = DLX_KIND_FLOAT;
      args.beta.v.f = -2;
      args.alpha.v.i = 3;
    }
    rc[w] = dlx_matmul(NULL, &args, &err[w]);
    if (rc[w] != 0) fprintf(stderr, "%s: %s\n", case_name, err[w].message);
  }
  CHECK(rc[0] == 0 && rc[1] == 0);
  if (rc[0] == 0 && rc[1] == 0)
    CHECK(same_values(d, out[0].buffer->data, out[1].buffer->data, dlx_tensor_numel(&out[0])));
  for (int w = 0; w < 2; w++) {
    dlx_tensor_close(&a[w]);
    dlx_tensor_close(&b[w]);
    dlx_tensor_close(&out[w]);
    if (added) dlx_tensor_close(&c[w]);
  }
}

/* ---- the mapping itself, on requests whose call is known */

static void known_calls(void) {
  dlx_matmul_request r;
  dlx_buffer buf;
  dlx_cuda_gemm g;
  memset(&r, 0, sizeof r);
  memset(&buf, 0, sizeof buf);
  buf.data = (void *)(uintptr_t)0x1000;
  r.dtype = DLX_FLOAT32;
  r.batch = 3;
  r.m = 4;
  r.n = 5;
  r.k = 6;
  r.alpha.kind = r.beta.kind = DLX_KIND_FLOAT;
  r.alpha.v.f = 1;
  /* all row-major and contiguous: c^T = b^T a^T, both read as stored */
  r.a = (dlx_matrix_operand){&buf, 0, 6, 1, 24, false};
  r.b = (dlx_matrix_operand){&buf, 100, 5, 1, 30, false};
  r.c = (dlx_matrix_operand){&buf, 200, 5, 1, 20, false};
  CHECK_EQ_INT(dlx_cuda_gemm_plan(&r, 1, 2, &g), 0);
  CHECK(g.transa == DLX_CUBLAS_OP_N && g.transb == DLX_CUBLAS_OP_N);
  CHECK(g.m == 5 && g.n == 4 && g.k == 6 && g.batch == 2);
  CHECK(g.a == (const char *)0x1000 + 4 * (100 + 30) && g.lda == 5 && g.stride_a == 30);
  CHECK(g.b == (const char *)0x1000 + 4 * 24 && g.ldb == 6 && g.stride_b == 24);
  CHECK(g.c == (char *)0x1000 + 4 * (200 + 20) && g.ldc == 5 && g.stride_c == 20);
  CHECK(g.data_type == DLX_CUDA_R_32F && g.compute_type == DLX_CUBLAS_COMPUTE_32F);
  CHECK(g.alpha.f[0] == 1 && g.beta.f[0] == 0);
  /* a transposed view (column-major): read transposed */
  r.a = (dlx_matrix_operand){&buf, 0, 1, 4, 24, false};
  CHECK_EQ_INT(dlx_cuda_gemm_plan(&r, 0, 3, &g), 0);
  CHECK(g.transb == DLX_CUBLAS_OP_T && g.ldb == 4);
  /* conjugated: transposed becomes OP_C; as stored needs a copy */
  r.dtype = DLX_COMPLEX64;
  r.alpha.kind = r.beta.kind = DLX_KIND_COMPLEX;
  r.alpha.v.c[0] = 1;
  r.a.conj = true;
  CHECK_EQ_INT(dlx_cuda_gemm_plan(&r, 0, 3, &g), 0);
  CHECK(g.transb == DLX_CUBLAS_OP_C && g.data_type == DLX_CUDA_C_32F);
  r.a = (dlx_matrix_operand){&buf, 0, 6, 1, 24, true};
  CHECK_EQ_INT(dlx_cuda_gemm_plan(&r, 0, 3, &g), 1);
  /* ... unless a is one row (vdot): then it is column-major too */
  r.m = 1;
  r.c = (dlx_matrix_operand){&buf, 200, 5, 1, 5, false};
  CHECK_EQ_INT(dlx_cuda_gemm_plan(&r, 0, 3, &g), 0);
  CHECK(g.transb == DLX_CUBLAS_OP_C && g.ldb == 1);
  /* a column-major c: c = a b, no swap */
  r.m = 4;
  r.a.conj = false;
  r.c = (dlx_matrix_operand){&buf, 200, 1, 4, 20, false};
  CHECK_EQ_INT(dlx_cuda_gemm_plan(&r, 0, 3, &g), 0);
  CHECK(g.m == 4 && g.n == 5 && g.transa == DLX_CUBLAS_OP_T && g.lda == 6 && g.ldc == 4);
  CHECK(g.transb == DLX_CUBLAS_OP_T && g.ldb == 5);
  /* compute types: float64 and complex128 in double, TF32 only when allowed and for
   * float32 and complex64, half types in float */
  CHECK_EQ_INT(dlx_cuda_gemm_compute_type(DLX_FLOAT64, true), DLX_CUBLAS_COMPUTE_64F);
  CHECK_EQ_INT(dlx_cuda_gemm_compute_type(DLX_COMPLEX128, false), DLX_CUBLAS_COMPUTE_64F);
  CHECK_EQ_INT(dlx_cuda_gemm_compute_type(DLX_FLOAT32, false), DLX_CUBLAS_COMPUTE_32F);
  CHECK_EQ_INT(dlx_cuda_gemm_compute_type(DLX_FLOAT32, true), DLX_CUBLAS_COMPUTE_32F_FAST_TF32);
  CHECK_EQ_INT(dlx_cuda_gemm_compute_type(DLX_COMPLEX64, true), DLX_CUBLAS_COMPUTE_32F_FAST_TF32);
  CHECK_EQ_INT(dlx_cuda_gemm_compute_type(DLX_FLOAT16, true), DLX_CUBLAS_COMPUTE_32F);
  CHECK_EQ_INT(dlx_cuda_gemm_compute_type(DLX_BFLOAT16, true), DLX_CUBLAS_COMPUTE_32F);
  CHECK_EQ_INT(dlx_cuda_gemm_data_type(DLX_FLOAT16), DLX_CUDA_R_16F);
  CHECK_EQ_INT(dlx_cuda_gemm_data_type(DLX_BFLOAT16), DLX_CUDA_R_16BF);
  CHECK_EQ_INT(dlx_cuda_gemm_data_type(DLX_COMPLEX128), DLX_CUDA_C_64F);
  /* no integer or bool product */
  CHECK(!dlx_cuda_gemm_has_dtype(DLX_INT64) && !dlx_cuda_gemm_has_dtype(DLX_INT8) &&
        !dlx_cuda_gemm_has_dtype(DLX_BOOL) && !dlx_cuda_gemm_has_dtype(DLX_UINT8));
}

int main(void) {
  rng_state = UINT64_C(0x2545f4914f6cdd1d); /* the xorshift64* of cpu_test_util.h */
  rules_backend = dlx_cpu_backend;
  rules_backend.matmul = rules_matmul;
  known_calls();
  for (int i = 0; i < 3000; i++) request_case(i);
  printf("requests: %d gemm calls, %d cut, %d with a conjugate copy, %d with k = 0\n", calls, cut,
         copied, empty_inner);
  CHECK(calls > 3000 && cut > 100 && copied > 100 && empty_inner > 100);
  calls = cut = copied = empty_inner = 0;
  max_batch = DLX_CUDA_GEMM_MAX_BATCH;
  for (int i = 0; i < 1500; i++) core_case(i);
  printf("core: %d gemm calls, %d with a conjugate copy, %d with k = 0\n", calls, copied,
         empty_inner);
  CHECK(calls > 1000 && copied > 50 && empty_inner > 50);
  return check_report("cuda_blas_rules");
}
