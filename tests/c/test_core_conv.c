/* test_core_conv.c -- the core's convolution (src/core/conv.c) without Lua: random conv1d,
 * conv2d and conv3d calls against the sums written out in C (paddings on either side, strides,
 * dilations, groups, a bias, strided weights, inputs cut into several slices), through the CPU's
 * conv entry and through the core's composition (the entry left out), the errors, and every
 * allocation of a call failing in turn on both paths: a MemoryError and nothing left allocated. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/conv.h"
#include "cpu/cpu.h"
#include "cpu/cpu_cache.h"
#include "cpu_test_util.h"

/* A C-contiguous float64 tensor of shape with random small integers (exact sums). */
static dlx_tensor random_tensor(int ndim, const int64_t *shape) {
  int64_t strides[8], n = numel(ndim, shape);
  dlx_buffer *b = new_buffer((size_t)(n > 0 ? n : 1) * 8);
  double *d = b->data;
  for (int64_t i = 0; i < n; i++) d[i] = (double)rnd_below(7) - 3;
  dlx_contiguous_strides(shape, ndim, strides);
  return make_tensor(b, DLX_FLOAT64, ndim, shape, strides, 0);
}

static double at(const dlx_tensor *t, const int64_t *index) {
  int64_t offset = t->offset;
  for (int32_t d = 0; d < t->ndim; d++) offset += index[d] * t->strides[d];
  return ((const double *)t->buffer->data)[offset];
}

/* out[n, o, p...] by the definition (3 spatial dims, the missing ones of size 1 in front). */
static double reference(const dlx_conv_args *a, const int64_t *pos) {
  const dlx_tensor *x = a->input, *w = a->weight;
  int32_t ns = a->nspatial;
  int64_t cg = w->shape[1], og = w->shape[0] / a->groups, g = pos[1] / og;
  int64_t k[3] = {1, 1, 1}, xi[5], wi[5], q[3];
  double sum = a->bias != NULL ? at(a->bias, &pos[1]) : 0;
  for (int32_t s = 0; s < ns; s++) k[s] = w->shape[2 + s];
  for (int64_t c = 0; c < cg; c++)
    for (q[0] = 0; q[0] < k[0]; q[0]++)
      for (q[1] = 0; q[1] < k[1]; q[1]++)
        for (q[2] = 0; q[2] < k[2]; q[2]++) {
          bool inside = true;
          xi[0] = pos[0];
          xi[1] = g * cg + c;
          wi[0] = pos[1];
          wi[1] = c;
          for (int32_t s = 0; s < ns; s++) {
            int64_t i = pos[2 + s] * a->stride[s] + q[s] * a->dilation[s] - a->pad_lo[s];
            inside = inside && i >= 0 && i < x->shape[2 + s];
            xi[2 + s] = i;
            wi[2 + s] = q[s];
          }
          if (inside) sum += at(x, xi) * at(w, wi);
        }
  return sum;
}

/* Every element of out against the reference. */
static void check_all(const dlx_conv_args *a, const dlx_tensor *out) {
  int64_t pos[5] = {0}, n = dlx_tensor_numel(out), bad = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t rest = i;
    for (int32_t d = out->ndim - 1; d >= 0; d--) {
      pos[d] = rest % out->shape[d];
      rest /= out->shape[d];
    }
    if (at(out, pos) != reference(a, pos)) bad++;
  }
  CHECK_EQ_INT(bad, 0);
}

/* The CPU backend without its conv entry: the core composes the call. */
static dlx_backend composed_backend;

/* A random call of ns spatial dims; big: an input whose columns need several slices; composed:
 * through the core's composition, not the CPU's entry. */
static void random_call(int32_t ns, bool big, bool composed) {
  int64_t groups = 1 + rnd_below(3), xs[5], ws[5], bs[1];
  dlx_conv_args a;
  dlx_tensor x, w, b, wide, out;
  dlx_buffer *wide_buffer;
  dlx_error err;
  int rc;
  memset(&a, 0, sizeof a);
  a.name = "conv";
  a.nspatial = ns;
  a.groups = groups;
  static const int64_t big_sizes[3] = {30000, 100, 20}; /* 10^5 to 10^6 column elements */
  xs[0] = big ? 1 : 1 + rnd_below(3);
  xs[1] = groups * (big ? 8 : 1 + rnd_below(3));
  ws[0] = big ? groups : groups * (1 + rnd_below(3));
  ws[1] = xs[1] / groups;
  for (int32_t s = 0; s < ns; s++) {
    ws[2 + s] = big ? 3 : 1 + rnd_below(3);
    a.stride[s] = big ? 1 : 1 + rnd_below(2);
    a.dilation[s] = 1 + rnd_below(2);
    a.pad_lo[s] = rnd_below(3);
    a.pad_hi[s] = rnd_below(3);
    xs[2 + s] = a.dilation[s] * (ws[2 + s] - 1) + 1 + (big ? big_sizes[ns - 1] : rnd_below(6));
  }
  x = random_tensor(2 + ns, xs);
  if (composed) x.buffer->backend = &composed_backend;
  w = random_tensor(2 + ns, ws);
  /* half the time the weight is a strided view: every other element of a wider buffer */
  wide = w;
  wide_buffer = NULL;
  if (rnd_below(2) == 0) {
    int64_t n = numel(2 + ns, ws), wstrides[5];
    wide_buffer = new_buffer((size_t)n * 16);
    for (int64_t i = 0; i < n; i++)
      ((double *)wide_buffer->data)[2 * i] = ((double *)w.buffer->data)[i];
    dlx_contiguous_strides(ws, 2 + ns, wstrides);
    for (int32_t d = 0; d < 2 + ns; d++) wstrides[d] *= 2;
    wide = make_tensor(wide_buffer, DLX_FLOAT64, 2 + ns, ws, wstrides, 0);
  }
  bs[0] = ws[0];
  b = random_tensor(1, bs);
  a.input = &x;
  a.weight = &wide;
  a.bias = rnd_below(2) == 0 ? &b : NULL;
  rc = dlx_conv(&out, &a, &err);
  CHECK_EQ_INT(rc, 0);
  if (rc == 0) {
    check_all(&a, &out);
    dlx_tensor_close(&out);
  } else {
    printf("  %s\n", err.message);
  }
  if (wide_buffer != NULL) free_buffer(wide_buffer);
  x.buffer->backend = &dlx_cpu_backend;
  free_buffer(x.buffer);
  free_buffer(w.buffer);
  free_buffer(b.buffer);
}

