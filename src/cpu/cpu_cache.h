/* cpu_cache.h -- the CPU backend's blocks: 64-byte aligned, and kept for reuse when freed.
 *
 * Freeing a large block gives it back to the OS (glibc maps large blocks with mmap), and the
 * next allocation of the same size faults every page in again: a loop that makes temporaries
 * then spends its time in the kernel. So freed blocks of CACHED_MIN bytes or more stay in a
 * cache, by size class, and the next allocation of their class takes them back. Smaller blocks
 * are left to malloc, whose own bins already reuse them without the kernel.
 *
 * Size classes: four per power of two (2^k, 1.25 * 2^k, 1.5 * 2^k, 1.75 * 2^k), so a block is
 * at most a quarter larger than asked for. The cache holds at most a limit of bytes (default an
 * eighth of the machine's RAM; DLX_CPU_CACHE_BYTES overrides it, 0 turns the cache off); a
 * block freed over the limit evicts the blocks freed longest ago, and a block larger than the
 * limit goes straight back to the OS. Thread-safe: tensors are freed on any thread. */
#ifndef DLX_CPU_CPU_CACHE_H
#define DLX_CPU_CPU_CACHE_H

#include <stddef.h>

#define DLX_CPU_ALIGNMENT 64
#define DLX_CPU_CACHED_MIN ((size_t)64 << 10)

/* A block of at least nbytes, DLX_CPU_ALIGNMENT-aligned (never NULL for 0 bytes): a cached
 * block of its class, or a new one. NULL when out of memory, after the cache was emptied. */
void *dlx_cpu_block_alloc(size_t nbytes);
/* Gives back a block of dlx_cpu_block_alloc(nbytes), with the same nbytes. */
void dlx_cpu_block_free(void *ptr, size_t nbytes);

/* A buffer's header (header_size bytes, aligned for any type) and a block of nbytes, as
 * dlx_cpu_block_alloc gives it: a small block and its header share one malloc'd chunk (the
 * header first), a large one is a cached block with its header apart. Returns the header and
 * sets *block; NULL when out of memory (the block, or a small block's chunk, after the cache
 * was emptied, as for dlx_cpu_block_alloc; a large block's header without that). */
void *dlx_cpu_block_alloc_with_header(size_t header_size, size_t nbytes, void **block);
/* Gives back a header and block of dlx_cpu_block_alloc_with_header(nbytes), same nbytes. */
void dlx_cpu_block_free_with_header(void *header, void *block, size_t nbytes);

/* The size of the block an allocation of nbytes gets (nbytes itself below DLX_CPU_CACHED_MIN). */
size_t dlx_cpu_block_size(size_t nbytes);

/* Bytes of the blocks in the cache now (dlx.memory_cached("cpu")). */
size_t dlx_cpu_cache_bytes(void);
/* Gives every cached block back to the OS (dlx.empty_cache("cpu")). */
void dlx_cpu_cache_empty(void);

/* The limit: read from DLX_CPU_CACHE_BYTES the first time the cache is used. */
size_t dlx_cpu_cache_limit(void);
/* Sets the limit (tests, hosts), evicting blocks down to it. */
void dlx_cpu_cache_set_limit(size_t bytes);
/* The limit a value of DLX_CPU_CACHE_BYTES asks for: a byte count, optionally with a K, M or G
 * suffix (powers of 1024); default_bytes when text is NULL or not such a value. */
size_t dlx_cpu_cache_parse_limit(const char *text, size_t default_bytes);

#endif
