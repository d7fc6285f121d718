// Package fabric drives the simulated switch's register port over the
// bridge (FABRIC_READ / FABRIC_WRITE): its fault rules, seed and counters
// (rtl/via_fabric.v; docs/fabric.md, "Fault rules"). A driver or monitor
// connection of any node will do; in lockstep a monitor's accesses do not
// wait for the other clients.
package fabric

import (
	"context"
	"fmt"

	"github.com/vianic/vianic/cosim"
)

// Registers (word indexes) of the switch's register port.
const (
	RegInfo   = 0x00 // [7:0] PORTS, [15:8] NRULES, [31:16] 0xFAB0
	RegCtrl   = 0x01 // [0] clear every counter
	RegSeed   = 0x02 // loads every rule's generator
	RegStatus = 0x03 // [0] idle

	ruleBase   = 0x10
	ruleStride = 16
	portBase   = 0x80
	portStride = 4
)

// Action is what a rule does to the frames it selects.
type Action uint32

// Actions (RULE_CTRL[3:1]); Count only matches and counts.
const (
	Drop      Action = 0
	Corrupt   Action = 1
	Duplicate Action = 2
	Reorder   Action = 3
	Delay     Action = 4
	Count     Action = 5
)

func (a Action) String() string {
	switch a {
	case Drop:
		return "DROP"
	case Corrupt:
		return "CORRUPT"
	case Duplicate:
		return "DUPLICATE"
	case Reorder:
		return "REORDER"
	case Delay:
		return "DELAY"
	case Count:
		return "COUNT"
	}
	return fmt.Sprintf("Action(%d)", uint32(a))
}

// Rule is one fault rule. A frame matches when every field with its Match
// flag set equals the frame's; the first enabled rule a frame matches (the
// lowest index) is its rule. Of the frames it matches, the rule acts on
// every EveryN-th (0 is 1), or, with Probability set, when a 16-bit random
// number from the rule's own generator (seeded by SetSeed) is below P.
type Rule struct {
	Action Action

	MatchIn   bool
	InPort    uint8 // the port the frame came in on (its sender's node)
	MatchOut  bool
	OutPort   uint8 // its destination node
	MatchVI   bool
	DstVI     uint16
	MatchKind bool
	Kind      uint8 // the wire header's KIND (docs/wire.md)

	Probability bool
	EveryN      uint16
	P           uint16 // probability in 1/65536

	Mask  uint64 // CORRUPT: XORed into beat Beat (0: the header's first beat)
	Beat  uint16
	Delay uint16 // DELAY: cycles; REORDER: the longest wait for a frame to overtake (0: no limit)
}

// Info returns the switch's port and rule counts (INFO).
func Info(ctx context.Context, c *cosim.Conn) (ports, rules int, err error) {
	v, err := c.FabricRead(ctx, RegInfo)
	if err != nil {
		return 0, 0, err
	}
	if v>>16 != 0xFAB0 {
		return 0, 0, fmt.Errorf("fabric: INFO reads 0x%08x, not a vianic switch", v)
	}
	return int(v & 0xff), int(v >> 8 & 0xff), nil
}

// SetRule writes rule r and enables it (its counters keep counting; its
// EVERY_N count restarts).
func SetRule(ctx context.Context, c *cosim.Conn, r int, x Rule) error {
	base := uint32(ruleBase + r*ruleStride)
	sel := x.EveryN
	if x.Probability {
		sel = x.P
	}
	words := []struct{ off, v uint32 }{
		{0, 0}, // disabled while it changes
		{1, uint32(x.InPort) | uint32(x.OutPort)<<8 | uint32(x.Kind)<<16},
		{2, uint32(x.DstVI)},
		{3, uint32(sel)},
		{4, uint32(x.Mask)},
		{5, uint32(x.Mask >> 32)},
		{6, uint32(x.Beat)},
		{7, uint32(x.Delay)},
	}
	for _, w := range words {
		if err := c.FabricWrite(ctx, base+w.off, w.v); err != nil {
			return err
		}
	}
	ctl := uint32(1) | uint32(x.Action&7)<<1
	if x.Probability {
		ctl |= 1 << 4
	}
	for i, on := range []bool{x.MatchIn, x.MatchOut, x.MatchVI, x.MatchKind} {
		if on {
			ctl |= 1 << (8 + i)
		}
	}
	return c.FabricWrite(ctx, base, ctl)
}

// DisableRule turns rule r off.
func DisableRule(ctx context.Context, c *cosim.Conn, r int) error {
	return c.FabricWrite(ctx, uint32(ruleBase+r*ruleStride), 0)
}

// RuleCounters returns the frames rule r matched and those it acted on.
func RuleCounters(ctx context.Context, c *cosim.Conn, r int) (matched, acted uint32, err error) {
	base := uint32(ruleBase + r*ruleStride)
	if matched, err = c.FabricRead(ctx, base+8); err != nil {
		return 0, 0, err
	}
	acted, err = c.FabricRead(ctx, base+9)
	return matched, acted, err
}

// PortCounters are a port's frame counters.
type PortCounters struct {
	In      uint32 // frames classified at the port's input (dropped ones too)
	Out     uint32 // frames sent on its output (a duplicate counts twice)
	Dropped uint32 // frames from it dropped for a destination with no node
}

// Port reads port p's counters.
func Port(ctx context.Context, c *cosim.Conn, p int) (PortCounters, error) {
	var pc PortCounters
	base := uint32(portBase + p*portStride)
	var err error
	if pc.In, err = c.FabricRead(ctx, base); err != nil {
		return pc, err
	}
	if pc.Out, err = c.FabricRead(ctx, base+1); err != nil {
		return pc, err
	}
	pc.Dropped, err = c.FabricRead(ctx, base+2)
	return pc, err
}

// SetSeed loads every rule's random generator from seed.
func SetSeed(ctx context.Context, c *cosim.Conn, seed uint32) error {
	return c.FabricWrite(ctx, RegSeed, seed)
}

// ClearCounters zeroes every counter (and the rules' EVERY_N counts).
func ClearCounters(ctx context.Context, c *cosim.Conn) error {
	return c.FabricWrite(ctx, RegCtrl, 1)
}
