/* test_cpu_elementwise.c -- the CPU's elementwise engine below the Lua specs: every op and dtype
 * the core accepts has a kernel; misaligned operands (foreign memory) take the buffered path;
 * strided, cast and chunked rows give every element right; and the result is the same bytes on
 * one thread and on two; the kernels built for every instruction set this CPU has give the same
 * bytes, and so do the streamed kernels (non-temporal stores) and a result large enough to be
 * streamed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/core.h"
#include "cpu/elementwise_kernels.h"
#include "cpu/elementwise_ternary.h"
#include "cpu/parallel.h"
#include "cpu_test_util.h"

static const DLDevice cpu = {kDLCPU, 0};

static dlx_operand tensor_operand(const dlx_tensor *t) {
  dlx_operand o;
  memset(&o, 0, sizeof o);
  o.tensor = t;
  return o;
}

/* Every (op, dtype) the core lets through reaches a CPU kernel. */
static void test_every_accepted_op_has_a_kernel(void) {
  int64_t shape[1] = {1};
  int accepted = 0;
  for (int d = 0; d <= DLX_COMPLEX128; d++) {
    dlx_tensor t;
    dlx_error err;
    CHECK(dlx_tensor_empty(&t, shape, 1, (dlx_dtype)d, cpu, &err) == 0);
    dlx_operand in[DLX_EW_MAX_INPUTS];
    for (int op = 0; op < DLX_EW_NUM_OPS; op++) {
      dlx_dtype compute, result;
      bool found;
      for (int k = 0; k < DLX_EW_MAX_INPUTS; k++) in[k] = tensor_operand(&t);
      if (op == DLX_EW_NAN_TO_NUM) /* its values are numbers */
        for (int k = 1; k < DLX_EW_MAX_INPUTS; k++) in[k].tensor = NULL;
      if (dlx_ew_dtypes_n((dlx_ew_op)op, in, &compute, &result, &err) != 0) {
        CHECK_EQ_INT(err.code, DLX_TYPE_ERROR);
        continue;
      }
      accepted++;
      if (dlx_ew_arity((dlx_ew_op)op) > 2)
        found = dlx_cpu_ew_ternary_kernel(
            (dlx_ew_op)op, op == DLX_EW_WHERE ? compute : dlx_cpu_ew_kernel_dtype(compute));
      else
        found = dlx_cpu_ew_kernel_for((dlx_ew_op)op, dlx_cpu_ew_kernel_dtype(compute)) != NULL;
      if (!found)
        fprintf(stderr, "no kernel: %s on %s\n", dlx_ew_name((dlx_ew_op)op),
                dlx_dtype_info_of(compute)->name);
      CHECK(found);
    }
    dlx_tensor_close(&t);
  }
  CHECK(accepted > 300);
}

/* Foreign memory may hold float32 at an odd address: the engine must not read it as float *. */
static void test_misaligned_operands(void) {
  enum { N = 1500 };
  int64_t shape[1] = {N}, strides[1] = {1};
  dlx_buffer *ba = new_buffer(4 * N + 1), *bd = new_buffer(4 * N + 1);
  dlx_error err;
  ba->data = (char *)ba->data + 1;
  bd->data = (char *)bd->data + 1;
  for (int i = 0; i < N; i++) {
    float v = (float)i * 0.5f;
    memcpy((char *)ba->data + 4 * i, &v, 4);
  }
  dlx_tensor a = make_tensor(ba, DLX_FLOAT32, 1, shape, strides, 0);
  dlx_tensor d = make_tensor(bd, DLX_FLOAT32, 1, shape, strides, 0);
  dlx_operand oa = tensor_operand(&a), two;
  two.tensor = NULL;
  two.scalar.kind = DLX_KIND_FLOAT;
  two.scalar.v.f = 2.0;
  CHECK(dlx_elementwise(DLX_EW_MUL, &oa, &two, &d, NULL, &err) == 0);
  int wrong = 0;
  for (int i = 0; i < N; i++) {
    float v;
    memcpy(&v, (char *)bd->data + 4 * i, 4);
    if (v != (float)i) wrong++;
  }
  CHECK_EQ_INT(wrong, 0);
  ba->data = (char *)ba->data - 1;
  bd->data = (char *)bd->data - 1;
  free_buffer(ba);
  free_buffer(bd);
}

