package vipl

import (
	"context"
	"errors"
	"sync"

	"github.com/vianic/vianic/driver"
	"github.com/vianic/vianic/driver/hostvm"
	"github.com/vianic/vianic/driver/simbus"
	"github.com/vianic/vianic/internal/hw"
)

// Ptag is a protection tag (VIP_PROTECTION_HANDLE). 0 is never valid.
type Ptag uint32

// MemHandle is a memory handle (VIP_MEM_HANDLE): it names a registered
// region to the NIC. 0 is never valid.
type MemHandle uint32

// MemAttributes are a region's memory attributes (VIP_MEM_ATTRIBUTES).
type MemAttributes struct {
	Ptag            Ptag
	EnableRdmaWrite bool // remote RDMA writes into the region are allowed
	EnableRdmaRead  bool // remote RDMA reads from the region are allowed
}

// ReliabilityLevel is a set of VIA reliability levels (VIP_RELIABILITY_LEVEL
// bits).
type ReliabilityLevel uint32

// The reliability levels.
const (
	Unreliable        ReliabilityLevel = hw.VipReliabilityUnreliable
	ReliableDelivery  ReliabilityLevel = hw.VipReliabilityReliableDelivery
	ReliableReception ReliabilityLevel = hw.VipReliabilityReliableReception
)

// NicAttributes are the NIC's attributes (VIP_NIC_ATTRIBUTES), as the
// firmware answers them.
type NicAttributes struct {
	Name                    string
	HardwareVersion         uint32 // the NIC's HW_VERSION register
	ProviderVersion         uint32 // firmware version, major << 8 | minor
	LocalNicAddress         []byte
	ThreadSafe              bool
	MaxDiscriminatorLen     uint32
	MaxRegisterBytes        uint32
	MaxRegisterRegions      uint32
	MaxRegisterBlockBytes   uint32
	MaxVI                   uint32
	MaxDescriptorsPerQueue  uint32
	MaxSegmentsPerDesc      uint32 // data segments; an RDMA's address segment comes on top
	MaxCQ                   uint32
	MaxCQEntries            uint32
	MaxTransferSize         uint32
	NativeMTU               uint32
	MaxPtags                uint32
	ReliabilityLevelSupport ReliabilityLevel
	RDMAReadSupport         ReliabilityLevel
}

// Mapping is memory the kernel agent allocated for the calling process:
// VA is its first byte's virtual address as the NIC sees it (the address
// that goes into RegisterMem and descriptors) and Bytes is the process's
// own view of it, len(Bytes) bytes long. The pages behind it are the
// node's host memory, physically scattered.
type Mapping struct {
	VA    uint64
	Bytes []byte
}

