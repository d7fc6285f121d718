package driver

import (
	"context"
	"fmt"
	"math/bits"
	"sync"

	"github.com/vianic/vianic/driver/hostvm"
	"github.com/vianic/vianic/internal/hw"
)

// Completion queues (VipCreateCQ and friends; docs/vi.md, "Completion
// queues"). The NIC's via_cq writes an 8-byte CQ_ENTRY (desc.layout) into
// a CQ's ring for every completed descriptor of a queue bound to the CQ.
// The ring is memory of the session's address space that the driver
// allocates physically contiguous (as a kernel agent hands out a
// DMA-coherent buffer mapped into the process) and pins; the NIC writes it
// by physical address. The process reads the entries itself and reports
// what it took through CQConsumed (CQ_CONS), so that the NIC knows the
// ring's free room: a completion that finds the ring full is not written
// (the descriptor keeps its Status), the CQ is marked OVERFLOW and an
// asynchronous error (CATASTROPHIC, resource CQ) goes to the owner.
//
// The entries of a ring are 2**n (n >= 1) for the smallest n that holds
// the entries asked for; a CQ with more than that many completions not
// taken overflows.

// CQ is a completion queue's index on the NIC.
type CQ uint32

// CQEntryBytes is the size of one ring entry.
const CQEntryBytes = hw.DescCqEntryBytes

// cqState is the NIC's part: its CQs and who owns them.
type cqState struct {
	mu      sync.Mutex
	read    bool // CQ_CAP read
	num     int  // CQ_CAP.NUM
	maxLog2 uint // CQ_CAP.MAX_LOG2
	cqs     map[CQ]*cqInfo
}

type cqInfo struct {
	s     *Session
	buf   *hostvm.Buffer
	log2  uint
	binds int // queues bound to it
}

func (n *NIC) cqState() *cqState {
	n.cqOnce.Do(func() { n.cq = &cqState{cqs: map[CQ]*cqInfo{}} })
	return n.cq
}

// cqCaps reads CQ_CAP once. Call with n.mu held.
func (n *NIC) cqCaps(ctx context.Context) (num int, maxLog2 uint, err error) {
	c := n.cqState()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.read {
		v, err := n.b.Read32(ctx, hw.RegCqCap)
		if err != nil {
			return 0, 0, err
		}
		c.num, c.maxLog2, c.read = int(hw.CqCapNum.Get(v)), uint(hw.CqCapMaxLog2.Get(v)), true
	}
	return c.num, c.maxLog2, nil
}

// MaxCQEntries is the most entries CreateCQ accepts (2**CQ_CAP.MAX_LOG2;
// 0 before the NIC was asked or on a NIC without CQs).
func (n *NIC) MaxCQEntries(ctx context.Context) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.begin(ctx); err != nil {
		return 0, err
	}
	num, l, err := n.cqCaps(ctx)
	if err != nil || num == 0 {
		return 0, err
	}
	return 1 << l, nil
}

// ringLog2 is the ring size for entries (2**n >= entries, n >= 1).
func ringLog2(entries int) uint {
	return max(1, uint(bits.Len(uint(entries-1))))
}

// cqWaitIdle polls CQ_CTRL.BUSY (the selected CQ's NIC) until no entry
// write awaits its response. Call with n.mu held.
func (n *NIC) cqWaitIdle(ctx context.Context) error {
	for range 10000 {
		v, err := n.b.Read32(ctx, hw.RegCqCtrl)
		if err != nil {
			return err
		}
		if hw.CqCtrlBusy.Get(v) == 0 {
			return nil
		}
	}
	return fmt.Errorf("driver: CQ_CTRL.BUSY did not fall")
}

// writeRegs writes each {offset, value} in order (posted). Call with
// n.mu held.
func (n *NIC) writeRegs(ctx context.Context, regs ...[2]uint32) error {
	for _, w := range regs {
		if err := n.b.Write32(ctx, w[0], w[1]); err != nil {
			return err
		}
	}
	return nil
}

