#!/usr/bin/env bash
# Builds the via_cpu test images: every NAME.S (assembly, test.h macros) and
# NAME.c (C, with its own startup) in this directory becomes NAME.hex, one
# 32-bit little-endian word per entry with @word-address lines, which
# $readmemh loads into a word array indexed by byte address / 4; a NAME.hex
# without a source is removed. The images are committed so that the bench
# runs without the RISC-V toolchain; `make generate` runs this script and
# `make check-generated` checks the result.
#
# RISCV_PREFIX selects the toolchain (default riscv64-unknown-elf-). The
# architecture is rv32i_zicsr: binutils 2.40 wants Zicsr named for csr*.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prefix=${RISCV_PREFIX:-riscv64-unknown-elf-}
[ $# -eq 0 ] || { echo "usage: $0 (checking is make check-generated)" >&2; exit 2; }

for tool in gcc objcopy; do
  command -v "${prefix}$tool" >/dev/null || { echo "build.sh: ${prefix}$tool not found (make deps)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$here

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

for f in "$here"/*.hex; do
  b=${f%.hex}
  [ -f "$b.S" ] || [ -f "$b.c" ] || { echo "build.sh: removing $(basename "$f"): no source"; rm -f "$f"; }
done
echo "build.sh: built $n images in $here"