/* a (float32, a transposed view) + b (int16, stepped) into float32: every element, with rows
 * longer than a chunk, once on one thread and once on two. */
static void run_mixed(int threads, int64_t rows, int64_t cols, dlx_tensor *out) {
  int64_t ashape[2] = {cols, rows}, bshape[1] = {2 * cols}, vshape[2] = {rows, cols};
  dlx_tensor abase, bbase, at, bs;
  dlx_error err;
  CHECK(dlx_tensor_empty(&abase, ashape, 2, DLX_FLOAT32, cpu, &err) == 0);
  CHECK(dlx_tensor_empty(&bbase, bshape, 1, DLX_INT16, cpu, &err) == 0);
  float *av = abase.buffer->data;
  int16_t *bv = bbase.buffer->data;
  rng_state = 13;
  for (int64_t i = 0; i < rows * cols; i++) av[i] = (float)(rnd_unit() * 100 - 50);
  for (int64_t i = 0; i < 2 * cols; i++) bv[i] = (int16_t)(rnd_below(2001) - 1000);
  CHECK(dlx_transpose(&at, &abase, 0, 1, &err) == 0); /* rows x cols, strides {1, rows} */
  CHECK(dlx_slice(&bs, &bbase, 0, 0, 2 * cols - 1, 2, &err) == 0); /* cols, stride 2 */
  CHECK(dlx_tensor_empty(out, vshape, 2, DLX_FLOAT32, cpu, &err) == 0);
  dlx_operand oa = tensor_operand(&at), ob = tensor_operand(&bs);
  dlx_cpu_set_num_threads(threads);
  CHECK(dlx_elementwise(DLX_EW_ADD, &oa, &ob, out, NULL, &err) == 0);
  dlx_cpu_set_num_threads(0);
  const float *ov = out->buffer->data;
  int64_t wrong = 0;
  for (int64_t i = 0; i < rows; i++) {
    for (int64_t j = 0; j < cols; j++) {
      float want = av[j * rows + i] + (float)bv[2 * j];
      if (ov[i * cols + j] != want) wrong++;
    }
  }
  CHECK_EQ_INT(wrong, 0);
  dlx_tensor_close(&at);
  dlx_tensor_close(&bs);
  dlx_tensor_close(&abase);
  dlx_tensor_close(&bbase);
}

static void test_strided_cast_rows_and_threads(void) {
  dlx_tensor one, two;
  run_mixed(1, 700, 1900, &one);
  run_mixed(2, 700, 1900, &two);
  CHECK(memcmp(one.buffer->data, two.buffer->data, (size_t)dlx_tensor_nbytes(&one)) == 0);
  dlx_tensor_close(&one);
  dlx_tensor_close(&two);
}

/* Two 4-element float32 tensors, t0 on device 0 and t1 faked on device 1 (CPU memory), and a
 * copy of the CPU backend's table without the elementwise entry, for t0's buffer to take. */
typedef struct two_devices {
  dlx_backend without;
  dlx_buffer *b0, *b1;
  dlx_tensor t0, t1;
} two_devices;

static void two_devices_open(two_devices *f) {
  int64_t shape[1] = {4}, strides[1] = {1};
  f->without = dlx_cpu_backend;
  f->without.elementwise = NULL;
  f->b0 = new_buffer(16);
  f->b1 = new_buffer(16);
  f->b1->device.device_id = 1;
  f->t0 = make_tensor(f->b0, DLX_FLOAT32, 1, shape, strides, 0);
  f->t1 = make_tensor(f->b1, DLX_FLOAT32, 1, shape, strides, 0);
}

static void two_devices_close(two_devices *f) {
  f->b0->backend = &dlx_cpu_backend;
  free_buffer(f->b0);
  free_buffer(f->b1);
}

