"""dlx_host -- run Lua scripts with dlx from Python, exchanging arrays through DLPack.

A small host in plain Python: it loads dlx's shared library (libdlx.so) and Lua's
(liblua5.4.so.0) with ctypes, so its users need no compiler. Arrays cross in both directions
without copying:

    import numpy as np
    from dlx_host import LuaState

    with LuaState() as lua:
        lua.load_file("double.lua")          # returns a table of functions
        a = np.arange(6, dtype=np.float32)
        out = lua.call("double", a)          # the script gets a DLPack capsule of `a`
        b = np.from_dlpack(out)              # or torch.from_dlpack(out)

Python -> Lua: any object with ``__dlpack__`` (NumPy, PyTorch, ...) or a raw DLPack PyCapsule
becomes a dlx capsule; the script turns it into a tensor with ``dlx.from_dlpack(x)``. The host
asks for a versioned capsule first (``max_version=(1, 3)``) and falls back to a legacy one for
producers that do not know the keyword (PyTorch 1.13, NumPy 1.x). It consumes the PyCapsule
exactly once: it renames it ``used_dltensor[_versioned]`` before handing the struct to dlx, so
the producer's capsule destructor will not call the deleter; dlx calls it once, when the Lua
tensor is closed or collected, or at ``close()``.

Lua -> Python: a dlx tensor (or a capsule, or a value with ``__dlpack``) that a script returns
becomes a ``LuaTensor``, which has ``__dlpack__`` and ``__dlpack_device__``, so
``numpy.from_dlpack`` and ``torch.from_dlpack`` accept it. Each ``__dlpack__`` call returns a
real PyCapsule holding a struct that dlx exported.

Why dlx's deleter matters here. The capsules this module makes hold structs whose deleter is
dlx's own, which only drops a reference on an atomically refcounted C buffer: it never touches a
lua_State and needs no GIL. PyTorch frees storage on whatever thread drops the last reference,
without the GIL (the cause of numpy#22507), and Python frees arrays in any order at exit. Both
are safe: an array made from a ``LuaTensor`` stays valid after ``LuaState.close()``, and may be
freed on any thread. A deleter written in Python (a ctypes callback) would need the GIL and a
live interpreter, and would crash at exit.

The other way round, Lua runs without the GIL (ctypes releases it during foreign calls), so the
deleters of NumPy and PyTorch that dlx calls from Lua's collector must take the GIL themselves,
which both do.
"""

import contextlib
import ctypes
import ctypes.util
import os
import threading

__all__ = [
    "LuaState",
    "LuaTensor",
    "LuaError",
    "LuaTypeError",
    "LuaValueError",
    "LuaBufferError",
    "LuaMemoryError",
    "LuaDeviceError",
    "describe_capsule",
]

# ---- DLPack structs (include/dlpack/dlpack.h) ---------------------------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


DLPACK_MAX_VERSION = (1, 3)  # the version dlx speaks
DLPACK_FLAG_READ_ONLY = 1
DLPACK_FLAG_IS_COPIED = 2

# ---- PyCapsules ----------------------------------------------------------------------------------
# Capsule names must outlive every capsule that points at them. These buffers are module
# globals that are never freed: _immortal() leaks one reference to each on purpose, so that they
# survive even module teardown at interpreter exit, when the last capsules may still die.


def _immortal(obj):
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))
    return obj


_NAMES = {
    name: _immortal(ctypes.create_string_buffer(name))
    for name in (b"dltensor", b"dltensor_versioned", b"used_dltensor", b"used_dltensor_versioned")
}


def _name_ptr(name):
    return ctypes.addressof(_NAMES[name])


# The capsule functions the host calls (names and destructors go as addresses, c_void_p).
_pyapi = ctypes.pythonapi
_PyCapsule_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p,
                                   ctypes.c_void_p)(("PyCapsule_New", _pyapi))
_PyCapsule_IsValid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object,
                                       ctypes.c_char_p)(("PyCapsule_IsValid", _pyapi))
_PyCapsule_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object,
                                          ctypes.c_char_p)(("PyCapsule_GetPointer", _pyapi))
_PyCapsule_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object,
                                       ctypes.c_void_p)(("PyCapsule_SetName", _pyapi))
