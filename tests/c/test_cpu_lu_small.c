/* test_cpu_lu_small.c -- the CPU's own LU factorisation and solve of small real matrices
 * (src/cpu/lu_small.c), which the linalg entry calls in LAPACK's place for matrices up to
 * DLX_CPU_LU_SMALL: on random m x n matrices of every size up to it, float32 and float64, the
 * factors rebuild A (P L U = A within a few eps), L's multipliers are at most 1 (partial
 * pivoting), the solves leave a small residual and agree with LAPACK's getrs on the same factors;
 * getrf's info is LAPACK's on matrices with an exactly zero column (the first zero pivot, the
 * factorisation completed); the pivot is the first of equal magnitudes; a pivot whose
 * reciprocal would overflow divides instead; NaN propagates. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cpu/lu_small.h"
#include "cpu_test_util.h"

#define MAXN DLX_CPU_LU_SMALL

/* A column-major m x n matrix of doubles in [-1, 1], a column zeroed when zero_col >= 0. */
static void random_matrix(double *a, int m, int n, int zero_col) {
  for (int i = 0; i < m * n; i++) a[i] = 2 * rnd_unit() - 1;
  if (zero_col >= 0)
    for (int i = 0; i < m; i++) a[i + zero_col * m] = 0;
}

/* getrf in dtype f32 or f64 on a copy of a (doubles), the factors back as doubles. */
static dlx_li factor(bool f32, const double *a, double *lu, int m, int n, dlx_li *ipiv) {
  dlx_li info;
  if (f32) {
    float x[MAXN * MAXN];
    for (int i = 0; i < m * n; i++) x[i] = (float)a[i];
    info = dlx_cpu_getrf_small_f32(x, m, n, ipiv);
    for (int i = 0; i < m * n; i++) lu[i] = x[i];
  } else {
    memcpy(lu, a, sizeof(double) * (size_t)(m * n));
    info = dlx_cpu_getrf_small_f64(lu, m, n, ipiv);
  }
  return info;
}

/* max |P L U - A| / max |A| for the factors of the m x n matrix a. */
static double rebuild_error(const double *a, const double *lu, int m, int n, const dlx_li *ipiv) {
  double plu[MAXN * MAXN], worst = 0, big = 0;
  int mn = m < n ? m : n;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int l = 0; l <= (i < j ? i : j) && l < mn; l++) /* L unit lower (m x mn), U (mn x n) */
        s += (l == i ? 1 : lu[i + l * m]) * lu[l + j * m];
      plu[i + j * m] = s;
    }
  for (int q = mn - 1; q >= 0; q--) /* undo the swaps, last first */
    for (int j = 0; j < n; j++) {
      double t = plu[q + j * m];
      plu[q + j * m] = plu[ipiv[q] - 1 + j * m];
      plu[ipiv[q] - 1 + j * m] = t;
    }
  for (int i = 0; i < m * n; i++) {
    if (fabs(plu[i] - a[i]) > worst) worst = fabs(plu[i] - a[i]);
    if (fabs(a[i]) > big) big = fabs(a[i]);
  }
  return big > 0 ? worst / big : worst;
}

static void test_factor(bool f32, int m, int n) {
  double a[MAXN * MAXN], lu[MAXN * MAXN], eps = f32 ? FLT_EPSILON : DBL_EPSILON;
  dlx_li ipiv[MAXN];
  int mn = m < n ? m : n;
  random_matrix(a, m, n, -1);
  if (f32)
    for (int i = 0; i < m * n; i++) a[i] = (float)a[i];
  CHECK_EQ_INT(factor(f32, a, lu, m, n, ipiv), 0);
  double err = rebuild_error(a, lu, m, n, ipiv);
  if (!(err <= 4 * mn * eps))
    printf("  %s %d x %d: |PLU - A| = %g |A|\n", f32 ? "float32" : "float64", m, n, err);
  CHECK(err <= 4 * mn * eps);
  bool bounded = true, pivots = true;
  for (int j = 0; j < mn; j++) {
    pivots = pivots && ipiv[j] >= j + 1 && ipiv[j] <= m;
    for (int i = j + 1; i < m; i++) bounded = bounded && fabs(lu[i + j * m]) <= 1;
  }
  CHECK(pivots);
  CHECK(bounded);
}