/* Tensors on two devices are a DeviceError, and so is a backend without the entry. */
static void test_devices(void) {
  two_devices f;
  dlx_error err;
  dlx_tensor out;
  two_devices_open(&f);
  dlx_operand o0 = tensor_operand(&f.t0), o1 = tensor_operand(&f.t1);
  CHECK(dlx_elementwise(DLX_EW_ADD, &o0, &o1, NULL, &out, &err) == DLX_DEVICE_ERROR);
  CHECK(strstr(err.message, "different devices") != NULL);
  CHECK(dlx_elementwise(DLX_EW_NEG, &o0, NULL, &f.t1, NULL, &err) == DLX_DEVICE_ERROR);
  f.b0->backend = &f.without;
  CHECK(dlx_elementwise(DLX_EW_ADD, &o0, &o0, NULL, &out, &err) == DLX_DEVICE_ERROR);
  CHECK(strstr(err.message, "not implemented on cpu") != NULL);
  two_devices_close(&f);
}

/* A math op and where on a transposed view (the buffered path, rows split over two threads)
 * give the same bytes as on a contiguous copy on one thread: an element's result depends on its
 * value only, not on where a vector or a chunk starts. */
static void test_math_and_where_layouts_and_threads(void) {
  enum { ROWS = 300, COLS = 1700 };
  int64_t shape[2] = {COLS, ROWS}, vshape[2] = {ROWS, COLS};
  dlx_tensor base, at, copy, r1, r2, w1, w2;
  dlx_error err;
  CHECK(dlx_tensor_empty(&base, shape, 2, DLX_FLOAT32, cpu, &err) == 0);
  float *v = base.buffer->data;
  rng_state = 29;
  for (int64_t i = 0; i < ROWS * COLS; i++) v[i] = (float)(rnd_unit() * 100 - 50);
  v[7] = 0.0f;
  CHECK(dlx_transpose(&at, &base, 0, 1, &err) == 0);
  CHECK(dlx_tensor_empty(&copy, vshape, 2, DLX_FLOAT32, cpu, &err) == 0);
  CHECK(dlx_copy(&copy, &at, &err) == 0);
  dlx_operand ot = tensor_operand(&at), oc = tensor_operand(&copy);
  dlx_operand where_t[3] = {ot, ot, {0}}, where_c[3] = {oc, oc, {0}};
  where_t[2].scalar.kind = where_c[2].scalar.kind = DLX_KIND_FLOAT;
  where_t[2].scalar.v.f = where_c[2].scalar.v.f = -1.0;
  dlx_cpu_set_num_threads(2);
  CHECK(dlx_elementwise(DLX_EW_EXP, &ot, NULL, NULL, &r1, &err) == 0);
  CHECK(dlx_elementwise_n(DLX_EW_WHERE, where_t, NULL, &w1, &err) == 0);
  dlx_cpu_set_num_threads(1);
  CHECK(dlx_elementwise(DLX_EW_EXP, &oc, NULL, NULL, &r2, &err) == 0);
  CHECK(dlx_elementwise_n(DLX_EW_WHERE, where_c, NULL, &w2, &err) == 0);
  dlx_cpu_set_num_threads(0);
  CHECK(memcmp(r1.buffer->data, r2.buffer->data, (size_t)dlx_tensor_nbytes(&r1)) == 0);
  CHECK(memcmp(w1.buffer->data, w2.buffer->data, (size_t)dlx_tensor_nbytes(&w1)) == 0);
  const float *cv = copy.buffer->data, *wv = w1.buffer->data;
  int64_t wrong = 0;
  for (int64_t i = 0; i < ROWS * COLS; i++)
    if (wv[i] != (cv[i] != 0 ? cv[i] : -1.0f)) wrong++;
  CHECK_EQ_INT(wrong, 0);
  dlx_tensor *all[] = {&base, &at, &copy, &r1, &r2, &w1, &w2};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) dlx_tensor_close(all[i]);
}

