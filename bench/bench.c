/* bench.c -- the C side of the CPU benchmark (bench/run.py drives it; scripts/bench runs both).
 *
 * It reads commands on stdin, one a line, and answers each on stdout:
 *   setup CASE       prepares the case's tensors (random data, fixed seed); answers "ok"
 *   run CASE dlx     times dlx's kernel once; answers the seconds (and, for sums, the
 *                    relative error against a float64 reference after a space)
 *   run CASE ref     times the plain C reference (memcpy or a streaming-read loop) once
 *   quit
 * dlx is timed through the core's C API (what the Lua methods call) into preallocated outputs,
 * so page faults of fresh allocations are not part of any timing. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core.h"

#define CPU ((DLDevice){kDLCPU, 0})
#define MIB ((int64_t)1 << 20)

/* The tensors of the current case; views are made per run. */
static dlx_tensor src, dst, aux;
static double sum_reference; /* float64 sum of src, for the sums' relative error */
static volatile double sink; /* keeps the reference loops' results alive */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const dlx_error *err) {
  fprintf(stderr, "bench: %s: %s\n", what, err != NULL ? err->message : "failed");
  exit(1);
}

static void make(dlx_tensor *t, dlx_dtype dtype, int ndim, int64_t d0, int64_t d1, int64_t d2) {
  const int64_t shape[3] = {d0, d1, d2};
  dlx_error err;
  if (dlx_tensor_empty(t, shape, ndim, dtype, CPU, &err) != 0) die("allocation", &err);
  memset(t->buffer->data, 0, (size_t)dlx_tensor_nbytes(t)); /* fault the pages in now */
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static double uniform(void) { /* xorshift64*, [0, 1) */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (double)((rng * UINT64_C(2685821657736338717)) >> 11) * 0x1.0p-53;
}

static void fill_uniform(dlx_tensor *t) {
  int64_t n = dlx_tensor_numel(t);
  if (t->dtype == DLX_FLOAT64) {
    double *p = t->buffer->data;
    for (int64_t i = 0; i < n; i++) p[i] = uniform();
  } else {
    float *p = t->buffer->data;
    for (int64_t i = 0; i < n; i++) p[i] = (float)uniform();
  }
}

static void close_all(void) {
  dlx_tensor_close(&src);
  dlx_tensor_close(&dst);
  dlx_tensor_close(&aux);
}

/* ---- cases: setup, the dlx run and the reference run */

static void setup(const char *name) {
  close_all();
  if (strcmp(name, "copy") == 0) {
    make(&src, DLX_FLOAT32, 1, 64 * MIB, 0, 0);
    make(&dst, DLX_FLOAT32, 1, 64 * MIB, 0, 0);
  } else if (strcmp(name, "transpose") == 0 || strcmp(name, "slice2") == 0) {
    make(&src, DLX_FLOAT32, 2, 8192, 8192, 0);
    make(&dst, DLX_FLOAT32, 2, 8192, strcmp(name, "slice2") == 0 ? 4096 : 8192, 0);
  } else if (strcmp(name, "permute") == 0) {
    make(&src, DLX_FLOAT32, 3, 512, 512, 256);
    make(&dst, DLX_FLOAT32, 3, 256, 512, 512);
  } else if (strcmp(name, "cast64to32") == 0) {
    make(&src, DLX_FLOAT64, 1, 32 * MIB, 0, 0);
    make(&dst, DLX_FLOAT32, 1, 32 * MIB, 0, 0);
  } else if (strcmp(name, "bf16roundtrip") == 0) {
    make(&src, DLX_FLOAT32, 1, 32 * MIB, 0, 0);
    make(&aux, DLX_BFLOAT16, 1, 32 * MIB, 0, 0);
    make(&dst, DLX_FLOAT32, 1, 32 * MIB, 0, 0);
  } else if (strcmp(name, "sum") == 0 || strcmp(name, "max") == 0 || strcmp(name, "argmax") == 0) {
    make(&src, DLX_FLOAT32, 1, 64 * MIB, 0, 0);
  } else if (strcmp(name, "sum_dim1") == 0 || strcmp(name, "sum_dim2") == 0) {
    make(&src, DLX_FLOAT32, 2, 8192, 8192, 0);
  } else {
    fprintf(stderr, "bench: unknown case %s\n", name);
    exit(1);
  }
  fill_uniform(&src);
  sum_reference = 0;
  if (src.dtype == DLX_FLOAT32) { /* float64 sum, in blocks so its own error is negligible */
    const float *p = src.buffer->data;
    int64_t n = dlx_tensor_numel(&src);
    for (int64_t i = 0; i < n; i += 4096) {
      double block = 0;
      for (int64_t j = i; j < i + 4096 && j < n; j++) block += p[j];
      sum_reference += block;
    }
  }
}

static double time_copy(const dlx_tensor *to, const dlx_tensor *from) {
  dlx_error err;
  double t0 = now();
  if (dlx_copy(to, from, &err) != 0) die("copy", &err);
  return now() - t0;
}

/* Times a reduction of src; *rel gets the relative error of a full sum. */
static double time_reduce(dlx_reduce_op op, uint64_t dims, double *rel) {
  dlx_tensor out;
  dlx_error err;
  double t0 = now();
  if (dlx_reduce(&out, op, &src, dims, false, &err) != 0) die("reduce", &err);
  double t = now() - t0;
  if (rel != NULL) {
    double v = *(const float *)out.buffer->data;
    *rel = fabs(v - sum_reference) / fabs(sum_reference);
  }
  dlx_tensor_close(&out);
  return t;
}

static double run_dlx(const char *name, double *rel) {
  dlx_tensor view;
  dlx_error err;
  double t;
  if (strcmp(name, "transpose") == 0) {
    if (dlx_transpose(&view, &src, 0, 1, &err) != 0) die("transpose", &err);
  } else if (strcmp(name, "permute") == 0) {
    const int32_t dims[3] = {2, 0, 1}; /* Lua's permute(3, 1, 2) */
    if (dlx_permute(&view, &src, dims, &err) != 0) die("permute", &err);
  } else if (strcmp(name, "slice2") == 0) {
    if (dlx_slice(&view, &src, 1, 0, 8191, 2, &err) != 0) die("slice", &err);
  } else {
    dlx_tensor_share(&view, &src);
  }
  if (strcmp(name, "bf16roundtrip") == 0) {
    t = time_copy(&aux, &view) + time_copy(&dst, &aux);
  } else if (strcmp(name, "sum") == 0) {
    t = time_reduce(DLX_REDUCE_SUM, 1, rel);
  } else if (strcmp(name, "sum_dim1") == 0) {
    t = time_reduce(DLX_REDUCE_SUM, 1, NULL);
  } else if (strcmp(name, "sum_dim2") == 0) {
    t = time_reduce(DLX_REDUCE_SUM, 2, NULL);
  } else if (strcmp(name, "max") == 0) {
    t = time_reduce(DLX_REDUCE_MAX, 1, NULL);
  } else if (strcmp(name, "argmax") == 0) {
    t = time_reduce(DLX_REDUCE_ARGMAX, 1, NULL);
  } else {
    t = time_copy(&dst, &view);
  }
  dlx_tensor_close(&view);
  return t;
}

/* A streaming read: 32 float accumulators keep the adds ahead of memory. */
static double read_all(const float *p, int64_t n) {
  float acc[32] = {0};
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int j = 0; j < 32; j++) acc[j] += p[i + j];
  }
  for (; i < n; i++) acc[0] += p[i];
  double s = 0;
  for (int j = 0; j < 32; j++) s += acc[j];
  return s;
}

