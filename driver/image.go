package driver

import "github.com/vianic/vianic/firmware"

// defaultImage is the real firmware, built into the firmware package.
func defaultImage() []byte { return firmware.Image() }

// defaultVersion is the version the real firmware reports in FW_READY.
func defaultVersion() uint16 { return firmware.Version }
