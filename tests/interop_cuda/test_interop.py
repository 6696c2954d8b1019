#!/usr/bin/env python3
"""tests/interop_cuda/test_interop.py -- CUDA tensors between PyTorch, CuPy, JAX, NumPy and dlx
(Lua, through tools/dlx_lua.py), both ways, on a GPU machine. tools/gpu-check run runs it (step
interop); by hand, from the repository root, with a carry made by tools/gpu-check pack:
    DLX_CARRY=$PWD/gpu-carry python3 tests/interop_cuda/test_interop.py

What it checks, for each peer that is installed:
  - capsules with streams: every exchange is zero-copy (a write on one side is seen on the other,
    or the same address for JAX, whose arrays are immutable), and in the ordering checks the
    producer's kernel is still running when the consumer queues its read: only the DLPack stream
    handshake (an event on the producer's stream, waited for by the consumer's) makes the
    consumer see the values;
  - `copy` and `dl_device`: a copy asked for is a copy, a copy to the host (kDLCPU) is made after
    the producer's pending work;
  - cuda_host (pinned) and cuda_managed memory, both ways;
  - dlx itself from several host threads at once (a Lua state each): matrix products through
    cuBLAS, whose handles are per thread.
A peer that refuses a device type or keyword (its own limitation, with its message) is a SKIP
line, as is a peer that is not installed; a wrong value is a FAIL, and so is dlx refusing what a
peer asks of it or hands it (an error raised in Lua).

Output: one line per check (PASS, FAIL or SKIP), then "N passed, N failed, N skipped".
Exit status: 0 when nothing failed and something passed, 1 when a check failed, 77 when nothing
could run (no CUDA device visible to dlx).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "tools"), ROOT]  # dlx_lua.py: in tools/, or beside a carry
from dlx_lua import DlxLua, LuaError  # noqa: E402

BUSY = 400_000_000  # GPU clock cycles: far longer than queueing the read takes
N = 1 << 22
SKIPPED = 77
counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
failures = []


def check(name, ok, detail=""):
    status = "PASS" if ok else "FAIL"
    counts[status] += 1
    print(f"{status} {name}" + (f" ({detail})" if detail and not ok else ""), flush=True)
    if not ok:
        failures.append(name)


def skip(name, why):
    counts["SKIP"] += 1
    print(f"SKIP {name}: {why}", flush=True)


def info(text):
    print(f"INFO {text}", flush=True)


def attempt(name, fn):
    """Runs fn() and returns its result. An exception raised by the peer is its refusal (SKIP,
    with its message); one raised in Lua is dlx refusing (FAIL); both return None. Wrong values
    are for the caller to check."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 -- any refusal, reported with its type
        first = str(e).splitlines()[0] if str(e) else ""
        if any(isinstance(x, LuaError) for x in (e, e.__cause__, e.__context__)):
            check(name, False, f"dlx refused: {first}")
        else:
            skip(name, f"refused: {type(e).__name__}: {first}")
        return None


def lua_device(lua, name):
    return lua.run(f"return tostring({name}.device)")


def lua_defined(lua, name):
    return lua.run(f"return tostring({name} ~= nil)") == "true"


def check_host_copy_in(lua, peer, src, name):
    """The peer producing to the host: src.__dlpack__(dl_device=(kDLCPU, 0), copy=True) into
    dlx as `name`; src holds ten 3s."""
    attempt(f"{peer} __dlpack__(dl_device=(1, 0), copy=True)",
            lambda: lua.set_tensor(name, src, dl_device=(1, 0), copy=True))
    if lua_defined(lua, name):
        check(f"{peer} -> dlx with dl_device = cpu: on the host", lua_device(lua, name) == "cpu")
        check(f"{peer} -> dlx with dl_device = cpu: the values",
              lua.number(f"{name}:sum():item()") == 30)


# ---- PyTorch --------------------------------------------------------------------------------

