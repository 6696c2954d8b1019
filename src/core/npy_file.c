/* npy_file.c -- .npy files: load (a copy, or a mapping of the file), save, and the bytes of a
 * tensor in C order. Every size a header claims is checked against the file's size before
 * anything is allocated or mapped, so a hostile file costs at most its own length. */
#define _POSIX_C_SOURCE 200809L /* fstat, pread, mmap, strerror_r */

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/npy.h"
#include "core/ops.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

static const DLDevice cpu = {kDLCPU, 0};

/* An OSError: what failed, the path, and the system's reason. */
static int os_error(dlx_error *err, const char *what, const char *path) {
  char reason[128] = "unknown error";
  int saved = errno;
  if (strerror_r(saved, reason, sizeof reason) != 0)
    snprintf(reason, sizeof reason, "errno %d", saved);
  return dlx_fail(err, DLX_OS_ERROR, "%s '%s': %s", what, path, reason);
}

/* Puts "'path': " before the message of an error from the parser (cut to the message's room). */
static int with_path(dlx_error *err, int rc, const char *path) {
  char message[sizeof err->message];
  size_t len, room;
  int n;
  if (rc == 0 || err == NULL) return rc;
  memcpy(message, err->message, sizeof message);
  n = snprintf(err->message, sizeof err->message, "'%s': ", path);
  if (n < 0 || (size_t)n >= sizeof err->message) return rc;
  room = sizeof err->message - (size_t)n - 1;
  len = strlen(message) < room ? strlen(message) : room;
  memcpy(err->message + n, message, len);
  err->message[(size_t)n + len] = '\0';
  return rc;
}

/* n bytes at offset of the file into buf. A file that ends first (it changed since its size was
 * read) is a ValueError. */
static int read_at(int fd, void *buf, uint64_t n, uint64_t offset, const char *path,
                   dlx_error *err) {
  char *p = buf;
  while (n > 0) {
    size_t chunk = n > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)n;
    ssize_t got = pread(fd, p, chunk, (off_t)offset);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return os_error(err, "cannot read", path);
    if (got == 0)
      return dlx_fail(err, DLX_VALUE_ERROR, "'%s': truncated .npy file (it ended while read)",
                      path);
    p += got;
    offset += (uint64_t)got;
    n -= (uint64_t)got;
  }
  return 0;
}

static int write_all(int fd, const void *buf, size_t n, const char *path, dlx_error *err) {
  const char *p = buf;
  while (n > 0) {
    size_t chunk = n > ((size_t)1 << 30) ? (size_t)1 << 30 : n;
    ssize_t put = write(fd, p, chunk);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) return os_error(err, "cannot write", path);
    p += put;
    n -= (size_t)put;
  }
  return 0;
}

/* ---- load */

/* The header of the open file, checked against its size: the data is all there. */
static int read_header(int fd, const char *path, dlx_npy_header *h, dlx_error *err) {
  unsigned char preamble[DLX_NPY_PREAMBLE_MAX];
  unsigned char *header;
  struct stat st;
  uint64_t size;
  int rc;
  if (fstat(fd, &st) != 0) return os_error(err, "cannot stat", path);
  if (!S_ISREG(st.st_mode)) return dlx_fail(err, DLX_OS_ERROR, "'%s' is not a regular file", path);
  size = (uint64_t)st.st_size;
  rc = read_at(fd, preamble, size < sizeof preamble ? size : sizeof preamble, 0, path, err);
  if (rc == 0)
    rc = with_path(
        err, dlx_npy_preamble(preamble, size < sizeof preamble ? size : sizeof preamble, h, err),
        path);
  if (rc != 0) return rc;
  if (h->data_offset > size)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "'%s': truncated .npy file: its header would end at byte %llu, past its %llu "
                    "bytes",
                    path, (unsigned long long)h->data_offset, (unsigned long long)size);
  header = dlx_malloc((size_t)h->data_offset);
  if (header == NULL) return dlx_fail(err, DLX_MEMORY_ERROR, "out of memory reading a .npy header");
  rc = read_at(fd, header, h->data_offset, 0, path, err);
  if (rc == 0) rc = with_path(err, dlx_npy_parse(header, (size_t)h->data_offset, h, err), path);
  dlx_free(header);
  if (rc == 0 && h->data_bytes > size - h->data_offset)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "'%s': truncated .npy file: its shape and descr '%s' need %llu bytes of data, "
                    "it holds %llu",
                    path, h->descr, (unsigned long long)h->data_bytes,
                    (unsigned long long)(size - h->data_offset));
  return rc;
}

