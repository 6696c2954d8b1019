"""Memory-bound CPU kernels: dlx against PyTorch and a plain C loop, interleaved in one process.

The three cases of issue 21 where PyTorch once led: the float32 sum of 64 Mi elements
(`a:sum()`), scaling in place (`a:mul_(s)`) and an add into an existing tensor
(`dlx.add(a, b, {out = c})`). Each case is timed for dlx, optionally for a second build of dlx
(--before: another libdlx.so, loaded into its own Lua state in this process), PyTorch (when
installed) and the plain C loops of bench/bytes_ref.c on one thread and on --threads threads
(equal parts, one thread each): the bandwidth a loop anyone would write gets in the same minutes.
Every contender has its own arrays. The contenders run in rounds that interleave them (each
round starts at the next one, so none always follows the same one), each turn a loop of --calls
calls after --gap seconds of sleep; the table shows the median time per call and the bytes each
call must move per second (read + written: sum 4, mul_ 8, add 12 bytes per element; an add
that reads its output's lines before writing them moves 16).

The gap matters: PyTorch's OpenMP workers (libgomp) spin for milliseconds after each parallel
call, holding a core. A dlx call started while they spin finds one core taken: its second
thread shares a core with the spinner (and on a 2-core machine so does anything else). The
column "dlx right after PyTorch" times dlx's turn right after an untimed PyTorch turn, with no
gap, to show what that costs in the same run.

    DLX_LIBRARY=build/libdlx.so python3 bench/bytes.py --ref build/libbytes_ref.so
        [--before old/libdlx.so] [--threads 2] [--rounds 9] [--calls 5] [--gap 0.1]
        [--cases sum,mul,add]
"""
import argparse
import ctypes
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "python"))

import numpy as np  # noqa: E402

import dlx_host  # noqa: E402

try:
    import torch  # noqa: E402
except ImportError:
    torch = None

MI = 1 << 20
SCALE = 1.0000001  # mul_'s factor: the values stay near 1 however many calls

# name, bytes per element, the dlx setup and statement, the torch setup and statement, the op of
# bytes_ref_run and the NumPy arrays it takes (a, b, c)
CASES = {
    "sum": ("a:sum() float32", 4,
            "a = dlx.ones(N)", "local s = a:sum()",
            "a = torch.ones(N)", "a.sum()", 0, "a"),
    "mul": ("a:mul_(s) float32", 8,
            "a = dlx.ones(N)", "a:mul_(%r)" % SCALE,
            "a = torch.ones(N)", "a.mul_(%r)" % SCALE, 1, "a"),
    "add": ("dlx.add(a, b, {out = c}) float32", 12,
            "a, b, c = dlx.ones(N), dlx.ones(N), dlx.empty(N)", "dlx.add(a, b, {out = c})",
            "a, b, c = torch.ones(N), torch.ones(N), torch.empty(N)", "torch.add(a, b, out=c)",
            2, "abc"),
}


def lua_state(path, threads):
    lua = dlx_host.LuaState(path)
    lua.load_string('dlx = require "dlx"')
    lua.eval("dlx.set_num_threads(...)", threads)
    return lua


def lua_case(lua, setup, statement, n, calls):
    lua.load_string("N = %d; %s" % (n, setup))
    lua.load_string("function bench_loop(k) for _ = 1, k do %s end end" % statement)
    chunk = "bench_loop(%d)" % calls
    return lambda: lua.load_string(chunk)


def python_case(setup, statement, n, calls, namespace):
    env = dict(namespace, N=n)
    exec(setup, env)
    code = compile("for _ in range(%d):\n    %s" % (calls, statement), "<bench>", "exec")
    return lambda: exec(code, env)


def ref_case(ref, op, arrays, threads, n, calls):
    a, b, c = (arrays.get(k) for k in "abc")
    ptr = (lambda x: x.ctypes.data if x is not None else None)
    args = (op, threads, ptr(a), ptr(b), ptr(c), SCALE, n)

    def run():
        for _ in range(calls):
            ref.bytes_ref_run(*args)
    return run


