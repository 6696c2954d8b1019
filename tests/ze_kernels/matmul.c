/* matmul.c -- the matrix product kernel (matmul.cl), dlx_matmul, in both its modes against the
 * CPU backend's matmul (OpenBLAS or its own loops), every computable dtype: operands row- or
 * column-major, leading dims sometimes padded, batch elements apart or (a and b) shared,
 * conjugates, alpha and beta (beta 0 over a c of NaN, which must not be read), now and then a NaN
 * and an infinity, elements sometimes misaligned (byte loads), DIRECT with fewer work-groups than
 * elements (its grid-stride loop), TILED in up to three launches (first_tile). Floats within
 * 2 (k + 2) eps of the sum of the products' magnitudes (and the rounding into float16 or
 * bfloat16), integers and bool exact, c's padding untouched. How many products equal the CPU's
 * own loops bit for bit is counted. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "common/convert.h"
#include "cpu/matmul.h"

typedef struct mm_operand {
  int64_t rows, cols, rs, cs, bs; /* element strides */
  int64_t span;                   /* elements from the first to past the last */
  unsigned char *host;            /* span elements, aligned */
  unsigned char *mem;             /* SVM: the first element at mem + shift */
  int64_t shift;
} mm_operand;

static int64_t mm_products, mm_identical, mm_elements;

/* A rows x cols operand of `batch` matrices in a layout BLAS takes (backend.h). */
static mm_operand mm_make(int64_t batch, int64_t rows, int64_t cols, bool may_share, int64_t size) {
  mm_operand o = {.rows = rows, .cols = cols};
  int64_t pad = next_random() % 3 == 0 ? 1 + (int64_t)(next_random() % 3) : 0, mspan = 0;
  if (next_random() % 2) {
    o.cs = 1;
    o.rs = (cols > 1 ? cols : 1) + pad;
    if (rows * cols > 0) mspan = (rows - 1) * o.rs + cols;
  } else {
    o.rs = 1;
    o.cs = (rows > 1 ? rows : 1) + pad;
    if (rows * cols > 0) mspan = (cols - 1) * o.cs + rows;
  }
  o.bs = batch > 1 && may_share && next_random() % 4 == 0
             ? 0
             : mspan + 2 * (int64_t)(next_random() % 2);
  o.span = (batch - 1) * o.bs + mspan;
  if (o.span < 1) o.span = 1;
  o.host = calloc((size_t)(o.span * size), 1);
  return o;
}

/* Random values over the whole span: floats in [-2, 2] in steps of 1/500 (complex: both parts),
 * integers of any bits (products wrap), bools of 0, 1 and other non-zero bytes. */
static void mm_fill(mm_operand *o, dlx_dtype dtype) {
  int64_t size = dlx_itemsize(dtype);
  dlx_kind kind = dlx_dtype_kind(dtype);
  if (kind == DLX_KIND_INT || kind == DLX_KIND_UINT) {
    random_bytes(o->host, o->span * size);
  } else if (dtype == DLX_BOOL) {
    for (int64_t i = 0; i < o->span; i++) o->host[i] = (unsigned char)(next_random() % 3);
  } else {
    bool complex = kind == DLX_KIND_COMPLEX;
    int64_t n = o->span * (complex ? 2 : 1), shape[1] = {o->span};
    layout l = {.ndim = 1, .shape = {o->span}, .strides = {1}, .first = 0, .span = 0};
    dlx_tensor src, dst = as_tensor(&l, dtype, o->host);
    dlx_tensor_empty(&src, shape, 1, complex ? DLX_COMPLEX128 : DLX_FLOAT64, (DLDevice){kDLCPU, 0},
                     NULL);
    for (int64_t i = 0; i < n; i++)
      ((double *)src.buffer->data)[i] = (double)((int64_t)(next_random() % 2001) - 1000) / 500;
    dlx_cpu_backend.copy(&dst, &src, NULL);
    dlx_tensor_close(&src);
    dlx_tensor_close(&dst);
  }
}

/* Element (r, c) of batch element i, as a position in the span. */
static int64_t mm_at(const mm_operand *o, int64_t i, int64_t r, int64_t c) {
  return i * o->bs + r * o->rs + c * o->cs;
}

