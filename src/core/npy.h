/* npy.h -- NumPy's .npy format: the header parser and writer (Lua-free, no I/O, so that a fuzzer
 * can drive the parser with any bytes) and the file functions over them.
 *
 * A file is the magic "\x93NUMPY", a major and a minor version byte (1.0, 2.0 or 3.0), the
 * header's length (2 bytes little-endian for 1.0, 4 for 2.0 and 3.0), then the header: the
 * Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
 * spaces and a newline so that the data starts at a multiple of 64 bytes. */
#ifndef DLX_CORE_NPY_H
#define DLX_CORE_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dtype.h"
#include "core/error.h"
#include "core/tensor.h"

/* Bytes of the longest preamble (magic, version, header length): enough to learn where the
 * header ends. */
#define DLX_NPY_PREAMBLE_MAX 12
/* The longest header read: dlx's headers (at most 32 dims) take a few hundred bytes. */
#define DLX_NPY_MAX_HEADER ((uint32_t)1 << 20)

typedef struct dlx_npy_header {
  int major, minor;   /* the format version: 1.0, 2.0 or 3.0 */
  dlx_dtype dtype;    /* the descr's type */
  char descr[8];      /* the descr as written, for messages ("<f4") */
  bool swap;          /* the data's byte order is not this machine's: swap each item */
  bool fortran_order; /* the data is in Fortran (column-major) order */
  int32_t ndim;
  int64_t shape[DLX_MAX_NDIM];
  uint64_t data_offset; /* where the data starts: the preamble and the header's length */
  uint64_t data_bytes;  /* bytes of data the shape and dtype need */
} dlx_npy_header;

/* Reads the preamble at the start of bytes (size of them): checks the magic and the version and
 * sets out->major, minor and data_offset. ValueError for anything else, and for fewer bytes than
 * the preamble takes, or a header longer than DLX_NPY_MAX_HEADER. */
int dlx_npy_preamble(const void *bytes, size_t size, dlx_npy_header *out, dlx_error *err);
/* Parses the preamble and the header: bytes holds at least the first data_offset bytes of the
 * file (the data need not follow). Fills out; ValueError naming what is wrong otherwise (a
 * header that is not the dict literal NumPy writes, an unknown or unsupported descr, negative or
 * overflowing dims, more than DLX_MAX_NDIM dims). It reads nothing past bytes + size. */
int dlx_npy_parse(const void *bytes, size_t size, dlx_npy_header *out, dlx_error *err);

/* The descr NumPy writes for dtype in this machine's byte order ("<f4", "|b1"), or NULL for a
 * dtype NumPy does not have (bfloat16, the storage-only types). */
const char *dlx_npy_descr(dlx_dtype dtype);
/* The version NumPy writes for a header of this length (the dict, its padding and newline
 * excluded): 1 when the padded header fits in 1.0's 2-byte length, 2 otherwise. */
int dlx_npy_version_for(size_t dict_len);
/* Writes the preamble and header of a C-order array into buf (cap bytes), exactly as NumPy's
 * np.save does, and sets *len (a multiple of 64). TypeError for a dtype NumPy does not have;
 * ValueError when cap is too small. */
int dlx_npy_format(char *buf, size_t cap, size_t *len, dlx_dtype dtype, const int64_t *shape,
                   int32_t ndim, dlx_error *err);
/* Reverses the bytes of each of count items of itemsize bytes at data (complex items: give the
 * size of one part, and twice the count). */
void dlx_npy_swap(void *data, uint64_t count, int itemsize);

/* ---- files (npy_file.c): errors of the OS are OSError, naming the path and the reason */
/* out = the array of the .npy file at path, a new CPU tensor. With map, a tensor over the file
 * mapped into memory (read-only unless writable, which maps it shared: writes reach the file);
 * the mapping lives until the last view or export of the tensor is gone. */
int dlx_npy_load(dlx_tensor *out, const char *path, bool map, bool writable, dlx_error *err);
/* Writes t (any device, layout) to path in C order. TypeError for a dtype NumPy lacks. */
int dlx_npy_save(const char *path, const dlx_tensor *t, dlx_error *err);
/* The bytes of t's elements in C order: *data points into t itself (CPU, contiguous) or into
 * *copy, a contiguous CPU copy that the caller closes (it is left closed when not needed). */
int dlx_npy_host_bytes(const dlx_tensor *t, dlx_tensor *copy, const void **data, size_t *nbytes,
                       dlx_error *err);

#endif
