/* npy.c -- the .npy header: the parser (any bytes in, never a read past them) and the writer. The
 * parser takes the dict literal that NumPy writes and Python's literal syntax around it (keys in
 * any order, either quote, any spacing, trailing commas, a Python 2 'L' after an integer), and
 * nothing else: the three keys exactly once, a descr dlx has, a tuple of non-negative integers. */
#include "core/npy.h"

#include <stdio.h>
#include <string.h>

static const char magic[6] = "\x93NUMPY";

static bool little_endian_host(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

int dlx_npy_preamble(const void *bytes, size_t size, dlx_npy_header *out, dlx_error *err) {
  const unsigned char *p = bytes;
  uint32_t hlen;
  size_t fixed;
  if (size < 8 && memcmp(p, magic, size < sizeof magic ? size : sizeof magic) == 0)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "truncated .npy file: %zu bytes, fewer than its magic and version take", size);
  if (size < 8 || memcmp(p, magic, sizeof magic) != 0)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "not a .npy file: it does not start with the magic \\x93NUMPY");
  out->major = p[6];
  out->minor = p[7];
  if ((out->major < 1 || out->major > 3) || out->minor != 0)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    ".npy format version %d.%d is unknown (dlx reads 1.0, 2.0 and 3.0)", out->major,
                    out->minor);
  fixed = out->major == 1 ? 10 : 12;
  if (size < fixed)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "truncated .npy file: %zu bytes, the preamble of version %d.0 takes %zu", size,
                    out->major, fixed);
  hlen = out->major == 1
             ? (uint32_t)p[8] | (uint32_t)p[9] << 8
             : (uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 | (uint32_t)p[11] << 24;
  if (hlen > DLX_NPY_MAX_HEADER)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    ".npy header of %lu bytes is longer than the %lu dlx reads",
                    (unsigned long)hlen, (unsigned long)DLX_NPY_MAX_HEADER);
  out->data_offset = fixed + hlen;
  return 0;
}

/* ---- the dict literal */

typedef struct scanner {
  const char *p, *end;
} scanner;

static void skip_space(scanner *s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}

/* Skips spaces, then takes c when it comes next. */
static bool take(scanner *s, char c) {
  skip_space(s);
  if (s->p < s->end && *s->p == c) {
    s->p++;
    return true;
  }
  return false;
}

static bool take_word(scanner *s, const char *word) {
  size_t len = strlen(word);
  skip_space(s);
  if ((size_t)(s->end - s->p) < len || memcmp(s->p, word, len) != 0) return false;
  s->p += len;
  return true;
}

static int malformed(dlx_error *err, const char *what) {
  return dlx_fail(err, DLX_VALUE_ERROR, "the .npy header is not the dict literal NumPy writes: %s",
                  what);
}

/* A quoted string without escapes, copied into out (cap bytes, NUL-terminated); one too long for
 * out sets *too_long instead (longer than any key or descr dlx knows: the caller names it). */
static int take_string(scanner *s, char *out, size_t cap, bool *too_long, dlx_error *err) {
  const char *start;
  char quote;
  skip_space(s);
  if (s->p >= s->end || (*s->p != '\'' && *s->p != '"'))
    return malformed(err, "a key or descr that is not a string");
  quote = *s->p++;
  start = s->p;
  while (s->p < s->end && *s->p != quote) {
    if (*s->p == '\\' || *s->p == '\n') return malformed(err, "a string with an escape");
    s->p++;
  }
  if (s->p >= s->end) return malformed(err, "an unterminated string");
  *too_long = (size_t)(s->p - start) >= cap;
  if (*too_long) {
    s->p++;
    return 0;
  }
  memcpy(out, start, (size_t)(s->p - start));
  out[s->p - start] = '\0';
  s->p++;
  return 0;
}

/* The descr's item: kind letter and size in bytes, from dlx's dtypes. */
static const struct {
  const char *item;
  dlx_dtype dtype;
} items[] = {
    {"b1", DLX_BOOL},      {"i1", DLX_INT8},        {"i2", DLX_INT16},   {"i4", DLX_INT32},
    {"i8", DLX_INT64},     {"u1", DLX_UINT8},       {"u2", DLX_UINT16},  {"u4", DLX_UINT32},
    {"u8", DLX_UINT64},    {"f2", DLX_FLOAT16},     {"f4", DLX_FLOAT32}, {"f8", DLX_FLOAT64},
    {"c8", DLX_COMPLEX64}, {"c16", DLX_COMPLEX128},
};

