#!/usr/bin/env bash
# Makes (once) a virtual environment with NumPy 2.x and pytest from pip, for the interop tests
# with NumPy 2 (Debian 12's own NumPy is 1.24). Usage: make_numpy2_venv.sh PYTHON VENV_DIR
set -euo pipefail
python=$1
venv=$2
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c '
import sys, numpy, pytest
sys.exit(0 if int(numpy.__version__.split(".")[0]) >= 2 else 1)' 2>/dev/null; then
  echo "$venv: already there"
  exit 0
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "numpy>=2.1" pytest
echo "$venv: NumPy $("$venv/bin/python" -c 'import numpy; print(numpy.__version__)')"
