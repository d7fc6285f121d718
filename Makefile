# vianic: one way to build, one way to test. See README.md.
#
#   make demo      the main job (installs what is missing first)
#   make test      every test (installs what is missing first)
#
# Other targets: deps generate check-generated lint synth bench firmware sim gotest fmt clean

SHELL := /bin/bash
GO ?= go
export PATH := $(PATH):/usr/local/go/bin

.PHONY: all deps generate check-generated lint synth bench firmware sim gotest fmt test demo clean

all: generate

deps:
	@sim-scripts/deps.sh

# Everything generated, in dependency order: the layout views (Verilog,
# Go, C, C++, Markdown, GTKWave), the firmware images (reproducible: -B
# rebuilds them from the sources whatever the timestamps) and the test
# programs' images. All of it is committed.
generate:
	$(GO) run ./cmd/layoutgen
	$(MAKE) --no-print-directory -s -B -C firmware images
	testbench/via_nic/fw/build.sh
	testbench/via_cpu/isa/build.sh

# `make generate` must leave the tree unchanged (names the stale files).
check-generated: deps
	sim-scripts/check-generated.sh

lint: deps
	sim-scripts/lint.sh

synth: deps
	sim-scripts/synth.sh

bench: deps
	sim-scripts/benches.sh

# the firmware's native unit tests (check-generated checks the images)
firmware: deps
	$(MAKE) -C firmware test

# The Verilated co-simulation models (VCD and FST) and the echo server that
# the Go tests use; built once here, so that no test package spends its time
# limit waiting for a build (a test builds them itself when they are stale).
sim: deps
	sim-scripts/build-sim.sh vcd fst echo

# -timeout 20m: a hang still fails (with every goroutine's stack), but a
# package whose HDL runs take long on a loaded 2-core machine (internal/vcd
# runs benches in both simulators) does not fail at Go's default 10 minutes.
# The longest packages are named first: go test starts the test binaries in
# the order of its arguments (then ./... adds the rest, each package once),
# so that the longest is not the last to start and run alone at the end.
GOTEST_FIRST := ./vipl ./internal/vcd ./driver ./internal/simulator ./internal/bench ./cmd/vianic
gotest: deps sim
	@bad=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$bad" ]; then echo "gofmt needed: $$bad" >&2; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 20m $(GOTEST_FIRST) ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

# check-generated first (it regenerates files the others read); then lint,
# synthesis, the RTL benches, the firmware's tests and the simulator's build
# as one pool of single-threaded jobs (sim-scripts/test-hw.sh); then the Go
# tests.
# internal/vcd's waveform checks read the dumps the benches kept
# (build/bench-dumps/, VIANIC_BENCH_DUMPS) instead of simulating again.
test: deps
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory check-generated && \
	sim-scripts/test-hw.sh && \
	echo "make test: lint, synth, benches, firmware and simulator build done at $$(( $$(date +%s) - start )) s" && \
	VIANIC_BENCH_DUMPS=$(CURDIR)/build/bench-dumps $(MAKE) --no-print-directory gotest && \
	echo "make test: all passed in $$(( $$(date +%s) - start )) s"

demo: deps
	sim-scripts/demo.sh

clean:
	rm -rf build obj_dir