/* The new ops reach the same device checks: a backend without the entry, two devices. */
static void test_devices_of_math_and_ternary_ops(void) {
  two_devices f;
  dlx_error err;
  dlx_tensor out;
  two_devices_open(&f);
  dlx_operand three[3] = {tensor_operand(&f.t0), tensor_operand(&f.t0), tensor_operand(&f.t1)};
  CHECK(dlx_elementwise_n(DLX_EW_WHERE, three, NULL, &out, &err) == DLX_DEVICE_ERROR);
  CHECK(strstr(err.message, "different devices") != NULL);
  f.b0->backend = &f.without;
  three[2] = tensor_operand(&f.t0);
  CHECK(dlx_elementwise_n(DLX_EW_LERP, three, NULL, &out, &err) == DLX_DEVICE_ERROR);
  CHECK(strstr(err.message, "lerp is not implemented on cpu") != NULL);
  CHECK(dlx_elementwise(DLX_EW_EXP, &three[0], NULL, NULL, &out, &err) == DLX_DEVICE_ERROR);
  CHECK(strstr(err.message, "exp is not implemented on cpu") != NULL);
  two_devices_close(&f);
}

/* n values of dtype d (a real part of a complex counts as a float): edge values (zeros, infinities,
 * NaN, extremes), small integers (shift amounts, exponents), ordinary numbers and raw bits. */
static void fill_values(char *buf, dlx_dtype d, int64_t n) {
  static const double float_edges[] = {0.0,   -0.0, 1.0,      -1.0,     0.5,       -0.5,  2.5,
                                       -2.5,  3.0,  -3.0,     INFINITY, -INFINITY, NAN,   1e-310,
                                       1e300, -7.5, 0x1p-149, 0x1p-126, 65504.0,   3.4e38};
  int64_t size = dlx_itemsize(d);
  bool is_float = d == DLX_FLOAT32 || d == DLX_FLOAT64 || d == DLX_COMPLEX64 || d == DLX_COMPLEX128;
  int64_t parts = d == DLX_COMPLEX64 || d == DLX_COMPLEX128 ? 2 : 1, part_size = size / parts;
  for (int64_t i = 0; i < n * parts; i++) {
    char *at = buf + i * part_size;
    uint64_t bits = rnd();
    int64_t kind = rnd_below(4);
    if (d == DLX_BOOL) {
      *at = (char)(bits & 1);
    } else if (!is_float) {
      int64_t small = rnd_below(80) - 16;
      memcpy(at, kind < 2 ? (const void *)&small : (const void *)&bits, (size_t)part_size);
    } else {
      double v = kind == 0   ? float_edges[rnd_below(sizeof float_edges / sizeof float_edges[0])]
                 : kind == 1 ? (double)(rnd_below(17) - 8)
                             : rnd_unit() * 200 - 100;
      float f = (float)v;
      if (kind == 3 && rnd_below(4) == 0)
        memcpy(at, &bits, (size_t)part_size); /* any bits */
      else if (part_size == 4)
        memcpy(at, &f, 4);
      else
        memcpy(at, &v, 8);
    }
  }
}

/* Whether two result buffers of dtype rdtype hold the same bytes, where a NaN matches any NaN:
 * IEEE leaves a NaN result's sign and payload open, and compilers swap the operands of
 * commutative operations, which decides which input NaN comes out. */
static bool same_results(const char *want, const char *got, size_t nbytes, dlx_dtype rdtype) {
  size_t part = rdtype == DLX_FLOAT32 || rdtype == DLX_COMPLEX64    ? 4
                : rdtype == DLX_FLOAT64 || rdtype == DLX_COMPLEX128 ? 8
                                                                    : 0;
  if (part == 0) return memcmp(want, got, nbytes) == 0;
  for (size_t at = 0; at + part <= nbytes; at += part) {
    if (memcmp(want + at, got + at, part) == 0) continue;
    if (part == 4) {
      float w, g;
      memcpy(&w, want + at, 4);
      memcpy(&g, got + at, 4);
      if (!(isnan(w) && isnan(g))) return false;
    } else {
      double w, g;
      memcpy(&w, want + at, 8);
      memcpy(&g, got + at, 8);
      if (!(isnan(w) && isnan(g))) return false;
    }
  }
  return true;
}

/* Every kernel of the binary and simple unary ops, on every ISA this build and CPU have, in every
 * mode, gives the portable kernel's bytes (any NaN for a NaN), with a row that starts at a vector
 * boundary and one that does not. */
