/* lapack.c -- one wrapper a LAPACK routine for the four dtypes (see lapack.h). */
#include "cpu/lapack.h"

#define COL LAPACK_COL_MAJOR
#define F(p) ((float *)(p))
#define D(p) ((double *)(p))
#define C(p) ((lapack_complex_float *)(p))
#define Z(p) ((lapack_complex_double *)(p))
#define CF(p) ((const float *)(p))
#define CD(p) ((const double *)(p))
#define CC(p) ((const lapack_complex_float *)(p))
#define CZ(p) ((const lapack_complex_double *)(p))

/* The LAPACK info of an argument LAPACKE does not know (a dtype no routine takes): -1. */
#define BAD_DTYPE (-1)

dlx_li dlx_lp_getrf(dlx_dtype t, dlx_li m, dlx_li n, void *a, dlx_li *ipiv) {
  switch (t) {
  case DLX_FLOAT32:
    return LAPACKE_sgetrf_work(COL, m, n, F(a), m, ipiv);
  case DLX_FLOAT64:
    return LAPACKE_dgetrf_work(COL, m, n, D(a), m, ipiv);
  case DLX_COMPLEX64:
    return LAPACKE_cgetrf_work(COL, m, n, C(a), m, ipiv);
  case DLX_COMPLEX128:
    return LAPACKE_zgetrf_work(COL, m, n, Z(a), m, ipiv);
  default:
    return BAD_DTYPE;
  }
}

dlx_li dlx_lp_getrs(dlx_dtype t, dlx_li n, dlx_li k, const void *a, const dlx_li *ipiv, void *b) {
  switch (t) {
  case DLX_FLOAT32:
    return LAPACKE_sgetrs_work(COL, 'N', n, k, CF(a), n, ipiv, F(b), n);
  case DLX_FLOAT64:
    return LAPACKE_dgetrs_work(COL, 'N', n, k, CD(a), n, ipiv, D(b), n);
  case DLX_COMPLEX64:
    return LAPACKE_cgetrs_work(COL, 'N', n, k, CC(a), n, ipiv, C(b), n);
  case DLX_COMPLEX128:
    return LAPACKE_zgetrs_work(COL, 'N', n, k, CZ(a), n, ipiv, Z(b), n);
  default:
    return BAD_DTYPE;
  }
}

dlx_li dlx_lp_getri(dlx_dtype t, dlx_li n, void *a, const dlx_li *ipiv, void *work, dlx_li lwork) {
  switch (t) {
  case DLX_FLOAT32:
    return LAPACKE_sgetri_work(COL, n, F(a), n, ipiv, F(work), lwork);
  case DLX_FLOAT64:
    return LAPACKE_dgetri_work(COL, n, D(a), n, ipiv, D(work), lwork);
  case DLX_COMPLEX64:
    return LAPACKE_cgetri_work(COL, n, C(a), n, ipiv, C(work), lwork);
  case DLX_COMPLEX128:
    return LAPACKE_zgetri_work(COL, n, Z(a), n, ipiv, Z(work), lwork);
  default:
    return BAD_DTYPE;
  }
}

dlx_li dlx_lp_gesv(dlx_dtype t, dlx_li n, dlx_li k, void *a, dlx_li *ipiv, void *b) {
  switch (t) {
  case DLX_FLOAT32:
    return LAPACKE_sgesv_work(COL, n, k, F(a), n, ipiv, F(b), n);
  case DLX_FLOAT64:
    return LAPACKE_dgesv_work(COL, n, k, D(a), n, ipiv, D(b), n);
  case DLX_COMPLEX64:
    return LAPACKE_cgesv_work(COL, n, k, C(a), n, ipiv, C(b), n);
  case DLX_COMPLEX128:
    return LAPACKE_zgesv_work(COL, n, k, Z(a), n, ipiv, Z(b), n);
  default:
    return BAD_DTYPE;
  }
}

