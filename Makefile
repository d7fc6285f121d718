# vianic: one way to build, one way to test. See README.md.
#
#   make demo      the main job (installs what is missing first)
#   make test      every test (installs what is missing first)
#
# Other targets: deps generate check-generated lint synth bench firmware gotest fmt clean

SHELL := /bin/bash
GO ?= go
export PATH := $(PATH):/usr/local/go/bin

.PHONY: all deps generate check-generated lint synth bench firmware gotest fmt test demo clean

all: generate

deps:
	@sim-scripts/deps.sh

generate:
	$(GO) run ./cmd/layoutgen

check-generated:
	$(GO) run ./cmd/layoutgen -check

lint: deps
	sim-scripts/lint.sh

synth: deps
	sim-scripts/synth.sh

bench: deps
	testbench/via_cpu/isa/build.sh --check
	testbench/via_nic/fw/build.sh --check
	sim-scripts/benches.sh

# the committed image must be what the sources build; native unit tests
firmware: deps
	$(MAKE) -C firmware check test

gotest: deps
	@bad=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$bad" ]; then echo "gofmt needed: $$bad" >&2; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

test: deps
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory check-generated lint synth bench firmware gotest && \
	echo "make test: all passed in $$(( $$(date +%s) - start )) s"

demo: deps
	sim-scripts/demo.sh

clean:
	rm -rf build obj_dir
