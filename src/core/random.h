/* random.h -- random numbers: the generator's state (a Philox key and counter), the checks of a
 * request and its dispatch to the backends' fill_random, and randperm. The numbers themselves are
 * src/common/philox.h's; docs/lua-api.md ("Random numbers") says what they promise. */
#ifndef DLX_CORE_RANDOM_H
#define DLX_CORE_RANDOM_H

#include <stdint.h>

#include "core/backend.h"

/* PyTorch's default seed, so that a script that never seeds still runs the same every time. */
#define DLX_DEFAULT_SEED UINT64_C(67280421310721)

/* A generator: the Philox key and the counter its next request starts at. */
typedef struct dlx_generator {
  uint64_t seed;
  uint64_t offset;
} dlx_generator;

/* Sets the seed and starts the counter over. */
void dlx_generator_seed(dlx_generator *g, uint64_t seed);

/* The significand bits of a float dtype (24 for float32, 53 for float64, 11 for float16, 8 for
 * bfloat16): how many random bits a uniform element of it has. 0 for other dtypes. */
int dlx_random_float_bits(dlx_dtype dtype);

/* Fills t (any strides, on any device) as r->kind asks (r's seed and offset are set here from g)
 * and moves g's counter past the blocks used. name is the Lua function, for messages.
 * - UNIFORM: t a float dtype (TypeError otherwise), a <= b, both finite (ValueError);
 * - NORMAL: t a float dtype, a finite mean and a standard deviation >= 0, finite;
 * - INT: t an integer dtype (TypeError otherwise) holding [low, low + range) (ValueError).
 * ValueError for a read-only or broadcast t; DeviceError for a device without fill_random. */
int dlx_random_fill(dlx_generator *g, const dlx_tensor *t, dlx_random_request *r, const char *name,
                    dlx_error *err);

/* perm[0 .. n) = a random permutation of 1 .. n (1-based, as dlx's indices) drawn from
 * (seed, offset): the Fisher-Yates shuffle from the end, the swap partner of position i
 * (0-based, i >= 1) being dlx_rng_int's lane i % 2 of block offset + i / 2 over [0, i].
 * Returns the blocks used, ceil(n / 2). */
uint64_t dlx_randperm_host(int64_t *perm, int64_t n, uint64_t seed, uint64_t offset);

/* out = a new 1-D tensor of a permutation of 1 .. n as dtype (an integer dtype holding n,
 * TypeError or ValueError otherwise) on device in memory, computed on the host and copied there,
 * so the same on every device; moves g's counter. ValueError for n < 0. */
int dlx_randperm(dlx_tensor *out, dlx_generator *g, int64_t n, dlx_dtype dtype, DLDevice device,
                 dlx_memory memory, dlx_error *err);

#endif
