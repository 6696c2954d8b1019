#!/usr/bin/env bash
# Makes (once) a virtual environment with JAX (its CPU wheels: jax, jaxlib, ml_dtypes, NumPy 2)
# and pytest from pip, for the interop tests with JAX (Debian 12 has no JAX). Usage:
# make_jax_venv.sh PYTHON VENV_DIR
set -euo pipefail
python=$1
venv=$2
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import jax, pytest' 2>/dev/null; then
  echo "$venv: already there"
  exit 0
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "jax[cpu]" pytest
echo "$venv: JAX $("$venv/bin/python" -c 'import jax; print(jax.__version__)')"
