/* test_threads_pool.c -- the CPU kernels' thread pool (src/cpu/parallel.c), run in the normal
 * suite and under ThreadSanitizer (ctest tsan.test_threads_pool):
 *   - every item of [0, n) is handed out exactly once, in ranges of whole blocks, for thread
 *     counts 1 to 4 (more threads than this machine's cores too) and many sizes and grains;
 *   - the work really spreads when it pays: with 2 threads and blocks far longer than a
 *     wake-up, a worker takes blocks while the caller is busy; blocks far shorter stay on the
 *     caller and wake no worker as a rule (a fraction of the jobs may, on a slow machine);
 *   - a long job wakes a worker whatever wake-up time the pool learned in a slow spell;
 *   - a worker stays awake for a moment after a job, then sleeps; it never joins a short job
 *     that the pool keeps on the caller;
 *   - a range function that calls the pool again runs that inner loop on its own thread;
 *   - several host threads calling at once all get their work done (one owns the pool, the
 *     others run on their own thread);
 *   - real kernels (a long sum, a copy) on 1, 2 and 3 threads agree bit for bit, while host
 *     threads use the pool at the same time. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "core/core.h"
#include "cpu/parallel.h"

/* ---- coverage */

typedef struct cover {
  int64_t n, grain;
  atomic_int *hits;    /* per item */
  atomic_int bad;      /* ranges that are empty, out of bounds or not whole blocks */
  atomic_int calls;    /* range calls */
  pthread_t caller;    /* the thread that called the pool */
  atomic_int by_other; /* ranges run by another thread */
} cover;

static void cover_range(void *ctx, int64_t begin, int64_t end) {
  cover *c = ctx;
  bool whole =
      end - begin == c->n || (begin % c->grain == 0 && (end == c->n || end % c->grain == 0));
  if (begin < 0 || end > c->n || begin >= end || !whole) atomic_fetch_add(&c->bad, 1);
  for (int64_t i = begin; i < end && i < c->n && i >= 0; i++) atomic_fetch_add(&c->hits[i], 1);
  atomic_fetch_add(&c->calls, 1);
  if (!pthread_equal(pthread_self(), c->caller)) atomic_fetch_add(&c->by_other, 1);
}

/* Runs the pool over n items; true when each item was seen once in well-formed ranges (no
 * CHECK here: host threads call it too). *others gets the ranges run by other threads. */
static bool covers(int64_t n, int64_t grain, int *others) {
  cover c = {.n = n, .grain = grain > 0 ? grain : 1, .caller = pthread_self()};
  c.hits = calloc((size_t)(n > 0 ? n : 1), sizeof *c.hits);
  dlx_cpu_parallel_for(n, grain, cover_range, &c);
  bool ok = atomic_load(&c.bad) == 0 && (n > 0 || atomic_load(&c.calls) == 0);
  for (int64_t i = 0; i < n; i++) ok = ok && atomic_load(&c.hits[i]) == 1;
  free(c.hits);
  *others = atomic_load(&c.by_other);
  return ok;
}

static void test_cover(void) {
  static const int64_t sizes[] = {0, 1, 2, 3, 7, 64, 1000, 4097, 100000};
  static const int64_t grains[] = {0, 1, 2, 5, 64, 1000};
  for (int threads = 1; threads <= 4; threads++) {
    dlx_cpu_set_num_threads(threads);
    CHECK_EQ_INT(dlx_cpu_num_threads(), threads);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++) {
        int others;
        CHECK(covers(sizes[s], grains[g], &others));
        if (threads == 1) CHECK_EQ_INT(others, 0); /* one thread: all on the caller */
      }
    }
  }
  dlx_cpu_set_num_threads(0);
}

/* ---- the work spreads when it pays: blocks much longer than a wake-up get a worker, which
 * takes blocks while the caller is busy (the caller's later blocks wait for a worker's); blocks
 * far shorter than a wake-up mostly stay on the caller, no worker woken for them as a rule.
 *
 * No check here counts on how fast a thread runs or is scheduled (valgrind runs one thread at
 * a time, a sanitizer or a busy machine stretches any interval): the waits are for events, or
 * bounded far beyond a slow machine's worst, and counts of what the scheduler decides are
 * bounded by a fraction, not by zero. */

