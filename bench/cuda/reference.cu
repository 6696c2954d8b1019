// reference.cu -- the reference side of bench/cuda/bench.py: plain CUDA runtime and CUB
// measured the way bench.py measures dlx (wall clock around `reps` calls, then a device
// synchronisation; the best of 5 runs). Prints "name GB/s" lines.
//   nvcc -O3 -std=c++17 -arch=native reference.cu -o reference && ./reference MiB reps
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_reduce.cuh>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                     \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

template <class F> double best_seconds(F f, int reps) {
  double best = 1e30;
  for (int run = 0; run < 5; run++) {
    CHECK(cudaDeviceSynchronize());
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; i++) f();
    CHECK(cudaDeviceSynchronize());
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s / reps < best) best = s / reps;
  }
  return best;
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  size_t bytes = mib << 20, n = bytes / sizeof(float);
  float *a, *b, *host, *sum;
  void *temp = nullptr;
  size_t temp_bytes = 0;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&sum, sizeof(float)));
  CHECK(cudaMallocHost(&host, bytes));
  CHECK(cudaMemset(a, 0, bytes));
  CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, a, sum, n));
  CHECK(cudaMalloc(&temp, temp_bytes));

  // copies count the bytes moved once (as bench.py does for dlx and torch)
  double d2d = best_seconds([&] { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0)); }, reps);
  double h2d = best_seconds([&] { CHECK(cudaMemcpy(a, host, bytes, cudaMemcpyHostToDevice)); }, reps / 4 + 1);
  double d2h = best_seconds([&] { CHECK(cudaMemcpy(host, a, bytes, cudaMemcpyDeviceToHost)); }, reps / 4 + 1);
  double red = best_seconds([&] { CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, a, sum, n)); }, reps);
  std::printf("d2d_memcpy %.1f\n", bytes / d2d / 1e9);
  std::printf("h2d_pinned_memcpy %.1f\n", bytes / h2d / 1e9);
  std::printf("d2h_pinned_memcpy %.1f\n", bytes / d2h / 1e9);
  std::printf("cub_sum %.1f\n", bytes / red / 1e9);
  return 0;
}