def torch_checks(lua):
    import torch
    info(f"torch {torch.__version__} (CUDA {torch.version.cuda}), "
         f"{torch.cuda.get_device_name(0)}")
    x = torch.zeros(N, device="cuda")
    lua.set_tensor("x", x, stream=1)
    check("torch -> dlx lands on cuda:0", lua_device(lua, "x") == "cuda:0")
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

    # copy and dl_device, dlx producing: torch.from_dlpack(device=, copy=) (PyTorch 2.7+)
    lua.run(f"c = dlx.arange(10, {{device = 'cuda'}}); dlx.cuda.busy_wait({BUSY}); c:fill_(2)")
    host = attempt("torch.from_dlpack(dlx, device='cpu')",
                   lambda: torch.from_dlpack(lua.tensor("c"), device="cpu"))
    if host is not None:
        check("dlx -> torch with dl_device = cpu: on the host", host.device.type == "cpu")
        check("dlx -> torch with dl_device = cpu: after dlx's pending work",
              host.sum().item() == 20, f"sum {host.sum().item()}")
    copied = attempt("torch.from_dlpack(dlx, copy=True)",
                     lambda: torch.from_dlpack(lua.tensor("c"), copy=True))
    if copied is not None:
        copied.fill_(4)
        torch.cuda.synchronize()
        check("dlx -> torch with copy=True is a copy", lua.number("c:sum():item()") == 20)
    # torch producing: __dlpack__(dl_device=(kDLCPU, 0), copy=True) into dlx
    src = torch.full((10,), 3.0, device="cuda")
    check_host_copy_in(lua, "torch", src, "tc")

    # pinned memory: dlx's cuda_host to torch, torch's pinned (kDLCPU) to dlx
    lua.run("p = dlx.zeros({1000}, {device = 'cuda_host'}); g = dlx.full({1000}, 6, "
            f"{{device = 'cuda'}}); dlx.cuda.busy_wait({BUSY}); p:copy_(g)")
    pinned = attempt("torch.from_dlpack(dlx cuda_host)",
                     lambda: torch.from_dlpack(lua.tensor("p")))
    if pinned is not None:
        info(f"torch imports kDLCUDAHost as {pinned.device}, is_pinned {pinned.is_pinned()}")
        check("dlx cuda_host -> torch: read after the copy into it",
              pinned.sum().item() == 6000, f"sum {pinned.sum().item()}")
    tp = torch.arange(10, dtype=torch.float32).pin_memory()
    lua.set_tensor("tp", tp)
    info(f"a pinned torch tensor arrives in dlx as {lua_device(lua, 'tp')}")
    lua.run("tp:fill_(1)")
    check("torch pinned -> dlx is zero-copy", tp.sum().item() == 10)
    # managed memory, dlx producing
    lua.run("m = dlx.arange(10, {device = 'cuda_managed', dtype = 'float32'})")
    managed = attempt("torch.from_dlpack(dlx cuda_managed)",
                      lambda: torch.from_dlpack(lua.tensor("m")))
    if managed is not None:
        info(f"torch imports kDLCUDAManaged as {managed.device}")
        check("dlx cuda_managed -> torch: the values", managed.sum().item() == 45)

    if torch.cuda.device_count() >= 2:
        w = torch.arange(100, device="cuda:1", dtype=torch.float32)
        lua.set_tensor("w", w, stream=1)
        check("cuda:1 tensors arrive on cuda:1", lua_device(lua, "w") == "cuda:1")
        check("work on cuda:1 from Lua", lua.number("w:sum():item()") == 4950)
        back = torch.from_dlpack(lua.tensor("w"))
        check("cuda:1 tensors go back to cuda:1", back.device == torch.device("cuda:1"))
        check("the current device is left as it was", torch.cuda.current_device() == 0)
    else:
        skip("multi-GPU checks", "one GPU only")