dlx_li dlx_lp_potrf(dlx_dtype t, char uplo, dlx_li n, void *a) {
  switch (t) {
  case DLX_FLOAT32:
    return LAPACKE_spotrf_work(COL, uplo, n, F(a), n);
  case DLX_FLOAT64:
    return LAPACKE_dpotrf_work(COL, uplo, n, D(a), n);
  case DLX_COMPLEX64:
    return LAPACKE_cpotrf_work(COL, uplo, n, C(a), n);
  case DLX_COMPLEX128:
    return LAPACKE_zpotrf_work(COL, uplo, n, Z(a), n);
  default:
    return BAD_DTYPE;
  }
}

dlx_li dlx_lp_geqrf(dlx_dtype t, dlx_li m, dlx_li n, void *a, void *tau, void *work, dlx_li lwork) {
  switch (t) {
  case DLX_FLOAT32:
    return LAPACKE_sgeqrf_work(COL, m, n, F(a), m, F(tau), F(work), lwork);
  case DLX_FLOAT64:
    return LAPACKE_dgeqrf_work(COL, m, n, D(a), m, D(tau), D(work), lwork);
  case DLX_COMPLEX64:
    return LAPACKE_cgeqrf_work(COL, m, n, C(a), m, C(tau), C(work), lwork);
  case DLX_COMPLEX128:
    return LAPACKE_zgeqrf_work(COL, m, n, Z(a), m, Z(tau), Z(work), lwork);
  default:
    return BAD_DTYPE;
  }
}

dlx_li dlx_lp_orgqr(dlx_dtype t, dlx_li m, dlx_li n, dlx_li k, void *a, const void *tau, void *work,
                    dlx_li lwork) {
  switch (t) {
  case DLX_FLOAT32:
    return LAPACKE_sorgqr_work(COL, m, n, k, F(a), m, CF(tau), F(work), lwork);
  case DLX_FLOAT64:
    return LAPACKE_dorgqr_work(COL, m, n, k, D(a), m, CD(tau), D(work), lwork);
  case DLX_COMPLEX64:
    return LAPACKE_cungqr_work(COL, m, n, k, C(a), m, CC(tau), C(work), lwork);
  case DLX_COMPLEX128:
    return LAPACKE_zungqr_work(COL, m, n, k, Z(a), m, CZ(tau), Z(work), lwork);
  default:
    return BAD_DTYPE;
  }
}

dlx_li dlx_lp_gesdd(dlx_dtype t, char jobz, dlx_li m, dlx_li n, void *a, void *s, void *u,
                    dlx_li ldu, void *vt, dlx_li ldvt, void *work, dlx_li lwork, void *rwork,
                    dlx_li *iwork) {
  switch (t) {
  case DLX_FLOAT32:
    return LAPACKE_sgesdd_work(COL, jobz, m, n, F(a), m, F(s), F(u), ldu, F(vt), ldvt, F(work),
                               lwork, iwork);
  case DLX_FLOAT64:
    return LAPACKE_dgesdd_work(COL, jobz, m, n, D(a), m, D(s), D(u), ldu, D(vt), ldvt, D(work),
                               lwork, iwork);
  case DLX_COMPLEX64:
    return LAPACKE_cgesdd_work(COL, jobz, m, n, C(a), m, F(s), C(u), ldu, C(vt), ldvt, C(work),
                               lwork, F(rwork), iwork);
  case DLX_COMPLEX128:
    return LAPACKE_zgesdd_work(COL, jobz, m, n, Z(a), m, D(s), Z(u), ldu, Z(vt), ldvt, Z(work),
                               lwork, D(rwork), iwork);
  default:
    return BAD_DTYPE;
  }
}