static void test_errors(void) {
  int64_t xs[4] = {1, 4, 5, 5}, ws[4] = {2, 3, 3, 3}, bs[1] = {3};
  dlx_tensor x = random_tensor(4, xs), w = random_tensor(4, ws), b = random_tensor(1, bs), out;
  dlx_conv_args a;
  dlx_error err;
  memset(&a, 0, sizeof a);
  a.name = "conv2d";
  a.input = &x;
  a.weight = &w;
  a.nspatial = 2;
  a.groups = 1;
  for (int s = 0; s < 2; s++) a.stride[s] = a.dilation[s] = 1;
  CHECK_EQ_INT(dlx_conv(&out, &a, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "expected input{1, 4, 5, 5} to have 3 channels, but got 4") != NULL);
  w.shape[1] = 2;
  a.groups = 2;
  a.bias = &b;
  CHECK_EQ_INT(dlx_conv(&out, &a, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "expected bias to be 1-dimensional with 2 elements") != NULL);
  a.bias = NULL;
  a.dilation[1] = 3;
  CHECK_EQ_INT(dlx_conv(&out, &a, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "Calculated padded input size per channel: (5 x 5). Kernel size: "
                            "(3 x 7).") != NULL);
  a.dilation[1] = 1;
  a.stride[0] = 0;
  CHECK_EQ_INT(dlx_conv(&out, &a, &err), DLX_VALUE_ERROR);
  a.stride[0] = 1;
  a.pad_hi[1] = -1;
  CHECK_EQ_INT(dlx_conv(&out, &a, &err), DLX_VALUE_ERROR);
  a.pad_hi[1] = 0;
  a.nspatial = 1;
  CHECK_EQ_INT(dlx_conv(&out, &a, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "expected a 3-d batched input") != NULL);
  a.nspatial = 2;
  CHECK_EQ_INT(dlx_conv(&out, &a, &err), 0); /* the arguments are right again */
  dlx_tensor_close(&out);
  free_buffer(x.buffer);
  free_buffer(w.buffer);
  free_buffer(b.buffer);
}

static long allocations, fail_at;
static int fail_hook(void *ctx) {
  (void)ctx;
  return allocations++ == fail_at;
}

/* Each allocation of a padded call with a bias and a strided weight fails in turn: a
 * MemoryError, and the bytes allocated before it are all released. */
static void test_allocation_failures(const dlx_backend *backend) {
  int64_t xs[4] = {2, 2, 9, 8}, ws[4] = {4, 1, 3, 3}, bs[1] = {4};
  dlx_tensor x = random_tensor(4, xs), w = random_tensor(4, ws), b = random_tensor(1, bs), out;
  dlx_conv_args a;
  dlx_error err;
  size_t before = dlx_cpu_memory_allocated();
  int rc = 1;
  x.buffer->backend = backend;
  memset(&a, 0, sizeof a);
  a.name = "conv2d";
  a.input = &x;
  a.weight = &w;
  a.bias = &b;
  a.nspatial = 2;
  a.groups = 2;
  w.strides[0] = -w.strides[0]; /* the output channels reversed: a copy of the weight */
  w.offset = 3 * 9;
  for (int s = 0; s < 2; s++) a.stride[s] = a.dilation[s] = a.pad_lo[s] = a.pad_hi[s] = 1;
  for (fail_at = 0; rc != 0 && fail_at < 100; fail_at++) {
    allocations = 0;
    dlx_cpu_cache_empty(); /* every block of the call is a new allocation */
    dlx_set_alloc_fail_hook(fail_hook, NULL);
    rc = dlx_conv(&out, &a, &err);
    dlx_set_alloc_fail_hook(NULL, NULL);
    if (rc == 0) break;
    CHECK_EQ_INT(rc, DLX_MEMORY_ERROR);
    CHECK_EQ_INT(dlx_cpu_memory_allocated(), before);
  }
  CHECK_EQ_INT(rc, 0);
  printf("  allocation failures: %ld\n", fail_at);
  CHECK(fail_at > 3); /* the output, the weight's copy, the padded input, the columns */
  if (rc == 0) {
    check_all(&a, &out);
    dlx_tensor_close(&out);
  }
  x.buffer->backend = &dlx_cpu_backend;
  free_buffer(x.buffer);
  free_buffer(w.buffer);
  free_buffer(b.buffer);
}

int main(void) {
  uint64_t seed = 0x5eed0c0;
  printf("test_core_conv: seed %llu\n", (unsigned long long)seed);
  rng_state = seed;
  composed_backend = dlx_cpu_backend;
  composed_backend.conv = NULL;
  for (int i = 0; i < 120; i++) random_call(1 + (int32_t)(i % 3), false, i % 2 == 1);
  for (int i = 0; i < 6; i++) random_call(1 + i / 2, true, i % 2 == 1);
  test_errors();
  test_allocation_failures(&dlx_cpu_backend);
  test_allocation_failures(&composed_backend);
  return check_report("test_core_conv");
}