// cqProgram sets CQ cq up: ring at pa with 2**log2 entries, counts reset,
// enabled. Call with n.mu held.
func (n *NIC) cqProgram(ctx context.Context, cq CQ, pa uint64, log2 uint) error {
	ctrl := hw.CqCtrlEnable.Val(1) | hw.CqCtrlReset.Val(1) | hw.CqCtrlLog2Entries.Val(uint32(log2))
	if err := n.writeRegs(ctx, [2]uint32{hw.RegCqSel, uint32(cq)}, [2]uint32{hw.RegCqCtrl, hw.CqCtrlReset.Val(1)},
		[2]uint32{hw.RegCqBaseLo, uint32(pa)}, [2]uint32{hw.RegCqBaseHi, uint32(pa >> 32)}, [2]uint32{hw.RegCqCtrl, ctrl}); err != nil {
		return err
	}
	v, err := n.b.Read32(ctx, hw.RegCqCtrl)
	if err != nil {
		return err
	}
	if hw.CqCtrlEnable.Get(v) != 1 || hw.CqCtrlLog2Entries.Get(v) != uint32(log2) {
		return fmt.Errorf("driver: CQ %d: CQ_CTRL reads 0x%08x after its set-up", uint32(cq), v)
	}
	return nil
}

// CreateCQ creates a completion queue of at least entries entries
// (VipCreateCQ) and returns it with its ring, mapped into the session's
// space (read it there; CQConsumed says what was taken). VIP_INVALID_PARAMETER
// for entries outside 1..MaxCQEntries, VIP_ERROR_RESOURCE when every CQ
// of the NIC is in use or the memory is short.
func (s *Session) CreateCQ(ctx context.Context, entries int) (CQ, *hostvm.Buffer, error) {
	const op = "CreateCQ"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if s.closed {
		return 0, nil, vipErr(op, hw.VipReturnInvalidParameter, nil, "session %q is closed", s.name)
	}
	n := s.n
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.begin(ctx); err != nil {
		return 0, nil, vipErr(op, hw.VipReturnErrorResource, err, "")
	}
	num, maxLog2, err := n.cqCaps(ctx)
	if err != nil {
		return 0, nil, vipErr(op, hw.VipReturnErrorResource, err, "reading CQ_CAP")
	}
	if num == 0 {
		return 0, nil, vipErr(op, hw.VipReturnErrorResource, nil, "the NIC has no completion queues")
	}
	if entries < 1 || entries > 1<<maxLog2 {
		return 0, nil, vipErr(op, hw.VipReturnInvalidParameter, nil, "%d entries (1..%d)", entries, 1<<maxLog2)
	}
	c := n.cqState()
	c.mu.Lock()
	cq := CQ(num)
	for i := range num {
		if c.cqs[CQ(i)] == nil {
			cq = CQ(i)
			break
		}
	}
	if int(cq) == num {
		c.mu.Unlock()
		return 0, nil, vipErr(op, hw.VipReturnErrorResource, nil, "all %d completion queues are in use", num)
	}
	info := &cqInfo{s: s, log2: ringLog2(entries)}
	c.cqs[cq] = info // reserved; undone below on failure
	c.mu.Unlock()
	undo := func() {
		c.mu.Lock()
		delete(c.cqs, cq)
		c.mu.Unlock()
	}
	buf, pa, err := s.ringAlloc(info.log2)
	if err != nil {
		undo()
		return 0, nil, vipErr(op, hw.VipReturnErrorResource, err, "the ring of %d entries", 1<<info.log2)
	}
	err = n.cqProgram(ctx, cq, pa, info.log2)
	if err == nil {
		err = n.routeLocked(ctx, uint32(cq), true, s.vec) // its interrupts: the session's vector (evt.go)
	}
	if err != nil {
		s.ringFree(buf)
		undo()
		return 0, nil, vipErr(op, hw.VipReturnErrorResource, err, "setting CQ %d up", uint32(cq))
	}
	info.buf = buf
	return cq, buf, nil
}

// ringAlloc allocates and pins a zeroed ring of 2**log2 entries.
// Call with s.mu held.
func (s *Session) ringAlloc(log2 uint) (*hostvm.Buffer, uint64, error) {
	size := CQEntryBytes << log2
	buf, err := s.space.AllocContig(size)
	if err != nil {
		return nil, 0, err
	}
	clear(buf.Bytes)
	pages, err := s.space.Pin(buf.VA, size)
	if err != nil {
		s.space.Free(buf) //nolint:errcheck // not pinned: it goes
		return nil, 0, err
	}
	return buf, pages[0], nil
}

