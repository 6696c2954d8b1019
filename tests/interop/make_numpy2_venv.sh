#!/usr/bin/env bash
# Makes (once) a virtual environment with NumPy 2.x from pip, for the interop tests with NumPy 2
# (Debian 12's own NumPy is 1.24). Usage: make_numpy2_venv.sh PYTHON VENV_DIR
#
# Small on purpose (about 60 MB, most of it NumPy and its bundled OpenBLAS), since the default
# scripts/test makes it: the venv sees the system's packages (pytest from python3-pytest; its own
# NumPy 2 comes first on the path), pip is not installed into it but run from Debian's pip wheel
# (python3-pip-whl, which python3-venv brings) where there is one, and nothing is byte-compiled.
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
pip_wheel=$(ls /usr/share/python-wheels/pip-*.whl 2>/dev/null | head -n1 || true)
if [ -n "$pip_wheel" ]; then
  "$python" -m venv --system-site-packages --without-pip "$venv"
  pip=("$venv/bin/python" "$pip_wheel/pip")
else
  "$python" -m venv --system-site-packages "$venv"
  pip=("$venv/bin/python" -m pip)
fi
packages=("numpy>=2.1")
"$venv/bin/python" -c 'import pytest' 2>/dev/null || packages+=(pytest)
"${pip[@]}" install --quiet --disable-pip-version-check --no-compile "${packages[@]}"
echo "$venv: NumPy $("$venv/bin/python" -c 'import numpy; print(numpy.__version__)')," \
  "$(du -sh "$venv" | cut -f1)"