_PyCapsule_GetName = ctypes.PYFUNCTYPE(ctypes.c_char_p,
                                       ctypes.py_object)(("PyCapsule_GetName", _pyapi))

# PYFUNCTYPE keeps the GIL during the call: dlx's deleter does not need it, and it is short.
_DLPACK_DELETER = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)


def _call_deleter(managed_ptr, struct_type):
    """Calls the DLPack deleter of the struct at managed_ptr, when it has one."""
    managed = struct_type.from_address(managed_ptr)
    if managed.deleter:
        _DLPACK_DELETER(managed.deleter)(managed_ptr)


# The capsules' destructor is libdlx's dlx_pycapsule_destructor (include/dlx.h), not a
# ctypes callback: a consumer whose import failed (NumPy refusing bfloat16) drops the capsule with
# its exception pending, and Python code cannot run then. A callback would have to set the
# exception aside and restore it, which Python reports as unraisable, and the consumer raises
# SystemError ("returned NULL without setting an exception") instead of its own error. The C
# destructor runs no Python code: the caller sees the consumer's error.


def _new_capsule(managed_ptr, versioned, destructor):
    """A PyCapsule that owns managed_ptr (a DLManagedTensor[Versioned] *); destructor is the
    address of dlx_pycapsule_destructor."""
    name = b"dltensor_versioned" if versioned else b"dltensor"
    try:
        return _PyCapsule_New(managed_ptr, _name_ptr(name), destructor)
    except BaseException:
        _call_deleter(managed_ptr, DLManagedTensorVersioned if versioned else DLManagedTensor)
        raise


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def _take_capsule(capsule):
    """Consumes a DLPack PyCapsule: returns (pointer, versioned) after renaming the capsule
    "used_...", so that from now on the caller owns the tensor (the producer's destructor only
    deletes tensors of unused capsules). A used or foreign capsule is a ValueError."""
    for name, versioned in ((b"dltensor_versioned", True), (b"dltensor", False)):
        if _PyCapsule_IsValid(capsule, name):
            pointer = _PyCapsule_GetPointer(capsule, name)
            if _PyCapsule_SetName(capsule, _name_ptr(b"used_" + name)) != 0:
                raise RuntimeError("PyCapsule_SetName failed")
            return pointer, versioned
    name = _PyCapsule_GetName(capsule)
    if name is not None and name.startswith(b"used_"):
        raise ValueError("the DLPack capsule was already consumed")
    raise ValueError("not a DLPack capsule (name %r)" % name)


def _capsule_of(obj):
    """A DLPack capsule for obj: versioned when the producer can, legacy otherwise."""
    if _is_capsule(obj):
        return obj
    try:
        return obj.__dlpack__(max_version=DLPACK_MAX_VERSION)
    except TypeError:
        # An older producer (PyTorch 1.13, NumPy < 2) has no max_version keyword.
        return obj.__dlpack__()


# ---- Lua and dlx through ctypes ---------------------------------------------------------------

LUA_REGISTRYINDEX = -1000000 - 1000  # -LUAI_MAXSTACK - 1000 (Lua 5.4)
LUA_OK, LUA_ERRMEM = 0, 4
LUA_TNIL, LUA_TBOOLEAN, LUA_TNUMBER, LUA_TSTRING, LUA_TTABLE = 0, 1, 3, 4, 5
LUA_MULTRET = -1

# dlx's error classes (include/dlx_errclass.h): what dlx's host functions and dlx_error_class
# return.
DLX_OK, DLX_TYPE_ERROR, DLX_VALUE_ERROR, DLX_BUFFER_ERROR = 0, 1, 2, 3
DLX_DEVICE_ERROR, DLX_MEMORY_ERROR, DLX_LUA_ERROR = 4, 5, 6


class LuaError(RuntimeError):
    """An error raised in Lua; the subclasses carry dlx's error class."""


class LuaTypeError(LuaError, TypeError):
    pass


class LuaValueError(LuaError, ValueError):
    pass


class LuaBufferError(LuaError, BufferError):
    pass


class LuaMemoryError(LuaError, MemoryError):
    pass


class LuaDeviceError(LuaError):
    pass


_EXCEPTIONS = {
    DLX_TYPE_ERROR: LuaTypeError,
    DLX_VALUE_ERROR: LuaValueError,
    DLX_BUFFER_ERROR: LuaBufferError,
    DLX_DEVICE_ERROR: LuaDeviceError,
    DLX_MEMORY_ERROR: LuaMemoryError,
}


