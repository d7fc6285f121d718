// Package vcd reads and writes Value Change Dump files (IEEE 1364 §18), the
// waveform format that Verilator, Icarus Verilog and GTKWave share.
//
// Layer: internal/vcd is a leaf of the host tools (internal: nothing outside
// this module should import it). It imports only the standard library and
// nothing else in vianic, so the simulator tests, the driver's tests and
// the command-line tool can all use it.
//
// Writer produces a dump as a stream: declare scopes and variables, then
// advance time and set values; only values that changed are written. Reader
// consumes a dump as a stream of events and never holds more than the
// declarations, so its memory depends on the number of signals, not on the
// length of the file. GTKWaveSave writes GTKWave save files that show chosen
// signals of a dump in named groups; SaveFileSignals reads the signals a save
// file shows.
package vcd
