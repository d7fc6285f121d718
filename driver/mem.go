package driver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/vianic/vianic/driver/hostvm"
	"github.com/vianic/vianic/internal/hw"
)

// Memory registration, the kernel agent's side (docs/memory.md).
//
// The node's host memory (the memfd the bus shares with the NIC) is the
// machine's physical memory: a hostvm.Phys hands it out in 4 KiB pages.
// Every process that opens the NIC gets a Session: its own address space
// (hostvm.Space) in which its buffers are virtually contiguous and backed
// by scattered physical pages, its own protection tags and its own memory
// regions. Registration pins the region's pages, writes its page list into
// physically contiguous pages the driver owns, and asks the firmware
// (REGISTER_MEM) to program the NIC's translation and protection table. A
// session can use only its own ptags and handles: another process's are
// answered as if they did not exist.

// Ptag is a protection tag (VipCreatePtag). 0 is never a valid ptag.
type Ptag uint32

// MemHandle is a memory handle (VipRegisterMem): generation << 16 | region
// index. 0 is never a valid handle.
type MemHandle uint32

// MemAttrs are a region's memory attributes (VIP_MEM_ATTRIBUTES).
type MemAttrs struct {
	Ptag            Ptag
	EnableRdmaWrite bool
	EnableRdmaRead  bool
}

func (a MemAttrs) flags() uint32 {
	var f uint32
	if a.EnableRdmaWrite {
		f |= hw.AdminMemRdmaWrite
	}
	if a.EnableRdmaRead {
		f |= hw.AdminMemRdmaRead
	}
	return f
}

// MemRegion is a registered region as the NIC holds it (QueryMem).
type MemRegion struct {
	VA    uint64
	Len   uint32
	Attrs MemAttrs
	// Pages is the number of 4 KiB pages the region spans; PageList the
	// physical address of its page list.
	Pages    int
	PageList uint64
}

// VipError is a kernel-agent call that failed with a VIA return code. Code
// says which (hw.VipReturn*); Err, when not nil, is the cause underneath
// (an admin *StatusError, a hostvm error).
type VipError struct {
	Op     string       // the VIPL call, as "RegisterMem"
	Code   hw.VipReturn // VIP_INVALID_PARAMETER, VIP_INVALID_PTAG, ...
	Detail string
	Err    error
}

func (e *VipError) Error() string {
	s := fmt.Sprintf("driver: %s: VIP_%s", e.Op, e.Code)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *VipError) Unwrap() error { return e.Err }

// VipCode returns the VIA return code of err: VIP_SUCCESS for nil, the code
// of a *VipError in its chain, else VIP_ERROR_RESOURCE (the NIC or the
// bridge failed underneath: a firmware fault, a closed simulator).
func VipCode(err error) hw.VipReturn {
	if err == nil {
		return hw.VipReturnSuccess
	}
	var ve *VipError
	if errors.As(err, &ve) {
		return ve.Code
	}
	return hw.VipReturnErrorResource
}

func vipErr(op string, code hw.VipReturn, err error, format string, args ...any) error {
	return &VipError{Op: op, Code: code, Detail: fmt.Sprintf(format, args...), Err: err}
}

// adminVip turns an admin command's failure into a VipError: the
// firmware's statuses map to VIA's codes; other failures (fault, hang,
// bus) keep their error with VIP_ERROR_RESOURCE.
func adminVip(op string, err error) error {
	var se *StatusError
	if !errors.As(err, &se) {
		return &VipError{Op: op, Code: hw.VipReturnErrorResource, Err: err}
	}
	code := hw.VipReturn(hw.VipReturnErrorResource)
	switch se.Status {
	case hw.AdminStBadParam, hw.AdminStInvalidHandle, hw.AdminStInvalidVi, hw.AdminStNoMatch:
		code = hw.VipReturnInvalidParameter
	case hw.AdminStInvalidPtag:
		code = hw.VipReturnInvalidPtag
	case hw.AdminStInvalidState:
		code = hw.VipReturnInvalidState
	case hw.AdminStInvalidReliabilityLevel:
		code = hw.VipReturnInvalidReliabilityLevel
	case hw.AdminStInvalidMtu:
		code = hw.VipReturnInvalidMtu
	case hw.AdminStInvalidRdmaread:
		code = hw.VipReturnInvalidRdmaread
	} // NO_RESOURCE, IN_USE, BUSY and the rest: VIP_ERROR_RESOURCE
	return &VipError{Op: op, Code: code, Err: err}
}