/* The element at p as re and im (0 for real dtypes). */
static void mm_value(dlx_dtype dtype, const unsigned char *p, double *re, double *im) {
  const char *q = (const char *)p;
  *im = 0;
  switch (dtype) {
  case DLX_FLOAT16:
    *re = load_float16(q);
    break;
  case DLX_BFLOAT16:
    *re = load_bfloat16(q);
    break;
  case DLX_FLOAT32:
    *re = load_float32(q);
    break;
  case DLX_FLOAT64:
    *re = load_float64(q);
    break;
  case DLX_COMPLEX64: {
    dlx_c64 c = load_complex64(q);
    *re = c.re;
    *im = c.im;
    break;
  }
  case DLX_COMPLEX128: {
    dlx_c128 c = load_complex128(q);
    *re = c.re;
    *im = c.im;
    break;
  }
  default:
    *re = 0;
  }
}

static void mm_plant(mm_operand *o, dlx_dtype dtype, int64_t batch, double value) {
  int64_t p = mm_at(o, (int64_t)(next_random() % (uint64_t)batch),
                    (int64_t)(next_random() % (uint64_t)o->rows),
                    (int64_t)(next_random() % (uint64_t)o->cols));
  dlx_tensor view, src;
  layout l = {.ndim = 1, .shape = {1}, .strides = {1}, .first = p * dlx_itemsize(dtype), .span = 0};
  int64_t shape[1] = {1};
  view = as_tensor(&l, dtype, o->host);
  dlx_tensor_empty(&src, shape, 1, DLX_FLOAT64, (DLDevice){kDLCPU, 0}, NULL);
  ((double *)src.buffer->data)[0] = value;
  dlx_cpu_backend.copy(&view, &src, NULL);
  dlx_tensor_close(&src);
  dlx_tensor_close(&view);
}

static void mm_to_svm(mm_operand *o, int64_t size, bool misalign) {
  size_t bytes = (size_t)(o->span * size);
  o->shift = misalign && size > 1 ? 1 + (int64_t)(next_random() % (uint64_t)(size - 1)) : 0;
  o->mem = svm(bytes + 16);
  host_access(o->mem, bytes + 16, 1);
  memcpy(o->mem + o->shift, o->host, bytes);
  host_access(o->mem, bytes + 16, 0);
}

static dlx_matrix_operand mm_request_operand(const mm_operand *o, unsigned char *data, bool conj) {
  dlx_matrix_operand m = {
      .offset = 0, .row_stride = o->rs, .col_stride = o->cs, .batch_stride = o->bs, .conj = conj};
  m.buffer = dlx_buffer_wrap((DLDevice){kDLCPU, 0}, data, 0, NULL, NULL, NULL);
  return m;
}

static void mm_block_operand(dlx_ze_i64 *rs, dlx_ze_i64 *cs, dlx_ze_i64 *bs, const mm_operand *o,
                             int64_t size) {
  *rs = o->rs * size;
  *cs = o->cs * size;
  *bs = o->bs * size;
}

/* The scalars: 0 alpha 1 and beta 0, 1 some alpha and beta 0, 2 both. */
static void mm_scalars(dlx_matmul_request *r, dlx_ze_matmul_args *blk, int which) {
  dlx_kind kind = dlx_dtype_kind(r->dtype);
  double f[2][2];
  int64_t i[2];
  for (int s = 0; s < 2; s++) {
    f[s][0] = (double)((int64_t)(next_random() % 9) - 4) / 2;
    f[s][1] = (double)((int64_t)(next_random() % 9) - 4) / 2;
    i[s] = (int64_t)next_random();
  }
  if (which == 0) {
    f[0][0] = 1, f[0][1] = 0, i[0] = 1;
  }
  if (which < 2) f[1][0] = f[1][1] = 0, i[1] = 0;
  if (which == 2 && f[1][0] == 0) f[1][0] = 0.5;
  if (which == 2 && i[1] == 0) i[1] = 3;
  for (int s = 0; s < 2; s++) {
    dlx_scalar *sc = s == 0 ? &r->alpha : &r->beta;
    double *bf = s == 0 ? blk->alpha_f : blk->beta_f;
    dlx_ze_u64 *bi = s == 0 ? &blk->alpha_i : &blk->beta_i;
    if (kind == DLX_KIND_COMPLEX) {
      sc->kind = DLX_KIND_COMPLEX;
      sc->v.c[0] = bf[0] = f[s][0];
      sc->v.c[1] = bf[1] = f[s][1];
    } else if (kind == DLX_KIND_FLOAT) {
      sc->kind = DLX_KIND_FLOAT;
      sc->v.f = bf[0] = f[s][0];
    } else if (r->dtype == DLX_BOOL) {
      sc->kind = DLX_KIND_BOOL;
      sc->v.b = i[s] % 2 != 0 || (s == 0 && which == 0) || (s == 1 && which == 2);
      *bi = sc->v.b;
    } else {
      sc->kind = DLX_KIND_INT;
      sc->v.i = i[s];
      *bi = (uint64_t)i[s];
    }
  }
  blk->beta_zero = which < 2;
}