def _default_libdlx():
    """DLX_LIBRARY, else build/libdlx.so of this repository, else the system's libdlx."""
    path = os.environ.get("DLX_LIBRARY")
    if path:
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "build", "libdlx.so")
    if os.path.exists(path):
        return path
    return ctypes.util.find_library("dlx") or "libdlx.so.0"


def _bind(lib, name, restype, *argtypes):
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = argtypes
    return function


class _Api:
    """The Lua C API and dlx's, bound once per library pair."""

    def __init__(self, libdlx, liblua):
        try:
            dlx = ctypes.CDLL(libdlx)
        except OSError as e:
            raise OSError(
                "%s: dlx_host needs libdlx.so: build dlx (build/libdlx.so of this checkout is "
                "found by itself) or set DLX_LIBRARY to its path" % e
            ) from None
        # libdlx.so records liblua5.4.so.0 as a dependency: this is the same Lua.
        lua = ctypes.CDLL(liblua)
        P, I, V = ctypes.c_void_p, ctypes.c_int, None
        I64, SZ, S = ctypes.c_int64, ctypes.c_size_t, ctypes.c_char_p
        self.newstate = _bind(lua, "luaL_newstate", P)
        self.openlibs = _bind(lua, "luaL_openlibs", V, P)
        self.close = _bind(lua, "lua_close", V, P)
        self.loadbufferx = _bind(lua, "luaL_loadbufferx", I, P, S, SZ, S, S)
        self.pcallk = _bind(lua, "lua_pcallk", I, P, I, I, I, ctypes.c_ssize_t, P)
        self.gettop = _bind(lua, "lua_gettop", I, P)
        self.settop = _bind(lua, "lua_settop", V, P, I)
        self.checkstack = _bind(lua, "lua_checkstack", I, P, I)
        self.pushvalue = _bind(lua, "lua_pushvalue", V, P, I)
        self.rotate = _bind(lua, "lua_rotate", V, P, I, I)
        self.getglobal = _bind(lua, "lua_getglobal", I, P, S)
        self.type = _bind(lua, "lua_type", I, P, I)
        self.pushnil = _bind(lua, "lua_pushnil", V, P)
        self.pushboolean = _bind(lua, "lua_pushboolean", V, P, I)
        self.pushinteger = _bind(lua, "lua_pushinteger", V, P, I64)
        self.pushnumber = _bind(lua, "lua_pushnumber", V, P, ctypes.c_double)
        self.pushlstring = _bind(lua, "lua_pushlstring", P, P, S, SZ)
        self.createtable = _bind(lua, "lua_createtable", V, P, I, I)
        self.seti = _bind(lua, "lua_seti", V, P, I, I64)
        self.setfield = _bind(lua, "lua_setfield", V, P, I, S)
        self.getfield = _bind(lua, "lua_getfield", I, P, I, S)
        self.next = _bind(lua, "lua_next", I, P, I)
        self.toboolean = _bind(lua, "lua_toboolean", I, P, I)
        self.isinteger = _bind(lua, "lua_isinteger", I, P, I)
        self.tointegerx = _bind(lua, "lua_tointegerx", I64, P, I, P)
        self.tonumberx = _bind(lua, "lua_tonumberx", ctypes.c_double, P, I, P)
        self.tolstring = _bind(lua, "lua_tolstring", P, P, I, ctypes.POINTER(SZ))
        self.rawgeti = _bind(lua, "lua_rawgeti", I, P, I, I64)
        self.ref = _bind(lua, "luaL_ref", I, P, I)
        self.unref = _bind(lua, "luaL_unref", V, P, I, I)
        self.dlx_openlibs = _bind(dlx, "dlx_openlibs", V, P)
        self.push_capsule = _bind(dlx, "dlx_push_capsule", I, P, P)
        self.push_capsule_legacy = _bind(dlx, "dlx_push_capsule_legacy", I, P, P)
        self.to_dlpack = _bind(dlx, "dlx_to_dlpack", I, P, I, ctypes.POINTER(P))
        self.to_dlpack_legacy = _bind(dlx, "dlx_to_dlpack_legacy", I, P, I, ctypes.POINTER(P))
        self.error_class = _bind(dlx, "dlx_error_class", I, P, I)
        # an address for PyCapsule_New; the library stays loaded as long as the process (ctypes
        # never unloads one), so capsules may outlive every LuaState
        self.capsule_destructor = ctypes.cast(dlx.dlx_pycapsule_destructor, P).value


