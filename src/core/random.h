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

/* Elements a Philox block gives a request of `kind` filling `dtype` (range: INT's): 4 when each
 * takes one 32-bit word, 2 when it takes two (wide), 1 for POISSON, whose elements take a
 * counter each (src/common/distributions.h). */
int dlx_random_lanes(dlx_random_kind kind, dlx_dtype dtype, uint64_t range);

/* Fills t (any strides, on any device) as r->kind asks (from g's seed and offset: the backend's
 * request is a copy of r with those, the lanes and the prepared parameters) and moves g's
 * counter past the blocks used. name is the Lua function, for messages.
 * The parameters are the numbers r->a and r->b, or where r->ta or r->tb is not NULL, that tensor
 * (bool, integer or real float; on t's device, DeviceError otherwise; its shape broadcasting to
 * t's), passed to the backend as a float64 copy of t's shape. Each is checked (ValueError):
 * - UNIFORM: t a float dtype (TypeError otherwise), a <= b, both finite;
 * - NORMAL: t a float dtype, a finite mean and a standard deviation >= 0, finite;
 * - INT: t an integer dtype holding [low, low + range), a float dtype holding each of its
 *   integers exactly, or bool ([0, 1]);
 * - BERNOULLI: t any real dtype, 0 <= p <= 1; GEOMETRIC: t any real dtype, 0 < p <= 1 (a is
 *   ln(1 - p), which the caller computes);
 * - EXPONENTIAL: lambda > 0; CAUCHY: sigma > 0; LOG_NORMAL: std > 0; POISSON: 0 <= rate < 2^52;
 *   all finite, t a float dtype.
 * With a tensor parameter the check is on its least and greatest values (NaN fails it).
 * ValueError for a read-only or broadcast t; DeviceError for a device without fill_random. */
int dlx_random_fill(dlx_generator *g, const dlx_tensor *t, const dlx_random_request *r,
                    const char *name, dlx_error *err);

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

/* out = n draws from each row of `weights` (1-d: one row, giving a 1-d result; 2-d: a row each,
 * giving [rows, n]), as int64 1-based positions on the weights' device, from g (whose counter
 * moves by ceil(rows * n / 2) with replacement, ceil(rows * k / 2) without, 0 when n = 0), as
 * src/common/distributions.h defines them. The weights are a float dtype (TypeError), not
 * necessarily normalised, >= 0 and finite with a finite sum above 0 in every row, and without
 * replacement at least n of them above 0 (ValueError naming the first bad row); n >= 0, and
 * n <= k without replacement (ValueError). DeviceError for a device without multinomial. */
int dlx_multinomial(dlx_tensor *out, dlx_generator *g, const dlx_tensor *weights, int64_t n,
                    bool replacement, dlx_error *err);

#endif
