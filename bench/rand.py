"""rand: dlx.rand of 64 Mi float32 against torch.rand and NumPy's default_rng().random(dtype=float32).

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times every case, in rounds that interleave
the cases (a change in the machine's load hits them all); the table shows each case's median and
the ratio torch / case. dlx.randn and torch.randn are shown too. dlx and PyTorch use their
default thread counts (dlx.get_num_threads(), torch.get_num_threads()), printed. The goals:
dlx.rand >= 1.0 x torch.rand (ratio >= 1.0) and dlx.randn >= 1.0 x torch.randn (printed last).

    DLX_LIBRARY=build/libdlx.so python3 bench/rand.py [--mi 64] [--rounds 7]
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import dlx_host  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mi", type=int, default=64, help="elements, in Mi")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    n = args.mi << 20
    lua = dlx_host.LuaState()
    lua.load_string('dlx = require "dlx"; dlx.manual_seed(1)')
    lua.load_string("RAND = function(n) return dlx.rand(n, {device = 'cpu'}).numel end")
    lua.load_string("RANDN = function(n) return dlx.randn(n, {device = 'cpu'}).numel end")
    print("machine: %s, %d cores; load average %.2f; threads: dlx %d, torch %d; NumPy %s, "
          "PyTorch %s; %d Mi float32"
          % (os.uname().machine, os.cpu_count(), os.getloadavg()[0],
             lua.eval("return dlx.get_num_threads()"), torch.get_num_threads(),
             np.__version__, torch.__version__, args.mi))
    rng = np.random.default_rng(1)
    torch.manual_seed(1)
    cases = [
        ("torch.rand (reference)", lambda: torch.rand(n)),
        ("dlx.rand", lambda: lua.eval("return RAND(...)", n)),
        ("np default_rng().random(dtype=float32)", lambda: rng.random(n, dtype=np.float32)),
        ("torch.randn", lambda: torch.randn(n)),
        ("dlx.randn", lambda: lua.eval("return RANDN(...)", n)),
        ("np default_rng().standard_normal(dtype=float32)",
         lambda: rng.standard_normal(n, dtype=np.float32)),
    ]
    times = [[] for _ in cases]
    for _ in range(args.rounds):
        for i, (_, run) in enumerate(cases):
            t0 = time.perf_counter()
            result = run()
            times[i].append(time.perf_counter() - t0)
            del result
            lua.eval("collectgarbage(); collectgarbage()")  # the last case's memory, untimed
    lua.close()
    reference = statistics.median(times[0])
    print("| case | median | GB/s written | torch.rand / case |")
    print("|---|---|---|---|")
    for (name, _), t in zip(cases, times):
        m = statistics.median(t)
        print("| %s | %.1f ms | %.2f | %.2f |" % (name, m * 1e3, n * 4 / m / 1e9, reference / m))
    print("goal: dlx.rand >= 1.0 x torch.rand (torch.rand / case >= 1.0)")
    print("goal: dlx.randn >= 1.0 x torch.randn: torch.randn / dlx.randn = %.2f"
          % (statistics.median(times[3]) / statistics.median(times[4])))


if __name__ == "__main__":
    main()
