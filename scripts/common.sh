# Shared by scripts/tour, scripts/test, scripts/bench and .ci/* (sourced, not run).

DLX_PACKAGE_LIST="$(dirname "${BASH_SOURCE[0]}")/debian-packages.txt"

# Prints the Debian packages of the given groups of scripts/debian-packages.txt, one a line.
dlx_packages() {
  local group
  for group in "$@"; do
    if ! grep -q "^$group:" "$DLX_PACKAGE_LIST"; then
      echo "error: no package group '$group' in $DLX_PACKAGE_LIST" >&2
      return 1
    fi
    sed -n "s/^$group:[[:space:]]*//p" "$DLX_PACKAGE_LIST" | tr -s ' \t' '\n'
  done
}

# Installs the packages of the given groups that are missing, with apt-get, through sudo unless
# running as root.
dlx_install_missing() {
  local packages=() missing=() pkg
  mapfile -t packages < <(dlx_packages "$@")
  for pkg in "${packages[@]}"; do
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
  # Without the recommended packages: they double the size (python3-pip alone would bring a
  # compiler toolchain and Python's headers) and nothing here needs them.
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "${missing[@]}"
}

# Configures and builds a CMake preset (CMakePresets.json) with every core; more arguments go
# to the build (--target dlx_core).
dlx_build() {
  local preset=$1
  shift
  cmake --preset "$preset"
  cmake --build --preset "$preset" --parallel "$(nproc)" "$@"
}

# Runs ctest with a test preset (CMakePresets.json) and more arguments (--parallel 4, -R busted),
# from the repository root, the output of a failing test shown (--output-on-failure). When tests
# fail, prints for each the command that reruns it alone, so that a red CI log says what to try
# at home; returns ctest's status. The names come from <build>/Testing/Temporary/
# LastTestsFailed.log, which ctest writes only when a test fails: it is removed first, so a name
# left there by an earlier run is never offered.
dlx_ctest() {
  local preset=$1 status=0 dir failed line name
  shift
  dir=$(ctest --preset "$preset" -N 2>/dev/null | sed -n 's/^Test project //p') || true
  failed=${dir:+$dir/Testing/Temporary/LastTestsFailed.log}
  if [ -n "$failed" ]; then rm -f "$failed"; fi
  ctest --preset "$preset" --output-on-failure "$@" || status=$?
  if [ "$status" -eq 0 ]; then return 0; fi
  if [ -z "$failed" ] || [ ! -s "$failed" ]; then
    echo "ctest --preset $preset failed (status $status) without a failed test to name" >&2
    return "$status"
  fi
  echo "ctest --preset $preset: $(wc -l <"$failed") failed; each one alone, from $PWD:" >&2
  while IFS= read -r line; do
    name=${line#*:} # "<number>:<name>"
    # -R takes a regular expression: the name's special characters escaped, the whole anchored
    # shellcheck disable=SC2001,SC2016 # a bracket expression of sed, no shell expansion meant
    name=$(sed 's/[][\\.*+?^$(){}|]/\\&/g' <<<"$name")
    echo "  ctest --preset $preset -R '^$name\$' --output-on-failure" >&2
  done <"$failed"
  return "$status"
}

# The version of dlx: the DLX_VERSION_STRING line of include/dlx.h.
dlx_version() {
  sed -n 's/^#define DLX_VERSION_STRING "\(.*\)"$/\1/p' \
    "$(dirname "${BASH_SOURCE[0]}")/../include/dlx.h"
}

# The root of this checkout, as an absolute path.
DLX_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The Lua search paths that point lua5.4 at this checkout (scripts/env, scripts/tour): the Lua
# modules of lua/, and dlx/core.so of the build directory $1 (default build/). The ;; at the end
# stands for Lua's default path, so that other modules (luassert, ...) are still found.
dlx_lua_path() {
  printf '%s\n' "$DLX_ROOT/lua/?.lua;$DLX_ROOT/lua/?/init.lua;;"
}
dlx_lua_cpath() {
  printf '%s\n' "${1:-$DLX_ROOT/build}/?.so;;"
}