// KernelAgent is everything vipl asks of the kernel agent (the driver):
// the set-up calls of VIA, which need the kernel's privileges. It is the
// only way this package reaches the driver. Arguments and results are
// plain data, so an implementation may forward the calls to an agent in
// another process; the one exception, Mapping.Bytes, is memory of the
// calling process (an agent elsewhere maps the node's host memory into it,
// at Mapping.VA). Errors carry a VIA return code: an *Error, or any error,
// which counts as VIP_ERROR_RESOURCE (see Code).
//
// The data path (writing descriptors, ringing doorbells, reaping
// completions) goes from the process to the NIC without the agent: the
// agent only maps a VI's doorbell page into the process (MapDoorbell, as
// Alloc maps memory) and owns the completion interrupt, on which the
// process blocks through Events (as a VIA process blocks in its kernel
// agent in VipSendWait).
type KernelAgent interface {
	// QueryNic answers the NIC's attributes.
	QueryNic(ctx context.Context) (NicAttributes, error)
	// CreatePtag and DestroyPtag make and free protection tags of the
	// calling process.
	CreatePtag(ctx context.Context) (Ptag, error)
	DestroyPtag(ctx context.Context, p Ptag) error
	// RegisterMem registers [va, va+length) of memory from Alloc;
	// DeregisterMem, QueryMem and SetMemAttributes name the region by its
	// start and handle.
	RegisterMem(ctx context.Context, va uint64, length int, attrs MemAttributes) (MemHandle, error)
	DeregisterMem(ctx context.Context, va uint64, h MemHandle) error
	QueryMem(ctx context.Context, va uint64, h MemHandle) (MemAttributes, error)
	SetMemAttributes(ctx context.Context, va uint64, h MemHandle, attrs MemAttributes) error
	// CreateVi, DestroyVi, QueryVi and SetViAttributes manage the calling
	// process's VIs.
	CreateVi(ctx context.Context, attrs ViAttributes) (ViID, error)
	DestroyVi(ctx context.Context, id ViID) error
	QueryVi(ctx context.Context, id ViID) (ViInfo, error)
	SetViAttributes(ctx context.Context, id ViID, attrs ViAttributes) error
	// ConnectLoopback joins two IDLE VIs of the process (both become
	// CONNECTED, each the other's peer, through the NIC's loopback path);
	// Disconnect puts a CONNECTED VI and its peer back to IDLE. They stand
	// in for connection management.
	ConnectLoopback(ctx context.Context, a, b ViID) error
	// ConnectRemote connects an IDLE VI of the process to VI peer of
	// another node without a handshake (it becomes CONNECTED); the far VI
	// is connected back the same way on its node.
	ConnectRemote(ctx context.Context, id ViID, node uint32, peer ViID) error
	Disconnect(ctx context.Context, id ViID) error
	// Connection management (docs/fabric.md): listen on a discriminator,
	// request a connection of a VI, accept, reject or cancel one, and wait
	// for the connection manager's events (timeoutCycles 0: no timeout;
	// an expired wait answers VIP_TIMEOUT).
	Listen(ctx context.Context, disc []byte) (uint32, error)
	Unlisten(ctx context.Context, listen uint32) error
	ConnectRequest(ctx context.Context, id ViID, node uint32, disc []byte) (uint32, error)
	ConnectPeerRequest(ctx context.Context, id ViID, node uint32, disc []byte) (uint32, error)
	ConnectAccept(ctx context.Context, conn uint32, id ViID) error
	ConnectReject(ctx context.Context, conn uint32) error
	ConnectCancel(ctx context.Context, id ViID) error
	WaitCM(ctx context.Context, match func(CMEvent) bool, timeoutCycles uint64) (CMEvent, error)
	// CreateCQ makes a completion queue of at least entries entries and
	// maps its ring into the process (the NIC writes driver.CQEntry
	// records into it; Mapping.Bytes is entries rounded up to a power of
	// two, times 8 bytes); DestroyCQ frees it (refused while a VI's queue
	// reports to it); ResizeCQ moves it to a new ring, which it returns
	// (the old one is unmapped). BindCQ makes cq the CQ of queue q of a
	// VI just created. CQConsumed reports the entries the process took
	// (its running count, modulo 2**16): a posted write, no round trip.
	CreateCQ(ctx context.Context, entries int) (CQID, Mapping, error)
	DestroyCQ(ctx context.Context, id CQID) error
	ResizeCQ(ctx context.Context, id CQID, entries int) (Mapping, error)
	BindCQ(ctx context.Context, id ViID, q Queue, cq CQID) error
	CQConsumed(ctx context.Context, id CQID, count uint16) error
	// MapDoorbell maps the doorbell page of one of the process's VIs into
	// the process.
	MapDoorbell(ctx context.Context, id ViID) (Doorbell, error)
	// Events returns the completion interrupt and clock as the process
	// sees them (the same value every call).
	Events() Events
	// Alloc allocates n bytes (whole pages underneath) of memory that can
	// be registered; Free returns the allocation that starts at va.
	Alloc(ctx context.Context, n int) (Mapping, error)
	Free(ctx context.Context, va uint64) error
	// SetModeration sets the moderation of the process's completion
	// interrupt: raised once count completions of armed queues and CQs
	// have come, or cycles NIC cycles after the first (count 0 or 1: at
	// once; cycles 0: no time limit).
	SetModeration(ctx context.Context, count, cycles uint32) error
	// SetErrorHandler makes fn the receiver of the process's asynchronous
	// errors (nil: none): errors about its VIs and about the NIC. fn must
	// not block; the agent calls it when it learns of an error, which is
	// while the process waits on the NIC (a Wait, or the poll interval of
	// a Done call) or makes an agent call.
	SetErrorHandler(fn func(AsyncError))
	// Close releases everything the process holds (as its exit would) and
	// ends its use of the agent.
	Close(ctx context.Context) error
}

