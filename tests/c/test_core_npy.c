/* test_core_npy.c -- the .npy header parser and writer (core/npy.h) at their edges: every
 * version, descr and byte order, Python's literal syntax around NumPy's dict, and each kind of
 * broken header, whose error must be a ValueError saying what is wrong. The files themselves are
 * the specs' business (spec/npy_spec.lua). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/core.h"
#include "core/npy.h"

/* A file's first bytes: the preamble of version major.0 for dict, padded as NumPy pads it. */
static size_t make(unsigned char *buf, int major, const char *dict) {
  size_t fixed = major == 1 ? 10 : 12, n = strlen(dict), hlen = n + 1;
  size_t pad = 64 - (fixed + hlen) % 64;
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (unsigned char)major;
  buf[7] = 0;
  for (size_t i = 0; i < fixed - 8; i++)
    buf[8 + i] = (unsigned char)(((hlen + pad) >> (8 * i)) & 0xff);
  memcpy(buf + fixed, dict, n);
  memset(buf + fixed + n, ' ', pad);
  buf[fixed + n + pad] = '\n';
  return fixed + hlen + pad;
}

static unsigned char file[4096];

/* Parses dict in a file of version 1.0; the class of the result. */
static int parse(const char *dict, dlx_npy_header *h, dlx_error *err) {
  size_t size = make(file, 1, dict);
  return dlx_npy_parse(file, size, h, err);
}

/* dict must be refused with a ValueError whose message holds `words`. */
static void refused(const char *dict, const char *words) {
  dlx_npy_header h;
  dlx_error err;
  int rc = parse(dict, &h, &err);
  CHECK_EQ_INT(rc, DLX_VALUE_ERROR);
  if (rc == DLX_VALUE_ERROR && strstr(err.message, words) == NULL) {
    fprintf(stderr, "for %s: '%s' does not say '%s'\n", dict, err.message, words);
    CHECK(0);
  }
}

static void test_valid_headers(void) {
  dlx_npy_header h;
  dlx_error err;
  CHECK_EQ_INT(parse("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", &h, &err), 0);
  CHECK_EQ_INT(h.dtype, DLX_FLOAT32);
  CHECK_EQ_INT(h.ndim, 2);
  CHECK_EQ_INT(h.shape[0], 2);
  CHECK_EQ_INT(h.shape[1], 3);
  CHECK(!h.fortran_order && !h.swap);
  CHECK_EQ_INT(h.data_offset, 128);
  CHECK_EQ_INT(h.data_bytes, 24);
  /* any key order, double quotes, no trailing comma, odd spacing, Python 2's long integers */
  CHECK_EQ_INT(parse("{ \"shape\" :(4L,) ,'fortran_order':True,\"descr\":'>i8'}", &h, &err), 0);
  CHECK_EQ_INT(h.dtype, DLX_INT64);
  CHECK_EQ_INT(h.ndim, 1);
  CHECK_EQ_INT(h.shape[0], 4);
  CHECK(h.fortran_order && h.swap);
  /* 0-d and zero-size arrays */
  CHECK_EQ_INT(parse("{'descr': '|b1', 'fortran_order': False, 'shape': (), }", &h, &err), 0);
  CHECK_EQ_INT(h.ndim, 0);
  CHECK_EQ_INT(h.data_bytes, 1);
  CHECK_EQ_INT(parse("{'descr': '<c16', 'fortran_order': False, 'shape': (0, 5,), }", &h, &err), 0);
  CHECK_EQ_INT(h.dtype, DLX_COMPLEX128);
  CHECK_EQ_INT(h.data_bytes, 0);
  /* a zero dim makes huge ones harmless: no bytes */
  CHECK_EQ_INT(
      parse("{'descr': '<u2', 'fortran_order': False, 'shape': (0, 9223372036854775807), }", &h,
            &err),
      0);
  CHECK_EQ_INT(h.data_bytes, 0);
  /* one-byte items never swap; '|' and '=' on a wider item are this machine's order */
  CHECK_EQ_INT(parse("{'descr': '>u1', 'fortran_order': False, 'shape': (1,), }", &h, &err), 0);
  CHECK(!h.swap);
  CHECK_EQ_INT(parse("{'descr': '=f8', 'fortran_order': False, 'shape': (1,), }", &h, &err), 0);
  CHECK(!h.swap);
  CHECK_EQ_INT(parse("{'descr': 'f2', 'fortran_order': False, 'shape': (1,), }", &h, &err), 0);
  CHECK(!h.swap && h.dtype == DLX_FLOAT16);
}

