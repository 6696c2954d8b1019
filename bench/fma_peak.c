/* fma_peak.c -- the machine's float32 peak by a plain FMA loop: each thread runs independent
 * 512-bit (else 256-bit) fused multiply-adds on registers for a fixed count; prints GFLOP/s of
 * all threads together. bench/matmul.py compiles and runs it (cc -O3 -march=native -pthread).
 *   fma_peak THREADS */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERS 200000000L
#define CHAINS 12 /* independent accumulators: enough to cover the FMA latency of two pipes */

#ifdef __AVX512F__
typedef __m512 vec;
#define LANES 16
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
#define SUM(v) _mm512_reduce_add_ps(v)
#else
typedef __m256 vec;
#define LANES 8
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
static float SUM(__m256 v) {
  float f[8];
  _mm256_storeu_ps(f, v);
  return f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7];
}
#endif

static void *run(void *out) {
  vec acc[CHAINS], x = SET1(0.999999f), y = SET1(1e-7f);
  for (int i = 0; i < CHAINS; i++) acc[i] = SET1((float)i);
  for (long n = 0; n < ITERS / CHAINS; n++)
    for (int i = 0; i < CHAINS; i++) acc[i] = FMA(acc[i], x, y);
  vec s = acc[0];
  for (int i = 1; i < CHAINS; i++) s = ADD(s, acc[i]);
  *(float *)out = SUM(s); /* keeps the loop */
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  pthread_t t[64];
  float sink[64];
  struct timespec a, b;
  if (threads < 1 || threads > 64) return 2;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, run, &sink[i]);
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
  printf("%.1f %d %g\n", 2.0 * LANES * (double)ITERS * threads / s / 1e9, LANES * 32, sink[0]);
  return 0;
}
