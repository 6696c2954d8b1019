"""load_npy: dlx.load_npy of a .npy file against reading the same file with io.open():read("a").

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times every case: each is one Lua chunk,
run in rounds that interleave the cases (so that a change in the machine's load hits them all),
and the table shows each case's median over the rounds and its ratio to the reference. The file
(float32, SIZE MiB) is read once before the rounds, so every case reads it from the page cache.
The goal: load_npy >= 0.8 x the reference. NumPy's np.load of the same file is shown too.

    DLX_LIBRARY=build/libdlx.so python3 bench/npy.py [--mib 256] [--rounds 7]
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "python"))

import numpy as np  # noqa: E402

import dlx_host  # noqa: E402

# name, Lua chunk (the path is `...`); each returns a number of bytes to show it did the work
CASES = [
    ('io.open():read("a") (reference)',
     'local f = io.open(..., "rb"); local s = f:read("a"); f:close(); return #s'),
    ("dlx.load_npy(path)", "return dlx.load_npy(...).numel * 4"),
    ("dlx.load_npy(path, {mmap = true})", "return dlx.load_npy(..., {mmap = true}).numel * 4"),
    ("dlx.load_npy + sum (copy)", "local t = dlx.load_npy(...); t:sum(); return t.numel * 4"),
    ("dlx.load_npy + sum (mmap)",
     "local t = dlx.load_npy(..., {mmap = true}); t:sum(); return t.numel * 4"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=256, help="the file's data in MiB")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print("machine: %s, %d cores; load average %.2f; NumPy %s; file %d MiB float32"
          % (os.uname().machine, os.cpu_count(), os.getloadavg()[0], np.__version__, args.mib))
    lua = dlx_host.LuaState()
    lua.load_string('dlx = require "dlx"')
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "a.npy")
        lua.eval("dlx.save_npy(..., dlx.ones(%d))" % (args.mib * (1 << 20) // 4), path)
        with open(path, "rb") as f:
            f.read()  # into the page cache
        for i, (_, code) in enumerate(CASES):
            lua.load_string("CASE%d = function(...) %s end" % (i, code))
        times = [[] for _ in CASES] + [[]]
        for _ in range(args.rounds):
            for i in range(len(CASES)):
                t0 = time.perf_counter()
                lua.eval("return CASE%d(...)" % i, path)
                times[i].append(time.perf_counter() - t0)
                lua.eval("collectgarbage(); collectgarbage()")  # the last case's memory, untimed
            t0 = time.perf_counter()
            np.load(path)
            times[-1].append(time.perf_counter() - t0)
    lua.close()
    names = [name for name, _ in CASES] + ["np.load(path) (NumPy)"]
    reference = statistics.median(times[0])
    print("| case | median | GB/s | reference / case |")
    print("|---|---|---|---|")
    for name, t in zip(names, times):
        m = statistics.median(t)
        print("| %s | %.1f ms | %.2f | %.2f |"
              % (name, m * 1e3, args.mib * (1 << 20) / m / 1e9, reference / m))
    print("goal: dlx.load_npy(path) >= 0.8 x the reference (reference / case >= 0.8)")


if __name__ == "__main__":
    main()
