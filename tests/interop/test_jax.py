"""JAX <-> Lua through dlx_host, both directions, zero-copy where JAX allows it.

Runs with JAX from pip (CPU wheels) in a virtual environment (cmake/DlxInterop.cmake). What JAX
does differs from NumPy and PyTorch, and between its versions; the tests ask JAX what it does
(which capsule kind it asks for and gives) instead of assuming:
- JAX arrays are immutable, and C-contiguous or transposed: JAX refuses other strides on import
  (steps, negative strides, stride 0) with its own error;
- JAX 0.10 asks for, and gives, legacy capsules only, even when asked for max_version.
"""

import gc

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from conftest import (IMPORT_AND_DESCRIBE, LAYOUTS, FLIPPED, allocated, asks_versioned, collect,
                      lua_view)
import dlx_host

jax.config.update("jax_enable_x64", True)  # float64 and int64 as themselves

# Every dtype JAX has that DLPack can carry, by dlx's name (JAX has bool and bfloat16).
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]

# The layouts JAX can take: compact strides, in any order of dims.
JAX_LAYOUTS = ["contiguous", "zero_d", "zero_size", "one_element", "large", "transposed",
               "offset_subview"]
# Strides that are not a permutation of compact ones: JAX refuses them.
JAX_REFUSES = {"sliced_steps": LAYOUTS["sliced_steps"], "flipped": FLIPPED}

JAX_ASKS_VERSIONED = asks_versioned(jnp.from_dlpack)
JAX_CAPSULE = dlx_host.describe_capsule(
    jnp.zeros(1).__dlpack__(max_version=dlx_host.DLPACK_MAX_VERSION))["name"]


def jax_view(dtype, layout):
    """The JAX array with the values of the layout's Lua view (conftest.LAYOUTS)."""
    shape, _ = LAYOUTS[layout]
    with np.errstate(over="ignore"):  # float16 has no room for 2**20 values: inf, as in dlx
        base = np.arange(int(np.prod(shape))).astype(jnp.dtype(dtype)).reshape(shape)
    view = {
        "contiguous": lambda b: b,
        "zero_d": lambda b: b[2],
        "zero_size": lambda b: b[1:1],
        "one_element": lambda b: b[4:5],
        "large": lambda b: b,
        "transposed": lambda b: b.transpose(2, 1, 0),
        "offset_subview": lambda b: b.reshape(-1)[5:15],
    }[layout](base)
    return jnp.asarray(view)


# ---- JAX -> Lua ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_jax_to_lua(lua, dtype):
    a = jnp.arange(24).astype(dtype).reshape(2, 3, 4)
    name, flags, lua_dtype, shape, strides, readonly, copy = lua.eval(IMPORT_AND_DESCRIBE, a)
    assert name == JAX_CAPSULE
    assert lua_dtype == dtype and tuple(shape) == (2, 3, 4) and list(strides) == [12, 4, 1]
    if name == "dltensor_versioned":
        assert readonly == bool(flags & dlx_host.DLPACK_FLAG_READ_ONLY)
    assert np.array_equal(np.asarray(jnp.from_dlpack(copy)), np.asarray(a))


def test_jax_scalars_and_empty_arrays_to_lua(lua):
    assert lua.eval("return dlx.from_dlpack(...):item()", jnp.array(2.5)) == 2.5
    assert lua.eval("local t = dlx.from_dlpack(...); return t.numel, t.shape[1]",
                    jnp.zeros((0, 3))) == (0, 0)


def test_lua_reads_jax_memory_without_copying(lua):
    a = jnp.arange(1 << 16, dtype=jnp.float32)
    total = lua.eval("kept = dlx.from_dlpack(...); return kept:sum():item()", a)
    assert total == float(np.arange(1 << 16, dtype=np.float64).sum())
    back = jnp.from_dlpack(lua.eval("return kept"))
    assert back.unsafe_buffer_pointer() == a.unsafe_buffer_pointer()


# ---- Lua -> JAX ------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", JAX_LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_lua_to_jax(lua, dtype, layout):
    expected = jax_view(dtype, layout)
    got = jnp.from_dlpack(lua_view(lua, dtype, LAYOUTS[layout]))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(np.asarray(got), np.asarray(expected))


@pytest.mark.parametrize("layout", sorted(JAX_REFUSES))
def test_jax_refuses_strides_with_its_own_error(lua, layout):
    # The caller sees JAX's own error (neither SystemError nor dlx's), and the deleter runs.
    before = allocated(lua)
    view = lua_view(lua, "float32", JAX_REFUSES[layout])
    with pytest.raises(Exception, match="strid") as raised:
        jnp.from_dlpack(view)
    assert not isinstance(raised.value, (SystemError, dlx_host.LuaError))
    del view, raised
    collect(lua)
    assert allocated(lua) == before


def test_broadcast_views_to_jax(lua):
    view = lua_view(lua, "float32", LAYOUTS["broadcast"])
    if not JAX_ASKS_VERSIONED:
        # dlx exports a broadcast view READ_ONLY, which a legacy capsule cannot say: refused
        with pytest.raises(BufferError, match="broadcast view"):
            jnp.from_dlpack(view)
    else:
        with pytest.raises(Exception, match="strid"):  # JAX takes no stride 0 either
            jnp.from_dlpack(view)
    # a copy goes: what a script hands a legacy-only consumer
    copied = jnp.from_dlpack(lua.eval("return (...):contiguous()", view))
    assert copied.shape == (3, 4) and np.asarray(copied).tolist() == [[0, 1, 2, 3]] * 3


def test_jax_shares_lua_memory(lua):
    t = lua.eval("kept = dlx.zeros(4, {dtype = 'float32'}); return kept")
    data = dlx_host.describe_capsule(t.__dlpack__())["data"]
    a = jnp.from_dlpack(t)
    assert a.unsafe_buffer_pointer() == data  # zero-copy
    lua.eval("kept:fill_(3)")
    assert np.asarray(a).tolist() == [3, 3, 3, 3]


def test_jax_frees_lua_memory(lua):
    before = allocated(lua)
    arrays = [jnp.from_dlpack(lua.eval("return dlx.ones({100, 100})")) for _ in range(3)]
    collect(lua)
    assert allocated(lua) > before
    del arrays
    gc.collect()
    collect(lua)
    assert allocated(lua) == before


def test_round_trips_leak_nothing(lua):
    code = "local t = dlx.from_dlpack(...); return t:sum(1)"
    for i in range(300):
        sums = jnp.from_dlpack(lua.eval(code, jnp.full((16, 16), float(i))))
        assert float(sums[0]) == 16 * i
    collect(lua)
    before = allocated(lua)
    for i in range(1000):
        jnp.from_dlpack(lua.eval(code, jnp.full((16, 16), float(i))))
    collect(lua)
    assert allocated(lua) == before
