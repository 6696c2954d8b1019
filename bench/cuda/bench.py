#!/usr/bin/env python3
"""bench/cuda/bench.py -- dlx's CUDA backend against plain CUDA, CUB and PyTorch, in one run.

Run on a GPU machine from the carried directory (tools/carry.sh; needs PyTorch and nvcc):
    LD_LIBRARY_PATH=$PWD python3 bench/cuda/bench.py [--mib 256] [--reps 20]
It builds bench/cuda/reference.cu with nvcc when needed, then prints one table: each line a
measurement in GB/s, the reference's, the ratio and its target ratio. Every side is timed
the same way: wall clock around `reps` calls then a device synchronisation, best of 5 runs.
Copies count the bytes moved once; a transpose counts them once too (as the d2d copy does).
"""
import argparse
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # dlx_lua.py, at the carry's root
import torch  # noqa: E402
from dlx_lua import DlxLua  # noqa: E402


def best_seconds(fn, reps):
    best = float("inf")
    for _ in range(5):
        torch.cuda.synchronize()
        start = time.perf_counter()
        fn(reps)
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - start) / reps)
    return best


def reference(mib, reps):
    exe = os.path.join(HERE, "reference")
    if not os.path.exists(exe):
        nvcc = os.environ.get("NVCC", "nvcc")
        if subprocess.call(["which", nvcc], stdout=subprocess.DEVNULL) != 0:
            nvcc = "/usr/local/cuda/bin/nvcc"
        subprocess.check_call([nvcc, "-O3", "-std=c++17", "-arch=native",
                               os.path.join(HERE, "reference.cu"), "-o", exe])
    out = subprocess.check_output([exe, str(mib), str(reps)], text=True)
    return {k: float(v) for k, v in (line.split() for line in out.splitlines())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    mib, reps = args.mib, args.reps
    nbytes = mib << 20
    n = nbytes // 4
    ref = reference(mib, reps)
    lua = DlxLua()

    def dlx_time(setup, body, count=reps):
        lua.run(setup)
        return best_seconds(lambda r: lua.run(
            f"for _ = 1, {r} do {body} end dlx.cuda.synchronize()"), count)

    def gbps(seconds, moved=nbytes):
        return moved / seconds / 1e9

    rows = []

    def row(name, value, ref_name, ref_value, target, at_least=True):
        ratio = value / ref_value
        ok = ratio >= target if at_least else ratio > target
        rows.append((name, value, ref_name, ref_value, ratio,
                     (">= " if at_least else "> ") + f"{target:.2f}", "ok" if ok else "BELOW"))

    cuda = "{device = 'cuda'}"
    # device to device copy vs cudaMemcpyAsync
    d2d = gbps(dlx_time(f"a = dlx.zeros({{{n}}}, {cuda}); b = dlx.empty({{{n}}}, {cuda})",
                        "b:copy_(a)"))
    row("d2d copy", d2d, "cudaMemcpyAsync", ref["d2d_memcpy"], 0.90)
    # pinned host <-> device vs cudaMemcpy
    pinned = "{device = 'cuda_host'}"
    h2d = gbps(dlx_time(f"h = dlx.zeros({{{n}}}, {pinned})", "b:copy_(h)", reps // 4 + 1))
    d2h = gbps(dlx_time("", "h:copy_(b)", reps // 4 + 1))
    row("pinned h2d", h2d, "cudaMemcpy", ref["h2d_pinned_memcpy"], 0.90)
    row("pinned d2h", d2h, "cudaMemcpy", ref["d2h_pinned_memcpy"], 0.90)
    lua.run("a, b, h = nil, nil, nil; collectgarbage(); dlx.cuda.empty_cache()")

    # 8192 x 8192 float32 transpose copy vs the d2d copy bandwidth and torch
    side = 8192
    sq_bytes = side * side * 4
    lua.run(f"x = dlx.ones({{{side}, {side}}}, {cuda}); y = dlx.empty({{{side}, {side}}}, {cuda})")
    tr = gbps(dlx_time("", "y:copy_(x:transpose(1, 2))"), sq_bytes)
    tr_new = gbps(dlx_time("", "x:transpose(1, 2):contiguous()"), sq_bytes)
    xt = torch.ones(side, side, device="cuda")
    torch_tr = gbps(best_seconds(lambda r: [xt.t().contiguous() for _ in range(r)], reps), sq_bytes)
    row("transpose 8192^2 f32", tr, "dlx d2d copy", d2d, 0.75)
    row("transpose (new tensor)", tr_new, "torch t().contiguous()", torch_tr, 1.0, False)

    # full sum vs CUB alone and torch.sum; sums over each dim vs torch.sum(dim)
    lua.run(f"s = dlx.ones({{{n}}}, {cuda})")
    full = gbps(dlx_time("", "s:sum()"))
    xs = torch.ones(n, device="cuda")
    torch_full = gbps(best_seconds(lambda r: [torch.sum(xs) for _ in range(r)], reps))
    row("full sum f32", full, "CUB DeviceReduce::Sum", ref["cub_sum"], 0.95)
    row("full sum f32", full, "torch.sum", torch_full, 1.0, False)
    for dim in (1, 2):
        ours = gbps(dlx_time("", f"x:sum({dim})"), sq_bytes)
        theirs = gbps(best_seconds(lambda r: [torch.sum(xt, dim - 1) for _ in range(r)], reps),
                      sq_bytes)
        row(f"sum over dim {dim} 8192^2", ours, f"torch.sum(dim={dim - 1})", theirs, 1.0)

    # var over the rows of 8192^2 (read once) and softmax over the rows of 4096^2 (read and
    # written once) vs torch
    ours = gbps(dlx_time("", "x:var(2)"), sq_bytes)
    theirs = gbps(best_seconds(lambda r: [torch.var(xt, 1) for _ in range(r)], reps), sq_bytes)
    row("var over dim 2 8192^2", ours, "torch.var(dim=1)", theirs, 1.0)
    lua.run("x, y = nil, nil; collectgarbage(); dlx.cuda.empty_cache()")
    side = 4096
    lua.run(f"m = dlx.ones({{{side}, {side}}}, {cuda})")
    mt = torch.ones(side, side, device="cuda")
    moved = 2 * side * side * 4
    ours = gbps(dlx_time("", "dlx.softmax(m, 2)"), moved)
    theirs = gbps(best_seconds(lambda r: [torch.softmax(mt, 1) for _ in range(r)], reps), moved)
    row("softmax rows 4096^2 f32", ours, "torch.softmax(dim=1)", theirs, 1.0)

    print(f"dlx CUDA benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__} "
          f"(CUDA {torch.version.cuda}); host {platform.node()}; {mib} MiB buffers, {reps} reps")
    print(f"{'measurement':26} {'dlx GB/s':>10}  {'reference':26} {'GB/s':>10} {'ratio':>7}"
          f"  {'target':8} verdict")
    for name, value, ref_name, ref_value, ratio, target, verdict in rows:
        print(f"{name:26} {value:10.1f}  {ref_name:26} {ref_value:10.1f} {ratio:7.3f}"
              f"  {target:8} {verdict}")
    return 0 if all(r[-1] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
