/* test_cpu_cache.c -- the CPU block cache (src/cpu/cpu_cache.h): DLX_CPU_CACHE_BYTES=0, size
 * classes, alignment, reuse, the limit and eviction, empty_cache, allocation failure, and
 * several threads allocating and freeing each other's blocks. */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/builtin.h"
#include "check.h"
#include "core/alloc.h"
#include "core/buffer.h"
#include "cpu/cpu.h"
#include "cpu/cpu_cache.h"

/* With AddressSanitizer, cached blocks are poisoned (past their first 64 bytes). */
#if defined(__SANITIZE_ADDRESS__)
#define WITH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WITH_ASAN 1
#endif
#endif
#if defined(WITH_ASAN)
#include <sanitizer/asan_interface.h>
#endif

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* The environment is read when the cache is first used: this runs before anything else. */
static void test_env_zero_turns_the_cache_off(void) {
  void *p;
  setenv("DLX_CPU_CACHE_BYTES", "0", 1);
  CHECK_EQ_INT(dlx_cpu_cache_limit(), 0);
  p = dlx_cpu_block_alloc(MIB);
  CHECK(p != NULL);
  dlx_cpu_block_free(p, MIB);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0);
}

static void test_parse_limit(void) {
  const size_t def = 12345;
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit(NULL, def), def);
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit("", def), def);
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit("0", def), 0);
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit("1000000", def), 1000000);
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit("4K", def), 4 * KIB);
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit("512m", def), 512 * MIB);
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit("2G", def), 2048 * MIB);
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit("-1", def), def);
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit(" 5", def), def);
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit("5KB", def), def);
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit("5 ", def), def);
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit("lots", def), def);
  CHECK_EQ_INT(dlx_cpu_cache_parse_limit("99999999999999999999999", def), def);
  CHECK(dlx_cpu_cache_parse_limit("18446744073709551615G", def) == SIZE_MAX);
}

static void test_size_classes(void) {
  CHECK_EQ_INT(dlx_cpu_block_size(0), 0);
  CHECK_EQ_INT(dlx_cpu_block_size(100), 100);
  CHECK_EQ_INT(dlx_cpu_block_size(DLX_CPU_CACHED_MIN - 1), DLX_CPU_CACHED_MIN - 1);
  CHECK_EQ_INT(dlx_cpu_block_size(64 * KIB), 64 * KIB);
  CHECK_EQ_INT(dlx_cpu_block_size(64 * KIB + 1), 80 * KIB);
  CHECK_EQ_INT(dlx_cpu_block_size(80 * KIB + 1), 96 * KIB);
  CHECK_EQ_INT(dlx_cpu_block_size(MIB), MIB);
  CHECK_EQ_INT(dlx_cpu_block_size(MIB + 1), MIB + MIB / 4);
  CHECK_EQ_INT(dlx_cpu_block_size(7 * MIB / 4 + 1), 2 * MIB);
  CHECK_EQ_INT(dlx_cpu_block_size(3 * ((size_t)1 << 40)), 3 * ((size_t)1 << 40));
  /* never smaller, at most a quarter larger, and monotonic */
  size_t previous = 0;
  int bad = 0;
  for (size_t n = DLX_CPU_CACHED_MIN; n < 64 * MIB; n += n / 7 + 13) {
    size_t size = dlx_cpu_block_size(n);
    if (size < n || size > n + n / 4 || size < previous) bad++;
    previous = size;
  }
  CHECK_EQ_INT(bad, 0);
}

static void test_alignment(void) {
  const size_t sizes[] = {0, 1, 100, 4095, 64 * KIB, 64 * KIB + 3, MIB + 7, 9 * MIB};
  dlx_cpu_cache_set_limit(64 * MIB);
  for (int round = 0; round < 2; round++) { /* new blocks, then cached ones */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      char *p = dlx_cpu_block_alloc(sizes[i]);
      CHECK(p != NULL);
      CHECK_EQ_INT((uintptr_t)p % DLX_CPU_ALIGNMENT, 0);
      if (sizes[i] > 0) memset(p, 0xab, sizes[i]); /* the whole block is ours (ASan checks) */
      dlx_cpu_block_free(p, sizes[i]);
    }
  }
  dlx_cpu_cache_empty();
}

