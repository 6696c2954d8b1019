"""index: index_select and masked_select of 16 Mi float32 against PyTorch and NumPy 2.

Four groups of cases, each led by its PyTorch call (the reference of the group):
- index_select of a 1-D tensor with 16 Mi random indices (an element gather; NumPy: np.take);
- index_select of whole rows of a {4096, 4096} tensor, 4096 random rows (row copies);
- masked_select of a 1-D tensor with a random mask, half of it true (NumPy: a[mask]);
- masked_select of a {4096, 4096} tensor with a random {4096, 1} row mask, broadcast.
Every case makes a fresh result. The inputs are made once by PyTorch and handed to dlx through
DLPack (cloned, so that dlx owns its copy); dlx's indices are the same ones, 1-based. The rounds
interleave every case (bench/harness.py) and the table shows medians and torch / case per group.
dlx and PyTorch use their default thread counts, printed. The goal: dlx index_select and
masked_select >= 1.0 x torch (torch / case >= 1.0).

    DLX_LIBRARY=build/libdlx.so python3 bench/index.py [--mi 16] [--rounds 7] [--threads N]
"""
import argparse

import numpy as np
import torch

import harness


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mi", type=int, default=16, help="elements, in Mi (rows * columns)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=0,
                        help="threads for dlx and PyTorch alike (default: their own defaults)")
    args = parser.parse_args()
    n = args.mi << 20
    side = int(round(n ** 0.5))
    lua = harness.lua_state()
    if args.threads > 0:
        lua.eval("dlx.set_num_threads(...)", args.threads)
        torch.set_num_threads(args.threads)
    harness.print_machine(lua, "%d Mi float32, 2-D cases {%d, %d}" % (args.mi, side, side))
    torch.manual_seed(1)
    x = torch.rand(n)
    idx = torch.randint(0, n, (n,))
    m = torch.rand(side, side)
    rows = torch.randint(0, side, (side,))
    mask = torch.rand(n) < 0.5
    row_mask = torch.rand(side, 1) < 0.5
    take = "return dlx.from_dlpack(...):clone()"
    lua.eval("X, I, M, R = ...", *[lua.eval(take, t) for t in (x, idx + 1, m, rows + 1)])
    lua.eval("MASK, ROWMASK = ...", *[lua.eval(take, t) for t in (mask, row_mask)])
    lua.load_string("SELECT = function() return X:index_select(1, I).numel end")
    lua.load_string("ROWS = function() return M:index_select(1, R).numel end")
    lua.load_string("MASKED = function() return X:masked_select(MASK).numel end")
    lua.load_string("MASKED_ROWS = function() return M:masked_select(ROWMASK).numel end")
    a, ai, am, ar = x.numpy(), idx.numpy(), m.numpy(), rows.numpy()
    amask, arow_mask = mask.numpy(), row_mask.numpy()
    cases = [
        ("torch.index_select(x, 0, idx) (reference)", lambda: torch.index_select(x, 0, idx)),
        ("dlx x:index_select(1, idx)", lambda: lua.eval("return SELECT()")),
        ("np.take(x, idx)", lambda: np.take(a, ai)),
        ("torch.index_select(m, 0, rows) (reference)", lambda: torch.index_select(m, 0, rows)),
        ("dlx m:index_select(1, rows)", lambda: lua.eval("return ROWS()")),
        ("np.take(m, rows, axis=0)", lambda: np.take(am, ar, axis=0)),
        ("torch.masked_select(x, mask) (reference)", lambda: torch.masked_select(x, mask)),
        ("dlx x:masked_select(mask)", lambda: lua.eval("return MASKED()")),
        ("x[mask] (NumPy)", lambda: a[amask]),
        ("torch.masked_select(m, row_mask) (reference)",
         lambda: torch.masked_select(m, row_mask)),
        ("dlx m:masked_select(row_mask)", lambda: lua.eval("return MASKED_ROWS()")),
        ("m[np.broadcast_to(row_mask, m.shape)] (NumPy)",
         lambda: am[np.broadcast_to(arow_mask, am.shape)]),
    ]
    # the last case's memory is freed untimed
    medians = harness.measure(cases, args.rounds,
                              after=lambda: lua.eval("collectgarbage(); collectgarbage()"))
    lua.close()
    harness.print_table(cases, medians, "torch / case",
                        references=[i - i % 3 for i in range(len(cases))])
    print("goal: dlx index_select and masked_select >= 1.0 x torch (torch / case >= 1.0)")


if __name__ == "__main__":
    main()
