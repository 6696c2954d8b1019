"""cat: dlx.cat of 16 x 1024^2 float32 tensors against memcpy of the same bytes.

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times every case: each is one call, run in
rounds that interleave the cases (so that a change in the machine's load hits them all), and
the table shows each case's median over the rounds and its ratio to the reference, memcpy
(ctypes.memmove) of all the inputs' bytes into a buffer that is already mapped. Cases that make
their result pay for mapping its fresh pages; the `out =` cases write into a result made once.
NumPy's concatenate and PyTorch's cat (when the Python running this has torch) do the same work.
The goal: dlx.cat >= 0.9 x memcpy.

    DLX_LIBRARY=build/libdlx.so python3 bench/cat.py [--count 16] [--side 1024] [--rounds 7]
"""
import argparse
import ctypes

import numpy as np

import harness
from harness import torch

# name, Lua chunk run once per round (the inputs are the list `xs`, the preallocated result `out`)
LUA_CASES = [
    ("dlx.cat(xs)", "local r = dlx.cat(xs); r:close()"),
    ("dlx.cat(xs, 1, {out = out})", "dlx.cat(xs, 1, {out = out})"),
    ("dlx.stack(xs)", "local r = dlx.stack(xs); r:close()"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=16, help="how many inputs")
    parser.add_argument("--side", type=int, default=1024, help="each input is side x side")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    n, side = args.count, args.side
    nbytes = n * side * side * 4
    lua = harness.lua_state()
    harness.print_machine(lua, "%d x %d^2 float32 = %d MiB" % (n, side, nbytes >> 20))
    lua.load_string("xs = {} for i = 1, %d do xs[i] = dlx.full({%d, %d}, i, "
                    "{dtype = 'float32', device = 'cpu'}) end "
                    "out = dlx.zeros({%d, %d}, {device = 'cpu'})" % (n, side, side, n * side, side))
    for i, (_, code) in enumerate(LUA_CASES):
        lua.load_string("CASE%d = function() %s end" % (i, code))
    arrays = [np.full((side, side), i + 1, np.float32) for i in range(n)]
    src = np.concatenate(arrays)
    dst = np.zeros_like(src)
    np_out = np.zeros_like(src)
    cases = [("memcpy (reference)",
              lambda: ctypes.memmove(dst.ctypes.data, src.ctypes.data, nbytes))]
    for i, (name, _) in enumerate(LUA_CASES):
        cases.append((name, lambda i=i: lua.eval("CASE%d()" % i)))
    cases.append(("np.concatenate(xs)", lambda: np.concatenate(arrays)))
    cases.append(("np.concatenate(xs, out=out)", lambda: np.concatenate(arrays, out=np_out)))
    if torch is not None:
        tensors = [torch.from_numpy(a) for a in arrays]
        t_out = torch.zeros(n * side, side)
        cases.append(("torch.cat(xs)", lambda: torch.cat(tensors)))
        cases.append(("torch.cat(xs, out=out)", lambda: torch.cat(tensors, out=t_out)))
    medians = harness.measure(cases, args.rounds)
    same = lua.eval("return dlx.equal(dlx.cat(xs), out) and 1 or 0")
    lua.close()
    harness.print_table(cases, medians, "memcpy / case",
                        columns=[("GB/s", lambda m: "%.2f" % (nbytes / m / 1e9))], digits=2)
    print("goal: dlx.cat >= 0.9 x memcpy (memcpy / case >= 0.9); out= result checked: %s"
          % ("same" if same == 1 else "DIFFERENT"))


if __name__ == "__main__":
    main()
