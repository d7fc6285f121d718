#!/usr/bin/env bash
# Builds and runs the libFuzzer target of the co-simulation message parser
# (fuzz_protocol.cpp + ../protocol.cpp) with AddressSanitizer and UBSan.
#
#   cosim/harness/fuzz/run.sh [SECONDS]     (default 60)
#
# Needs clang with the compiler-rt fuzzer runtime: on Debian 12,
# `apt-get install clang libclang-rt-14-dev`. Build products, the corpus
# (kept between runs) and any crash reproducers go to build/fuzz/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
secs=${1:-60}
out=$root/build/fuzz
mkdir -p "$out/corpus"
command -v clang++ >/dev/null 2>&1 || {
  echo "fuzz: clang++ not found; install: apt-get install clang libclang-rt-14-dev" >&2
  exit 1
}
src=$root/cosim/harness
echo "fuzz: building $out/protocol_fuzz"
clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$src" "$src/fuzz/fuzz_protocol.cpp" "$src/protocol.cpp" -o "$out/protocol_fuzz" \
  || { echo "fuzz: build failed (is libclang-rt-14-dev installed?)" >&2; exit 1; }

# seeds: one valid message of every client type
seed() { printf "$2" >"$out/corpus/seed-$1"; }
le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
hdr() { echo -n "$(le32 "$1")\\x$(printf %02x "$2")\\x00\\x00\\x00\\x01\\x00\\x00\\x00"; }
z() { local s=""; for ((i = 0; i < $1; i++)); do s+='\x00'; done; echo -n "$s"; }
seed hello "$(hdr 52 1)VCOS\\x01\\x00\\x00\\x00\\x01\\x00\\x01\\x00$(z 8)drv$(z 29)"
seed attach "$(hdr 16 2)$(z 8)\\x00\\x10$(z 6)"
seed read "$(hdr 8 3)\\x00\\x00\\x00\\x00\\x04$(z 3)"
seed write "$(hdr 36 4)\\x02$(z 3)\\x10$(z 3)\\x04$(z 3)\\x01$(z 7)\\x10$(z 3)\\x08$(z 3)\\x02$(z 7)"
seed wait_irq "$(hdr 20 5)\\x01$(z 11)\\x01$(z 7)"
seed wait_mem "$(hdr 36 5)\\x02\\x08$(z 10)\\x00\\x10$(z 6)\\xff$(z 7)\\x01$(z 7)"
seed wait_cycles "$(hdr 20 5)\\x03$(z 11)\\x64$(z 7)"
seed trace "$(hdr 8 6)\\x01$(z 7)"
seed reset "$(hdr 0 7)"
seed grant "$(hdr 16 8)\\x2a$(z 7)$(z 4)\\x01$(z 3)"
seed revoke "$(hdr 8 9)\\x2a$(z 7)"
seed stats "$(hdr 0 11)"

echo "fuzz: running for $secs s (corpus $out/corpus)"
cd "$out"
./protocol_fuzz -max_total_time="$secs" -max_len=70000 -print_final_stats=1 corpus