# Lua helpers the host calls, kept in the registry. `as_tensor` gives the dlx tensor behind a
# returned value (nil for plain values); `export` asks a tensor for a capsule with the keywords
# of the Python protocol and says which kind it gave.
_PRELUDE = b"""
local dlx = require "dlx"
local host = {}
function host.as_tensor(v)
  if dlx.is_tensor(v) then return v end
  if dlx.is_capsule(v) then return dlx.from_dlpack(v) end
  local kind = type(v)
  if kind == "table" or kind == "userdata" then
    local ok, method = pcall(function() return v.__dlpack end)
    if ok and type(method) == "function" then return dlx.from_dlpack(v) end
  end
  return nil
end
function host.export(t, max_version, dl_device, copy, stream)
  local capsule = t:__dlpack{max_version = max_version, dl_device = dl_device, copy = copy,
                             stream = stream}
  return capsule, capsule.name == "dltensor_versioned"
end
function host.device(t) return t:__dlpack_device() end
function host.describe(t) return t.shape, t.dtype, t.readonly end
return host
"""


class LuaState:
    """One Lua state with the standard libraries and dlx (``require "dlx"`` works with no files
    on disk). A lock serialises the calls: a Lua state runs on one thread at a time."""

    def __init__(self, libdlx=None, liblua="liblua5.4.so.0"):
        self._api = _Api(libdlx or _default_libdlx(), liblua)
        self._lock = threading.RLock()
        self._dead_refs = []  # registry refs of collected LuaTensors, released at the next call
        self._module_ref = None
        self._L = self._api.newstate()
        if not self._L:
            raise MemoryError("luaL_newstate failed")
        self._api.openlibs(self._L)
        self._api.dlx_openlibs(self._L)
        self._host_ref = self._load_module(_PRELUDE, "=dlx_host")

    # -- life cycle

    def close(self):
        """Closes the Lua state. The deleters of the arrays that Lua still holds run now; the
        arrays taken from LuaTensors stay valid (dlx's deleters need no Lua state)."""
        with self._lock:
            if self._L:
                self._api.close(self._L)
                self._L = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_L", None):
            self.close()

    @property
    def closed(self):
        return not self._L

    # -- running Lua

    def load_file(self, path):
        """Runs the Lua file at path; call() finds functions in the table it returns."""
        with open(path, "rb") as f:
            self.load_string(f.read(), "@" + os.fspath(path))

    def load_string(self, source, chunkname="=python"):
        """Runs a Lua chunk; call() finds functions in the table it returns."""
        with self._lock:
            self._check_open()
            ref = self._load_module(source, chunkname)
            if self._module_ref is not None:
                self._api.unref(self._L, LUA_REGISTRYINDEX, self._module_ref)
            self._module_ref = ref

    def call(self, name, *args):
        """Calls the function `name` of the loaded script's table (else the global of that
        name) with args converted to Lua. Returns None, one value, or a tuple of values."""
        with self._lock:
            self._check_open()
            self._push_function(name)
            return self._call_pushed(args)

    def eval(self, source, *args):
        """Runs a Lua chunk with args as `...`; returns its results like call()."""
        with self._lock:
            self._check_open()
            self._load(source, "=eval")
            return self._call_pushed(args)

    # -- internals; the lock is held from here on

    def _check_open(self):
        if not self._L:
            raise ValueError("the Lua state is closed")
        while self._dead_refs:
            self._api.unref(self._L, LUA_REGISTRYINDEX, self._dead_refs.pop())

    def _load(self, source, chunkname):
        """Pushes the compiled chunk."""
        if isinstance(source, str):
            source = source.encode()
        status = self._api.loadbufferx(self._L, source, len(source), chunkname.encode(), None)
        if status != LUA_OK:
            raise self._pop_error(DLX_MEMORY_ERROR if status == LUA_ERRMEM else DLX_LUA_ERROR)

    def _load_module(self, source, chunkname):
        """Runs a chunk; a registry reference to the table it returns, or None."""
        self._load(source, chunkname)
        self._pcall(0, 1)
        if self._api.type(self._L, -1) != LUA_TTABLE:
            self._api.settop(self._L, -2)
            return None
        return self._api.ref(self._L, LUA_REGISTRYINDEX)

    def _push_function(self, name):
        if self._module_ref is not None:
            self._api.rawgeti(self._L, LUA_REGISTRYINDEX, self._module_ref)
            self._api.getfield(self._L, -1, name.encode())
            self._remove(-2)
            if self._api.type(self._L, -1) != LUA_TNIL:
                return
            self._api.settop(self._L, -2)
        if self._api.getglobal(self._L, name.encode()) == LUA_TNIL:
            self._api.settop(self._L, -2)
            raise LuaError("no Lua function named %r" % name)

    def _remove(self, idx):
        """lua_remove, a macro in lua.h."""
        self._api.rotate(self._L, idx, -1)
        self._api.settop(self._L, -2)

    def _pcall(self, nargs, nresults):
        """lua_pcall of the function below nargs arguments; a Python exception on error."""
        status = self._api.pcallk(self._L, nargs, nresults, 0, 0, None)
        if status == LUA_ERRMEM:
            raise self._pop_error(DLX_MEMORY_ERROR)
        if status != LUA_OK:
            raise self._pop_error(self._api.error_class(self._L, -1))

    def _call_pushed(self, args):
        """Calls the function on top of the stack with args, and converts its results."""
        base = self._api.gettop(self._L) - 1
        try:
            for arg in args:
                self._push(arg)
            self._pcall(len(args), LUA_MULTRET)
            values = [self._to_python(i) for i in range(base + 1, self._api.gettop(self._L) + 1)]
        finally:
            self._api.settop(self._L, base)
        if not values:
            return None
        return values[0] if len(values) == 1 else tuple(values)

    def _pop_error(self, error_class):
        """The exception for the error value on top of the stack (popped), of dlx's class
        error_class (LuaError for DLX_LUA_ERROR and DLX_OK: no dlx class)."""
        message = self._string_at(-1)
        self._api.settop(self._L, -2)
        if message is None:
            message = "(error object is not a string)"
        return _EXCEPTIONS.get(error_class, LuaError)(message)

    def _host_error(self, error_class, top):
        """The exception for a failed dlx host function, which returned error_class. Its message
        is on the stack above top, unless the stack could not grow (then nothing was pushed)."""
        if self._api.gettop(self._L) > top:
            return self._pop_error(error_class)
        return _EXCEPTIONS.get(error_class, LuaError)("dlx: the Lua stack cannot grow")

    def _string_at(self, idx):
        size = ctypes.c_size_t()
        pointer = self._api.tolstring(self._L, idx, ctypes.byref(size))
        if not pointer:
            return None
        return ctypes.string_at(pointer, size.value).decode("utf-8", "replace")

    def _call_host(self, name, nresults, *push_args):
        """Calls the prelude's host.<name> with the values that push_args push."""
        self._api.rawgeti(self._L, LUA_REGISTRYINDEX, self._host_ref)
        self._api.getfield(self._L, -1, name)
        self._remove(-2)
        for push in push_args:
            push()
        self._pcall(len(push_args), nresults)

    # -- Python -> Lua

    def _push(self, value):
        api, L = self._api, self._L
        if not api.checkstack(L, 8):
            raise MemoryError("Lua stack overflow")
        if value is None:
            api.pushnil(L)
        elif isinstance(value, bool):
            api.pushboolean(L, int(value))
        elif isinstance(value, int):
            api.pushinteger(L, value)
        elif isinstance(value, float):
            api.pushnumber(L, value)
        elif isinstance(value, (str, bytes)):
            data = value.encode() if isinstance(value, str) else value
            api.pushlstring(L, data, len(data))
        elif isinstance(value, LuaTensor):
            if value._state is not self or value._ref is None:
                raise ValueError("the LuaTensor is released or belongs to another Lua state")
            api.rawgeti(L, LUA_REGISTRYINDEX, value._ref)
        elif _is_capsule(value) or hasattr(value, "__dlpack__"):
            self._push_array(value)
        elif isinstance(value, (list, tuple)):
            self._push_table(enumerate(value, 1), len(value), 0)
        elif isinstance(value, dict):
            self._push_table(value.items(), 0, len(value))
        else:
            raise TypeError("cannot pass a %s to Lua" % type(value).__name__)

    def _push_array(self, value):
        """Pushes a dlx capsule for an array. The PyCapsule is consumed (renamed) first; from
        then on dlx owns the tensor, even when the push fails."""
        pointer, versioned = _take_capsule(_capsule_of(value))
        push = self._api.push_capsule if versioned else self._api.push_capsule_legacy
        top = self._api.gettop(self._L)
        error_class = push(self._L, pointer)
        if error_class != DLX_OK:
            raise self._host_error(error_class, top)

    def _push_table(self, items, narr, nrec):
        self._api.createtable(self._L, narr, nrec)
        for key, item in items:
            self._push(item)
            if isinstance(key, int):
                self._api.seti(self._L, -2, key)
            else:
                self._api.setfield(self._L, -2, str(key).encode())

    # -- Lua -> Python

    def _to_python(self, idx):
        api, L = self._api, self._L
        kind = api.type(L, idx)
        if kind == LUA_TNIL:
            return None
        if kind == LUA_TBOOLEAN:
            return bool(api.toboolean(L, idx))
        if kind == LUA_TNUMBER:
            if api.isinteger(L, idx):
                return api.tointegerx(L, idx, None)
            return api.tonumberx(L, idx, None)
        if kind == LUA_TSTRING:
            return self._string_at(idx)
        tensor = self._tensor_at(idx)
        if tensor is not None:
            return tensor
        if kind == LUA_TTABLE:
            return self._table_at(idx)
        raise TypeError("cannot convert a Lua value of type %d to Python" % kind)

    def _absolute(self, idx):
        return self._api.gettop(self._L) + idx + 1 if idx < 0 else idx

    def _tensor_at(self, idx):
        """A LuaTensor for the dlx tensor, capsule or __dlpack value at idx, else None."""
        idx = self._absolute(idx)
        self._call_host(b"as_tensor", 1, lambda: self._api.pushvalue(self._L, idx))
        if self._api.type(self._L, -1) == LUA_TNIL:
            self._api.settop(self._L, -2)
            return None
        return LuaTensor(self, self._api.ref(self._L, LUA_REGISTRYINDEX))

    def _table_at(self, idx):
        """A list for a sequence, else a dict."""
        idx = self._absolute(idx)
        items = {}
        self._api.pushnil(self._L)
        while self._api.next(self._L, idx) != 0:
            items[self._to_python(-2)] = self._to_python(-1)
            self._api.settop(self._L, -2)
        keys = range(1, len(items) + 1)
        if items and all(type(k) is int for k in items) and set(items) == set(keys):
            return [items[k] for k in keys]
        return items

    def _release_ref(self, ref):
        """Called when a LuaTensor dies: Lua is not touched here (the tensor may die on any
        thread, or inside another call); the reference is dropped at the next call."""
        self._dead_refs.append(ref)