/* Solves against LAPACK's getrs on the same factors, and the residual of A X = B. */
static void test_solve(bool f32, int n, int k) {
  double a[MAXN * MAXN], lu[MAXN * MAXN], b[MAXN * 3], x[MAXN * 3], y[MAXN * 3];
  double eps = f32 ? FLT_EPSILON : DBL_EPSILON, worst = 0, vs_lapack = 0, scale = 0;
  dlx_li ipiv[MAXN];
  random_matrix(a, n, n, -1);
  for (int i = 0; i < n; i++) a[i + i * n] += n; /* well conditioned, */
  for (int i = n - 1; i > 0; i--) {              /* its rows shuffled: pivots swap them back */
    int r = (int)rnd_below(i + 1);
    for (int j = 0; j < n; j++) {
      double t = a[i + j * n];
      a[i + j * n] = a[r + j * n];
      a[r + j * n] = t;
    }
  }
  random_matrix(b, n, k, -1);
  if (f32) {
    float fa[MAXN * MAXN], fb[MAXN * 3], fy[MAXN * 3];
    for (int i = 0; i < n * n; i++) fa[i] = (float)a[i], a[i] = fa[i];
    for (int i = 0; i < n * k; i++) fb[i] = fy[i] = (float)b[i], b[i] = fb[i];
    CHECK_EQ_INT(dlx_cpu_getrf_small_f32(fa, n, n, ipiv), 0);
    dlx_cpu_getrs_small_f32(fa, n, ipiv, fb, k);
    CHECK_EQ_INT(LAPACKE_sgetrs(LAPACK_COL_MAJOR, 'N', n, k, fa, n, ipiv, fy, n), 0);
    for (int i = 0; i < n * k; i++) x[i] = fb[i], y[i] = fy[i];
  } else {
    memcpy(lu, a, sizeof(double) * (size_t)(n * n));
    memcpy(x, b, sizeof(double) * (size_t)(n * k));
    memcpy(y, b, sizeof(double) * (size_t)(n * k));
    CHECK_EQ_INT(dlx_cpu_getrf_small_f64(lu, n, n, ipiv), 0);
    dlx_cpu_getrs_small_f64(lu, n, ipiv, x, k);
    CHECK_EQ_INT(LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, k, lu, n, ipiv, y, n), 0);
  }
  for (int c = 0; c < k; c++)
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int l = 0; l < n; l++) s += a[i + l * n] * x[l + c * n];
      if (fabs(s - b[i + c * n]) > worst) worst = fabs(s - b[i + c * n]);
      if (fabs(x[i + c * n] - y[i + c * n]) > vs_lapack)
        vs_lapack = fabs(x[i + c * n] - y[i + c * n]);
      if (fabs(y[i + c * n]) > scale) scale = fabs(y[i + c * n]);
    }
  CHECK(worst <= 8 * n * eps * (n + 1));
  CHECK(vs_lapack <= 8 * n * eps * scale);
}

/* A zero column (two, now and then): the first zero pivot is its index, as LAPACK's getrf says
 * too. */
static void test_singular(bool f32, int n) {
  double a[MAXN * MAXN], lu[MAXN * MAXN];
  dlx_li ipiv[MAXN], lapack_ipiv[MAXN];
  int zero = (int)rnd_below(n), later = zero + 1 + (int)rnd_below(n);
  random_matrix(a, n, n, zero);
  if (later < n)
    for (int i = 0; i < n; i++) a[i + later * n] = 0;
  dlx_li info = factor(f32, a, lu, n, n, ipiv), want;
  if (f32) {
    float x[MAXN * MAXN];
    for (int i = 0; i < n * n; i++) x[i] = (float)a[i];
    want = LAPACKE_sgetrf(LAPACK_COL_MAJOR, n, n, x, n, lapack_ipiv);
  } else {
    want = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a, n, lapack_ipiv);
  }
  CHECK_EQ_INT(info, zero + 1);
  CHECK_EQ_INT(want, zero + 1);
}

/* Special values: a subnormal pivot (its reciprocal overflows) divides; NaN propagates. */
static void test_special(void) {
  double a[4] = {0x1p-1030, 0x1p-1031, 0, 1}; /* column-major [[2^-1030, 0], [2^-1031, 1]] */
  dlx_li ipiv[2];
  CHECK_EQ_INT(dlx_cpu_getrf_small_f64(a, 2, 2, ipiv), 0);
  CHECK(a[1] == 0.5 && ipiv[0] == 1 && a[3] == 1); /* 2^1030 would overflow */
  float f[4] = {0x1p-130f, 0x1p-132f, 0, 1};
  CHECK_EQ_INT(dlx_cpu_getrf_small_f32(f, 2, 2, ipiv), 0);
  CHECK(f[1] == 0.25f && ipiv[0] == 1 && f[3] == 1);
  double tie[9] = {1, -1, 1, 2, 3, 4, 5, 6, 8}, lapack_tie[9]; /* pivot: the first of the 1s */
  dlx_li p3[3], lapack_p3[3];
  memcpy(lapack_tie, tie, sizeof tie);
  CHECK_EQ_INT(dlx_cpu_getrf_small_f64(tie, 3, 3, p3), 0);
  CHECK_EQ_INT(LAPACKE_dgetrf(LAPACK_COL_MAJOR, 3, 3, lapack_tie, 3, lapack_p3), 0);
  CHECK(p3[0] == 1 && lapack_p3[0] == 1 && p3[1] == lapack_p3[1] && p3[2] == lapack_p3[2]);
  double nan[9] = {1, 2, 3, 4, NAN, 6, 7, 8, 10}, b[3] = {1, 1, 1};
  dlx_cpu_getrf_small_f64(nan, 3, 3, p3);
  dlx_cpu_getrs_small_f64(nan, 3, p3, b, 1);
  CHECK(isnan(b[0]) || isnan(b[1]) || isnan(b[2]));
  double one[1] = {0};
  dlx_li p1[1];
  CHECK_EQ_INT(dlx_cpu_getrf_small_f64(one, 1, 1, p1), 1); /* a 1 x 1 zero */
  CHECK_EQ_INT(p1[0], 1);
}

int main(void) {
  uint64_t seed = 0x10a11u;
  printf("test_cpu_lu_small: seed %llu\n", (unsigned long long)seed);
  rng_state = seed;
  for (int f32 = 0; f32 < 2; f32++)
    for (int m = 1; m <= MAXN; m++) {
      for (int n = 1; n <= MAXN; n++) test_factor(f32, m, n);
      for (int k = 1; k <= 3; k++) test_solve(f32, m, k);
      for (int rep = 0; rep < 3; rep++) test_singular(f32, m);
    }
  test_special();
  return check_report("test_cpu_lu_small");
}
