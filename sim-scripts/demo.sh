#!/usr/bin/env bash
# The main job: two simulated NICs, each registering two buffers of a
# process and copying one into the other through the NIC's translation and
# protection table (the DMA diagnostic engine), then the results, the
# waveform and the GTKWave command that opens it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mkdir -p build/bin
go build -o build/bin/vianic ./cmd/vianic
exec build/bin/vianic demo "$@"
