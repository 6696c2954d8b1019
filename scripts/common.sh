# Shared by scripts/tour and scripts/test (sourced, not run).

# The Debian 12 packages that building, testing and CI need.
DLX_PACKAGES=(cmake gcc make pkg-config lua5.4 liblua5.4-dev lua-busted luarocks lua-check
  libdlpack-dev clang-format
  python3 python3-numpy python3-torch python3-pytest python3-venv libtorch-dev g++ # interop
  libze1 libze-dev clang-14 llvm-spirv-14 spirv-tools pocl-opencl-icd ocl-icd-opencl-dev
  opencl-headers) # Level Zero: loader + validation layer, SPIR-V compiler and checker, PoCL

# Installs the packages of DLX_PACKAGES (and any given as arguments) that are missing, with
# apt-get, through sudo unless running as root.
dlx_install_missing() {
  local missing=() pkg
  for pkg in "${DLX_PACKAGES[@]}" "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "Installing missing packages: ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
      echo "error: these packages are missing and sudo is not available: ${missing[*]}" >&2
      echo "       install them as root: apt-get install ${missing[*]}" >&2
      exit 1
    fi
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}

# Configures and builds build/ (Release, warnings as errors).
dlx_build() {
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDLX_WERROR=ON
  cmake --build build --parallel "$(nproc)"
}
