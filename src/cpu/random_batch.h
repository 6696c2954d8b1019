/* random_batch.h -- the CPU's Philox blocks, Box-Muller normals and exponentials, many at once,
 * vectorized (random_batch.c). */
#ifndef DLX_CPU_RANDOM_BATCH_H
#define DLX_CPU_RANDOM_BATCH_H

#include "common/philox.h"

/* The batches built for one ISA. */
typedef struct dlx_cpu_random_batch {
  const char *isa; /* "avx512", "avx2" or "portable" (the baseline ISA) */
  /* z[2p] = a + b * r cos(2 pi u2) and z[2p + 1] = a + b * r sin(2 pi u2) for p < pairs, from
   * the 32-bit words words[2p] (u1) and words[2p + 1] (u2): the bits of dlx_rng_real(
   * DLX_RNG_NORMAL, ..., bits <= 32, a, b) for lanes 2p % 4 and 2p % 4 + 1 of block 2p / 4,
   * each pair computed once instead of once per lane. */
  void (*normal_pairs)(const uint32_t *words, int64_t pairs, double a, double b, double *z);
  /* The same for the wide case (float64): pair p from block p, 53 bits of words 4p and 4p + 1
   * (u1) and of words 4p + 2 and 4p + 3 (u2), for lanes 0 and 1 of the block. */
  void (*normal_pairs_wide)(const uint32_t *words, int64_t pairs, double a, double b, double *z);
  /* e[i] = -dlx_rng_log(dlx_rng_open_unit(b, i % 2, 1)) for i < count, b block i / 2 of words
   * (elements two words each): the exponentials of a float64 exponential_ of rate 1, and the
   * race times of multinomial without replacement (src/common/distributions.h). */
  void (*exponentials_wide)(const uint32_t *words, int64_t count, double *e);
  /* out[k] = dlx_philox_at(seed, counter + k) for k < count. */
  void (*philox_blocks)(uint64_t seed, uint64_t counter, int64_t count, dlx_philox_block *out);
} dlx_cpu_random_batch;

/* The batches of `isa` when they are built and this CPU runs them, else NULL. */
const dlx_cpu_random_batch *dlx_cpu_random_batch_for(const char *isa);

/* The batches of the best ISA this CPU runs. */
const dlx_cpu_random_batch *dlx_cpu_random_batch_best(void);

#endif
