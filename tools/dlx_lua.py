"""dlx_lua: dlx in a Python process, through ctypes, for the GPU interop test and benchmark.

Loads libdlx.so.0 (built with the CUDA backend) and Lua 5.4 (liblua5.4.so.0) from the folder
$DLX_CARRY names (tools/gpu-check pack makes it, tools/gpu-check run sets the variable), else
from this file's folder; opens a Lua state with dlx preloaded, and moves tensors between Python's
DLPack producers/consumers (PyTorch, CuPy, JAX) and Lua without copies:

    lua = DlxLua()
    lua.set_tensor("x", torch_tensor, stream=1)  # into Lua, read on the legacy default stream
    lua.run("y = x:sum()")
    t = torch.from_dlpack(lua.tensor("x"))   # a Lua tensor as a __dlpack__ object
"""
import ctypes
import os

HERE = os.path.dirname(os.path.abspath(__file__))
LUA_OK = 0


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class DLManagedTensorLegacyHead(ctypes.Structure):
    # DLTensor (48 bytes: data, device, ndim, dtype, shape, strides, byte_offset) comes first
    _fields_ = [("dl_tensor", ctypes.c_byte * 48), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# The destructor gets the dying capsule as a raw pointer: turning it into a Python object there
# would take a new reference to an object being freed.
CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, CAPSULE_DESTRUCTOR]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))
_raw_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))


def _call_deleter(ptr, versioned):
    head = (DLManagedTensorVersioned if versioned else DLManagedTensorLegacyHead).from_address(ptr)
    if head.deleter:
        DELETER(head.deleter)(ptr)


@CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):
    # an unconsumed capsule still owns its tensor (consumers rename it "used_...")
    for name, versioned in ((b"dltensor_versioned", True), (b"dltensor", False)):
        if _raw_is_valid(capsule, name):
            _call_deleter(_raw_get_pointer(capsule, name), versioned)


class LuaError(RuntimeError):
    """An error raised in Lua (by dlx or the chunk), with Lua's message."""


def capsule_data_ptr(capsule):
    """The address of a capsule's first element (data + byte_offset), read without consuming
    the capsule."""
    versioned = bool(_api.PyCapsule_IsValid(capsule, b"dltensor_versioned"))
    ptr = _api.PyCapsule_GetPointer(capsule, b"dltensor_versioned" if versioned else b"dltensor")
    # DLManagedTensorVersioned: version (8 bytes), manager_ctx, deleter, flags, then the DLTensor
    tensor = ptr + (32 if versioned else 0)
    data = ctypes.c_void_p.from_address(tensor).value or 0
    return data + ctypes.c_uint64.from_address(tensor + 40).value  # DLTensor.byte_offset


def default_libdir():
    """The folder holding libdlx.so.0 and liblua5.4.so.0: $DLX_CARRY, else this file's."""
    return os.environ.get("DLX_CARRY") or HERE


