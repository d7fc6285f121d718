package hostvm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"golang.org/x/sys/unix"
)

// PageSize is the size of a host page, physical and virtual.
const PageSize = 4096

// DefaultScatterRuns is the default for PhysOptions.ScatterRuns.
const DefaultScatterRuns = 1024

// Errors. The errors returned wrap one of these (test with errors.Is) and
// add the figures: what was asked, what there was.
var (
	// ErrNoMemory: not enough free physical pages (or no free run of
	// contiguous ones), or no free virtual addresses in a space.
	ErrNoMemory = errors.New("hostvm: out of memory")
	// ErrNotMapped: some byte of a virtual range is outside this space's
	// live buffers, or a buffer is not a live buffer of this space.
	ErrNotMapped = errors.New("hostvm: not mapped")
	// ErrPinned: the buffer or space still has pinned pages.
	ErrPinned = errors.New("hostvm: pages pinned")
	// ErrBadRange: a zero or negative length, a range that wraps, an
	// address that is not a page of the allocator, or a page freed twice.
	ErrBadRange = errors.New("hostvm: bad range")
	// ErrClosed: the Phys or Space has been closed.
	ErrClosed = errors.New("hostvm: closed")
	// ErrNotPinned: Unpin of a page that has no pin.
	ErrNotPinned = errors.New("hostvm: not pinned")
	// ErrInUse: Phys.Close while spaces are still open.
	ErrInUse = errors.New("hostvm: in use")
)

// PhysOptions configures a Phys.
type PhysOptions struct {
	// Seed fixes the scatter order: the same seed and the same sequence of
	// calls give the same pages.
	Seed uint64
	// Reserve is the number of bytes at the bottom of the memfd that are
	// never handed out (rounded up to whole pages).
	Reserve int64
	// ScatterRuns bounds the number of physically contiguous runs
	// AllocScattered splits an allocation into when free memory allows:
	// runs are up to ceil(n/ScatterRuns) pages long. 0 means
	// DefaultScatterRuns.
	ScatterRuns int
}

// PhysStats counts pages.
type PhysStats struct {
	Total     int // pages the allocator manages (the memfd minus the reserve)
	Free      int // of Total, free
	Allocated int // of Total, handed out (Total - Free)
	Buffered  int // of Allocated, backing buffers of spaces
	Reserved  int // pages below the reserve, never handed out
	Spaces    int // open spaces
}

// page states
const (
	stFree     uint8 = iota
	stReserved       // below the reserve
	stAlloc          // handed out by AllocScattered or AllocContig
	stSpace          // backs a buffer of a space
	stFreeing        // transient mark inside FreePages
)

// Phys is a page allocator over [0, size) of a memfd: the node's physical
// memory. See the package documentation.
type Phys struct {
	fd   int    // our duplicate of the memfd
	size int64  // bytes
	mem  []byte // the whole memfd, MAP_SHARED

	mu     sync.Mutex
	closed bool
	first  uint32   // first page the allocator manages
	state  []uint8  // by page number
	free   []uint32 // free page numbers, in no particular order
	pos    []int32  // pos[page] = index in free, or -1
	rng    *rand.Rand
	runs   int
	spaces map[*Space]struct{}
	inBufs int
}

