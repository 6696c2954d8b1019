#!/usr/bin/env python3
"""bench/cuda/bench.py -- dlx's CUDA backend against the GPU's peak bandwidth, CUB and PyTorch
(and CuPy, for information) on the same GPU, in one run, as one table with the goals of the
issue "First contact with a real GPU":

    d2d copy                          >= 0.9 x the peak (a plain cudaMemcpyAsync device to device)
    transpose                         >= 0.7 x the peak
    sum, max of 256 Mi float32        >= 0.95 x CUB's DeviceReduce, >= 1.0 x torch
    add, exp, where of 64 Mi float32  >= 1.0 x torch
    sort of 16 Mi float32             >= 0.9 x torch
    rand, randn of 64 Mi float32      >= 1.0 x torch
    index_select, masked_select 16 Mi >= 1.0 x torch
    matmul 8192^2 float32             >= 0.95 x torch.matmul (cuBLAS on both sides, no TF32)
    bmm of 100,000 4x4 float32        >= 1.0 x torch.bmm
    exchange, per call                <= 1.0 x torch.from_dlpack(torch tensor): from_dlpack of a
                                      torch CUDA tensor with its stream into dlx, and back

tools/gpu-check run runs it (step bench); by hand, from the repository root, with a carry made by
tools/gpu-check pack (needs PyTorch; CuPy is optional; nvcc when the carry has no
bench-reference):
    DLX_CARRY=$PWD/gpu-carry python3 bench/cuda/bench.py [--out bench.txt] [--quick]

The ratio is speed over the reference's (reference time / dlx time: higher is better), but for
the exchange rows, where it is dlx's time over torch's (lower is better). Every side is timed
the same way: a warm-up, then the wall clock around `reps` calls followed by a device
synchronisation (reps chosen so that a run lasts 20 ms or more), the median of 7 runs. dlx's
side is a Lua loop run through tools/dlx_lua.py; the inputs are random (made by torch and shared
with dlx and CuPy through DLPack, so every side works on the same bytes), and each dlx result is
checked against torch's. GB/s count the bytes read and written once.
Exit status: 0 when every goal is met, 1 when one is missed (or a result is wrong), 2 when the
benchmark itself failed, 77 when there is no CUDA device.
"""
import argparse
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "tools"), ROOT]  # dlx_lua.py: in tools/, or beside a carry
from dlx_lua import DlxLua, default_libdir  # noqa: E402

SKIPPED = 77
MI = 1 << 20
RUNS = 7
MIN_RUN_SECONDS = 0.02


def median_seconds(fn, sync):
    """Seconds per call of fn(reps) (which makes `reps` calls), timed as the module says."""
    fn(1)
    sync()
    start = time.perf_counter()
    fn(1)
    sync()
    once = max(time.perf_counter() - start, 1e-6)
    reps = max(1, min(2000, math.ceil(MIN_RUN_SECONDS / once)))
    runs = []
    for _ in range(RUNS):
        sync()
        start = time.perf_counter()
        fn(reps)
        sync()
        runs.append((time.perf_counter() - start) / reps)
    return statistics.median(runs)


def reference_times(copy_bytes, reduce_count):
    exe = os.path.join(default_libdir(), "bench-reference")
    if not os.path.exists(exe):
        exe = os.path.join(tempfile.mkdtemp(prefix="dlx-bench-"), "reference")
        nvcc = os.environ.get("NVCC", "nvcc")
        if subprocess.call(["sh", "-c", f"command -v {nvcc}"], stdout=subprocess.DEVNULL) != 0:
            nvcc = "/usr/local/cuda/bin/nvcc"
        print(f"building the reference with {nvcc} (the carry has no bench-reference)", flush=True)
        subprocess.check_call([nvcc, "-O3", "-std=c++17", "-arch=native",
                               os.path.join(HERE, "reference.cu"), "-o", exe])
    out = subprocess.check_output([exe, str(copy_bytes), str(reduce_count), "20"], text=True)
    return {k: float(v) for k, v in (line.split() for line in out.splitlines())}


