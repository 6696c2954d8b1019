/* The core: a backend, the list of backends, the binding and Lua are shut to it. */
#include <lua.h> /* wrong */
#include <stdint.h>

#include "backends/builtin.h" /* wrong */
#include "common/convert.h"
#include "core/tensor.h"
#include "cuda/cuda_internal.h" /* wrong */
#include "dlpack/dlpack.h"
#include "dlx.h" /* wrong */
#include "dlx_errclass.h"
#include "lua/binding.h" /* wrong */
