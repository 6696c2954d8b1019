/* check.h -- the few macros the C tests use. A test is a main() that returns check_failures.
 * A test built from several files defines DLX_CHECK_SHARED in each, and the counters in one
 * (int check_failures, check_count;), so that every file counts in the same two. */
#ifndef DLX_TESTS_CHECK_H
#define DLX_TESTS_CHECK_H

#include <stdio.h>

#ifdef DLX_CHECK_SHARED
extern int check_failures;
extern int check_count;
#else
static int check_failures = 0;
static int check_count = 0;
#endif

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    check_count++;                                                                                 \
    if (!(cond)) {                                                                                 \
      check_failures++;                                                                            \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                     \
    }                                                                                              \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
  do {                                                                                             \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);                                \
    check_count++;                                                                                 \
    if (check_a_ != check_b_) {                                                                    \
      check_failures++;                                                                            \
      fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n", __FILE__, __LINE__, #a,    \
              #b, check_a_, check_b_);                                                             \
    }                                                                                              \
  } while (0)

/* Prints the summary line and returns the exit status. */
static inline int check_report(const char *name) {
  printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
  return check_failures == 0 ? 0 : 1;
}

#endif