# ---- CuPy -----------------------------------------------------------------------------------

SPIN = r'''
extern "C" __global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
}
'''


def cupy_checks(lua):
    import cupy
    info(f"cupy {cupy.__version__} (CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()})")
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
        running = not cupy.cuda.Stream.null.done
        total = float(arr.sum())
        arr.fill(3)
    cs.synchronize()
    check("dlx producer still running when cupy reads", running)
    check("cupy's stream waits for dlx's event", total == 8 * N, f"sum {total}")
    check("dlx -> cupy is zero-copy", lua.number("b:sum():item()") == 3 * N)

    # copy and dl_device, dlx producing (CuPy 14: from_dlpack(device=, copy=))
    lua.run(f"c = dlx.arange(10, {{device = 'cuda'}}); dlx.cuda.busy_wait({BUSY}); c:fill_(2)")
    copied = attempt("cupy.from_dlpack(dlx, copy=True)",
                     lambda: cupy.from_dlpack(lua.tensor("c"), copy=True))
    if copied is not None:
        copied.fill(5)
        cupy.cuda.Device().synchronize()
        check("dlx -> cupy with copy=True is a copy", lua.number("c:sum():item()") == 20)
    # cupy producing: __dlpack__(dl_device=(kDLCPU, 0), copy=True) into dlx
    src = cupy.full(10, 3.0, dtype=cupy.float32)
    check_host_copy_in(lua, "cupy", src, "cc")

    # managed memory both ways
    pool = cupy.cuda.MemoryPool(cupy.cuda.malloc_managed)
    with cupy.cuda.using_allocator(pool.malloc):
        m = cupy.arange(10, dtype=cupy.float64)
    lua.set_tensor("m", m, stream=1)
    check("cupy managed memory arrives as cuda_managed", lua_device(lua, "m") == "cuda_managed")
    check("cupy managed memory is readable in dlx", lua.number("m:sum():item()") == 45)
    lua.run("dm = dlx.arange(10, {device = 'cuda_managed', dtype = 'float64'})")
    managed = attempt("cupy.from_dlpack(dlx cuda_managed)",
                      lambda: cupy.from_dlpack(lua.tensor("dm")))
    if managed is not None:
        check("dlx cuda_managed -> cupy: the values", float(managed.sum()) == 45)
        managed.fill(1)
        cupy.cuda.Device().synchronize()
        check("dlx cuda_managed -> cupy is zero-copy", lua.number("dm:sum():item()") == 10)
    # pinned memory, dlx producing
    lua.run("p2 = dlx.zeros({1000}, {device = 'cuda_host'}); g2 = dlx.full({1000}, 6, "
            f"{{device = 'cuda'}}); dlx.cuda.busy_wait({BUSY}); p2:copy_(g2)")
    pinned = attempt("cupy.from_dlpack(dlx cuda_host)",
                     lambda: cupy.from_dlpack(lua.tensor("p2")))
    if pinned is not None:
        check("dlx cuda_host -> cupy: read after the copy into it", float(pinned.sum()) == 6000)


# ---- JAX ------------------------------------------------------------------------------------

