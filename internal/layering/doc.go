// Package layering holds no code, only the test that keeps the Go packages
// of this module to the software map in docs/architecture.md: every package
// must have a row there, and may import only the project packages its row
// allows (its tests a few more). The standard library and third-party
// modules are not restricted here.
package layering
