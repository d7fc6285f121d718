package driver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/vianic/vianic/internal/hw"
)

// fakeNIC is a model of the NIC's BAR0 registers and of a firmware, just
// enough to unit-test the driver's logic without the simulator. Its
// "firmware" is chosen by the image header (firmware/version.h): kind 0
// behaves like the real firmware, 1 faults on the first admin command
// like tests/fault.S, 2 never completes one; a zero first word traps at pc
// 0; any other image spins without writing READY.
type fakeNIC struct {
	mu    sync.Mutex
	node  int
	free  bool // BusInfo.FreeRunning
	cycle uint64
	irqs  chan Interrupt

	magic   uint32
	hash    uint64
	imemKB  uint32
	version uint16 // what a kind-0 image reports (its header's version)

	// knobs
	bootCycles  uint64
	adminCycles uint64
	corruptWord int           // imem word whose writes get a bit flipped (-1: none)
	badSeq      bool          // answer with seq+1000
	slowFirst   uint64        // extra cycles for the first admin command
	reads       int           // MMIO reads served
	logTooMuch  int           // words dropped reported with the boot line
	viStatus    uint16        // the status CONNECT_LOOPBACK and DISCONNECT_VI answer
	viCmds      []hw.AdminCmd // the CONNECT_LOOPBACK and DISCONNECT_VI commands taken

	imem      []uint32
	memAddr   uint32
	run       bool
	halted    bool
	trap      [3]uint32 // cause, pc, val
	fwReady   uint32
	irqStatus uint32
	irqEnable uint32
	resetEnd  uint64
	logFIFO   []uint32
	logDrop   uint32
	cmd       [64]uint32
	rsp       [64]uint32
	busy      bool
	done      bool
	rejected  bool
	admins    int

	kind    int    // image kind when running (-1 zero image, -2 spin)
	readyAt uint64 // 0: no event
	doneAt  uint64
	faultAt uint64
	pendSeq uint32
	pendCmd [64]uint32
}

func newFake(node int) *fakeNIC {
	return &fakeNIC{
		node: node, cycle: 1000, irqs: make(chan Interrupt, 64),
		magic: hw.Magic, hash: hw.Bar0Hash, imemKB: 16, version: 0x0001,
		bootCycles: 4321, adminCycles: 300, corruptWord: -1,
		imem: make([]uint32, 4096),
	}
}

// fakeImage builds an image with the real header: a jump, the magic, the
// version and the kind, then filler words.
func fakeImage(kind uint32, version uint16, words int) []byte {
	b := make([]byte, 4*max(words, 4))
	binary.LittleEndian.PutUint32(b[0:], 0x0100006f) // jal x0, 0x10
	binary.LittleEndian.PutUint32(b[4:], 0x77666e76)
	binary.LittleEndian.PutUint32(b[8:], uint32(version))
	binary.LittleEndian.PutUint32(b[12:], kind)
	for i := 16; i < len(b); i++ {
		b[i] = byte(i*7 + 3)
	}
	return b
}

var _ Bus = (*fakeNIC)(nil)

func (f *fakeNIC) Flush(context.Context) error  { return nil }
func (f *fakeNIC) Interrupts() <-chan Interrupt { return f.irqs }
func (f *fakeNIC) AttachMemory(context.Context, HostMemory) error {
	return errors.New("fake: no host memory")
}
func (f *fakeNIC) Cycle() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cycle
}
func (f *fakeNIC) Info() BusInfo {
	return BusInfo{Node: f.node, IRQs: 8, BARBytes: 1 << 20, ClockPS: 4000, MapHash: f.hash, FreeRunning: f.free}
}

func (f *fakeNIC) setIRQ(bits uint32) {
	before := f.irqStatus & f.irqEnable
	f.irqStatus |= bits
	after := f.irqStatus & f.irqEnable
	if after&^before != 0 {
		select {
		case f.irqs <- Interrupt{Vector: after, Cycle: f.cycle}:
		default:
		}
	}
}