static int parse_descr(const char *descr, dlx_npy_header *out, dlx_error *err) {
  const char *item = descr;
  char order = '|';
  if (*item == '<' || *item == '>' || *item == '|' || *item == '=') order = *item++;
  if (item[0] == 'O')
    return dlx_fail(err, DLX_VALUE_ERROR,
                    ".npy descr '%s' is an object array (pickled Python objects): dlx does not "
                    "read those",
                    descr);
  for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
    if (strcmp(item, items[i].item) != 0) continue;
    out->dtype = items[i].dtype;
    /* '|' (no order) and '=' (native) on a multi-byte item: as NumPy, this machine's order */
    out->swap = (order == '<' && !little_endian_host()) || (order == '>' && little_endian_host());
    if (dlx_itemsize(out->dtype) == 1) out->swap = false;
    return 0;
  }
  return dlx_fail(err, DLX_VALUE_ERROR,
                  ".npy descr '%s' is not a type dlx reads (bool, int8..int64, uint8..uint64, "
                  "float16, float32, float64, complex64, complex128)",
                  descr);
}

static int take_descr(scanner *s, dlx_npy_header *out, dlx_error *err) {
  bool too_long;
  int rc;
  skip_space(s);
  if (s->p < s->end && *s->p == '[')
    return dlx_fail(err, DLX_VALUE_ERROR,
                    ".npy descr is a list: structured dtypes are not supported by dlx");
  if ((rc = take_string(s, out->descr, sizeof out->descr, &too_long, err)) != 0) return rc;
  if (too_long)
    return dlx_fail(err, DLX_VALUE_ERROR, ".npy descr is too long for a type dlx reads");
  return parse_descr(out->descr, out, err);
}

static int take_bool(scanner *s, bool *out, dlx_error *err) {
  if (take_word(s, "True"))
    *out = true;
  else if (take_word(s, "False"))
    *out = false;
  else
    return malformed(err, "fortran_order is not True or False");
  return 0;
}

static int take_dim(scanner *s, int64_t *out, dlx_error *err) {
  int64_t v = 0;
  skip_space(s);
  if (s->p < s->end && *s->p == '-')
    return dlx_fail(err, DLX_VALUE_ERROR, ".npy shape holds a negative dim");
  if (s->p >= s->end || *s->p < '0' || *s->p > '9')
    return malformed(err, "a shape entry that is not an integer");
  for (; s->p < s->end && *s->p >= '0' && *s->p <= '9'; s->p++)
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *s->p - '0', &v))
      return dlx_fail(err, DLX_VALUE_ERROR, ".npy shape holds a dim that overflows int64");
  if (s->p < s->end && *s->p == 'L') s->p++; /* Python 2 wrote long integers so */
  *out = v;
  return 0;
}

/* A tuple: (), (n,), (n, m), (n, m,); (n) is an integer in Python, not a tuple. */
static int take_shape(scanner *s, dlx_npy_header *out, dlx_error *err) {
  int rc;
  out->ndim = 0;
  if (!take(s, '(')) return malformed(err, "shape is not a tuple");
  if (take(s, ')')) return 0;
  for (;;) {
    int64_t dim = 0;
    if ((rc = take_dim(s, &dim, err)) != 0) return rc;
    if (out->ndim == DLX_MAX_NDIM)
      return dlx_fail(err, DLX_VALUE_ERROR, ".npy shape has more than the %d dims dlx takes",
                      DLX_MAX_NDIM);
    out->shape[out->ndim++] = dim;
    if (take(s, ')')) {
      if (out->ndim == 1) return malformed(err, "shape (n) without a comma is not a tuple");
      return 0;
    }
    if (!take(s, ',')) return malformed(err, "shape entries not separated by commas");
    if (take(s, ')')) return 0;
  }
}

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4 };