// MemoryOptions set how the driver manages host memory (ManageMemory).
type MemoryOptions struct {
	// Reserve keeps the bottom Reserve bytes of host memory (rounded up to
	// pages) out of the allocator, for diagnostics at fixed physical
	// addresses.
	Reserve int64
	// Seed sets the order in which scattered pages are handed out (0: 1).
	Seed uint64
}

// mappable is host memory backed by a file the driver can map page by page.
type mappable interface {
	HostMemory
	Fd() int
}

// memState is the NIC's physical memory and its sessions; guarded by
// NIC.memMu (never held while calling the bus: admin calls take NIC.mu).
type memState struct {
	phys     *hostvm.Phys
	sessions map[*Session]struct{}
	pool     plPool
}

// plPool is the page-list pool: physically contiguous pages taken from the
// allocator when the driver gets the memory, enough for a page list of
// every page of host memory (1/512 of it). Page lists come from the pool
// first, so that a registration of all of host memory never fails for
// want of contiguous pages in a fragmented memory; when the pool is full
// (the same memory registered many times) they come from the allocator.
type plPool struct {
	base uint64
	used []bool // per page
}

// alloc takes n contiguous pages of the pool (first fit).
func (p *plPool) alloc(n int) (uint64, bool) {
	run := 0
	for i := range p.used {
		if p.used[i] {
			run = 0
			continue
		}
		run++
		if run == n {
			first := i - n + 1
			for j := first; j <= i; j++ {
				p.used[j] = true
			}
			return p.base + uint64(first)*hostvm.PageSize, true
		}
	}
	return 0, false
}

// free returns pages of the pool; false if pa is not in it.
func (p *plPool) free(pa uint64, n int) bool {
	if pa < p.base || pa >= p.base+uint64(len(p.used))*hostvm.PageSize {
		return false
	}
	first := int((pa - p.base) / hostvm.PageSize)
	for j := first; j < first+n; j++ {
		p.used[j] = false
	}
	return true
}

// allocPageList takes n contiguous pages for a page list.
func (n *NIC) allocPageList(pages int) (uint64, error) {
	n.memMu.Lock()
	defer n.memMu.Unlock()
	if pa, ok := n.mem.pool.alloc(pages); ok {
		return pa, nil
	}
	return n.mem.phys.AllocContig(pages)
}

func (n *NIC) freePageList(pa uint64, pages int) {
	n.memMu.Lock()
	defer n.memMu.Unlock()
	if !n.mem.pool.free(pa, pages) {
		n.mem.phys.FreeContig(pa, pages)
	}
}

// ManageMemory makes the driver the owner of m's pages: m must already be
// the NIC's host memory (AttachMemory, or attached by whoever set up the
// bus) and must be backed by a mappable file (the simulator's memfd
// memory is). Sessions (OpenSession) need it.
func (n *NIC) ManageMemory(m HostMemory, opts MemoryOptions) error {
	mm, ok := m.(mappable)
	if !ok {
		return fmt.Errorf("driver: ManageMemory: %T cannot be mapped page by page (it has no Fd)", m)
	}
	if n.closed.Load() {
		return ErrClosed
	}
	n.memMu.Lock()
	defer n.memMu.Unlock()
	if n.mem.phys != nil {
		if len(n.mem.sessions) > 0 {
			return fmt.Errorf("driver: ManageMemory: %d sessions still use the current memory", len(n.mem.sessions))
		}
		n.mem.phys.Close()
		n.mem.phys = nil
	}
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	p, err := hostvm.NewPhys(mm.Fd(), int64(mm.Size()), hostvm.PhysOptions{Seed: seed, Reserve: opts.Reserve})
	if err != nil {
		return fmt.Errorf("driver: ManageMemory: %w", err)
	}
	pages := (p.Stats().Total*8 + hostvm.PageSize - 1) / hostvm.PageSize
	base, err := p.AllocContig(pages)
	if err != nil {
		p.Close()
		return fmt.Errorf("driver: ManageMemory: the page-list pool (%d pages): %w", pages, err)
	}
	n.mem.phys = p
	n.mem.sessions = map[*Session]struct{}{}
	n.mem.pool = plPool{base: base, used: make([]bool, pages)}
	return nil
}

