// cuda_indexing_rules.cpp -- the CUDA indexing kernels' per-thread code (src/cuda/
// indexing_element.h), compiled as host C++ for cuda_indexing_rules.c: the threads' work taken
// as the kernels cut it (tiles of runs for the masked ops), the threads themselves in reverse
// order, since the kernels' results must not depend on it.
#include <vector>

#include "cuda/indexing_element.h"
#include "cuda/kernels.h"

namespace {
const int kThreads = DLX_CUDA_INDEX_THREADS;
const int kRun = DLX_CUDA_INDEX_RUN;
const int64_t kTile = DLX_CUDA_INDEX_TILE;

int64_t tiles_of(const dlx_cuda_index_request *r) { return (r->numel + kTile - 1) / kTile; }

// The true mask elements of tile b, as the count kernel's block adds its threads' runs.
int64_t tile_count(const dlx_cuda_index_request *r, int64_t b) {
  int64_t sum = 0;
  for (int t = kThreads - 1; t >= 0; t--)
    sum += dlx_cuda_index_count_run(r, b * kTile + (int64_t)t * kRun, kRun);
  return sum;
}
} // namespace

// CHECK: the smallest bad position (numel: none) and the index there.
extern "C" int64_t cxx_index_first_bad(const dlx_cuda_index_request *r, int64_t *value) {
  int64_t first = r->numel;
  for (int64_t p = r->numel - 1; p >= 0; p--)
    if (dlx_cuda_index_is_bad(r, p) && p < first) first = p;
  if (first < r->numel) *value = dlx_cuda_index_value(r, first);
  return first;
}

// GATHER a thread per element, SCATTER* a thread per line.
extern "C" void cxx_index_move(const dlx_cuda_index_request *r) {
  if (r->op == DLX_CUDA_INDEX_GATHER) {
    for (int64_t p = r->numel - 1; p >= 0; p--) dlx_cuda_index_gather(r, p);
  } else {
    for (int64_t l = dlx_cuda_index_lines(r) - 1; l >= 0; l--) dlx_cuda_index_scatter_line(r, l);
  }
}

extern "C" int64_t cxx_index_count(const dlx_cuda_index_request *r) {
  int64_t total = 0;
  for (int64_t b = tiles_of(r) - 1; b >= 0; b--) total += tile_count(r, b);
  return total;
}

// The tiles' counts, their exclusive scan, then each tile's runs from the scan of its threads'
// counts.
extern "C" void cxx_index_masked(const dlx_cuda_index_request *r) {
  int64_t tiles = tiles_of(r);
  std::vector<int64_t> offsets((size_t)tiles);
  int64_t sum = 0;
  for (int64_t b = 0; b < tiles; b++) {
    offsets[(size_t)b] = sum;
    sum += tile_count(r, b);
  }
  for (int64_t b = tiles - 1; b >= 0; b--) {
    std::vector<int64_t> before(kThreads);
    int64_t run_sum = 0;
    for (int t = 0; t < kThreads; t++) {
      before[(size_t)t] = run_sum;
      run_sum += dlx_cuda_index_count_run(r, b * kTile + (int64_t)t * kRun, kRun);
    }
    for (int t = kThreads - 1; t >= 0; t--)
      dlx_cuda_index_write_run(r, b * kTile + (int64_t)t * kRun, kRun,
                               offsets[(size_t)b] + before[(size_t)t]);
  }
}