static int take_entry(scanner *s, int *seen, dlx_npy_header *out, dlx_error *err) {
  char key[16];
  bool too_long;
  int rc = take_string(s, key, sizeof key, &too_long, err), which;
  if (rc != 0) return rc;
  which = too_long                            ? 0
          : strcmp(key, "descr") == 0         ? KEY_DESCR
          : strcmp(key, "fortran_order") == 0 ? KEY_FORTRAN
          : strcmp(key, "shape") == 0         ? KEY_SHAPE
                                              : 0;
  if (which == 0) return malformed(err, "a key other than 'descr', 'fortran_order' and 'shape'");
  if (*seen & which) return malformed(err, "a key given twice");
  *seen |= which;
  if (!take(s, ':')) return malformed(err, "a key without ':'");
  if (which == KEY_DESCR) return take_descr(s, out, err);
  if (which == KEY_FORTRAN) return take_bool(s, &out->fortran_order, err);
  return take_shape(s, out, err);
}

static int parse_dict(scanner *s, dlx_npy_header *out, dlx_error *err) {
  int seen = 0, rc;
  if (!take(s, '{')) return malformed(err, "it does not start with '{'");
  while (!take(s, '}')) {
    if ((rc = take_entry(s, &seen, out, err)) != 0) return rc;
    if (!take(s, ',')) {
      if (!take(s, '}')) return malformed(err, "entries not separated by commas");
      break;
    }
  }
  if (seen != (KEY_DESCR | KEY_FORTRAN | KEY_SHAPE))
    return malformed(err, "a key of 'descr', 'fortran_order' and 'shape' is missing");
  skip_space(s);
  if (s->p != s->end) return malformed(err, "more than the dict");
  return 0;
}

static int check_size(dlx_npy_header *out, dlx_error *err) {
  int64_t count = 1, bytes;
  for (int32_t d = 0; d < out->ndim; d++)
    if (__builtin_mul_overflow(count, out->shape[d], &count))
      return dlx_fail(err, DLX_VALUE_ERROR, ".npy shape's element count overflows int64");
  if (__builtin_mul_overflow(count, dlx_itemsize(out->dtype), &bytes))
    return dlx_fail(err, DLX_VALUE_ERROR, ".npy data of this shape would overflow int64 bytes");
  out->data_bytes = (uint64_t)bytes;
  return 0;
}

int dlx_npy_parse(const void *bytes, size_t size, dlx_npy_header *out, dlx_error *err) {
  int rc = dlx_npy_preamble(bytes, size, out, err);
  scanner s;
  if (rc != 0) return rc;
  if (out->data_offset > size)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "truncated .npy file: the header ends at byte %llu, past the %zu bytes there",
                    (unsigned long long)out->data_offset, size);
  s.p = (const char *)bytes + (out->major == 1 ? 10 : 12);
  s.end = (const char *)bytes + out->data_offset;
  out->fortran_order = false;
  out->ndim = 0;
  if ((rc = parse_dict(&s, out, err)) != 0) return rc;
  return check_size(out, err);
}

/* ---- the writer */

const char *dlx_npy_descr(dlx_dtype dtype) {
  static const char *const little[] = {
      [DLX_BOOL] = "|b1",      [DLX_INT8] = "|i1",        [DLX_INT16] = "<i2",
      [DLX_INT32] = "<i4",     [DLX_INT64] = "<i8",       [DLX_UINT8] = "|u1",
      [DLX_UINT16] = "<u2",    [DLX_UINT32] = "<u4",      [DLX_UINT64] = "<u8",
      [DLX_FLOAT16] = "<f2",   [DLX_FLOAT32] = "<f4",     [DLX_FLOAT64] = "<f8",
      [DLX_COMPLEX64] = "<c8", [DLX_COMPLEX128] = "<c16",
  };
  static const char *const big[] = {
      [DLX_BOOL] = "|b1",      [DLX_INT8] = "|i1",        [DLX_INT16] = ">i2",
      [DLX_INT32] = ">i4",     [DLX_INT64] = ">i8",       [DLX_UINT8] = "|u1",
      [DLX_UINT16] = ">u2",    [DLX_UINT32] = ">u4",      [DLX_UINT64] = ">u8",
      [DLX_FLOAT16] = ">f2",   [DLX_FLOAT32] = ">f4",     [DLX_FLOAT64] = ">f8",
      [DLX_COMPLEX64] = ">c8", [DLX_COMPLEX128] = ">c16",
  };
  if ((int)dtype < 0 || (size_t)dtype >= sizeof little / sizeof little[0]) return NULL;
  return little_endian_host() ? little[dtype] : big[dtype];
}