func (f *fakeNIC) pushLog(s string) {
	for i := 0; i < len(s); i += 4 {
		var w [4]byte
		copy(w[:], s[i:])
		if len(f.logFIFO) >= 64 {
			f.logDrop++
			continue
		}
		f.logFIFO = append(f.logFIFO, binary.LittleEndian.Uint32(w[:]))
	}
	f.logDrop += uint32(f.logTooMuch)
	f.logTooMuch = 0
	f.setIRQ(irqLog)
}

// nextEvent returns the earliest scheduled firmware event (0: none).
func (f *fakeNIC) nextEvent() uint64 {
	t := uint64(0)
	for _, e := range []uint64{f.readyAt, f.doneAt, f.faultAt} {
		if e != 0 && (t == 0 || e < t) {
			t = e
		}
	}
	return t
}

// advance moves time to `to`, running the events due.
func (f *fakeNIC) advance(to uint64) {
	for {
		t := f.nextEvent()
		if t == 0 || t > to {
			break
		}
		f.cycle = t
		switch t {
		case f.faultAt:
			f.faultAt = 0
			f.halted = true
			f.doneAt, f.readyAt = 0, 0
			f.setIRQ(irqFault)
		case f.readyAt:
			f.readyAt = 0
			f.pushLog(fmt.Sprintf("vianic fw %d.%d: 16 VIs\n", f.version>>8, f.version&0xff))
			f.fwReady = hw.FwReadyMagicValue<<16 | uint32(f.version)
		case f.doneAt:
			f.doneAt = 0
			f.complete()
		}
	}
	if to > f.cycle {
		f.cycle = to
	}
}