/* |x| of every element of an operand, for the tolerance. */
static double *mm_magnitudes(const mm_operand *o, dlx_dtype dtype) {
  double *out = malloc(sizeof(double) * (size_t)o->span), re, im;
  int64_t size = dlx_itemsize(dtype);
  for (int64_t p = 0; p < o->span; p++) {
    mm_value(dtype, o->host + p * size, &re, &im);
    out[p] = hypot(re, im);
  }
  return out;
}

static bool mm_close(dlx_dtype dtype, const unsigned char *got, const unsigned char *want,
                     double bound, int64_t k) {
  double gr, gi, wr, wi, eps, out_eps = 0, tiny = 1e-300;
  mm_value(dtype, got, &gr, &gi);
  mm_value(dtype, want, &wr, &wi);
  if (dtype == DLX_FLOAT64 || dtype == DLX_COMPLEX128) {
    eps = 0x1p-52;
  } else {
    eps = 0x1p-23;
    if (dtype == DLX_FLOAT16) out_eps = 0x1p-10, tiny = 0x1p-24;
    if (dtype == DLX_BFLOAT16) out_eps = 0x1p-7, tiny = 1e-38;
  }
  double parts[2][2] = {{gr, wr}, {gi, wi}};
  for (int q = 0; q < 2; q++) {
    double g = parts[q][0], w = parts[q][1];
    if (isnan(w) || isnan(g)) {
      if (!(isnan(w) && isnan(g))) return false;
      continue;
    }
    if (isinf(w) || isinf(g)) {
      if (g != w) return false;
      continue;
    }
    if (fabs(g - w) > 2 * (double)(k + 2) * eps * bound + out_eps * fmax(fabs(g), fabs(w)) + tiny)
      return false;
  }
  return true;
}

/* got and want are the same value: the same bits, but for the sign and payload of NaN. */
static bool mm_same(dlx_dtype dtype, const unsigned char *got, const unsigned char *want) {
  double g[2], w[2];
  if (memcmp(got, want, (size_t)dlx_itemsize(dtype)) == 0) return true;
  if (dlx_dtype_kind(dtype) != DLX_KIND_FLOAT && dlx_dtype_kind(dtype) != DLX_KIND_COMPLEX)
    return false;
  mm_value(dtype, got, &g[0], &g[1]);
  mm_value(dtype, want, &w[0], &w[1]);
  for (int q = 0; q < 2; q++)
    if (!(isnan(g[q]) && isnan(w[q])) && !(g[q] == w[q] && signbit(g[q]) == signbit(w[q])))
      return false;
  return true;
}

