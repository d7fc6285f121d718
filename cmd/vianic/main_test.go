package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsage(t *testing.T) {
	code, out, _ := runCLI()
	assert.Equal(t, 2, code)
	assert.Contains(t, out, "usage: vianic COMMAND")
	code, out, _ = runCLI("help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "wave")
	code, _, errs := runCLI("frobnicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown command "frobnicate"`)
}

func TestMap(t *testing.T) {
	code, out, _ := runCLI("map")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "DIAG_STATUS")
	assert.Contains(t, out, "BUSY")
	assert.Contains(t, out, "DOORBELL[vi]")
}

func TestWave(t *testing.T) {
	code, _, errs := runCLI("wave")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "usage: vianic wave")
	code, _, errs = runCLI("wave", "/nonexistent/x.vcd")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "no such file")
	code, out, _ := runCLI("wave", "-print", "main.go")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "gtkwave -a /"), out)
	assert.Contains(t, out, "sim-scripts/gtkwave/via_nic.gtkw")
	assert.Equal(t, "'a b'\\''c' d", shellQuote([]string{"a b'c", "d"}))
}
