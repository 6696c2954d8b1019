/* fuzz_npy.c -- libFuzzer target: bytes are a .npy file. They go through the header parser
 * (dlx_npy_parse) in a heap block of exactly their size, so that ASan's redzones catch a read past
 * them; a header it accepts must describe what it says (dims, sizes, an offset within the bytes),
 * and must come back the same through the writer (dlx_npy_format). Then the same bytes, as a file,
 * are loaded as a copy and as a mapping, and each tensor's bytes are read to the end. Every
 * failure must be a ValueError (a MemoryError is allowed only for the copy's allocation, which
 * the file's size bounds), and nothing may crash, leak or read outside the file.
 *
 * Build: cmake --preset fuzz (cmake/DlxHostile.cmake). Run:
 *   build-fuzz/fuzz_npy -max_total_time=60 build-fuzz/npy_corpus tests/fuzz/npy_corpus
 * DLX_FUZZ_PRINT_ERRORS=1 prints each error message. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, ftruncate, pwrite */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "core/npy.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size);

static char path[] = "/tmp/dlx_fuzz_npy_XXXXXX";
static int fd = -1;

static void check_error(int rc, const dlx_error *err, bool memory_allowed) {
  if (rc == 0) return;
  if (getenv("DLX_FUZZ_PRINT_ERRORS") != NULL)
    printf("%s: %s\n", dlx_errclass_name(err->code), err->message);
  if (rc != (int)err->code ||
      (rc != DLX_VALUE_ERROR && !(memory_allowed && rc == DLX_MEMORY_ERROR))) {
    fprintf(stderr, "unexpected %s (%d): %s\n", dlx_errclass_name(err->code), rc, err->message);
    abort();
  }
}

static void remove_file(void) { unlink(path); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fd = mkstemp(path);
  if (fd < 0) abort();
  atexit(remove_file);
  return 0;
}

/* The header must say what it describes; and the writer's header for it must parse the same. */
static void check_header(const dlx_npy_header *h, size_t size) {
  int64_t count = 1;
  char again[1024];
  size_t len;
  dlx_npy_header back;
  dlx_error err;
  if (h->data_offset > size || h->ndim < 0 || h->ndim > DLX_MAX_NDIM) abort();
  for (int32_t d = 0; d < h->ndim; d++) {
    if (h->shape[d] < 0 || __builtin_mul_overflow(count, h->shape[d], &count)) abort();
  }
  if (h->data_bytes != (uint64_t)count * (uint64_t)dlx_itemsize(h->dtype)) abort();
  if (dlx_npy_format(again, sizeof again, &len, h->dtype, h->shape, h->ndim, &err) != 0) abort();
  if (dlx_npy_parse(again, len, &back, &err) != 0 || back.dtype != h->dtype ||
      back.ndim != h->ndim || back.data_bytes != h->data_bytes || back.fortran_order || back.swap ||
      memcmp(back.shape, h->shape, (size_t)h->ndim * sizeof h->shape[0]) != 0)
    abort();
}

/* Loads the file as a copy or a mapping; reads the whole tensor through its bytes. */
static void load(bool map, const dlx_npy_header *parsed, bool parsed_ok) {
  dlx_tensor t, copy;
  const void *data;
  size_t nbytes;
  dlx_error err;
  int rc = dlx_npy_load(&t, path, map, false, &err);
  check_error(rc, &err, !map);
  if (rc != 0) return;
  if (!parsed_ok || t.dtype != parsed->dtype || t.ndim != parsed->ndim) abort();
  rc = dlx_npy_host_bytes(&t, &copy, &data, &nbytes, &err);
  check_error(rc, &err, true);
  if (rc == 0) {
    volatile unsigned char sum = 0;
    if (nbytes != parsed->data_bytes) abort();
    for (size_t i = 0; i < nbytes; i++) sum ^= ((const unsigned char *)data)[i];
    (void)sum;
    dlx_tensor_close(&copy);
  }
  dlx_tensor_close(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  unsigned char *block = malloc(size > 0 ? size : 1); /* exactly the input: ASan guards its end */
  dlx_npy_header h;
  dlx_error err;
  int rc;
  bool ok;
  if (block == NULL) return 0;
  if (size > 0) memcpy(block, bytes, size);
  rc = dlx_npy_parse(block, size, &h, &err);
  check_error(rc, &err, false);
  ok = rc == 0;
  if (ok) check_header(&h, size);
  free(block);
  /* the file: only what the parser read, and the data that follows */
  if (ftruncate(fd, 0) != 0 || (size > 0 && pwrite(fd, bytes, size, 0) != (ssize_t)size)) abort();
  load(false, &h, ok);
  load(true, &h, ok);
  return 0;
}