static void test_isas_give_the_same_bytes(void) {
  enum { N = 1031 };
  static char a[(N + 1) * 16], b[(N + 1) * 16], want[(N + 1) * 16], got[(N + 1) * 16];
  int kernels = 0, isas = 0;
  for (int isa = 1; isa < DLX_CPU_ISAS; isa++) {
    if (!dlx_cpu_isa_available((dlx_cpu_isa)isa)) {
      printf("test_cpu_elementwise: %s kernels not built or not supported here\n",
             dlx_cpu_isa_name((dlx_cpu_isa)isa));
      continue;
    }
    isas++;
    for (int d = 0; d <= DLX_COMPLEX128; d++) {
      for (int op = 0; op < DLX_EW_NUM_OPS; op++) {
        dlx_cpu_ew_kernel portable =
            dlx_cpu_ew_kernel_isa((dlx_ew_op)op, (dlx_dtype)d, DLX_CPU_ISA_PORTABLE);
        dlx_cpu_ew_kernel other =
            dlx_cpu_ew_kernel_isa((dlx_ew_op)op, (dlx_dtype)d, (dlx_cpu_isa)isa);
        if (portable == NULL) continue;
        CHECK(other != NULL);
        if (other == NULL) continue;
        int64_t size = dlx_itemsize((dlx_dtype)d);
        dlx_dtype rdtype = dlx_ew_result_of((dlx_ew_op)op, (dlx_dtype)d);
        int64_t osize = dlx_itemsize(rdtype);
        int modes = dlx_ew_arity((dlx_ew_op)op) == 2 ? 3 : 1;
        rng_state = (uint64_t)(1000 * d + op + 1);
        fill_values(a, (dlx_dtype)d, N + 1);
        fill_values(b, (dlx_dtype)d, N + 1);
        kernels++;
        for (int mode = 0; mode < modes; mode++) {
          for (int64_t start = 0; start < 2; start++) {
            memset(want, 0x5a, sizeof want);
            memset(got, 0x5a, sizeof got);
            portable(want + start * osize, a + start * size, b + start * size, N - start,
                     (dlx_cpu_ew_mode)mode);
            other(got + start * osize, a + start * size, b + start * size, N - start,
                  (dlx_cpu_ew_mode)mode);
            if (!same_results(want, got, sizeof want, rdtype)) {
              fprintf(stderr, "%s %s on %s, mode %d, start %d: not the portable kernel's bytes\n",
                      dlx_cpu_isa_name((dlx_cpu_isa)isa), dlx_ew_name((dlx_ew_op)op),
                      dlx_dtype_info_of((dlx_dtype)d)->name, mode, (int)start);
              CHECK(false);
            }
          }
        }
      }
    }
  }
  printf("test_cpu_elementwise: %d kernels compared on %d other ISAs\n", isas ? kernels / isas : 0,
         isas);
  if (isas > 0) CHECK(kernels > 300 * isas);
}

/* The streamed kernels (non-temporal stores, for large results) of each ISA give the bytes of
 * the same ISA's kernel, in every mode, over lengths and starts that put the unaligned head, the
 * vector body and the tail in every combination; nothing outside the row is written. */
