"""NumPy <-> Lua through dlx_host, both directions, zero-copy.

Runs with Debian's NumPy 1.24 (/usr/bin/python3: legacy capsules only, no bool, no read-only
export) and with NumPy 2.x from pip in a virtual environment (versioned capsules, read-only
flag, copy and dl_device keywords). The expectations that differ say which NumPy they are for.
"""

import gc
import sys

import numpy as np
import pytest

from conftest import (FLIPPED, IMPORT_AND_DESCRIBE, LAYOUTS, allocated, collect, lua_view,
                      rss_bytes)
import dlx_host

NUMPY2 = int(np.__version__.split(".")[0]) >= 2
CAPSULE = "dltensor_versioned" if NUMPY2 else "dltensor"

# Every dtype NumPy has that DLPack can carry (NumPy has no bfloat16).
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def writable_broadcast(b):
    # np.broadcast_to is read-only, which NumPy 1.x refuses to export: as_strided can say
    # writeable, which is what a stride-0 dim needs to reach NumPy 1.x.
    return np.lib.stride_tricks.as_strided(b.reshape(1, 4), (3, 4), (0, b.itemsize))


NUMPY_VIEWS = {
    "contiguous": lambda b: b,
    "zero_d": lambda b: b[2:3].reshape(()),  # a 0-d view at an offset (b[2] would be a copy)
    "zero_size": lambda b: b[1:1],
    "one_element": lambda b: b[4:5],
    "large": lambda b: b,
    "transposed": lambda b: b.transpose(2, 1, 0),
    "sliced_steps": lambda b: b[1::2, ::3],
    "broadcast": writable_broadcast,
    "offset_subview": lambda b: b.reshape(-1)[5:15],
    "flipped": lambda b: b[::-1, ::-1],
}
ALL_LAYOUTS = dict(LAYOUTS, flipped=FLIPPED)


def numpy_view(dtype, layout_name):
    shape = ALL_LAYOUTS[layout_name][0]
    with np.errstate(over="ignore"):  # float16 has no room for 2**20 values: inf, as in dlx
        base = np.arange(int(np.prod(shape))).astype(dtype).reshape(shape)
    return NUMPY_VIEWS[layout_name](base)


