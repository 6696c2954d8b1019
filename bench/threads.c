/* threads.c -- the C side of the threads benchmark (bench/threads.py drives it; scripts/
 * bench-threads runs both): a host with a Lua state and dlx, timing Lua loops that run dlx's
 * threaded kernels. The driver starts one of these per thread count (DLX_NUM_THREADS) and
 * sends the same commands to each in turn, while another copy spins on a core or not.
 *
 * Commands on stdin, one a line, each answered on stdout:
 *   setup CASE   makes the case's tensors; answers "ok"
 *   run CASE     runs the case's loop once; answers "WALL CPU CHECK": wall and CPU seconds of
 *                the process (CPU time above wall time is threads running, or spinning) and a
 *                checksum of the result, which must not depend on the thread count
 *   quit
 * With the argument "spin" it only keeps one core busy until it is killed. */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dlx.h"

/* name, setup chunk, timed chunk (returns the checksum) */
static const char *const cases[][3] = {
    {"sum", /* a long sum: the pieces of one reduction spread over threads */
     "x = dlx.arange(64 * 2^20, {dtype = 'float32'})",
     "local s for _ = 1, 20 do s = x:sum() end return s:item()"},
    {"cast", /* a contiguous cast copy into a preallocated tensor */
     "x = dlx.arange(32 * 2^20, {dtype = 'float32'}) y = dlx.empty({32 * 2^20}, {dtype = "
     "'float64'})",
     "for _ = 1, 10 do y:copy_(x) end return y:select(1, -1):item()"},
    {"temps", /* small temporaries: many short parallel regions, allocation between them */
     "x = dlx.arange(2^18, {dtype = 'float32'})",
     "local r = 0 for _ = 1, 1000 do r = x:astype('float64'):sum():item() end return r"},
    {"matmul", /* a large float32 product: BLAS tiles handed out by the pool */
     "local g = dlx.Generator(1) x = dlx.randn({2048, 2048}, {generator = g}) "
     "y = dlx.randn({2048, 2048}, {generator = g})",
     "local c for _ = 1, 2 do c = x:matmul(y) end return c:sum():item() + c[1][1]"},
    {"bmm", /* a batch of small products: the 4x4 kernels, ranges of the batch over the pool */
     "local g = dlx.Generator(2) x = dlx.randn({100000, 4, 4}, {generator = g}) "
     "y = dlx.randn({100000, 4, 4}, {generator = g})",
     "local c for _ = 1, 400 do c = x:matmul(y) end return c:sum():item() + c[1][1][1]"},
};

static double seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int find_case(const char *name) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (strcmp(cases[i][0], name) == 0) return (int)i;
  }
  fprintf(stderr, "bench-threads: unknown case %s\n", name);
  exit(1);
}

static void run_chunk(lua_State *L, const char *chunk, int nresults) {
  if (luaL_dostring(L, chunk) != LUA_OK) {
    fprintf(stderr, "bench-threads: %s\n", lua_tostring(L, -1));
    exit(1);
  }
  lua_settop(L, nresults);
}

static void spin(void) {
  volatile unsigned long n = 0;
  for (;;) n++;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "spin") == 0) spin();
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  dlx_openlibs(L);
  run_chunk(L, "dlx = require 'dlx'", 0);
  char line[256], name[64];
  setvbuf(stdout, NULL, _IOLBF, 0);
  while (fgets(line, sizeof line, stdin) != NULL) {
    if (sscanf(line, "setup %63s", name) == 1) {
      run_chunk(L, "x, y = nil, nil collectgarbage()", 0);
      run_chunk(L, cases[find_case(name)][1], 0);
      printf("ok\n");
    } else if (sscanf(line, "run %63s", name) == 1) {
      const char *chunk = cases[find_case(name)][2];
      run_chunk(L, "collectgarbage()", 0);
      double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
      run_chunk(L, chunk, 1);
      wall = seconds(CLOCK_MONOTONIC) - wall;
      cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
      printf("%.6f %.6f %.17g\n", wall, cpu, lua_tonumber(L, 1));
      lua_settop(L, 0);
    } else {
      break;
    }
  }
  lua_close(L);
  return 0;
}
