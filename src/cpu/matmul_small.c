/* matmul_small.c -- the CPU's own matrix product loops (matmul.h): every dtype, any strides.
 *
 * Each row of c is built in a small accumulator array: for each l, row l of b scaled by
 * a[r, l] is added to it (an axpy, which the compiler vectorizes when b's rows are contiguous),
 * then the row is stored with alpha and beta applied once. float16 and bfloat16 accumulate in
 * float32, integers in 64 bits (unsigned arithmetic, which wraps as the dtypes do), bool with or
 * and and. A float product of fixed small sizes (3, 4, 6: poses, transforms) on contiguous
 * matrices is compiled for those sizes, so its loops unroll (with alpha 1 and beta 0 such
 * products run matmul_fixed.c's vector kernels instead, which give these loops' bits). */
#include <string.h>

#include "common/half.h"
#include "cpu/matmul.h"

#define ROW_BLOCK 64 /* columns of c accumulated at once */

typedef struct {
  float re, im;
} c64;
typedef struct {
  double re, im;
} c128;

/* ---- loads and stores of each dtype, to and from the accumulator type */

#define LOAD_SELF(p) (p)
#define LOAD_HALF(p) dlx_half_to_float(p)
#define LOAD_BF16(p) dlx_bf16_to_float(p)
#define STORE_SELF(x) (x)
#define STORE_HALF(x) dlx_float_to_half(x)
#define STORE_BF16(x) dlx_float_to_bf16(x)

/* The product of batch element i for a real dtype T accumulated in ACC. The function is inline
 * so that the fixed-size callers below get their sizes and unit strides as constants. */
#define REAL_PRODUCT(NAME, T, ACC, LOAD, STORE)                                                    \
  static inline void NAME(const dlx_matmul_request *r, int64_t i, int64_t m, int64_t n, int64_t k, \
                          int64_t ars, int64_t acs, int64_t brs, int64_t bcs, int64_t crs,         \
                          int64_t ccs, ACC alpha, ACC beta, bool plain) {                          \
    const T *a = DLX_CPU_OPERAND(const T, &r->a, i);                                               \
    const T *b = DLX_CPU_OPERAND(const T, &r->b, i);                                               \
    T *c = DLX_CPU_OPERAND(T, &r->c, i);                                                           \
    for (int64_t row = 0; row < m; row++) {                                                        \
      for (int64_t j0 = 0; j0 < n; j0 += ROW_BLOCK) {                                              \
        int64_t w = n - j0 < ROW_BLOCK ? n - j0 : ROW_BLOCK;                                       \
        ACC acc[ROW_BLOCK];                                                                        \
        for (int64_t j = 0; j < w; j++) acc[j] = 0;                                                \
        for (int64_t l = 0; l < k; l++) {                                                          \
          ACC x = (ACC)LOAD(a[row * ars + l * acs]);                                               \
          const T *bl = b + l * brs + j0 * bcs;                                                    \
          for (int64_t j = 0; j < w; j++) acc[j] += x * (ACC)LOAD(bl[j * bcs]);                    \
        }                                                                                          \
        T *cr = c + row * crs + j0 * ccs;                                                          \
        for (int64_t j = 0; j < w; j++)                                                            \
          cr[j * ccs] = plain            ? STORE(acc[j])                                           \
                        : beta == (ACC)0 ? STORE(alpha * acc[j])                                   \
                                         : STORE(alpha * acc[j] + beta * (ACC)LOAD(cr[j * ccs]));  \
      }                                                                                            \
    }                                                                                              \
  }

REAL_PRODUCT(product_f32, float, float, LOAD_SELF, STORE_SELF)
REAL_PRODUCT(product_f64, double, double, LOAD_SELF, STORE_SELF)
REAL_PRODUCT(product_f16, uint16_t, float, LOAD_HALF, STORE_HALF)
REAL_PRODUCT(product_bf16, uint16_t, float, LOAD_BF16, STORE_BF16)
REAL_PRODUCT(product_i8, int8_t, uint64_t, LOAD_SELF, STORE_SELF)
REAL_PRODUCT(product_i16, int16_t, uint64_t, LOAD_SELF, STORE_SELF)
REAL_PRODUCT(product_i32, int32_t, uint64_t, LOAD_SELF, STORE_SELF)
REAL_PRODUCT(product_i64, int64_t, uint64_t, LOAD_SELF, STORE_SELF)
REAL_PRODUCT(product_u8, uint8_t, uint64_t, LOAD_SELF, STORE_SELF)
REAL_PRODUCT(product_u16, uint16_t, uint64_t, LOAD_SELF, STORE_SELF)
REAL_PRODUCT(product_u32, uint32_t, uint64_t, LOAD_SELF, STORE_SELF)
REAL_PRODUCT(product_u64, uint64_t, uint64_t, LOAD_SELF, STORE_SELF)