def element_strides(a):
    return [s // a.itemsize for s in a.strides]


# ---- NumPy -> Lua ----------------------------------------------------------------------------


@pytest.mark.parametrize("layout", sorted(ALL_LAYOUTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_to_lua(lua, dtype, layout):
    a = numpy_view(dtype, layout)
    if dtype == "bool" and not NUMPY2:
        with pytest.raises(BufferError):  # NumPy 1.x cannot export bool
            lua.eval(IMPORT_AND_DESCRIBE, a)
        return
    name, flags, lua_dtype, shape, strides, readonly, copy = lua.eval(IMPORT_AND_DESCRIBE, a)
    assert name == CAPSULE
    assert flags == (0 if NUMPY2 else None)
    assert lua_dtype == dtype and readonly is False
    assert tuple(shape or ()) == a.shape
    if a.size > 0:  # (the strides of an empty array are anyone's; NumPy 2 sends zeros)
        assert list(strides or []) == element_strides(a)  # the true strides, not normalised
    assert np.array_equal(np.from_dlpack(copy), a)


def test_numpy_negative_and_zero_strides_reach_lua_as_they_are(lua):
    flipped = np.arange(12.0).reshape(3, 4)[::-1, ::-2]
    assert lua.eval("return dlx.from_dlpack(...).strides", flipped) == [-4, -2]
    broadcast = writable_broadcast(np.arange(4.0))
    assert lua.eval("return dlx.from_dlpack(...).strides", broadcast) == [0, 1]


def test_lua_writes_into_numpy_memory(lua):
    a = np.zeros((3, 4), dtype=np.float32)
    lua.eval("dlx.from_dlpack(...):select(1, 2):fill_(5)", a[:, ::-1])  # a flipped view
    assert a[1].tolist() == [5, 5, 5, 5] and a[0].sum() == 0 and a[2].sum() == 0


def test_numpy_writes_seen_by_lua(lua):
    a = np.zeros(4)
    lua.eval("kept = dlx.from_dlpack(...)", a)
    a[2] = 7
    assert lua.eval("return kept:totable()") == [0, 0, 7, 0]


def test_readonly_numpy_array(lua):
    a = np.arange(4.0)
    a.flags.writeable = False
    if not NUMPY2:
        with pytest.raises(BufferError):  # NumPy 1.x cannot signal read-only: it refuses
            lua.eval("return dlx.from_dlpack(...)", a)
        return
    flags, readonly = lua.eval("local c = ...; local f = c.flags\n"
                               "kept = dlx.from_dlpack(c); return f, kept.readonly", a)
    assert flags & dlx_host.DLPACK_FLAG_READ_ONLY and readonly is True
    with pytest.raises(ValueError, match="ValueError: .*read-only"):
        lua.eval("kept:fill_(1)")
    assert a.tolist() == [0, 1, 2, 3]
    # and back: still read-only for NumPy; a legacy capsule cannot say so, so dlx refuses one
    back = np.from_dlpack(lua.eval("return kept"))
    assert not back.flags.writeable and np.shares_memory(back, a)
    with pytest.raises(BufferError):
        lua.eval("return kept").__dlpack__()


def test_readonly_broadcast_numpy_array(lua):
    a = np.broadcast_to(np.arange(3.0), (2, 3))  # NumPy makes these read-only
    if not NUMPY2:
        with pytest.raises(BufferError):
            lua.eval("return dlx.from_dlpack(...)", a)
        return
    assert lua.eval("local t = dlx.from_dlpack(...); return t.readonly, t.strides", a) == \
        (True, [0, 1])


@pytest.mark.skipif(not NUMPY2, reason="NumPy 1.x's __dlpack__ takes no copy or dl_device")
def test_numpy2_producer_keywords(lua):
    # Raw capsules from NumPy 2's __dlpack__ with the array API's keywords go to Lua as they are.
    a = np.zeros(3)
    copied = a.__dlpack__(max_version=(1, 3), copy=True, dl_device=(1, 0))
    flags = lua.eval("local c = ...; local f = c.flags; dlx.from_dlpack(c):fill_(1); return f",
                     copied)
    assert flags & dlx_host.DLPACK_FLAG_IS_COPIED and a.tolist() == [0, 0, 0]
    shared = a.__dlpack__(max_version=(1, 3), copy=False, dl_device=(1, 0))
    assert lua.eval("local c = ...; local f = c.flags; dlx.from_dlpack(c):fill_(2); return f",
                    shared) == 0
    assert a.tolist() == [2, 2, 2]
    with pytest.raises(BufferError):
        a.__dlpack__(max_version=(1, 3), dl_device=(2, 0))  # NumPy cannot reach CUDA either


def test_numpy1_producer_has_no_keywords():
    # The host's fallback: NumPy 1.x's __dlpack__ raises TypeError for max_version.
    if NUMPY2:
        assert np.arange(2).__dlpack__(max_version=(1, 0)) is not None
    else:
        with pytest.raises(TypeError):
            np.arange(2).__dlpack__(max_version=(1, 0))


def test_lua_can_ask_for_a_copy(lua):
    a = np.zeros(3)
    lua.eval("dlx.from_dlpack(..., {copy = true}):fill_(1)", a)
    assert a.tolist() == [0, 0, 0]


# ---- Lua -> NumPy ----------------------------------------------------------------------------

LUA_DTYPES_NUMPY_READS = [d for d in DTYPES if NUMPY2 or d != "bool"]


@pytest.mark.parametrize("layout", sorted(ALL_LAYOUTS))
@pytest.mark.parametrize("dtype", LUA_DTYPES_NUMPY_READS)
def test_lua_to_numpy(lua, dtype, layout):
    expected = numpy_view(dtype, layout)
    view = lua_view(lua, dtype, ALL_LAYOUTS[layout])
    if layout == "broadcast" and not NUMPY2:
        # dlx exports a broadcast view READ_ONLY, which a legacy capsule cannot say: refused, as
        # NumPy refuses its own broadcast_to arrays
        with pytest.raises(BufferError, match="broadcast view"):
            np.from_dlpack(view)
        return
    got = np.from_dlpack(view)
    assert got.flags.writeable == (NUMPY2 and layout != "broadcast")  # 1.x: all read-only
    assert got.dtype == np.dtype(dtype) and got.shape == expected.shape
    if got.size > 0:
        assert got.strides == expected.strides  # the view itself, not a copy
    assert np.array_equal(got, expected)


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("dtype", ["bfloat16"] + ([] if NUMPY2 else ["bool"]))
def test_numpy_cannot_import(lua, dtype):
    # NumPy refuses the dtype and drops the capsule with its error pending. dlx's C capsule
    # destructor keeps it (a ctypes one could not: NumPy raised SystemError), so the caller sees
    # NumPy's own error, and nothing is reported as unraisable. The deleter runs.
    before = allocated(lua)
    t = lua.eval("return dlx.ones({3}, {dtype = ...})", dtype)
    with pytest.raises(RuntimeError) as raised:  # NumPy 1.24 and 2.x raise this
        np.from_dlpack(t)
    assert type(raised.value) is RuntimeError  # NumPy's own, not SystemError nor dlx's
    assert "dtype" in str(raised.value), raised.value
    del t, raised
    collect(lua)
    assert allocated(lua) == before


def test_lua_writes_seen_by_numpy(lua):
    t = lua.eval("kept = dlx.zeros({2, 3}); return kept:transpose(1, 2)")
    a = np.from_dlpack(t)
    lua.eval("kept:select(1, 2):fill_(4)")
    assert a.tolist() == [[0, 4], [0, 4], [0, 4]]
    if NUMPY2:  # NumPy 1.x imports every legacy capsule read-only
        a[0, 0] = 9
        assert lua.eval("return kept:totable()") == [[9, 0, 0], [4, 4, 4]]
    else:
        assert not a.flags.writeable


def test_numpy_array_outlives_the_lua_state():
    # dlx's deleter needs no Lua state: the memory stays valid after close, and is freed later.
    state = dlx_host.LuaState()
    a = np.from_dlpack(state.eval('return require("dlx").arange(5):slice(1, 2)'))
    state.close()
    assert a.tolist() == [1, 2, 3, 4]
    del a
    gc.collect()


# ---- The Python protocol of LuaTensor (keywords) -------------------------------------------


def test_dlpack_device(lua):
    assert lua.eval("return dlx.zeros(2)").__dlpack_device__() == (1, 0)


def test_max_version_picks_the_capsule_kind(lua):
    t = lua.eval("return dlx.zeros(2)")
    assert dlx_host.describe_capsule(t.__dlpack__())["name"] == "dltensor"
    assert dlx_host.describe_capsule(t.__dlpack__(max_version=(0, 8)))["name"] == "dltensor"
    versioned = dlx_host.describe_capsule(t.__dlpack__(max_version=(1, 0)))
    assert versioned["name"] == "dltensor_versioned" and versioned["version"] == (1, 3)
    with pytest.raises(TypeError):
        t.__dlpack__(max_version="1.0")


def test_copy_keyword(lua):
    t = lua.eval("kept = dlx.zeros(3); return kept")
    copied = dlx_host.describe_capsule(t.__dlpack__(max_version=(1, 3), copy=True))
    assert copied["flags"] & dlx_host.DLPACK_FLAG_IS_COPIED
    shared = dlx_host.describe_capsule(t.__dlpack__(max_version=(1, 3), copy=False))
    assert shared["flags"] == 0
    if NUMPY2:
        independent, same = np.from_dlpack(t, copy=True), np.from_dlpack(t, copy=False)
        lua.eval("kept:fill_(2)")
        assert independent.tolist() == [0, 0, 0] and same.tolist() == [2, 2, 2]


def test_dl_device_keyword(lua):
    t = lua.eval("return dlx.zeros(3)")
    assert dlx_host.describe_capsule(t.__dlpack__(dl_device=(1, 0)))["device"] == (1, 0)
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 3), dl_device=(2, 0))  # no CUDA in this dlx
    if NUMPY2:
        assert np.from_dlpack(t, device="cpu").tolist() == [0, 0, 0]


def test_stream_keyword(lua):
    t = lua.eval("return dlx.zeros(3)")
    assert t.__dlpack__(stream=None) is not None
    with pytest.raises(ValueError):  # CPU tensors take no stream
        t.__dlpack__(stream=1)


def test_byte_offset_is_folded_into_data(lua):
    # dlx exports a view as buffer + byte_offset; the host hands PyCapsules with the offset in
    # the data pointer, which PyTorch 1.x also reads right.
    base, view = lua.eval("kept = dlx.arange(8); return kept, kept:slice(1, 3)")
    base_info = dlx_host.describe_capsule(base.__dlpack__())
    view_info = dlx_host.describe_capsule(view.__dlpack__(max_version=(1, 3)))
    assert view_info["byte_offset"] == 0 and view_info["shape"] == (6,)
    assert view_info["data"] == base_info["data"] + 2 * 8


# ---- Lifetimes: every deleter once, capsules consumed once, nothing leaked ------------------


def test_numpy_deleter_runs_once_when_lua_closes_the_tensor(lua, deletes):
    view = deletes.watch(np.arange(10.0)[2:])
    lua.eval("local t = dlx.from_dlpack(...); assert(t:sum():item() == 44); t:close()", view)
    del view
    gc.collect()
    assert deletes.freed == 1
    collect(lua)
    assert deletes.freed == 1


def test_numpy_deleter_runs_for_an_unconsumed_capsule(lua, deletes):
    view = deletes.watch(np.arange(4.0)[1:])
    lua.eval("kept = ...", view)  # never imported
    del view
    collect(lua)
    assert deletes.freed == 0  # the capsule still holds it
    lua.eval("kept = nil")
    collect(lua)
    assert deletes.freed == 1


def test_numpy_deleter_runs_at_lua_close(deletes):
    state = dlx_host.LuaState()
    view = deletes.watch(np.arange(4.0)[1:])
    state.eval('kept = require("dlx").from_dlpack(...)', view)
    del view
    gc.collect()
    assert deletes.freed == 0
    state.close()
    assert deletes.freed == 1


def test_numpy_refcount_comes_back(lua):
    a = np.arange(6.0)
    before = sys.getrefcount(a)
    lua.eval("kept = dlx.from_dlpack(...)", a)
    assert sys.getrefcount(a) == before + 1  # the export holds the array
    lua.eval("kept:close(); kept = nil")
    assert sys.getrefcount(a) == before


def test_a_capsule_is_consumed_once(lua):
    capsule = np.arange(3.0).__dlpack__()
    assert lua.eval("return dlx.from_dlpack(...):sum():item()", capsule) == 3
    with pytest.raises(ValueError, match="consumed"):
        lua.eval("return dlx.from_dlpack(...)", capsule)


def test_a_lua_capsule_is_consumed_once_by_numpy(lua):
    class SameCapsule:  # hands out one capsule every time
        def __init__(self, capsule):
            self.capsule = capsule

        def __dlpack__(self, **kwargs):
            return self.capsule

        def __dlpack_device__(self):
            return (1, 0)

    once = SameCapsule(lua.eval("return dlx.ones(2)").__dlpack__())
    assert np.from_dlpack(once).tolist() == [1, 1]
    with pytest.raises(ValueError):
        np.from_dlpack(once)


def test_lua_exports_are_freed(lua):
    before = allocated(lua)
    t = lua.eval("return dlx.ones({100, 100})")
    a = np.from_dlpack(t)
    unconsumed = t.__dlpack__(max_version=(1, 3))
    legacy = t.__dlpack__()  # both kinds: dlx_pycapsule_destructor deletes unconsumed ones
    del t
    collect(lua)
    assert allocated(lua) > before  # a and the capsules hold the buffer
    del a, unconsumed, legacy
    collect(lua)
    assert allocated(lua) == before


def test_thousands_of_round_trips_leak_nothing(lua):
    code = ("local t = dlx.from_dlpack(...); local s = t:sum(1)\n"
            "return t:transpose(1, 2), s")

    def trips(count):
        for i in range(count):
            a = np.full((16, 16), float(i))
            t, s = lua.eval(code, a)
            back, sums = np.from_dlpack(t), np.from_dlpack(s)
            assert back[0, 0] == i and sums[0] == 16 * i

    trips(500)  # warm up the allocators
    collect(lua)
    allocated_before, rss_before = allocated(lua), rss_bytes()
    trips(3000)
    collect(lua)
    assert allocated(lua) == allocated_before
    assert rss_bytes() - rss_before < 8 << 20


def test_errors_carry_their_class(lua):
    # a class dlx raised in C, and one a script names at the start of its message
    with pytest.raises(dlx_host.LuaValueError, match="ValueError: "):
        lua.eval("return dlx.zeros{-1}")
    with pytest.raises(dlx_host.LuaDeviceError):
        lua.eval("return dlx.device('cuda:4096')")
    with pytest.raises(dlx_host.LuaTypeError):
        lua.eval("error('TypeError: from the script')")
    # a class word further on, an error table: no dlx class
    for chunk in ("error('while loading: TypeError: no')", "error({})"):
        with pytest.raises(dlx_host.LuaError) as raised:
            lua.eval(chunk)
        assert type(raised.value) is dlx_host.LuaError


def test_lua_tensor_describes_itself(lua):
    t = lua.eval("return dlx.zeros({2, 3}, {dtype = 'int16'})")
    assert t.shape == (2, 3) and t.dtype == "int16" and t.readonly is False
    assert repr(t) == "LuaTensor(shape=(2, 3), dtype=int16)"
    # a broadcast view comes back through DLPack read-only; a 0-d tensor has the shape ()
    ro = lua.eval("return dlx.from_dlpack(dlx.zeros{1}:expand{3})")
    assert ro.shape == (3,) and ro.dtype == "float32" and ro.readonly is True
    assert repr(ro) == "LuaTensor(shape=(3,), dtype=float32, readonly)"
    assert lua.eval("return dlx.tensor(7)").shape == ()
    t.release()
    assert repr(t) == "LuaTensor(released)"
    with pytest.raises(ValueError, match="released"):
        t.shape


def test_lua_tensor_after_close():
    state = dlx_host.LuaState()
    t = state.eval('return require("dlx").zeros(2)')
    state.close()
    assert repr(t) == "LuaTensor(released)"
    with pytest.raises(ValueError, match="closed"):
        t.dtype


# ---- elementwise promotion against NumPy 2 (docs/elementwise.md)

PROMOTE_ALL = """
local names = {...}
local out = {}
for i, a in ipairs(names) do
  for j, b in ipairs(names) do
    out[#out + 1] = (dlx.zeros({1}, {dtype = a}) + dlx.zeros({1}, {dtype = b})).dtype
  end
end
return out
"""


def dlx_follows_pytorch(a, b):
    """The cells where dlx takes the float or complex operand's dtype (as PyTorch) and NumPy may
    widen it to hold the integer: an integer with a float or a complex dtype."""
    kinds = {np.dtype(a).kind, np.dtype(b).kind}
    return bool(kinds & {"i", "u"}) and bool(kinds & {"f", "c"})


@pytest.mark.skipif(not NUMPY2, reason="the promotion rules dlx follows are NumPy 2's; the "
                    "numpy2 run checks them")
def test_promotion_table_cell_by_cell(lua):
    got = lua.eval(PROMOTE_ALL, *DTYPES)
    cells = 0
    for i, a in enumerate(DTYPES):
        for j, b in enumerate(DTYPES):
            ours = got[i * len(DTYPES) + j]
            if dlx_follows_pytorch(a, b):
                real = a if np.dtype(a).kind in "fc" else b
                assert ours == real, (a, b, ours)
            else:
                assert ours == np.result_type(a, b).name, (a, b, ours)
            cells += 1
    assert cells == len(DTYPES) ** 2


@pytest.mark.skipif(not NUMPY2, reason="NEP 50 weak scalars are NumPy 2's rule")
def test_weak_scalars_as_nep50(lua):
    for dtype in ["int8", "uint8", "int32", "float16", "float32", "float64"]:
        ours = lua.eval("return (dlx.zeros({1}, {dtype = ...}) + 1).dtype", dtype)
        assert ours == (np.zeros(1, dtype) + 1).dtype.name
    with pytest.raises(OverflowError):
        np.zeros(1, "uint8") + 300
    with pytest.raises(dlx_host.LuaError, match="ValueError"):
        lua.eval("return dlx.zeros({1}, {dtype = 'uint8'}) + 300")


def test_arithmetic_matches_numpy(lua):
    rng = np.random.default_rng(13)
    a = rng.integers(-50, 50, size=(4, 5)).astype("int32")
    b = rng.standard_normal((5,)).astype("float32")
    for op, fn in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                   ("div", np.true_divide)]:
        got = np.from_dlpack(lua.eval("local a, b = ...; return dlx.%s(dlx.from_dlpack(a), "
                                      "dlx.from_dlpack(b))" % op, a, b))
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, fn(a.astype("float32"), b), rtol=1e-6)


