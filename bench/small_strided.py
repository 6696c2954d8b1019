"""Per-call cost of small dlx ops on the paths the core's plan lays out (strided elementwise ops,
copies, fills and reductions) and of a scalar operand, one line per case in nanoseconds.

dlx runs in a Lua state inside this process (examples/python/dlx_host.py); each case's statement
runs in a Lua loop, 9 times 20,000 calls, and the median per call is printed. Compare two builds
by running this against each, interleaved, from each checkout's root:

    DLX_LIBRARY=build-bench-elementwise/libdlx.so python3 bench/small_strided.py

(scripts/bench-elementwise builds that library.)
"""
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "python"))
import dlx_host  # noqa: E402

# name, setup, statement
CASES = [
    ("a + b, 16 contiguous", "a, b = dlx.ones(16), dlx.ones(16)", "local r = a + b"),
    ("a + 1.5, 16 (a scalar's bytes)", "a = dlx.ones(16)", "local r = a + 1.5"),
    ("at + bt, 16x16 transposed",
     "at, bt = dlx.ones({16, 16}):transpose(1, 2), dlx.ones({16, 16}):transpose(1, 2)",
     "local r = at + bt"),
    ("m:add(1), 8x8x8 permuted", "m = dlx.ones({8, 8, 8}):permute({3, 1, 2})",
     "local r = m:add(1)"),
    ("c:copy_(at), 64x64 transposed",
     "c, at = dlx.empty({64, 64}), dlx.ones({64, 64}):transpose(1, 2)", "c:copy_(at)"),
    ("c:fill_(2), 64x64 strided", "c = dlx.empty({64, 128}):slice(2, 1, 128, 2)", "c:fill_(2)"),
    ("at:sum(1), 32x32 transposed", "at = dlx.ones({32, 32}):transpose(1, 2)",
     "local r = at:sum(1)"),
]


def main():
    lua = dlx_host.LuaState()
    lua.load_string('dlx = require "dlx"')
    for name, setup, statement in CASES:
        lua.load_string(setup)
        lua.load_string("function bench_loop(k) for _ = 1, k do %s end end" % statement)
        lua.load_string("bench_loop(1000)")
        times = []
        for _ in range(9):
            t0 = time.perf_counter()
            lua.load_string("bench_loop(20000)")
            times.append((time.perf_counter() - t0) / 20000)
        print("%s\t%.0f" % (name, statistics.median(times) * 1e9))
    lua.close()


if __name__ == "__main__":
    main()