class LuaTensor:
    """A dlx tensor that a Lua script returned. It speaks the Python DLPack protocol, so
    ``numpy.from_dlpack(t)`` and ``torch.from_dlpack(t)`` take it without copying, and it can be
    passed back to Lua as it is. It lives in its Lua state: export it before ``close()``."""

    def __init__(self, state, ref):
        self._state = state
        self._ref = ref

    def __del__(self):
        self.release()

    def release(self):
        """Drops the Lua reference now (the garbage collector does it otherwise)."""
        ref, self._ref = self._ref, None
        if ref is not None and not self._state.closed:
            self._state._release_ref(ref)

    def _push_self(self):
        self._state._api.rawgeti(self._state._L, LUA_REGISTRYINDEX, self._ref)

    @contextlib.contextmanager
    def _stack(self):
        """Holds the state's lock with the state open and this tensor not released; yields the
        top of the Lua stack, which is restored on the way out."""
        state = self._state
        with state._lock:
            state._check_open()
            if self._ref is None:
                raise ValueError("the LuaTensor was released")
            base = state._api.gettop(state._L)
            try:
                yield base
            finally:
                state._api.settop(state._L, base)

    def _with_tensor(self, name, nresults, *push_args):
        """Calls host.<name>(tensor, ...) under the state's lock; returns the results."""
        state = self._state
        with self._stack() as base:
            state._call_host(name, nresults, self._push_self, *push_args)
            return [state._to_python(base + i + 1) for i in range(nresults)]

    def __dlpack_device__(self):
        device_type, device_id = self._with_tensor(b"device", 2)
        return device_type, device_id

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A PyCapsule for the Python protocol: legacy ("dltensor") when max_version is None or
        has major 0, else versioned ("dltensor_versioned", DLPack 1.3). copy and dl_device follow
        the array API (BufferError when they cannot be met); a CPU tensor takes only stream=None
        (ValueError otherwise)."""
        state = self._state
        with self._stack() as base:
            push = state._push
            state._call_host(
                b"export", 2, self._push_self,
                lambda: push(list(max_version) if max_version is not None else None),
                lambda: push(list(dl_device) if dl_device is not None else None),
                lambda: push(copy), lambda: push(stream))
            versioned = bool(state._api.toboolean(state._L, -1))
            return self._hand_over(base + 1, versioned)

    def _hand_over(self, capsule_idx, versioned):
        """Takes the struct out of the Lua capsule at capsule_idx into a new PyCapsule."""
        state = self._state
        out = ctypes.c_void_p()
        to_dlpack = state._api.to_dlpack if versioned else state._api.to_dlpack_legacy
        top = state._api.gettop(state._L)
        error_class = to_dlpack(state._L, capsule_idx, ctypes.byref(out))
        if error_class != DLX_OK:
            raise state._host_error(error_class, top)
        struct_type = DLManagedTensorVersioned if versioned else DLManagedTensor
        _fold_byte_offset(struct_type.from_address(out.value).dl_tensor)
        return _new_capsule(out.value, versioned, state._api.capsule_destructor)

    @property
    def shape(self):
        return tuple(self._with_tensor(b"describe", 3)[0])

    @property
    def dtype(self):
        return self._with_tensor(b"describe", 3)[1]

    @property
    def readonly(self):
        return self._with_tensor(b"describe", 3)[2]

    def __repr__(self):
        if self._ref is None or self._state.closed:
            return "LuaTensor(released)"
        shape, dtype, readonly = self._with_tensor(b"describe", 3)
        return "LuaTensor(shape=%s, dtype=%s%s)" % (tuple(shape), dtype,
                                                     ", readonly" if readonly else "")


def _fold_byte_offset(dl_tensor):
    """Moves a CPU tensor's byte_offset into its data pointer. dlx exports a view as its buffer
    plus byte_offset, which PyTorch before 2.x ignores on import (it would read from the start of
    the buffer). Both forms are valid DLPack for CPU memory; dlx's deleter reads only
    manager_ctx, so changing data is safe."""
    if dl_tensor.device.device_type == 1 and dl_tensor.byte_offset:  # kDLCPU
        dl_tensor.data = (dl_tensor.data or 0) + dl_tensor.byte_offset
        dl_tensor.byte_offset = 0


def describe_capsule(capsule):
    """What an unconsumed DLPack PyCapsule holds, as a dict: name, version (None for legacy),
    flags, device, dtype (code, bits, lanes), shape, strides (None when NULL), byte_offset and
    data (the address). Reads the struct without consuming the capsule."""
    name = _PyCapsule_GetName(capsule)
    versioned = name == b"dltensor_versioned"
    if name not in (b"dltensor", b"dltensor_versioned"):
        raise ValueError("not an unconsumed DLPack capsule (name %r)" % name)
    struct_type = DLManagedTensorVersioned if versioned else DLManagedTensor
    managed = struct_type.from_address(_PyCapsule_GetPointer(capsule, name))
    dl = managed.dl_tensor
    ndim = dl.ndim
    return {
        "name": name.decode(),
        "version": (managed.version.major, managed.version.minor) if versioned else None,
        "flags": managed.flags if versioned else 0,
        "device": (dl.device.device_type, dl.device.device_id),
        "dtype": (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes),
        "shape": tuple(dl.shape[i] for i in range(ndim)) if dl.shape else None,
        "strides": tuple(dl.strides[i] for i in range(ndim)) if dl.strides else None,
        "byte_offset": dl.byte_offset,
        "data": dl.data or 0,
    }
