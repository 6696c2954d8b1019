"""PyTorch <-> Lua through dlx_host, both directions, zero-copy.

Runs with Debian's PyTorch 1.13 (/usr/bin/python3), which speaks legacy DLPack only (0.6): no
max_version, copy or dl_device keywords, no bool, no uint16/32/64, no read-only tensors, no
negative strides (PyTorch cannot make them, and 1.13 aborts the process when it imports them).
PyTorch 2.x from pip is tested by hand with the same file (docs/status.md): it asks for and gives
versioned capsules and exchanges bool and uint16/32/64. The expectations that differ ask PyTorch
what it does rather than read its version.
"""

import gc
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
import torch
import torch.utils.dlpack

from conftest import (IMPORT_AND_DESCRIBE, LAYOUTS, allocated, asks_versioned, collect, lua_view,
                      rss_bytes)
import dlx_host

# Every dtype PyTorch 1.13 has that DLPack can carry, by dlx's name. complex32 (chalf) PyTorch
# exports, but dlx has no complex32.
DTYPES = {
    "int8": torch.int8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64,
    "uint8": torch.uint8, "float16": torch.float16, "bfloat16": torch.bfloat16,
    "float32": torch.float32, "float64": torch.float64, "complex64": torch.complex64,
    "complex128": torch.complex128,
}


def _torch_exports(name):
    """Whether this PyTorch has the dtype and its DLPack exporter takes it (then its importer
    takes it too)."""
    dtype = getattr(torch, name, None)
    if dtype is None:
        return False
    try:
        torch.utils.dlpack.to_dlpack(torch.zeros(1, dtype=dtype))
    except (RuntimeError, BufferError, TypeError):
        return False
    return True


# The dtypes that later PyTorch exchanges and PyTorch 1.13 does not (its exporter refuses bool;
# it has no uint16/32/64).
NEWER_DTYPES = ["bool", "uint16", "uint32", "uint64"]
DTYPES.update({name: getattr(torch, name) for name in NEWER_DTYPES if _torch_exports(name)})
TORCH_LACKS = [name for name in NEWER_DTYPES if name not in DTYPES]


def _torch_capsule_name():
    """The kind of capsule PyTorch gives a consumer that asks for DLPack 1.3."""
    try:
        capsule = torch.zeros(1).__dlpack__(max_version=dlx_host.DLPACK_MAX_VERSION)
    except TypeError:  # PyTorch 1.13: no max_version keyword
        return "dltensor"
    return dlx_host.describe_capsule(capsule)["name"]


TORCH_CAPSULE = _torch_capsule_name()

TORCH_VIEWS = {
    "contiguous": lambda b: b,
    "zero_d": lambda b: b[2],  # a 0-d view at storage offset 2
    "zero_size": lambda b: b[1:1],
    "one_element": lambda b: b[4:5],
    "large": lambda b: b,
    "transposed": lambda b: b.permute(2, 1, 0),
    "sliced_steps": lambda b: b[1::2, ::3],
    "broadcast": lambda b: b.view(1, 4).expand(3, 4),
    "offset_subview": lambda b: b.reshape(-1)[5:15],
}


TORCH_VERSIONED = asks_versioned(torch.from_dlpack)


def torch_view(dtype, layout_name):
    shape = LAYOUTS[layout_name][0]
    count = int(np.prod(shape))
    # arange in float64, then cast: the casts of PyTorch and dlx agree on these values
    base = torch.arange(count, dtype=torch.float64).to(DTYPES[dtype]).reshape(shape)
    return TORCH_VIEWS[layout_name](base)


# ---- PyTorch -> Lua --------------------------------------------------------------------------


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_torch_to_lua(lua, dtype, layout):
    t = torch_view(dtype, layout)
    name, flags, lua_dtype, shape, strides, readonly, copy = lua.eval(IMPORT_AND_DESCRIBE, t)
    assert name == TORCH_CAPSULE
    assert flags == (0 if name == "dltensor_versioned" else None)  # PyTorch has no read-only
    assert lua_dtype == dtype and readonly is False
    assert tuple(shape or ()) == tuple(t.shape)
    if t.numel() > 0:
        assert list(strides or []) == list(t.stride())  # the true strides
    assert torch.equal(torch.from_dlpack(copy), t)


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
@pytest.mark.parametrize("dtype", ([torch.bool] if "bool" in TORCH_LACKS else [])
                         + [torch.complex32])