/* NumPy pads every header so that the data starts at a multiple of 64. */
#define NPY_ALIGN 64
/* ... and leaves room for the first dim to grow to 21 digits in place. */
#define GROWTH_DIGITS 21

int dlx_npy_version_for(size_t dict_len) {
  size_t hlen = dict_len + 1, padded = hlen + NPY_ALIGN - (8 + 2 + hlen) % NPY_ALIGN;
  return padded > 0xffff ? 2 : 1;
}

int dlx_npy_format(char *buf, size_t cap, size_t *len, dlx_dtype dtype, const int64_t *shape,
                   int32_t ndim, dlx_error *err) {
  const char *descr = dlx_npy_descr(dtype);
  char dict[64 + DLX_MAX_NDIM * 24 + GROWTH_DIGITS];
  size_t n, fixed, hlen, pad;
  int version;
  if (descr == NULL)
    return dlx_fail(err, DLX_TYPE_ERROR,
                    "%s has no NumPy dtype, so no .npy descr: convert it first (t:astype(\"%s\"))",
                    dlx_dtype_info_of(dtype)->name,
                    dtype == DLX_BFLOAT16 ? "float32" : "a NumPy dtype");
  n = (size_t)snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                       descr);
  for (int32_t d = 0; d < ndim; d++)
    n += (size_t)snprintf(dict + n, sizeof dict - n, d + 1 < ndim ? "%lld, " : "%lld",
                          (long long)shape[d]);
  n += (size_t)snprintf(dict + n, sizeof dict - n, "%s), }", ndim == 1 ? "," : "");
  if (ndim > 0) {
    int digits = snprintf(NULL, 0, "%lld", (long long)shape[0]);
    for (; digits < GROWTH_DIGITS; digits++) dict[n++] = ' ';
  }
  version = dlx_npy_version_for(n);
  fixed = version == 1 ? 10 : 12;
  hlen = n + 1;
  pad = NPY_ALIGN - (fixed + hlen) % NPY_ALIGN;
  if (fixed + hlen + pad > cap)
    return dlx_fail(err, DLX_VALUE_ERROR, ".npy header of %zu bytes does not fit %zu",
                    fixed + hlen + pad, cap);
  memcpy(buf, magic, sizeof magic);
  buf[6] = (char)version;
  buf[7] = 0;
  for (size_t i = 0; i < fixed - 8; i++) buf[8 + i] = (char)(((hlen + pad) >> (8 * i)) & 0xff);
  memcpy(buf + fixed, dict, n);
  memset(buf + fixed + n, ' ', pad);
  buf[fixed + n + pad] = '\n';
  *len = fixed + hlen + pad;
  return 0;
}

void dlx_npy_swap(void *data, uint64_t count, int itemsize) {
  unsigned char *p = data;
  if (itemsize == 2 || itemsize == 4 || itemsize == 8) {
    for (uint64_t i = 0; i < count; i++, p += itemsize) {
      uint16_t v2;
      uint32_t v4;
      uint64_t v8;
      if (itemsize == 2) {
        memcpy(&v2, p, 2);
        v2 = __builtin_bswap16(v2);
        memcpy(p, &v2, 2);
      } else if (itemsize == 4) {
        memcpy(&v4, p, 4);
        v4 = __builtin_bswap32(v4);
        memcpy(p, &v4, 4);
      } else {
        memcpy(&v8, p, 8);
        v8 = __builtin_bswap64(v8);
        memcpy(p, &v8, 8);
      }
    }
    return;
  }
  for (uint64_t i = 0; i < count; i++, p += itemsize)
    for (int a = 0, b = itemsize - 1; a < b; a++, b--) {
      unsigned char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}
