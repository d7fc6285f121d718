// Package firmware holds the control processor's firmware images, built
// from the C and assembly sources in this directory (make -C firmware) and
// embedded at compile time, so the driver can download them without files
// at run time. It is a leaf of the host side: it imports only the standard
// library and internal/hw.
//
// Every image starts with a 16-byte header (see version.h): a jump over it,
// ImageMagic, the firmware version and the image kind.
package firmware

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/vianic/vianic/internal/hw"
)

// The firmware version; firmware/version.h is the source, and a test keeps
// these constants equal to it.
const (
	VersionMajor = 0
	VersionMinor = 1
)

// Version is the version the firmware writes to FW_READY.VERSION and
// answers in NIC_ATTRS.PROVIDER_VERSION: VersionMajor<<8 | VersionMinor.
const Version uint16 = VersionMajor<<8 | VersionMinor

// ReadyValue is what FW_READY reads once any of the images has booted.
const ReadyValue uint32 = hw.FwReadyMagicValue<<16 | uint32(Version)

// ImageMagic is the second word of every image ("vnfw" in memory order).
const ImageMagic uint32 = 0x77666e76

// HeaderBytes is the size of the image header.
const HeaderBytes = 16

// Kind says which of the images a header belongs to.
type Kind uint32

// The image kinds (FW_IMAGE_KIND_* in version.h).
const (
	KindFirmware  Kind = 0 // the real firmware
	KindFaultTest Kind = 1 // FaultTestImage
	KindHangTest  Kind = 2 // HangTestImage
)

// What the fault test image's trap looks like in CPU_TRAP_CAUSE,
// CPU_TRAP_PC and CPU_TRAP_VAL: an illegal instruction (unimp, a write to
// the read-only cycle CSR) at a fixed address.
const (
	FaultTestTrapCause = 2
	FaultTestTrapPC    = 0x100
	FaultTestTrapVal   = 0xc0001073
)

var (
	//go:embed image/vianic-fw.bin
	image []byte
	//go:embed image/fault-test.bin
	faultTestImage []byte
	//go:embed image/hang-test.bin
	hangTestImage []byte
)

// Image returns the firmware image: little-endian words to load at
// instruction-memory address 0. It boots, logs one line, writes ReadyValue
// to READY and answers admin commands. The slice is a fresh copy.
func Image() []byte { return clone(image) }

// FaultTestImage returns an image for testing the driver's fault path: it
// boots like Image (same ReadyValue, one log line) and executes an illegal
// instruction at FaultTestTrapPC on the first admin command, which halts
// the core (FW_FAULT).
func FaultTestImage() []byte { return clone(faultTestImage) }

// HangTestImage returns an image for testing the driver's admin watchdog:
// it boots like Image (same ReadyValue, one log line), then pops and drops
// every event and sleeps in WFI in between, so an admin command is never
// completed while the core is neither halted nor busy.
func HangTestImage() []byte { return clone(hangTestImage) }

func clone(b []byte) []byte { return append([]byte(nil), b...) }

// Header is the decoded image header.
type Header struct {
	Version uint16 // FW_READY.VERSION the image writes
	Kind    Kind
}

// ErrNotImage is returned by ParseHeader for bytes that are not a firmware
// image.
var ErrNotImage = errors.New("firmware: not a vianic firmware image")

// ParseHeader decodes the header of an image, so that a caller can check
// an image before downloading it.
func ParseHeader(img []byte) (Header, error) {
	if len(img) < HeaderBytes || len(img)%4 != 0 {
		return Header{}, fmt.Errorf("%w: %d bytes", ErrNotImage, len(img))
	}
	if m := binary.LittleEndian.Uint32(img[4:]); m != ImageMagic {
		return Header{}, fmt.Errorf("%w: magic %#08x", ErrNotImage, m)
	}
	v := binary.LittleEndian.Uint32(img[8:])
	if v > 0xffff {
		return Header{}, fmt.Errorf("%w: version %#x", ErrNotImage, v)
	}
	return Header{Version: uint16(v), Kind: Kind(binary.LittleEndian.Uint32(img[12:]))}, nil
}