typedef struct spread {
  pthread_t caller;
  atomic_int caller_blocks, worker_blocks;
  atomic_bool first_done; /* the caller's first block is over (and so the pool decided) */
  atomic_int waited_ms;   /* by the caller's later blocks, for a worker's first */
} spread;

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void spread_range(void *ctx, int64_t begin, int64_t end) {
  spread *s = ctx;
  (void)begin, (void)end;
  if (!pthread_equal(pthread_self(), s->caller)) {
    /* a worker still awake from an earlier job may join unwoken: it takes no block before the
     * caller's first is over, however long that one is stretched, so blocks are left when the
     * pool decides to wake a worker */
    while (!atomic_load(&s->first_done)) sleep_ms(1);
    atomic_fetch_add(&s->worker_blocks, 1);
    return;
  }
  if (atomic_fetch_add(&s->caller_blocks, 1) == 0) {
    sleep_ms(20); /* the first block: timed long */
    atomic_store(&s->first_done, true);
    return;
  }
  /* the caller's later blocks wait for a worker's first, 10000 sleeps of 1 ms in all (10 s or
   * more): far longer than a wake-up takes on the slowest machine, yet a pool that woke nobody
   * fails the check instead of hanging */
  while (atomic_load(&s->worker_blocks) == 0 && atomic_fetch_add(&s->waited_ms, 1) < 10000)
    sleep_ms(1);
}

static void test_spread(void) {
  dlx_cpu_set_num_threads(2);
  for (int round = 0; round < 2; round++) { /* woken after the first block, then at once */
    spread s = {.caller = pthread_self()};
    long wakeups = dlx_cpu_pool_wakeups();
    dlx_cpu_parallel_for(64, 1, spread_range, &s);
    CHECK(atomic_load(&s.worker_blocks) > 0);
    CHECK_EQ_INT(atomic_load(&s.worker_blocks) + atomic_load(&s.caller_blocks), 64);
    CHECK(dlx_cpu_pool_wakeups() > wakeups);
  }
  dlx_cpu_set_num_threads(0);
}

/* A long job: 64 blocks of `tenths` tenths of a millisecond of busy work. */
static void busy_range(void *ctx, int64_t begin, int64_t end) {
  long tenths = *(const long *)ctx;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) <
         100000L * tenths * (end - begin));
}

static void long_job(long tenths) { dlx_cpu_parallel_for(64, 1, busy_range, &tenths); }

/* A long job wakes one worker at least, whatever wake-up time the pool has learned (set here:
 * 10 s, as a slow spell could have taught it): the pool learns that time only from the workers
 * it wakes, so a job kept alone by it would never measure it again (workers asleep: 20 ms
 * between the jobs). */
static void test_long_jobs_wake_one(void) {
  dlx_cpu_set_num_threads(2);
  long_job(1); /* blocks of 0.1 ms: the pool's measure */
  dlx_cpu_pool_set_wake_ns(10000000000);
  long wakeups = dlx_cpu_pool_wakeups();
  for (int job = 0; job < 4; job++) {
    sleep_ms(20);
    /* asleep, as a rule long since: a worker still awake (a slow machine) joins unwoken */
    for (int waited = 0; dlx_cpu_pool_awake() > 0 && waited < 2000; waited++) sleep_ms(1);
    long_job(1);
  }
  long woken = dlx_cpu_pool_wakeups() - wakeups;
  printf("long jobs: %ld of 4 woke a worker after a 10 s wake-up was learned\n", woken);
  CHECK(woken == 4);
  dlx_cpu_pool_set_wake_ns(0);
  dlx_cpu_set_num_threads(0);
}

/* Right after a job its worker stays awake for a moment (in case another job comes: the next
 * long one takes it at no wake-up cost), then sleeps; and an awake worker joins only the jobs it
 * is invited to, so the short jobs that the pool keeps on the caller stay there. The moment is
 * 1 ms, which a slow machine can spend between the job and the check: here it is 10 s. And a
 * worker signalled for a job may not run before the job is over (valgrind runs one thread at a
 * time, and not fairly), so it is waited for, 10 s at most, if it was seen awake at no check;
 * once the moment is 1 ms again, it is waited for to sleep, 10 s at most. */
