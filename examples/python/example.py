"""Runs examples/python/script.lua on NumPy arrays and PyTorch tensors through dlx_host.

    python3 examples/python/example.py

dlx_host loads build/libdlx.so of this checkout (the default build makes it), or the library that
DLX_LIBRARY names: DLX_LIBRARY=/path/to/libdlx.so python3 examples/python/example.py.

It needs NumPy; PyTorch is optional. When the Python that runs it has no NumPy (a python3 of
pyenv, conda or a virtual environment first on the PATH, say), it runs itself again with
/usr/bin/python3 if that one has NumPy (Debian's python3-numpy, which scripts/test installs);
otherwise it stops and names the Python it ran under. Then install NumPy for that Python, or make
a virtual environment with NumPy (on Debian, apt-get install python3-venv first) and run the
example with its Python:

    python3 -m venv .venv && .venv/bin/pip install numpy
    .venv/bin/python examples/python/example.py
"""

import os
import subprocess
import sys

SYSTEM_PYTHON = "/usr/bin/python3"

try:
    import numpy as np
except ImportError:
    other = os.path.exists(SYSTEM_PYTHON) and not os.path.samefile(sys.executable, SYSTEM_PYTHON)
    if other and subprocess.call([SYSTEM_PYTHON, "-c", "import numpy"],
                                 stderr=subprocess.DEVNULL) == 0:
        print("example.py: %s has no NumPy; running under %s, which has it"
              % (sys.executable, SYSTEM_PYTHON), file=sys.stderr)
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    sys.exit(
        "example.py needs NumPy, and this Python has none%s:\n"
        "  %s (Python %s)\n"
        "Install NumPy for it (Debian's %s: apt-get install python3-numpy), or make a virtual\n"
        "environment with NumPy and run the example with its Python:\n"
        "  python3 -m venv .venv && .venv/bin/pip install numpy\n"
        "  .venv/bin/python examples/python/example.py"
        % (" (nor has %s)" % SYSTEM_PYTHON if other else "", sys.executable,
           sys.version.split()[0], SYSTEM_PYTHON)
    )

from dlx_host import LuaState  # noqa: E402 (after the NumPy check)

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