// ringFree unpins and frees a ring. Call with s.mu held.
func (s *Session) ringFree(buf *hostvm.Buffer) {
	if err := s.space.Unpin(buf.VA, buf.Len()); err != nil {
		s.n.log.Warn("unpinning a CQ ring", "err", err)
	}
	if err := s.space.Free(buf); err != nil {
		s.n.log.Warn("freeing a CQ ring", "err", err)
	}
}

// cqLookup returns the session's CQ cq. Call with s.mu held.
func (s *Session) cqLookup(op string, cq CQ) (*cqInfo, error) {
	c := s.n.cqState()
	c.mu.Lock()
	info := c.cqs[cq]
	c.mu.Unlock()
	if info == nil || info.s != s || info.buf == nil || s.closed {
		return nil, vipErr(op, hw.VipReturnInvalidParameter, nil, "CQ %d is not a completion queue of session %q", uint32(cq), s.name)
	}
	return info, nil
}

// DestroyCQ destroys one of the session's CQs (VipDestroyCQ):
// VIP_INVALID_PARAMETER if it is not one, VIP_ERROR_RESOURCE while a VI's
// queue is bound to it. Its ring is unmapped.
func (s *Session) DestroyCQ(ctx context.Context, cq CQ) error {
	const op = "DestroyCQ"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	info, err := s.cqLookup(op, cq)
	if err != nil {
		return err
	}
	if info.binds > 0 {
		return vipErr(op, hw.VipReturnErrorResource, nil, "CQ %d is in use by %d queues", uint32(cq), info.binds)
	}
	if err := s.destroyCQ(ctx, cq, info); err != nil {
		return vipErr(op, hw.VipReturnErrorResource, err, "CQ %d", uint32(cq))
	}
	return nil
}

// destroyCQ disables cq, waits for its writes and frees its ring.
// Call with s.mu held.
func (s *Session) destroyCQ(ctx context.Context, cq CQ, info *cqInfo) error {
	n := s.n
	n.mu.Lock()
	err := n.begin(ctx)
	if err == nil {
		err = n.writeRegs(ctx, [2]uint32{hw.RegCqSel, uint32(cq)}, [2]uint32{hw.RegCqCtrl, 0})
	}
	if err == nil {
		err = n.cqWaitIdle(ctx)
	}
	n.mu.Unlock()
	if err != nil {
		// The NIC may still write the ring: keep it pinned.
		return err
	}
	s.ringFree(info.buf)
	c := n.cqState()
	c.mu.Lock()
	delete(c.cqs, cq)
	c.mu.Unlock()
	return nil
}

