/* cpu_cache.c -- the CPU block cache (cpu_cache.h).
 *
 * A cached block is free memory of ours, so its list links live in its first bytes: one list
 * per size class, most recently freed first (its pages are the likeliest to be in the caches
 * and the TLB), and one list of the whole cache by age, for eviction. One mutex guards both;
 * blocks go back to the OS after it is released, since unmapping takes the kernel's time. */
#define _DEFAULT_SOURCE /* madvise, sysconf(_SC_PHYS_PAGES) */
#include "cpu/cpu_cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/alloc.h"

/* With AddressSanitizer, a cached block is poisoned past its links, so that a tensor's data
 * read after its buffer was freed is still reported, as it would be without the cache. */
#if defined(__SANITIZE_ADDRESS__)
#define DLX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DLX_ASAN 1
#endif
#endif
#if defined(DLX_ASAN)
#include <sanitizer/asan_interface.h>
#define POISON(ptr, n) ASAN_POISON_MEMORY_REGION(ptr, n)
#define UNPOISON(ptr, n) ASAN_UNPOISON_MEMORY_REGION(ptr, n)
#else
#define POISON(ptr, n) ((void)(ptr), (void)(n))
#define UNPOISON(ptr, n) ((void)(ptr), (void)(n))
#endif

#define MIN_SHIFT 16  /* DLX_CPU_CACHED_MIN is 2^MIN_SHIFT */
#define MAX_SHIFT 62  /* larger requests are not cached (their class would not fit a size_t) */
#define STEPS_SHIFT 2 /* 2^STEPS_SHIFT classes per power of two */
#define CLASS_COUNT ((MAX_SHIFT + 2 - MIN_SHIFT) << STEPS_SHIFT)
#define LINKS_SIZE DLX_CPU_ALIGNMENT /* the part of a cached block its links use */

typedef struct cached_block {
  struct cached_block *next, *prev;   /* in its class, most recently freed first */
  struct cached_block *newer, *older; /* in the whole cache */
  size_t size;
} cached_block;

_Static_assert(sizeof(cached_block) <= LINKS_SIZE, "the links fit in a block's first bytes");

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cached_block *classes[CLASS_COUNT]; /* the most recently freed block of each class */
static cached_block *newest, *oldest;
static size_t cached_bytes;
static size_t limit;
static bool limit_known; /* false until the environment was read or a limit was set */

static int floor_log2(size_t n) {
#if defined(__GNUC__)
  return (int)(sizeof(unsigned long long) * 8 - 1) - __builtin_clzll((unsigned long long)n);
#else
  int k = 0;
  while (n >>= 1) k++;
  return k;
#endif
}

static bool cacheable(size_t nbytes) {
  return nbytes >= DLX_CPU_CACHED_MIN && nbytes <= ((size_t)1 << MAX_SHIFT);
}

size_t dlx_cpu_block_size(size_t nbytes) {
  size_t step;
  if (!cacheable(nbytes)) return nbytes;
  step = (size_t)1 << (floor_log2(nbytes) - STEPS_SHIFT);
  return (nbytes + step - 1) & ~(step - 1);
}

/* The class of a block size (a result of dlx_cpu_block_size). */
static int class_of(size_t size) {
  int top = floor_log2(size);
  int step = (int)(size >> (top - STEPS_SHIFT)) & ((1 << STEPS_SHIFT) - 1);
  return ((top - MIN_SHIFT) << STEPS_SHIFT) + step;
}

/* ---- the limit */

static size_t default_limit(void) {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return (size_t)pages / 8 * (size_t)page;
#endif
  return (size_t)1 << 30;
}

size_t dlx_cpu_cache_parse_limit(const char *text, size_t default_bytes) {
  unsigned long long value;
  char *end;
  int shift = 0;
  if (text == NULL || *text < '0' || *text > '9') return default_bytes;
  errno = 0;
  value = strtoull(text, &end, 10);
  if (errno != 0) return default_bytes;
  switch (*end) {
  case '\0':
    break;
  case 'K':
  case 'k':
    shift = 10;
    break;
  case 'M':
  case 'm':
    shift = 20;
    break;
  case 'G':
  case 'g':
    shift = 30;
    break;
  default:
    return default_bytes;
  }
  if (shift != 0 && end[1] != '\0') return default_bytes;
  if (value > (SIZE_MAX >> shift)) return SIZE_MAX;
  return (size_t)value << shift;
}

