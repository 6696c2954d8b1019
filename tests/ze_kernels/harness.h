/* harness.h -- what the files of test_ze_kernels share (harness.c): the OpenCL device, context,
 * queue and program, shared virtual memory, kernel launches, the random numbers every check
 * draws from, layouts over raw memory and the comparison of results. Each other file checks one
 * family of kernels (src/ze/kernels) and offers its test_<family> functions to main, which
 * test_ze_kernels.c holds. The checks count in check.h's counters, shared by every file
 * (DLX_CHECK_SHARED). */
#ifndef DLX_TESTS_ZE_KERNELS_HARNESS_H
#define DLX_TESTS_ZE_KERNELS_HARNESS_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "core/backend.h"
#include "core/tensor.h"
#include "ze/kernels/ze_args.h"

#define SKIP 77

/* ---- OpenCL (harness.c) */

/* The context of the device, for clSVMFree. */
extern cl_context context;

/* The first OpenCL device, its context and queue, and the program (build_program(0)): 0, SKIP
 * when there is no device, 1 on an error. */
int open_device(void);
/* Releases what open_device made. */
void close_device(void);
/* The SPIR-V at DLX_ZE_KERNEL_IL, or the source built with -DDLX_ZE_TEST_SUBGROUP_SIZE=n when
 * n > 0. */
int build_program(int subgroup_size);
/* The sub-group size kernel `name` runs with (1: no sub-groups; 0: no such kernel). */
size_t subgroup_size_of(const char *name);
/* The sub-group sizes the device offers (cl_intel_required_subgroup_size); 0 when it names none. */
size_t device_subgroup_sizes(size_t *sizes, size_t max);
/* n bytes (at least 1) of shared virtual memory; exits when there are none. */
void *svm(size_t n);
/* svm(bytes) holding a copy of from's bytes. */
void *svm_copy(const void *from, size_t bytes);
/* Host access to coarse-grained SVM happens between a map (on) and an unmap (off). */
void host_access(void *p, size_t n, int on);
/* Runs kernel `name` on `groups` work-groups; args are SVM pointers (interior ones allowed). */
int run(const char *name, size_t groups, void *const *args, int nargs);

/* ---- random numbers: one sequence for the whole run, so that a run is the same every time */

uint64_t next_random(void);
void random_bytes(unsigned char *p, int64_t n);

/* ---- tensors over raw memory */

/* A view over `base` (which holds `span` bytes): shape, element strides, first element at byte
 * `first`. */
typedef struct layout {
  int32_t ndim;
  int64_t shape[4], strides[4], first, span;
} layout;

/* A random layout of shape: dims permuted, some flipped, the last dim possibly strided. */
layout random_layout(int32_t ndim, const int64_t *shape, int64_t itemsize);
/* l's first element and span for its strides (some may have been set to 0). */
void set_span(layout *l, int64_t itemsize);
/* A CPU tensor over base in layout l (the buffer does not own base). */
dlx_tensor as_tensor(const layout *l, dlx_dtype dtype, void *base);
/* l's element strides in bytes, as the argument blocks take them. */
void byte_strides(const layout *l, int64_t itemsize, dlx_ze_i64 *out);

/* ---- results */

/* a and b equal, both NaN, or within rel (and 1e-12). */
bool close_values(double a, double b, double rel);
/* n results of dtype at p as doubles (two an element for complex dtypes), to compare within a
 * tolerance. */
void result_values(const unsigned char *p, dlx_dtype dtype, int64_t n, double *out);

/* ---- the families (one file each) */

void test_copies(void);          /* copies.c: casts, raw copies, fills */
void test_reductions(void);      /* reductions.c */
void test_elementwise_ops(void); /* elementwise.c */
void test_math_ulp(void);        /* elementwise.c: the math functions' accuracy */
void test_stats(void);           /* stats.c: var, std, logsumexp, norm */
void test_along_dims(void);      /* stats.c: cumsum, cumprod, softmax, log_softmax */
void test_randoms(void);         /* random.c */
void test_sorts(void);           /* sort.c */
void test_indexing(void);        /* indexing.c */
void test_matmuls(void);         /* matmul.c */
void test_row_scans(void);       /* rows.c: cummax, cummin, logcumsumexp */
void test_images(void);          /* image.c: pooling and resizing */
void test_counts(void);          /* count.c: histograms and searchsorted */

/* reductions.c's argument block for a reduction of l over dims, also the start of the
 * statistics' (stats.c). */
void reduce_args(const layout *l, uint64_t dims, dlx_dtype from, dlx_reduce_op op, dlx_dtype to,
                 int64_t chunks, dlx_ze_reduce_args *a);

#endif