// ResizeCQ gives one of the session's CQs a ring of at least entries
// entries (VipResizeCQ) and returns the new ring (the old one is unmapped).
// The entries not taken yet move with it, in order; completions meanwhile
// wait in the NIC (the CQ is paused while its ring moves).
// VIP_INVALID_PARAMETER if the new ring cannot hold the entries not taken
// (the CQ stays as it was).
func (s *Session) ResizeCQ(ctx context.Context, cq CQ, entries int) (*hostvm.Buffer, error) {
	const op = "ResizeCQ"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	info, err := s.cqLookup(op, cq)
	if err != nil {
		return nil, err
	}
	n := s.n
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.begin(ctx); err != nil {
		return nil, vipErr(op, hw.VipReturnErrorResource, err, "")
	}
	_, maxLog2, err := n.cqCaps(ctx)
	if err != nil {
		return nil, vipErr(op, hw.VipReturnErrorResource, err, "reading CQ_CAP")
	}
	if entries < 1 || entries > 1<<maxLog2 {
		return nil, vipErr(op, hw.VipReturnInvalidParameter, nil, "%d entries (1..%d)", entries, 1<<maxLog2)
	}
	log2 := ringLog2(entries)
	buf, pa, err := s.ringAlloc(log2)
	if err != nil {
		return nil, vipErr(op, hw.VipReturnErrorResource, err, "the ring of %d entries", 1<<log2)
	}
	old := hw.CqCtrlEnable.Val(1) | hw.CqCtrlLog2Entries.Val(uint32(info.log2))
	fail := func(code hw.VipReturn, err error, format string, args ...any) (*hostvm.Buffer, error) {
		n.b.Write32(ctx, hw.RegCqCtrl, old) //nolint:errcheck // best effort: unpause
		s.ringFree(buf)
		return nil, vipErr(op, code, err, format, args...)
	}
	// Pause: completions for the CQ wait at the NIC; then no write of it is
	// in flight and PROD is final.
	if err := n.writeRegs(ctx, [2]uint32{hw.RegCqSel, uint32(cq)}, [2]uint32{hw.RegCqCtrl, old | hw.CqCtrlPause.Val(1)}); err != nil {
		return fail(hw.VipReturnErrorResource, err, "pausing CQ %d", uint32(cq))
	}
	if err := n.cqWaitIdle(ctx); err != nil {
		return fail(hw.VipReturnErrorResource, err, "CQ %d", uint32(cq))
	}
	st, err := n.b.Read32(ctx, hw.RegCqState)
	if err != nil {
		return fail(hw.VipReturnErrorResource, err, "reading CQ_STATE")
	}
	prod, cons := uint16(hw.CqStateProd.Get(st)), uint16(hw.CqStateCons.Get(st))
	if pending := int(prod - cons); pending > 1<<log2 {
		return fail(hw.VipReturnInvalidParameter, nil, "CQ %d holds %d entries not taken; %d do not hold them", uint32(cq), pending, entries)
	}
	oldMask, newMask := uint16(1<<info.log2-1), uint16(1<<log2-1)
	for seq := cons; seq != prod; seq++ {
		copy(buf.Bytes[int(seq&newMask)*CQEntryBytes:][:CQEntryBytes], info.buf.Bytes[int(seq&oldMask)*CQEntryBytes:][:CQEntryBytes])
	}
	ctrl := hw.CqCtrlEnable.Val(1) | hw.CqCtrlLog2Entries.Val(uint32(log2))
	if err := n.writeRegs(ctx, [2]uint32{hw.RegCqBaseLo, uint32(pa)}, [2]uint32{hw.RegCqBaseHi, uint32(pa >> 32)}, [2]uint32{hw.RegCqCtrl, ctrl}); err != nil {
		// The NIC's state is unknown: keep both rings.
		return nil, vipErr(op, hw.VipReturnErrorResource, err, "moving CQ %d", uint32(cq))
	}
	s.ringFree(info.buf)
	info.buf, info.log2 = buf, log2
	return buf, nil
}

// CQConsumed tells the NIC that the process has taken the entries of cq
// up to count (its running count of entries taken, modulo 2**16): one
// posted write of CQ_CONS. The caller must own cq (vipl only reports its
// own CQs); a CQ of another session is refused.
func (s *Session) CQConsumed(ctx context.Context, cq CQ, count uint16) error {
	const op = "CQConsumed"
	s.mu.Lock()
	_, err := s.cqLookup(op, cq)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if s.n.closed.Load() {
		return ErrClosed
	}
	return s.n.b.Write32(ctx, hw.RegCqCons, hw.CqConsCq.Val(uint32(cq))|hw.CqConsIndex.Val(uint32(count)))
}