/* With the lock held. */
static size_t current_limit(void) {
  if (!limit_known) {
    limit = dlx_cpu_cache_parse_limit(getenv("DLX_CPU_CACHE_BYTES"), default_limit());
    limit_known = true;
  }
  return limit;
}

/* ---- the lists, with the lock held */

static void push(cached_block *b, size_t size) {
  cached_block **head = &classes[class_of(size)];
  b->size = size;
  b->prev = NULL;
  b->next = *head;
  if (*head != NULL) (*head)->prev = b;
  *head = b;
  b->older = newest;
  b->newer = NULL;
  if (newest != NULL) newest->newer = b;
  newest = b;
  if (oldest == NULL) oldest = b;
  cached_bytes += size;
  POISON((char *)b + LINKS_SIZE, size - LINKS_SIZE);
}

static void unlink_block(cached_block *b) {
  if (b->prev != NULL)
    b->prev->next = b->next;
  else
    classes[class_of(b->size)] = b->next;
  if (b->next != NULL) b->next->prev = b->prev;
  if (b->newer != NULL)
    b->newer->older = b->older;
  else
    newest = b->older;
  if (b->older != NULL)
    b->older->newer = b->newer;
  else
    oldest = b->newer;
  cached_bytes -= b->size;
  UNPOISON((char *)b + LINKS_SIZE, b->size - LINKS_SIZE);
}

/* Unlinks the oldest blocks until `room` more bytes fit under the limit; they are chained on
 * *evicted (through next) for release_blocks. */
static void evict_for(size_t room, cached_block **evicted) {
  while (oldest != NULL && cached_bytes + room > current_limit()) {
    cached_block *b = oldest;
    unlink_block(b);
    b->next = *evicted;
    *evicted = b;
  }
}

/* ---- without the lock */

static void release_blocks(cached_block *list) {
  while (list != NULL) {
    cached_block *next = list->next;
    dlx_aligned_free(list);
    list = next;
  }
}

/* Asks for transparent huge pages over the 2 MiB-aligned part of a large block (Linux, where
 * they are often given only on request, as NumPy requests them): with 4 KiB pages, streaming a
 * large tensor costs a TLB miss every 4 KiB, and one core then reads far below the memory's
 * bandwidth. Advice only: a refusal changes nothing. */
static void advise_huge_pages(void *ptr, size_t nbytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t begin = ((uintptr_t)ptr + huge - 1) & ~(huge - 1);
  uintptr_t end = ((uintptr_t)ptr + nbytes) & ~(huge - 1);
  if (nbytes >= 4 * huge && begin < end) madvise((void *)begin, end - begin, MADV_HUGEPAGE);
#else
  (void)ptr, (void)nbytes;
#endif
}

/* Small blocks come from malloc, aligned by hand: posix_memalign splits a larger chunk and frees
 * the part before the aligned address, which costs several times what malloc and free do and
 * dominates the making of a small tensor. The chunk's own address is kept just below the block.
 * Big blocks keep posix_memalign, whose chunks of that size are mapped pages anyway. */
static bool small_block(size_t nbytes) { return nbytes < DLX_CPU_CACHED_MIN; }

static void *small_alloc(size_t nbytes) {
  char *chunk = dlx_malloc(nbytes + DLX_CPU_ALIGNMENT);
  void **block;
  if (chunk == NULL) return NULL;
  /* malloc aligns to at least a pointer, so the block starts a pointer or more into the chunk */
  block = (void **)(((uintptr_t)chunk + DLX_CPU_ALIGNMENT) & ~(uintptr_t)(DLX_CPU_ALIGNMENT - 1));
  block[-1] = chunk;
  return block;
}

static void small_free(void *block) { dlx_free(((void **)block)[-1]); }

static void *new_block(size_t nbytes, size_t size) {
  return small_block(nbytes) ? small_alloc(nbytes) : dlx_aligned_alloc(DLX_CPU_ALIGNMENT, size);
}

/* dlx_malloc, and once more after emptying the cache, which may hold what is missing. */
static void *malloc_or_empty_cache(size_t size) {
  void *ptr = dlx_malloc(size);
  if (ptr == NULL && dlx_cpu_cache_bytes() > 0) {
    dlx_cpu_cache_empty();
    ptr = dlx_malloc(size);
  }
  return ptr;
}