class DlxLua:
    def __init__(self, libdir=None):
        libdir = libdir or default_libdir()
        self.lua = ctypes.CDLL(os.path.join(libdir, "liblua5.4.so.0"), mode=ctypes.RTLD_GLOBAL)
        self.dlx = ctypes.CDLL(os.path.join(libdir, "libdlx.so.0"), mode=ctypes.RTLD_GLOBAL)
        lua = self.lua
        lua.luaL_newstate.restype = ctypes.c_void_p
        for name, args in (("luaL_openlibs", [ctypes.c_void_p]),
                           ("lua_settop", [ctypes.c_void_p, ctypes.c_int]),
                           ("lua_setglobal", [ctypes.c_void_p, ctypes.c_char_p]),
                           ("lua_close", [ctypes.c_void_p])):
            getattr(lua, name).argtypes = args
            getattr(lua, name).restype = None
        lua.lua_gettop.argtypes = [ctypes.c_void_p]
        lua.luaL_loadstring.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lua.lua_pcallk.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                   ctypes.c_void_p, ctypes.c_void_p]
        lua.lua_getglobal.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lua.lua_tolstring.restype = ctypes.c_char_p
        lua.lua_tolstring.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        self.dlx.dlx_openlibs.argtypes = [ctypes.c_void_p]
        self.dlx.dlx_push_capsule.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.dlx.dlx_push_capsule_legacy.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.dlx.dlx_to_dlpack.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                           ctypes.POINTER(ctypes.c_void_p)]
        self.dlx.dlx_to_dlpack_legacy.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                                  ctypes.POINTER(ctypes.c_void_p)]
        self.L = lua.luaL_newstate()
        lua.luaL_openlibs(self.L)
        self.dlx.dlx_openlibs(self.L)
        self.run('dlx = require "dlx"')

    def _error(self):
        msg = self.lua.lua_tolstring(self.L, -1, None)
        self.lua.lua_settop(self.L, 0)
        return LuaError((msg or b"?").decode())

    def run(self, code):
        """Runs a Lua chunk; returns the string its `return` gives (tostring), or None."""
        lua = self.lua
        lua.lua_settop(self.L, 0)
        if lua.luaL_loadstring(self.L, code.encode()) != LUA_OK or \
                lua.lua_pcallk(self.L, 0, 1, 0, None, None) != LUA_OK:
            raise self._error()
        value = lua.lua_tolstring(self.L, -1, None)
        lua.lua_settop(self.L, 0)
        return None if value is None else value.decode()

    def number(self, code):
        return float(self.run("return " + code))

    def set_tensor(self, name, obj, stream=None, **dlpack_kwargs):
        """Imports obj (anything with __dlpack__) into the Lua global `name`, zero-copy.
        stream: the DLPack stream value the Lua side will read on (None: legacy default);
        dlpack_kwargs (dl_device, copy) go to obj.__dlpack__ as they are."""
        kwargs = dict(dlpack_kwargs)
        if stream is not None:
            kwargs["stream"] = stream
        try:
            capsule = obj.__dlpack__(max_version=(1, 3), **kwargs)
        except TypeError:
            capsule = obj.__dlpack__(**kwargs)
        versioned = bool(_api.PyCapsule_IsValid(capsule, b"dltensor_versioned"))
        name_c = b"dltensor_versioned" if versioned else b"dltensor"
        ptr = _api.PyCapsule_GetPointer(capsule, name_c)
        _api.PyCapsule_SetName(capsule, b"used_" + name_c)  # dlx owns it now
        push = self.dlx.dlx_push_capsule if versioned else self.dlx.dlx_push_capsule_legacy
        self.lua.lua_settop(self.L, 0)
        if push(self.L, ptr) != 0:
            raise self._error()
        self.lua.lua_setglobal(self.L, b"__capsule")
        self.run(f"{name} = dlx.from_dlpack(__capsule); __capsule = nil")

    def capsule(self, code):
        """A PyCapsule from the Lua capsule that `code` (an expression) evaluates to."""
        self.run("__capsule = " + code)
        self.lua.lua_settop(self.L, 0)
        self.lua.lua_getglobal(self.L, b"__capsule")
        legacy = self.run("return __capsule.name") == "dltensor"
        self.lua.lua_getglobal(self.L, b"__capsule")
        out = ctypes.c_void_p()
        export = self.dlx.dlx_to_dlpack_legacy if legacy else self.dlx.dlx_to_dlpack
        if export(self.L, -1, ctypes.byref(out)) != 0:
            raise self._error()
        self.lua.lua_settop(self.L, 0)
        self.run("__capsule = nil")
        return _api.PyCapsule_New(out.value, b"dltensor" if legacy else b"dltensor_versioned",
                                  _capsule_destructor)

    def tensor(self, name):
        return LuaTensor(self, name)


class LuaTensor:
    """A Lua tensor seen from Python as a DLPack producer: __dlpack__ runs t:__dlpack{...} in
    Lua, so dlx applies the stream rules to the consumer's stream value."""

    def __init__(self, lua, name):
        self.lua, self.name = lua, name

    def __dlpack_device__(self):
        t, i = self.lua.run(f"local a, b = {self.name}:__dlpack_device(); return a .. ',' .. b")\
            .split(",")
        return int(t), int(i)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        opts = []
        if stream is not None:
            opts.append(f"stream = {int(stream)}")
        if max_version is not None:
            opts.append(f"max_version = {{{max_version[0]}, {max_version[1]}}}")
        if dl_device is not None:
            opts.append(f"dl_device = {{{int(dl_device[0])}, {int(dl_device[1])}}}")
        if copy is not None:
            opts.append("copy = " + ("true" if copy else "false"))
        return self.lua.capsule(f"{self.name}:__dlpack {{{', '.join(opts)}}}")

    def data_ptr(self):
        """The address of the tensor's first element."""
        return capsule_data_ptr(self.__dlpack__(max_version=(1, 3)))