// AsyncError is an asynchronous error as the kernel agent reports it
// (plain data).
type AsyncError struct {
	Code     ErrorCode
	Resource ResourceCode
	Vi       ViID   // the VI of a ResourceVi error
	CQ       CQID   // the CQ of a ResourceCQ error
	Cycle    uint64 // the NIC cycle at which the agent learned of it
	Message  string // what the agent knows more (a firmware fault's description)
}

// SetModeration implements KernelAgent.
func (a *LocalAgent) SetModeration(ctx context.Context, count, cycles uint32) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("SetModeration", err)
	}
	return agentErr("SetModeration", a.s.SetModeration(ctx, count, cycles))
}

// SetErrorHandler implements KernelAgent.
func (a *LocalAgent) SetErrorHandler(fn func(AsyncError)) {
	if fn == nil {
		a.s.SetErrorHandler(nil)
		return
	}
	a.s.SetErrorHandler(func(e driver.AsyncError) {
		ae := AsyncError{Code: ErrorCode(e.Code), Resource: ResourceCode(e.Resource), Vi: ViID(e.VI), CQ: CQID(e.CQ), Cycle: e.Cycle}
		if e.Err != nil {
			ae.Message = e.Err.Error()
		}
		fn(ae)
	})
}

// LocalAgent is the kernel agent in the calling process: a driver session
// on a driver NIC. Safe for concurrent use.
type LocalAgent struct {
	nic     *driver.NIC
	s       *driver.Session
	onClose func() error // releases what OpenNic opened underneath

	ev   *localEvents
	user *simbus.User // the process's doorbell connection (userconn.go); nil: doorbells on the driver's

	mu   sync.Mutex
	bufs map[uint64]*hostvm.Buffer // by VA
}

var _ KernelAgent = (*LocalAgent)(nil)

// NewLocalAgent returns the kernel agent of session s of nic. Close closes
// the session; nic stays the caller's.
func NewLocalAgent(nic *driver.NIC, s *driver.Session) *LocalAgent {
	a := &LocalAgent{nic: nic, s: s, bufs: map[uint64]*hostvm.Buffer{}}
	a.ev = &localEvents{a: a, nic: nic, c: s.Events()}
	return a
}

// agentErr turns a driver error into an *Error of call op: a
// *driver.VipError keeps its code, anything else (a closed NIC, a firmware
// fault, the bridge) is VIP_ERROR_RESOURCE.
func agentErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var ve *driver.VipError
	if errors.As(err, &ve) {
		return &Error{Op: op, Code: Return(ve.Code), Detail: ve.Detail, Cause: ve.Err}
	}
	return &Error{Op: op, Code: ErrorResource, Cause: err}
}

// FabricNodes is the number of nodes on the NIC's fabric (0: unknown); the
// name service's default names cover them.
func (a *LocalAgent) FabricNodes() int { return a.nic.BusInfo().Nodes }