def jax_checks(lua):
    import jax
    import jax.dlpack
    import jax.numpy as jnp
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    info(f"jax {jax.__version__}, devices {jax.devices()}")
    if not gpus:
        skip("jax checks", f"JAX sees no GPU (backend {jax.default_backend()})")
        return
    handle = int(lua.run("cs3 = dlx.stream('cuda:0'); return cs3.handle"))

    # JAX producing: a jitted loop still running when dlx reads on its stream (v -> v/2 + 1
    # reaches 2 exactly from 0)
    @jax.jit
    def slow(v):
        return jax.lax.fori_loop(0, 3000, lambda i, u: u * 0.5 + 1.0, v)

    slow(jnp.zeros(16, jnp.float32)).block_until_ready()  # compiled before the timed part
    y = slow(jnp.zeros(N, jnp.float32))
    running = hasattr(y, "is_ready") and not y.is_ready()
    attempt("jax __dlpack__(stream=dlx's stream)",
            lambda: lua.set_tensor("jy", y, stream=handle))
    info(f"jax producer still running when dlx asked: {running}")
    if lua_defined(lua, "jy"):
        total = lua.number("cs3:use(function() return jy:sum():item() end)")
        check("jax -> dlx lands on cuda:0", lua_device(lua, "jy") == "cuda:0")
        check("jax -> dlx is read after jax's pending work", total == 2 * N, f"sum {total}")
        check("jax -> dlx is zero-copy (same address)",
              y.unsafe_buffer_pointer() == lua.tensor("jy").data_ptr())

    # dlx producing, both of JAX's entry points; dlx's kernel still running
    for name, from_dlpack in (("jax.dlpack.from_dlpack", jax.dlpack.from_dlpack),
                              ("jax.numpy.from_dlpack", jnp.from_dlpack)):
        lua.run(f"jz = dlx.zeros({{{N}}}, {{device = 'cuda'}}); dlx.cuda.synchronize(); "
                f"dlx.cuda.busy_wait({BUSY}); jz:fill_(7)")
        arr = attempt(name, lambda f=from_dlpack: f(lua.tensor("jz")))
        if arr is None:
            continue
        total = float(jnp.sum(arr))
        check(f"dlx -> {name}: after dlx's pending work", total == 7 * N, f"sum {total}")
        check(f"dlx -> {name}: on the GPU", next(iter(arr.devices())).platform == "gpu")
        check(f"dlx -> {name} is zero-copy (same address)",
              arr.unsafe_buffer_pointer() == lua.tensor("jz").data_ptr())

    # copy and dl_device, dlx producing
    lua.run(f"c3 = dlx.arange(10, {{device = 'cuda'}}); dlx.cuda.busy_wait({BUSY}); c3:fill_(2)")
    cpu = jax.devices("cpu")[0]
    host = attempt("jnp.from_dlpack(dlx, device=cpu)",
                   lambda: jnp.from_dlpack(lua.tensor("c3"), device=cpu))
    if host is not None:
        check("dlx -> jax with device=cpu: on the host",
              next(iter(host.devices())).platform == "cpu")
        check("dlx -> jax with device=cpu: after dlx's pending work", float(host.sum()) == 20)
    copied = attempt("jnp.from_dlpack(dlx, copy=True)",
                     lambda: jnp.from_dlpack(lua.tensor("c3"), copy=True))
    if copied is not None:
        check("dlx -> jax with copy=True: the values", float(copied.sum()) == 20)
        check("dlx -> jax with copy=True is a copy (another address)",
              copied.unsafe_buffer_pointer() != lua.tensor("c3").data_ptr())
    # JAX producing to the host: __dlpack__(dl_device=(kDLCPU, 0))
    src = jnp.full(10, 3.0, jnp.float32)
    check_host_copy_in(lua, "jax", src, "jc")

    # pinned and managed memory, dlx producing (JAX may well refuse both)
    lua.run("p3 = dlx.full({1000}, 6, {device = 'cuda_host'}); "
            "m3 = dlx.arange(10, {device = 'cuda_managed', dtype = 'float32'})")
    pinned = attempt("jnp.from_dlpack(dlx cuda_host)", lambda: jnp.from_dlpack(lua.tensor("p3")))
    if pinned is not None:
        check("dlx cuda_host -> jax: the values", float(pinned.sum()) == 6000)
    managed = attempt("jnp.from_dlpack(dlx cuda_managed)",
                      lambda: jnp.from_dlpack(lua.tensor("m3")))
    if managed is not None:
        check("dlx cuda_managed -> jax: the values", float(managed.sum()) == 45)


# ---- NumPy ----------------------------------------------------------------------------------

