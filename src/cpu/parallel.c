/* parallel.c -- the thread count and the thread pool of the CPU kernels.
 *
 * A job is n items cut into blocks. The calling thread publishes it, wakes as many sleeping
 * workers as could help, and takes blocks itself; each worker that wakes takes blocks too,
 * one at a time, while any are left. The caller then waits only for blocks a worker has
 * actually taken: a worker that the OS has not scheduled yet (a busy machine) holds nothing
 * up, it finds the job gone when it wakes. Workers sleep on a condition variable between jobs
 * and never spin, so idle workers take no CPU time from the host's threads.
 *
 * Blocks are claimed with one atomic word, the job's generation in the high half and the next
 * block in the low half, so a late worker can never take a block of a newer job for the old
 * one. A job is only replaced once all its blocks are done.
 *
 * One job at a time: a second thread calling in while the pool is busy (several host threads,
 * each with its own Lua state) runs its kernel on its own thread, as does a kernel called from
 * inside a block. */
#define _GNU_SOURCE /* sched_getaffinity */
#include "cpu/parallel.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 1024
#define MAX_BLOCKS ((int64_t)1 << 30) /* block indices fit the claim word's low half */

/* 0: not decided yet; otherwise the count in use. */
static atomic_int thread_count;

/* Cores this process may run on. */
static int available_cores(void) {
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
#endif
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static int default_threads(void) {
  const char *env = getenv("DLX_NUM_THREADS");
  if (env != NULL) {
    char *end;
    long n = strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0) return n > MAX_THREADS ? MAX_THREADS : (int)n;
  }
#ifdef DLX_WITH_THREADS
  int n = available_cores();
  return n > MAX_THREADS ? MAX_THREADS : n;
#else
  (void)available_cores;
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

void dlx_cpu_set_num_threads(int n) {
  atomic_store(&thread_count, n > 0 ? (n > MAX_THREADS ? MAX_THREADS : n) : default_threads());
}

#ifdef DLX_WITH_THREADS

typedef struct pool_job {
  dlx_cpu_range_fn fn;
  void *ctx;
  int64_t n, block, blocks;
  int helpers; /* workers 0 .. helpers-1 may take blocks */
} pool_job;

static struct {
  pthread_mutex_t lock;
  pthread_cond_t finished;              /* the caller: the last block is done */
  atomic_flag busy;                     /* a caller owns the pool */
  int workers;                          /* started so far; only grows */
  pthread_cond_t wake[MAX_THREADS - 1]; /* worker i: a new job (generation changed) */
  uint32_t generation;                  /* of the current job, under lock */
  pool_job job;                         /* under lock */
  _Atomic uint64_t claim;               /* generation << 32 | next block */
  atomic_int_fast64_t done;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
          .finished = PTHREAD_COND_INITIALIZER,
          .busy = ATOMIC_FLAG_INIT};

/* Set (non-NULL) on pool workers, and on a caller while it runs blocks: kernels called from a
 * block run on their own thread. A pthread key rather than _Thread_local: the library is often
 * a dlopened module, and LeakSanitizer's thread walk at exit crashes on the dynamic TLS of
 * such modules in threads it did not start with. */
static pthread_key_t job_key;
static bool job_key_ok;
static pthread_once_t job_key_once = PTHREAD_ONCE_INIT;
static void make_job_key(void) { job_key_ok = pthread_key_create(&job_key, NULL) == 0; }

static void set_in_job(bool on) { pthread_setspecific(job_key, on ? &job_key : NULL); }

/* False when the pool may be used from this thread. */
static bool in_job(void) {
  pthread_once(&job_key_once, make_job_key);
  return !job_key_ok || pthread_getspecific(job_key) != NULL;
}

/* Takes the next block of job generation gen; false when none is left or the job is gone. */
static bool claim_block(uint32_t gen, int64_t blocks, int64_t *b) {
  uint64_t c = atomic_load(&pool.claim);
  do {
    if ((uint32_t)(c >> 32) != gen || (int64_t)(c & 0xffffffffu) >= blocks) return false;
  } while (!atomic_compare_exchange_weak(&pool.claim, &c, c + 1));
  *b = (int64_t)(c & 0xffffffffu);
  return true;
}

/* Runs blocks of job gen while any are left; the thread that finishes the last tells the
 * caller. */
static void run_blocks(const pool_job *job, uint32_t gen, bool caller) {
  int64_t b;
  while (claim_block(gen, job->blocks, &b)) {
    int64_t begin = b * job->block, end = b == job->blocks - 1 ? job->n : begin + job->block;
    job->fn(job->ctx, begin, end);
    if (atomic_fetch_add(&pool.done, 1) + 1 == job->blocks && !caller) {
      pthread_mutex_lock(&pool.lock);
      pthread_cond_signal(&pool.finished);
      pthread_mutex_unlock(&pool.lock);
    }
  }
}

static void *worker_main(void *arg) {
  int index = (int)(intptr_t)arg;
  uint32_t seen;
  set_in_job(true);
  pthread_mutex_lock(&pool.lock);
  seen = pool.generation - 1; /* started for the current job: help with it */
  for (;;) {
    while (pool.generation == seen) pthread_cond_wait(&pool.wake[index], &pool.lock);
    seen = pool.generation;
    pool_job job = pool.job;
    pthread_mutex_unlock(&pool.lock);
    if (index < job.helpers) run_blocks(&job, seen, false);
    pthread_mutex_lock(&pool.lock);
  }
  return NULL;
}

/* Starts workers up to `want` (under lock); fewer when the system refuses threads. Workers
 * block every signal, so that the host's handlers run on the host's threads. */
static void start_workers(int want) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  while (pool.workers < want) {
    pthread_t t;
    pthread_attr_t attr;
    if (pthread_cond_init(&pool.wake[pool.workers], NULL) != 0) break;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, worker_main, (void *)(intptr_t)pool.workers);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
      pthread_cond_destroy(&pool.wake[pool.workers]);
      break;
    }
    pool.workers++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* fork: the child has none of the workers, and the lock must not be held by one of them. */
