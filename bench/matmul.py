"""matmul: dlx's matrix products against NumPy 2 and PyTorch 2 from pip, on 2 threads.

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times every case, in rounds that interleave
the cases, each round starting at the next case (PyTorch leaves its OpenMP workers spinning
after a call, which slows whatever runs next on a loaded machine); the table shows medians and
the ratio reference / case (higher is faster for the case). The batches of small matrices run
5 x --rounds rounds (at least 15). Every library uses 2 threads (NumPy's OpenBLAS through
threadpoolctl, torch and dlx by their set_num_threads). The peak float32 rate is measured in the
same run by bench/fma_peak.c (a plain FMA loop on every thread), not quoted. Goals (issue "Linear
algebra on every device"): float32 4096^2 >= 1.0 x NumPy and >= 0.9 x torch; 100,000 4x4
float32 products >= 2 x torch.bmm and >= 2 x NumPy's matmul, and the same aimed at for 100,000
3x3 and 6x6 (each also with `a` a transposed view); one 4x4 a:matmul(b) from Lua <= 1.0 x
NumPy's a @ b per call.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE DLX_LIBRARY=build/libdlx.so \\
        <venv>/bin/python bench/matmul.py [--rounds 3] [--cases f32,f64,bmm,call]

(OPENBLAS_CORETYPE pins old OpenBLAS builds to a kernel on some processors; a current NumPy
needs it unset. It then applies to dlx's OpenBLAS in this process too: the header says which
kernel each library runs.)
"""
import argparse
import os
import subprocess
import tempfile
import time

import numpy as np
import torch
from threadpoolctl import threadpool_info, threadpool_limits

import harness

THREADS = 2


def fma_peak():
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fma_peak.c")
    exe = os.path.join(tempfile.mkdtemp(), "fma_peak")
    subprocess.run(["cc", "-O3", "-march=native", "-pthread", src, "-o", exe], check=True)
    gflops, bits, _ = subprocess.run([exe, str(THREADS)], capture_output=True, text=True,
                                     check=True).stdout.split()
    return float(gflops), int(bits) // 32


def per_call(fn, calls):
    t0 = time.perf_counter()
    fn(calls)
    return (time.perf_counter() - t0) / calls


