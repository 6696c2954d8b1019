// reference.cu -- the reference side of bench/cuda/bench.py: the GPU's peak bandwidth through a
// plain device-to-device copy (cudaMemcpyAsync), and CUB's DeviceReduce::Sum and ::Max, timed
// the way bench.py times dlx and PyTorch (wall clock around `reps` calls then a device
// synchronisation; the median of 7 runs, after a warm-up). Inputs are random, never zeros.
// Prints one "name seconds-per-call" line each.
//   nvcc -O3 -std=c++17 -arch=native reference.cu -o reference
//   ./reference COPY_BYTES REDUCE_COUNT REPS
// tools/gpu-check pack builds it for sm_90 into the carry (bench-reference); bench.py builds it
// with nvcc when the carry has none.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_reduce.cuh>
#include <vector>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                             \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

template <class F> double median_seconds(F f, int reps) {
  std::vector<double> runs;
  f(); // warm-up: module load, first-touch
  CHECK(cudaDeviceSynchronize());
  for (int run = 0; run < 7; run++) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; i++) f();
    CHECK(cudaDeviceSynchronize());
    runs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
                   reps);
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

// uniform floats in [0, 1) from a hash of the position
__global__ void fill_random(float *x, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    x[i] = (float)(h >> 40) * (1.0f / 16777216.0f);
  }
}

int main(int argc, char **argv) {
  size_t copy_bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t)256 << 20;
  size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (size_t)256 << 20;
  int reps = argc > 3 ? std::atoi(argv[3]) : 20;
  size_t bytes = std::max(copy_bytes, n * sizeof(float));
  float *a, *b, *out;
  void *temp = nullptr;
  size_t temp_sum = 0, temp_max = 0;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&out, sizeof(float)));
  fill_random<<<1024, 256>>>(a, bytes / sizeof(float));
  CHECK(cudaGetLastError());
  CHECK(cub::DeviceReduce::Sum(temp, temp_sum, a, out, n));
  CHECK(cub::DeviceReduce::Max(temp, temp_max, a, out, n));
  CHECK(cudaMalloc(&temp, std::max(temp_sum, temp_max)));

  double d2d = median_seconds(
      [&] { CHECK(cudaMemcpyAsync(b, a, copy_bytes, cudaMemcpyDeviceToDevice, 0)); }, reps);
  double sum =
      median_seconds([&] { CHECK(cub::DeviceReduce::Sum(temp, temp_sum, a, out, n)); }, reps);
  double max =
      median_seconds([&] { CHECK(cub::DeviceReduce::Max(temp, temp_max, a, out, n)); }, reps);
  std::printf("d2d_memcpy %.9g\n", d2d);
  std::printf("cub_sum %.9g\n", sum);
  std::printf("cub_max %.9g\n", max);
  return 0;
}
