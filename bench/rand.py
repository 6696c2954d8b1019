"""rand: dlx.rand of 64 Mi float32 against torch.rand and NumPy's default_rng().random(dtype=float32).

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times every case, in rounds that interleave
the cases (a change in the machine's load hits them all); the table shows each case's median and
the ratio torch / case. dlx.randn and torch.randn are shown too. dlx and PyTorch use their
default thread counts (dlx.get_num_threads(), torch.get_num_threads()), printed. The goals:
dlx.rand >= 1.0 x torch.rand (ratio >= 1.0) and dlx.randn >= 1.0 x torch.randn (printed last).

    DLX_LIBRARY=build/libdlx.so python3 bench/rand.py [--mi 64] [--rounds 7]
"""
import argparse

import numpy as np
import torch

import harness


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mi", type=int, default=64, help="elements, in Mi")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    n = args.mi << 20
    lua = harness.lua_state(seed=1)
    lua.load_string("RAND = function(n) return dlx.rand(n, {device = 'cpu'}).numel end")
    lua.load_string("RANDN = function(n) return dlx.randn(n, {device = 'cpu'}).numel end")
    harness.print_machine(lua, "%d Mi float32" % args.mi)
    rng = np.random.default_rng(1)
    torch.manual_seed(1)
    cases = [
        ("torch.rand (reference)", lambda: torch.rand(n)),
        ("dlx.rand", lambda: lua.eval("return RAND(...)", n)),
        ("np default_rng().random(dtype=float32)", lambda: rng.random(n, dtype=np.float32)),
        ("torch.randn", lambda: torch.randn(n)),
        ("dlx.randn", lambda: lua.eval("return RANDN(...)", n)),
        ("np default_rng().standard_normal(dtype=float32)",
         lambda: rng.standard_normal(n, dtype=np.float32)),
    ]
    # the last case's memory is freed untimed
    medians = harness.measure(cases, args.rounds,
                              after=lambda: lua.eval("collectgarbage(); collectgarbage()"))
    lua.close()
    harness.print_table(cases, medians, "torch.rand / case",
                        columns=[("GB/s written", lambda m: "%.2f" % (n * 4 / m / 1e9))])
    print("goal: dlx.rand >= 1.0 x torch.rand (torch.rand / case >= 1.0)")
    print("goal: dlx.randn >= 1.0 x torch.randn: torch.randn / dlx.randn = %.2f"
          % (medians[3] / medians[4]))


if __name__ == "__main__":
    main()