// QueryNic implements KernelAgent.
func (a *LocalAgent) QueryNic(ctx context.Context) (NicAttributes, error) {
	if err := a.fence(ctx); err != nil {
		return NicAttributes{}, agentErr("QueryNic", err)
	}
	d, err := a.nic.QueryNIC(ctx)
	if err != nil {
		return NicAttributes{}, agentErr("QueryNic", err)
	}
	return NicAttributes{
		Name:                    d.Name,
		HardwareVersion:         d.HardwareVersion,
		ProviderVersion:         d.ProviderVersion,
		LocalNicAddress:         d.LocalNICAddress,
		ThreadSafe:              d.ThreadSafe,
		MaxDiscriminatorLen:     d.MaxDiscriminatorLen,
		MaxRegisterBytes:        d.MaxRegisterBytes,
		MaxRegisterRegions:      d.MaxRegisterRegions,
		MaxRegisterBlockBytes:   d.MaxRegisterBlockBytes,
		MaxVI:                   d.MaxVI,
		MaxDescriptorsPerQueue:  d.MaxDescriptorsPerQueue,
		MaxSegmentsPerDesc:      d.MaxSegmentsPerDesc,
		MaxCQ:                   d.MaxCQ,
		MaxCQEntries:            d.MaxCQEntries,
		MaxTransferSize:         d.MaxTransferSize,
		NativeMTU:               d.NativeMTU,
		MaxPtags:                d.MaxPtags,
		ReliabilityLevelSupport: ReliabilityLevel(d.ReliabilityLevelSupport),
		RDMAReadSupport:         ReliabilityLevel(d.RDMAReadSupport),
	}, nil
}

// CreatePtag implements KernelAgent.
func (a *LocalAgent) CreatePtag(ctx context.Context) (Ptag, error) {
	if err := a.fence(ctx); err != nil {
		return 0, agentErr("CreatePtag", err)
	}
	p, err := a.s.CreatePtag(ctx)
	return Ptag(p), agentErr("CreatePtag", err)
}

// DestroyPtag implements KernelAgent.
func (a *LocalAgent) DestroyPtag(ctx context.Context, p Ptag) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("DestroyPtag", err)
	}
	return agentErr("DestroyPtag", a.s.DestroyPtag(ctx, driver.Ptag(p)))
}

func driverAttrs(m MemAttributes) driver.MemAttrs {
	return driver.MemAttrs{Ptag: driver.Ptag(m.Ptag), EnableRdmaWrite: m.EnableRdmaWrite, EnableRdmaRead: m.EnableRdmaRead}
}

// RegisterMem implements KernelAgent.
func (a *LocalAgent) RegisterMem(ctx context.Context, va uint64, length int, attrs MemAttributes) (MemHandle, error) {
	if err := a.fence(ctx); err != nil {
		return 0, agentErr("RegisterMem", err)
	}
	h, err := a.s.RegisterMem(ctx, va, length, driverAttrs(attrs))
	return MemHandle(h), agentErr("RegisterMem", err)
}

// DeregisterMem implements KernelAgent.
func (a *LocalAgent) DeregisterMem(ctx context.Context, va uint64, h MemHandle) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("DeregisterMem", err)
	}
	return agentErr("DeregisterMem", a.s.DeregisterMem(ctx, va, driver.MemHandle(h)))
}

// QueryMem implements KernelAgent.
func (a *LocalAgent) QueryMem(ctx context.Context, va uint64, h MemHandle) (MemAttributes, error) {
	if err := a.fence(ctx); err != nil {
		return MemAttributes{}, agentErr("QueryMem", err)
	}
	r, err := a.s.QueryMem(ctx, va, driver.MemHandle(h))
	if err != nil {
		return MemAttributes{}, agentErr("QueryMem", err)
	}
	return MemAttributes{Ptag: Ptag(r.Attrs.Ptag), EnableRdmaWrite: r.Attrs.EnableRdmaWrite, EnableRdmaRead: r.Attrs.EnableRdmaRead}, nil
}

// SetMemAttributes implements KernelAgent.
func (a *LocalAgent) SetMemAttributes(ctx context.Context, va uint64, h MemHandle, attrs MemAttributes) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("SetMemAttributes", err)
	}
	return agentErr("SetMemAttributes", a.s.SetMemAttributes(ctx, va, driver.MemHandle(h), driverAttrs(attrs)))
}

