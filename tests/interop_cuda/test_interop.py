#!/usr/bin/env python3
"""tests/interop_cuda/test_interop.py -- CUDA tensors between PyTorch, CuPy and dlx (Lua), for a
GPU machine. Run from the carried directory (tools/carry.sh):
    LD_LIBRARY_PATH=$PWD python3 tests/interop_cuda/test_interop.py
Every exchange is zero-copy (a write on one side is seen on the other), and in the ordering
checks the producer's kernel is still running when the consumer queues its read: only the
DLPack stream handshake (an event on the producer's stream, waited for by the consumer's)
makes the consumer see the values. Prints one line per check; exit status 1 on any failure.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # dlx_lua.py, at the carry's root
from dlx_lua import DlxLua  # noqa: E402

BUSY = 400_000_000  # GPU clock cycles: far longer than queueing the read takes
N = 1 << 22
failures = []


def check(name, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + name + (f" ({detail})" if detail and not ok else ""))
    if not ok:
        failures.append(name)


def torch_checks(lua):
    import torch
    x = torch.zeros(N, device="cuda")
    lua.set_tensor("x", x, stream=1)
    check("torch -> dlx lands on cuda:0", lua.run("return tostring(x.device)") == "cuda:0")
    lua.run("x:fill_(3)")
    torch.cuda.synchronize()
    check("torch -> dlx is zero-copy", x.sum().item() == 3 * N)

    # torch's kernel still runs on its stream s; dlx reads on its own stream cs
    handle = int(lua.run("cs = dlx.stream('cuda:0'); return cs.handle"))
    y = torch.zeros(N, device="cuda")
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(BUSY)
        y.fill_(5)
        lua.set_tensor("y", y, stream=handle)
    running = not s.query()
    total = lua.number("cs:use(function() return y:sum():item() end)")
    check("torch producer still running when dlx reads", running)
    check("dlx's stream waits for torch's event", total == 5 * N, f"sum {total}")

    # dlx's kernel still runs on the legacy default stream; torch reads on its stream ts
    lua.run(f"z = dlx.zeros({{{N}}}, {{device = 'cuda'}}); dlx.cuda.synchronize()")
    lua.run(f"dlx.cuda.busy_wait({BUSY}); z:fill_(7)")
    ts = torch.cuda.Stream()
    with torch.cuda.stream(ts):
        t = torch.from_dlpack(lua.tensor("z"))  # torch passes ts as the stream value
        running = not torch.cuda.default_stream().query()
        total = t.sum().item()
    check("dlx producer still running when torch reads", running)
    check("torch's stream waits for dlx's event", total == 7 * N, f"sum {total}")
    with torch.cuda.stream(ts):
        t.fill_(9)
    ts.synchronize()
    check("dlx -> torch is zero-copy", lua.number("z:sum():item()") == 9 * N)

    if torch.cuda.device_count() >= 2:
        w = torch.arange(100, device="cuda:1", dtype=torch.float32)
        lua.set_tensor("w", w, stream=1)
        check("cuda:1 tensors arrive on cuda:1", lua.run("return tostring(w.device)") == "cuda:1")
        check("work on cuda:1 from Lua", lua.number("w:sum():item()") == 4950)
        back = torch.from_dlpack(lua.tensor("w"))
        check("cuda:1 tensors go back to cuda:1", back.device == torch.device("cuda:1"))
        check("the current device is left as it was", torch.cuda.current_device() == 0)
    else:
        print("SKIP multi-GPU checks: one GPU only")


SPIN = r'''
extern "C" __global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
}
'''


def cupy_checks(lua):
    import cupy
    spin = cupy.RawKernel(SPIN, "spin")
    handle = int(lua.run("cs2 = dlx.stream('cuda:0'); return cs2.handle"))
    a = cupy.zeros(N, dtype=cupy.float32)
    cupy.cuda.Device().synchronize()
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        spin((1,), (1,), (cupy.int64(BUSY),))
        a.fill(4)
        lua.set_tensor("a", a, stream=handle)
    running = not s.done
    total = lua.number("cs2:use(function() return a:sum():item() end)")
    check("cupy producer still running when dlx reads", running)
    check("dlx's stream waits for cupy's event", total == 4 * N, f"sum {total}")
    lua.run("a:fill_(6)")
    cupy.cuda.Device().synchronize()
    check("cupy -> dlx is zero-copy", float(a.sum()) == 6 * N)

    lua.run(f"b = dlx.zeros({{{N}}}, {{device = 'cuda'}}); dlx.cuda.synchronize()")
    lua.run(f"dlx.cuda.busy_wait({BUSY}); b:fill_(8)")
    cs = cupy.cuda.Stream(non_blocking=True)
    with cs:
        arr = cupy.from_dlpack(lua.tensor("b"))
        total = float(arr.sum())
    check("cupy's stream waits for dlx's event", total == 8 * N, f"sum {total}")

    pool = cupy.cuda.MemoryPool(cupy.cuda.malloc_managed)
    with cupy.cuda.using_allocator(pool.malloc):
        m = cupy.arange(10, dtype=cupy.float64)
    lua.set_tensor("m", m, stream=1)
    check("managed memory is recognised", lua.run("return tostring(m.device)") == "cuda_managed")
    check("managed memory is readable", lua.number("m:sum():item()") == 45)


def numpy_checks(lua):
    import numpy
    if tuple(int(p) for p in numpy.__version__.split(".")[:2]) < (2, 1):
        print("SKIP numpy dl_device check: numpy < 2.1 has no from_dlpack(device=)")
        return
    lua.run(f"c = dlx.arange(10, {{device = 'cuda'}}); dlx.cuda.busy_wait({BUSY}); c:fill_(2)")
    host = numpy.from_dlpack(lua.tensor("c"), device="cpu")  # dl_device = (kDLCPU, 0)
    check("dl_device = {1, 0} copies to the host after the pending work", host.sum() == 20)


def main():
    lua = DlxLua()
    if lua.run("return tostring(dlx.cuda.is_available())") != "true":
        print("FAIL no CUDA device visible to dlx")
        return 1
    torch_checks(lua)
    cupy_checks(lua)
    numpy_checks(lua)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
