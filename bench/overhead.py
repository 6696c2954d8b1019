"""Per-call overhead: dlx from Lua against NumPy 2.x, one table (run by scripts/bench-overhead).

bench/overhead.lua (a lua5.4 child kept open) times each call in a loop with the call inlined
(os.clock, CPU time); this process times NumPy's nearest equivalent the same way (a loop with
the statement inlined, time.process_time_ns around it, so both sides count CPU time). Rounds
alternate dlx, NumPy and the floor so that a change in the machine's load hits all alike; the
table shows the medians of the rounds, the ratios dlx / NumPy and dlx / floor, and the goal.

The floor column: some of a Lua call's cost is Lua's own and no library can go under it --
building the table argument ({16}, {max_version = {1, 3}}), the C function call, a full userdata
with a __gc metamethod (Lua 5.4's collector runs each finalizer in a protected call), a new
result table (t.shape). bench/floor.c (the module bench_floor, built next to dlx/core.so) makes
the cheapest C implementation of the same shape of call as each case: it reads the same
arguments, makes a 64-byte userdata with __gc over a refcounted malloc'd block (or a capsule
userdata over a malloc'd struct), and does nothing else -- no dtype, device, stride or error
handling. dlx / floor is how many times that floor a dlx call costs; what is above the floor is
dlx's own cost, the part that work on dlx can cut. The statements of the floor are in
bench/overhead.lua, next to dlx's. is_tensor has no goal: it is a plain C function call, the
smallest floor of all, shown for reference.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

GOAL, AIM = 1.0, 0.5

# name, what (dlx / NumPy), NumPy setup, NumPy statement
CASES = [
    ("from_dlpack_tensor", "dlx.from_dlpack(t) / np.from_dlpack(a)",
     "a = np.zeros(16, np.float32)", "np.from_dlpack(a)"),
    ("from_dlpack_capsule", "dlx.from_dlpack(t:__dlpack{max_version = {1, 3}}) / np.from_dlpack(a)",
     "a = np.zeros(16, np.float32)", "np.from_dlpack(a)"),
    ("export", "t:__dlpack{max_version = {1, 3}} / a.__dlpack__(max_version=(1, 3))",
     "a = np.zeros(16, np.float32)", "a.__dlpack__(max_version=(1, 3))"),
    ("export_hoisted", "t:__dlpack(o), o = {max_version = {1, 3}} made once / the same",
     "a = np.zeros(16, np.float32)", "a.__dlpack__(max_version=(1, 3))"),
    ("empty", "dlx.empty{16} / np.empty(16, np.float32)", "", "np.empty(16, np.float32)"),
    ("zeros", "dlx.zeros{16} / np.zeros(16, np.float32)", "", "np.zeros(16, np.float32)"),
    ("ones", "dlx.ones{16} / np.ones(16, np.float32)", "", "np.ones(16, np.float32)"),
    ("full", "dlx.full({16}, 2.5) / np.full(16, 2.5)", "", "np.full(16, 2.5)"),
    ("arange", "dlx.arange(16) / np.arange(16)", "", "np.arange(16)"),
    ("tensor", "dlx.tensor{1, 2, 3, 4} / np.array([1, 2, 3, 4])", "", "np.array([1, 2, 3, 4])"),
    ("empty_dtype", "dlx.empty({16}, {dtype = 'float64'}) / np.empty(16, dtype=np.float64)", "",
     "np.empty(16, dtype=np.float64)"),
    ("view", "t:view{4, 4} / a.reshape(4, 4)", "a = np.zeros(16, np.float32)", "a.reshape(4, 4)"),
    ("shape", "t.shape / a.shape", "a = np.zeros(16, np.float32)", "a.shape"),
    ("sum", "t:sum() / a.sum() (16 float32)", "a = np.ones(16, np.float32)", "a.sum()"),
    ("add", "a + b / the same (16 float32 each)",
     "a = np.ones(16, np.float32); b = np.ones(16, np.float32)", "a + b"),
    ("is_tensor", "dlx.is_tensor(t) / isinstance(a, np.ndarray)", "a = np.zeros(16, np.float32)",
     "isinstance(a, np.ndarray)"),
]
NO_GOAL = {"is_tensor"}


def numpy_loop(setup, statement):
    """A function timing n runs of statement (inlined in the loop), in CPU seconds."""
    source = (f"def make():\n    {setup or 'pass'}\n"
              f"    def loop(n, clock=time.process_time_ns):\n"
              f"        t0 = clock()\n"
              f"        for _ in range(n):\n"
              f"            {statement}\n"
              f"        return (clock() - t0) * 1e-9\n"
              f"    return loop\n")
    scope = {"np": np, "time": time}
    exec(source, scope)
    return scope["make"]()


class LuaSide:
    def __init__(self, lua, build):
        self.proc = subprocess.Popen([lua, "bench/overhead.lua", build], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        if not answer or answer.startswith("error"):
            sys.exit(f"bench: the Lua side answered {answer!r} to {line!r}")
        return answer

    def close(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.wait()


def iterations_for(seconds_per_call, target):
    return max(1000, int(target / max(seconds_per_call, 1e-9)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build-bench", help="the build folder with dlx/core.so")
    parser.add_argument("--lua", default="lua5.4")
    parser.add_argument("--reps", type=int, default=7, help="rounds per case (median shown)")
    parser.add_argument("--round-ms", type=float, default=100, help="time of one round per side")
    parser.add_argument("--cases", default="", help="comma-separated subset")
    args = parser.parse_args()
    wanted = set(filter(None, args.cases.split(",")))
    lua = LuaSide(args.lua, args.build)
    missing = {name for name, *_ in CASES} - set(lua.ask("cases").split())
    if missing:
        sys.exit(f"bench: bench/overhead.lua lacks the cases {sorted(missing)}")
    target = args.round_ms / 1e3
    print("| per call | dlx ns | NumPy ns | floor ns | dlx / NumPy | dlx / floor | goal |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, what, setup, statement in CASES:
        if wanted and name not in wanted:
            continue
        np_loop = numpy_loop(setup, statement)
        # calibrate every side to about round_ms a round (this also warms them up)
        n_dlx = iterations_for(float(lua.ask(f"run {name} 2000")) * 1e-9, target)
        n_floor = iterations_for(float(lua.ask(f"floor {name} 2000")) * 1e-9, target)
        n_np = iterations_for(np_loop(2000) / 2000, target)
        t_dlx, t_np, t_floor = [], [], []
        for _ in range(args.reps):
            t_dlx.append(float(lua.ask(f"run {name} {n_dlx}")))
            t_np.append(np_loop(n_np) / n_np * 1e9)
            t_floor.append(float(lua.ask(f"floor {name} {n_floor}")))
        dlx_ns, np_ns = statistics.median(t_dlx), statistics.median(t_np)
        floor_ns = statistics.median(t_floor)
        ratio = dlx_ns / np_ns
        if name in NO_GOAL:
            goal = "none (a plain C call)"
        else:
            goal = f"<= {GOAL:g} (aim {AIM:g}) " + ("ok" if ratio <= GOAL else "MISSED")
            if ratio <= AIM:
                goal += ", aim met"
        print(f"| {what} | {dlx_ns:.0f} | {np_ns:.0f} | {floor_ns:.0f} | {ratio:.2f} "
              f"| {dlx_ns / floor_ns:.2f} | {goal} |", flush=True)
    lua.close()


if __name__ == "__main__":
    main()