// BindCQ makes cq (one of the session's) the completion queue of vi's
// queue q (QueueSend, QueueRecv): VipCreateVi's CQ arguments. A queue is
// bound once, right after its VI is created and before anything is posted;
// DestroyVI unbinds it.
func (s *Session) BindCQ(ctx context.Context, vi VI, q int, cq CQ) error {
	const op = "BindCQ"
	if err := checkQueue(q); err != nil {
		return vipErr(op, hw.VipReturnInvalidParameter, err, "")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if err := s.viLookup(op, vi); err != nil {
		return err
	}
	info, err := s.cqLookup(op, cq)
	if err != nil {
		return err
	}
	if s.viCQ == nil {
		s.viCQ = map[VI]*[2]*CQ{}
	}
	b := s.viCQ[vi]
	if b == nil {
		b = &[2]*CQ{}
		s.viCQ[vi] = b
	}
	if b[q] != nil {
		return vipErr(op, hw.VipReturnInvalidState, nil, "queue %d of VI %d is bound to CQ %d already", q, uint32(vi), uint32(*b[q]))
	}
	if err := s.writeBind(ctx, vi, q, cq, true); err != nil {
		return vipErr(op, hw.VipReturnErrorResource, err, "")
	}
	b[q] = &cq
	info.binds++
	return nil
}

func (s *Session) writeBind(ctx context.Context, vi VI, q int, cq CQ, on bool) error {
	n := s.n
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.begin(ctx); err != nil {
		return err
	}
	en := uint32(0)
	if on {
		en = 1
	}
	return n.b.Write32(ctx, hw.RegCqBind, hw.CqBindVi.Val(uint32(vi))|hw.CqBindQueue.Val(uint32(q))|
		hw.CqBindEnable.Val(en)|hw.CqBindCq.Val(uint32(cq)))
}

// unbindVI undoes vi's bindings (its destruction). Call with s.mu held.
func (s *Session) unbindVI(ctx context.Context, vi VI) {
	b := s.viCQ[vi]
	if b == nil {
		return
	}
	delete(s.viCQ, vi)
	c := s.n.cqState()
	for q, cq := range b {
		if cq == nil {
			continue
		}
		if err := s.writeBind(ctx, vi, q, *cq, false); err != nil {
			s.n.log.Warn("unbinding a destroyed VI's queue from its CQ", "vi", uint32(vi), "queue", q, "err", err)
		}
		c.mu.Lock()
		if info := c.cqs[*cq]; info != nil && info.s == s {
			info.binds--
		}
		c.mu.Unlock()
	}
}

// cqOwner returns the session that owns cq (nil: none).
func (n *NIC) cqOwner(cq CQ) *Session {
	c := n.cqState()
	c.mu.Lock()
	defer c.mu.Unlock()
	if info := c.cqs[cq]; info != nil {
		return info.s
	}
	return nil
}

// syncCQs forgets the session's CQs after a NIC reset (the NIC's CQ state
// is gone: nothing writes the rings any more). Call with s.mu held.
func (s *Session) syncCQs() {
	c := s.n.cqState()
	c.mu.Lock()
	var rings []*hostvm.Buffer
	for cq, info := range c.cqs {
		if info.s == s {
			if info.buf != nil {
				rings = append(rings, info.buf)
			}
			delete(c.cqs, cq)
		}
	}
	c.mu.Unlock()
	for _, b := range rings {
		s.ringFree(b)
	}
	clear(s.viCQ)
}

// closeCQs destroys the session's CQs (its Close, after its VIs).
// Call with s.mu held.
func (s *Session) closeCQs(ctx context.Context) []error {
	c := s.n.cqState()
	c.mu.Lock()
	mine := map[CQ]*cqInfo{}
	for cq, info := range c.cqs {
		if info.s == s && info.buf != nil {
			mine[cq] = info
		}
	}
	c.mu.Unlock()
	var errs []error
	for cq, info := range mine {
		if err := s.destroyCQ(ctx, cq, info); err != nil {
			errs = append(errs, fmt.Errorf("destroying CQ %d: %w", uint32(cq), err))
		}
	}
	return errs
}

// CQEntry is one ring entry as the NIC wrote it.
type CQEntry struct {
	VI    VI
	Queue int    // QueueSend or QueueRecv
	Valid bool   // written by the NIC
	Seq   uint16 // the entry's number, modulo 2**16
}

// ParseCQEntry decodes the 8 bytes of a ring entry.
func ParseCQEntry(b []byte) CQEntry {
	var e hw.DescCqEntry
	e.Unmarshal(b)
	return CQEntry{
		VI:    VI(hw.DescCqEntryInfoVi.Get(e.Info)),
		Queue: int(hw.DescCqEntryInfoQueue.Get(e.Info)),
		Valid: hw.DescCqEntryInfoValid.Get(e.Info) == 1,
		Seq:   uint16(e.Seq),
	}
}
