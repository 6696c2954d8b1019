/* test_cpu_fork.c -- the CPU kernels' thread pool across fork(): children forked after the
 * pool has started, while another thread of the parent keeps using it, run threaded loops with
 * every item done once and do not hang on a lock held in the parent. Not run under
 * ThreadSanitizer, which does not support new threads in a child of a threaded process. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cpu/parallel.h"

#define N 100000
#define CHILDREN 20

static void count_range(void *ctx, int64_t begin, int64_t end) {
  atomic_int *hits = ctx;
  for (int64_t i = begin; i < end; i++) atomic_fetch_add(&hits[i], 1);
}

/* Runs the pool over n items in blocks of 7; true when each was seen once. */
static bool covers_once(atomic_int *hits, int64_t n) {
  for (int64_t i = 0; i < n; i++) atomic_store(&hits[i], 0);
  dlx_cpu_parallel_for(n, 7, count_range, hits);
  for (int64_t i = 0; i < n; i++) {
    if (atomic_load(&hits[i]) != 1) return false;
  }
  return true;
}

static atomic_int main_hits[N], busy_hits[1000];
static atomic_bool stop;

static void *keep_busy(void *arg) {
  (void)arg;
  while (!atomic_load(&stop)) covers_once(busy_hits, 1000);
  return NULL;
}

/* Forks a child that runs the pool; true when it exited 0 within 120 seconds. A hang ends the
 * child with SIGALRM; the bound is far beyond its time on the slowest machine (about 0.01 s
 * plain, 0.6 s under valgrind, more on a busy machine), as no check counts on a machine's
 * speed. */
static bool child_runs(void) {
  pid_t pid = fork();
  if (pid == 0) {
    alarm(120);
    _exit(covers_once(main_hits, N) && covers_once(main_hits, N) ? 0 : 1);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void) {
  dlx_cpu_set_num_threads(2);
  CHECK(covers_once(main_hits, N)); /* the pool's workers are running */
  pthread_t busy;
  CHECK(pthread_create(&busy, NULL, keep_busy, NULL) == 0);
  bool ok = true;
  for (int i = 0; i < CHILDREN && ok; i++) ok = child_runs(); /* one hang is enough */
  CHECK(ok);
  atomic_store(&stop, true);
  pthread_join(busy, NULL);
  CHECK(covers_once(main_hits, N)); /* and the parent's pool still works */
  return check_report("test_cpu_fork");
}
