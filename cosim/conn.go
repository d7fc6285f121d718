package cosim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Role (what a connection may do, see the protocol's role table) and Mode
// (how the simulator advances time) and their constants are generated from
// cosim/protocol.layout into proto_gen.go.

// String returns "driver", "user" or "monitor".
func (r Role) String() string {
	if name, ok := roleNames[r]; ok {
		return strings.ToLower(name)
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// String returns "lockstep" or "freerun", the simulator's option values.
func (m Mode) String() string {
	if name, ok := modeNames[m]; ok {
		return strings.ToLower(strings.ReplaceAll(name, "_", ""))
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Device is the device description the simulator sends in HELLO_OK.
type Device struct {
	Major, Minor int    // protocol version of the simulator
	Nodes        int    // nodes in the simulation
	IRQs         int    // interrupt outputs per node
	BARBytes     uint32 // size of BAR0
	ClockPS      uint32 // picoseconds per NIC clock cycle
	MapHash      uint64 // register-map hash of the simulated RTL (reported, not checked)
	Cycle        uint64 // simulated cycle at the handshake
	Mode         Mode
	ClientID     uint32 // this connection's id (lockstep order)
	DataWidth    int    // datapath width in bits
}

// IRQ is an interrupt: the node's irq outputs gained a set bit.
type IRQ struct {
	Vector uint32 // the irq outputs that are high
	Cycle  uint64 // simulated cycle
}

// Options configure a connection. The zero value is a driver of node 0 that
// does not receive interrupts.
type Options struct {
	Role  Role   // RoleDriver when zero
	Node  int    // node index, 0..Nodes-1
	Token uint64 // the grant token a user connection presents
	Name  string // shown in the simulator's logs (at most 31 bytes are sent)

	// Interrupts asks the simulator to send IRQ messages to this connection;
	// they are delivered on Interrupts() and to OnInterrupt.
	Interrupts bool
	// IRQBuffer is the capacity of the Interrupts() channel (default 256).
	// When it is full the oldest interrupt is dropped and counted.
	IRQBuffer int
	// OnInterrupt, if set, is called for every interrupt by the goroutine
	// that is reading the socket at the time (a caller waiting for its
	// answer, or the Conn's background reader), one call at a time. It
	// must return quickly and must not call methods of the Conn that wait
	// for an answer (nobody would read it), nor Close.
	OnInterrupt func(IRQ)

	// OnAsyncError, if set, is called for every error the simulator
	// reports without a waiting caller: an MMIO_WRITE with refused entries
	// (one *RemoteError per message, naming the first), a posted write
	// that got a bus error. It is called like OnInterrupt, with the same
	// restrictions.
	OnAsyncError func(error)
	// FailOnAsyncError makes the next call on the Conn that takes a
	// context return the asynchronous errors reported since the previous
	// such return (joined with errors.Join) instead of doing its work.
	// Either way they are counted (Counters) and kept for AsyncErr.
	FailOnAsyncError bool
}

// Counters are client-side statistics of a Conn.
type Counters struct {
	PostedWrites     uint64 // Write32/Write64 calls accepted
	WriteBatches     uint64 // MMIO_WRITE messages sent
	Requests         uint64 // requests that expect an answer
	IRQs             uint64 // IRQ messages received
	IRQsDropped      uint64 // interrupts dropped because Interrupts() was full
	AsyncErrors      uint64 // ERROR messages without a waiting caller
	LateReplies      uint64 // answers to canceled calls, dropped
	UnmatchedReplies uint64 // answers whose tag was not outstanding
}

// Conn is a connection to the simulator. It is safe for concurrent use.
type Conn struct {
	nc   net.Conn
	uc   *net.UnixConn // nil over TCP
	dev  Device
	opts Options

	// sem is held (a token in the channel) by whoever writes to the
	// socket; it also owns spare and carry. Acquiring it respects
	// contexts.
	sem   chan struct{}
	spare []byte
	// carry is what an interrupted write left of bytes that must go (see
	// writeSock): it goes first in the next write.
	carry []byte

	bmu     sync.Mutex // guards cur, curN, posted, cancels
	cur     []byte     // batch being filled: header, count, entries
	curN    int
	posted  uint64
	cancels []uint32      // tags of abandoned requests to CANCEL
	wake    chan struct{} // wakes the flusher
	batches atomic.Uint64

	pmu      sync.Mutex // guards pending, nextTag, closeErr
	pending  map[uint32]*call
	nextTag  uint32
	closeErr error

	closed     chan struct{} // closed when the Conn is closed
	isClosed   atomic.Bool
	closeOnce  sync.Once
	readerDone chan struct{}

	// The socket is read by whoever holds the reader role (the token in
	// role): a caller waiting for an answer, which so gets it without a
	// goroutine hand-off, or else the background reader, which delivers
	// interrupts and notices a dead simulator while no call waits.
	// Callers that want the role count themselves in wantRead and kick
	// the background reader out of its read (a past read deadline).
	role     chan struct{}
	wantRead atomic.Int32
	awaits   atomic.Uint64 // calls that waited (for the linger)
	bgHolds  atomic.Bool   // the background reader holds the role
	rbuf     []byte        // received bytes; owned by the role holder
	rs, re   int           // unparsed bytes are rbuf[rs:re]

	irqs        chan IRQ
	nIRQ        atomic.Uint64
	nIRQDropped atomic.Uint64
	nRequests   atomic.Uint64
	nUnmatched  atomic.Uint64
	nLate       atomic.Uint64
	nAsync      atomic.Uint64
	lastCycle   atomic.Uint64

	amu       sync.Mutex
	aerrs     []error
	aDropped  int
	aPending  atomic.Bool
	userClose atomic.Bool
}

// call is one outstanding request.
type call struct {
	want      uint16        // expected answer type
	done      chan struct{} // receives one token when answered or failed
	abandoned bool          // caller gave up; guarded by Conn.pmu
	m         msg
	err       error
}

var callPool = sync.Pool{New: func() any { return &call{done: make(chan struct{}, 1)} }}

const (
	batchHead   = headerSize + 4
	batchCap    = batchHead + maxWriteEntries*writeEntrySize
	requestRoom = 128 // room after a batch for one request message
	maxAsyncErr = 64  // asynchronous errors kept for AsyncErr
	readBufSize = 256 << 10
	// readerLinger is how long the background reader leaves the socket
	// to callers after the last one, so that back-to-back calls read it
	// themselves without kicking the background reader out of its read.
	// An interrupt that arrives in that window while no call waits (only
	// possible in free-run mode: in lockstep, time runs only while this
	// client waits) is delivered up to this late. Polling more often
	// measurably slows every round trip.
	readerLinger = 10 * time.Millisecond
)

var aLongTimeAgo = time.Unix(1, 0)

// Dial connects to the simulator at address ("unix" path or "tcp"
// host:port), introduces itself with opts and waits for the device
// description. ctx bounds the whole handshake. It fails with ErrVersion if
// the simulator speaks another major protocol version. The device's
// register-map hash is reported (Device.MapHash), not checked: whoever
// knows a register map (the driver) checks it.
func Dial(ctx context.Context, network, address string, opts Options) (*Conn, error) {
	if opts.Role == 0 {
		opts.Role = RoleDriver
	}
	if opts.Role > RoleMonitor {
		return nil, fmt.Errorf("cosim: dial: invalid role %d", opts.Role)
	}
	if opts.Node < 0 || opts.Node > 255 {
		return nil, fmt.Errorf("cosim: dial: invalid node %d", opts.Node)
	}
	if opts.IRQBuffer <= 0 {
		opts.IRQBuffer = 256
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, fmt.Errorf("cosim: dial %s %s: %w", network, address, err)
	}
	c := &Conn{
		nc:         nc,
		opts:       opts,
		sem:        make(chan struct{}, 1),
		spare:      make([]byte, 0, batchCap+requestRoom),
		cur:        make([]byte, batchCap+requestRoom),
		wake:       make(chan struct{}, 1),
		pending:    make(map[uint32]*call),
		nextTag:    2, // 1 is the handshake's
		closed:     make(chan struct{}),
		readerDone: make(chan struct{}),
		irqs:       make(chan IRQ, opts.IRQBuffer),
	}
	c.uc, _ = nc.(*net.UnixConn)
	c.role = make(chan struct{}, 1)
	c.role <- struct{}{}
	c.rbuf = make([]byte, readBufSize)
	if err := c.handshake(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	go c.background()
	go c.flushLoop()
	return c, nil
}

func (c *Conn) handshake(ctx context.Context) error {
	if dl, ok := ctx.Deadline(); ok {
		c.nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.nc.SetDeadline(aLongTimeAgo) })
	defer stop()
	wrap := func(err error) error {
		if ctx.Err() != nil {
			return fmt.Errorf("cosim: handshake: %w", ctx.Err())
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The socket deadline (ctx's) fired just before ctx's timer.
			return fmt.Errorf("cosim: handshake: %w", context.DeadlineExceeded)
		}
		return fmt.Errorf("cosim: handshake: %w", err)
	}
	b := appendHello(nil, 1, helloMsg{
		Role:       c.opts.Role,
		Node:       uint8(c.opts.Node),
		Interrupts: c.opts.Interrupts,
		Token:      c.opts.Token,
		Name:       c.opts.Name,
	})
	// A simulator that refuses the connection at once (ERROR BUSY beyond
	// its --max-clients) may have closed it before the HELLO arrives: the
	// write then fails, but its ERROR is still there to read and says why.
	_, werr := c.nc.Write(b)
	var m msg
	for {
		var n int
		var err error
		m, n, err = nextMsg(c.rbuf[c.rs:c.re])
		if err != nil {
			return wrap(err)
		}
		if n > 0 {
			c.rs += n
			break
		}
		k, err := c.nc.Read(c.rbuf[c.re:])
		c.re += k
		if err != nil && k == 0 {
			if werr != nil {
				return wrap(werr)
			}
			if errors.Is(err, io.EOF) {
				err = errors.New("simulator closed the connection")
			}
			return wrap(err)
		}
	}
	switch {
	case m.Type == msgError:
		return m.Err
	case m.Type != msgHelloOK || m.Tag != 1:
		return wrap(&MalformedError{Type: m.Type, Tag: m.Tag, Reason: "expected HELLO_OK with tag 1"})
	}
	if !stop() {
		return wrap(ctx.Err())
	}
	c.nc.SetDeadline(time.Time{})
	c.dev = m.Hello
	if c.dev.Major != ProtocolMajor || c.dev.Minor < ProtocolMinor {
		return fmt.Errorf("%w: simulator speaks %d.%d, this client needs %d.%d or a later %d.x (rebuild the simulator)",
			ErrVersion, c.dev.Major, c.dev.Minor, ProtocolMajor, ProtocolMinor, ProtocolMajor)
	}
	c.lastCycle.Store(c.dev.Cycle)
	return nil
}

// Device returns the device description received in the handshake.
func (c *Conn) Device() Device { return c.dev }

// Role returns the connection's role.
func (c *Conn) Role() Role { return c.opts.Role }

// Node returns the connection's node index.
func (c *Conn) Node() int { return c.opts.Node }

// LastCycle returns the simulated cycle reported by the most recent answer
// that carries one (READ_DATA, WAIT_DONE; the handshake's cycle before
// any). Interrupts do not move it: it is the cycle at which this client
// last got an answer, the same every run in lockstep.
func (c *Conn) LastCycle() uint64 { return c.lastCycle.Load() }

// Interrupts returns the channel on which interrupts are delivered when
// Options.Interrupts is set. It is closed when the Conn closes.
func (c *Conn) Interrupts() <-chan IRQ { return c.irqs }

// Done returns a channel that is closed when the Conn closes.
func (c *Conn) Done() <-chan struct{} { return c.closed }

// Err returns why the Conn closed (wrapping ErrClosed), or nil while it is
// open.
func (c *Conn) Err() error {
	if !c.isClosed.Load() {
		return nil
	}
	c.pmu.Lock()
	defer c.pmu.Unlock()
	return c.closeErr
}

// Counters returns the connection's client-side statistics.
func (c *Conn) Counters() Counters {
	c.bmu.Lock()
	posted := c.posted
	c.bmu.Unlock()
	return Counters{
		PostedWrites:     posted,
		WriteBatches:     c.batches.Load(),
		Requests:         c.nRequests.Load(),
		IRQs:             c.nIRQ.Load(),
		IRQsDropped:      c.nIRQDropped.Load(),
		AsyncErrors:      c.nAsync.Load(),
		LateReplies:      c.nLate.Load(),
		UnmatchedReplies: c.nUnmatched.Load(),
	}
}

// AsyncErr returns the asynchronous errors reported since the last call
// (joined with errors.Join; at most 64 are kept, later ones only counted),
// or nil.
func (c *Conn) AsyncErr() error {
	if !c.aPending.Load() {
		return nil
	}
	c.amu.Lock()
	defer c.amu.Unlock()
	errs := c.aerrs
	if c.aDropped > 0 {
		errs = append(errs, fmt.Errorf("cosim: %d more asynchronous errors not kept", c.aDropped))
	}
	c.aerrs, c.aDropped = nil, 0
	c.aPending.Store(false)
	return errors.Join(errs...)
}

// Close flushes the posted writes (waiting at most a second), closes the
// connection and makes every blocked call return ErrClosed. The simulator
// detaches the connection (for a driver: the whole node).
func (c *Conn) Close() error {
	if c.isClosed.Load() {
		return nil
	}
	c.userClose.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	c.flush(ctx)
	cancel()
	c.fail(errors.New("closed by Close"))
	<-c.readerDone
	return nil
}

// fail closes the Conn because of cause; the first cause wins.
func (c *Conn) fail(cause error) {
	c.closeOnce.Do(func() {
		err := &closedError{cause: cause}
		c.pmu.Lock()
		c.closeErr = err
		c.isClosed.Store(true)
		for tag, cl := range c.pending {
			delete(c.pending, tag)
			if !cl.abandoned {
				cl.err = err
				cl.done <- struct{}{}
			}
		}
		c.pmu.Unlock()
		close(c.closed)
		c.nc.Close()
	})
}

// check fails fast on a closed Conn and reports pending asynchronous errors
// when so configured.
func (c *Conn) check() error {
	if c.isClosed.Load() {
		return c.Err()
	}
	if c.opts.FailOnAsyncError && c.aPending.Load() {
		return c.AsyncErr()
	}
	return nil
}

// ---------------------------------------------------------------- reading

// background reads the socket while no caller does (see Conn.role). It
// takes the role only after no call has waited for readerLinger, so that a
// caller doing one request after another keeps reading the socket itself
// without kicking it.
func (c *Conn) background() {
	defer close(c.readerDone)
	linger := time.NewTimer(readerLinger)
	defer linger.Stop()
	for !c.isClosed.Load() {
		for !c.isClosed.Load() {
			n := c.awaits.Load()
			linger.Reset(readerLinger)
			select {
			case <-linger.C:
			case <-c.closed:
			}
			if c.wantRead.Load() == 0 && c.awaits.Load() == n {
				break
			}
		}
		select {
		case <-c.role:
		case <-c.closed:
			continue
		}
		c.bgHolds.Store(true)
		for c.wantRead.Load() == 0 && !c.isClosed.Load() {
			if err := c.pump(); err != nil {
				c.fail(err)
			}
		}
		c.bgHolds.Store(false)
		c.role <- struct{}{}
	}
	// Hold the role for good, so that nobody delivers an interrupt after
	// the channel is closed. A caller holding it gives it back once its
	// read fails on the closed socket.
	<-c.role
	close(c.irqs)
}

// kick interrupts the read of the role holder.
func (c *Conn) kick() { c.nc.SetReadDeadline(aLongTimeAgo) }

// pump reads once from the socket (blocking) and dispatches every whole
// message received. A kick ends the read early without an error. Call it
// holding the reader role.
func (c *Conn) pump() error {
	if c.rs == c.re {
		c.rs, c.re = 0, 0
	} else if len(c.rbuf)-c.re < headerSize+maxPayload {
		c.re = copy(c.rbuf, c.rbuf[c.rs:c.re])
		c.rs = 0
	}
	n, rerr := c.nc.Read(c.rbuf[c.re:])
	c.re += n
	for c.rs < c.re {
		m, k, err := nextMsg(c.rbuf[c.rs:c.re])
		if err != nil {
			return err
		}
		if k == 0 {
			break
		}
		c.rs += k
		if err := c.dispatch(m); err != nil {
			return err
		}
	}
	switch {
	case rerr == nil:
		return nil
	case errors.Is(rerr, os.ErrDeadlineExceeded) && !c.isClosed.Load():
		c.nc.SetReadDeadline(time.Time{})
		return nil
	case c.userClose.Load():
		return errors.New("closed by Close")
	case errors.Is(rerr, io.EOF):
		if c.rs < c.re {
			return fmt.Errorf("simulator closed the connection in the middle of a message (%d bytes of it received)", c.re-c.rs)
		}
		return errors.New("simulator closed the connection")
	case errors.Is(rerr, syscall.ECONNRESET):
		return errors.New("simulator closed the connection (reset)")
	}
	return fmt.Errorf("reading from simulator: %w", rerr)
}

func (c *Conn) dispatch(m msg) error {
	switch m.Type {
	case msgIRQ:
		// an interrupt does not move LastCycle: it may come from later in
		// a quantum than the answer before it (--quantum), and whether the
		// caller sees it before its next call depends on the scheduler
		c.nIRQ.Add(1)
		irq := IRQ{Vector: uint32(m.Value), Cycle: m.Cycle}
		c.deliverIRQ(irq)
		if f := c.opts.OnInterrupt; f != nil {
			f(irq)
		}
		return nil
	case msgError:
		e := m.Err
		if e.Fatal {
			// The simulator closes the connection after a fatal error;
			// every outstanding call learns the cause.
			return e
		}
		if m.Tag != 0 && c.complete(m) {
			return nil
		}
		c.asyncError(e)
		return nil
	case msgHelloOK:
		return &MalformedError{Type: m.Type, Tag: m.Tag, Len: helloOKSize, Reason: "HELLO_OK after the handshake"}
	}
	switch m.Type {
	case msgReadData, msgWaitDone:
		c.lastCycle.Store(m.Cycle)
	}
	c.pmu.Lock()
	cl, ok := c.pending[m.Tag]
	if ok && cl.want != m.Type {
		c.pmu.Unlock()
		return &MalformedError{Type: m.Type, Tag: m.Tag, Reason: fmt.Sprintf("answer to a request that expects %s", msgName(cl.want))}
	}
	c.pmu.Unlock()
	if !c.complete(m) {
		c.nUnmatched.Add(1)
	}
	return nil
}

// complete hands m to the call waiting for its tag and reports whether
// there was one.
func (c *Conn) complete(m msg) bool {
	c.pmu.Lock()
	cl, ok := c.pending[m.Tag]
	if ok {
		delete(c.pending, m.Tag)
		if cl.abandoned {
			c.nLate.Add(1)
		} else {
			cl.m = m
			cl.err = nil
			if m.Type == msgError {
				cl.err = m.Err
			}
			cl.done <- struct{}{}
		}
	}
	c.pmu.Unlock()
	return ok
}

func (c *Conn) deliverIRQ(irq IRQ) {
	select {
	case c.irqs <- irq:
		return
	default:
	}
	// Full: drop the oldest to keep the newest.
	select {
	case <-c.irqs:
		c.nIRQDropped.Add(1)
	default:
	}
	select {
	case c.irqs <- irq:
	default:
		c.nIRQDropped.Add(1)
	}
}

func (c *Conn) asyncError(e *RemoteError) {
	c.nAsync.Add(1)
	if f := c.opts.OnAsyncError; f != nil {
		f(e)
	}
	c.amu.Lock()
	if len(c.aerrs) < maxAsyncErr {
		c.aerrs = append(c.aerrs, e)
	} else {
		c.aDropped++
	}
	c.aPending.Store(true)
	c.amu.Unlock()
}

// ---------------------------------------------------------------- writing

// request is a message that expects an answer.
type request struct {
	typ   uint16
	off   uint32 // MMIO_READ
	size  uint8  // MMIO_READ
	wait  waitMsg
	on    bool   // TRACE
	token uint64 // GRANT, REVOKE
	first uint32 // GRANT
	count uint32 // GRANT
	value uint32 // FABRIC_WRITE (off: the register)
}

func (r *request) answer() uint16 {
	switch r.typ {
	case msgMMIORead, msgFabricRead:
		return msgReadData
	case msgWait:
		return msgWaitDone
	case msgStats:
		return msgStatsData
	}
	return msgAck
}

func (r *request) encode(b []byte, tag uint32) []byte {
	switch r.typ {
	case msgMMIORead:
		return appendMMIORead(b, tag, r.off, r.size)
	case msgWait:
		return appendWait(b, tag, r.wait)
	case msgTrace:
		return appendTrace(b, tag, r.on)
	case msgGrant:
		return appendGrant(b, tag, r.token, r.first, r.count)
	case msgRevoke:
		return appendRevoke(b, tag, r.token)
	case msgFabricRead, msgFabricWrite:
		return appendFabric(b, r.typ, tag, r.off, r.value)
	}
	return appendEmpty(b, r.typ, tag) // RESET, TERMINATE, STATS
}

// acquire takes the socket-writer token.
func (c *Conn) acquire(ctx context.Context) error {
	select {
	case c.sem <- struct{}{}:
		return nil
	default:
	}
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closed:
		return c.Err()
	}
}

func (c *Conn) release() { <-c.sem }

// takeBatch moves the posted writes into spare and returns what must go
// out next: the rest of an interrupted write (carry), the finished
// MMIO_WRITE message, the pending CANCELs; or an empty slice. Call with sem
// held.
func (c *Conn) takeBatch() []byte {
	b := c.spare[:0]
	if len(c.carry) > 0 {
		b, c.carry = c.carry, nil
	}
	c.bmu.Lock()
	if n := c.curN; n > 0 {
		c.cur, c.spare = c.spare[:cap(c.spare)], c.cur
		c.curN = 0
		w := c.spare[:batchHead+n*writeEntrySize]
		finishWriteBatch(w, n)
		c.batches.Add(1)
		if len(b) == 0 {
			b = w
		} else {
			b = append(b, w...)
		}
	}
	for _, t := range c.cancels {
		b = appendCancel(b, t)
	}
	c.cancels = c.cancels[:0]
	c.bmu.Unlock()
	return b
}

// cancel asks the simulator to withdraw the request with tag, whose caller
// gave up (a WAIT, or an MMIO_READ not yet on the bus): in lockstep mode
// the connection then no longer counts as blocked by it. The CANCEL goes
// out with the next message, or from the flusher.
func (c *Conn) cancel(tag uint32) {
	c.bmu.Lock()
	c.cancels = append(c.cancels, tag)
	c.bmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// writeSock writes b to the socket; call with sem held. Its first must
// bytes were accepted already (posted writes and CANCELs taken from the
// buffer, the rest of an earlier write); what follows is at most one
// request. If ctx ends before the socket has taken b (a simulator that
// stopped reading, or a ctx done before the write began), the write is
// interrupted, and what is left of the accepted bytes (and of the request,
// if part of it went) goes first in the next write, the flusher's if
// nobody else's. So a context neither loses accepted writes nor breaks
// the stream, and never closes the Conn: in lockstep a wait canceled as
// it goes out behind posted writes is routine (a parked client whose
// partner is done), and a closed driver connection would leave its node's
// user connections attached and no longer waiting, stopping time for
// every client. It returns ctx.Err() when the request (without one, the
// accepted bytes) did not go, nil once the request went, even in part
// (its answer comes; the caller's await sees ctx). Any other write error
// closes the Conn.
func (c *Conn) writeSock(ctx context.Context, b []byte, must int) error {
	if len(b) == 0 {
		return nil
	}
	var stop func() bool
	var fired chan struct{}
	if ctx.Done() != nil {
		fired = make(chan struct{})
		stop = context.AfterFunc(ctx, func() {
			c.nc.SetWriteDeadline(aLongTimeAgo)
			close(fired)
		})
	}
	n, err := c.nc.Write(b)
	interrupted := false
	if stop != nil && !stop() {
		<-fired
		c.nc.SetWriteDeadline(time.Time{})
		interrupted = true
	}
	if err == nil {
		return nil
	}
	if !interrupted || !errors.Is(err, os.ErrDeadlineExceeded) {
		c.fail(fmt.Errorf("writing to simulator: %w", err))
		return c.Err()
	}
	rest := b[n:]
	if n <= must {
		rest = b[n:must] // the request did not begin: it is dropped
	}
	if len(rest) > 0 {
		c.carry = append([]byte(nil), rest...)
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
	if n > must {
		return nil
	}
	return ctx.Err()
}

// Flush sends the posted writes buffered so far. It returns once they are
// handed to the socket, not when the simulator has applied them; a later
// answered request (a read, a wait) is ordered after them.
func (c *Conn) Flush(ctx context.Context) error {
	if err := c.check(); err != nil {
		return err
	}
	return c.flush(ctx)
}

func (c *Conn) flush(ctx context.Context) error {
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	b := c.takeBatch()
	return c.writeSock(ctx, b, len(b))
}

// flushLoop sends posted writes in the background: woken when the buffer
// goes non-empty, it sends whatever accumulated meanwhile.
func (c *Conn) flushLoop() {
	ctx := context.Background()
	for {
		select {
		case <-c.wake:
		case <-c.closed:
			return
		}
		if c.flush(ctx) != nil {
			return
		}
	}
}

// roundTrip sends r (after the posted writes) and waits for its answer.
func (c *Conn) roundTrip(ctx context.Context, r *request) (msg, error) {
	if err := c.check(); err != nil {
		return msg{}, err
	}
	cl, tag, err := c.register(r.answer())
	if err != nil {
		return msg{}, err
	}
	return c.await(ctx, cl, tag, c.send(ctx, r, tag))
}

// register reserves a tag for a request whose answer has type want.
func (c *Conn) register(want uint16) (*call, uint32, error) {
	cl := callPool.Get().(*call)
	cl.want = want
	cl.abandoned = false
	c.pmu.Lock()
	if c.closeErr != nil {
		err := c.closeErr
		c.pmu.Unlock()
		callPool.Put(cl)
		return nil, 0, err
	}
	tag := c.nextTag
	for tag == 0 || c.pending[tag] != nil {
		tag++
	}
	c.nextTag = tag + 1
	c.pending[tag] = cl
	c.pmu.Unlock()
	c.nRequests.Add(1)
	return cl, tag, nil
}

// await waits for the answer of a registered call whose request was sent
// with the error sendErr. While it waits it reads the socket itself when
// no other caller does (see Conn.role).
func (c *Conn) await(ctx context.Context, cl *call, tag uint32, sendErr error) (msg, error) {
	if sendErr != nil {
		c.pmu.Lock()
		if c.pending[tag] == cl {
			delete(c.pending, tag)
			c.pmu.Unlock()
			callPool.Put(cl)
			return msg{}, sendErr
		}
		c.pmu.Unlock()
		// Failed by fail(): the token is in done.
		<-cl.done
		callPool.Put(cl)
		return msg{}, sendErr
	}
	c.awaits.Add(1)
	if c.wantRead.Add(1) == 1 && c.bgHolds.Load() {
		c.kick()
	}
	defer c.wantRead.Add(-1)
	select {
	case <-cl.done:
		return c.result(cl)
	case <-c.role:
		return c.readUntil(ctx, cl, tag)
	case <-ctx.Done():
		return c.abandon(ctx, cl, tag)
	}
}

// readUntil reads the socket, holding the reader role, until cl is
// answered or ctx ends.
func (c *Conn) readUntil(ctx context.Context, cl *call, tag uint32) (msg, error) {
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, c.kick)
		defer stop()
	}
	for {
		select {
		case <-cl.done:
			c.role <- struct{}{}
			return c.result(cl)
		default:
		}
		if ctx.Err() != nil {
			c.role <- struct{}{}
			return c.abandon(ctx, cl, tag)
		}
		if err := c.pump(); err != nil {
			c.fail(err) // answers cl too
		}
	}
}

func (c *Conn) result(cl *call) (msg, error) {
	m, err := cl.m, cl.err
	cl.m = msg{}
	callPool.Put(cl)
	return m, err
}

// abandon gives up waiting for cl because ctx ended.
func (c *Conn) abandon(ctx context.Context, cl *call, tag uint32) (msg, error) {
	c.pmu.Lock()
	if c.pending[tag] == cl {
		// The answer may still come (a CANCELed wait or read is answered
		// at once, as aborted or canceled); the tag stays reserved until
		// it does, and the answer is dropped.
		cl.abandoned = true
		want := cl.want
		c.pmu.Unlock()
		if want == msgWaitDone || want == msgReadData {
			c.cancel(tag)
			if want == msgWaitDone && c.dev.Mode == ModeLockstep && c.opts.Role != RoleMonitor {
				c.fenceCancel(ctx)
			}
		}
		return msg{}, ctx.Err()
	}
	c.pmu.Unlock()
	<-cl.done // answered meanwhile: use the answer
	return c.result(cl)
}

// cancelFenceTimeout bounds, in wall time, how long fenceCancel waits for a
// simulator that does not answer.
const cancelFenceTimeout = 10 * time.Second

// fenceCancel sends the pending CANCELs now and returns once the simulator
// has handled them: a STATS round trip behind them (answered without
// simulated time; a CANCELed WAIT is answered at once, so the connection
// no longer counts as blocked by it). In lockstep mode the connection
// counts as blocked until its CANCEL is handled; a caller that went on at
// once would run while the other clients' requests let time advance, and
// its next requests would land at cycles that depend on wall-clock timing.
func (c *Conn) fenceCancel(ctx context.Context) {
	fctx, stop := context.WithTimeout(context.WithoutCancel(ctx), cancelFenceTimeout)
	defer stop()
	// roundTrip without its check, which would take the asynchronous
	// errors meant for the caller's next call (FailOnAsyncError)
	cl, tag, err := c.register(msgStatsData)
	if err != nil {
		return
	}
	c.await(fctx, cl, tag, c.send(fctx, &request{typ: msgStats}, tag)) // send puts the pending CANCELs first
}

func (c *Conn) send(ctx context.Context, r *request, tag uint32) error {
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	b := c.takeBatch()
	must := len(b)
	b = r.encode(b, tag)
	return c.writeSock(ctx, b, must)
}

// ack sends r and checks its ACK.
func (c *Conn) ack(ctx context.Context, r *request) error {
	m, err := c.roundTrip(ctx, r)
	if err != nil {
		return err
	}
	if m.Status != 0 {
		return &RemoteError{Code: ErrorCode(m.Status), RefType: r.typ, Tag: m.Tag}
	}
	return nil
}
