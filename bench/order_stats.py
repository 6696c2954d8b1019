"""order_stats: median and quantile of 16 Mi float32 against torch and NumPy 2.

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times every case, in rounds that interleave
the cases; the table shows each case's median and the ratio torch / case for each pair (median
against torch.median, quantile against torch.quantile). Every case works on uniform random
float32 in [0, 1) (dlx.rand for dlx, torch.rand for torch, NumPy on torch's array).
dlx selects (a radix select, src/cpu/order_stats.c); torch.median selects (nth_element),
torch.quantile sorts; np.median and np.quantile partition (introselect). dlx and PyTorch use
their default thread counts, printed. The goal: dlx >= 1.0 x torch and >= 1.0 x NumPy.

    DLX_LIBRARY=build/libdlx.so python3 bench/order_stats.py [--mi 16] [--rounds 5]
"""
import numpy as np
import torch

import harness


def main():
    args, n = harness.size_options(__doc__, rounds=5)
    torch.manual_seed(1)
    x = torch.rand(n)
    a = x.numpy()
    lua = harness.lua_state(seed=1)
    lua.eval("X = dlx.rand(...); return X.numel", n)
    lua.load_string("MEDIAN = function() return X:median():item() end")
    lua.load_string("QUANTILE = function() return X:quantile(0.3):item() end")
    harness.print_machine(lua, "%d Mi float32" % args.mi)
    cases = [
        ("torch.median (reference)", lambda: torch.median(x)),
        ("dlx t:median()", lambda: lua.eval("return MEDIAN()")),
        ("np.median", lambda: np.median(a)),
        ("torch.quantile(0.3) (reference)", lambda: torch.quantile(x, 0.3)),
        ("dlx t:quantile(0.3)", lambda: lua.eval("return QUANTILE()")),
        ("np.quantile(0.3)", lambda: np.quantile(a, 0.3)),
    ]
    medians = harness.measure(cases, args.rounds,
                              after=lambda: lua.eval("collectgarbage(); collectgarbage()"))
    lua.close()
    harness.print_table(cases, medians, "reference / case", references=[0, 0, 0, 3, 3, 3])
    print("goal: dlx >= 1.0 x torch and >= 1.0 x NumPy in both pairs")


if __name__ == "__main__":
    main()
