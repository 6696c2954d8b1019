"""linalg: dlx.linalg's decompositions against NumPy 2 and PyTorch 2 (torch.linalg).

Four goals of the issue "Linear algebra on every device", each dlx >= 0.9 x the faster of NumPy
and PyTorch: linalg.solve of a 1024 x 1024 float64 system (one right-hand side), cholesky of
10,000 batched 8 x 8 float64 matrices, svd of a 512 x 512 float32 matrix (full matrices, as all
three default to), eigh of a 512 x 512 float64 matrix. And batches of small matrices (the
issue's robotics sizes), dlx >= 1.0 x the faster peer: inv, solve (one right-hand side each) and
det of 100,000 3 x 3 and of 100,000 4 x 4 float64 matrices. Every library gets the same matrices
(made by NumPy, handed to dlx through DLPack) and 2 threads (dlx's pool and dlx's OpenBLAS,
torch.set_num_threads, NumPy's OpenBLAS through threadpoolctl). dlx runs in a Lua state inside
this process (examples/python/dlx_host.py), so one wall clock times every case, in rounds that
interleave the cases; the table shows medians and the ratio of the faster peer to each case.

The BLAS and LAPACK each library runs, and the kernel each OpenBLAS chose, are printed
(threadpoolctl). Where the environment sets OPENBLAS_CORETYPE or OPENBLAS_L2_SIZE, run this
script without them (`env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE`) so that NumPy's OpenBLAS
picks its kernel for the machine, as it does for its users.

    DLX_LIBRARY=build/libdlx.so python3 bench/linalg.py [--rounds 7] [--threads 2]
        [--cases goals,small]
"""
import argparse
import os
import subprocess

import numpy as np
import torch
from threadpoolctl import threadpool_info, threadpool_limits

import harness


def model_name():
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "?"


def inputs(rng):
    """The matrices of the four goals, in NumPy."""
    a = rng.standard_normal((1024, 1024))  # a random system
    b = rng.standard_normal(1024)
    g = rng.standard_normal((10000, 8, 8))
    spd = g @ g.transpose(0, 2, 1) + 8 * np.eye(8)
    x = rng.standard_normal((512, 512)).astype(np.float32)
    h = rng.standard_normal((512, 512))
    h = h + h.T
    out = {"A": a, "b": b, "S": spd, "X": x, "H": h}
    for n in (3, 4):  # well conditioned: a random part plus n on the diagonal
        out["M%d" % n] = rng.standard_normal((100000, n, n)) + n * np.eye(n)
        out["R%d" % n] = rng.standard_normal((100000, n, 1))
    return out


LUA = """
SOLVE = function() return dlx.linalg.solve(A, b).numel end
CHOLESKY = function() return dlx.linalg.cholesky(S).numel end
SVD = function() local u, s, vh = dlx.linalg.svd(X); return u.numel + s.numel + vh.numel end
EIGH = function() local w, v = dlx.linalg.eigh(H); return w.numel + v.numel end
INV3 = function() return dlx.linalg.inv(M3).numel end
INV4 = function() return dlx.linalg.inv(M4).numel end
SOLVE3 = function() return dlx.linalg.solve(M3, R3).numel end
SOLVE4 = function() return dlx.linalg.solve(M4, R4).numel end
DET3 = function() return dlx.linalg.det(M3).numel end
DET4 = function() return dlx.linalg.det(M4).numel end
"""


def blas_lines():
    out = []
    for lib in threadpool_info():
        out.append("  %s %s (%s): %s threads, %s" % (
            lib.get("internal_api"), lib.get("version"), os.path.basename(lib.get("filepath", "")),
            lib.get("num_threads"), lib.get("architecture", lib.get("threading_layer", ""))))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cases", default="goals,small",
                        help="goals: the four goals; small: batches of 3 x 3 and 4 x 4")
    args = parser.parse_args()
    wanted = set(args.cases.split(","))
    torch.set_num_threads(args.threads)
    lua = harness.lua_state()
    lua.eval("dlx.set_num_threads(...)", args.threads)
    data = inputs(np.random.default_rng(1))
    for name, array in data.items():
        lua.eval(name + " = dlx.from_dlpack(...):clone()", array)
    lua.load_string(LUA)
    t = {name: torch.from_numpy(array) for name, array in data.items()}
    print("cpu: %s; OPENBLAS_CORETYPE=%s, OPENBLAS_L2_SIZE=%s" % (
        model_name(), os.environ.get("OPENBLAS_CORETYPE", "(unset)"),
        os.environ.get("OPENBLAS_L2_SIZE", "(unset)")))
    harness.print_machine(lua, "%d threads each" % args.threads)
    goals = []
    if "goals" in wanted:
        goals += [
            ("solve 1024² float64", lambda: np.linalg.solve(data["A"], data["b"]),
             lambda: torch.linalg.solve(t["A"], t["b"]), "SOLVE", 0.9),
            ("cholesky 10,000 × 8² float64", lambda: np.linalg.cholesky(data["S"]),
             lambda: torch.linalg.cholesky(t["S"]), "CHOLESKY", 0.9),
            ("svd 512² float32", lambda: np.linalg.svd(data["X"]),
             lambda: torch.linalg.svd(t["X"]), "SVD", 0.9),
            ("eigh 512² float64", lambda: np.linalg.eigh(data["H"]),
             lambda: torch.linalg.eigh(t["H"]), "EIGH", 0.9),
        ]
    for n in (3, 4) if "small" in wanted else ():
        m, r = "M%d" % n, "R%d" % n
        goals += [
            ("inv 100,000 × %d² float64" % n, lambda m=m: np.linalg.inv(data[m]),
             lambda m=m: torch.linalg.inv(t[m]), "INV%d" % n, 1.0),
            ("solve 100,000 × %d² float64" % n, lambda m=m, r=r: np.linalg.solve(data[m], data[r]),
             lambda m=m, r=r: torch.linalg.solve(t[m], t[r]), "SOLVE%d" % n, 1.0),
            ("det 100,000 × %d² float64" % n, lambda m=m: np.linalg.det(data[m]),
             lambda m=m: torch.linalg.det(t[m]), "DET%d" % n, 1.0),
        ]
    cases = []
    for name, np_fn, torch_fn, lua_fn, _ in goals:
        cases.append(("%s: NumPy" % name, np_fn))
        cases.append(("%s: PyTorch" % name, torch_fn))
        cases.append(("%s: dlx" % name, lambda f=lua_fn: lua.eval("return %s()" % f)))
    with threadpool_limits(limits=args.threads):
        print("BLAS and LAPACK in this process (threadpoolctl):")
        print("\n".join(blas_lines()))
        for _, fn in cases:  # warm up: first calls, workspaces, thread pools
            fn()
        medians = harness.measure(cases, args.rounds,
                                  after=lambda: lua.eval("collectgarbage(); collectgarbage()"))
    lua.close()
    print("load average after: %.2f" % os.getloadavg()[0])
    print("| goal | NumPy | PyTorch | dlx | faster peer / dlx | goal |")
    print("|---|---|---|---|---|---|")
    for g, (name, _, _, _, bar) in enumerate(goals):
        n, p, d = medians[3 * g: 3 * g + 3]
        print("| %s | %.2f ms | %.2f ms | %.2f ms | %.2f | >= %.1f: %s |" % (
            name, n * 1e3, p * 1e3, d * 1e3, min(n, p) / d, bar,
            "met" if min(n, p) / d >= bar else "NOT MET"))


if __name__ == "__main__":
    main()
