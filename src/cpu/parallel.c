/* parallel.c -- the thread count and the thread pool of the CPU kernels.
 *
 * A job is n items cut into blocks. The calling thread publishes it and takes blocks itself;
 * each worker it wakes takes blocks too, one at a time, while any are left. The caller then
 * waits only for blocks a worker has actually taken: a worker that the OS has not scheduled yet
 * (a busy machine) holds nothing up, it finds the job gone when it wakes. Workers sleep on a
 * condition variable between jobs, after staying awake for a moment in case another comes
 * (AWAKE_NS, below: yielding their core to any thread that wants it), so idle workers take no
 * CPU time from the host's threads. A worker takes part only in the jobs it is invited to.
 *
 * Waking a worker pays only when the work left outlasts the wake-up by a margin: a worker
 * that arrives late takes a block the caller would have finished sooner, and the caller then
 * waits for it. So the pool measures both as it runs: how long a block takes (the caller
 * times its first block of each job) and how long a worker takes to start after its signal
 * (which grows when the machine is busy). A job wakes workers at once when the blocks past
 * the caller's first, at the measured cost per block, pay for it; otherwise the caller starts
 * alone and decides again after its first block, with that block's own time.
 *
 * A short job (a few blocks) that passes this test may still be faster alone: a worker that
 * must fetch the caller's data from another core's cache, or a caller that spends longer
 * waking a sleeping core than the job lasts (virtual machines), turns the wake-up into a
 * loss. For each short job size the pool therefore times jobs run both ways and runs the
 * next one the faster way, trying the other way on one job in EXPLORE_EVERY so that its time
 * stays current as the machine's load changes. A long job wakes one worker at least, whatever
 * the wake-up time (one_at_least).
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
#include <time.h>
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
  pthread_cond_t wake[MAX_THREADS - 1]; /* worker i: invited to a new job */
  uint32_t generation;                  /* of the current job, under lock */
  pool_job job;                         /* under lock */
  _Atomic uint64_t claim;               /* generation << 32 | next block */
  _Atomic uint64_t invite;              /* generation << 32 | workers 0 .. n-1 invited to it */
  atomic_int awake;                     /* workers not asleep (in a job or staying awake) */
  atomic_int_fast64_t done;
  int64_t signalled_at; /* when the current job's workers were woken (ns), 0: not yet; under lock */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
          .finished = PTHREAD_COND_INITIALIZER,
          .busy = ATOMIC_FLAG_INIT};

/* ---- what a wake-up and a block cost, learned as the pool runs */

/* Work left must take this many wake-ups' time before a worker is woken for it. */
#define WAKE_PAYOFF 4
/* The wake-up time assumed until one is measured (ns). */
#define FIRST_WAKE_NS 20000

/* Moving averages in ns; relaxed atomics, since a lost update only delays the learning. */
static atomic_int_fast64_t wake_ns = FIRST_WAKE_NS;
static atomic_int_fast64_t block_ns; /* 0 until a block was timed */
static atomic_long wakeups;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Moves an average a quarter of the way to a sample, a sample counting at most four times the
 * average: one thread preempted for a while moves it a little, a busy machine soon. */
static void learn(atomic_int_fast64_t *average, int64_t sample) {
  int64_t old = atomic_load_explicit(average, memory_order_relaxed);
  if (sample < 1) sample = 1;
  if (old > 0 && sample > 4 * old) sample = 4 * old;
  atomic_store_explicit(average, old > 0 ? old + (sample - old) / 4 : sample, memory_order_relaxed);
}

/* ---- short jobs: each way timed, the faster one taken */

#define SHORT_JOB_BLOCKS 16 /* jobs of at most this many blocks are timed both ways */
#define EXPLORE_EVERY 16

typedef struct short_job_times {
  atomic_int_fast64_t alone_ns, helped_ns; /* per block, whole job; 0: not timed yet */
  unsigned jobs;
} short_job_times;

/* Used only by the pool's owner (the busy flag orders owners one after another). */
static short_job_times short_jobs[SHORT_JOB_BLOCKS + 1];

/* Whether the next short job of `blocks` blocks should wake workers. */
static bool short_job_helped(int64_t blocks) {
  short_job_times *t = &short_jobs[blocks];
  int64_t alone = atomic_load_explicit(&t->alone_ns, memory_order_relaxed);
  int64_t helped = atomic_load_explicit(&t->helped_ns, memory_order_relaxed);
  if (alone == 0 || helped == 0) return alone != 0; /* alone first, then helped */
  return (helped < alone) != (++t->jobs % EXPLORE_EVERY == 0);
}

static void short_job_timed(int64_t blocks, bool helped, int64_t took) {
  short_job_times *t = &short_jobs[blocks];
  learn(helped ? &t->helped_ns : &t->alone_ns, took / blocks);
}