def small_batch(lua, rng, n, rounds):
    """100,000 n x n float32 products, b packed, a packed and then a transposed view."""
    count = 100000
    a = rng.standard_normal((count, n, n)).astype("float32")
    b = rng.standard_normal((count, n, n)).astype("float32")
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    lua.eval("A = dlx.from_dlpack(...)", a)
    lua.eval("B = dlx.from_dlpack(...)", b)
    lua.load_string("BMM = function() return dlx.matmul(A, B).numel end")
    lua.load_string("BMM_T = function() return dlx.matmul(A:transpose(2, 3), B).numel end")
    at, tat = a.transpose(0, 2, 1), ta.transpose(1, 2)
    for layout, cases in (
            ("", [("torch.bmm (reference)", lambda: torch.bmm(ta, tb)),
                  ("NumPy np.matmul", lambda: np.matmul(a, b)),
                  ("dlx dlx.matmul(A, B)", lambda: lua.eval("return BMM()"))]),
            (", a transposed", [
                ("torch.bmm (reference)", lambda: torch.bmm(tat, tb)),
                ("NumPy np.matmul", lambda: np.matmul(at, b)),
                ("dlx dlx.matmul(A:transpose(2, 3), B)", lambda: lua.eval("return BMM_T()"))])):
        med = harness.measure(cases, rounds, rotate=True)
        print("\n%d products of %dx%d float32%s" % (count, n, n, layout))
        harness.print_table(cases, med, "torch.bmm / case", digits=2)
        print("dlx vs torch.bmm %.1f x, vs NumPy %.1f x (goal >= 2 x both)"
              % (med[0] / med[2], med[1] / med[2]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cases", default="f32,f64,bmm,call",
                        help="f32: float32 4096^2, f64: float64 2048^2, bmm: 100,000 3x3, 4x4 "
                        "and 6x6, call: one 4x4 from Lua")
    args = parser.parse_args()
    cases_wanted = set(args.cases.split(","))
    torch.set_num_threads(THREADS)
    lua = harness.lua_state(seed=1)
    lua.eval("dlx.set_num_threads(...)", THREADS)
    model = open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].split("\n")[0]
    harness.print_machine(lua, "model %s" % model.strip())
    blas = [(i["internal_api"], i.get("version"), i.get("architecture")) for i in threadpool_info()
            if i["user_api"] == "blas"]
    print("BLAS libraries in this process (NumPy's, dlx's): %s; OPENBLAS_CORETYPE=%s, "
          "OPENBLAS_L2_SIZE=%s" % (blas, os.environ.get("OPENBLAS_CORETYPE"),
                                   os.environ.get("OPENBLAS_L2_SIZE")))
    peak, lanes = fma_peak()
    print("float32 peak by an FMA loop on %d threads: %.1f GFLOP/s (%d lanes)"
          % (THREADS, peak, lanes))

    rng = np.random.default_rng(1)
    with threadpool_limits(THREADS):
        for n, dtype, name in ((4096, "float32", "f32"), (2048, "float64", "f64")):
            if name not in cases_wanted:
                continue
            a = rng.standard_normal((n, n)).astype(dtype)
            b = rng.standard_normal((n, n)).astype(dtype)
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            lua.eval("A = dlx.from_dlpack(...)", a)
            lua.eval("B = dlx.from_dlpack(...)", b)
            lua.load_string("MM = function() return A:matmul(B).numel end")
            cases = [("NumPy a @ b (reference)", lambda: a @ b),
                     ("torch.mm", lambda: torch.mm(ta, tb)),
                     ("dlx A:matmul(B)", lambda: lua.eval("return MM()"))]
            med = harness.measure(cases, args.rounds,
                                  after=lambda: lua.eval("collectgarbage()"), rotate=True)
            flops = 2.0 * n ** 3
            print("\n%s %d^2 (%.1f GFLOP each)" % (dtype, n, flops / 1e9))
            harness.print_table(cases, med, "NumPy / case", columns=[
                ("GFLOP/s", lambda m: "%.1f" % (flops / m / 1e9)),
                ("of fp32 peak", lambda m: "%.0f%%" % (100 * flops / m / 1e9 / peak))])

        if "bmm" in cases_wanted:
            for n in (3, 4, 6):
                small_batch(lua, rng, n, max(5 * args.rounds, 15))

        if "call" in cases_wanted:
            x = rng.standard_normal((4, 4)).astype("float32")
            y = rng.standard_normal((4, 4)).astype("float32")
            lua.eval("X = dlx.from_dlpack(...)", x)
            lua.eval("Y = dlx.from_dlpack(...)", y)
            lua.load_string("LOOP = function(n) local r for _ = 1, n do r = X:matmul(Y) end "
                            "return r.numel end")

            def numpy_loop(n):
                for _ in range(n):
                    x @ y

            calls = 200000
            times = {"numpy": [], "dlx": []}
            for _ in range(5):
                times["numpy"].append(per_call(numpy_loop, calls))
                times["dlx"].append(per_call(lambda n: lua.eval("return LOOP(...)", n), calls))
            np_call, dlx_call = (sorted(times[k])[2] for k in ("numpy", "dlx"))
            print("\none 4x4 float32 product per call: NumPy a @ b %.0f ns, dlx a:matmul(b) "
                  "from Lua %.0f ns (dlx / NumPy %.2f; goal <= 1.0)"
                  % (np_call * 1e9, dlx_call * 1e9, dlx_call / np_call))
    lua.close()


if __name__ == "__main__":
    main()