# ---- property test: random ops, dtypes, shapes and layouts against NumPy 2

PROPERTY_OPS = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floor_divide": np.floor_divide, "remainder": np.remainder, "maximum": np.maximum,
    "minimum": np.minimum, "eq": np.equal, "ne": np.not_equal, "lt": np.less,
    "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor, "atan2": np.arctan2, "hypot": np.hypot,
    "copysign": np.copysign, "fmod": np.fmod,
}
FLOAT_ONLY = {"div", "atan2", "hypot", "copysign"}
INTEGER_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor"}
PROPERTY_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                   "float16", "float32", "float64"]


def random_operand(rng, dtype, shape):
    """Values of dtype in a random layout: transposed, stepped or reversed views of a bigger
    array, which dlx imports as they are."""
    if np.dtype(dtype).kind == "f":
        base = np.asarray(rng.standard_normal(shape) * 10).astype(dtype)
    else:
        info = np.iinfo(dtype)
        base = np.asarray(rng.integers(max(info.min, -100), min(info.max, 100), size=shape,
                                       endpoint=True, dtype=dtype))
    layout = rng.integers(4) if base.ndim > 0 else 0
    if layout == 1 and base.ndim >= 2:
        return np.ascontiguousarray(base.swapaxes(0, -1)).swapaxes(0, -1)
    if layout == 2:
        wide = np.repeat(base, 2, axis=-1)
        return wide[..., ::2]
    if layout == 3:
        flipped = np.ascontiguousarray(base[..., ::-1])
        return flipped[..., ::-1]
    return base


