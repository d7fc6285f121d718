#!/usr/bin/env bash
# Builds the tb_via_nic test programs: every NAME.S here (C preprocessor,
# the generated firmware/include/via_*.h) becomes NAME.hex, one 32-bit
# little-endian word per entry with @word-address lines ($readmemh into a
# word array), and a NAME.hex without a NAME.S is removed. The images are
# committed so that the bench runs without the RISC-V toolchain; `make
# generate` runs this script and `make check-generated` checks the result.
#
# RISCV_PREFIX selects the toolchain (default riscv64-unknown-elf-).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prefix=${RISCV_PREFIX:-riscv64-unknown-elf-}
[ $# -eq 0 ] || { echo "usage: $0 (checking is make check-generated)" >&2; exit 2; }

for tool in gcc objcopy; do
  command -v "${prefix}$tool" >/dev/null || { echo "build.sh: ${prefix}$tool not found (make deps)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

common=(-march=rv32i_zicsr -mabi=ilp32 -nostdlib -nostartfiles -static
        -Wl,--no-relax -T "$here/link.ld" -I "$here" -I "$here/../../../firmware/include")

shopt -s nullglob
n=0
for src in "$here"/*.S; do
  name=$(basename "$src" .S)
  elf=$work/$name.elf
  "${prefix}gcc" "${common[@]}" -o "$elf" "$src"
  "${prefix}objcopy" -O verilog --verilog-data-width=4 -j .text "$elf" "$here/$name.hex"
  chmod 644 "$here/$name.hex"
  n=$((n + 1))
done
for f in "$here"/*.hex; do
  [ -f "${f%.hex}.S" ] || { echo "build.sh: removing $(basename "$f"): no source"; rm -f "$f"; }
done
echo "build.sh: built $n images in $here"