// Phys returns the physical page allocator of the NIC's host memory (nil
// before ManageMemory), for diagnostics and tests.
func (n *NIC) Phys() *hostvm.Phys {
	n.memMu.Lock()
	defer n.memMu.Unlock()
	return n.mem.phys
}

// Session is one process's use of the NIC through the kernel agent
// (VipOpenNic): its address space, protection tags, memory regions and
// VIs (vi.go).
// Safe for concurrent use.
type Session struct {
	n     *NIC
	name  string
	space *hostvm.Space
	phys  *hostvm.Phys

	mu      sync.Mutex
	closed  bool
	epoch   uint64 // NIC.resets when the ptags and regions were made
	ptags   map[Ptag]struct{}
	regions map[MemHandle]*region
	vis     map[VI]struct{}
	viCQ    map[VI]*[2]*CQ // the CQs a VI's queues are bound to (cq.go)
	vec     int            // the session's interrupt vector (evt.go)

	// doorbell grants (session_grant.go)
	grantOnce sync.Once
	grant     *grantState
}

// sync drops the ptags, regions and VIs a firmware reload (Recover,
// Reload) erased in the NIC: the regions' pages are unpinned and their
// page lists freed.
// Call with s.mu held.
func (s *Session) sync() {
	cur := s.n.resets.Load()
	if s.epoch == cur {
		return
	}
	if len(s.regions)+len(s.ptags)+len(s.vis) > 0 {
		s.n.log.Warn("the NIC was reset: the session's VIs, memory regions and protection tags are gone",
			"session", s.name, "vis", len(s.vis), "regions", len(s.regions), "ptags", len(s.ptags))
	}
	for h, r := range s.regions {
		s.release(h, r)
	}
	clear(s.ptags)
	clear(s.vis)
	s.syncCQs()
	s.epoch = cur
}

type region struct {
	va      uint64
	length  int
	attrs   MemAttrs
	plPA    uint64 // the page list's first page
	plPages int    // pages of the page list
}

// OpenSession opens a session named name (for messages) with an address
// space of vaBytes of virtual addresses (0: twice the host memory, at least
// 64 MiB).
func (n *NIC) OpenSession(name string, vaBytes int64) (*Session, error) {
	if n.closed.Load() {
		return nil, ErrClosed
	}
	n.memMu.Lock()
	defer n.memMu.Unlock()
	if n.mem.phys == nil {
		return nil, errors.New("driver: OpenSession: the driver does not manage the host memory (ManageMemory)")
	}
	if vaBytes == 0 {
		vaBytes = max(2*int64(n.mem.phys.Stats().Total)*hostvm.PageSize, 64<<20)
	}
	sp, err := n.mem.phys.NewSpace(name, vaBytes)
	if err != nil {
		return nil, fmt.Errorf("driver: OpenSession %q: %w", name, err)
	}
	s := &Session{n: n, name: name, space: sp, phys: n.mem.phys, epoch: n.resets.Load(), ptags: map[Ptag]struct{}{}, regions: map[MemHandle]*region{}, vis: map[VI]struct{}{}, vec: n.allocVector()}
	n.mem.sessions[s] = struct{}{}
	return s, nil
}

// Name returns the session's name.
func (s *Session) Name() string { return s.name }

// Space returns the session's address space.
func (s *Session) Space() *hostvm.Space { return s.space }

