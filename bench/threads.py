"""Threads benchmark driver: are N threads ever slower than one? (run by scripts/bench-threads)

One host process (bench/threads.c) per thread count, each started with DLX_NUM_THREADS; the
same case runs in each in turn, REPS rounds, so a change in the machine's load hits all alike.
Each case runs twice: with the machine as it is ("idle"), and with a spinning process keeping
a core busy ("busy"), as a host application's own threads do. The table shows medians, the
process's CPU time per wall second, the ratio to one thread and a verdict: under load N
threads must not be slower than one (within the tolerance), and every thread count must give
the same result. Exit status 1 when a verdict fails.
"""
import argparse
import os
import statistics
import subprocess
import sys

CASES = {
    "sum": "x:sum(), 64 Mi float32, x20",
    "cast": "y:copy_(x) float32 -> float64, 32 Mi, x10",
    "temps": "x:astype('float64'):sum() of 2^18 float32, x1000",
    "matmul": "x:matmul(y), float32 2048 x 2048 @ 2048 x 2048 (OpenBLAS tiles), x2",
    "bmm": "x:matmul(y), 100,000 products of 4x4 float32 (dlx's 4x4 kernels), x400",
}


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


class Host:
    """A bench/threads.c process with DLX_NUM_THREADS=threads."""

    def __init__(self, binary, threads):
        env = dict(os.environ, DLX_NUM_THREADS=str(threads))
        self.threads = threads
        self.proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=env, text=True)

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            sys.exit(f"bench-threads: the host with {self.threads} threads died on: {line}")
        return answer.split()

    def close(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.wait()


def start_spinner(binary, pin):
    spinner = subprocess.Popen([binary, "spin"])
    if pin is not None:
        os.sched_setaffinity(spinner.pid, {pin})
    return spinner


def measure(hosts, case, reps):
    """{threads: [(wall, cpu, check), ...]} for reps interleaved rounds (order rotated)."""
    for host in hosts:
        host.ask(f"setup {case}")
    for host in hosts:
        host.ask(f"run {case}")  # warm-up: pages, thread pools, caches
    runs = {host.threads: [] for host in hosts}
    for r in range(reps):
        order = hosts[r % len(hosts):] + hosts[:r % len(hosts)]
        for host in order:
            wall, cpu, check = host.ask(f"run {case}")
            runs[host.threads].append((float(wall), float(cpu), check))
    return runs


def report(case, load, runs, tolerance):
    """Prints the case's rows; returns False when a verdict fails."""
    base = statistics.median(w for w, _, _ in runs[1])
    checks = {check for results in runs.values() for _, _, check in results}
    ok = len(checks) == 1
    for threads, results in runs.items():
        wall = statistics.median(w for w, _, _ in results)
        cpu = statistics.median(c / w for w, c, _ in results)
        ratio = wall / base
        if len(checks) != 1:
            verdict = "RESULT DIFFERS"
        elif threads == 1:
            verdict = "-"
        elif load == "busy" and ratio > 1 + tolerance:
            verdict = "SLOWER"
            ok = False
        elif load == "busy":
            verdict = "ok"
        else:
            verdict = f"speedup {1 / ratio:.2f}x"
        print(f"| {case} | {load} | {threads} | {wall:.3f} | {cpu:.2f} | {ratio:.2f} | {verdict} |")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--threads", default=f"1,{os.cpu_count()}",
                    help="thread counts to compare, 1 first (default: 1 and all cores)")
    ap.add_argument("--loads", default="idle,busy")
    ap.add_argument("--pin", type=int, default=None,
                    help="pin the spinning process to this CPU (default: not pinned)")
    ap.add_argument("--tolerance", type=float, default=0.05,
                    help="under load, N threads may be this much slower than one (noise)")
    args = ap.parse_args()
    counts = [int(n) for n in args.threads.split(",")]
    if counts[0] != 1:
        sys.exit("bench-threads: the first thread count must be 1")

    print(f"load average before: {loadavg()}; {args.reps} rounds, medians; busy = one process "
          f"spinning{'' if args.pin is None else f' on CPU {args.pin}'}\n")
    for case in args.cases.split(","):
        print(f"- {case}: {CASES[case]}")
    print("\n| case | machine | threads | wall s | CPU/wall | vs 1 thread | verdict |")
    print("|---|---|---:|---:|---:|---:|---|")
    ok = True
    hosts = [Host(args.binary, n) for n in counts]
    try:
        for load in args.loads.split(","):
            spinner = start_spinner(args.binary, args.pin) if load == "busy" else None
            try:
                for case in args.cases.split(","):
                    ok &= report(case, load, measure(hosts, case, args.reps), args.tolerance)
            finally:
                if spinner is not None:
                    spinner.kill()
                    spinner.wait()
    finally:
        for host in hosts:
            host.close()
    print(f"\nload average after: {loadavg()}")
    print("verdict: " + ("N threads never slower than one" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
