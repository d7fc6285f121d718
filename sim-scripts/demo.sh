#!/usr/bin/env bash
# The main job: two simulated NICs, each copying a buffer with its DMA
# diagnostic engine through the co-simulation bridge, then the results, the
# waveform and the GTKWave command that opens it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mkdir -p build/bin
go build -o build/bin/vianic ./cmd/vianic
exec build/bin/vianic demo "$@"