// NewPhys manages the first size bytes of the memfd fd (size a positive
// multiple of PageSize, no larger than the file). It maps them once for
// Bytes and keeps a duplicate of fd for mapping pages into spaces; the
// caller keeps ownership of fd.
func NewPhys(fd int, size int64, opts PhysOptions) (*Phys, error) {
	if size <= 0 || size%PageSize != 0 {
		return nil, fmt.Errorf("%w: NewPhys: size %d is not a positive multiple of %d", ErrBadRange, size, PageSize)
	}
	if size/PageSize > math.MaxInt32 {
		return nil, fmt.Errorf("%w: NewPhys: size %d is more than %d pages", ErrBadRange, size, math.MaxInt32)
	}
	if opts.Reserve < 0 || opts.Reserve >= size {
		return nil, fmt.Errorf("%w: NewPhys: reserve %d bytes of %d leaves no page", ErrBadRange, opts.Reserve, size)
	}
	if opts.ScatterRuns < 0 {
		return nil, fmt.Errorf("%w: NewPhys: ScatterRuns %d", ErrBadRange, opts.ScatterRuns)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("hostvm: NewPhys: fstat fd %d: %w", fd, err)
	}
	if st.Size < size {
		return nil, fmt.Errorf("%w: NewPhys: fd %d holds %d bytes, %d asked", ErrBadRange, fd, st.Size, size)
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("hostvm: NewPhys: dup fd %d: %w", fd, err)
	}
	mem, err := unix.Mmap(dup, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Close(dup)
		return nil, fmt.Errorf("hostvm: NewPhys: mmap %d bytes of fd %d: %w", size, fd, err)
	}
	npages := uint32(size / PageSize)
	first := uint32((opts.Reserve + PageSize - 1) / PageSize)
	runs := opts.ScatterRuns
	if runs == 0 {
		runs = DefaultScatterRuns
	}
	p := &Phys{
		fd:     dup,
		size:   size,
		mem:    mem,
		first:  first,
		state:  make([]uint8, npages),
		free:   make([]uint32, 0, npages-first),
		pos:    make([]int32, npages),
		rng:    rand.New(rand.NewPCG(opts.Seed, 0x9e3779b97f4a7c15)),
		runs:   runs,
		spaces: map[*Space]struct{}{},
	}
	for pg := uint32(0); pg < npages; pg++ {
		if pg < first {
			p.state[pg] = stReserved
			p.pos[pg] = -1
			continue
		}
		p.pos[pg] = int32(len(p.free))
		p.free = append(p.free, pg)
	}
	return p, nil
}

// Size returns the size of physical memory in bytes.
func (p *Phys) Size() int64 { return p.size }

// take removes free page pg from the free set and gives it state st.
func (p *Phys) take(pg uint32, st uint8) {
	i := p.pos[pg]
	last := p.free[len(p.free)-1]
	p.free[i] = last
	p.pos[last] = i
	p.free = p.free[:len(p.free)-1]
	p.pos[pg] = -1
	p.state[pg] = st
}

// put returns page pg to the free set.
func (p *Phys) put(pg uint32) {
	p.state[pg] = stFree
	p.pos[pg] = int32(len(p.free))
	p.free = append(p.free, pg)
}

