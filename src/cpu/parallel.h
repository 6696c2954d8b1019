/* parallel.h -- threads for the CPU kernels: a pool of POSIX threads (parallel.c) when the build
 * has them (DLX_WITH_THREADS).
 *
 * Work is split into ranges of "items" (rows, tiles, chunks: whatever the kernel counts); a
 * kernel only goes parallel when each thread gets at least `grain` items, so small tensors stay
 * on the calling thread. Which thread runs which block is decided at run time by who is free,
 * so kernels whose result could depend on how work is split (sums) split it into pieces of a
 * fixed size, keep each piece's result and combine them in a fixed order: neither the thread
 * count nor the machine's load ever changes a result. */
#ifndef DLX_CPU_PARALLEL_H
#define DLX_CPU_PARALLEL_H

#include <stdint.h>

/* Bytes a thread should at least touch before a second thread is worth starting. */
#define DLX_CPU_GRAIN_BYTES ((int64_t)1 << 20)

/* The number of threads kernels may use, the caller included: DLX_NUM_THREADS when set to a
 * positive number (read once), else the cores this process may run on; 1 without threads. */
int dlx_cpu_num_threads(void);
/* Overrides the count for the rest of the process (tests compare 1 and 2 threads); n <= 0
 * goes back to the default. */
void dlx_cpu_set_num_threads(int n);

/* Calls fn(ctx, begin, end) on disjoint ranges covering [0, n): blocks of grain items taken by
 * the calling thread and by up to dlx_cpu_num_threads() - 1 pool workers as they come free
 * (woken only when the work pays for their wake-up). It returns when every block is done,
 * without waiting for a worker that took none. A single
 * call on this thread when n < 2 * grain, when called from inside a block, or while another
 * thread has the pool. */
typedef void (*dlx_cpu_range_fn)(void *ctx, int64_t begin, int64_t end);
void dlx_cpu_parallel_for(int64_t n, int64_t grain, dlx_cpu_range_fn fn, void *ctx);

/* Workers woken so far, for tests: a job wakes workers only when its blocks outlast a wake-up
 * (the pool measures both), so short blocks stay on the calling thread. */
long dlx_cpu_pool_wakeups(void);
/* For tests: the workers that are not asleep (running blocks, or staying awake for a moment
 * after a job in case another comes). */
int dlx_cpu_pool_awake(void);
/* For tests: sets the wake-up time the pool has learned (ns; <= 0: its first guess), as a busy
 * spell would have. */
void dlx_cpu_pool_set_wake_ns(int64_t ns);
/* For tests: how long a worker stays awake after a job, waiting for the next (ns; <= 0: the
 * pool's 1 ms), so that a test of it does not hang on the machine's speed (valgrind's). */
void dlx_cpu_pool_set_awake_ns(int64_t ns);

/* Items of item_bytes each that make one grain (at least 1). */
static inline int64_t dlx_cpu_grain_items(int64_t item_bytes) {
  return item_bytes >= DLX_CPU_GRAIN_BYTES
             ? 1
             : DLX_CPU_GRAIN_BYTES / (item_bytes > 0 ? item_bytes : 1);
}

#endif
