"""CPU benchmark driver: dlx vs NumPy vs a plain C reference, one table (run by scripts/bench).

For each case the C side (bench.c, a child process kept open) and NumPy prepare the same data,
then REPS rounds time dlx, NumPy and the reference one after the other, so that a change in the
machine's load hits all three alike; the table shows medians and the ratios the bars are set on.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

MIB = 1 << 20

# name, what, bytes moved (read + write, for GB/s), [(bar, against, minimum)]
CASES = [
    ("copy", "contiguous copy f32 256 MiB", 2 * 256 * MIB, [("ref", 0.90)]),
    ("transpose", "transpose(1,2) copy 8192^2 f32", 2 * 256 * MIB, [("ref", 0.35), ("numpy", 8.0)]),
    ("permute", "permute(3,1,2) copy 512x512x256 f32", 2 * 256 * MIB, [("ref", 0.30), ("numpy", 3.0)]),
    ("slice2", "[:, ::2] -> contiguous 8192^2 f32", 2 * 128 * MIB, [("numpy", 1.0)]),
    ("cast64to32", "cast f64 -> f32 32 Mi", 384 * MIB, [("numpy", 1.0)]),
    ("bf16roundtrip", "cast f32 -> bf16 -> f32 32 Mi", 384 * MIB, [("ref", 0.50)]),
    ("sum", "sum f32 64 Mi", 256 * MIB, [("numpy", 1.8), ("ref", 0.85)]),
    ("sum_dim1", "sum over dim 1, 8192^2 f32", 256 * MIB, [("numpy", 1.2)]),
    ("sum_dim2", "sum over dim 2, 8192^2 f32", 256 * MIB, [("numpy", 1.2)]),
    ("max", "max f32 64 Mi", 256 * MIB, [("numpy", 1.0)]),
    ("argmax", "argmax f32 64 Mi", 256 * MIB, [("numpy", 1.0)]),
]
SUM_REL_ERROR_BAR = 1e-6


def numpy_case(name):
    """Returns a function timing NumPy's version of the case once (same data as bench.c)."""
    rng = np.random.default_rng(1)

    def f32(*shape):
        return rng.random(shape, dtype=np.float32)

    if name == "copy":
        a, out = f32(64 * MIB), np.zeros(64 * MIB, np.float32)
        return lambda: np.copyto(out, a)
    if name == "transpose":
        a, out = f32(8192, 8192), np.zeros((8192, 8192), np.float32)
        return lambda: np.copyto(out, a.T)  # ascontiguousarray(a.T) without the allocation
    if name == "permute":
        a, out = f32(512, 512, 256), np.zeros((256, 512, 512), np.float32)
        return lambda: np.copyto(out, a.transpose(2, 0, 1))
    if name == "slice2":
        a, out = f32(8192, 8192), np.zeros((8192, 4096), np.float32)
        return lambda: np.copyto(out, a[:, ::2])
    if name == "cast64to32":
        a, out = rng.random(32 * MIB), np.zeros(32 * MIB, np.float32)
        return lambda: np.copyto(out, a, casting="same_kind")  # astype without the allocation
    if name == "bf16roundtrip":
        return None  # NumPy has no bfloat16
    if name in ("sum", "max", "argmax"):
        a = f32(64 * MIB)
        return {"sum": a.sum, "max": a.max, "argmax": a.argmax}[name]
    if name in ("sum_dim1", "sum_dim2"):
        a = f32(8192, 8192)
        axis = 0 if name == "sum_dim1" else 1
        return lambda: a.sum(axis=axis)
    raise ValueError(name)


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


class CSide:
    def __init__(self, exe):
        self.proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().split()
        if not answer:
            sys.exit("bench: the C side stopped")
        return answer

    def close(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.wait()


def ratio_text(ours, theirs, minimum):
    r = theirs / ours
    return f"{r:.2f} (>= {minimum:g}) {'ok' if r >= minimum else 'MISSED'}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("exe", help="the built bench/bench.c")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--cases", default="", help="comma-separated subset")
    args = parser.parse_args()
    wanted = set(filter(None, args.cases.split(",")))
    c_side = CSide(args.exe)
    print(f"| case | dlx ms | NumPy ms | C ref ms | dlx GB/s | bars (ratio = other time / dlx time) |")
    print("|---|---:|---:|---:|---:|---|")
    for name, what, nbytes, bars in CASES:
        if wanted and name not in wanted:
            continue
        c_side.ask(f"setup {name}")
        np_fn = numpy_case(name)
        # One untimed round: faults in NumPy's zeroed (lazily mapped) outputs, warms the caches.
        c_side.ask(f"run {name} dlx")
        if np_fn is not None:
            np_fn()
        t_dlx, t_np, t_ref, rel = [], [], [], None
        for _ in range(args.reps):
            answer = c_side.ask(f"run {name} dlx")
            t_dlx.append(float(answer[0]))
            if float(answer[1]) >= 0:
                rel = float(answer[1])
            if np_fn is not None:
                t_np.append(timed(np_fn))
            t_ref.append(float(c_side.ask(f"run {name} ref")[0]))
        np_fn = None
        med = {"dlx": statistics.median(t_dlx), "ref": statistics.median(t_ref),
               "numpy": statistics.median(t_np) if t_np else None}
        notes = []
        for against, minimum in bars:
            label = "memcpy" if against == "ref" and not name.startswith("sum") else against
            label = "read" if against == "ref" and name.startswith("sum") else label
            if med[against] is None:
                notes.append(f"vs {label}: n/a")
            else:
                notes.append(f"vs {label} {ratio_text(med['dlx'], med[against], minimum)}")
        if rel is not None:
            verdict = "ok" if rel <= SUM_REL_ERROR_BAR else "MISSED"
            notes.append(f"rel. error {rel:.1e} (<= 1e-6) {verdict}")
        np_ms = f"{1e3 * med['numpy']:.1f}" if med["numpy"] is not None else "n/a"
        print(f"| {what} | {1e3 * med['dlx']:.1f} | {np_ms} | {1e3 * med['ref']:.1f} | "
              f"{nbytes / med['dlx'] / 1e9:.1f} | {'; '.join(notes)} |", flush=True)
    c_side.close()


if __name__ == "__main__":
    main()