/* The header's shape, and C or Fortran strides, on t (whose buffer holds the data). */
static void set_layout(dlx_tensor *t, const dlx_npy_header *h) {
  int64_t stride = 1;
  t->dtype = h->dtype;
  t->ndim = h->ndim;
  t->offset = 0;
  for (int32_t d = 0; d < h->ndim; d++) t->shape[d] = h->shape[d];
  if (!h->fortran_order) {
    dlx_contiguous_strides(t->shape, t->ndim, t->strides);
    return;
  }
  for (int32_t d = 0; d < h->ndim; d++) {
    t->strides[d] = stride;
    stride *= h->shape[d] > 1 ? h->shape[d] : 1; /* the count was checked: no overflow */
  }
}

/* Big-endian data on a little-endian machine, or the other way round: swapped in place. */
static void swap_items(void *data, const dlx_npy_header *h) {
  int64_t itemsize = dlx_itemsize(h->dtype);
  uint64_t count = h->data_bytes / (uint64_t)itemsize;
  if (dlx_dtype_kind(h->dtype) == DLX_KIND_COMPLEX) /* the real and imaginary parts apart */
    dlx_npy_swap(data, count * 2, (int)itemsize / 2);
  else
    dlx_npy_swap(data, count, (int)itemsize);
}

static int load_copy(dlx_tensor *out, int fd, const char *path, const dlx_npy_header *h,
                     dlx_error *err) {
  dlx_tensor t;
  int rc;
  memset(&t, 0, sizeof t);
  t.buffer = dlx_buffer_new(cpu, (size_t)h->data_bytes, err);
  if (t.buffer == NULL) return err != NULL ? (int)err->code : DLX_MEMORY_ERROR;
  set_layout(&t, h);
  rc = read_at(fd, t.buffer->data, h->data_bytes, h->data_offset, path, err);
  if (rc != 0) {
    dlx_tensor_close(&t);
    return rc;
  }
  if (h->swap) swap_items(t.buffer->data, h);
  *out = t;
  return 0;
}

/* The mapping of a file that a buffer's data points into. */
typedef struct npy_mapping {
  void *base;
  size_t length;
} npy_mapping;

/* The buffer's release: the last view or export of the tensor is gone. */
static void unmap(dlx_buffer *self) {
  npy_mapping *mapping = self->owner;
  munmap(mapping->base, mapping->length);
  dlx_free(mapping);
}

static int load_mapped(dlx_tensor *out, int fd, const char *path, const dlx_npy_header *h,
                       bool writable, dlx_error *err) {
  npy_mapping *mapping;
  dlx_tensor t;
  if (h->swap)
    return dlx_fail(err, DLX_VALUE_ERROR,
                    "'%s': a mapping cannot hold data in the other byte order (descr '%s'): load "
                    "it without mmap, which swaps the bytes",
                    path, h->descr);
  if (h->data_bytes == 0) { /* nothing to map (mmap refuses a length of 0) */
    int rc = load_copy(out, fd, path, h, err);
    if (rc == 0) out->readonly = !writable;
    return rc;
  }
  mapping = dlx_malloc(sizeof *mapping);
  if (mapping == NULL) return dlx_fail(err, DLX_MEMORY_ERROR, "out of memory mapping a file");
  mapping->length = (size_t)(h->data_offset + h->data_bytes);
  mapping->base = mmap(NULL, mapping->length, writable ? PROT_READ | PROT_WRITE : PROT_READ,
                       writable ? MAP_SHARED : MAP_PRIVATE, fd, 0);
  if (mapping->base == MAP_FAILED) {
    dlx_free(mapping);
    return os_error(err, "cannot map", path);
  }
  memset(&t, 0, sizeof t);
  t.buffer = dlx_buffer_wrap(cpu, (char *)mapping->base + h->data_offset, (size_t)h->data_bytes,
                             unmap, mapping, err);
  if (t.buffer == NULL) {
    munmap(mapping->base, mapping->length);
    dlx_free(mapping);
    return DLX_MEMORY_ERROR;
  }
  set_layout(&t, h);
  t.readonly = !writable;
  *out = t;
  return 0;
}