def test_torch_dtypes_dlx_cannot_take(lua, dtype):
    # bool: PyTorch 1.13's exporter refuses it. complex32: PyTorch exports it, dlx refuses it.
    with pytest.raises((RuntimeError, BufferError)):
        lua.eval("return dlx.from_dlpack(...)", torch.zeros(2, dtype=dtype))


def test_lua_writes_into_torch_memory(lua):
    t = torch.zeros(3, 4)
    lua.eval("dlx.from_dlpack(...):select(1, 2):fill_(5)", t.t())  # a transposed view
    assert t[:, 1].tolist() == [5, 5, 5] and t.sum().item() == 15


def test_torch_writes_seen_by_lua(lua):
    t = torch.zeros(4, dtype=torch.int32)
    lua.eval("kept = dlx.from_dlpack(...)", t)
    t[1] = 3
    assert lua.eval("return kept:totable()") == [0, 3, 0, 0]


def test_raw_torch_capsules(lua):
    capsule = torch.utils.dlpack.to_dlpack(torch.arange(4.0))
    assert lua.eval("return dlx.from_dlpack(...):sum():item()", capsule) == 6
    with pytest.raises(ValueError, match="consumed"):
        lua.eval("return dlx.from_dlpack(...)", capsule)


# ---- Lua -> PyTorch --------------------------------------------------------------------------


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_lua_to_torch(lua, dtype, layout):
    expected = torch_view(dtype, layout)
    view = lua_view(lua, dtype, LAYOUTS[layout])
    if layout == "broadcast" and not TORCH_VERSIONED:
        # dlx exports a broadcast view READ_ONLY, which a legacy capsule cannot say: refused
        with pytest.raises(BufferError, match="broadcast view"):
            torch.from_dlpack(view)
        return
    got = torch.from_dlpack(view)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if got.numel() > 0:
        assert got.stride() == expected.stride()
    assert torch.equal(got, expected)


@pytest.mark.parametrize("dtype", TORCH_LACKS)  # (none with PyTorch 2.x: reported as skipped)
def test_torch_cannot_import(lua, dtype):
    # PyTorch 1.13 knows DLPack 0.6: no kDLBool, and uint8 is its only unsigned type.
    before = allocated(lua)
    t = lua.eval("return dlx.ones({3}, {dtype = ...})", dtype)
    with pytest.raises(RuntimeError):
        torch.from_dlpack(t)
    del t
    collect(lua)
    assert allocated(lua) == before  # the capsule's deleter ran


def test_torch_aborts_on_negative_strides(tmp_path):
    # PyTorch cannot make negative strides, and 1.13 aborts the whole process when it imports
    # them (an uncaught c10::Error; later PyTorch raises). So flips must be copied
    # (t:flip():contiguous()) before they go to PyTorch 1.x. Checked in a child process.
    script = tmp_path / "flip.py"
    script.write_text(
        "import torch, dlx_host\n"
        "lua = dlx_host.LuaState()\n"
        "flip = 'return require(\"dlx\").arange(4):flip()'\n"
        "ok = torch.from_dlpack(lua.eval(flip + ':contiguous()'))\n"
        "assert ok.tolist() == [3, 2, 1, 0]\n"
        "print('copied flip ok', flush=True)\n"
        "torch.from_dlpack(lua.eval(flip))\n")
    child = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           timeout=120,
                           env=dict(os.environ, PYTHONPATH=os.path.dirname(dlx_host.__file__)))
    assert "copied flip ok" in child.stdout
    if torch.__version__.startswith("1."):
        assert child.returncode < 0 and "overflow" in child.stderr  # SIGABRT
    else:
        assert child.returncode != 0


def test_torch_1_13_ignores_byte_offset(lua):
    # Why dlx_host folds byte_offset into data: PyTorch 1.x's fromDLPack ignores byte_offset.
    capsule = lua.eval("return dlx.arange(8):slice(1, 4)").__dlpack__()
    managed = dlx_host.DLManagedTensor.from_address(
        dlx_host._PyCapsule_GetPointer(capsule, b"dltensor"))
    managed.dl_tensor.data -= 24  # undo the fold: the buffer, plus byte_offset 3 * 8
    managed.dl_tensor.byte_offset = 24
    got = torch.utils.dlpack.from_dlpack(capsule).tolist()
    if torch.__version__.startswith("1."):
        assert got == [0, 1, 2, 3, 4]  # read from the start of the buffer
    else:
        assert got == [3, 4, 5, 6, 7]


