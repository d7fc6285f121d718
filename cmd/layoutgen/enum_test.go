package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const goodEnum = `layout demo struct prefix=DEMO "demo"
enum OP 16 "opcodes"
  value NOP 0 "nothing"
  value ECHO 0x2 "echo"
const AFTER 7 "a constant after the enum"
struct CMD 8 "command"
  member OPCODE 0 2 enum=OP "opcode"
  member FLAGS 4 4 "flags"
    field KIND 15:0 enum=OP "kind"
`

func TestParseEnum(t *testing.T) {
	l, err := Parse("demo.layout", strings.NewReader(goodEnum))
	require.NoError(t, err)
	require.Len(t, l.Enums, 1)
	e := l.Enums[0]
	assert.Equal(t, 16, e.Bits)
	require.Len(t, e.Values, 2)
	assert.Equal(t, "OP_ECHO", e.Values[1].Name)
	assert.Equal(t, "ECHO", e.valueName(e.Values[1]))
	// the values are constants of the layout, in order
	require.Len(t, l.Consts, 3)
	assert.Equal(t, []string{"OP_NOP", "OP_ECHO", "AFTER"}, []string{l.Consts[0].Name, l.Consts[1].Name, l.Consts[2].Name})
	assert.Equal(t, "OP", l.Structs[0].Members[0].Enum)
	assert.Equal(t, "OP", l.Structs[0].Members[1].Fields[0].Enum)

	// grouping constants into an enum does not change the hash
	plain, err := Parse("demo.layout", strings.NewReader(`layout demo struct prefix=DEMO "demo"
const OP_NOP 0 "nothing"
const OP_ECHO 0x2 "echo"
const AFTER 7 "a constant after the enum"
struct CMD 8 "command"
  member OPCODE 0 2 "opcode"
  member FLAGS 4 4 "flags"
    field KIND 15:0 "kind"
`))
	require.NoError(t, err)
	assert.Equal(t, plain.Hash, l.Hash)

	src, err := l.Go("hw")
	require.NoError(t, err)
	for _, want := range []string{"type DemoOp uint16", "DemoOpEcho: \"ECHO\"", "func (v DemoOp) String() string", "DemoOpEcho = 0x2",
		"type DemoCmdFlagsBits uint32", `parts = append(parts, "kind="+DemoOp(uint64(v)&0xffff).String())`} {
		assert.Contains(t, string(src), want)
	}
	assert.Contains(t, string(l.Markdown()), "| 0x2 | ECHO | echo |")
	assert.Contains(t, string(l.C()), "#define VIA_DEMO_OP_ECHO")
}

func TestParseEnumErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		reason    string
	}{
		{"value outside", "layout x regmap \"x\"\nvalue A 1 \"a\"", 2, "value outside an enum"},
		{"value too wide", "layout x regmap \"x\"\nenum E 2 \"e\"\nvalue A 4 \"a\"", 3, "does not fit the 2 bits"},
		{"value twice", "layout x regmap \"x\"\nenum E 2 \"e\"\nvalue A 1 \"a\"\nvalue B 1 \"b\"", 4, "already E_A"},
		{"value clashes const", "layout x regmap \"x\"\nconst E_A 1 \"c\"\nenum E 2 \"e\"\nvalue A 1 \"a\"", 4, "already defined on line 2"},
		{"enum width", "layout x regmap \"x\"\nenum E 0 \"e\"", 2, "must be 1..64 bits"},
		{"enum empty", "layout x regmap \"x\"\nenum E 2 \"e\"", 2, "has no values"},
		{"enum unknown", "layout x regmap \"x\"\nregion G 0 0x100 \"g\"\nreg R 0x4 rw \"r\"\n field F 1:0 enum=NOPE \"f\"", 4, "enum NOPE is not declared"},
		{"enum wider than field", "layout x regmap \"x\"\nenum E 8 \"e\"\nvalue A 1 \"a\"\nregion G 0 0x100 \"g\"\nreg R 0x4 rw \"r\"\n field F 1:0 enum=E \"f\"", 6, "enum E has 8 bits, the field 2"},
		{"member enum wide", "layout x struct \"x\"\nenum E 16 \"e\"\nvalue A 1 \"a\"\nstruct S 8 \"s\"\nmember M 0 1 enum=E \"m\"", 5, "needs an integer member"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.layout", strings.NewReader(tc.src))
			require.Error(t, err)
			var pe *ParseError
			require.True(t, errors.As(err, &pe), "error %v is not a *ParseError", err)
			assert.Equal(t, tc.line, pe.Line, "line of %q", err)
			assert.Contains(t, pe.Reason, tc.reason)
		})
	}
}

func TestGoLocalName(t *testing.T) {
	for in, want := range map[string]string{
		"MSG_MMIO_READ": "msgMMIORead", "HELLO_OK_SIZE": "helloOKSize", "IRQ_SIZE": "irqSize",
		"WAIT_KIND_IRQ": "waitKindIRQ", "READ_SLVERR": "readSLVERR", "HEADER_SIZE": "headerSize",
	} {
		assert.Equal(t, want, goLocalName(in, false), in)
	}
	assert.Equal(t, "CodeBusError", goLocalName("CODE_BUS_ERROR", true))
	assert.Equal(t, "ModeFreeRun", goLocalName("MODE_FREE_RUN", true))
}

// TestProtocolViews: the protocol layout gives Go (package-local names,
// exported typed enums) and C++ (kCamelCase, name functions) views.
func TestProtocolViews(t *testing.T) {
	l, err := Parse("p.layout", strings.NewReader(`layout p struct "p"
const HEADER_SIZE 12 "h"
const MAGIC 0x534F4356 "m"
enum MSG 16 "types"
  value MMIO_READ 3 "read"
enum ROLE 8 type=Role "roles"
  value DRIVER 1 "driver"
`))
	require.NoError(t, err)
	src, err := l.GoLocal("cosim")
	require.NoError(t, err)
	for _, want := range []string{"headerSize = 12", "magic = 0x534F4356", "msgMMIORead uint16 = 0x03", "type Role uint8", "RoleDriver Role = 0x01", "var roleNames = map[Role]string{", "msgMMIORead: \"MMIO_READ\""} {
		assert.Contains(t, string(src), want)
	}
	cpp := string(l.Cpp("vianic::proto"))
	for _, want := range []string{"constexpr uint32_t kHeaderSize = 12;", "kMsgMmioRead = 0x03,", "case kRoleDriver: return \"DRIVER\";", "inline const char* msg_value_name(uint16_t v)", "}  // namespace vianic"} {
		assert.Contains(t, cpp, want)
	}
	_, err = Parse("p.layout", strings.NewReader("layout p struct \"p\"\nenum E 8 type=lower \"e\"\nvalue A 1 \"a\""))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "type=GoTypeName")
}
