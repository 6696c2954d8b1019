"""The temporaries loop: `r[i] = x:astype("float64"):sum()` for i = 1..N, x float32 of SIZE
elements, in dlx (Lua) and in NumPy (`x.astype("float64").sum()`), one table (run by
scripts/bench-temporaries).

Every measurement is a fresh child process (bench/temporaries.lua, or this file with --child),
so that each has its own peak RSS: the parent reads it from the child's resource usage
(getrusage through os.wait4: ru_maxrss). The child times the loop alone with its own CPU clock
and reports the peak RSS it had before the loop, so the table also shows how much the loop
added. dlx and NumPy alternate (the order swaps every round), and the table shows medians.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TIME_BAR = 1.2  # dlx loop CPU time <= 1.2 x NumPy's
RSS_BAR = 2.0  # dlx peak RSS <= 2 x NumPy's


def numpy_child(n, size):
    import numpy as np

    def peak_kib():
        try:
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return -1

    x = np.ones(size, np.float32)
    before = peak_kib()
    r = [None] * n
    t0 = time.process_time()
    for i in range(n):
        r[i] = x.astype("float64").sum()
    cpu = time.process_time() - t0
    assert n == 0 or r[-1] == size, "wrong sum"
    print("%.6f %d" % (cpu, before))


def run_child(argv, env):
    """Runs a child; returns (loop CPU s, process CPU s, peak RSS KiB, peak KiB before the loop)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, env=env, cwd=ROOT)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.stdout.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit("child failed (%d): %s" % (proc.returncode, " ".join(argv)))
    loop_cpu, before = out.decode().split()
    # ru_maxrss is in KiB on Linux (bytes on macOS)
    maxrss = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
    return float(loop_cpu), usage.ru_utime + usage.ru_stime, maxrss, int(before)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build-bench", help="build folder with dlx/core.so")
    parser.add_argument("--lua", default="lua5.4")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("-n", type=int, default=1000, help="iterations of the loop")
    parser.add_argument("--size", type=int, default=1 << 18, help="elements of x")
    parser.add_argument("--child", choices=["numpy"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "numpy":
        numpy_child(args.n, args.size)
        return

    env = dict(os.environ)
    build = os.path.abspath(args.build)
    env["LUA_PATH"] = "%s/lua/?.lua;%s/lua/?/init.lua;;" % (ROOT, ROOT)
    env["LUA_CPATH"] = "%s/?.so;;" % build
    sides = {
        "dlx": [args.lua, os.path.join(HERE, "temporaries.lua"), str(args.n), str(args.size)],
        "numpy": [sys.executable, os.path.abspath(__file__), "--child", "numpy",
                  "-n", str(args.n), "--size", str(args.size)],
    }
    results = {name: [] for name in sides}
    for name in sides:  # one untimed warm-up each (page cache, imports)
        run_child(sides[name], env)
    for rep in range(args.reps):
        order = list(sides) if rep % 2 == 0 else list(reversed(sides))
        for name in order:
            results[name].append(run_child(sides[name], env))

    def med(name, k):
        return statistics.median(r[k] for r in results[name])

    mib = 1024.0
    rows = [
        ("loop CPU time (s)", 0, 1.0, "%.3f", TIME_BAR),
        ("process CPU time, start-up included (s)", 1, 1.0, "%.3f", None),
        ("peak RSS (MiB)", 2, mib, "%.1f", RSS_BAR),
        ("peak RSS added by the loop (MiB)", None, mib, "%.1f", None),
    ]
    print()
    print("Temporaries loop: `r[i] = x:astype(\"float64\"):sum()` x %d, x %d float32; "
          "medians of %d runs each, interleaved" % (args.n, args.size, args.reps))
    print()
    print("| | dlx | NumPy | dlx / NumPy | bar |")
    print("|---|---:|---:|---:|---|")
    for label, k, scale, fmt, bar in rows:
        if k is None:
            d = statistics.median(r[2] - r[3] for r in results["dlx"] if r[3] >= 0) / scale
            p = statistics.median(r[2] - r[3] for r in results["numpy"] if r[3] >= 0) / scale
        else:
            d, p = med("dlx", k) / scale, med("numpy", k) / scale
        ratio = d / p if p > 0 else float("inf")
        verdict = ("<= %.1f: %s" % (bar, "ok" if ratio <= bar else "MISSED")) if bar else ""
        print("| %s | %s | %s | %.2f | %s |" % (label, fmt % d, fmt % p, ratio, verdict))


if __name__ == "__main__":
    main()