def random_shapes(rng):
    ndim = int(rng.integers(0, 4))
    shape = [int(rng.integers(1, 6)) for _ in range(ndim)]
    other = [s if rng.random() < 0.6 else 1 for s in shape]
    if rng.random() < 0.3:
        other = other[int(rng.integers(0, ndim + 1)):]
    return (shape, other) if rng.random() < 0.5 else (other, shape)


@pytest.mark.skipif(not NUMPY2, reason="NumPy 2's promotion and bool export")
def test_elementwise_property_against_numpy(lua):
    seed = 20261113
    rng = np.random.default_rng(seed)
    for trial in range(300):
        name = list(PROPERTY_OPS)[int(rng.integers(len(PROPERTY_OPS)))]
        candidates = [d for d in PROPERTY_DTYPES
                      if not (name in FLOAT_ONLY and np.dtype(d).kind != "f")
                      and not (name in INTEGER_ONLY and np.dtype(d).kind == "f")]
        dtype = candidates[int(rng.integers(len(candidates)))]
        sa, sb = random_shapes(rng)
        a, b = random_operand(rng, dtype, sa), random_operand(rng, dtype, sb)
        if name in ("floor_divide", "remainder", "fmod") and np.dtype(dtype).kind != "f":
            b = np.asarray(np.where(b == 0, np.ones_like(b), b))
        where = "seed %d, trial %d: %s on %s %s and %s" % (seed, trial, name, dtype, sa, sb)
        got = np.from_dlpack(lua.eval("local a, b = ...; return dlx.%s(dlx.from_dlpack(a), "
                                      "dlx.from_dlpack(b))" % name,
                                      a.__dlpack__(), b.__dlpack__()))
        want = PROPERTY_OPS[name](a, b)
        assert got.shape == want.shape, where
        assert got.dtype == want.dtype, where
        if name in ("atan2", "hypot"):
            np.testing.assert_allclose(got, want, rtol=4e-3 if dtype == "float16" else 1e-6,
                                       err_msg=where)
        else:
            np.testing.assert_array_equal(got, want, err_msg=where)


