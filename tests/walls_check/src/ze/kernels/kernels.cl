/* The OpenCL kernels: src/common and their own headers, not the core. */
#include "common/convert.h"
#include "core/dtype.h" /* wrong */
#include "ze/kernels/ze_args.h"
