// scratch.cuh -- scratch memory of the CUDA kernels' host code (the .cu files of src/cuda): a
// block from the caching allocator (dlx_cuda_scratch_alloc, kernels.h) for a stream, given back
// when the Scratch goes out of scope. The work queued on that stream by then runs before anything
// the pool hands the block to later (it reuses a block only on the same stream), so the block
// may be given back as soon as the work that uses it is queued.
#ifndef DLX_CUDA_SCRATCH_CUH
#define DLX_CUDA_SCRATCH_CUH

#include <cuda_runtime.h>
#include <stddef.h>

#include "cuda/kernels.h"

namespace {

struct Scratch {
  void *base = nullptr;
  size_t bytes = 0;
  cudaStream_t stream = nullptr;
  Scratch() = default;
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  // Takes n bytes for stream s; false when there are none.
  bool take(size_t n, cudaStream_t s) {
    stream = s;
    bytes = n;
    base = dlx_cuda_scratch_alloc(n, s);
    return base != nullptr;
  }
  ~Scratch() {
    if (base != nullptr) dlx_cuda_scratch_free(base, bytes, stream);
  }
};

// n rounded up to 256 bytes: the arrays carved out of one Scratch each start aligned for any
// type (and for CUB's temporary storage).
inline size_t round_up(size_t n) { return (n + 255) / 256 * 256; }

} // namespace

#endif
