/* A backend: another backend, the list of backends and the binding are shut to it. */
#include "backends/builtin.h" /* wrong */
#include "common/convert.h"
#include "core/ops.h"
#include "cpu/kernels.h"
#include "lua/binding.h" /* wrong */
#include "ze/ze.h"       /* wrong */
