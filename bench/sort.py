"""sort: t:sort() of 16 Mi float32 against torch.sort and NumPy's np.sort / np.argsort.

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times every case, in rounds that interleave
the cases (a change in the machine's load hits them all); the table shows each case's median and
the ratio torch.sort / case. Every case sorts uniform random float32 in [0, 1) (dlx.rand and
torch.rand, NumPy sorts torch's array). dlx's sort and torch.sort give values and int64 indices;
np.sort gives values only (x86-simd-sort where the CPU has AVX-512 or AVX2) and
np.argsort(kind="stable") indices only, so both are shown. dlx and PyTorch use their default
thread counts, printed. The goal: dlx sort >= 1.0 x torch.sort (ratio >= 1.0).

    DLX_LIBRARY=build/libdlx.so python3 bench/sort.py [--mi 16] [--rounds 5]
"""
import numpy as np
import torch

import harness


def main():
    args, n = harness.size_options(__doc__, rounds=5)
    lua = harness.lua_state(seed=1)
    lua.eval("X = dlx.rand(...); return X.numel", n)
    lua.load_string("SORT = function() local v, i = X:sort(); return v.numel + i.numel end")
    lua.load_string("ARGSORT = function() return X:argsort().numel end")
    harness.print_machine(lua, "%d Mi float32" % args.mi)
    torch.manual_seed(1)
    x = torch.rand(n)
    a = x.numpy()
    cases = [
        ("torch.sort (reference)", lambda: torch.sort(x)),
        ("dlx t:sort() (values, indices; stable)", lambda: lua.eval("return SORT()")),
        ("torch.sort(stable=True)", lambda: torch.sort(x, stable=True)),
        ("np.sort (values only)", lambda: np.sort(a)),
        ("dlx t:argsort()", lambda: lua.eval("return ARGSORT()")),
        ("np.argsort(kind='stable')", lambda: np.argsort(a, kind="stable")),
    ]
    # the last case's memory is freed untimed
    medians = harness.measure(cases, args.rounds,
                              after=lambda: lua.eval("collectgarbage(); collectgarbage()"))
    lua.close()
    harness.print_table(cases, medians, "torch.sort / case")
    print("goal: dlx t:sort() >= 1.0 x torch.sort (torch.sort / case >= 1.0)")


if __name__ == "__main__":
    main()