# ---- property test: var, std, logsumexp, norm, cumsum, cumprod, softmax, log_softmax

def _softmax64(x, axis, log):
    x = x.astype("float64")
    m = np.max(x, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return x - lse if log else np.exp(x - lse)


STATS_OPS = {
    "var": lambda x, ax, c: np.var(x.astype("float64"), axis=ax, ddof=c),
    "std": lambda x, ax, c: np.std(x.astype("float64"), axis=ax, ddof=c),
    "logsumexp": lambda x, ax, c: np.log(np.sum(np.exp(x.astype("float64")), axis=ax)),
    "norm": lambda x, ax, p: np.linalg.vector_norm(x.astype("float64"), ord=p, axis=ax),
}
ALONG_OPS = {
    "cumsum": lambda x, ax: np.cumsum(x, axis=ax, dtype="int64" if x.dtype.kind in "iub"
                                      else None),
    "cumprod": lambda x, ax: np.cumprod(x, axis=ax, dtype="int64" if x.dtype.kind in "iub"
                                        else None),
    "softmax": lambda x, ax: _softmax64(x, ax, False),
    "log_softmax": lambda x, ax: _softmax64(x, ax, True),
}


@pytest.mark.skipif(not NUMPY2, reason="np.linalg.vector_norm is NumPy 2's")
def test_reductions_stats_property_against_numpy(lua):
    seed = 20261123
    rng = np.random.default_rng(seed)
    names = list(STATS_OPS) + list(ALONG_OPS)
    for trial in range(200):
        name = names[int(rng.integers(len(names)))]
        dtypes = ["float32", "float64"] + (["int16", "int64"] if name.startswith("cum") else [])
        dtype = dtypes[int(rng.integers(len(dtypes)))]
        shape = [int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 4)))]
        a = random_operand(rng, dtype, shape)
        if name == "cumprod":
            a = np.asarray(np.clip(a, -3, 3)).astype(dtype)
        axis = int(rng.integers(len(shape)))
        where = "seed %d, trial %d: %s on %s %s, dim %d" % (seed, trial, name, dtype, shape,
                                                            axis + 1)
        if name in STATS_OPS:
            param = (float(rng.integers(0, 2)) if name in ("var", "std")
                     else [1, 2, float("inf")][int(rng.integers(3))] if name == "norm" else 0)
            key = "p" if name == "norm" else "correction"
            got = np.from_dlpack(lua.eval(
                "local a, dim, param = ...; return dlx.from_dlpack(a):%s{dim = dim, %s = param}"
                % (name, key) if name != "logsumexp" else
                "local a, dim = ...; return dlx.from_dlpack(a):logsumexp(dim)",
                a.__dlpack__(), axis + 1, param))
            with np.errstate(divide="ignore", invalid="ignore"):
                want = STATS_OPS[name](a, axis, param)
        else:
            got = np.from_dlpack(lua.eval("local a, dim = ...; return dlx.from_dlpack(a):%s(dim)"
                                          % name, a.__dlpack__(), axis + 1))
            want = ALONG_OPS[name](a, axis)
        assert got.shape == want.shape, where
        assert got.dtype == (want.dtype if name.startswith("cum") else a.dtype), where
        rtol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-4 if dtype == "float32" else 1e-10,
                                   err_msg=where)