// Alloc implements KernelAgent: driver.Session.Alloc.
func (a *LocalAgent) Alloc(ctx context.Context, n int) (Mapping, error) {
	b, err := a.s.Alloc(n)
	if err != nil {
		return Mapping{}, agentErr("Alloc", err)
	}
	a.mu.Lock()
	a.bufs[b.VA] = b
	a.mu.Unlock()
	return Mapping{VA: b.VA, Bytes: b.Bytes}, nil
}

// Free implements KernelAgent: driver.Session.Free.
func (a *LocalAgent) Free(ctx context.Context, va uint64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := a.bufs[va]
	if !ok {
		return newErr("Free", InvalidParameter, nil, "no allocation starts at 0x%x", va)
	}
	if err := a.s.Free(b); err != nil {
		return agentErr("Free", err)
	}
	delete(a.bufs, va)
	return nil
}

// Close implements KernelAgent: it closes the session, then what OpenNic
// opened underneath, if anything.
func (a *LocalAgent) Close(ctx context.Context) error {
	err := a.fence(ctx)
	err = errors.Join(err, a.s.Close(ctx))
	a.mu.Lock()
	clear(a.bufs)
	a.mu.Unlock()
	// The user connection goes before the driver's (whose close detaches
	// the node and would leave it holding lockstep time).
	err = errors.Join(err, a.closeUser())
	if a.onClose != nil {
		err = errors.Join(err, a.onClose())
	}
	return agentErr("CloseNic", err)
}

// ConnectLoopback implements KernelAgent: driver.Session.ConnectLoopback.
func (a *LocalAgent) ConnectLoopback(ctx context.Context, x, y ViID) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("ConnectLoopback", err)
	}
	return agentErr("ConnectLoopback", a.s.ConnectLoopback(ctx, driver.VI(x), driver.VI(y)))
}

// ConnectRemote implements KernelAgent: driver.Session.ConnectRemote.
func (a *LocalAgent) ConnectRemote(ctx context.Context, id ViID, node uint32, peer ViID) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("ConnectRemote", err)
	}
	return agentErr("ConnectRemote", a.s.ConnectRemote(ctx, driver.VI(id), node, uint32(peer)))
}

// Listen implements KernelAgent: driver.Session.Listen.
func (a *LocalAgent) Listen(ctx context.Context, disc []byte) (uint32, error) {
	if err := a.fence(ctx); err != nil {
		return 0, agentErr("ConnectWait", err)
	}
	id, err := a.s.Listen(ctx, disc)
	return id, agentErr("ConnectWait", err)
}

// Unlisten implements KernelAgent.
func (a *LocalAgent) Unlisten(ctx context.Context, listen uint32) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("ConnectWait", err)
	}
	return agentErr("ConnectWait", a.s.Unlisten(ctx, listen))
}

// ConnectRequest implements KernelAgent.
func (a *LocalAgent) ConnectRequest(ctx context.Context, id ViID, node uint32, disc []byte) (uint32, error) {
	if err := a.fence(ctx); err != nil {
		return 0, agentErr("ConnectRequest", err)
	}
	c, err := a.s.ConnectRequest(ctx, driver.VI(id), node, disc)
	return c, agentErr("ConnectRequest", err)
}

// ConnectPeerRequest implements KernelAgent.
func (a *LocalAgent) ConnectPeerRequest(ctx context.Context, id ViID, node uint32, disc []byte) (uint32, error) {
	if err := a.fence(ctx); err != nil {
		return 0, agentErr("ConnectPeerRequest", err)
	}
	c, err := a.s.ConnectPeerRequest(ctx, driver.VI(id), node, disc)
	return c, agentErr("ConnectPeerRequest", err)
}

// ConnectAccept implements KernelAgent.
func (a *LocalAgent) ConnectAccept(ctx context.Context, conn uint32, id ViID) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("ConnectAccept", err)
	}
	return agentErr("ConnectAccept", a.s.ConnectAccept(ctx, conn, driver.VI(id)))
}

// ConnectReject implements KernelAgent.
func (a *LocalAgent) ConnectReject(ctx context.Context, conn uint32) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("ConnectReject", err)
	}
	return agentErr("ConnectReject", a.s.ConnectReject(ctx, conn))
}