static void test_awake_worker(void) {
  int others = 0, total = 0, awake_after = 0;
  bool ok = true;
  dlx_cpu_set_num_threads(2);
  long_job(1);
  dlx_cpu_pool_set_wake_ns(10000000000); /* no short job is worth a wake-up */
  dlx_cpu_pool_set_awake_ns(10000000000);
  for (int round = 0; round < 20; round++) {
    long_job(1);
    awake_after += dlx_cpu_pool_awake() > 0; /* unless the worker has not run yet */
    ok = ok && covers(8, 1, &others);        /* short, right after: kept on the caller */
    total += others;
  }
  for (int waited = 0; awake_after == 0 && waited < 10000; waited++) {
    awake_after = dlx_cpu_pool_awake() > 0;
    if (!awake_after) sleep_ms(1);
  }
  dlx_cpu_pool_set_awake_ns(0); /* back to 1 ms: the worker sleeps soon */
  int waited = 0;
  while (dlx_cpu_pool_awake() > 0 && waited++ < 10000) sleep_ms(1);
  printf("awake worker: awake after %d of 20 long jobs, asleep %d ms later, ran %d of 160 short "
         "ranges\n",
         awake_after, waited, total);
  CHECK(ok);
  CHECK(awake_after >= 1); /* as a rule all 20 */
  CHECK(dlx_cpu_pool_awake() == 0);
  CHECK_EQ_INT(total, 0);
  dlx_cpu_pool_set_wake_ns(0);
  dlx_cpu_set_num_threads(0);
}

/* Short blocks: the pool wakes a worker for a job of 8 blocks of a few atomic additions in
 * at most one job in SHORT_WAKE_SHARE, and other threads run at most one range in
 * SHORT_WAKE_SHARE. A quiet machine wakes none; but a stretched first block (the caller
 * preempted, valgrind translating the range function's code on its first call) is timed long
 * and may wake a worker for that job, and a worker still awake may join a job unwoken. A pool
 * that woke workers for short blocks as a rule wakes one for every job. */
#define SHORT_JOBS 200
#define SHORT_WAKE_SHARE 10

static void test_short_blocks_stay(void) {
  dlx_cpu_set_num_threads(2);
  int others = 0, total = 0;
  bool ok = true;
  /* the pool's measure of a block forgets the long ones of the tests before */
  for (int round = 0; round < SHORT_JOBS; round++) ok = ok && covers(8, 1, &others);
  sleep_ms(50); /* and workers still awake from them go back to sleep (most likely) */
  long wakeups = dlx_cpu_pool_wakeups();
  for (int round = 0; round < SHORT_JOBS; round++) {
    ok = ok && covers(8, 1, &others);
    total += others;
  }
  long woken = dlx_cpu_pool_wakeups() - wakeups;
  printf("short blocks: %ld of %d jobs woke a worker, %d of %d ranges ran on another thread\n",
         woken, SHORT_JOBS, total, 8 * SHORT_JOBS);
  CHECK(ok);
  CHECK(woken <= SHORT_JOBS / SHORT_WAKE_SHARE);
  CHECK(total <= 8 * SHORT_JOBS / SHORT_WAKE_SHARE);
  dlx_cpu_set_num_threads(0);
}

/* ---- nested: the inner loop is one call on the same thread */

typedef struct nested {
  atomic_int inner_calls, inner_elsewhere, inner_bad;
} nested;

static void inner_range(void *ctx, int64_t begin, int64_t end) {
  void **args = ctx;
  nested *t = args[0];
  pthread_t *outer_thread = args[1];
  atomic_fetch_add(&t->inner_calls, 1);
  if (begin != 0 || end != 1000) atomic_fetch_add(&t->inner_bad, 1);
  if (!pthread_equal(pthread_self(), *outer_thread)) atomic_fetch_add(&t->inner_elsewhere, 1);
}

static void outer_range(void *ctx, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; i++) {
    pthread_t self = pthread_self();
    void *args[2] = {ctx, &self};
    dlx_cpu_parallel_for(1000, 1, inner_range, args);
  }
}

