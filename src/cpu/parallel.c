/* parallel.c -- the thread count and the parallel range loop of the CPU kernels. */
#include "cpu/parallel.h"

#include <stdatomic.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* 0: not decided yet; otherwise the count in use. */
static atomic_int thread_count;

static int default_threads(void) {
  const char *env = getenv("DLX_NUM_THREADS");
  if (env != NULL) {
    char *end;
    long n = strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0) return n > 1024 ? 1024 : (int)n;
  }
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

int dlx_cpu_num_threads(void) {
  int n = atomic_load(&thread_count);
  if (n == 0) {
    n = default_threads();
    atomic_store(&thread_count, n);
  }
  return n;
}

void dlx_cpu_set_num_threads(int n) { atomic_store(&thread_count, n > 0 ? n : default_threads()); }

void dlx_cpu_parallel_for(int64_t n, int64_t grain, dlx_cpu_range_fn fn, void *ctx) {
  if (n <= 0) return;
  int64_t threads = dlx_cpu_num_threads();
  if (grain < 1) grain = 1;
  if (threads > n / grain) threads = n / grain;
#ifdef _OPENMP
  if (omp_in_parallel()) threads = 1; /* already on a worker: no nested teams */
#endif
  if (threads <= 1) {
    fn(ctx, 0, n);
    return;
  }
#ifdef _OPENMP
  /* Blocks of grain items handed out one at a time: a thread that the OS preempts (the machine
   * may be busy) delays one block, not a fixed share of the work. */
  int64_t blocks = (n + grain - 1) / grain;
#pragma omp parallel for num_threads((int)threads) schedule(dynamic, 1)
  for (int64_t b = 0; b < blocks; b++) {
    fn(ctx, b * grain, b == blocks - 1 ? n : (b + 1) * grain);
  }
#else
  fn(ctx, 0, n);
#endif
}