static void test_reuse(void) {
  void *a, *b, *c, *d;
  dlx_cpu_cache_set_limit(64 * MIB);
  dlx_cpu_cache_empty();
  a = dlx_cpu_block_alloc(MIB);
  dlx_cpu_block_free(a, MIB);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), MIB);
#if defined(WITH_ASAN)
  CHECK(__asan_address_is_poisoned((char *)a + MIB - 1)); /* a read after free is still caught */
#endif
  b = dlx_cpu_block_alloc(MIB - 1000); /* the same class */
  CHECK(b == a);
  memset(b, 1, MIB - 1000);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0);
  c = dlx_cpu_block_alloc(MIB + 1); /* the next class: a new block */
  CHECK(c != b);
  dlx_cpu_block_free(c, MIB + 1);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), MIB + MIB / 4);
  /* the most recently freed block of a class comes back first */
  d = dlx_cpu_block_alloc(MIB);
  dlx_cpu_block_free(b, MIB - 1000);
  dlx_cpu_block_free(d, MIB);
  CHECK(dlx_cpu_block_alloc(MIB) == d);
  CHECK(dlx_cpu_block_alloc(MIB) == b);
  dlx_cpu_block_free(b, MIB);
  dlx_cpu_block_free(d, MIB);
  /* small blocks are malloc's: never cached */
  a = dlx_cpu_block_alloc(1000);
  dlx_cpu_block_free(a, 1000);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 2 * MIB + MIB + MIB / 4);
  dlx_cpu_cache_empty();
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0);
}

static void test_limit(void) {
  void *blocks[4], *again[3];
  int found = 0;
  dlx_cpu_cache_empty();
  dlx_cpu_cache_set_limit(3 * MIB);
  CHECK_EQ_INT(dlx_cpu_cache_limit(), 3 * MIB);
  for (int i = 0; i < 4; i++) blocks[i] = dlx_cpu_block_alloc(MIB);
  for (int i = 0; i < 4; i++) dlx_cpu_block_free(blocks[i], MIB);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 3 * MIB); /* the first one freed was evicted */
  for (int i = 0; i < 3; i++) {
    void *p = dlx_cpu_block_alloc(MIB);
    for (int j = 1; j < 4; j++) found += p == blocks[j];
    again[i] = p;
  }
  CHECK_EQ_INT(found, 3);
  for (int i = 0; i < 3; i++) dlx_cpu_block_free(again[i], MIB);
  /* a block larger than the limit goes straight back */
  blocks[0] = dlx_cpu_block_alloc(4 * MIB);
  dlx_cpu_block_free(blocks[0], 4 * MIB);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 3 * MIB);
  /* a larger block evicts as many old ones as it needs */
  blocks[0] = dlx_cpu_block_alloc(2 * MIB);
  dlx_cpu_block_free(blocks[0], 2 * MIB);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 3 * MIB);
  CHECK(dlx_cpu_block_alloc(2 * MIB) == blocks[0]);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), MIB);
  dlx_cpu_block_free(blocks[0], 2 * MIB);
  /* lowering the limit evicts down to it; 0 keeps nothing */
  dlx_cpu_cache_set_limit(2 * MIB);
  CHECK(dlx_cpu_cache_bytes() <= 2 * MIB);
  dlx_cpu_cache_set_limit(0);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0);
  blocks[0] = dlx_cpu_block_alloc(MIB);
  dlx_cpu_block_free(blocks[0], MIB);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0);
}

/* The backend's table: memory_allocated counts live tensors only, memory_cached the cache. */
static void test_backend_entries(void) {
  const dlx_backend *cpu = &dlx_cpu_backend;
  dlx_error err;
  size_t before = dlx_cpu_memory_allocated();
  void *p;
  dlx_cpu_cache_set_limit(64 * MIB);
  CHECK(cpu->memory_cached != NULL && cpu->empty_cache != NULL);
  p = cpu->alloc(0, 3 * MIB + 5, &err);
  CHECK(p != NULL);
  CHECK_EQ_INT(cpu->memory_allocated(0), before + 3 * MIB + 5);
  cpu->free(0, p, 3 * MIB + 5);
  CHECK_EQ_INT(cpu->memory_allocated(0), before);
  CHECK_EQ_INT(cpu->memory_cached(0), dlx_cpu_block_size(3 * MIB + 5));
  CHECK_EQ_INT(cpu->empty_cache(&err), 0);
  CHECK_EQ_INT(cpu->memory_cached(0), 0);
}