func (f *fakeNIC) complete() {
	var b [256]byte
	for i, w := range f.pendCmd {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	var cmd hw.AdminCmd
	cmd.Unmarshal(b[:])
	rsp := hw.AdminRsp{Opcode: cmd.Opcode, Seq: cmd.Seq}
	switch {
	case cmd.Flags != 0 || cmd.Len > hw.AdminPayloadMax:
		rsp.Status = hw.AdminStBadParam
	case cmd.Opcode == hw.AdminOpNop:
	case cmd.Opcode == hw.AdminOpEcho:
		rsp.Len = cmd.Len
		rsp.Payload = cmd.Payload
	case cmd.Opcode == hw.AdminOpConnectLoopback || cmd.Opcode == hw.AdminOpDisconnectVi:
		// No VI table here: the answer is the knob's, and the command is
		// recorded for the test to check its payload.
		f.viCmds = append(f.viCmds, cmd)
		rsp.Status = f.viStatus
	case cmd.Opcode == hw.AdminOpQueryNic:
		a := hw.AdminNicAttrs{HardwareVersion: 0x100, ProviderVersion: uint32(f.version), MaxVi: 16, NicAddressLen: 2, MaxPtags: 8, ReliabilityLevelSupport: 1}
		copy(a.Name[:], "vianic0")
		a.LocalNicAddress[0], a.LocalNicAddress[1] = 0, byte(f.node)
		a.Marshal(rsp.Payload[:])
		rsp.Len = hw.AdminNicAttrsBytes
	default:
		rsp.Status = hw.AdminStUnknownCmd
	}
	if f.badSeq {
		rsp.Seq += 1000
	}
	rsp.Marshal(b[:])
	for i := range f.rsp {
		f.rsp[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	f.busy, f.done = false, true
	f.setIRQ(irqAdmin)
	if rsp.Status != hw.AdminStOk {
		f.pushLog(fmt.Sprintf("admin: op %d seq %d: status %d\n", cmd.Opcode, cmd.Seq, rsp.Status))
	}
}

func (f *fakeNIC) start() {
	f.halted = false
	f.fwReady = 0
	switch {
	case f.imem[0] == 0:
		f.kind = -1
		f.trap = [3]uint32{CauseIllegalInsn, 0, 0}
		f.faultAt = f.cycle + 3
	case f.imem[1] == 0x77666e76:
		f.kind = int(f.imem[3])
		f.version = uint16(f.imem[2])
		f.readyAt = f.cycle + f.bootCycles
	default:
		f.kind = -2
	}
}

func (f *fakeNIC) resetAll() {
	f.run, f.halted, f.fwReady = false, false, 0
	f.irqStatus, f.irqEnable = 0, 0
	f.logFIFO, f.logDrop = nil, 0
	f.busy, f.done, f.rejected = false, false, false
	f.readyAt, f.doneAt, f.faultAt = 0, 0, 0
	f.trap = [3]uint32{}
	f.memAddr = 0
}

func (f *fakeNIC) write(off uint32, v uint32) {
	switch {
	case off >= hw.AdminCmdWinBase && off < hw.AdminCmdWinBase+hw.AdminCmdWinBytes:
		f.cmd[(off-hw.AdminCmdWinBase)/4] = v
		return
	}
	switch off {
	case hw.RegCtrl:
		if v&1 != 0 {
			f.resetAll()
			f.resetEnd = f.cycle + 16
		}
	case hw.RegCpuCtrl:
		run := v&1 != 0
		if run && !f.run {
			f.run = true
			f.start()
		} else if !run {
			f.run, f.halted, f.fwReady = false, false, 0
			f.readyAt, f.doneAt, f.faultAt = 0, 0, 0
		}
	case hw.RegCpuMemAddr:
		f.memAddr = v
	case hw.RegCpuMemData:
		i := int(hw.CpuMemAddrWord.Get(f.memAddr))
		if i < len(f.imem) && hw.CpuMemAddrSel.Get(f.memAddr) == 0 {
			if i == f.corruptWord {
				v ^= 0x10
			}
			f.imem[i] = v
		}
		f.memAddr = hw.CpuMemAddrWord.Set(f.memAddr, uint32(i+1))
	case hw.RegIrqStatus:
		f.irqStatus &^= v
	case hw.RegIrqEnable:
		f.irqEnable = v
	case hw.RegAdminDoorbell:
		if f.busy {
			f.rejected = true
			return
		}
		f.busy, f.done, f.rejected = true, false, false
		f.pendCmd = f.cmd
		f.admins++
		if !f.run || f.halted {
			return
		}
		switch f.kind {
		case 0:
			f.doneAt = f.cycle + f.adminCycles
			if f.admins == 1 {
				f.doneAt += f.slowFirst
			}
		case 1:
			f.trap = [3]uint32{CauseIllegalInsn, 0x100, 0xc0001073}
			f.faultAt = f.cycle + 20
		}
	}
}

func (f *fakeNIC) read(off uint32) uint32 {
	if off >= hw.AdminRspWinBase && off < hw.AdminRspWinBase+hw.AdminRspWinBytes {
		return f.rsp[(off-hw.AdminRspWinBase)/4]
	}
	switch off {
	case hw.RegMagic:
		return f.magic
	case hw.RegMapHashLo:
		return uint32(f.hash)
	case hw.RegMapHashHi:
		return uint32(f.hash >> 32)
	case hw.RegHwVersion:
		return 0x100
	case hw.RegCapDatapath:
		return 64
	case hw.RegCapVi:
		return 16
	case hw.RegCapIrq:
		return 8
	case hw.RegCapCpu:
		return 8<<16 | f.imemKB
	case hw.RegCapDbBase:
		return hw.DoorbellBase
	case hw.RegCapDbStride:
		return hw.DoorbellStride
	case hw.RegCapTpt:
		return 9<<8 | 10
	case hw.RegStatus:
		if f.cycle < f.resetEnd {
			return 1
		}
		return 0
	case hw.RegCpuStatus:
		var s uint32
		if f.run && !f.halted {
			s |= 1
		}
		if f.halted {
			s |= 2
		}
		return s
	case hw.RegCpuTrapCause:
		return f.trap[0]
	case hw.RegCpuTrapPc:
		return f.trap[1]
	case hw.RegCpuTrapVal:
		return f.trap[2]
	case hw.RegCpuPc:
		return 0x40
	case hw.RegCpuMemAddr:
		return f.memAddr
	case hw.RegCpuMemData:
		i := int(hw.CpuMemAddrWord.Get(f.memAddr))
		f.memAddr = hw.CpuMemAddrWord.Set(f.memAddr, uint32(i+1))
		if i < len(f.imem) {
			return f.imem[i]
		}
		return 0
	case hw.RegFwReady:
		return f.fwReady
	case hw.RegFwLog:
		if len(f.logFIFO) == 0 {
			return 0
		}
		w := f.logFIFO[0]
		f.logFIFO = f.logFIFO[1:]
		return w
	case hw.RegFwLogLevel:
		v := uint32(len(f.logFIFO)) | min(f.logDrop, 0xffff)<<16
		f.logDrop = 0
		return v
	case hw.RegAdminStatus:
		var s uint32
		if f.busy {
			s |= 1
		}
		if f.done {
			s |= 2
		}
		if f.rejected {
			s |= 4
		}
		return s
	case hw.RegIrqStatus:
		return f.irqStatus
	}
	return 0
}

func (f *fakeNIC) Read32(ctx context.Context, off uint32) (uint32, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	f.advance(f.cycle + 6)
	return f.read(off), nil
}

func (f *fakeNIC) Read64(ctx context.Context, off uint32) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	f.advance(f.cycle + 8)
	lo := f.read(off)
	return uint64(lo) | uint64(f.read(off+4))<<32, nil
}

func (f *fakeNIC) Write32(ctx context.Context, off uint32, v uint32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.advance(f.cycle + 1)
	f.write(off, v)
	return nil
}

func (f *fakeNIC) Write64(ctx context.Context, off uint32, v uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.advance(f.cycle + 2)
	f.write(off, uint32(v))
	f.write(off+4, uint32(v>>32))
	return nil
}

func (f *fakeNIC) Run(ctx context.Context, n uint64) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.advance(f.cycle + n)
	return f.cycle, nil
}

func (f *fakeNIC) WaitIRQ(ctx context.Context, mask uint32, timeout uint64) (Interrupt, error) {
	if err := ctx.Err(); err != nil {
		return Interrupt{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	start := f.cycle
	for {
		if v := f.irqStatus & f.irqEnable; v&mask != 0 {
			return Interrupt{Vector: v, Cycle: f.cycle}, nil
		}
		t := f.nextEvent()
		if timeout > 0 && (t == 0 || t > start+timeout) {
			f.advance(start + timeout)
			return Interrupt{Vector: f.irqStatus & f.irqEnable, Cycle: f.cycle}, ErrBusTimeout
		}
		if t == 0 {
			return Interrupt{Cycle: f.cycle}, fmt.Errorf("fake: deadlock at cycle %d: nothing will raise an interrupt", f.cycle)
		}
		f.advance(t)
	}
}

// capture is a slog handler that keeps every record with its attributes
// (those added by With included).
type capture struct {
	mu    *sync.Mutex
	recs  *[]capRec
	attrs []slog.Attr
}

type capRec struct {
	Level slog.Level
	Msg   string
	Attrs map[string]slog.Value
}

func newCapture() (*slog.Logger, *capture) {
	c := &capture{mu: new(sync.Mutex), recs: new([]capRec)}
	return slog.New(c), c
}

func (c *capture) Enabled(context.Context, slog.Level) bool { return true }
func (c *capture) Handle(_ context.Context, r slog.Record) error {
	rec := capRec{Level: r.Level, Msg: r.Message, Attrs: map[string]slog.Value{}}
	for _, a := range c.attrs {
		rec.Attrs[a.Key] = a.Value
	}
	r.Attrs(func(a slog.Attr) bool { rec.Attrs[a.Key] = a.Value; return true })
	c.mu.Lock()
	*c.recs = append(*c.recs, rec)
	c.mu.Unlock()
	return nil
}
func (c *capture) WithAttrs(as []slog.Attr) slog.Handler {
	n := *c
	n.attrs = append(append([]slog.Attr(nil), c.attrs...), as...)
	return &n
}
func (c *capture) WithGroup(string) slog.Handler { return c }

// records returns the records so far.
func (c *capture) records() []capRec {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]capRec(nil), *c.recs...)
}

// firmwareLines returns the firmware's log lines.
func (c *capture) firmwareLines() []capRec {
	var out []capRec
	for _, r := range c.records() {
		if v, ok := r.Attrs["source"]; ok && v.String() == "firmware" {
			out = append(out, r)
		}
	}
	return out
}