def test_lua_writes_seen_by_torch_and_back(lua):
    t = torch.from_dlpack(lua.eval("kept = dlx.zeros({2, 3}, {dtype = 'float32'}); return kept"))
    lua.eval("kept:select(2, 3):fill_(1)")
    assert t.tolist() == [[0, 0, 1], [0, 0, 1]]
    t[0, 0] = 8  # PyTorch imports writable
    assert lua.eval("return kept:sum():item()") == 10


def test_lua_tensor_round_trip_through_torch(lua):
    # A tensor made in Lua goes to PyTorch and comes back to Lua: the same memory all along.
    t = torch.from_dlpack(lua.eval("original = dlx.arange(6, {dtype = 'float64'}); "
                                   "return original"))
    again = lua.eval("local back = dlx.from_dlpack(...)\n"
                     "back:fill_(4)\n"
                     "return original:sum():item(), back", t.view(2, 3)[1])
    assert again[0] == 0 + 1 + 2 + 4 * 3  # the write through `back` reached `original`
    assert t.tolist() == [0, 1, 2, 4, 4, 4]
    assert torch.from_dlpack(again[1]).data_ptr() == t.data_ptr() + 3 * 8


# ---- Lifetimes -------------------------------------------------------------------------------


def test_torch_deleter_runs_once(lua, deletes):
    # PyTorch's export holds the storage; a storage made from a NumPy array holds that array.
    base = deletes.watch(np.arange(8.0))
    t = torch.from_numpy(base)[2:]
    del base
    lua.eval("kept = dlx.from_dlpack(...)", t)
    del t
    gc.collect()
    assert deletes.freed == 0  # only dlx holds it now
    assert lua.eval("return kept:sum():item()") == 2 + 3 + 4 + 5 + 6 + 7
    lua.eval("kept:close(); kept = nil")
    collect(lua)
    assert deletes.freed == 1


def test_torch_deleter_runs_at_lua_close(deletes):
    state = dlx_host.LuaState()
    base = deletes.watch(np.arange(4.0))
    state.eval('kept = require("dlx").from_dlpack(...)', torch.from_numpy(base))
    del base
    gc.collect()
    assert deletes.freed == 0
    state.close()
    assert deletes.freed == 1


def test_lua_capsule_consumed_once_by_torch(lua):
    capsule = lua.eval("return dlx.ones(2)").__dlpack__()
    assert torch.utils.dlpack.from_dlpack(capsule).tolist() == [1, 1]
    with pytest.raises(RuntimeError):
        torch.utils.dlpack.from_dlpack(capsule)


def test_torch_tensor_outlives_the_lua_state():
    state = dlx_host.LuaState()
    t = torch.from_dlpack(state.eval('return require("dlx").arange(6):view{2, 3}:transpose(1, 2)'))
    state.close()
    assert t.tolist() == [[0, 3], [1, 4], [2, 5]]


def test_thousands_of_round_trips_leak_nothing(lua):
    code = "local t = dlx.from_dlpack(...); return t:transpose(1, 2), t:sum(1)"

    def trips(count):
        for i in range(count):
            t, s = lua.eval(code, torch.full((16, 16), float(i)))
            back, sums = torch.from_dlpack(t), torch.from_dlpack(s)
            assert back[0, 0].item() == i and sums[0].item() == 16 * i

    trips(500)
    collect(lua)
    allocated_before, rss_before = allocated(lua), rss_bytes()
    trips(3000)
    collect(lua)
    assert allocated(lua) == allocated_before
    assert rss_bytes() - rss_before < 8 << 20


def test_torch_frees_lua_memory_on_another_thread_after_close(lua):
    # PyTorch may drop the last reference on any thread; dlx's deleter needs no Lua state.
    before = allocated(lua)
    other = dlx_host.LuaState()
    tensors = [torch.from_dlpack(other.eval('return require("dlx").ones({256, 256})'))]
    other.close()
    assert allocated(lua) > before
    worker = threading.Thread(target=tensors.clear)
    worker.start()
    worker.join()
    gc.collect()
    assert allocated(lua) == before