/* ---- allocation failure: a new block that cannot be had empties the cache and tries again */

static atomic_int failures_left;

static int fail_some(void *ctx) {
  (void)ctx;
  if (atomic_load(&failures_left) <= 0) return 0;
  atomic_fetch_sub(&failures_left, 1);
  return 1;
}

static atomic_int successes_left;

static int succeed_some(void *ctx) {
  (void)ctx;
  return atomic_fetch_sub(&successes_left, 1) <= 0;
}

/* Blocks below DLX_CPU_CACHED_MIN come from malloc, aligned by hand: every size keeps the
 * alignment and the whole block, a small block freed is not cached, and a failed malloc is a
 * NULL after the cache was given back, as for big blocks. */
static void test_small_blocks(void) {
  void *p, *q;
  int misaligned = 0;
  dlx_cpu_cache_set_limit(64 * MIB);
  dlx_cpu_cache_empty();
  for (size_t n = 0; n < DLX_CPU_CACHED_MIN; n += n / 3 + 1) {
    char *block = dlx_cpu_block_alloc(n);
    CHECK(block != NULL);
    if ((uintptr_t)block % DLX_CPU_ALIGNMENT != 0) misaligned++;
    if (n > 0) memset(block, 0xcd, n);
    dlx_cpu_block_free(block, n);
  }
  CHECK_EQ_INT(misaligned, 0);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0);
  p = dlx_cpu_block_alloc(MIB);
  dlx_cpu_block_free(p, MIB);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), MIB);
  dlx_set_alloc_fail_hook(fail_some, NULL);
  atomic_store(&failures_left, 1); /* the first try fails, the retry after emptying succeeds */
  q = dlx_cpu_block_alloc(100);
  CHECK(q != NULL);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0);
  dlx_cpu_block_free(q, 100);
  atomic_store(&failures_left, 1000);
  CHECK(dlx_cpu_block_alloc(100) == NULL);
  dlx_set_alloc_fail_hook(NULL, NULL);
  atomic_store(&failures_left, 0);
}

/* A buffer's header with its block: a small block shares the header's chunk, after it and
 * aligned; a large one is a cached block of its own. The header and the whole block are ours,
 * the padding around a small block is poisoned under ASan. */
static void test_blocks_with_header(void) {
  const size_t header_size = 72;
  const size_t large[] = {DLX_CPU_CACHED_MIN, MIB + 7};
  int misaligned = 0, overlapping = 0, unpoisoned = 0;
  dlx_cpu_cache_set_limit(64 * MIB);
  dlx_cpu_cache_empty();
  for (size_t n = 0; n < DLX_CPU_CACHED_MIN; n += n / 3 + 1) {
    void *block;
    char *header = dlx_cpu_block_alloc_with_header(header_size, n, &block);
    CHECK(header != NULL);
    if ((uintptr_t)block % DLX_CPU_ALIGNMENT != 0) misaligned++;
    if ((char *)block < header + header_size) overlapping++;
    memset(header, 0x5a, header_size);
    if (n > 0) memset(block, 0xcd, n);
#if defined(WITH_ASAN)
    if (!__asan_address_is_poisoned((char *)block + n)) unpoisoned++;
    if ((char *)block > header + header_size && !__asan_address_is_poisoned((char *)block - 1))
      unpoisoned++;
#endif
    dlx_cpu_block_free_with_header(header, block, n);
  }
  CHECK_EQ_INT(misaligned, 0);
  CHECK_EQ_INT(overlapping, 0);
  CHECK_EQ_INT(unpoisoned, 0);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0); /* small blocks are never cached */
  for (size_t i = 0; i < sizeof large / sizeof large[0]; i++) {
    void *block, *again;
    char *header = dlx_cpu_block_alloc_with_header(header_size, large[i], &block);
    CHECK(header != NULL);
    CHECK_EQ_INT((uintptr_t)block % DLX_CPU_ALIGNMENT, 0);
    memset(header, 0x5a, header_size);
    memset(block, 0xcd, large[i]);
    dlx_cpu_block_free_with_header(header, block, large[i]);
    CHECK_EQ_INT(dlx_cpu_cache_bytes(), dlx_cpu_block_size(large[i]));
    header = dlx_cpu_block_alloc_with_header(header_size, large[i], &again);
    CHECK(again == block); /* the cached block comes back */
    dlx_cpu_block_free_with_header(header, again, large[i]);
    dlx_cpu_cache_empty();
  }
}