// ConnectCancel implements KernelAgent.
func (a *LocalAgent) ConnectCancel(ctx context.Context, id ViID) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("ConnectRequest", err)
	}
	return agentErr("ConnectRequest", a.s.ConnectCancel(ctx, driver.VI(id)))
}

// WaitCM implements KernelAgent: driver.Session.WaitCM.
func (a *LocalAgent) WaitCM(ctx context.Context, match func(CMEvent) bool, timeoutCycles uint64) (CMEvent, error) {
	if err := a.fence(ctx); err != nil {
		return CMEvent{}, agentErr("WaitCM", err)
	}
	ev, err := a.s.WaitCM(ctx, func(e driver.CMEvent) bool { return match(cmEventOf(e)) }, timeoutCycles)
	if errors.Is(err, driver.ErrBusTimeout) {
		return CMEvent{}, &Error{Op: "WaitCM", Code: Timeout, Cause: err}
	}
	return cmEventOf(ev), agentErr("WaitCM", err)
}

// Disconnect implements KernelAgent: driver.Session.Disconnect.
func (a *LocalAgent) Disconnect(ctx context.Context, id ViID) error {
	if err := a.fence(ctx); err != nil {
		return agentErr("Disconnect", err)
	}
	return agentErr("Disconnect", a.s.Disconnect(ctx, driver.VI(id)))
}

// MapDoorbell implements KernelAgent: driver.Session.Doorbell.
func (a *LocalAgent) MapDoorbell(ctx context.Context, id ViID) (Doorbell, error) {
	d, err := a.s.Doorbell(driver.VI(id))
	if err != nil {
		return nil, agentErr("MapDoorbell", err)
	}
	if a.user != nil {
		return userDoorbell{u: a.user, base: d.Offset()}, nil
	}
	return localDoorbell{d}, nil
}

// Events implements KernelAgent: the NIC's driver.Completions and clock.
func (a *LocalAgent) Events() Events { return a.ev }

type localDoorbell struct{ d *driver.Doorbell }

func (l localDoorbell) SetHandle(ctx context.Context, q Queue, h MemHandle) error {
	return agentErr("SetHandle", l.d.SetHandle(ctx, int(q), driver.MemHandle(h)))
}

func (l localDoorbell) Ring(ctx context.Context, q Queue, va uint64) error {
	return agentErr("Ring", l.d.Ring(ctx, int(q), va))
}

type localEvents struct {
	a   *LocalAgent
	nic *driver.NIC
	c   *driver.Completions
}

func (e *localEvents) Gen() uint64 { return e.c.Gen() }

func (e *localEvents) Wait(ctx context.Context, gen uint64, timeoutCycles uint64) (uint64, error) {
	if err := e.a.fence(ctx); err != nil {
		return gen, agentErr("Wait", err)
	}
	g, err := e.c.Wait(ctx, gen, timeoutCycles)
	if errors.Is(err, driver.ErrBusTimeout) {
		return g, &Error{Op: "Wait", Code: Timeout, Cause: err}
	}
	return g, agentErr("Wait", err)
}

func (e *localEvents) Idle(ctx context.Context, cycles uint64) error {
	if err := e.a.fence(ctx); err != nil {
		return agentErr("Idle", err)
	}
	_, err := e.nic.Idle(ctx, cycles)
	return agentErr("Idle", err)
}

func (e *localEvents) Arm(ctx context.Context, vi ViID, q Queue) error {
	return agentErr("Arm", e.a.s.Arm(ctx, driver.VI(vi), int(q)))
}

func (e *localEvents) ArmCQ(ctx context.Context, cq CQID) error {
	return agentErr("ArmCQ", e.a.s.ArmCQ(ctx, driver.CQ(cq)))
}

func (e *localEvents) Cycle() uint64     { return e.nic.Cycle() }
func (e *localEvents) ClockPS() uint32   { return e.nic.BusInfo().ClockPS }
func (e *localEvents) FreeRunning() bool { return e.nic.BusInfo().FreeRunning }
