// The CUDA kernels: src/common and their backend's headers, not the core.
#include "common/convert.h"
#include "core/tensor.h" // wrong
#include "cuda/kernels.h"