/* Out of memory: NULL after the cache was given back, nothing leaked (ASan's leak check), for
 * a small block (one malloc) and for each of the two allocations of a large one. */
static void test_blocks_with_header_failure(void) {
  void *block, *header, *cached;
  dlx_cpu_cache_set_limit(64 * MIB);
  cached = dlx_cpu_block_alloc(2 * MIB);
  dlx_cpu_block_free(cached, 2 * MIB);
  dlx_set_alloc_fail_hook(fail_some, NULL);
  atomic_store(&failures_left, 1); /* the first try fails, the retry after emptying succeeds */
  header = dlx_cpu_block_alloc_with_header(72, 100, &block);
  CHECK(header != NULL);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0);
  dlx_cpu_block_free_with_header(header, block, 100);
  atomic_store(&failures_left, 1000);
  CHECK(dlx_cpu_block_alloc_with_header(72, 100, &block) == NULL);
  CHECK(dlx_cpu_block_alloc_with_header(72, MIB, &block) == NULL); /* its header fails */
  CHECK(dlx_cpu_block_alloc_with_header(72, 0, &block) == NULL);
  atomic_store(&failures_left, 0);
  dlx_set_alloc_fail_hook(NULL, NULL);
  /* the header is had, its large block is not: the header goes back */
  atomic_store(&successes_left, 1);
  dlx_set_alloc_fail_hook(succeed_some, NULL);
  CHECK(dlx_cpu_block_alloc_with_header(72, MIB, &block) == NULL);
  dlx_set_alloc_fail_hook(NULL, NULL);
}

/* dlx_buffer_new on the CPU: a small buffer is one allocation, its data right after the
 * header; every size counts in memory_allocated while alive; out of memory is a MemoryError
 * with nothing counted. */
static void test_buffers(void) {
  const DLDevice cpu = {kDLCPU, 0};
  const size_t sizes[] = {0, 64, 1000, DLX_CPU_CACHED_MIN, 3 * MIB};
  size_t before = dlx_cpu_memory_allocated();
  dlx_error err;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    dlx_buffer *b = dlx_buffer_new(cpu, sizes[i], &err);
    CHECK(b != NULL);
    CHECK(b->data != NULL);
    CHECK_EQ_INT((uintptr_t)b->data % DLX_CPU_ALIGNMENT, 0);
    CHECK_EQ_INT(dlx_cpu_memory_allocated(), before + sizes[i]);
    if (sizes[i] < DLX_CPU_CACHED_MIN) {
      char *after_header = (char *)(b + 1);
      CHECK((char *)b->data >= after_header && (char *)b->data < after_header + DLX_CPU_ALIGNMENT);
    }
    if (sizes[i] > 0) memset(b->data, 0x77, sizes[i]);
    dlx_buffer_retain(b);
    dlx_buffer_release(b);
    CHECK_EQ_INT(dlx_cpu_memory_allocated(), before + sizes[i]);
    dlx_buffer_release(b);
    CHECK_EQ_INT(dlx_cpu_memory_allocated(), before);
  }
  dlx_cpu_cache_empty();
  dlx_set_alloc_fail_hook(fail_some, NULL);
  atomic_store(&failures_left, 1000);
  CHECK(dlx_buffer_new(cpu, 100, &err) == NULL);
  CHECK_EQ_INT(err.code, DLX_MEMORY_ERROR);
  CHECK(dlx_buffer_new(cpu, 2 * MIB, &err) == NULL);
  CHECK_EQ_INT(err.code, DLX_MEMORY_ERROR);
  atomic_store(&failures_left, 0);
  dlx_set_alloc_fail_hook(NULL, NULL);
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), before);
}