// Alloc allocates n bytes (rounded up to whole pages) of the session's
// memory: virtually contiguous, physically scattered. Only memory from
// Alloc can be registered.
func (s *Session) Alloc(n int) (*hostvm.Buffer, error) {
	const op = "Alloc"
	if n <= 0 {
		return nil, vipErr(op, hw.VipReturnInvalidParameter, nil, "size %d", n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if s.closed {
		return nil, vipErr(op, hw.VipReturnInvalidParameter, nil, "session %q is closed", s.name)
	}
	b, err := s.space.Alloc(n)
	if err != nil {
		return nil, vipErr(op, hw.VipReturnErrorResource, err, "%d bytes", n)
	}
	return b, nil
}

// Free returns b's pages. Memory that is still registered cannot be freed
// (VIP_ERROR_RESOURCE): its pages are pinned.
func (s *Session) Free(b *hostvm.Buffer) error {
	const op = "Free"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if err := s.space.Free(b); err != nil {
		code := hw.VipReturn(hw.VipReturnInvalidParameter)
		if errors.Is(err, hostvm.ErrPinned) {
			code = hw.VipReturnErrorResource
		}
		return vipErr(op, code, err, "buffer at 0x%x", b.VA)
	}
	return nil
}

// CreatePtag creates a protection tag for the session (VipCreatePtag).
func (s *Session) CreatePtag(ctx context.Context) (Ptag, error) {
	const op = "CreatePtag"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if s.closed {
		return 0, vipErr(op, hw.VipReturnInvalidParameter, nil, "session %q is closed", s.name)
	}
	_, resp, err := s.n.Admin(ctx, hw.AdminOpCreatePtag, nil)
	if err != nil {
		return 0, adminVip(op, err)
	}
	if len(resp) < hw.AdminPtagArgsBytes {
		return 0, vipErr(op, hw.VipReturnErrorResource, nil, "CREATE_PTAG answered %d bytes", len(resp))
	}
	var a hw.AdminPtagArgs
	a.Unmarshal(resp)
	p := Ptag(a.Ptag)
	s.ptags[p] = struct{}{}
	return p, nil
}

// DestroyPtag destroys one of the session's protection tags
// (VipDestroyPtag): VIP_INVALID_PTAG if it is not one, VIP_ERROR_RESOURCE
// while a region or a VI uses it (the firmware's IN_USE).
func (s *Session) DestroyPtag(ctx context.Context, p Ptag) error {
	const op = "DestroyPtag"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if _, ok := s.ptags[p]; !ok || s.closed {
		return vipErr(op, hw.VipReturnInvalidPtag, nil, "ptag 0x%x is not a protection tag of session %q", uint32(p), s.name)
	}
	if err := s.destroyPtag(ctx, p); err != nil {
		return adminVip(op, err)
	}
	return nil
}

func (s *Session) destroyPtag(ctx context.Context, p Ptag) error {
	var a hw.AdminPtagArgs
	a.Ptag = uint32(p)
	b := make([]byte, hw.AdminPtagArgsBytes)
	a.Marshal(b)
	if _, _, err := s.n.Admin(ctx, hw.AdminOpDestroyPtag, b); err != nil {
		return err
	}
	delete(s.ptags, p)
	return nil
}

// RegisterMem registers [va, va+length) of the session's memory with attrs
// (VipRegisterMem) and returns its memory handle. The range must lie in
// memory from Alloc (VIP_INVALID_PARAMETER otherwise), attrs.Ptag must be
// one of the session's (VIP_INVALID_PTAG); the NIC's limits give
// VIP_ERROR_RESOURCE. The same memory may be registered more than once.
// Its pages stay pinned until DeregisterMem.
func (s *Session) RegisterMem(ctx context.Context, va uint64, length int, attrs MemAttrs) (MemHandle, error) {
	const op = "RegisterMem"
	if length <= 0 || uint64(length) > math.MaxUint32 {
		return 0, vipErr(op, hw.VipReturnInvalidParameter, nil, "length %d (1 to %d bytes)", length, uint64(math.MaxUint32))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if s.closed {
		return 0, vipErr(op, hw.VipReturnInvalidParameter, nil, "session %q is closed", s.name)
	}
	if _, ok := s.ptags[attrs.Ptag]; !ok {
		return 0, vipErr(op, hw.VipReturnInvalidPtag, nil, "ptag 0x%x is not a protection tag of session %q", uint32(attrs.Ptag), s.name)
	}
	pages, err := s.space.Pin(va, length)
	if err != nil {
		return 0, vipErr(op, hw.VipReturnInvalidParameter, err, "[0x%x, +%d) is not memory of session %q", va, length, s.name)
	}
	unpin := func() { s.space.Unpin(va, length) }
	phys := s.phys
	plPages := (len(pages)*8 + hostvm.PageSize - 1) / hostvm.PageSize
	plPA, err := s.n.allocPageList(plPages)
	if err != nil {
		unpin()
		return 0, vipErr(op, hw.VipReturnErrorResource, err, "no %d contiguous pages for the page list", plPages)
	}
	pl, err := phys.Bytes(plPA, len(pages)*8)
	if err != nil {
		unpin()
		s.n.freePageList(plPA, plPages)
		return 0, vipErr(op, hw.VipReturnErrorResource, err, "page list")
	}
	for i, pa := range pages {
		binary.LittleEndian.PutUint64(pl[8*i:], pa)
	}
	cmd := hw.AdminRegMem{Va: va, Len: uint32(length), Ptag: uint32(attrs.Ptag), Flags: attrs.flags(), Pages: uint32(len(pages)), PageList: plPA}
	b := make([]byte, hw.AdminRegMemBytes)
	cmd.Marshal(b)
	_, resp, err := s.n.Admin(ctx, hw.AdminOpRegisterMem, b)
	if err == nil && len(resp) < hw.AdminMemHandleBytes {
		err = fmt.Errorf("REGISTER_MEM answered %d bytes", len(resp))
	}
	if err != nil {
		unpin()
		s.n.freePageList(plPA, plPages)
		return 0, adminVip(op, err)
	}
	var h hw.AdminMemHandle
	h.Unmarshal(resp)
	s.regions[MemHandle(h.Handle)] = &region{va: va, length: length, attrs: attrs, plPA: plPA, plPages: plPages}
	return MemHandle(h.Handle), nil
}

// DeregisterMem deregisters the region h that starts at va
// (VipDeregisterMem). It returns once the NIC no longer uses the region's
// translation (the TPT fence: DMA already in flight has completed); then
// the pages are unpinned. A handle the session did not register, or
// deregistered already, or a va other than the region's start gives
// VIP_INVALID_PARAMETER.
func (s *Session) DeregisterMem(ctx context.Context, va uint64, h MemHandle) error {
	const op = "DeregisterMem"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	r, err := s.lookup(op, va, h)
	if err != nil {
		return err
	}
	if err := s.deregister(ctx, h, r); err != nil {
		return adminVip(op, err)
	}
	return nil
}

func (s *Session) lookup(op string, va uint64, h MemHandle) (*region, error) {
	r := s.regions[h]
	if r == nil || s.closed {
		return nil, vipErr(op, hw.VipReturnInvalidParameter, nil, "memory handle 0x%08x is not a region of session %q", uint32(h), s.name)
	}
	if r.va != va {
		return nil, vipErr(op, hw.VipReturnInvalidParameter, nil, "region 0x%08x starts at 0x%x, not 0x%x", uint32(h), r.va, va)
	}
	return r, nil
}

func (s *Session) deregister(ctx context.Context, h MemHandle, r *region) error {
	var a hw.AdminMemHandle
	a.Handle = uint32(h)
	b := make([]byte, hw.AdminMemHandleBytes)
	a.Marshal(b)
	if _, _, err := s.n.Admin(ctx, hw.AdminOpDeregisterMem, b); err != nil {
		var se *StatusError
		if !errors.As(err, &se) || se.Status != hw.AdminStInvalidHandle {
			return err // the region may still be in use: keep it pinned
		}
		// The NIC no longer knows the region (it was reset): release it
		// here too, and report it.
		s.release(h, r)
		return err
	}
	s.release(h, r)
	return nil
}

func (s *Session) release(h MemHandle, r *region) {
	s.space.Unpin(r.va, r.length)
	s.n.freePageList(r.plPA, r.plPages)
	delete(s.regions, h)
}

// QueryMem returns the attributes of the session's region h that starts at
// va (VipQueryMem), as the NIC holds them.
func (s *Session) QueryMem(ctx context.Context, va uint64, h MemHandle) (MemRegion, error) {
	const op = "QueryMem"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if _, err := s.lookup(op, va, h); err != nil {
		return MemRegion{}, err
	}
	var a hw.AdminMemHandle
	a.Handle = uint32(h)
	b := make([]byte, hw.AdminMemHandleBytes)
	a.Marshal(b)
	_, resp, err := s.n.Admin(ctx, hw.AdminOpQueryMem, b)
	if err != nil {
		return MemRegion{}, adminVip(op, err)
	}
	if len(resp) < hw.AdminMemAttrsBytes {
		return MemRegion{}, vipErr(op, hw.VipReturnErrorResource, nil, "QUERY_MEM answered %d bytes", len(resp))
	}
	var m hw.AdminMemAttrs
	m.Unmarshal(resp)
	return MemRegion{
		VA: m.Va, Len: m.Len, Pages: int(m.Pages), PageList: m.PageList,
		Attrs: MemAttrs{Ptag: Ptag(m.Ptag), EnableRdmaWrite: m.Flags&hw.AdminMemRdmaWrite != 0, EnableRdmaRead: m.Flags&hw.AdminMemRdmaRead != 0},
	}, nil
}

// SetMemAttributes changes the ptag and RDMA enables of the session's
// region h that starts at va (VipSetMemAttributes); the handle stays valid.
func (s *Session) SetMemAttributes(ctx context.Context, va uint64, h MemHandle, attrs MemAttrs) error {
	const op = "SetMemAttributes"
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	r, err := s.lookup(op, va, h)
	if err != nil {
		return err
	}
	if _, ok := s.ptags[attrs.Ptag]; !ok {
		return vipErr(op, hw.VipReturnInvalidPtag, nil, "ptag 0x%x is not a protection tag of session %q", uint32(attrs.Ptag), s.name)
	}
	a := hw.AdminSetMem{Handle: uint32(h), Ptag: uint32(attrs.Ptag), Flags: attrs.flags()}
	b := make([]byte, hw.AdminSetMemBytes)
	a.Marshal(b)
	if _, _, err := s.n.Admin(ctx, hw.AdminOpSetMemAttrs, b); err != nil {
		return adminVip(op, err)
	}
	r.attrs = attrs
	return nil
}

// Regions returns the handles of the session's registered regions, in
// increasing order.
func (s *Session) Regions() []MemHandle {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	hs := make([]MemHandle, 0, len(s.regions))
	for h := range s.regions {
		hs = append(hs, h)
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i] < hs[j] })
	return hs
}

// Close ends the session as a process exit would: it destroys its VIs,
// deregisters its regions, destroys its ptags (which the VIs and regions
// held, so they go last) and frees its memory. It returns the errors but
// goes on with the rest. A VI that is not IDLE cannot be destroyed
// (VIP_INVALID_STATE); it stays, with its ptag, and the session stays
// open. (Until connections exist every VI is IDLE.)
func (s *Session) Close(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	if s.closed {
		return nil
	}
	var errs []error
	for vi := range s.vis {
		if err := s.destroyVI(ctx, vi); err != nil {
			errs = append(errs, fmt.Errorf("destroying VI %d: %w", uint32(vi), err))
		}
	}
	errs = append(errs, s.closeCQs(ctx)...)
	for h, r := range s.regions {
		if err := s.deregister(ctx, h, r); err != nil {
			errs = append(errs, fmt.Errorf("deregistering 0x%08x: %w", uint32(h), err))
		}
	}
	for p := range s.ptags {
		if err := s.destroyPtag(ctx, p); err != nil {
			errs = append(errs, fmt.Errorf("destroying ptag 0x%x: %w", uint32(p), err))
		}
	}
	if len(s.regions) == 0 && len(s.vis) == 0 {
		if err := s.space.Close(); err != nil {
			errs = append(errs, err)
		}
		s.closed = true
		s.forgetSession()
		s.n.freeVector(s.vec)
		s.n.memMu.Lock()
		delete(s.n.mem.sessions, s)
		s.n.memMu.Unlock()
	}
	if len(errs) > 0 {
		return fmt.Errorf("driver: closing session %q: %w", s.name, errors.Join(errs...))
	}
	return nil
}
