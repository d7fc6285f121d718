package firmware

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vianic/vianic/internal/hw"
)

// versionH reads the #defines of src/version.h, the C side's only source
// of the version and header constants.
func versionH(t *testing.T) map[string]uint64 {
	t.Helper()
	src, err := os.ReadFile("src/version.h")
	require.NoError(t, err)
	defs := map[string]uint64{}
	for _, m := range regexp.MustCompile(`(?m)^#define (FW_[A-Z_]+) (0x[0-9a-fA-F]+|[0-9]+)\s*$`).FindAllSubmatch(src, -1) {
		v, err := strconv.ParseUint(string(m[2]), 0, 32)
		require.NoError(t, err)
		defs[string(m[1])] = v
	}
	return defs
}

func TestVersionMatchesC(t *testing.T) {
	defs := versionH(t)
	for name, want := range map[string]uint64{
		"FW_VERSION_MAJOR":         VersionMajor,
		"FW_VERSION_MINOR":         VersionMinor,
		"FW_IMAGE_MAGIC":           uint64(ImageMagic),
		"FW_IMAGE_KIND_FIRMWARE":   uint64(KindFirmware),
		"FW_IMAGE_KIND_FAULT_TEST": uint64(KindFaultTest),
		"FW_IMAGE_KIND_HANG_TEST":  uint64(KindHangTest),
	} {
		got, ok := defs[name]
		require.True(t, ok, "src/version.h defines no %s", name)
		assert.Equal(t, want, got, name)
	}
	assert.Equal(t, uint32(hw.FwReadyMagicValue), ReadyValue>>16)
	assert.Equal(t, uint32(Version), ReadyValue&0xffff)
}

func TestImages(t *testing.T) {
	for _, tc := range []struct {
		name string
		img  []byte
		kind Kind
	}{
		{"vianic-fw", Image(), KindFirmware},
		{"fault-test", FaultTestImage(), KindFaultTest},
		{"hang-test", HangTestImage(), KindHangTest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NotEmpty(t, tc.img)
			assert.Zero(t, len(tc.img)%4, "image size %d is not a whole number of words", len(tc.img))
			assert.LessOrEqual(t, len(tc.img), hw.DefaultCpuImemBytes)
			h, err := ParseHeader(tc.img)
			require.NoError(t, err)
			assert.Equal(t, Version, h.Version, "version in the image header")
			assert.Equal(t, tc.kind, h.Kind)
			// The first word jumps over the header: JAL x0, +16.
			assert.Equal(t, uint32(0x0100006f), binary.LittleEndian.Uint32(tc.img))
		})
	}
}

func TestFaultTestTrapInstruction(t *testing.T) {
	img := FaultTestImage()
	require.Greater(t, len(img), FaultTestTrapPC+3)
	assert.Equal(t, uint32(FaultTestTrapVal), binary.LittleEndian.Uint32(img[FaultTestTrapPC:]))
}

func TestImageIsACopy(t *testing.T) {
	a := Image()
	a[0] ^= 0xff
	assert.NotEqual(t, a[0], Image()[0])
}

func TestParseHeaderRejects(t *testing.T) {
	for name, img := range map[string][]byte{
		"empty":     nil,
		"short":     make([]byte, 12),
		"odd size":  append(Image(), 0),
		"bad magic": make([]byte, 64),
	} {
		_, err := ParseHeader(img)
		assert.ErrorIs(t, err, ErrNotImage, name)
	}
}

// The ELF is the debugging twin of the .bin: same bytes, and its symbols
// say what the firmware needs from data memory.
func TestElfMatchesImage(t *testing.T) {
	f, err := elf.Open("image/vianic-fw.elf")
	require.NoError(t, err)
	defer f.Close()
	syms, err := f.Symbols()
	require.NoError(t, err)
	sym := map[string]uint64{}
	for _, s := range syms {
		sym[s.Name] = s.Value
	}

	img := Image()
	text := f.Section(".text")
	require.NotNil(t, text)
	b, err := text.Data()
	require.NoError(t, err)
	require.LessOrEqual(t, len(b), len(img))
	assert.Equal(t, b, img[:len(b)], ".text differs from image/vianic-fw.bin")
	if data := f.Section(".data"); data != nil {
		d, err := data.Data()
		require.NoError(t, err)
		assert.Equal(t, d, img[sym["_data_load"]:sym["_data_load"]+uint64(len(d))], ".data differs")
	}
	assert.Equal(t, uint64(len(img)), sym["_image_end"])

	// Data memory: .data and .bss below at least 1 KiB of stack.
	const dmemBase = 0x1000_0000
	assert.Equal(t, uint64(dmemBase+hw.DefaultCpuDmemBytes), sym["_stack_top"])
	assert.LessOrEqual(t, sym["_bss_end"]+1024, sym["_stack_top"])
}