static void test_allocation_failure(void) {
  const dlx_backend *cpu = &dlx_cpu_backend;
  dlx_error err;
  void *p, *q;
  dlx_cpu_cache_set_limit(64 * MIB);
  p = dlx_cpu_block_alloc(2 * MIB);
  dlx_cpu_block_free(p, 2 * MIB);
  dlx_set_alloc_fail_hook(fail_some, NULL);
  /* once: the cache is emptied and the second try succeeds */
  atomic_store(&failures_left, 1);
  q = dlx_cpu_block_alloc(MIB);
  CHECK(q != NULL);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0);
  dlx_cpu_block_free(q, MIB);
  /* every time: NULL, and the backend's MemoryError, with the cache given back */
  atomic_store(&failures_left, 1000);
  CHECK(cpu->alloc(0, 5 * MIB, &err) == NULL);
  CHECK_EQ_INT(err.code, DLX_MEMORY_ERROR);
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0);
  /* a cached block needs no new memory */
  atomic_store(&failures_left, 0);
  p = dlx_cpu_block_alloc(3 * MIB);
  dlx_cpu_block_free(p, 3 * MIB);
  atomic_store(&failures_left, 1000);
  CHECK(dlx_cpu_block_alloc(3 * MIB) == p);
  atomic_store(&failures_left, 0);
  dlx_set_alloc_fail_hook(NULL, NULL);
  dlx_cpu_block_free(p, 3 * MIB);
  dlx_cpu_cache_empty();
}

/* ---- threads: blocks pass through shared slots, so most are freed by another thread than
 * the one that made them, and each thread checks the contents of the blocks it takes. */

#define THREADS 4
#define SLOTS 16
#define ROUNDS 20000

typedef struct stamp {
  size_t nbytes;
  uint64_t pattern;
} stamp;

static _Atomic(stamp *) slots[SLOTS];

static size_t pick_size(unsigned *seed) {
  static const size_t sizes[] = {1000, 64 * KIB, 100 * KIB, 200 * KIB, MIB, MIB + 1, 3 * MIB};
  return sizes[rand_r(seed) % (sizeof sizes / sizeof sizes[0])];
}

static bool stamp_ok(const stamp *s) {
  const unsigned char *bytes = (const unsigned char *)s;
  return bytes[s->nbytes - 1] == (unsigned char)s->pattern;
}

static void *worker(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  long bad = 0;
  dlx_error err;
  for (int round = 0; round < ROUNDS; round++) {
    int i = rand_r(&seed) % SLOTS;
    stamp *s = atomic_exchange(&slots[i], NULL);
    if (s != NULL) {
      bad += !stamp_ok(s);
      dlx_cpu_backend.free(0, s, s->nbytes);
      continue;
    }
    size_t nbytes = pick_size(&seed);
    s = dlx_cpu_backend.alloc(0, nbytes, &err);
    if (s == NULL) {
      bad++;
      continue;
    }
    s->nbytes = nbytes;
    s->pattern = ((uint64_t)rand_r(&seed) << 8) | (uint64_t)round;
    ((unsigned char *)s)[nbytes - 1] = (unsigned char)s->pattern;
    stamp *expected = NULL;
    if (!atomic_compare_exchange_strong(&slots[i], &expected, s)) {
      dlx_cpu_backend.free(0, s, nbytes); /* another thread filled the slot first */
    }
  }
  return (void *)(intptr_t)bad;
}

static void test_threads(size_t limit) {
  pthread_t threads[THREADS];
  long bad = 0;
  size_t before = dlx_cpu_memory_allocated();
  dlx_cpu_cache_set_limit(limit);
  for (int t = 0; t < THREADS; t++)
    CHECK_EQ_INT(pthread_create(&threads[t], NULL, worker, (void *)(uintptr_t)(t + 1)), 0);
  for (int t = 0; t < THREADS; t++) {
    void *result;
    pthread_join(threads[t], &result);
    bad += (long)(intptr_t)result;
  }
  CHECK_EQ_INT(bad, 0);
  for (int i = 0; i < SLOTS; i++) {
    stamp *s = atomic_exchange(&slots[i], NULL);
    if (s == NULL) continue;
    CHECK(stamp_ok(s));
    dlx_cpu_backend.free(0, s, s->nbytes);
  }
  CHECK_EQ_INT(dlx_cpu_memory_allocated(), before);
  CHECK(dlx_cpu_cache_bytes() <= limit);
  dlx_cpu_cache_empty();
  CHECK_EQ_INT(dlx_cpu_cache_bytes(), 0);
}

int main(void) {
  test_env_zero_turns_the_cache_off();
  test_parse_limit();
  test_size_classes();
  test_alignment();
  test_small_blocks();
  test_reuse();
  test_limit();
  test_backend_entries();
  test_blocks_with_header();
  test_blocks_with_header_failure();
  test_buffers();
  test_allocation_failure();
  test_threads(64 * MIB);
  test_threads(4 * MIB); /* evictions all the time */
  test_threads(0);
  return check_report("test_cpu_cache");
}
