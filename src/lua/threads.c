/* threads.c -- dlx.set_num_threads and dlx.get_num_threads: the thread count of the CPU's
 * kernels at run time, through the CPU backend's table. */
#include <limits.h>

#include "lua/args.h"
#include "lua/errors.h"
#include "lua/tables.h"

static const dlx_backend *cpu_backend(void) { return dlx_backend_for(kDLCPU); }

/* get_num_threads() -> how many threads a CPU kernel may use, the calling thread included. */
static int api_get_num_threads(lua_State *L) {
  const dlx_backend *cpu = cpu_backend();
  lua_pushinteger(L, cpu != NULL && cpu->num_threads != NULL ? cpu->num_threads() : 1);
  return 1;
}

/* set_num_threads(n): n >= 1 threads for the CPU kernels from now on, DLX_NUM_THREADS
 * overridden. The kernels' results do not depend on it. */
static int api_set_num_threads(lua_State *L) {
  const dlx_backend *cpu = cpu_backend();
  lua_Integer n = dlxl_checkinteger(L, 1, "number of threads");
  if (n < 1)
    return dlxl_error(L, DLX_VALUE_ERROR, "number of threads must be >= 1, got %lld", (long long)n);
  if (cpu != NULL && cpu->set_num_threads != NULL)
    cpu->set_num_threads(n > INT_MAX ? INT_MAX : (int)n);
  return 0;
}

const luaL_Reg dlxl_thread_funcs[] = {
    {"get_num_threads", api_get_num_threads},
    {"set_num_threads", api_set_num_threads},
    {NULL, NULL},
};