static void test_every_descr(void) {
  static const char *const descrs[] = {"|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2",
                                       "<u4", "<u8", "<f2", "<f4", "<f8", "<c8", "<c16"};
  static const dlx_dtype dtypes[] = {
      DLX_BOOL,   DLX_INT8,   DLX_INT16,   DLX_INT32,   DLX_INT64,   DLX_UINT8,     DLX_UINT16,
      DLX_UINT32, DLX_UINT64, DLX_FLOAT16, DLX_FLOAT32, DLX_FLOAT64, DLX_COMPLEX64, DLX_COMPLEX128};
  for (size_t i = 0; i < sizeof descrs / sizeof descrs[0]; i++) {
    char dict[128];
    dlx_npy_header h;
    dlx_error err;
    snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (3,), }",
             descrs[i]);
    CHECK_EQ_INT(parse(dict, &h, &err), 0);
    CHECK_EQ_INT(h.dtype, dtypes[i]);
    CHECK(strcmp(dlx_npy_descr(dtypes[i]), descrs[i]) == 0); /* this machine is little-endian */
    CHECK_EQ_INT(h.data_bytes, 3 * dlx_itemsize(dtypes[i]));
  }
  CHECK(dlx_npy_descr(DLX_BFLOAT16) == NULL);
  CHECK(dlx_npy_descr(DLX_FLOAT8_E4M3FN) == NULL);
}

static void test_versions(void) {
  const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }";
  for (int major = 1; major <= 3; major++) {
    dlx_npy_header h;
    dlx_error err;
    size_t size = make(file, major, dict);
    CHECK_EQ_INT(dlx_npy_parse(file, size, &h, &err), 0);
    CHECK_EQ_INT(h.major, major);
    CHECK_EQ_INT(h.data_offset, size);
    CHECK_EQ_INT(h.data_offset % 64, 0);
    CHECK_EQ_INT(h.shape[0], 5);
    /* one byte short of the header: truncated; and every shorter prefix too */
    for (size_t cut = 0; cut < size; cut++)
      CHECK_EQ_INT(dlx_npy_parse(file, cut, &h, &err), DLX_VALUE_ERROR);
  }
}

static void test_broken_preambles(void) {
  dlx_npy_header h;
  dlx_error err;
  size_t size = make(file, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }");
  file[0] = 'x';
  CHECK_EQ_INT(dlx_npy_parse(file, size, &h, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "magic") != NULL);
  file[0] = 0x93;
  file[6] = 4;
  CHECK_EQ_INT(dlx_npy_parse(file, size, &h, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "version 4.0") != NULL);
  file[6] = 1;
  file[7] = 1;
  CHECK_EQ_INT(dlx_npy_parse(file, size, &h, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "version 1.1") != NULL);
  file[7] = 0;
  file[8] = 0xff; /* header length 0x?? ff: past the bytes given */
  CHECK_EQ_INT(dlx_npy_parse(file, size, &h, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "truncated") != NULL);
  /* version 2.0 with a header longer than dlx reads: refused before anything is allocated */
  make(file, 2, "{}");
  file[8] = file[9] = file[10] = file[11] = 0xff;
  CHECK_EQ_INT(dlx_npy_preamble(file, 12, &h, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "longer than") != NULL);
  CHECK_EQ_INT(dlx_npy_preamble("\x93NUM", 4, &h, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "truncated") != NULL);
  CHECK_EQ_INT(dlx_npy_preamble("", 0, &h, &err), DLX_VALUE_ERROR);
  /* 6 to 7 bytes: the magic is compared over its own 6 bytes, no further (the fuzzer's find) */
  CHECK_EQ_INT(dlx_npy_preamble("\x93NUMPY\x01", 7, &h, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "truncated") != NULL);
  CHECK_EQ_INT(dlx_npy_preamble("\x93N'desc", 7, &h, &err), DLX_VALUE_ERROR);
  CHECK(strstr(err.message, "magic") != NULL);
}