/* bool: c = (alpha and (a[r, 0] and b[0, j] or ...)) or (beta and c) */
static void product_bool(const dlx_matmul_request *r, int64_t i) {
  const uint8_t *a = DLX_CPU_OPERAND(const uint8_t, &r->a, i);
  const uint8_t *b = DLX_CPU_OPERAND(const uint8_t, &r->b, i);
  uint8_t *c = DLX_CPU_OPERAND(uint8_t, &r->c, i);
  for (int64_t row = 0; row < r->m; row++)
    for (int64_t j = 0; j < r->n; j++) {
      uint8_t any = 0;
      for (int64_t l = 0; l < r->k && !any; l++)
        any = a[row * r->a.row_stride + l * r->a.col_stride] != 0 &&
              b[l * r->b.row_stride + j * r->b.col_stride] != 0;
      uint8_t *cj = c + row * r->c.row_stride + j * r->c.col_stride;
      *cj = (r->alpha.v.b && any) || (r->beta.v.b && *cj != 0);
    }
}

/* Complex dtypes: the real and imaginary parts accumulated apart (no libgcc complex multiply,
 * which checks for NaN on every product). */
#define COMPLEX_PRODUCT(NAME, T, R)                                                                \
  static void NAME(const dlx_matmul_request *r, int64_t i) {                                       \
    const T *a = DLX_CPU_OPERAND(const T, &r->a, i);                                               \
    const T *b = DLX_CPU_OPERAND(const T, &r->b, i);                                               \
    T *c = DLX_CPU_OPERAND(T, &r->c, i);                                                           \
    R sa = r->a.conj ? -1 : 1, sb = r->b.conj ? -1 : 1;                                            \
    R ar = (R)r->alpha.v.c[0], ai = (R)r->alpha.v.c[1];                                            \
    R br = (R)r->beta.v.c[0], bi = (R)r->beta.v.c[1];                                              \
    bool read_c = br != 0 || bi != 0;                                                              \
    for (int64_t row = 0; row < r->m; row++) {                                                     \
      for (int64_t j0 = 0; j0 < r->n; j0 += ROW_BLOCK) {                                           \
        int64_t w = r->n - j0 < ROW_BLOCK ? r->n - j0 : ROW_BLOCK;                                 \
        R re[ROW_BLOCK], im[ROW_BLOCK];                                                            \
        for (int64_t j = 0; j < w; j++) re[j] = im[j] = 0;                                         \
        for (int64_t l = 0; l < r->k; l++) {                                                       \
          T x = a[row * r->a.row_stride + l * r->a.col_stride];                                    \
          R xr = x.re, xi = sa * x.im;                                                             \
          const T *bl = b + l * r->b.row_stride + j0 * r->b.col_stride;                            \
          for (int64_t j = 0; j < w; j++) {                                                        \
            T y = bl[j * r->b.col_stride];                                                         \
            R yi = sb * y.im;                                                                      \
            re[j] += xr * y.re - xi * yi;                                                          \
            im[j] += xr * yi + xi * y.re;                                                          \
          }                                                                                        \
        }                                                                                          \
        T *cr = c + row * r->c.row_stride + j0 * r->c.col_stride;                                  \
        for (int64_t j = 0; j < w; j++) {                                                          \
          T *cj = cr + j * r->c.col_stride;                                                        \
          R vr = ar * re[j] - ai * im[j], vi = ar * im[j] + ai * re[j];                            \
          if (read_c) {                                                                            \
            R cr0 = cj->re, ci0 = cj->im;                                                          \
            vr += br * cr0 - bi * ci0;                                                             \
            vi += br * ci0 + bi * cr0;                                                             \
          }                                                                                        \
          cj->re = vr;                                                                             \
          cj->im = vi;                                                                             \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }

COMPLEX_PRODUCT(product_c64, c64, float)
COMPLEX_PRODUCT(product_c128, c128, double)

/* ---- real dtypes: alpha and beta, and the fixed sizes */

static double real_of(const dlx_scalar *s) { return s->kind == DLX_KIND_FLOAT ? s->v.f : 0; }

static bool plain(const dlx_matmul_request *r) { return r->alpha.v.f == 1 && r->beta.v.f == 0; }

/* Square products of side N on matrices whose rows are contiguous and packed (strides N, 1). */
static bool packed_square(const dlx_matmul_request *r, int64_t side) {
  return r->m == side && r->n == side && r->k == side && r->a.col_stride == 1 &&
         r->a.row_stride == side && r->b.col_stride == 1 && r->b.row_stride == side &&
         r->c.col_stride == 1 && r->c.row_stride == side;
}

#define FLOAT_CALLER(NAME, PRODUCT, ACC)                                                           \
  static void NAME(const dlx_matmul_request *r, int64_t i) {                                       \
    ACC alpha = (ACC)real_of(&r->alpha), beta = (ACC)real_of(&r->beta);                            \
    bool p = plain(r);                                                                             \
    if (packed_square(r, 4))                                                                       \
      PRODUCT(r, i, 4, 4, 4, 4, 1, 4, 1, 4, 1, alpha, beta, p);                                    \
    else if (packed_square(r, 3))                                                                  \
      PRODUCT(r, i, 3, 3, 3, 3, 1, 3, 1, 3, 1, alpha, beta, p);                                    \
    else if (packed_square(r, 6))                                                                  \
      PRODUCT(r, i, 6, 6, 6, 6, 1, 6, 1, 6, 1, alpha, beta, p);                                    \
    else                                                                                           \
      PRODUCT(r, i, r->m, r->n, r->k, r->a.row_stride, r->a.col_stride, r->b.row_stride,           \
              r->b.col_stride, r->c.row_stride, r->c.col_stride, alpha, beta, p);                  \
  }

FLOAT_CALLER(run_f32, product_f32, float)
FLOAT_CALLER(run_f64, product_f64, double)

#define OTHER_CALLER(NAME, PRODUCT, ACC, ALPHA, BETA, PLAIN)                                       \
  static void NAME(const dlx_matmul_request *r, int64_t i) {                                       \
    PRODUCT(r, i, r->m, r->n, r->k, r->a.row_stride, r->a.col_stride, r->b.row_stride,             \
            r->b.col_stride, r->c.row_stride, r->c.col_stride, (ACC)(ALPHA), (ACC)(BETA), PLAIN);  \
  }

OTHER_CALLER(run_f16, product_f16, float, real_of(&r->alpha), real_of(&r->beta), plain(r))
OTHER_CALLER(run_bf16, product_bf16, float, real_of(&r->alpha), real_of(&r->beta), plain(r))
#define INT_PLAIN (r->alpha.v.i == 1 && r->beta.v.i == 0)
OTHER_CALLER(run_i8, product_i8, uint64_t, r->alpha.v.i, r->beta.v.i, INT_PLAIN)
OTHER_CALLER(run_i16, product_i16, uint64_t, r->alpha.v.i, r->beta.v.i, INT_PLAIN)
OTHER_CALLER(run_i32, product_i32, uint64_t, r->alpha.v.i, r->beta.v.i, INT_PLAIN)
OTHER_CALLER(run_i64, product_i64, uint64_t, r->alpha.v.i, r->beta.v.i, INT_PLAIN)
OTHER_CALLER(run_u8, product_u8, uint64_t, r->alpha.v.i, r->beta.v.i, INT_PLAIN)
OTHER_CALLER(run_u16, product_u16, uint64_t, r->alpha.v.i, r->beta.v.i, INT_PLAIN)
OTHER_CALLER(run_u32, product_u32, uint64_t, r->alpha.v.i, r->beta.v.i, INT_PLAIN)
OTHER_CALLER(run_u64, product_u64, uint64_t, r->alpha.v.i, r->beta.v.i, INT_PLAIN)

dlx_cpu_product_fn dlx_cpu_small_product(dlx_dtype dtype) {
  switch (dtype) {
  case DLX_BOOL:
    return product_bool;
  case DLX_INT8:
    return run_i8;
  case DLX_INT16:
    return run_i16;
  case DLX_INT32:
    return run_i32;
  case DLX_INT64:
    return run_i64;
  case DLX_UINT8:
    return run_u8;
  case DLX_UINT16:
    return run_u16;
  case DLX_UINT32:
    return run_u32;
  case DLX_UINT64:
    return run_u64;
  case DLX_FLOAT16:
    return run_f16;
  case DLX_BFLOAT16:
    return run_bf16;
  case DLX_FLOAT32:
    return run_f32;
  case DLX_FLOAT64:
    return run_f64;
  case DLX_COMPLEX64:
    return product_c64;
  case DLX_COMPLEX128:
    return product_c128;
  default:
    return NULL;
  }
}