def measure(contenders, rounds, calls, gap):
    """contenders: (name, run, before); before, when not None, runs untimed right before run
    (no gap between them)."""
    times = [[] for _ in contenders]
    for _, run, _ in contenders:  # untimed: first touch of the pages, threads started
        run()
    for r in range(rounds):
        order = list(range(len(contenders)))
        order = order[r % len(order):] + order[:r % len(order)]
        for i in order:
            _, run, before = contenders[i]
            time.sleep(gap)
            if before is not None:
                before()
            t0 = time.perf_counter()
            run()
            times[i].append((time.perf_counter() - t0) / calls)
    return [statistics.median(t) for t in times]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", required=True, help="the plain loops' library (bytes_ref.c)")
    parser.add_argument("--before", help="a second libdlx.so to time next to DLX_LIBRARY's")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--elements", type=int, default=64 * MI)
    parser.add_argument("--gap", type=float, default=0.1, help="seconds of sleep before a turn")
    parser.add_argument("--cases", default="sum,mul,add")
    args = parser.parse_args()

    ref = ctypes.CDLL(args.ref)
    ref.bytes_ref_run.restype = ctypes.c_double
    ref.bytes_ref_run.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.c_void_p, ctypes.c_float, ctypes.c_int64]
    if torch is not None:
        torch.set_num_threads(args.threads)
    states = [("dlx", lua_state(os.environ.get("DLX_LIBRARY"), args.threads))]
    if args.before:
        states.append(("dlx before", lua_state(args.before, args.threads)))
    n, calls = args.elements, args.calls
    print("machine: %s, %d cores; load average %s; threads: dlx %d, torch %s, C loop 1 and %d; "
          "NumPy %s, PyTorch %s; %d elements, %d rounds of %d calls, %.2f s gaps"
          % (os.uname().machine, os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg()),
             args.threads, torch.get_num_threads() if torch else "-", args.threads,
             np.__version__, torch.__version__ if torch else "-", n, args.rounds, calls,
             args.gap))
    names = [name for name, _ in states] + \
        (["PyTorch", "dlx right after PyTorch"] if torch else []) + \
        ["C loop, 1 thread"] + (["C loop, %d threads" % args.threads] if args.threads > 1 else [])
    ratio_titles = (["PyTorch / dlx"] if torch else []) + (["before / dlx"] if args.before else [])
    print("| case | " + " | ".join(names + ratio_titles) + " |")
    print("|---|" + "---:|" * (len(names) + len(ratio_titles)))
    for key in args.cases.split(","):
        title, per, lsetup, lstmt, tsetup, tstmt, op, arrays = CASES[key]
        contenders = [(name, lua_case(lua, lsetup, lstmt, n, calls), None)
                      for name, lua in states]
        if torch is not None:
            run_torch = python_case(tsetup, tstmt, n, calls, {"torch": torch})
            contenders.append(("PyTorch", run_torch, None))
            contenders.append(("dlx right after PyTorch", contenders[0][1], run_torch))
        host = {k: (np.ones(n, "f4") if k != "c" else np.empty(n, "f4")) for k in arrays}
        contenders.append(("ref1", ref_case(ref, op, host, 1, n, calls), None))
        if args.threads > 1:
            contenders.append(("refN", ref_case(ref, op, host, args.threads, n, calls), None))
        medians = measure(contenders, args.rounds, calls, args.gap)
        cells = ["%.2f ms, %.1f GB/s" % (m * 1e3, per * n / m / 1e9) for m in medians]
        if torch is not None:
            cells.append("%.2f" % (medians[len(states)] / medians[0]))
        if args.before:
            cells.append("%.2f" % (medians[1] / medians[0]))
        print("| %s | %s |" % (title, " | ".join(cells)))
        sys.stdout.flush()
        for _, lua in states:
            lua.load_string("a, b, c, bench_loop = nil; collectgarbage(); dlx.empty_cache()")
        del contenders, host
    print("load average at the end: %s" % " ".join("%.2f" % x for x in os.getloadavg()))


if __name__ == "__main__":
    main()
