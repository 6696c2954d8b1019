/* The binding: the core and Lua, never a backend or the list of backends. */
#include <lauxlib.h>

#include "backends/builtin.h" /* wrong */
#include "core/core.h"
#include "cpu/kernels.h" /* wrong */
#include "dlx.h"
#include "lua/binding.h"
