"""Runs examples/python/script.lua on NumPy arrays and PyTorch tensors through dlx_host.

    DLX_LIBRARY=build/libdlx.so python3 examples/python/example.py

(DLX_LIBRARY may be left out when build/libdlx.so exists.) PyTorch is optional.
"""

import os

import numpy as np

from dlx_host import LuaState

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with LuaState() as lua:
        lua.load_file(os.path.join(HERE, "script.lua"))

        a = np.arange(16, dtype=np.float32).reshape(4, 4)
        lua.call("zero_diagonal", a)  # Lua writes into a's memory
        assert np.all(np.diag(a) == 0)

        sums = np.from_dlpack(lua.call("row_sums", a))  # a new array from Lua
        assert sums.tolist() == a.sum(axis=1).tolist()

        view, copy = lua.call("every_other_column_reversed", a)
        columns = np.from_dlpack(view)  # a view of a: negative strides, no copy
        assert np.shares_memory(columns, a) and columns.tolist() == a[:, ::-2].tolist()
        print("NumPy %s: ok" % np.__version__)

        try:
            import torch
        except ImportError:
            print("PyTorch not installed: skipped")
            return
        t = torch.arange(9, dtype=torch.float64).reshape(3, 3)
        lua.call("zero_diagonal", t)
        assert t.diagonal().tolist() == [0, 0, 0]
        sums = torch.from_dlpack(lua.call("row_sums", t))
        assert sums.tolist() == t.sum(dim=1).tolist()
        view, copy = lua.call("every_other_column_reversed", t)
        # PyTorch has no negative strides: it takes the contiguous copy
        assert torch.from_dlpack(copy).tolist() == t.flip(1)[:, ::2].tolist()
        print("PyTorch %s: ok" % torch.__version__)


if __name__ == "__main__":
    main()
