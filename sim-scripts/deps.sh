#!/usr/bin/env bash
# Installs the HDL and firmware toolchain from Debian's packages, only when
# something is missing. Called by `make deps` (and so by `make test` and
# `make demo`). Exits non-zero with a clear message when it cannot install.
set -euo pipefail

# tool -> Debian package that provides it
declare -A pkg_of=(
  [verilator]=verilator
  [iverilog]=iverilog
  [vvp]=iverilog
  [yosys]=yosys
  [ccache]=ccache
  [gtkwave]=gtkwave
  [Xvfb]=xvfb
  [xvfb-run]=xvfb
  [xauth]=xauth
  [riscv64-unknown-elf-gcc]=gcc-riscv64-unknown-elf
  [riscv64-unknown-elf-objcopy]=binutils-riscv64-unknown-elf
  [riscv64-unknown-elf-objdump]=binutils-riscv64-unknown-elf
  [tshark]=tshark
)

missing=()
for tool in "${!pkg_of[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("${pkg_of[$tool]}")
done
# the Verilator runtime headers come with the package; a half-installed
# verilator without them cannot build anything
if command -v verilator >/dev/null 2>&1; then
  root=$(verilator --getenv VERILATOR_ROOT 2>/dev/null || true)
  [ -n "$root" ] && [ -f "$root/include/verilated.h" ] || missing+=(verilator)
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
echo "deps: installing missing packages: ${missing[*]}" >&2

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO="sudo -n"
else
  echo "deps: error: missing packages (${missing[*]}) and this user is neither root nor able to sudo without a password." >&2
  echo "deps: install them by hand:  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "deps: error: apt-get not found; install by hand: ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "deps: installed ${missing[*]}" >&2