/* The reference: memcpy of the bytes the case writes, or a streaming read of its input. */
static double run_ref(const char *name) {
  double t0 = now();
  if (strcmp(name, "bf16roundtrip") == 0) { /* the same bytes as the two casts move */
    memcpy(dst.buffer->data, src.buffer->data, (size_t)dlx_tensor_nbytes(&src));
    memcpy(aux.buffer->data, (char *)src.buffer->data + 8, (size_t)dlx_tensor_nbytes(&aux));
  } else if (dst.buffer != NULL) {
    memcpy(dst.buffer->data, src.buffer->data, (size_t)dlx_tensor_nbytes(&dst));
  } else {
    sink = read_all(src.buffer->data, dlx_tensor_numel(&src));
  }
  return now() - t0;
}

int main(void) {
  char line[256], name[64], impl[16];
  setvbuf(stdout, NULL, _IOLBF, 0);
  while (fgets(line, sizeof line, stdin) != NULL) {
    if (sscanf(line, "setup %63s", name) == 1) {
      setup(name);
      printf("ok\n");
    } else if (sscanf(line, "run %63s %15s", name, impl) == 2) {
      double rel = -1;
      double t = strcmp(impl, "ref") == 0 ? run_ref(name) : run_dlx(name, &rel);
      printf("%.9f %.3e\n", t, rel);
    } else {
      break;
    }
  }
  close_all();
  return 0;
}
