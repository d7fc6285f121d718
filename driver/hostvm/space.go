package hostvm

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mmapPages maps pages of the memfd over the reservation; a variable so
// that tests can make it fail.
var mmapPages = unix.MmapPtr

// Space is one address space: a reserved range of virtual addresses of
// this process in which buffers backed by scattered physical pages are
// mapped. See the package documentation.
type Space struct {
	p    *Phys
	name string
	base unsafe.Pointer // start of the reservation
	lo   uint64         // uint64(uintptr(base))
	slot int            // its address slot (takeSlot), -1 for none
	size uint64         // bytes reserved

	mu     sync.Mutex
	closed bool
	bufs   []*Buffer // live buffers, sorted by address
}

// Buffer is a virtually contiguous buffer of a space. VA is the address of
// Bytes[0] in this process; Bytes has the length asked of Alloc. The pages
// behind it are physically scattered (Pages). Free sets Bytes to nil.
type Buffer struct {
	VA    uint64
	Bytes []byte

	// Fixed at Alloc; the exported fields are the caller's to play with,
	// these are what the space trusts.
	va    uint64
	n     int      // bytes asked
	pages []uint64 // physical address of each page
	pins  []uint32 // pin count of each page (guarded by the space's mu)
}

// Pages returns the physical address of each page of the buffer, in
// virtual order.
func (b *Buffer) Pages() []uint64 { return append([]uint64(nil), b.pages...) }

// Len returns the length of the buffer in bytes (as asked of Alloc).
func (b *Buffer) Len() int { return b.n }

// mapped returns the bytes of the buffer's mapping (whole pages).
func (b *Buffer) mapped() uint64 { return uint64(len(b.pages)) * PageSize }

// NewSpace reserves size bytes (rounded up to whole pages) of virtual
// addresses, inaccessible and unbacked, for a new address space. The name
// only appears in errors.
func (p *Phys) NewSpace(name string, size int64) (*Space, error) {
	if size <= 0 || size > math.MaxInt64-PageSize {
		return nil, fmt.Errorf("%w: NewSpace %q of %d bytes", ErrBadRange, name, size)
	}
	size = (size + PageSize - 1) / PageSize * PageSize
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	slot, hint := takeSlot(name, size)
	base, err := unix.MmapPtr(-1, 0, hint, uintptr(size), unix.PROT_NONE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		freeSlot(slot)
		if errors.Is(err, unix.ENOMEM) {
			return nil, fmt.Errorf("%w: NewSpace %q: reserving %d bytes of addresses: %v", ErrNoMemory, name, size, err)
		}
		return nil, fmt.Errorf("hostvm: NewSpace %q: reserving %d bytes of addresses: %w", name, size, err)
	}
	s := &Space{p: p, name: name, base: base, lo: uint64(uintptr(base)), size: uint64(size), slot: slot}
	p.spaces[s] = struct{}{}
	return s, nil
}

// Name returns the space's name.
func (s *Space) Name() string { return s.name }

// Range returns the reserved range of virtual addresses.
func (s *Space) Range() (va uint64, size uint64) { return s.lo, s.size }

// SpaceStats describes a space's buffers.
type SpaceStats struct {
	Buffers int // live buffers
	Pages   int // pages backing them
	Pinned  int // of Pages, pages with at least one pin
}

// Stats counts the space's buffers and pages.
func (s *Space) Stats() SpaceStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st SpaceStats
	for _, b := range s.bufs {
		st.Buffers++
		st.Pages += len(b.pages)
		for _, c := range b.pins {
			if c > 0 {
				st.Pinned++
			}
		}
	}
	return st
}

// ptr returns the address va of the reservation as a pointer.
func (s *Space) ptr(va uint64) unsafe.Pointer { return unsafe.Add(s.base, uintptr(va-s.lo)) }

// reserve puts the inaccessible reservation back over [va, va+n).
func (s *Space) reserve(va, n uint64) error {
	_, err := unix.MmapPtr(-1, 0, s.ptr(va), uintptr(n), unix.PROT_NONE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE|unix.MAP_FIXED)
	return err
}