static void test_streamed_kernels_give_the_same_bytes(void) {
  enum { N = 301, PAD = 8 };
  static char a[(N + PAD) * 8], b[(N + PAD) * 8], want[(N + PAD) * 8], got[(N + PAD) * 8];
  static const int64_t lengths[] = {0, 1, 3, 8, 17, 64, N};
  int streamed = 0;
  for (int isa = 0; isa < DLX_CPU_ISAS; isa++) {
    if (!dlx_cpu_isa_available((dlx_cpu_isa)isa)) continue;
    for (int d = 0; d <= DLX_COMPLEX128; d++) {
      for (int op = 0; op < DLX_EW_NUM_OPS; op++) {
        dlx_cpu_ew_kernel fast =
            dlx_cpu_ew_stream_kernel_isa((dlx_ew_op)op, (dlx_dtype)d, (dlx_cpu_isa)isa);
        dlx_cpu_ew_kernel plain =
            dlx_cpu_ew_kernel_isa((dlx_ew_op)op, (dlx_dtype)d, (dlx_cpu_isa)isa);
        if (fast == NULL) continue;
        streamed++;
        int64_t size = dlx_itemsize((dlx_dtype)d);
        dlx_dtype rdtype = dlx_ew_result_of((dlx_ew_op)op, (dlx_dtype)d);
        rng_state = (uint64_t)(7000 + 100 * d + op);
        fill_values(a, (dlx_dtype)d, N + PAD);
        fill_values(b, (dlx_dtype)d, N + PAD);
        for (int mode = 0; mode < 3; mode++) {
          for (int64_t start = 0; start < PAD; start++) {
            for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
              int64_t n = lengths[k], at = start * size;
              memset(want, 0x5a, sizeof want);
              memset(got, 0x5a, sizeof got);
              plain(want + at, a + at, b + at, n, (dlx_cpu_ew_mode)mode);
              fast(got + at, a + at, b + at, n, (dlx_cpu_ew_mode)mode);
              if (!same_results(want, got, sizeof want, rdtype)) {
                fprintf(stderr, "%s streamed %s on %s, mode %d, start %d, n %d: other bytes\n",
                        dlx_cpu_isa_name((dlx_cpu_isa)isa), dlx_ew_name((dlx_ew_op)op),
                        dlx_dtype_info_of((dlx_dtype)d)->name, mode, (int)start, (int)n);
                CHECK(false);
              }
            }
          }
        }
      }
    }
  }
  printf("test_cpu_elementwise: %d streamed kernels compared\n", streamed);
#if defined(__x86_64__)
  CHECK(streamed >= 20); /* add, sub, mul of 6 dtypes, div of float32 and float64 */
#endif
}

/* A result of 64 MiB or more goes out through the streamed kernel (elementwise.c): every element
 * right on one thread and on two, into a dst whose first element is not at a vector boundary,
 * for a + a, a - 3 and 3 - a (the three modes). */
static void test_large_result(void) {
  const int64_t n = ((int64_t)16 << 20) + 5; /* 64 MiB of float32 and a little */
  int64_t shape[1] = {n}, strides[1] = {1};
  dlx_buffer *ba = new_buffer((size_t)n * 4), *bd = new_buffer((size_t)(n + 1) * 4);
  dlx_error err;
  float *pa = ba->data;
  for (int64_t i = 0; i < n; i++) pa[i] = (float)(i % 1000) * 0.25f - 7.0f;
  dlx_tensor a = make_tensor(ba, DLX_FLOAT32, 1, shape, strides, 0);
  dlx_tensor d = make_tensor(bd, DLX_FLOAT32, 1, shape, strides, 1);
  dlx_operand oa = tensor_operand(&a), three;
  three.tensor = NULL;
  three.scalar.kind = DLX_KIND_FLOAT;
  three.scalar.v.f = 3.0;
  for (int threads = 1; threads <= 2; threads++) {
    dlx_cpu_set_num_threads(threads);
    for (int form = 0; form < 3; form++) {
      const dlx_operand *x = form == 2 ? &three : &oa;
      const dlx_operand *y = form == 1 ? &three : &oa;
      memset(bd->data, 0, (size_t)(n + 1) * 4);
      CHECK(dlx_elementwise(form == 0 ? DLX_EW_ADD : DLX_EW_SUB, x, y, &d, NULL, &err) == 0);
      const float *pd = (const float *)bd->data + 1;
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; i++) {
        float want = form == 0 ? pa[i] + pa[i] : form == 1 ? pa[i] - 3.0f : 3.0f - pa[i];
        wrong += pd[i] != want;
      }
      CHECK(wrong == 0);
      CHECK(((const float *)bd->data)[0] == 0.0f); /* the element before dst untouched */
    }
  }
  dlx_cpu_set_num_threads(0);
  free_buffer(ba);
  free_buffer(bd);
}

int main(void) {
  test_devices();
  test_devices_of_math_and_ternary_ops();
  test_math_and_where_layouts_and_threads();
  test_every_accepted_op_has_a_kernel();
  test_misaligned_operands();
  test_strided_cast_rows_and_threads();
  test_isas_give_the_same_bytes();
  test_streamed_kernels_give_the_same_bytes();
  test_large_result();
  return check_report("test_cpu_elementwise");
}
