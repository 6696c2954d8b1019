/* bytes_ref.c -- the plain C loops that bench/bytes.py times next to dlx and PyTorch: the
 * bandwidth that a loop anyone would write reaches on the machine, in the same run. Built by
 * scripts/bench-bytes into a shared library (-O3 -march=native) that Python calls through ctypes
 * (which lets go of the GIL during the call).
 *
 * bytes_ref_run(op, threads, a, b, c, s, n): op 0 sums a (32 float accumulators, which the
 * compiler turns into vector registers), 1 multiplies a by s in place, 2 writes a + b to c. With
 * threads > 1 the elements are cut into that many equal parts, one per POSIX thread started for
 * the call (the calling thread takes the first); returns the sum for op 0, else 0. */
#include <pthread.h>
#include <stdint.h>

#define MAX_REF_THREADS 64

typedef struct part {
  int op;
  float *a;
  const float *b;
  float *c;
  float s;
  int64_t n;
  double sum;
} part;

static double sum_of(const float *a, int64_t n) {
  float acc[32] = {0};
  double s = 0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 32; k++) acc[k] += a[i + k];
  }
  for (int k = 0; k < 32; k++) s += acc[k];
  for (; i < n; i++) s += a[i];
  return s;
}

static void *run_part(void *arg) {
  part *p = arg;
  if (p->op == 0) {
    p->sum = sum_of(p->a, p->n);
  } else if (p->op == 1) {
    for (int64_t i = 0; i < p->n; i++) p->a[i] *= p->s;
  } else {
    for (int64_t i = 0; i < p->n; i++) p->c[i] = p->a[i] + p->b[i];
  }
  return NULL;
}

double bytes_ref_run(int op, int threads, float *a, const float *b, float *c, float s, int64_t n);

double bytes_ref_run(int op, int threads, float *a, const float *b, float *c, float s, int64_t n) {
  part parts[MAX_REF_THREADS];
  pthread_t tid[MAX_REF_THREADS];
  int started[MAX_REF_THREADS] = {0};
  double sum = 0;
  if (threads < 1) threads = 1;
  if (threads > MAX_REF_THREADS) threads = MAX_REF_THREADS;
  int64_t each = (n / threads + 15) / 16 * 16; /* whole 64-byte lines per part */
  for (int k = 0; k < threads; k++) {
    int64_t lo = k * each < n ? k * each : n, hi = lo + each < n ? lo + each : n;
    parts[k] = (part){op,
                      a + lo,
                      b != NULL ? b + lo : NULL,
                      c != NULL ? c + lo : NULL,
                      s,
                      k == threads - 1 ? n - lo : hi - lo,
                      0};
  }
  for (int k = 1; k < threads; k++)
    started[k] = pthread_create(&tid[k], NULL, run_part, &parts[k]) == 0;
  run_part(&parts[0]);
  for (int k = 1; k < threads; k++) {
    if (started[k])
      pthread_join(tid[k], NULL);
    else
      run_part(&parts[k]);
  }
  for (int k = 0; k < threads; k++) sum += parts[k].sum;
  return sum;
}
