"""conv: dlx.conv2d, conv1d and convolve against torch and NumPy 2, float32, 2 threads.

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times every case, in rounds that interleave
the cases (bench/harness.py); the table shows each case's median and the ratio reference / case
against the row marked (reference) above it. Both libraries run on 2 threads (--threads). The inputs are
uniform random float32 (torch.rand; dlx gets a copy through DLPack).

- conv2d: 3x3 kernel, 64 -> 64 channels, padding 1, on 1x64x256x256 (torch: oneDNN or its own
  kernel; dlx: im2col slices and OpenBLAS's sgemm, src/cpu/conv.c). Goal: >= 0.8 x torch.
- conv1d: kernel 5, 32 -> 64 channels, padding 2, on 8x32x16384.
- convolve: a 1 Mi-element signal with a 64-tap filter ("full") against np.convolve (dlx: blocks
  of the signal times a band matrix of the taps, lua/dlx/conv.lua), and torch's conv1d doing it.

    DLX_LIBRARY=build/libdlx.so python3 bench/conv.py [--rounds 7] [--threads 2]
"""
import argparse

import numpy as np
import torch
import torch.nn.functional as F

import harness


def put(lua, name, t):
    """The global `name` in the Lua state: a float32 dlx copy of torch tensor t."""
    lua.eval(name + " = dlx.from_dlpack(...):clone()", t.numpy())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2, help="for dlx and torch alike")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    x2, w2 = torch.rand(1, 64, 256, 256), torch.rand(64, 64, 3, 3)
    x1, w1 = torch.rand(8, 32, 16384), torch.rand(64, 32, 5)
    sig, taps = torch.rand(1 << 20), torch.rand(64)
    a, v = sig.numpy(), taps.numpy()
    lua = harness.lua_state(seed=1)
    lua.eval("dlx.set_num_threads(...)", args.threads)
    for name, t in (("X2", x2), ("W2", w2), ("X1", x1), ("W1", w1), ("A", sig), ("V", taps)):
        put(lua, name, t)
    lua.load_string("CONV2D = function() return dlx.conv2d(X2, W2, {padding = 1}) end")
    lua.load_string("CONV1D = function() return dlx.conv1d(X1, W1, {padding = 2}) end")
    lua.load_string("CONVOLVE = function() return dlx.convolve(A, V) end")
    check = lua.eval("return (CONV2D() - dlx.from_dlpack(...)):abs():max():item()",
                     F.conv2d(x2, w2, padding=1))
    harness.print_machine(lua, "conv2d 1x64x256x256 3x3 64->64; conv1d 8x32x16384 k5 32->64; "
                          "convolve 1 Mi x 64 (max |dlx - torch| of conv2d: %.2g)" % check)
    cases = [
        ("torch conv2d (reference)", lambda: F.conv2d(x2, w2, padding=1)),
        ("dlx.conv2d", lambda: lua.eval("return CONV2D()")),
        ("torch conv1d (reference)", lambda: F.conv1d(x1, w1, padding=2)),
        ("dlx.conv1d", lambda: lua.eval("return CONV1D()")),
        ("np.convolve (reference)", lambda: np.convolve(a, v)),
        ("dlx.convolve", lambda: lua.eval("return CONVOLVE()")),
        ("torch conv1d as convolve", lambda: F.conv1d(sig.view(1, 1, -1),
                                                      taps.flip(0).view(1, 1, -1), padding=63)),
    ]
    medians = harness.measure(cases, args.rounds, rotate=True,
                              after=lambda: lua.eval("collectgarbage(); collectgarbage()"))
    lua.close()
    harness.print_table(cases, medians, "reference / case", references=[0, 0, 2, 2, 4, 4, 4])
    print("goal: dlx.conv2d >= 0.8 x torch")


if __name__ == "__main__":
    main()
