/* test_ze_kernels.c -- the Level Zero backend's OpenCL C kernels (src/ze/kernels) run by an
 * OpenCL CPU device against dlx's CPU backend on random inputs, a file a family of kernels, as
 * src/ze/kernels splits them: copies.c (casts, raw copies, fills), reductions.c, elementwise.c
 * (with the math functions' accuracy), stats.c (var, std, logsumexp, norm, the ops along a
 * dim), random.c, sort.c, indexing.c, matmul.c, rows.c (the row scans), image.c (pooling and
 * resizing), count.c (histograms, searchsorted); harness.c (harness.h) holds the OpenCL side
 * and what they share. This file runs them in turn. Memory is OpenCL shared virtual memory, so
 * that kernels get interior pointers exactly as Level Zero USM gives them; layouts are random
 * (permuted, padded, negative and stride-0 strides).
 *
 * The kernels are built from source, or, with DLX_ZE_KERNEL_IL=path, loaded from the SPIR-V that
 * the library embeds (clCreateProgramWithIL). PoCL (CI) has no sub-groups: the reductions then
 * combine in local memory alone. A device with Intel sub-groups (Intel's CPU OpenCL runtime, see
 * tests/ze_kernels/intel_opencl_rt.sh) runs the shuffles too: built from source, the reductions
 * and the matrix products are run again with the sub-group size pinned to each size the device
 * offers.
 * DLX_ZE_EXPECT_SUBGROUPS=1 fails the test when the reductions ran without sub-groups.
 *
 * Exit status 77 (a skip for ctest) when there is no OpenCL device; 1 when a check fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The reductions and the matrix products again with the sub-group size pinned to each size the
 * device offers. */
static void test_reductions_per_subgroup_size(void) {
  size_t sizes[16], count = device_subgroup_sizes(sizes, 16);
  for (size_t i = 0; i < count; i++) {
    if (build_program((int)sizes[i]) != 0) {
      check_failures++;
      continue;
    }
    CHECK(subgroup_size_of(DLX_ZE_KERNEL_REDUCE_PARTIAL) == sizes[i]);
    printf("reductions: sub-groups of %zu (pinned)\n", sizes[i]);
    test_reductions();
    CHECK(subgroup_size_of(DLX_ZE_KERNEL_MATMUL) == sizes[i]);
    test_matmuls();
  }
}

/* The families, run in this order (every check draws from one sequence of random numbers, so the
 * order fixes the inputs), each with its count of checks printed. */
static const struct {
  const char *name;
  void (*run)(void);
} families[] = {
    {"copies", test_copies},
    {"reductions", test_reductions},
    {"elementwise", test_elementwise_ops},
    {"math ulp", test_math_ulp},
    {"stats", test_stats},
    {"along a dim", test_along_dims},
    {"random", test_randoms},
    {"sort", test_sorts},
    {"indexing", test_indexing},
    {"matmul", test_matmuls},
    {"row scans", test_row_scans},
    {"image", test_images},
    {"count", test_counts},
};

int main(void) {
  const char *expect = getenv("DLX_ZE_EXPECT_SUBGROUPS"), *il = getenv("DLX_ZE_KERNEL_IL");
  size_t subgroup;
  int rc = open_device();
  if (rc != 0) return rc;
  subgroup = subgroup_size_of(DLX_ZE_KERNEL_REDUCE_PARTIAL);
  printf("kernels: %s; reductions: sub-groups of %zu\n",
         il != NULL && il[0] != '\0' ? il : "built from source", subgroup);
  if (expect != NULL && strcmp(expect, "1") == 0 && subgroup <= 1) {
    fprintf(stderr, "DLX_ZE_EXPECT_SUBGROUPS=1, but the reductions ran without sub-groups\n");
    check_failures++;
  }
  for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
    int before = check_count;
    families[i].run();
    printf("%s: %d checks\n", families[i].name, check_count - before);
  }
  if (il == NULL || il[0] == '\0') {
    int before = check_count;
    test_reductions_per_subgroup_size();
    printf("pinned sub-group sizes: %d checks\n", check_count - before);
  }
  close_device();
  return check_report("test_ze_kernels");
}