static void test_broken_dicts(void) {
  refused("", "start with '{'");
  refused("['descr', '<f4']", "start with '{'");
  refused("{'descr': '<f4', 'fortran_order': False}", "missing");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "key other");
  refused("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "twice");
  refused("{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", "commas");
  refused("{'descr' '<f4', 'fortran_order': False, 'shape': (1,)}", "':'");
  refused("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", "True or False");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", "not a tuple");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3)}", "without a comma");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (1 2)}", "commas");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (1,,)}", "not an integer");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", "negative");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
          "overflows int64");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
          "overflows");
  refused("{'descr': '<f8', 'fortran_order': False, 'shape': (1152921504606846976, 8)}",
          "overflow");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x", "more than the dict");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", "commas");
  refused("{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", "descr");
  refused("{'descr': 'a\\b', 'fortran_order': False, 'shape': (1,)}", "escape");
  refused("{'descr': '|O', 'fortran_order': False, 'shape': (1,)}", "object");
  refused("{'descr': '<f16', 'fortran_order': False, 'shape': (1,)}", "not a type dlx reads");
  refused("{'descr': '<U5', 'fortran_order': False, 'shape': (1,)}", "not a type dlx reads");
  refused("{'descr': '<i4444444444', 'fortran_order': False, 'shape': (1,)}", "too long");
  refused("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", "structured");
  refused("{'descr': 3, 'fortran_order': False, 'shape': (1,)}", "not a string");
  refused("{'a_very_long_key_name': 1}", "key other");
  {
    char dict[512] = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
    for (int d = 0; d < DLX_MAX_NDIM + 1; d++) strcat(dict, "1, ");
    strcat(dict, ")}");
    refused(dict, "more than the 32 dims");
  }
}

/* The writer's bytes, byte for byte what NumPy's np.save writes (these were read from files
 * NumPy 2 wrote), and parsed back. */
static void test_writer(void) {
  static const char expect_2x3[] =
      "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  static const char expect_0d[] = "{'descr': '|b1', 'fortran_order': False, 'shape': (), }";
  const int64_t shape[2] = {2, 3};
  char buf[512];
  size_t len;
  dlx_npy_header h;
  dlx_error err;
  CHECK_EQ_INT(dlx_npy_format(buf, sizeof buf, &len, DLX_FLOAT32, shape, 2, &err), 0);
  CHECK_EQ_INT(len, 128);
  CHECK(memcmp(buf, expect_2x3, sizeof expect_2x3 - 1) == 0);
  CHECK(buf[len - 1] == '\n');
  /* the padding: spaces for the first dim to grow to 21 digits, then up to the 64-byte line */
  for (size_t i = sizeof expect_2x3 - 1; i < len - 1; i++) CHECK(buf[i] == ' ');
  CHECK_EQ_INT(dlx_npy_parse(buf, len, &h, &err), 0);
  CHECK_EQ_INT(h.dtype, DLX_FLOAT32);
  CHECK_EQ_INT(h.ndim, 2);
  CHECK_EQ_INT(h.data_offset, 128);
  CHECK_EQ_INT(dlx_npy_format(buf, sizeof buf, &len, DLX_BOOL, NULL, 0, &err), 0);
  CHECK_EQ_INT(len, 128);
  CHECK(memcmp(buf + 10, expect_0d, sizeof expect_0d - 1) == 0);
  {
    const int64_t one[1] = {7};
    CHECK_EQ_INT(dlx_npy_format(buf, sizeof buf, &len, DLX_COMPLEX128, one, 1, &err), 0);
    CHECK(strstr(buf + 10, "'shape': (7,), }") != NULL);
  }
  CHECK_EQ_INT(dlx_npy_format(buf, sizeof buf, &len, DLX_BFLOAT16, shape, 2, &err), DLX_TYPE_ERROR);
  CHECK(strstr(err.message, "bfloat16 has no NumPy dtype") != NULL);
  CHECK_EQ_INT(dlx_npy_format(buf, 100, &len, DLX_FLOAT32, shape, 2, &err), DLX_VALUE_ERROR);
  /* 1.0 while the padded header fits its 2-byte length, 2.0 past it (as NumPy) */
  CHECK_EQ_INT(dlx_npy_version_for(100), 1);
  CHECK_EQ_INT(dlx_npy_version_for(65535 - 64 - 11), 1);
  CHECK_EQ_INT(dlx_npy_version_for(65535), 2);
  CHECK_EQ_INT(dlx_npy_version_for(70000), 2);
}

static void test_swap(void) {
  unsigned char b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  dlx_npy_swap(b, 2, 4);
  CHECK(memcmp(b, "\x04\x03\x02\x01\x08\x07\x06\x05", 8) == 0);
  dlx_npy_swap(b, 1, 8);
  CHECK(memcmp(b, "\x05\x06\x07\x08\x01\x02\x03\x04", 8) == 0);
  dlx_npy_swap(b, 4, 2);
  CHECK(memcmp(b, "\x06\x05\x08\x07\x02\x01\x04\x03", 8) == 0);
  dlx_npy_swap(b, 8, 1);
  CHECK(memcmp(b, "\x06\x05\x08\x07\x02\x01\x04\x03", 8) == 0);
}

int main(void) {
  test_valid_headers();
  test_every_descr();
  test_versions();
  test_broken_preambles();
  test_broken_dicts();
  test_writer();
  test_swap();
  return check_report("test_core_npy");
}
