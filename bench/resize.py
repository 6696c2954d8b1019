"""resize: dlx.interpolate, dlx.max_pool2d and dlx.avg_pool2d against torch, float32, 2 threads.

dlx runs in a Lua state inside this process (examples/python/dlx_host.py, DLX_LIBRARY naming
libdlx.so), so one wall clock (time.perf_counter) times every case, in rounds that interleave
the cases; the table shows each case's median and the ratio torch / dlx of its pair. Both
libraries run on 2 threads (dlx.set_num_threads, torch.set_num_threads), on the same values
(uniform random float32 from torch, copied into dlx once). The cases:

- interpolate bilinear 1x3x1080x1920 -> 1x3x540x960 (align_corners false): the goal, dlx >= 1.0 x
  torch (F.interpolate);
- interpolate bicubic 1x3x540x960 -> 1x3x1080x1920;
- max_pool2d 3x3, stride 2, padding 1 of 1x64x112x112 (a ResNet's first pool), with and
  without the indices;
- avg_pool2d 2x2 of 1x64x112x112.

    DLX_LIBRARY=build/libdlx.so python3 bench/resize.py [--rounds 15]
"""
import argparse

import torch
import torch.nn.functional as F

import harness


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    torch.set_num_threads(2)
    torch.manual_seed(1)
    image = torch.rand(1, 3, 1080, 1920)
    small = torch.rand(1, 3, 540, 960)
    maps = torch.rand(1, 64, 112, 112)
    lua = harness.lua_state()
    lua.eval("dlx.set_num_threads(2)")
    for name, t in (("IMAGE", image), ("SMALL", small), ("MAPS", maps)):
        lua.eval(name + " = dlx.frombuffer(..., 'float32'):reshape({%s})"
                 % ", ".join(str(s) for s in t.shape), t.numpy().tobytes())
    lua.load_string("""
      BILINEAR = function() return dlx.interpolate(IMAGE, {size = {540, 960},
                                                          mode = "bilinear"}) end
      BICUBIC = function() return dlx.interpolate(SMALL, {size = {1080, 1920},
                                                         mode = "bicubic"}) end
      MAXPOOL = function() return dlx.max_pool2d(MAPS, 3, {stride = 2, padding = 1}) end
      MAXPOOL_I = function() return dlx.max_pool2d(MAPS, 3, {stride = 2, padding = 1,
                                                          return_indices = true}) end
      AVGPOOL = function() return dlx.avg_pool2d(MAPS, 2) end
      CHECK = function()
        return dlx.interpolate(IMAGE, {size = {540, 960}, mode = "bilinear"}):sum():item()
      end""")
    harness.print_machine(lua, "float32")
    ref = F.interpolate(image, size=(540, 960), mode="bilinear").sum().item()
    got = lua.eval("return CHECK()")
    print("check: bilinear sums torch %.6g, dlx %.6g" % (ref, got))
    cases = [
        ("torch interpolate bilinear 1080p -> 540p", lambda: F.interpolate(
            image, size=(540, 960), mode="bilinear")),
        ("dlx interpolate bilinear 1080p -> 540p", lambda: lua.eval("return BILINEAR()")),
        ("torch interpolate bicubic 540p -> 1080p", lambda: F.interpolate(
            small, size=(1080, 1920), mode="bicubic")),
        ("dlx interpolate bicubic 540p -> 1080p", lambda: lua.eval("return BICUBIC()")),
        ("torch max_pool2d 3x3/2 64x112x112", lambda: F.max_pool2d(maps, 3, 2, 1)),
        ("dlx max_pool2d 3x3/2 64x112x112", lambda: lua.eval("return MAXPOOL()")),
        ("torch max_pool2d 3x3/2, indices", lambda: F.max_pool2d(
            maps, 3, 2, 1, return_indices=True)),
        ("dlx max_pool2d 3x3/2, indices", lambda: lua.eval("return MAXPOOL_I()")),
        ("torch avg_pool2d 2x2 64x112x112", lambda: F.avg_pool2d(maps, 2)),
        ("dlx avg_pool2d 2x2 64x112x112", lambda: lua.eval("return AVGPOOL()")),
    ]
    medians = harness.measure(cases, args.rounds, rotate=True,
                              after=lambda: lua.eval("collectgarbage(); collectgarbage()"))
    lua.close()
    harness.print_table(cases, medians, "torch / case", digits=2,
                        references=[0, 0, 2, 2, 4, 4, 6, 6, 8, 8])
    print("goal: dlx interpolate bilinear >= 1.0 x torch")


if __name__ == "__main__":
    main()
