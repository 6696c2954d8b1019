"""runs: unique_consecutive and argwhere of 16 Mi elements against torch and NumPy 2.

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times every case, in rounds that interleave
the cases; the table shows each case's median and the ratio reference / case (torch's call is
the reference of each pair). unique_consecutive takes int32 (i // 4) % 3 (runs of 4, 4 Mi runs)
with return_inverse and return_counts; argwhere takes a 4096 x 4096 float32 whose elements are
nonzero where (i * 7) % 3 == 0 (a third). dlx composes both from other ops (~=, any, cumsum,
nonzero, index_select: lua/dlx/runs.lua); torch has kernels of its own. NumPy has no
unique_consecutive; its row is the same composition written in NumPy. dlx and PyTorch use their
default thread counts, printed.

    DLX_LIBRARY=build/libdlx.so python3 bench/runs.py [--mi 16] [--rounds 7]
"""
import numpy as np
import torch

import harness


def np_unique_consecutive(a):
    starts = np.empty(a.size, dtype=bool)
    starts[:1] = True
    np.not_equal(a[1:], a[:-1], out=starts[1:])
    at = np.flatnonzero(starts)
    return a[at], np.cumsum(starts), np.diff(np.append(at, a.size))


def main():
    args, n = harness.size_options(__doc__, rounds=7)
    side = int(round(n ** 0.5))
    x = (torch.arange(n, dtype=torch.int32) // 4) % 3
    m = ((torch.arange(side * side, dtype=torch.int64) * 7) % 3 == 0).float().view(side, side)
    a, b = x.numpy(), m.numpy()
    lua = harness.lua_state()
    lua.eval("X = (dlx.arange(..., {dtype = 'int32'}) // 4) % 3", n)
    lua.eval("local s = ...; M = ((dlx.arange(s * s) * 7) % 3):eq(0):astype('float32')"
             ":view{s, s}", side)
    lua.load_string("UC = function() local v, i, c = X:unique_consecutive{return_inverse = true,"
                    " return_counts = true}; return v.numel + i.numel + c.numel end")
    lua.load_string("AW = function() return M:argwhere().numel end")
    assert lua.eval("return UC()") == sum(t.numel() for t in torch.unique_consecutive(
        x, return_inverse=True, return_counts=True))
    assert lua.eval("return AW()") == torch.argwhere(m).numel()
    harness.print_machine(lua, "%d Mi int32, %d x %d float32" % (args.mi, side, side))
    cases = [
        ("torch.unique_consecutive (reference)",
         lambda: torch.unique_consecutive(x, return_inverse=True, return_counts=True)),
        ("dlx t:unique_consecutive", lambda: lua.eval("return UC()")),
        ("NumPy (the same composition)", lambda: np_unique_consecutive(a)),
        ("torch.argwhere (reference)", lambda: torch.argwhere(m)),
        ("dlx t:argwhere", lambda: lua.eval("return AW()")),
        ("np.argwhere", lambda: np.argwhere(b)),
    ]
    medians = harness.measure(cases, args.rounds, rotate=True,
                              after=lambda: lua.eval("collectgarbage(); collectgarbage()"))
    lua.close()
    harness.print_table(cases, medians, "reference / case", references=[0, 0, 0, 3, 3, 3])


if __name__ == "__main__":
    main()
