#!/usr/bin/env bash
# CI step for the interop tests (tests/interop, cmake/DlxInterop.cmake), called by .ci/run before
# scripts/test: installs the peers (Debian 12's Python 3.11 with NumPy 1.24 and PyTorch 1.13,
# libtorch-dev and g++ for the C++ host) and makes the NumPy 2 and JAX virtual environments with
# pip, where the interop.python.numpy2 and interop.python.jax tests look for them
# (build/.venv-numpy2, build/.venv-jax). Runs as root.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/common.sh # dlx_packages (scripts/debian-packages.txt)

printf '\n==== %s ====\n' "interop peers (.ci/interop.sh: apt-get, pip in build/.venv-numpy2 and build/.venv-jax)"
export DEBIAN_FRONTEND=noninteractive
mapfile -t packages < <(dlx_packages interop)
apt-get install -y --no-install-recommends "${packages[@]}"
/usr/bin/python3 -c 'import sys, numpy, torch
print("Python", sys.version.split()[0], "NumPy", numpy.__version__, "PyTorch", torch.__version__)'
g++ --version | head -n1
mkdir -p build
tests/interop/make_numpy2_venv.sh /usr/bin/python3 build/.venv-numpy2
tests/interop/make_jax_venv.sh /usr/bin/python3 build/.venv-jax
