"""Elementwise ops: dlx against NumPy and PyTorch (when installed) in the same run, 2 threads.

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times all three: each case runs a loop of
ITERATIONS calls, repeated REPEATS times, and the table shows the median time per call. The
memory bandwidth of the machine is measured in the same run as NumPy's copy of 64 Mi float32
(read + write), and each case's bytes moved per call give dlx's share of it.

    DLX_LIBRARY=build/libdlx.so python3 bench/elementwise.py [--scale 0.1] [--repeats 5]
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "python"))
os.environ.setdefault("DLX_NUM_THREADS", "2")

import numpy as np  # noqa: E402

import dlx_host  # noqa: E402

try:
    import torch  # noqa: E402
    torch.set_num_threads(2)
except ImportError:
    torch = None

MI = 1 << 20

# name, elements, bytes moved per element, dlx setup and statement, numpy setup and statement,
# torch setup and statement (the setups make a, b, c, m, row, i).
CASES = [
    ("add out= float32", 64 * MI, 12,
     "a, b, c = dlx.ones(N), dlx.ones(N), dlx.empty(N)", "dlx.add(a, b, {out = c})",
     "a, b, c = np.ones(N, 'f4'), np.ones(N, 'f4'), np.empty(N, 'f4')", "np.add(a, b, out=c)",
     "a, b, c = torch.ones(N), torch.ones(N), torch.empty(N)", "torch.add(a, b, out=c)"),
    ("m + row 8192^2", 64 * MI, 8,
     "m, row = dlx.ones({8192, 8192}), dlx.ones(8192)", "local r = m + row",
     "m, row = np.ones((8192, 8192), 'f4'), np.ones(8192, 'f4')", "m + row",
     "m, row = torch.ones(8192, 8192), torch.ones(8192)", "m + row"),
    ("int32 + float32", 64 * MI, 12,
     "i, b = dlx.ones(N, {dtype = 'int32'}), dlx.ones(N)", "local r = i + b",
     "i, b = np.ones(N, 'i4'), np.ones(N, 'f4')", "i + b",
     "i, b = torch.ones(N, dtype=torch.int32), torch.ones(N)", "i + b"),
    ("a:mul_(2)", 64 * MI, 8,
     "a = dlx.ones(N)", "a:mul_(2)",
     "a = np.ones(N, 'f4')", "np.multiply(a, 2, out=a)",
     "a = torch.ones(N)", "a.mul_(2)"),
    ("a + b, 16 elements", 16, 0,
     "a, b = dlx.ones(N), dlx.ones(N)", "local r = a + b",
     "a, b = np.ones(N, 'f4'), np.ones(N, 'f4')", "a + b",
     "a, b = torch.ones(N), torch.ones(N)", "a + b"),
    # NumPy has no softmax: the usual composition stands in for it
    ("softmax rows 4096^2", 16 * MI, 8,
     "m = dlx.arange(N):view({N // 4096, 4096}):remainder(97):div(17)", "local r = dlx.softmax(m, 2)",
     "m = (np.arange(N, dtype='f4').reshape(-1, 4096) % 97) / 17",
     "e = np.exp(m - m.max(axis=1, keepdims=True)); e /= e.sum(axis=1, keepdims=True)",
     "m = (torch.arange(N, dtype=torch.float32).view(-1, 4096) % 97) / 17",
     "torch.softmax(m, 1)"),
    ("exp float32", 64 * MI, 8,
     "a = dlx.ones(N)", "local r = a:exp()",
     "a = np.ones(N, 'f4')", "np.exp(a)",
     "a = torch.ones(N)", "torch.exp(a)"),
    ("where(a > 0, a, b)", 64 * MI, 18,
     "a, b = dlx.ones(N), dlx.ones(N)", "local r = dlx.where(a:gt(0), a, b)",
     "a, b = np.ones(N, 'f4'), np.ones(N, 'f4')", "np.where(a > 0, a, b)",
     "a, b = torch.ones(N), torch.ones(N)", "torch.where(a > 0, a, b)"),
]


def iterations_for(n):
    return max(3, min(100000, int(2e7 // max(n, 1))))


def time_lua(lua, setup, statement, n, iters, repeats):
    lua.load_string("N = %d; %s" % (n, setup.replace("local ", "")))
    # the loop runs in Lua; only the wall time around it is Python's
    lua.load_string("function bench_loop(k) for _ = 1, k do %s end end" % statement)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        lua.load_string("bench_loop(%d)" % iters)
        times.append((time.perf_counter() - t0) / iters)
    lua.load_string("a, b, c, m, row, i = nil; collectgarbage()")
    return statistics.median(times)


def time_python(setup, statement, n, iters, repeats, namespace):
    env = dict(namespace, N=n)
    exec(setup, env)
    code = compile("for _ in range(%d):\n    %s" % (iters, statement), "<bench>", "exec")
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        exec(code, env)
        times.append((time.perf_counter() - t0) / iters)
    return statistics.median(times)


def bandwidth(scale, repeats):
    n = max(MI, int(64 * MI * scale))
    src, dst = np.ones(n, "f4"), np.empty(n, "f4")
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        times.append(time.perf_counter() - t0)
    return 8 * n / statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the large sizes")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    lua = dlx_host.LuaState()
    lua.load_string('dlx = require "dlx"')
    bw = bandwidth(args.scale, args.repeats)
    print("machine: %s, %d cores; load average %.2f; DLX_NUM_THREADS=%s; NumPy %s; PyTorch %s"
          % (os.uname().machine, os.cpu_count(), os.getloadavg()[0],
             os.environ["DLX_NUM_THREADS"], np.__version__, torch.__version__ if torch else "-"))
    print("memory bandwidth (NumPy copy): %.1f GB/s" % (bw / 1e9))
    print("| case | dlx | NumPy | PyTorch | NumPy / dlx | PyTorch / dlx | dlx GB/s |")
    print("|---|---|---|---|---|---|---|")
    for name, n, per, lsetup, lstmt, nsetup, nstmt, tsetup, tstmt in CASES:
        if n > 1000:
            n = max(1024, int(n * args.scale))
            if name.startswith("m + row"):
                side = int((n ** 0.5) // 64 * 64) or 64
                lsetup = lsetup.replace("8192", str(side))
                nsetup = nsetup.replace("8192", str(side))
                tsetup = tsetup.replace("8192", str(side))
                n = side * side
            if name.startswith("softmax"):
                n = max(4096, n // 4096 * 4096)  # whole rows of 4096
        iters = iterations_for(n)
        t_dlx = time_lua(lua, lsetup, lstmt, n, iters, args.repeats)
        t_np = time_python(nsetup, nstmt, n, iters, args.repeats, {"np": np})
        t_torch = (time_python(tsetup, tstmt, n, iters, args.repeats, {"torch": torch})
                   if torch else float("nan"))
        gbs = per * n / t_dlx / 1e9 if per else float("nan")
        print("| %s (%d) | %.3g ms | %.3g ms | %.3g ms | %.2f | %.2f | %.1f |"
              % (name, n, t_dlx * 1e3, t_np * 1e3, t_torch * 1e3, t_np / t_dlx,
                 t_torch / t_dlx, gbs))
    lua.close()


if __name__ == "__main__":
    main()