class Table:
    def __init__(self):
        self.rows = []

    def add(self, name, dlx_s, ref_name, ref_s, goal, *, lower=False, moved=None, cupy_s=None,
            correct=True):
        """A row: ratio = ref/dlx (speed, at least `goal`), or dlx/ref with lower=True (at most
        `goal`); goal None is a row for information. moved: bytes read and written (GB/s)."""
        ratio = (dlx_s / ref_s) if lower else (ref_s / dlx_s)
        if not correct:
            verdict = "WRONG"
        elif goal is None:
            verdict = "info"
        else:
            verdict = "PASS" if (ratio <= goal if lower else ratio >= goal) else "FAIL"
        goal_text = "-" if goal is None else ("<= " if lower else ">= ") + f"{goal:g}"
        self.rows.append(dict(name=name, dlx=dlx_s, ref_name=ref_name, ref=ref_s, ratio=ratio,
                              goal=goal_text, verdict=verdict, moved=moved, cupy=cupy_s))

    def error(self, name, ref_name, goal, message):
        self.rows.append(dict(name=name, dlx=None, ref_name=ref_name, ref=None, ratio=None,
                              goal=f">= {goal:g}", verdict="ERROR", moved=None, cupy=None,
                              message=message))

    def lines(self):
        def t(s):
            if s is None:
                return "-"
            return f"{s * 1e6:.2f} us" if s < 1e-3 else f"{s * 1e3:.3f} ms"

        out = [f"{'measurement':30} {'dlx':>11} {'GB/s':>7}  {'reference':27} {'ref':>11} "
               f"{'ratio':>6} {'goal':>7} {'verdict':7} {'cupy':>11}"]
        for r in self.rows:
            gbps = f"{r['moved'] / r['dlx'] / 1e9:7.0f}" if r["moved"] and r["dlx"] else " " * 7
            ratio = f"{r['ratio']:6.3f}" if r["ratio"] is not None else "     -"
            out.append(f"{r['name']:30} {t(r['dlx']):>11} {gbps}  {r['ref_name']:27} "
                       f"{t(r['ref']):>11} {ratio} {r['goal']:>7} {r['verdict']:7} "
                       f"{t(r['cupy']):>11}")
            if r.get("message"):
                out.append(f"    {r['message']}")
        return out

    def counts(self):
        c = {}
        for r in self.rows:
            c[r["verdict"]] = c.get(r["verdict"], 0) + 1
        return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="write the table (and the header) to this file too")
    ap.add_argument("--quick", action="store_true", help="sizes divided by 16 (a trial run)")
    args = ap.parse_args()
    scale = 16 if args.quick else 1

    lua = DlxLua()
    if int(lua.run("return dlx.cuda.device_count()")) == 0:
        print("SKIP: no CUDA device visible to dlx (dlx.cuda.is_built() = "
              f"{lua.run('return tostring(dlx.cuda.is_built())')})")
        return SKIPPED
    try:
        import torch
    except ImportError as e:
        print(f"SKIP: PyTorch is not installed ({e})")
        return SKIPPED
    try:
        import cupy
    except ImportError:
        cupy = None

    n_copy = 64 * MI // scale  # float32: 256 MiB
    side = 8192 // int(math.sqrt(scale))  # 8192^2 float32: 256 MiB
    n_reduce = 256 * MI // scale
    n_ew = 64 * MI // scale
    n_sort = 16 * MI // scale
    n_index = 16 * MI // scale

    ref = reference_times(n_copy * 4, n_reduce)
    peak_s = ref["d2d_memcpy"]
    table = Table()
    sync = torch.cuda.synchronize

    def dlx_time(body, setup=""):
        if setup:
            lua.run(setup)
        return median_seconds(lambda r: lua.run(
            f"for _ = 1, {r} do local _ = {body} end dlx.cuda.synchronize()"), sync)

    def loop(fn):
        def run(r):
            for _ in range(r):
                fn()
        return median_seconds(run, sync)

    def share(name, tensor):
        """tensor into Lua (global `name`) and CuPy, zero-copy: the same bytes everywhere."""
        lua.set_tensor(name, tensor, stream=1)
        return cupy.from_dlpack(tensor) if cupy is not None else None

    def back(name):
        return torch.from_dlpack(lua.tensor(name))

    def cupy_time(fn):
        return loop(fn) if cupy is not None else None

    def free():
        lua.run("collectgarbage(); collectgarbage(); dlx.cuda.empty_cache()")
        torch.cuda.empty_cache()
        if cupy is not None:
            cupy.get_default_memory_pool().free_all_blocks()

    def guarded(name, ref_name, goal, fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 -- one row's failure must not hide the others
            traceback.print_exc()
            table.error(name, ref_name, goal, f"{type(e).__name__}: {str(e).splitlines()[0]}")
        free()

    gen = torch.Generator(device="cuda").manual_seed(1234)

    def rand(*shape):
        return torch.rand(*shape, device="cuda", generator=gen)

    # ---- copies: against the peak (a plain device-to-device cudaMemcpyAsync) ----
    def copies():
        a, b = rand(n_copy), torch.empty(n_copy, device="cuda")
        ca, cb = share("a", a), share("b", b)
        d2d = dlx_time("b:copy_(a)")
        sync()
        ok = torch.equal(a, b)
        table.add("d2d copy 256 MiB f32", d2d, "cudaMemcpyAsync d2d (peak)", peak_s, 0.9,
                  moved=8 * n_copy, correct=ok, cupy_s=cupy_time(lambda: cb.__setitem__(
                      slice(None), ca)))
        table.add("  torch copy_ (for reference)", loop(lambda: b.copy_(a)),
                  "cudaMemcpyAsync d2d (peak)", peak_s, None, moved=8 * n_copy)
        del a, b, ca, cb
        lua.run("a, b = nil, nil")

    guarded("d2d copy 256 MiB f32", "cudaMemcpyAsync d2d (peak)", 0.9, copies)

    def transpose():
        x, y = rand(side, side), torch.empty(side, side, device="cuda")
        cx, cy = share("x", x), share("y", y)
        tr = dlx_time("y:copy_(x:transpose(1, 2))")
        sync()
        ok = torch.equal(y, x.t())
        table.add(f"transpose {side}^2 f32", tr, "cudaMemcpyAsync d2d (peak)",
                  peak_s * (side * side) / n_copy, 0.7, moved=8 * side * side, correct=ok,
                  cupy_s=cupy_time(lambda: cy.__setitem__(slice(None), cx.T)))
        table.add("  torch transpose (for ref.)", loop(lambda: y.copy_(x.t())),
                  "cudaMemcpyAsync d2d (peak)", peak_s * (side * side) / n_copy, None,
                  moved=8 * side * side)
        del x, y, cx, cy
        lua.run("x, y = nil, nil")

    guarded(f"transpose {side}^2 f32", "cudaMemcpyAsync d2d (peak)", 0.7, transpose)

    # ---- full reductions of 256 Mi float32: CUB alone and torch ----
    def reductions():
        s = rand(n_reduce)
        cs = share("s", s)
        for op, cub_name, torch_fn in (("sum", "cub_sum", torch.sum), ("max", "cub_max",
                                                                        torch.amax)):
            ours = dlx_time(f"s:{op}()")
            expect = torch_fn(s)
            got = float(lua.run(f"return s:{op}():item()"))
            ok = math.isclose(got, expect.item(), rel_tol=1e-4 if op == "sum" else 0.0)
            cupy_s = cupy_time(lambda: getattr(cs, op)())
            table.add(f"{op} 256 Mi f32", ours, f"CUB DeviceReduce::{op.capitalize()}",
                      ref[cub_name], 0.95, moved=4 * n_reduce, correct=ok, cupy_s=cupy_s)
            table.add(f"{op} 256 Mi f32", ours, f"torch.{torch_fn.__name__}",
                      loop(lambda: torch_fn(s)), 1.0, moved=4 * n_reduce, correct=ok,
                      cupy_s=cupy_s)
        del s, cs
        lua.run("s = nil")

    guarded("sum, max 256 Mi f32", "CUB / torch", 1.0, reductions)

    # ---- elementwise ops of 64 Mi float32 ----
    def elementwise():
        a, b = rand(n_ew), rand(n_ew)
        m = rand(n_ew) < 0.5
        ca, cb, cm = share("a", a), share("b", b), share("m", m)
        cases = (
            ("add", "a + b", lambda: a + b, lambda: ca + cb, 12, True),
            ("exp", "a:exp()", lambda: torch.exp(a), lambda: cupy.exp(ca), 8, False),
            ("where", "dlx.where(m, a, b)", lambda: torch.where(m, a, b),
             lambda: cupy.where(cm, ca, cb), 13, True),
        )
        for name, body, torch_fn, cupy_fn, bytes_per, exact in cases:
            ours = dlx_time(body)
            lua.run(f"r = {body}")
            got, expect = back("r"), torch_fn()
            ok = torch.equal(got, expect) if exact else torch.allclose(got, expect, rtol=1e-6,
                                                                       atol=0)
            table.add(f"{name} 64 Mi f32", ours, f"torch.{name}", loop(torch_fn), 1.0,
                      moved=bytes_per * n_ew, correct=ok,
                      cupy_s=cupy_time(cupy_fn) if cupy is not None else None)
            lua.run("r = nil")
        del a, b, m, ca, cb, cm
        lua.run("a, b, m = nil, nil, nil")

    guarded("add, exp, where 64 Mi f32", "torch", 1.0, elementwise)

    # ---- sort of 16 Mi float32 (values and int64 positions on both sides) ----
    def sort():
        v = rand(n_sort)
        cv = share("v", v)
        ours = dlx_time("v:sort()")
        lua.run("sv = v:sort()")
        ok = torch.equal(back("sv"), torch.sort(v).values)
        table.add("sort 16 Mi f32", ours, "torch.sort", loop(lambda: torch.sort(v)), 0.9,
                  correct=ok, cupy_s=cupy_time(lambda: cupy.sort(cv)))
        del v, cv
        lua.run("v, sv = nil, nil")

    guarded("sort 16 Mi f32", "torch.sort", 0.9, sort)

    # ---- random numbers, 64 Mi float32 ----
    def random():
        for name, torch_fn in (("rand", torch.rand), ("randn", torch.randn)):
            ours = dlx_time(f"dlx.{name}({{{n_ew}}}, {{device = 'cuda'}})")
            lua.run(f"r = dlx.{name}({{{n_ew}}}, {{device = 'cuda'}})")
            mean = float(lua.run("return r:mean():item()"))
            std = float(lua.run("return r:std():item()"))
            want_mean, want_std = (0.5, math.sqrt(1 / 12)) if name == "rand" else (0.0, 1.0)
            ok = abs(mean - want_mean) < 1e-3 and abs(std - want_std) < 1e-3
            cupy_fn = None
            if cupy is not None:
                rng = cupy.random.default_rng(1)
                cupy_fn = (lambda: rng.random(n_ew, dtype=cupy.float32)) if name == "rand" \
                    else (lambda: rng.standard_normal(n_ew, dtype=cupy.float32))
            table.add(f"{name} 64 Mi f32", ours, f"torch.{name}",
                      loop(lambda: torch_fn(n_ew, device="cuda")), 1.0, moved=4 * n_ew,
                      correct=ok, cupy_s=cupy_time(cupy_fn) if cupy_fn else None)
            lua.run("r = nil")

    guarded("rand, randn 64 Mi f32", "torch", 1.0, random)

    # ---- indexing, 16 Mi ----
    def indexing():
        src = rand(n_index)
        idx = torch.randint(0, n_index, (n_index,), device="cuda", generator=gen)
        mask = rand(n_index) < 0.5
        csrc, cidx, cmask = share("src", src), share("idx0", idx), share("mask", mask)
        lua.run("idx = idx0 + 1")  # dlx's indices are 1-based
        ours = dlx_time("src:index_select(1, idx)")
        lua.run("r = src:index_select(1, idx)")
        ok = torch.equal(back("r"), torch.index_select(src, 0, idx))
        table.add("index_select 16 Mi f32", ours, "torch.index_select",
                  loop(lambda: torch.index_select(src, 0, idx)), 1.0, moved=16 * n_index,
                  correct=ok, cupy_s=cupy_time(lambda: cupy.take(csrc, cidx)))
        ours = dlx_time("src:masked_select(mask)")
        lua.run("r = src:masked_select(mask)")
        ok = torch.equal(back("r"), torch.masked_select(src, mask))
        table.add("masked_select 16 Mi f32", ours, "torch.masked_select",
                  loop(lambda: torch.masked_select(src, mask)), 1.0, correct=ok,
                  cupy_s=cupy_time(lambda: csrc[cmask]))
        del src, idx, mask, csrc, cidx, cmask
        lua.run("src, idx0, idx, mask, r = nil, nil, nil, nil, nil")

    guarded("index_select, masked_select 16 Mi", "torch", 1.0, indexing)

    # ---- matrix products (cuBLAS on both sides): float32 8192^2, 100,000 4x4 ----
    def products():
        torch.backends.cuda.matmul.allow_tf32 = False  # torch's default: true float32, as dlx's
        a, b = rand(side, side), rand(side, side)
        share("ma", a)
        share("mb", b)
        ours = dlx_time("dlx.matmul(ma, mb)")
        lua.run("mc = dlx.matmul(ma, mb)")
        expect = torch.matmul(a, b)
        ok = torch.allclose(back("mc"), expect, rtol=1e-4, atol=1e-3)
        flops = 2.0 * side ** 3
        table.add(f"matmul {side}^2 f32", ours, "torch.matmul", loop(lambda: torch.matmul(a, b)),
                  0.95, correct=ok)
        print(f"matmul {side}^2 f32: dlx {flops / ours / 1e12:.1f} TFLOP/s", flush=True)
        # for information: TF32 allowed on both sides
        lua.run("dlx.cuda.allow_tf32(true)")
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            tf32 = dlx_time("dlx.matmul(ma, mb)")
            table.add(f"  matmul {side}^2 allow_tf32", tf32, "torch.matmul allow_tf32",
                      loop(lambda: torch.matmul(a, b)), None)
        finally:
            lua.run("dlx.cuda.allow_tf32(false)")
            torch.backends.cuda.matmul.allow_tf32 = False
        del a, b, expect
        lua.run("ma, mb, mc = nil, nil, nil")
        n_small = 100000 // scale
        x, y = rand(n_small, 4, 4), rand(n_small, 4, 4)
        share("bx", x)
        share("by", y)
        ours = dlx_time("dlx.bmm(bx, by)")
        lua.run("bz = dlx.bmm(bx, by)")
        ok = torch.allclose(back("bz"), torch.bmm(x, y), rtol=1e-5, atol=1e-5)
        table.add(f"bmm {n_small} x 4x4 f32", ours, "torch.bmm", loop(lambda: torch.bmm(x, y)),
                  1.0, correct=ok)
        del x, y
        lua.run("bx, by, bz = nil, nil, nil")

    guarded(f"matmul {side}^2 f32, bmm 4x4", "torch.matmul / torch.bmm", 0.95, products)

    # ---- the exchange, per call: torch -> dlx with torch's stream, and back ----
    def exchange():
        t = rand(1024)
        torch_own = loop(lambda: torch.from_dlpack(t))
        into = loop(lambda: lua.set_tensor("e", t, stream=1))
        table.add("exchange torch -> dlx", into, "torch.from_dlpack(torch)", torch_own, 1.0,
                  lower=True, correct=lua.run("return tostring(e.device)") == "cuda:0")
        out = loop(lambda: torch.from_dlpack(lua.tensor("e")))
        same = torch.from_dlpack(lua.tensor("e")).data_ptr() == t.data_ptr()
        table.add("exchange dlx -> torch", out, "torch.from_dlpack(torch)", torch_own, 1.0,
                  lower=True, correct=same)
        # for information: the same round in Lua alone, without the ctypes bridge
        lua_only = median_seconds(lambda r: lua.run(
            f"for _ = 1, {r} do local _ = dlx.from_dlpack(e:__dlpack {{stream = 1}}) end"), sync)
        table.add("  dlx -> dlx in Lua (no bridge)", lua_only, "torch.from_dlpack(torch)",
                  torch_own, None, lower=True)
        if cupy is not None:
            ct = cupy.from_dlpack(t)
            table.add("  cupy.from_dlpack(cupy)", loop(lambda: cupy.from_dlpack(ct)),
                      "torch.from_dlpack(torch)", torch_own, None, lower=True)
        lua.run("e = nil")

    guarded("exchange", "torch.from_dlpack(torch)", 1.0, exchange)

    peak_gbps = 8 * n_copy / peak_s / 1e9
    header = [
        f"dlx CUDA benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        + (" (--quick: sizes / 16)" if args.quick else ""),
        f"GPU: {torch.cuda.get_device_name(0)}; peak (cudaMemcpyAsync d2d, read + write): "
        f"{peak_gbps:.0f} GB/s; torch {torch.__version__} (CUDA {torch.version.cuda}); "
        + (f"cupy {cupy.__version__}; " if cupy is not None else "no cupy; ")
        + f"host {platform.node()}",
        "ratio: reference time / dlx time (higher is better), or dlx / reference for the "
        "exchange rows (lower is better); cupy: CuPy's time for the same work, for information",
    ]
    counts = table.counts()
    goals = sum(counts.get(v, 0) for v in ("PASS", "FAIL", "WRONG", "ERROR"))
    missed = ", ".join(f"{counts[v]} {v}" for v in ("FAIL", "WRONG", "ERROR") if v in counts)
    footer = [f"{counts.get('PASS', 0)} of {goals} goals met" + (f"; {missed}" if missed else "")]
    text = "\n".join(header + [""] + table.lines() + [""] + footer) + "\n"
    print(text, end="")
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0 if counts.get("PASS", 0) == goals else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException:  # noqa: BLE001 -- the benchmark itself broke: status 2, not 1
        traceback.print_exc()
        sys.exit(2)
