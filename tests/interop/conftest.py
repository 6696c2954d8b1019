"""Fixtures for the interop tests: a Lua state with dlx (examples/python/dlx_host.py), and ways
to see deleters run and memory come back.

ctest runs these with DLX_LIBRARY set to the libdlx.so of the build under test and
examples/python on PYTHONPATH (cmake/DlxInterop.cmake)."""

import gc
import os
import sys
import weakref

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))

import dlx_host  # noqa: E402

# Layouts that dlx and every peer can make. Each: (shape of the base tensor, Lua code that makes
# a view of the base `b`). The base is C-contiguous with values 0, 1, 2, ... cast to the dtype.
# The test files pair each with the same view made by the peer.
LAYOUTS = {
    "contiguous": ((2, 3, 4), "b"),
    "zero_d": ((6,), "b:select(1, 3)"),  # 0-d, with a non-zero offset
    "zero_size": ((4, 3), "b:narrow(1, 2, 0)"),
    "one_element": ((6,), "b:narrow(1, 5, 1)"),
    "large": ((1 << 20,), "b"),
    "transposed": ((2, 3, 4), "b:transpose(1, 3)"),
    "sliced_steps": ((6, 10), "b:slice(1, 2, -1, 2):slice(2, 1, -1, 3)"),
    "broadcast": ((4,), "b:view{1, 4}:expand{3, 4}"),
    "offset_subview": ((4, 5), "b:view{-1}:slice(1, 6, 15)"),
}
# Negative strides: NumPy has them, PyTorch cannot make them (flip copies) nor import them.
FLIPPED = ((3, 4), "b:flip()")


def lua_view(state, dtype, layout):
    """Makes the layout's view in Lua, of dtype; returns it as a LuaTensor."""
    shape, code = layout
    count = 1
    for size in shape:
        count *= size
    return state.eval("local b = dlx.arange(%d):astype(%r):view{%s}; return %s"
                      % (count, dtype, ", ".join(map(str, shape)), code))


# What Lua sees of an imported capsule: its name and flags, the tensor's description, and a
# C-contiguous copy that dlx made by reading through the strides.
IMPORT_AND_DESCRIBE = """
local capsule = ...
local name, flags = capsule.name, capsule.flags
local t = dlx.from_dlpack(capsule)
return name, flags, t.dtype, t.shape, t.strides, t.readonly, t:clone()
"""


@pytest.fixture
def lua():
    """A fresh Lua state with dlx, closed after the test."""
    state = dlx_host.LuaState()
    state.load_string('dlx = require "dlx"')  # a global for the tests' short chunks
    yield state
    state.close()


class DeleteCounter:
    """Counts how often each watched object is freed (weakref.finalize runs once per object,
    when its last reference goes: here, when a DLPack deleter drops it)."""

    def __init__(self):
        self.freed = 0

    def watch(self, obj):
        weakref.finalize(obj, self._count)
        return obj

    def _count(self):
        self.freed += 1


@pytest.fixture
def deletes():
    return DeleteCounter()


def collect(state):
    """Runs both collectors, so that whatever is unreferenced on either side is released."""
    gc.collect()
    state.eval("collectgarbage() collectgarbage()")
    gc.collect()


def allocated(state):
    """Bytes that dlx's allocator holds now (its memory is refcounted in C; it comes back to the
    baseline only when every export's deleter has run)."""
    return state.eval("return dlx.memory_allocated()")


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def asks_versioned(from_dlpack):
    """Whether a consumer's from_dlpack asks its producer for a versioned capsule (passes
    max_version): newer peers do, older ones (PyTorch 1.13) ask for a legacy one. Asked of the
    peer itself, so the tests follow what it does rather than its version number."""
    asked = []
    state = dlx_host.LuaState()
    tensor = state.eval('return require("dlx").zeros(1)')

    class Probe:
        def __dlpack_device__(self):
            return tensor.__dlpack_device__()

        def __dlpack__(self, **kwargs):
            asked.append(kwargs)
            return tensor.__dlpack__(**kwargs)

    from_dlpack(Probe())
    state.close()
    return "max_version" in asked[-1]