// gap finds the lowest address for n bytes with a guard page on both
// sides. Called with s.mu.
func (s *Space) gap(n uint64) (uint64, int, bool) {
	at := s.lo + PageSize
	end := s.lo + s.size
	for i, b := range s.bufs {
		if at <= b.va && b.va-at >= n+PageSize {
			return at, i, true
		}
		at = b.va + b.mapped() + PageSize
	}
	if at <= end && end-at >= n+PageSize {
		return at, len(s.bufs), true
	}
	return 0, 0, false
}

// Alloc makes a buffer of n bytes: whole pages of free addresses, backed
// by scattered physical pages, readable and writable.
func (s *Space) Alloc(n int) (*Buffer, error) { return s.alloc(n, false) }

// AllocContig is Alloc with physically contiguous pages (the lowest free
// run), for memory the NIC writes by physical address, such as a
// completion queue's ring (a kernel agent's DMA-coherent buffer mapped
// into the process).
func (s *Space) AllocContig(n int) (*Buffer, error) { return s.alloc(n, true) }

func (s *Space) alloc(n int, contig bool) (*Buffer, error) {
	if n <= 0 || n > math.MaxInt-PageSize {
		return nil, fmt.Errorf("%w: Alloc of %d bytes", ErrBadRange, n)
	}
	npages := (n + PageSize - 1) / PageSize
	length := uint64(npages) * PageSize
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	va, at, ok := s.gap(length)
	if !ok {
		return nil, fmt.Errorf("%w: space %q has no free range of %d bytes (plus guard pages) in its %d-byte reservation (%d buffers)",
			ErrNoMemory, s.name, length, s.size, len(s.bufs))
	}
	var pages []uint64
	var err error
	if contig {
		var pa uint64
		if pa, err = s.p.contig(npages, stSpace); err == nil {
			pages = make([]uint64, npages)
			for i := range pages {
				pages[i] = pa + uint64(i)*PageSize
			}
		}
	} else {
		pages, err = s.p.scattered(npages, stSpace)
	}
	if err != nil {
		return nil, fmt.Errorf("space %q: Alloc of %d bytes: %w", s.name, n, err)
	}
	for i := 0; i < npages; {
		j := i + 1
		for j < npages && pages[j] == pages[j-1]+PageSize {
			j++
		}
		_, err := mmapPages(s.p.fd, int64(pages[i]), s.ptr(va+uint64(i)*PageSize), uintptr(j-i)*PageSize,
			unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_FIXED)
		if err != nil {
			// Undo: the reservation back first, then the pages.
			if rerr := s.reserve(va, length); rerr != nil {
				// The pages may still be mapped here: never hand them
				// to anyone else.
				return nil, fmt.Errorf("hostvm: space %q: Alloc: mapping failed (%v) and so did restoring the reservation (%v); %d pages lost", s.name, err, rerr, npages)
			}
			s.p.mu.Lock()
			s.p.release(pages, stSpace)
			s.p.mu.Unlock()
			if errors.Is(err, unix.ENOMEM) {
				return nil, fmt.Errorf("%w: space %q: Alloc of %d bytes: mapping run %d at page %d: %v (too many mappings? vm.max_map_count)",
					ErrNoMemory, s.name, n, i, j-i, err)
			}
			return nil, fmt.Errorf("hostvm: space %q: Alloc of %d bytes: mmap: %w", s.name, n, err)
		}
		i = j
	}
	b := &Buffer{
		VA:    va,
		Bytes: unsafe.Slice((*byte)(s.ptr(va)), n),
		va:    va,
		n:     n,
		pages: pages,
		pins:  make([]uint32, npages),
	}
	s.bufs = append(s.bufs, nil)
	copy(s.bufs[at+1:], s.bufs[at:])
	s.bufs[at] = b
	return b, nil
}

// index returns b's position in s.bufs, or -1. Called with s.mu.
func (s *Space) index(b *Buffer) int {
	i := sort.Search(len(s.bufs), func(i int) bool { return s.bufs[i].va >= b.va })
	if i < len(s.bufs) && s.bufs[i] == b {
		return i
	}
	return -1
}