# ---- .npy files: NumPy writes, dlx reads; dlx writes, NumPy reads ----------------------------

# Loads the file (a copy, and a mapping where the bytes need no swapping) and compares the
# tensor's C-order bytes with the .bin file beside it, which NumPy wrote from the same array.
LOAD_AND_COMPARE = """
local npy, bin, mapped = ...
local f = assert(io.open(bin, "rb"))
local want = f:read("a")
f:close()
local t = dlx.load_npy(npy)
local m = mapped and dlx.load_npy(npy, {mmap = true}) or nil
return t.dtype, t.shape, t:tobytes() == want, m == nil or (m:tobytes() == want and m.readonly)
"""


def c_order_native_bytes(a):
    return np.ascontiguousarray(a.astype(a.dtype.newbyteorder("="))).tobytes()


@pytest.mark.parametrize("fortran", [False, True])
@pytest.mark.parametrize("order", ["<", ">"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_npy_files_numpy_writes_dlx_loads(lua, tmp_path, dtype, order, fortran):
    a = (np.arange(24) - 5).astype(np.dtype(dtype).newbyteorder(order)).reshape(2, 3, 4)
    if fortran:
        a = np.asfortranarray(a)
    swapped = order == ">" and a.dtype.itemsize > 1
    for version in [(1, 0), (2, 0), (3, 0)]:
        npy, bin_ = tmp_path / "a.npy", tmp_path / "a.bin"
        with open(npy, "wb") as f:
            np.lib.format.write_array(f, a, version=version)
        bin_.write_bytes(c_order_native_bytes(a))
        got_dtype, shape, same, mapped_same = lua.eval(LOAD_AND_COMPARE, str(npy), str(bin_),
                                                       not swapped)
        assert got_dtype == dtype and tuple(shape) == (2, 3, 4)
        assert same and mapped_same, (dtype, order, fortran, version)


@pytest.mark.parametrize("dtype", DTYPES)
def test_npy_files_dlx_writes_numpy_loads(lua, tmp_path, dtype):
    for shape, layout in [("{2, 3, 4}", "b"), ("{2, 3, 4}", "b:transpose(1, 3)"), ("{}", "b"),
                          ("{0, 3}", "b")]:
        path = tmp_path / "b.npy"
        raw = tmp_path / "b.bin"
        lua.eval("""local path, raw = ...
                    local n = 1
                    for _, s in ipairs(%s) do n = n * s end
                    local v = dlx.arange(n):astype(%r):view(%s)
                    v = %s
                    dlx.save_npy(path, v)
                    local f = assert(io.open(raw, "wb"))
                    f:write(v:tobytes())
                    f:close()""" % (shape, dtype, shape, layout.replace("b", "v", 1)),
                 str(path), str(raw))
        a = np.load(path)
        assert a.dtype == np.dtype(dtype)
        assert a.tobytes() == raw.read_bytes()
        assert a.flags.c_contiguous
        b = np.load(path, mmap_mode="r")  # NumPy maps what dlx wrote, too
        assert np.array_equal(a, b)
