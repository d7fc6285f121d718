#!/usr/bin/env bash
# Builds the via_cpu test images: every NAME.S (assembly, test.h macros) and
# NAME.c (C, with its own startup) in this directory becomes NAME.hex, one
# 32-bit little-endian word per entry with @word-address lines, which
# $readmemh loads into a word array indexed by byte address / 4. The images
# are committed so that the bench runs without the RISC-V toolchain.
#
#   testbench/via_cpu/isa/build.sh           rebuild the .hex files here
#   testbench/via_cpu/isa/build.sh --check   rebuild into a temporary
#                                            directory and fail on any
#                                            difference from the committed ones
#
# RISCV_PREFIX selects the toolchain (default riscv64-unknown-elf-). The
# architecture is rv32i_zicsr: binutils 2.40 wants Zicsr named for csr*.
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

# -fno-ident etc. keep the images independent of the build machine; nothing
# outside .text and .data reaches the image.
common=(-march=rv32i_zicsr -mabi=ilp32 -nostdlib -nostartfiles -static
        -Wl,--no-relax -T "$here/link.ld" -I "$here")
cflags=(-O2 -ffreestanding -fno-builtin -fno-tree-loop-distribute-patterns -fno-strict-aliasing
        -fno-pic -fno-ident -fno-asynchronous-unwind-tables
        -Wall -Wextra -Werror)

shopt -s nullglob
n=0
for src in "$here"/*.S "$here"/*.c; do
  base=$(basename "$src")
  name=${base%.*}
  elf=$work/$name.elf
  case $src in
    *.S) "${prefix}gcc" "${common[@]}" -o "$elf" "$src" ;;
    *.c) "${prefix}gcc" "${common[@]}" "${cflags[@]}" -o "$elf" "$src" ;;
  esac
  "${prefix}objcopy" -O verilog --verilog-data-width=4 -j .text -j .data "$elf" "$out/$name.hex"
  chmod 644 "$out/$name.hex"   # objcopy copies the ELF's executable mode
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
