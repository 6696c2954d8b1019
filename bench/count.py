"""count: histc, bincount and searchsorted against torch and NumPy 2.

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times every case, in rounds that interleave
the cases; the table shows each case's median and the ratio reference / case within each group.
Each library works on the same data (dlx takes torch's tensors by DLPack and clones them):
- histc: 64 Mi uniform float32 in [0, 1), 100 bins over [0, 1], and over the data's own range
  (min = max = 0: one more pass for the min and max); dlx counts in a private histogram a
  thread (src/cpu/count.c), torch.histc in its own; np.histogram (equal bins) for scale;
- bincount: 16 Mi int64 uniform in [0, 1000): dlx (the min and max, then a private histogram a
  thread) against np.bincount (one thread) and torch.bincount;
- searchsorted: 16 Mi uniform float32 values into 1 Mi sorted uniform float32: dlx (a binary
  search a value, threads over the values) against torch.searchsorted and np.searchsorted.
dlx and PyTorch use their default thread counts, printed. The goal: dlx >= 1.0 x torch on histc
and >= 1.0 x NumPy on bincount.

    DLX_LIBRARY=build/libdlx.so python3 bench/count.py [--rounds 5]
"""
import argparse

import numpy as np
import torch

import harness


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--histc-mi", type=int, default=64, help="histc elements, in Mi")
    parser.add_argument("--bincount-mi", type=int, default=16, help="bincount elements, in Mi")
    parser.add_argument("--search-mi", type=int, default=16, help="values searched, in Mi")
    parser.add_argument("--sorted-mi", type=int, default=1, help="sorted elements, in Mi")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.manual_seed(1)
    x = torch.rand(args.histc_mi << 20)
    ints = torch.randint(0, 1000, (args.bincount_mi << 20,), dtype=torch.int64)
    sorted_ = torch.sort(torch.rand(args.sorted_mi << 20)).values
    values = torch.rand(args.search_mi << 20)
    xa, ia, sa, va = x.numpy(), ints.numpy(), sorted_.numpy(), values.numpy()
    lua = harness.lua_state()
    for name, t in (("X", x), ("I", ints), ("S", sorted_), ("V", values)):
        lua.eval(name + " = dlx.from_dlpack(...):clone()", t)
    lua.load_string("HISTC = function() return X:histc(100, 0, 1) end")
    lua.load_string("HISTC_AUTO = function() return X:histc(100) end")
    lua.load_string("BINCOUNT = function() return I:bincount() end")
    lua.load_string("SEARCH = function() return dlx.searchsorted(S, V) end")
    harness.print_machine(lua, "histc %d Mi float32, bincount %d Mi int64, searchsorted %d Mi "
                          "float32 into %d Mi" % (args.histc_mi, args.bincount_mi,
                                                  args.search_mi, args.sorted_mi))
    cases = [
        ("torch.histc(100, 0, 1) (reference)", lambda: torch.histc(x, 100, 0, 1)),
        ("dlx t:histc(100, 0, 1)", lambda: lua.eval("return HISTC()")),
        ("np.histogram(100, range=(0, 1))", lambda: np.histogram(xa, 100, (0, 1))),
        ("torch.histc(100) data range (reference)", lambda: torch.histc(x, 100)),
        ("dlx t:histc(100) data range", lambda: lua.eval("return HISTC_AUTO()")),
        ("np.bincount (reference)", lambda: np.bincount(ia)),
        ("dlx t:bincount()", lambda: lua.eval("return BINCOUNT()")),
        ("torch.bincount", lambda: torch.bincount(ints)),
        ("torch.searchsorted (reference)", lambda: torch.searchsorted(sorted_, values)),
        ("dlx.searchsorted", lambda: lua.eval("return SEARCH()")),
        ("np.searchsorted", lambda: np.searchsorted(sa, va)),
    ]
    medians = harness.measure(cases, args.rounds, rotate=True,
                              after=lambda: lua.eval("collectgarbage(); collectgarbage()"))
    lua.close()
    harness.print_table(cases, medians, "reference / case",
                        references=[0, 0, 0, 3, 3, 5, 5, 5, 8, 8, 8])
    print("goal: dlx >= 1.0 x torch on histc, >= 1.0 x NumPy on bincount")


if __name__ == "__main__":
    main()