def numpy_checks(lua):
    import numpy
    info(f"numpy {numpy.__version__}")
    if tuple(int(p) for p in numpy.__version__.split(".")[:2]) < (2, 1):
        skip("numpy dl_device check", "numpy < 2.1 has no from_dlpack(device=)")
        return
    lua.run(f"c4 = dlx.arange(10, {{device = 'cuda'}}); dlx.cuda.busy_wait({BUSY}); c4:fill_(2)")
    host = numpy.from_dlpack(lua.tensor("c4"), device="cpu")  # dl_device = (kDLCPU, 0)
    check("dl_device = {1, 0} copies to the host after the pending work", host.sum() == 20)
    lua.run("p4 = dlx.full({10}, 3, {device = 'cuda_host'})")
    pinned = attempt("numpy.from_dlpack(dlx cuda_host)",
                     lambda: numpy.from_dlpack(lua.tensor("p4")))
    if pinned is not None:
        check("dlx cuda_host -> numpy: the values", pinned.sum() == 30)


# ---- host threads: a Lua state each, products at the same time ----------------------------

def thread_checks():
    """Matrix products from several host threads at once, each with its own Lua state and
    stream (ctypes lets go of the GIL while Lua runs): cuBLAS handles are per thread, and a
    second wave of threads takes over the handles the first left."""
    import threading
    results = {}

    def work(i, wave):
        try:
            lua = DlxLua()
            v = i + 1
            got = lua.run(f"""
                local s = dlx.stream("cuda:0")
                local a = dlx.full({{256, 256}}, {v}, {{dtype = "float32", device = "cuda"}})
                local b = dlx.full({{256, 256}}, 2, {{dtype = "float32", device = "cuda"}})
                -- the fills ran on the default stream, which s (non-blocking) does not wait for
                dlx.cuda.synchronize()
                local ok = true
                s:use(function()
                  for _ = 1, 50 do
                    local c = dlx.matmul(a, b)
                    ok = ok and c:min():item() == {512 * v} and c:max():item() == {512 * v}
                  end
                end)
                s:close()
                return tostring(ok)""")
            results[(wave, i)] = got
        except Exception as e:  # noqa: BLE001 -- reported as the thread's result
            results[(wave, i)] = f"{type(e).__name__}: {e}"

    for wave in (1, 2):
        threads = [threading.Thread(target=work, args=(i, wave)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        bad = {k: v for k, v in results.items() if k[0] == wave and v != "true"}
        check(f"matmul from 4 host threads at once (wave {wave})",
              not bad and len([k for k in results if k[0] == wave]) == 4, str(bad))


PEERS = (("torch", torch_checks), ("cupy", cupy_checks), ("jax", jax_checks),
         ("numpy", numpy_checks))


def main():
    # JAX takes 75% of the GPU's memory at its first use unless told not to
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    lua = DlxLua()
    count = int(lua.run("return dlx.cuda.device_count()"))
    if count == 0:
        built = lua.run("return tostring(dlx.cuda.is_built())")
        print(f"SKIP all: no CUDA device visible to dlx (dlx.cuda.is_built() = {built})")
        return SKIPPED
    info(f"dlx sees {count} CUDA device(s)")
    for name, checks in PEERS:
        try:
            __import__(name)
        except ImportError as e:
            skip(f"{name} checks", f"{name} is not installed ({e})")
            continue
        try:
            checks(lua)
        except Exception as e:  # noqa: BLE001 -- one peer's crash must not hide the others
            import traceback
            traceback.print_exc()
            check(f"{name} checks ran to the end", False, f"{type(e).__name__}: {e}")
    try:
        thread_checks()
    except Exception as e:  # noqa: BLE001
        check("host thread checks ran to the end", False, f"{type(e).__name__}: {e}")
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
    if failures:
        return 1
    return 0 if counts["PASS"] else SKIPPED


if __name__ == "__main__":
    sys.exit(main())