static void test_nested(void) {
  dlx_cpu_set_num_threads(2);
  nested t = {0};
  dlx_cpu_parallel_for(16, 1, outer_range, &t);
  CHECK_EQ_INT(atomic_load(&t.inner_calls), 16);
  CHECK_EQ_INT(atomic_load(&t.inner_bad), 0);
  CHECK_EQ_INT(atomic_load(&t.inner_elsewhere), 0);
  dlx_cpu_set_num_threads(0);
}

/* ---- several host threads at once */

#define HOSTS 4
#define HOST_ROUNDS 200

/* Returns its failures (a count, as a pointer). */
static void *host_loop(void *arg) {
  intptr_t failures = 0;
  int others;
  (void)arg;
  for (int r = 0; r < HOST_ROUNDS; r++) failures += !covers(1 + r * 37 % 3000, 1 + r % 7, &others);
  return (void *)failures;
}

static void test_many_callers(void) {
  dlx_cpu_set_num_threads(3);
  pthread_t hosts[HOSTS];
  for (int i = 0; i < HOSTS; i++) CHECK(pthread_create(&hosts[i], NULL, host_loop, NULL) == 0);
  for (int i = 0; i < HOSTS; i++) {
    void *failures = NULL;
    pthread_join(hosts[i], &failures);
    CHECK_EQ_INT((intptr_t)failures, 0);
  }
  dlx_cpu_set_num_threads(0);
}

/* ---- kernels agree on any thread count, with other callers around */

#define SUM_N ((int64_t)3 << 20) /* 12 MiB of float32: several sum pieces and blocks */

static void make_vector(dlx_tensor *t, dlx_dtype dtype, int64_t n) {
  dlx_error err;
  const int64_t shape[1] = {n};
  CHECK(dlx_tensor_empty(t, shape, 1, dtype, (DLDevice){kDLCPU, 0}, &err) == 0);
}

static atomic_bool stop_busy;

static void *busy_caller(void *arg) {
  intptr_t failures = 0;
  int others;
  (void)arg;
  while (!atomic_load(&stop_busy)) failures += !covers(5000, 10, &others);
  return (void *)failures;
}

static void test_kernels_agree(void) {
  dlx_tensor x, wide[3], sums[3];
  dlx_error err;
  make_vector(&x, DLX_FLOAT32, SUM_N);
  float *p = x.buffer->data;
  uint32_t seed = 12345;
  for (int64_t i = 0; i < SUM_N; i++) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = (float)(seed >> 8) / (float)(1 << 24) * 1000.0f - 300.0f;
  }
  pthread_t other;
  atomic_store(&stop_busy, false);
  CHECK(pthread_create(&other, NULL, busy_caller, NULL) == 0);
  for (int k = 0; k < 3; k++) {
    dlx_cpu_set_num_threads(k + 1);
    make_vector(&wide[k], DLX_FLOAT64, SUM_N);
    CHECK(dlx_copy(&wide[k], &x, &err) == 0);
    CHECK(dlx_reduce(&sums[k], DLX_REDUCE_SUM, &x, 1, false, &err) == 0);
  }
  void *failures = NULL;
  atomic_store(&stop_busy, true);
  pthread_join(other, &failures);
  CHECK_EQ_INT((intptr_t)failures, 0);
  dlx_cpu_set_num_threads(0);
  for (int k = 1; k < 3; k++) {
    CHECK(memcmp(wide[0].buffer->data, wide[k].buffer->data, (size_t)(SUM_N * 8)) == 0);
    CHECK(memcmp(sums[0].buffer->data, sums[k].buffer->data, 4) == 0);
  }
  for (int k = 0; k < 3; k++) {
    dlx_tensor_close(&wide[k]);
    dlx_tensor_close(&sums[k]);
  }
  dlx_tensor_close(&x);
}

int main(void) {
  test_cover();
  test_spread();
  test_short_blocks_stay();
  test_long_jobs_wake_one();
  test_awake_worker();
  test_nested();
  test_many_callers();
  test_kernels_agree();
  return check_report("test_threads_pool");
}
