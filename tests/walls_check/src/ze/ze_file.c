/* A backend's host code may include its kernels' argument blocks. */
#include "core/backend.h"
#include "cuda/kernels.h" /* wrong */
#include "ze/kernels/ze_args.h"
#include "ze/ze.h"
