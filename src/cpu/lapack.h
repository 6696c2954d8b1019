/* lapack.h -- the LAPACK routines the CPU's linalg entry calls (src/cpu/linalg.c), one wrapper
 * a routine for the four dtypes (s, d, c, z), through LAPACKE's _work functions in column-major
 * order: they call LAPACK as it is, without LAPACKE's transposed copies, NaN checks or
 * allocations. Matrices have their rows as leading dimension unless an ld is given. A workspace
 * query is the call with lwork (and lrwork, liwork) = -1: the sizes come back in work[0]
 * (rwork[0], iwork[0]). Real outputs (s, w, rwork) are float for float32 and complex64. */
#ifndef DLX_CPU_LAPACK_H
#define DLX_CPU_LAPACK_H

#include <lapacke.h>

#include "core/dtype.h"

typedef lapack_int dlx_li;

dlx_li dlx_lp_getrf(dlx_dtype t, dlx_li m, dlx_li n, void *a, dlx_li *ipiv);
dlx_li dlx_lp_getrs(dlx_dtype t, dlx_li n, dlx_li k, const void *a, const dlx_li *ipiv, void *b);
dlx_li dlx_lp_getri(dlx_dtype t, dlx_li n, void *a, const dlx_li *ipiv, void *work, dlx_li lwork);
dlx_li dlx_lp_gesv(dlx_dtype t, dlx_li n, dlx_li k, void *a, dlx_li *ipiv, void *b);
dlx_li dlx_lp_potrf(dlx_dtype t, char uplo, dlx_li n, void *a);
dlx_li dlx_lp_geqrf(dlx_dtype t, dlx_li m, dlx_li n, void *a, void *tau, void *work, dlx_li lwork);
/* orgqr, or ungqr for complex dtypes */
dlx_li dlx_lp_orgqr(dlx_dtype t, dlx_li m, dlx_li n, dlx_li k, void *a, const void *tau, void *work,
                    dlx_li lwork);
dlx_li dlx_lp_gesdd(dlx_dtype t, char jobz, dlx_li m, dlx_li n, void *a, void *s, void *u,
                    dlx_li ldu, void *vt, dlx_li ldvt, void *work, dlx_li lwork, void *rwork,
                    dlx_li *iwork);
/* syevd, or heevd for complex dtypes (rwork and lrwork unused for real ones) */
dlx_li dlx_lp_syevd(dlx_dtype t, char jobz, char uplo, dlx_li n, void *a, void *w, void *work,
                    dlx_li lwork, void *rwork, dlx_li lrwork, dlx_li *iwork, dlx_li liwork);
/* Right eigenvectors only. Real dtypes: eigenvalues in wr and wi, vectors packed in vr as
 * LAPACK packs conjugate pairs; complex ones: eigenvalues in wr, wi unused. */
dlx_li dlx_lp_geev(dlx_dtype t, char jobvr, dlx_li n, void *a, void *wr, void *wi, void *vr,
                   void *work, dlx_li lwork, void *rwork);
dlx_li dlx_lp_gelsd(dlx_dtype t, dlx_li m, dlx_li n, dlx_li k, void *a, void *b, dlx_li ldb,
                    void *s, double rcond, dlx_li *rank, void *work, dlx_li lwork, void *rwork,
                    dlx_li *iwork);
dlx_li dlx_lp_trtrs(dlx_dtype t, char uplo, char diag, dlx_li n, dlx_li k, const void *a, void *b);

#endif