dlx_li dlx_lp_syevd(dlx_dtype t, char jobz, char uplo, dlx_li n, void *a, void *w, void *work,
                    dlx_li lwork, void *rwork, dlx_li lrwork, dlx_li *iwork, dlx_li liwork) {
  switch (t) {
  case DLX_FLOAT32:
    return LAPACKE_ssyevd_work(COL, jobz, uplo, n, F(a), n, F(w), F(work), lwork, iwork, liwork);
  case DLX_FLOAT64:
    return LAPACKE_dsyevd_work(COL, jobz, uplo, n, D(a), n, D(w), D(work), lwork, iwork, liwork);
  case DLX_COMPLEX64:
    return LAPACKE_cheevd_work(COL, jobz, uplo, n, C(a), n, F(w), C(work), lwork, F(rwork), lrwork,
                               iwork, liwork);
  case DLX_COMPLEX128:
    return LAPACKE_zheevd_work(COL, jobz, uplo, n, Z(a), n, D(w), Z(work), lwork, D(rwork), lrwork,
                               iwork, liwork);
  default:
    return BAD_DTYPE;
  }
}

dlx_li dlx_lp_geev(dlx_dtype t, char jobvr, dlx_li n, void *a, void *wr, void *wi, void *vr,
                   void *work, dlx_li lwork, void *rwork) {
  dlx_li ldvr = jobvr == 'V' ? n : 1;
  switch (t) {
  case DLX_FLOAT32:
    return LAPACKE_sgeev_work(COL, 'N', jobvr, n, F(a), n, F(wr), F(wi), NULL, 1, F(vr), ldvr,
                              F(work), lwork);
  case DLX_FLOAT64:
    return LAPACKE_dgeev_work(COL, 'N', jobvr, n, D(a), n, D(wr), D(wi), NULL, 1, D(vr), ldvr,
                              D(work), lwork);
  case DLX_COMPLEX64:
    return LAPACKE_cgeev_work(COL, 'N', jobvr, n, C(a), n, C(wr), NULL, 1, C(vr), ldvr, C(work),
                              lwork, F(rwork));
  case DLX_COMPLEX128:
    return LAPACKE_zgeev_work(COL, 'N', jobvr, n, Z(a), n, Z(wr), NULL, 1, Z(vr), ldvr, Z(work),
                              lwork, D(rwork));
  default:
    return BAD_DTYPE;
  }
}

dlx_li dlx_lp_gelsd(dlx_dtype t, dlx_li m, dlx_li n, dlx_li k, void *a, void *b, dlx_li ldb,
                    void *s, double rcond, dlx_li *rank, void *work, dlx_li lwork, void *rwork,
                    dlx_li *iwork) {
  switch (t) {
  case DLX_FLOAT32:
    return LAPACKE_sgelsd_work(COL, m, n, k, F(a), m, F(b), ldb, F(s), (float)rcond, rank, F(work),
                               lwork, iwork);
  case DLX_FLOAT64:
    return LAPACKE_dgelsd_work(COL, m, n, k, D(a), m, D(b), ldb, D(s), rcond, rank, D(work), lwork,
                               iwork);
  case DLX_COMPLEX64:
    return LAPACKE_cgelsd_work(COL, m, n, k, C(a), m, C(b), ldb, F(s), (float)rcond, rank, C(work),
                               lwork, F(rwork), iwork);
  case DLX_COMPLEX128:
    return LAPACKE_zgelsd_work(COL, m, n, k, Z(a), m, Z(b), ldb, D(s), rcond, rank, Z(work), lwork,
                               D(rwork), iwork);
  default:
    return BAD_DTYPE;
  }
}

dlx_li dlx_lp_trtrs(dlx_dtype t, char uplo, char diag, dlx_li n, dlx_li k, const void *a, void *b) {
  switch (t) {
  case DLX_FLOAT32:
    return LAPACKE_strtrs_work(COL, uplo, 'N', diag, n, k, CF(a), n, F(b), n);
  case DLX_FLOAT64:
    return LAPACKE_dtrtrs_work(COL, uplo, 'N', diag, n, k, CD(a), n, D(b), n);
  case DLX_COMPLEX64:
    return LAPACKE_ctrtrs_work(COL, uplo, 'N', diag, n, k, CC(a), n, C(b), n);
  case DLX_COMPLEX128:
    return LAPACKE_ztrtrs_work(COL, uplo, 'N', diag, n, k, CZ(a), n, Z(b), n);
  default:
    return BAD_DTYPE;
  }
}
