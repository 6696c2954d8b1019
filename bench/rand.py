"""rand: dlx.rand of 64 Mi float32 against torch.rand and NumPy's default_rng().random(dtype=float32); dlx.multinomial against torch.multinomial.

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times every case, in rounds that interleave
the cases (a change in the machine's load hits them all); the table shows each case's median and
the ratio torch / case. dlx.randn and torch.randn are shown too. dlx and PyTorch use their
default thread counts (dlx.get_num_threads(), torch.get_num_threads()), printed. The goals:
dlx.rand >= 1.0 x torch.rand (ratio >= 1.0) and dlx.randn >= 1.0 x torch.randn (printed last).

A second table times multinomial draws: --rows rows of --weights float32 weights (uniform in
[0, 1), not normalised), --draws draws from each, without replacement (both libraries' default)
and with it, dlx.multinomial against torch.multinomial. The goal: dlx.multinomial >= 1.0 x
torch.multinomial, each mode against torch's same mode. --only-multinomial skips the first table.

    DLX_LIBRARY=build/libdlx.so python3 bench/rand.py [--mi 64] [--rounds 7]
        [--rows 1000] [--weights 1000] [--draws 100] [--only-multinomial]
"""
import argparse

import numpy as np
import torch

import harness


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mi", type=int, default=64, help="elements, in Mi")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--weights", type=int, default=1000)
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--only-multinomial", action="store_true")
    args = parser.parse_args()
    if not args.only_multinomial:
        uniforms(args)
    multinomial(args)


def uniforms(args):
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


def multinomial(args):
    rows, k, draws = args.rows, args.weights, args.draws
    lua = harness.lua_state(seed=1)
    lua.load_string("W = dlx.rand({%d, %d}, {device = 'cpu'})" % (rows, k))
    lua.load_string("MN = function(n, rep) "
                    "return dlx.multinomial(W, n, {replacement = rep}).numel end")
    harness.print_machine(lua, "multinomial: %d rows x %d float32 weights, %d draws"
                          % (rows, k, draws))
    torch.manual_seed(1)
    w = torch.rand(rows, k)
    cases = [
        ("torch.multinomial (reference)", lambda: torch.multinomial(w, draws)),
        ("dlx.multinomial", lambda: lua.eval("return MN(...)", draws, False)),
        ("torch.multinomial, replacement (reference)",
         lambda: torch.multinomial(w, draws, replacement=True)),
        ("dlx.multinomial, replacement", lambda: lua.eval("return MN(...)", draws, True)),
    ]
    medians = harness.measure(cases, args.rounds, rotate=True,
                              after=lambda: lua.eval("collectgarbage(); collectgarbage()"))
    lua.close()
    harness.print_table(cases, medians, "torch / case", digits=2, references=[0, 0, 2, 2])
    print("goal: dlx.multinomial >= 1.0 x torch.multinomial: %.2f without replacement, "
          "%.2f with" % (medians[0] / medians[1], medians[2] / medians[3]))


if __name__ == "__main__":
    main()