/* How many of `helpers` workers `rest` blocks of per_block ns are worth waking: each must have
 * WAKE_PAYOFF wake-ups' time of work. */
static int workers_worth_waking(int64_t rest, int64_t per_block, int helpers) {
  int64_t cost = WAKE_PAYOFF * atomic_load_explicit(&wake_ns, memory_order_relaxed);
  if (per_block <= 0) return 0;
  int64_t worth = rest > INT64_MAX / per_block ? rest : rest * per_block / cost;
  if (worth > rest) worth = rest;
  return worth < helpers ? (int)worth : helpers;
}

/* ---- long jobs: one worker at least */

/* wake_ns is learned only from workers that are woken, and in a virtual machine it swings from
 * microseconds to milliseconds as the hypervisor takes idle cores back and returns them (or as
 * another library's threads spin on the cores after their own parallel work, as libgomp's do):
 * a time learned in a slow spell would keep every later job on one thread, and would never be
 * measured again. So a long job (more than SHORT_JOB_BLOCKS blocks, worth a wake-up on an idle
 * machine) always wakes one worker, and the learned time decides how many more. A worker that
 * comes late costs such a job little: it takes blocks only while any are left, and the caller
 * waits only for those it took, one each. */
static int one_at_least(int count, int64_t rest, int64_t per_block, int helpers) {
  if (count > 0 || helpers < 1 || rest <= SHORT_JOB_BLOCKS || per_block <= 0) return count;
  return rest >= WAKE_PAYOFF * FIRST_WAKE_NS / per_block ? 1 : 0;
}

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

/* Whether worker index is invited to a job after generation seen (invite word w). */
static bool invited(uint64_t w, uint32_t seen, int index) {
  return (uint32_t)(w >> 32) != seen && index < (int)(w & 0xffffffffu);
}

/* ---- staying awake between jobs */

/* A worker that sleeps as soon as its blocks are done lets its core go idle, and in a virtual
 * machine the hypervisor then takes the core back: waking it for the next job took 1 to 5 ms on
 * this project's 2-vCPU machines (bench/RESULTS.md), a long kernel's whole share of the second
 * thread. PyTorch's OpenMP workers spin for milliseconds after each parallel call instead, which
 * is why its large kernels outran dlx's back to back. So a worker stays awake until AWAKE_NS after
 * the end of its job, waiting for an invitation to the next job while yielding its core to any
 * other thread that wants it (sched_yield: the host's threads lose nothing, only an idle core is
 * kept busy), and then sleeps. The caller invites awake workers to any long job at no wake-up cost;
 * they never join a job they were not invited to, so the pool's choices for short jobs hold. */
#define AWAKE_NS 1000000
static _Atomic int64_t awake_ns = AWAKE_NS; /* AWAKE_NS but where a test sets it */

/* Waits, yielding, for the end of job seen (its blocks of blocks: the last ones other threads
 * run; 10 AWAKE_NS at most, for jobs of very long blocks), and then up to AWAKE_NS for an
 * invitation to a newer one. */
static void stay_awake(uint32_t seen, int64_t blocks, int index) {
  int64_t start = now_ns();
  while ((uint32_t)(atomic_load(&pool.claim) >> 32) == seen && atomic_load(&pool.done) < blocks &&
         now_ns() - start < 10 * AWAKE_NS)
    sched_yield();
  start = now_ns();
  while (!invited(atomic_load(&pool.invite), seen, index) &&
         now_ns() - start < atomic_load_explicit(&awake_ns, memory_order_relaxed))
    sched_yield();
}

