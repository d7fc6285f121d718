#!/usr/bin/env bash
# The main job (`vianic demo`): a 2-node simulator with the fabric switch,
# two processes that use only vipl (cmd/vipl-perf), one per node, a
# ping-pong and a stream between them; then the perftest-style table, the
# waveform and the capture, and the commands that open them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mkdir -p build/bin
go build -o build/bin/vianic ./cmd/vianic
exec build/bin/vianic demo "$@"