static void before_fork(void) { pthread_mutex_lock(&pool.lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&pool.lock); }
static void after_fork_child(void) {
  pool.workers = 0;
  atomic_flag_clear(&pool.busy);
  pthread_mutex_unlock(&pool.lock);
}
static pthread_once_t fork_handlers = PTHREAD_ONCE_INIT;
static void install_fork_handlers(void) {
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* Runs the job on the pool with up to `threads` threads, the caller included. */
static void run_on_pool(const pool_job *job, int threads) {
  pthread_once(&fork_handlers, install_fork_handlers);
  pthread_mutex_lock(&pool.lock);
  start_workers(threads - 1);
  pool.job = *job;
  pool.job.helpers = threads - 1;
  uint32_t gen = ++pool.generation;
  atomic_store(&pool.done, 0);
  atomic_store(&pool.claim, (uint64_t)gen << 32);
  /* Wake the workers that may help, no more than there are blocks for besides the caller's. */
  int64_t wanted = job->blocks - 1 < pool.job.helpers ? job->blocks - 1 : pool.job.helpers;
  for (int64_t i = 0; i < wanted && i < pool.workers; i++) pthread_cond_signal(&pool.wake[i]);
  pthread_mutex_unlock(&pool.lock);

  set_in_job(true);
  run_blocks(job, gen, true);
  set_in_job(false);
  if (atomic_load(&pool.done) < job->blocks) { /* blocks still running on workers */
    pthread_mutex_lock(&pool.lock);
    while (atomic_load(&pool.done) < job->blocks) pthread_cond_wait(&pool.finished, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
  }
}

#endif

void dlx_cpu_parallel_for(int64_t n, int64_t grain, dlx_cpu_range_fn fn, void *ctx) {
  if (n <= 0) return;
  int64_t threads = dlx_cpu_num_threads();
  if (grain < 1) grain = 1;
  if (threads > n / grain) threads = n / grain;
#ifdef DLX_WITH_THREADS
  if (threads > 1 && !in_job() && !atomic_flag_test_and_set(&pool.busy)) {
    int64_t block = grain;
    if ((n + block - 1) / block > MAX_BLOCKS) block = (n + MAX_BLOCKS - 1) / MAX_BLOCKS;
    pool_job job = {fn, ctx, n, block, (n + block - 1) / block, 0};
    run_on_pool(&job, (int)threads);
    atomic_flag_clear(&pool.busy);
    return;
  }
#endif
  fn(ctx, 0, n);
}