static void test_matmul(dlx_dtype dtype, int64_t mode, int64_t batch, int64_t m, int64_t n,
                        int64_t k) {
  int64_t size = dlx_itemsize(dtype);
  dlx_kind kind = dlx_dtype_kind(dtype);
  bool complex = kind == DLX_KIND_COMPLEX, floating = kind == DLX_KIND_FLOAT || complex;
  bool misalign = next_random() % 4 == 0;
  int which = (int)(next_random() % 3);
  mm_operand A = mm_make(batch, m, k, true, size), B = mm_make(batch, k, n, true, size);
  mm_operand C = mm_make(batch, m, n, false, size);
  unsigned char *want, *own, *got, *is_element;
  dlx_ze_matmul_args hb, *blk = svm(sizeof hb);
  dlx_matmul_request r;
  double *ma, *mb, *mc;
  int64_t part = complex ? size / 2 : size, bad = 0, same = 0, elements = 0;
  memset(&r, 0, sizeof r);
  memset(&hb, 0, sizeof hb);
  r.dtype = dtype;
  mm_fill(&A, dtype);
  mm_fill(&B, dtype);
  mm_scalars(&r, &hb, which);
  if (hb.beta_zero)
    memset(C.host, 0xff, (size_t)(C.span * size)); /* NaN (or -1): must not be read */
  else
    mm_fill(&C, dtype);
  if (floating && k > 0 && (hb.alpha_f[0] != 0 || hb.alpha_f[1] != 0) && next_random() % 8 == 0) {
    /* (not with alpha 0: BLAS then reads neither a nor b, and the CPU gives 0 where its own
     * loops, and the kernel, give NaN) */
    mm_plant(&A, dtype, batch, NAN);
    mm_plant(&B, dtype, batch, next_random() % 2 ? INFINITY : -INFINITY);
  }
  /* the CPU: its matmul, and its own loops */
  want = malloc((size_t)(C.span * size));
  own = malloc((size_t)(C.span * size));
  got = malloc((size_t)(C.span * size));
  memcpy(want, C.host, (size_t)(C.span * size));
  memcpy(own, C.host, (size_t)(C.span * size));
  r.batch = batch;
  r.m = m;
  r.n = n;
  r.k = k;
  r.a = mm_request_operand(&A, A.host, complex && next_random() % 2);
  r.b = mm_request_operand(&B, B.host, complex && next_random() % 2);
  r.c = mm_request_operand(&C, want, false);
  CHECK(dlx_cpu_backend.matmul(&r, NULL) == 0);
  dlx_buffer_release((dlx_buffer *)r.c.buffer);
  r.c = mm_request_operand(&C, own, false);
  for (int64_t i = 0; i < batch; i++) dlx_cpu_small_product(dtype)(&r, i);
  /* the kernel */
  mm_to_svm(&A, size, misalign);
  mm_to_svm(&B, size, misalign);
  mm_to_svm(&C, size, misalign);
  hb.dtype = dtype;
  hb.mode = mode;
  hb.aligned = A.shift % part == 0 && B.shift % part == 0 && C.shift % part == 0;
  hb.batch = batch;
  hb.m = m;
  hb.n = n;
  hb.k = k;
  mm_block_operand(&hb.a_rs, &hb.a_cs, &hb.a_bs, &A, size);
  mm_block_operand(&hb.b_rs, &hb.b_cs, &hb.b_bs, &B, size);
  mm_block_operand(&hb.c_rs, &hb.c_cs, &hb.c_bs, &C, size);
  hb.conj_a = r.a.conj;
  hb.conj_b = r.b.conj;
  {
    void *const args[4] = {C.mem + C.shift, A.mem + A.shift, B.mem + B.shift, blk};
    if (mode == DLX_ZE_MATMUL_DIRECT) { /* grid-stride: fewer work-groups than elements too */
      int64_t needed = (batch * m * n + DLX_ZE_GROUP_SIZE - 1) / DLX_ZE_GROUP_SIZE;
      int64_t groups = needed / (1 + (int64_t)(next_random() % 3));
      host_access(blk, sizeof hb, 1);
      memcpy(blk, &hb, sizeof hb);
      host_access(blk, sizeof hb, 0);
      CHECK(run(DLX_ZE_KERNEL_MATMUL, (size_t)(groups > 0 ? groups : 1), args, 4) == 0);
    } else { /* a work-group a tile, in one to three launches (first_tile) */
      int cls = dtype == DLX_FLOAT64      ? DLX_ZE_MM_CLASS_DOUBLE
                : dtype == DLX_COMPLEX64  ? DLX_ZE_MM_CLASS_C64
                : dtype == DLX_COMPLEX128 ? DLX_ZE_MM_CLASS_C128
                : kind == DLX_KIND_FLOAT  ? DLX_ZE_MM_CLASS_FLOAT
                                          : DLX_ZE_MM_CLASS_INTEGER;
      int64_t tiles = batch * dlx_ze_mm_tiles_max(cls, m, n);
      int64_t chunk = (tiles + 2) / (1 + (int64_t)(next_random() % 3));
      for (hb.first_tile = 0; hb.first_tile < tiles; hb.first_tile += chunk) {
        int64_t groups = tiles - hb.first_tile < chunk ? tiles - hb.first_tile : chunk;
        host_access(blk, sizeof hb, 1);
        memcpy(blk, &hb, sizeof hb);
        host_access(blk, sizeof hb, 0);
        CHECK(run(DLX_ZE_KERNEL_MATMUL, (size_t)groups, args, 4) == 0);
      }
    }
  }
  host_access(C.mem, (size_t)(C.span * size) + 16, 1);
  memcpy(got, C.mem + C.shift, (size_t)(C.span * size));
  host_access(C.mem, (size_t)(C.span * size) + 16, 0);
  /* compare: the elements of c within the tolerance (integers exactly), the rest untouched */
  is_element = calloc((size_t)C.span, 1);
  ma = mm_magnitudes(&A, dtype);
  mb = mm_magnitudes(&B, dtype);
  mc = mm_magnitudes(&C, dtype);
  for (int64_t i = 0; i < batch; i++)
    for (int64_t row = 0; row < m; row++)
      for (int64_t col = 0; col < n; col++) {
        int64_t p = mm_at(&C, i, row, col);
        double bound = 0, alpha = hypot(hb.alpha_f[0], hb.alpha_f[1]);
        double beta = hypot(hb.beta_f[0], hb.beta_f[1]);
        const unsigned char *g = got + p * size, *w = want + p * size;
        is_element[p] = 1;
        elements++;
        same += mm_same(dtype, g, own + p * size);
        if (!floating) {
          bad += memcmp(g, w, (size_t)size) != 0;
          continue;
        }
        for (int64_t l = 0; l < k; l++)
          bound += ma[mm_at(&A, i, row, l)] * mb[mm_at(&B, i, l, col)];
        bound = alpha * bound + (hb.beta_zero ? 0 : beta * mc[p]);
        bad += !mm_close(dtype, g, w, bound, k);
      }
  for (int64_t p = 0; p < C.span; p++)
    if (!is_element[p]) bad += memcmp(got + p * size, C.host + p * size, (size_t)size) != 0;
  if (bad != 0)
    fprintf(stderr,
            "matmul %s %s: batch %lld, %lld x %lld @ %lld x %lld, scalars %d%s: %lld elements "
            "wrong\n",
            dlx_dtype_info_of(dtype)->name, mode == DLX_ZE_MATMUL_TILED ? "tiled" : "direct",
            (long long)batch, (long long)m, (long long)k, (long long)k, (long long)n, which,
            hb.aligned ? "" : ", misaligned", (long long)bad);
  CHECK(bad == 0);
  mm_products++;
  mm_elements += elements;
  mm_identical += same == elements;
  dlx_buffer_release((dlx_buffer *)r.a.buffer);
  dlx_buffer_release((dlx_buffer *)r.b.buffer);
  dlx_buffer_release((dlx_buffer *)r.c.buffer);
  free(ma);
  free(mb);
  free(mc);
  free(is_element);
  free(want);
  free(own);
  free(got);
  free(A.host);
  free(B.host);
  free(C.host);
  clSVMFree(context, A.mem);
  clSVMFree(context, B.mem);
  clSVMFree(context, C.mem);
  clSVMFree(context, blk);
}