int dlx_npy_load(dlx_tensor *out, const char *path, bool map, bool writable, dlx_error *err) {
  dlx_npy_header h;
  int fd = open(path, (map && writable ? O_RDWR : O_RDONLY) | O_CLOEXEC), rc;
  if (fd < 0) return os_error(err, "cannot open", path);
  rc = read_header(fd, path, &h, err);
  if (rc == 0)
    rc = map ? load_mapped(out, fd, path, &h, writable, err) : load_copy(out, fd, path, &h, err);
  close(fd); /* a mapping outlives its descriptor */
  return rc;
}

/* ---- save and bytes */

int dlx_npy_host_bytes(const dlx_tensor *t, dlx_tensor *copy, const void **data, size_t *nbytes,
                       dlx_error *err) {
  int64_t itemsize = dlx_itemsize(t->dtype);
  int rc = dlx_buffer_check(t->buffer, err);
  memset(copy, 0, sizeof *copy);
  if (rc != 0) return rc;
  if (dlx_tensor_numel(t) == 0) { /* (its data may be NULL: no pointer arithmetic on it) */
    *data = "";
    *nbytes = 0;
    return 0;
  }
  if (t->buffer->device.device_type == kDLCPU && itemsize > 0 && dlx_tensor_is_contiguous(t)) {
    *data = (const char *)t->buffer->data + t->offset * itemsize;
    *nbytes = (size_t)dlx_tensor_nbytes(t);
    return 0;
  }
  /* another device, another layout, or packed fp4/fp6 at any bit: a contiguous CPU copy */
  rc = dlx_clone_as(copy, t, t->dtype, cpu, err);
  if (rc != 0) return rc;
  *data = copy->buffer->data;
  *nbytes = (size_t)dlx_tensor_nbytes(copy);
  return 0;
}

/* A new file beside path (path.dlx-<pid>-<n>), created as open(O_CREAT, 0666) creates one: its
 * mode follows the umask. -1 with errno set when none can be made. */
static int create_beside(const char *path, char *tmp, size_t cap) {
  static atomic_uint counter;
  for (int tries = 0; tries < 100; tries++) {
    int fd;
    if ((size_t)snprintf(tmp, cap, "%s.dlx-%ld-%u", path, (long)getpid(),
                         atomic_fetch_add(&counter, 1)) >= cap) {
      errno = ENAMETOOLONG;
      return -1;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

/* The header, then the data, into a new file that is then renamed over path: a mapping or a
 * reader of the old file keeps the old contents (truncating a mapped file in place would make
 * the next access to the mapping fault), and a failed save leaves the old file as it was. */
int dlx_npy_save(const char *path, const dlx_tensor *t, dlx_error *err) {
  char header[256 + DLX_MAX_NDIM * 24], tmp[4096];
  size_t header_len, nbytes;
  const void *data;
  dlx_tensor copy;
  int fd, rc = dlx_npy_format(header, sizeof header, &header_len, t->dtype, t->shape, t->ndim, err);
  if (rc != 0) return rc;
  rc = dlx_npy_host_bytes(t, &copy, &data, &nbytes, err);
  if (rc != 0) return rc;
  fd = create_beside(path, tmp, sizeof tmp);
  if (fd < 0) {
    dlx_tensor_close(&copy);
    return os_error(err, "cannot create a file beside", path);
  }
  rc = write_all(fd, header, header_len, path, err);
  if (rc == 0) rc = write_all(fd, data, nbytes, path, err);
  dlx_tensor_close(&copy);
  if (close(fd) != 0 && rc == 0) rc = os_error(err, "cannot write", path);
  if (rc == 0 && rename(tmp, path) != 0) rc = os_error(err, "cannot replace", path);
  if (rc != 0) unlink(tmp);
  return rc;
}
