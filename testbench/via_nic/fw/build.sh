#!/usr/bin/env bash
# Builds the tb_via_nic test programs: every NAME.S here (C preprocessor,
# the generated firmware/include/via_*.h) becomes NAME.hex, one 32-bit little-endian word per entry with
# @word-address lines ($readmemh into a word array). The images are committed
# so that the bench runs without the RISC-V toolchain.
#
#   testbench/via_nic/fw/build.sh           rebuild the .hex files here
#   testbench/via_nic/fw/build.sh --check   rebuild into a temporary directory
#                                           and fail on any difference from
#                                           the committed ones
#
# RISCV_PREFIX selects the toolchain (default riscv64-unknown-elf-).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prefix=${RISCV_PREFIX:-riscv64-unknown-elf-}
check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

for tool in gcc objcopy; do
  command -v "${prefix}$tool" >/dev/null || { echo "build.sh: ${prefix}$tool not found (make deps)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $check -eq 1 ]; then out=$work/hex; mkdir -p "$out"; else out=$here; fi

common=(-march=rv32i_zicsr -mabi=ilp32 -nostdlib -nostartfiles -static
        -Wl,--no-relax -T "$here/link.ld" -I "$here" -I "$here/../../../firmware/include")

shopt -s nullglob
n=0
for src in "$here"/*.S; do
  name=$(basename "$src" .S)
  elf=$work/$name.elf
  "${prefix}gcc" "${common[@]}" -o "$elf" "$src"
  "${prefix}objcopy" -O verilog --verilog-data-width=4 -j .text "$elf" "$out/$name.hex"
  chmod 644 "$out/$name.hex"
  n=$((n + 1))
done

if [ $check -eq 1 ]; then
  status=0
  for f in "$out"/*.hex; do
    name=$(basename "$f")
    if [ ! -f "$here/$name" ]; then
      echo "build.sh --check: $name is not committed" >&2; status=1
    elif ! cmp -s "$f" "$here/$name"; then
      echo "build.sh --check: $name differs from a fresh build" >&2; status=1
    fi
  done
  for f in "$here"/*.hex; do
    name=$(basename "$f")
    [ -f "$out/$name" ] || { echo "build.sh --check: $name has no source" >&2; status=1; }
  done
  [ $status -eq 0 ] && echo "build.sh --check: $n images up to date"
  exit $status
fi
echo "build.sh: built $n images in $here"