void *dlx_cpu_block_alloc_with_header(size_t header_size, size_t nbytes, void **block) {
  char *header, *data;
  size_t chunk_size;
  if (!small_block(nbytes)) {
    header = dlx_malloc(header_size);
    if (header == NULL) return NULL;
    *block = dlx_cpu_block_alloc(nbytes);
    if (*block == NULL) {
      dlx_free(header);
      return NULL;
    }
    return header;
  }
  /* malloc aligns the chunk for any type, so at most DLX_CPU_ALIGNMENT - 1 bytes of padding
   * bring the block after the header to its alignment */
  chunk_size = header_size + DLX_CPU_ALIGNMENT - 1 + nbytes;
  header = malloc_or_empty_cache(chunk_size);
  if (header == NULL) return NULL;
  data = (char *)(((uintptr_t)header + header_size + DLX_CPU_ALIGNMENT - 1) &
                  ~(uintptr_t)(DLX_CPU_ALIGNMENT - 1));
  /* the padding around the block is nobody's: ASan reports a tensor that reaches into it */
  POISON(header + header_size, (size_t)(data - header) - header_size);
  POISON(data + nbytes, chunk_size - (size_t)(data - header) - nbytes);
  *block = data;
  return header;
}

void dlx_cpu_block_free_with_header(void *header, void *block, size_t nbytes) {
  if (!small_block(nbytes)) dlx_cpu_block_free(block, nbytes);
  dlx_free(header); /* a small block goes with it */
}

void *dlx_cpu_block_alloc(size_t nbytes) {
  size_t size = dlx_cpu_block_size(nbytes);
  cached_block *b = NULL;
  void *ptr;
  if (cacheable(nbytes)) {
    pthread_mutex_lock(&lock);
    b = classes[class_of(size)];
    if (b != NULL) unlink_block(b);
    pthread_mutex_unlock(&lock);
    if (b != NULL) return b;
  }
  ptr = new_block(nbytes, size);
  if (ptr == NULL && dlx_cpu_cache_bytes() > 0) { /* the cache may hold what is missing */
    dlx_cpu_cache_empty();
    ptr = new_block(nbytes, size);
  }
  if (ptr != NULL) advise_huge_pages(ptr, size);
  return ptr;
}

void dlx_cpu_block_free(void *ptr, size_t nbytes) {
  size_t size = dlx_cpu_block_size(nbytes);
  cached_block *evicted = NULL;
  bool kept = false;
  if (ptr == NULL) return;
  if (small_block(nbytes)) {
    small_free(ptr);
    return;
  }
  if (cacheable(nbytes)) {
    pthread_mutex_lock(&lock);
    if (size <= current_limit()) {
      evict_for(size, &evicted);
      push(ptr, size);
      kept = true;
    }
    pthread_mutex_unlock(&lock);
  }
  if (!kept) dlx_aligned_free(ptr);
  release_blocks(evicted);
}

size_t dlx_cpu_cache_bytes(void) {
  size_t n;
  pthread_mutex_lock(&lock);
  n = cached_bytes;
  pthread_mutex_unlock(&lock);
  return n;
}

void dlx_cpu_cache_empty(void) {
  cached_block *evicted = NULL;
  pthread_mutex_lock(&lock);
  while (oldest != NULL) {
    cached_block *b = oldest;
    unlink_block(b);
    b->next = evicted;
    evicted = b;
  }
  pthread_mutex_unlock(&lock);
  release_blocks(evicted);
}

size_t dlx_cpu_cache_limit(void) {
  size_t n;
  pthread_mutex_lock(&lock);
  n = current_limit();
  pthread_mutex_unlock(&lock);
  return n;
}

void dlx_cpu_cache_set_limit(size_t bytes) {
  cached_block *evicted = NULL;
  pthread_mutex_lock(&lock);
  limit = bytes;
  limit_known = true;
  evict_for(0, &evicted);
  pthread_mutex_unlock(&lock);
  release_blocks(evicted);
}

#if defined(__GNUC__)
/* When the library is unloaded (lua_close unloads dlx.core where nothing keeps it loaded), the
 * cache's lists go with it: its blocks go back first, and blocks freed afterwards (at exit)
 * are not kept. */
__attribute__((destructor)) static void release_at_unload(void) { dlx_cpu_cache_set_limit(0); }
#endif