// Free unmaps the buffer (its addresses become inaccessible again) and
// returns its pages. ErrPinned while any of its pages is pinned;
// ErrNotMapped if b is not a live buffer of this space.
func (s *Space) Free(b *Buffer) error {
	if b == nil {
		return fmt.Errorf("%w: Free of a nil buffer", ErrNotMapped)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	i := s.index(b)
	if i < 0 {
		return fmt.Errorf("%w: buffer at 0x%x is not a live buffer of space %q", ErrNotMapped, b.va, s.name)
	}
	pinned := 0
	for _, c := range b.pins {
		if c > 0 {
			pinned++
		}
	}
	if pinned > 0 {
		return fmt.Errorf("%w: buffer at 0x%x of space %q has %d of its %d pages pinned", ErrPinned, b.va, s.name, pinned, len(b.pages))
	}
	if err := s.reserve(b.va, b.mapped()); err != nil {
		return fmt.Errorf("hostvm: space %q: Free of buffer at 0x%x: restoring the reservation: %w", s.name, b.va, err)
	}
	s.p.mu.Lock()
	err := s.p.release(b.pages, stSpace)
	s.p.mu.Unlock()
	s.bufs = append(s.bufs[:i], s.bufs[i+1:]...)
	b.Bytes = nil
	if err != nil {
		return fmt.Errorf("hostvm: space %q: Free: internal error: %w", s.name, err)
	}
	return nil
}

// lookup finds the buffer holding every byte of [va, va+n) and the range
// of its pages that the range spans. Called with s.mu.
func (s *Space) lookup(va uint64, n int) (b *Buffer, first, count int, err error) {
	if n <= 0 {
		return nil, 0, 0, fmt.Errorf("%w: %d bytes at 0x%x", ErrBadRange, n, va)
	}
	if uint64(n) > math.MaxUint64-va+1 && va != 0 {
		return nil, 0, 0, fmt.Errorf("%w: %d bytes at 0x%x wrap past 2**64", ErrBadRange, n, va)
	}
	if s.closed {
		return nil, 0, 0, ErrClosed
	}
	i := sort.Search(len(s.bufs), func(i int) bool { return s.bufs[i].va+uint64(s.bufs[i].n) > va })
	if i == len(s.bufs) || s.bufs[i].va > va {
		return nil, 0, 0, fmt.Errorf("%w: 0x%x is not in a buffer of space %q", ErrNotMapped, va, s.name)
	}
	b = s.bufs[i]
	end := b.va + uint64(b.n)
	if uint64(n) > end-va {
		return nil, 0, 0, fmt.Errorf("%w: [0x%x, +%d) runs past the end of the %d-byte buffer at 0x%x of space %q", ErrNotMapped, va, n, b.n, b.va, s.name)
	}
	first = int((va - b.va) / PageSize)
	last := int((va + uint64(n) - 1 - b.va) / PageSize)
	return b, first, last - first + 1, nil
}

// Translate returns the physical pages of [va, va+n): entry i is the page
// holding virtual page (va &^ (PageSize-1)) + i*PageSize. Every byte must
// be in one live buffer of this space (ErrNotMapped otherwise); n must be
// positive and the range must not wrap (ErrBadRange).
func (s *Space) Translate(va uint64, n int) ([]uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, first, count, err := s.lookup(va, n)
	if err != nil {
		return nil, err
	}
	return append([]uint64(nil), b.pages[first:first+count]...), nil
}

// Pin is Translate plus one pin on each page of the range. Pinned pages
// keep their buffer from being freed.
func (s *Space) Pin(va uint64, n int) ([]uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, first, count, err := s.lookup(va, n)
	if err != nil {
		return nil, err
	}
	for _, c := range b.pins[first : first+count] {
		if c == math.MaxUint32 {
			return nil, fmt.Errorf("%w: a page of [0x%x, +%d) has %d pins", ErrBadRange, va, n, c)
		}
	}
	for i := first; i < first+count; i++ {
		b.pins[i]++
	}
	return append([]uint64(nil), b.pages[first:first+count]...), nil
}

// Unpin takes one pin off each page of the range: all or nothing,
// ErrNotPinned if some page of it has none.
func (s *Space) Unpin(va uint64, n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, first, count, err := s.lookup(va, n)
	if err != nil {
		return err
	}
	for i, c := range b.pins[first : first+count] {
		if c == 0 {
			return fmt.Errorf("%w: page %d of the buffer at 0x%x (VA 0x%x) in [0x%x, +%d)", ErrNotPinned, first+i, b.va, b.va+uint64(first+i)*PageSize, va, n)
		}
	}
	for i := first; i < first+count; i++ {
		b.pins[i]--
	}
	return nil
}

// Contains reports whether every byte of [va, va+n) lies in one live
// buffer of this space (false for n <= 0).
func (s *Space) Contains(va uint64, n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _, _, err := s.lookup(va, n)
	return err == nil
}

// Close unmaps every buffer and the reservation and returns all pages.
// It refuses with ErrPinned if any page is pinned; afterwards every method
// returns ErrClosed.
func (s *Space) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	pinned := 0
	for _, b := range s.bufs {
		for _, c := range b.pins {
			if c > 0 {
				pinned++
			}
		}
	}
	if pinned > 0 {
		return fmt.Errorf("%w: space %q has %d pinned pages", ErrPinned, s.name, pinned)
	}
	if err := unix.MunmapPtr(s.base, uintptr(s.size)); err != nil {
		return fmt.Errorf("hostvm: space %q: Close: munmap: %w", s.name, err)
	}
	freeSlot(s.slot)
	s.closed = true
	s.p.mu.Lock()
	var err error
	for _, b := range s.bufs {
		if rerr := s.p.release(b.pages, stSpace); rerr != nil && err == nil {
			err = rerr
		}
		b.Bytes = nil
	}
	delete(s.p.spaces, s)
	s.p.mu.Unlock()
	s.bufs = nil
	if err != nil {
		return fmt.Errorf("hostvm: space %q: Close: internal error: %w", s.name, err)
	}
	return nil
}