func (p *Phys) scattered(n int, st uint8) ([]uint64, error) {
	if n <= 0 {
		return nil, fmt.Errorf("%w: %d pages asked", ErrBadRange, n)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if n > len(p.free) {
		return nil, fmt.Errorf("%w: asked %d pages, %d free of %d", ErrNoMemory, n, len(p.free), len(p.state)-int(p.first))
	}
	run := (n + p.runs - 1) / p.runs
	out := make([]uint64, 0, n)
	for len(out) < n {
		pg := p.free[p.rng.IntN(len(p.free))]
		for k := 0; k < run && len(out) < n; k++ {
			if k > 0 && (int(pg) >= len(p.state) || p.state[pg] != stFree) {
				break
			}
			p.take(pg, st)
			out = append(out, uint64(pg)*PageSize)
			pg++
		}
	}
	if st == stSpace {
		p.inBufs += n
	}
	return out, nil
}

// AllocScattered takes n free pages in the scatter order and returns their
// physical addresses. Consecutive pages are (almost) never physically
// adjacent for n up to ScatterRuns; larger allocations come in at most
// about ScatterRuns runs while free memory is not fragmented.
func (p *Phys) AllocScattered(n int) ([]uint64, error) {
	return p.scattered(n, stAlloc)
}

// AllocContig takes n physically contiguous free pages (the lowest such
// run) and returns the physical address of the first.
func (p *Phys) AllocContig(n int) (uint64, error) { return p.contig(n, stAlloc) }

func (p *Phys) contig(n int, st uint8) (uint64, error) {
	if n <= 0 {
		return 0, fmt.Errorf("%w: %d pages asked", ErrBadRange, n)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, ErrClosed
	}
	if n > len(p.free) {
		return 0, fmt.Errorf("%w: asked %d contiguous pages, %d free of %d", ErrNoMemory, n, len(p.free), len(p.state)-int(p.first))
	}
	start, length, largest := int(p.first), 0, 0
	for pg := int(p.first); pg < len(p.state); pg++ {
		if p.state[pg] != stFree {
			length = 0
			start = pg + 1
			continue
		}
		length++
		largest = max(largest, length)
		if length == n {
			for q := start; q < start+n; q++ {
				p.take(uint32(q), st)
			}
			if st == stSpace {
				p.inBufs += n
			}
			return uint64(start) * PageSize, nil
		}
	}
	return 0, fmt.Errorf("%w: asked %d contiguous pages, %d free but the largest free run is %d pages", ErrNoMemory, n, len(p.free), largest)
}

// FreePages returns pages handed out by AllocScattered or AllocContig. It
// frees all of them or, if any is not such a page (or is named twice),
// none, with ErrBadRange.
func (p *Phys) FreePages(pages ...uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	return p.release(pages, stAlloc)
}

// FreeContig returns n pages starting at pa (as from AllocContig).
func (p *Phys) FreeContig(pa uint64, n int) error {
	if n <= 0 {
		return fmt.Errorf("%w: FreeContig of %d pages", ErrBadRange, n)
	}
	if pa%PageSize != 0 || pa >= uint64(p.size) || uint64(n) > (uint64(p.size)-pa)/PageSize {
		return fmt.Errorf("%w: FreeContig: %d pages at 0x%x are not inside the %d-byte memory", ErrBadRange, n, pa, p.size)
	}
	pages := make([]uint64, n)
	for i := range pages {
		pages[i] = pa + uint64(i)*PageSize
	}
	return p.FreePages(pages...)
}

// release frees pages that must all be in state want. Called with p.mu.
func (p *Phys) release(pages []uint64, want uint8) error {
	var bad error
	marked := 0
	for _, pa := range pages {
		if pa%PageSize != 0 || pa >= uint64(p.size) {
			bad = fmt.Errorf("%w: 0x%x is not a page of the %d-byte memory", ErrBadRange, pa, p.size)
			break
		}
		pg := pa / PageSize
		switch s := p.state[pg]; {
		case s == want:
			p.state[pg] = stFreeing
			marked++
			continue
		case s == stFree:
			bad = fmt.Errorf("%w: page 0x%x is not allocated (freed twice?)", ErrBadRange, pa)
		case s == stFreeing:
			bad = fmt.Errorf("%w: page 0x%x named twice", ErrBadRange, pa)
		case s == stReserved:
			bad = fmt.Errorf("%w: page 0x%x is in the reserve", ErrBadRange, pa)
		case s == stSpace:
			bad = fmt.Errorf("%w: page 0x%x backs a buffer of a space (free the buffer)", ErrBadRange, pa)
		default:
			bad = fmt.Errorf("%w: page 0x%x was not handed out by AllocScattered or AllocContig", ErrBadRange, pa)
		}
		break
	}
	if bad != nil {
		for _, pa := range pages[:marked] {
			p.state[pa/PageSize] = want
		}
		return bad
	}
	for _, pa := range pages {
		p.put(uint32(pa / PageSize))
	}
	if want == stSpace {
		p.inBufs -= len(pages)
	}
	return nil
}

// Stats counts the pages.
func (p *Phys) Stats() PhysStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	total := len(p.state) - int(p.first)
	return PhysStats{
		Total:     total,
		Free:      len(p.free),
		Allocated: total - len(p.free),
		Buffered:  p.inBufs,
		Reserved:  int(p.first),
		Spaces:    len(p.spaces),
	}
}

// Bytes returns the physical view of [pa, pa+n): the memfd's bytes, which
// the NIC reads and writes by DMA. Any part of memory can be viewed
// (allocated, free or reserved). The slice is invalid after Close.
func (p *Phys) Bytes(pa uint64, n int) ([]byte, error) {
	if n <= 0 {
		return nil, fmt.Errorf("%w: Bytes of %d bytes", ErrBadRange, n)
	}
	if pa >= uint64(p.size) || uint64(n) > uint64(p.size)-pa {
		return nil, fmt.Errorf("%w: [0x%x, +%d) is not inside the %d-byte memory", ErrBadRange, pa, n, p.size)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	return p.mem[pa : pa+uint64(n) : pa+uint64(n)], nil
}

// Close unmaps the physical view and closes Phys's duplicate of the memfd.
// Every space must have been closed (ErrInUse otherwise). Pages still
// allocated with AllocScattered or AllocContig are simply forgotten.
func (p *Phys) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	if len(p.spaces) > 0 {
		return fmt.Errorf("%w: %d spaces still open", ErrInUse, len(p.spaces))
	}
	p.closed = true
	err := unix.Munmap(p.mem)
	if cerr := unix.Close(p.fd); err == nil {
		err = cerr
	}
	p.mem = nil
	if err != nil {
		return fmt.Errorf("hostvm: Phys.Close: %w", err)
	}
	return nil
}