static void *worker_main(void *arg) {
  int index = (int)(intptr_t)arg;
  uint32_t seen;
  set_in_job(true);
  pthread_mutex_lock(&pool.lock);
  seen = pool.generation - 1; /* started for the current job: help with it */
  atomic_fetch_add(&pool.awake, 1);
  for (;;) {
    bool slept = false;
    while (!invited(atomic_load(&pool.invite), seen, index)) {
      atomic_fetch_sub(&pool.awake, 1); /* awake: from its wake-up to its next sleep */
      pthread_cond_wait(&pool.wake[index], &pool.lock);
      atomic_fetch_add(&pool.awake, 1);
      slept = true;
    }
    seen = (uint32_t)(atomic_load(&pool.invite) >> 32);
    if (slept && pool.signalled_at != 0) learn(&wake_ns, now_ns() - pool.signalled_at);
    pool_job job = pool.job;
    bool current = pool.generation == seen; /* not a newer job that nobody invited it to */
    pthread_mutex_unlock(&pool.lock);
    if (current) run_blocks(&job, seen, false);
    stay_awake(seen, job.blocks, index);
    /* awake, it takes the lock without sleeping on it: the caller holds it while it invites */
    while (pthread_mutex_trylock(&pool.lock) != 0) sched_yield();
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
  atomic_store(&pool.awake, 0);
  atomic_flag_clear(&pool.busy);
  pthread_mutex_unlock(&pool.lock);
}
static pthread_once_t fork_handlers = PTHREAD_ONCE_INIT;
static void install_fork_handlers(void) {
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* Starts and wakes up to `count` workers for the current job (generation gen). */
static void wake_workers(uint32_t gen, int count) {
  pthread_mutex_lock(&pool.lock);
  if (pool.generation == gen) {
    atomic_store(&pool.invite, (uint64_t)gen << 32 | (uint32_t)count);
    start_workers(count);
    pool.signalled_at = now_ns();
    for (int i = 0; i < count && i < pool.workers; i++) pthread_cond_signal(&pool.wake[i]);
    atomic_fetch_add_explicit(&wakeups, count < pool.workers ? count : pool.workers,
                              memory_order_relaxed);
  }
  pthread_mutex_unlock(&pool.lock);
}

/* The caller's share: its first block timed, and when the job's way was not decided before,
 * workers woken after it if the rest is worth it. */
static void run_caller_blocks(const pool_job *job, uint32_t gen, bool decided) {
  int64_t b;
  if (!claim_block(gen, job->blocks, &b)) return;
  int64_t start = now_ns();
  int64_t end = b == job->blocks - 1 ? job->n : (b + 1) * job->block;
  job->fn(job->ctx, b * job->block, end);
  int64_t took = now_ns() - start;
  atomic_fetch_add(&pool.done, 1);
  learn(&block_ns, took);
  if (!decided) {
    int64_t rest = job->blocks - (int64_t)(atomic_load(&pool.claim) & 0xffffffffu);
    int count =
        one_at_least(workers_worth_waking(rest, took, job->helpers), rest, took, job->helpers);
    if (count > 0) wake_workers(gen, count);
  }
  run_blocks(job, gen, true);
}

/* Runs the job on the pool with up to `threads` threads, the caller included. */
static void run_on_pool(const pool_job *request, int threads) {
  pool_job job = *request;
  job.helpers = threads - 1;
  pthread_once(&fork_handlers, install_fork_handlers);
  pthread_mutex_lock(&pool.lock);
  pool.job = job;
  uint32_t gen = ++pool.generation;
  pool.signalled_at = 0;
  atomic_store(&pool.done, 0);
  atomic_store(&pool.claim, (uint64_t)gen << 32);
  pthread_mutex_unlock(&pool.lock);

  int64_t start = now_ns(), per_block = atomic_load_explicit(&block_ns, memory_order_relaxed);
  int count = one_at_least(workers_worth_waking(job.blocks - 1, per_block, job.helpers),
                           job.blocks - 1, per_block, job.helpers);
  int awake = atomic_load(&pool.awake); /* invited at no wake-up cost to a long job */
  if (job.blocks > SHORT_JOB_BLOCKS && count < awake)
    count = awake < job.helpers ? awake : job.helpers;
  bool short_job = count > 0 && job.blocks <= SHORT_JOB_BLOCKS;
  if (short_job && !short_job_helped(job.blocks)) count = 0;
  if (count > 0) wake_workers(gen, count);
  set_in_job(true);
  run_caller_blocks(&job, gen, short_job || count > 0);
  set_in_job(false);
  /* blocks still running on workers: at most one each, so first wait awake (a sleeping caller
   * can take as long to wake as a worker) */
  int64_t waited = now_ns();
  while (atomic_load(&pool.done) < job.blocks && now_ns() - waited < AWAKE_NS) sched_yield();
  if (atomic_load(&pool.done) < job.blocks) {
    pthread_mutex_lock(&pool.lock);
    while (atomic_load(&pool.done) < job.blocks) pthread_cond_wait(&pool.finished, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
  }
  if (short_job) short_job_timed(job.blocks, count > 0, now_ns() - start);
}

long dlx_cpu_pool_wakeups(void) { return atomic_load(&wakeups); }

int dlx_cpu_pool_awake(void) { return atomic_load(&pool.awake); }

void dlx_cpu_pool_set_wake_ns(int64_t ns) {
  atomic_store_explicit(&wake_ns, ns > 0 ? ns : FIRST_WAKE_NS, memory_order_relaxed);
}

void dlx_cpu_pool_set_awake_ns(int64_t ns) {
  atomic_store_explicit(&awake_ns, ns > 0 ? ns : AWAKE_NS, memory_order_relaxed);
}

#else

long dlx_cpu_pool_wakeups(void) { return 0; }

int dlx_cpu_pool_awake(void) { return 0; }

void dlx_cpu_pool_set_wake_ns(int64_t ns) { (void)ns; }

void dlx_cpu_pool_set_awake_ns(int64_t ns) { (void)ns; }

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