// Address slots: a space asks the kernel for its reservation at an address
// chosen from its name (the kernel takes the hint when the range is free),
// so that a program that names its spaces the same way gets the same
// virtual addresses every run: the NIC sees them in descriptors and
// doorbells, and a lockstep simulation's waveforms are then the same run
// after run. The hints lie in 2 to 32 TiB: above the Go heap
// (0xc0_0000_0000), below the kernel's own choices, and a range the race
// detector's runtime leaves alone (its shadow memory starts at 32 TiB), so
// that -race builds get the same addresses. A space of n bytes gets a
// slot of the smallest power of two >= n (at least 1 GiB) there, the one
// its name hashes to; only when two names hash to overlapping slots does
// the second one move on, so the addresses stay the same as long as
// names differ (a collision of two names opened at the same time would
// make the order decide).
const (
	slotLo  = uint64(0x0200_0000_0000) // 2 TiB
	slotHi  = uint64(0x2000_0000_0000) // 32 TiB
	slotMin = uint64(1) << 30          // 1 GiB
)

var slots struct {
	sync.Mutex
	next int
	used map[int][2]uint64 // live reservations made from a hint: [lo, hi)
}

// takeSlot returns a reservation id and the address to ask for, for a
// space of size bytes named name; -1 and nil when there is none.
func takeSlot(name string, size int64) (int, unsafe.Pointer) {
	sz := slotMin
	for sz < uint64(size) {
		sz <<= 1
	}
	if sz > (slotHi-slotLo)/4 {
		return -1, nil
	}
	n := (slotHi - slotLo) / sz
	h := fnv.New64a()
	h.Write([]byte(name))
	first := h.Sum64() % n
	slots.Lock()
	defer slots.Unlock()
	if slots.used == nil {
		slots.used = map[int][2]uint64{}
	}
	for k := uint64(0); k < n; k++ {
		lo := slotLo + ((first+k)%n)*sz
		hi := lo + sz
		free := true
		for _, r := range slots.used {
			if lo < r[1] && r[0] < hi {
				free = false
				break
			}
		}
		if free {
			slots.next++
			slots.used[slots.next] = [2]uint64{lo, hi}
			// an address outside Go's memory, only the kernel's hint
			addr := uintptr(lo)
			return slots.next, *(*unsafe.Pointer)(unsafe.Pointer(&addr))
		}
	}
	return -1, nil
}

func freeSlot(i int) {
	if i < 0 {
		return
	}
	slots.Lock()
	delete(slots.used, i)
	slots.Unlock()
}