/* Every dtype, both modes, over sizes: 1 x 1, k = 0, a row and a column, batches, tiles'
 * multiples and sizes that are not, inner dims of several k-steps. */
void test_matmuls(void) {
  static const int64_t sizes[][4] = {/* batch, m, n, k */
                                     {1, 1, 1, 1},     {1, 1, 1, 0},      {2, 5, 7, 0},
                                     {1, 3, 5, 4},     {3, 4, 4, 4},      {1, 1, 100, 40},
                                     {1, 100, 1, 40},  {2, 33, 65, 17},   {4, 64, 64, 64},
                                     {1, 70, 129, 33}, {2, 130, 67, 300}, {7, 16, 20, 9}};
  int64_t before = mm_products, identical = mm_identical;
  printf("matmul: sub-groups of %zu\n", subgroup_size_of(DLX_ZE_KERNEL_MATMUL));
  for (int dtype = DLX_BOOL; dtype <= DLX_COMPLEX128; dtype++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (int64_t mode = DLX_ZE_MATMUL_TILED; mode <= DLX_ZE_MATMUL_DIRECT; mode++)
        test_matmul((dlx_dtype)dtype, mode, sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3]);
  printf("matmul: %lld products, %lld of them bit for bit the CPU's own loops\n",
         (long long)(mm_products - before), (long long)(mm_identical - identical));
}
