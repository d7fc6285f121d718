package hostvm

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const MiB = 1 << 20

// memfd makes a sparse memfd of size bytes, closed at the end of the test.
func memfd(tb testing.TB, size int64) int {
	tb.Helper()
	fd, err := unix.MemfdCreate("hostvm-test", unix.MFD_CLOEXEC)
	if err != nil {
		tb.Fatalf("memfd_create: %v", err)
	}
	tb.Cleanup(func() { unix.Close(fd) })
	if err := unix.Ftruncate(fd, size); err != nil {
		tb.Fatalf("ftruncate: %v", err)
	}
	return fd
}

// newPhys makes a Phys over a fresh memfd; at the end of the test it
// checks that every space was closed and no page leaked, then closes it.
func newPhys(tb testing.TB, size int64, opts PhysOptions) *Phys {
	tb.Helper()
	p, err := NewPhys(memfd(tb, size), size, opts)
	if err != nil {
		tb.Fatalf("NewPhys: %v", err)
	}
	tb.Cleanup(func() {
		if err := p.Close(); err != nil && !errors.Is(err, ErrClosed) {
			tb.Errorf("Phys.Close: %v", err)
		}
	})
	return p
}

func newSpace(tb testing.TB, p *Phys, name string, size int64) *Space {
	tb.Helper()
	s, err := p.NewSpace(name, size)
	if err != nil {
		tb.Fatalf("NewSpace: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, ErrClosed) {
			tb.Errorf("Space.Close: %v", err)
		}
	})
	return s
}

func mustAlloc(tb testing.TB, s *Space, n int) *Buffer {
	tb.Helper()
	b, err := s.Alloc(n)
	if err != nil {
		tb.Fatalf("Alloc(%d): %v", n, err)
	}
	return b
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got %v, want %v", what, err, want)
	}
}

// discontinuities counts page boundaries where the next page is not the
// physically following one.
func discontinuities(pages []uint64) int {
	n := 0
	for i := 1; i < len(pages); i++ {
		if pages[i] != pages[i-1]+PageSize {
			n++
		}
	}
	return n
}

// perms returns the permissions of the mapping holding va in
// /proc/self/maps ("rw-s", "---p", ...), or "" if none.
func perms(t *testing.T, va uint64) string {
	t.Helper()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		lo, hi, _ := strings.Cut(fields[0], "-")
		l, _ := strconv.ParseUint(lo, 16, 64)
		h, _ := strconv.ParseUint(hi, 16, 64)
		if l <= va && va < h {
			return fields[1]
		}
	}
	return ""
}

func TestNewPhysErrors(t *testing.T) {
	fd := memfd(t, 16*PageSize)
	for _, c := range []struct {
		size int64
		opts PhysOptions
	}{
		{0, PhysOptions{}},
		{-PageSize, PhysOptions{}},
		{PageSize + 1, PhysOptions{}},
		{32 * PageSize, PhysOptions{}}, // larger than the file
		{16 * PageSize, PhysOptions{Reserve: 16 * PageSize}},
		{16 * PageSize, PhysOptions{Reserve: -1}},
		{16 * PageSize, PhysOptions{ScatterRuns: -1}},
	} {
		if p, err := NewPhys(fd, c.size, c.opts); !errors.Is(err, ErrBadRange) {
			t.Errorf("NewPhys(size %d, %+v): got %v, want ErrBadRange", c.size, c.opts, err)
			if p != nil {
				p.Close()
			}
		}
	}
	if _, err := NewPhys(-1, PageSize, PhysOptions{}); err == nil {
		t.Error("NewPhys of fd -1 succeeded")
	}
	// The caller may close its descriptor: Phys has its own.
	fd2, _ := unix.MemfdCreate("x", unix.MFD_CLOEXEC)
	unix.Ftruncate(fd2, 8*PageSize)
	p, err := NewPhys(fd2, 8*PageSize, PhysOptions{Reserve: 1})
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(fd2)
	if st := p.Stats(); st.Total != 7 || st.Reserved != 1 || st.Free != 7 {
		t.Errorf("Stats with a 1-byte reserve = %+v, want 7 pages managed, 1 reserved", st)
	}
	s, err := p.NewSpace("after close", 1*MiB)
	if err != nil {
		t.Fatal(err)
	}
	b := mustAlloc(t, s, 3*PageSize)
	b.Bytes[0] = 42
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAllocatorInvariants runs random AllocScattered / AllocContig /
// FreePages / FreeContig against a model: no page is handed out twice,
// none comes from the reserve, every page comes back.
func TestAllocatorInvariants(t *testing.T) {
	const size = 4 * MiB // 1024 pages
	const reserve = 10*PageSize + 1
	p := newPhys(t, size, PhysOptions{Seed: 7, Reserve: reserve, ScatterRuns: 4})
	total := p.Stats().Total
	if total != 1024-11 {
		t.Fatalf("Total = %d, want %d", total, 1024-11)
	}
	type alloc struct {
		pages  []uint64
		contig bool
	}
	var live []alloc
	owned := map[uint64]bool{}
	rng := rand.New(rand.NewPCG(1, 2))
	take := func(pages []uint64) {
		for _, pa := range pages {
			if pa%PageSize != 0 || pa < 11*PageSize || pa >= size {
				t.Fatalf("page 0x%x is misaligned, in the reserve or outside memory", pa)
			}
			if owned[pa] {
				t.Fatalf("page 0x%x handed out twice", pa)
			}
			owned[pa] = true
		}
	}
	for round := 0; round < 5000; round++ {
		switch op := rng.IntN(10); {
		case op < 4:
			n := 1 + rng.IntN(40)
			pages, err := p.AllocScattered(n)
			if err != nil {
				if !errors.Is(err, ErrNoMemory) || total-len(owned) >= n {
					t.Fatalf("AllocScattered(%d) with %d free: %v", n, total-len(owned), err)
				}
				continue
			}
			if len(pages) != n {
				t.Fatalf("AllocScattered(%d) gave %d pages", n, len(pages))
			}
			take(pages)
			live = append(live, alloc{pages: pages})
		case op < 6:
			n := 1 + rng.IntN(8)
			pa, err := p.AllocContig(n)
			if err != nil {
				if !errors.Is(err, ErrNoMemory) {
					t.Fatalf("AllocContig(%d): %v", n, err)
				}
				continue
			}
			pages := make([]uint64, n)
			for i := range pages {
				pages[i] = pa + uint64(i)*PageSize
			}
			take(pages)
			live = append(live, alloc{pages: pages, contig: true})
		default:
			if len(live) == 0 {
				continue
			}
			i := rng.IntN(len(live))
			a := live[i]
			live = append(live[:i], live[i+1:]...)
			var err error
			if a.contig && rng.IntN(2) == 0 {
				err = p.FreeContig(a.pages[0], len(a.pages))
			} else {
				err = p.FreePages(a.pages...)
			}
			if err != nil {
				t.Fatalf("free: %v", err)
			}
			for _, pa := range a.pages {
				delete(owned, pa)
			}
		}
		if st := p.Stats(); st.Free != total-len(owned) || st.Allocated != len(owned) {
			t.Fatalf("round %d: Stats %+v, model has %d pages out", round, st, len(owned))
		}
	}
	for _, a := range live {
		if err := p.FreePages(a.pages...); err != nil {
			t.Fatal(err)
		}
	}
	if st := p.Stats(); st.Free != total || st.Allocated != 0 {
		t.Fatalf("at the end: %+v", st)
	}
}

func TestPhysBadFrees(t *testing.T) {
	p := newPhys(t, 64*PageSize, PhysOptions{Seed: 3, Reserve: 2 * PageSize})
	pages, err := p.AllocScattered(4)
	if err != nil {
		t.Fatal(err)
	}
	s := newSpace(t, p, "s", 1*MiB)
	b := mustAlloc(t, s, PageSize)
	var free uint64 // a free page
	for pa := uint64(2 * PageSize); ; pa += PageSize {
		if !contains(pages, pa) && pa != b.Pages()[0] {
			free = pa
			break
		}
	}
	for _, c := range []struct {
		what  string
		pages []uint64
	}{
		{"unaligned", []uint64{pages[0] + 1}},
		{"beyond memory", []uint64{64 * PageSize}},
		{"huge", []uint64{math.MaxUint64 &^ (PageSize - 1)}},
		{"reserve", []uint64{PageSize}},
		{"free page", []uint64{free}},
		{"page of a buffer", b.Pages()},
		{"named twice", []uint64{pages[0], pages[1], pages[0]}},
		{"good then bad", []uint64{pages[0], pages[1], free}},
	} {
		wantErr(t, c.what, p.FreePages(c.pages...), ErrBadRange)
	}
	// All or nothing: the failed calls freed none of the good pages.
	if st := p.Stats(); st.Allocated != 5 || st.Buffered != 1 {
		t.Fatalf("after failed frees: %+v", st)
	}
	if err := p.FreePages(pages...); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "double free", p.FreePages(pages[2]), ErrBadRange)
	wantErr(t, "FreeContig 0 pages", p.FreeContig(pages[0], 0), ErrBadRange)
	wantErr(t, "FreeContig past the end", p.FreeContig(62*PageSize, 3), ErrBadRange)
	wantErr(t, "FreeContig of free pages", p.FreeContig(free, 1), ErrBadRange)
	if err := p.FreePages(); err != nil {
		t.Errorf("FreePages(): %v", err)
	}
	wantErr(t, "AllocScattered(0)", errOf(p.AllocScattered(0)), ErrBadRange)
	wantErr(t, "AllocContig(-1)", errOf(p.AllocContig(-1)), ErrBadRange)
}

func errOf[T any](_ T, err error) error { return err }

func contains(pages []uint64, pa uint64) bool {
	for _, q := range pages {
		if q == pa {
			return true
		}
	}
	return false
}

// TestScattering: a 64-page buffer is not physically contiguous (the NIC
// crosses a discontinuity at nearly every page boundary), the order is
// fixed by the seed, and large allocations come in bounded runs.
func TestScattering(t *testing.T) {
	p := newPhys(t, 64*MiB, PhysOptions{Seed: 1})
	s := newSpace(t, p, "s", 128*MiB)
	b := mustAlloc(t, s, 64*PageSize)
	pages := b.Pages()
	d := discontinuities(pages)
	t.Logf("64-page buffer: %d of 63 page boundaries are physical discontinuities; first pages %#x", d, pages[:4])
	if d < 60 {
		t.Errorf("only %d of 63 boundaries are discontinuous: not scattered", d)
	}
	tr, err := s.Translate(b.VA, b.Len())
	if err != nil || len(tr) != 64 || discontinuities(tr) != d {
		t.Errorf("Translate of the buffer: %d pages, err %v", len(tr), err)
	}

	// Determinism: same seed, same calls, same pages; another seed differs.
	for _, seed := range []uint64{1, 2} {
		q := newPhys(t, 64*MiB, PhysOptions{Seed: seed})
		s2 := newSpace(t, q, "s2", 128*MiB)
		same := slicesEqual(mustAlloc(t, s2, 64*PageSize).Pages(), pages)
		if same != (seed == 1) {
			t.Errorf("seed %d: same pages = %v", seed, same)
		}
	}

	// A 32 MiB buffer (8192 pages) comes in runs of at most 8 pages.
	big := mustAlloc(t, s, 32*MiB)
	runs := discontinuities(big.Pages()) + 1
	t.Logf("32 MiB buffer: %d physically contiguous runs", runs)
	if runs < 1024 || runs > 4096 {
		t.Errorf("32 MiB buffer in %d runs, want between 1024 (runs of 8) and 4096", runs)
	}
}

func slicesEqual(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMappingIsReal: bytes written through the buffer are in the memfd at
// the translated physical addresses, and bytes written there (as DMA
// would) appear in the buffer.
func TestMappingIsReal(t *testing.T) {
	p := newPhys(t, 16*MiB, PhysOptions{Seed: 5, Reserve: 1 * MiB})
	s := newSpace(t, p, "s", 64*MiB)
	const n = 10*PageSize + 123
	b := mustAlloc(t, s, n)
	if len(b.Bytes) != n || b.Len() != n {
		t.Fatalf("len(Bytes) = %d, Len = %d, want %d", len(b.Bytes), b.Len(), n)
	}
	if got := uint64(uintptr(unsafe.Pointer(&b.Bytes[0]))); got != b.VA {
		t.Fatalf("VA 0x%x but Bytes is at 0x%x", b.VA, got)
	}
	if b.VA%PageSize != 0 {
		t.Fatalf("VA 0x%x not page aligned", b.VA)
	}
	if pm := perms(t, b.VA); pm != "rw-s" {
		t.Errorf("buffer mapping permissions %q, want rw-s", pm)
	}
	for i := range b.Bytes {
		b.Bytes[i] = byte(i*7 + i>>12)
	}
	// Byte by byte, through Translate of a one-byte range and through the
	// buffer's page list.
	pages := b.Pages()
	for i := 0; i < n; i += 97 {
		tr, err := s.Translate(b.VA+uint64(i), 1)
		if err != nil || len(tr) != 1 || tr[0] != pages[i/PageSize] {
			t.Fatalf("Translate(VA+%d, 1) = %#x, %v; page list says 0x%x", i, tr, err, pages[i/PageSize])
		}
		ph, err := p.Bytes(tr[0]+uint64(i%PageSize), 1)
		if err != nil {
			t.Fatal(err)
		}
		if ph[0] != b.Bytes[i] {
			t.Fatalf("byte %d: buffer has %d, physical 0x%x has %d", i, b.Bytes[i], tr[0]+uint64(i%PageSize), ph[0])
		}
	}
	// The other way: "DMA" writes the physical pages, the buffer sees it.
	for i, pa := range pages {
		ph, err := p.Bytes(pa, PageSize)
		if err != nil {
			t.Fatal(err)
		}
		for j := range ph {
			ph[j] = byte(i ^ j ^ 0x5a)
		}
	}
	for i := range b.Bytes {
		if want := byte(i/PageSize ^ i%PageSize ^ 0x5a); b.Bytes[i] != want {
			t.Fatalf("byte %d: buffer has %d after the physical write of %d", i, b.Bytes[i], want)
		}
	}
	// A range crossing a page boundary in the middle of the buffer.
	tr, err := s.Translate(b.VA+3*PageSize-5, 10)
	if err != nil || !slicesEqual(tr, pages[2:4]) {
		t.Errorf("Translate across a page boundary = %#x, %v; want %#x", tr, err, pages[2:4])
	}
	if _, err := p.Bytes(0, 1); err != nil {
		t.Errorf("Bytes of the reserve: %v", err)
	}
}

// TestGuardsAndReuse: buffers are separated by an unmapped page, a freed
// buffer's addresses are inaccessible again, and first fit reuses them.
func TestGuardsAndReuse(t *testing.T) {
	p := newPhys(t, 4*MiB, PhysOptions{Seed: 9})
	s := newSpace(t, p, "s", 1*MiB)
	lo, size := s.Range()
	a := mustAlloc(t, s, 2*PageSize)
	b := mustAlloc(t, s, 1)
	c := mustAlloc(t, s, 3*PageSize)
	if a.VA != lo+PageSize {
		t.Errorf("first buffer at 0x%x, want 0x%x (reservation + one guard page)", a.VA, lo+PageSize)
	}
	if b.VA != a.VA+3*PageSize || c.VA != b.VA+2*PageSize {
		t.Errorf("buffers at 0x%x 0x%x 0x%x: want one guard page between them", a.VA, b.VA, c.VA)
	}
	for _, va := range []uint64{lo, a.VA + 2*PageSize, b.VA + PageSize, c.VA + 3*PageSize, lo + size - PageSize} {
		if pm := perms(t, va); pm != "---p" {
			t.Errorf("guard 0x%x: permissions %q, want ---p", va, pm)
		}
		wantErr(t, fmt.Sprintf("Translate guard 0x%x", va), errOf(s.Translate(va, 1)), ErrNotMapped)
	}
	bva := b.VA
	if err := s.Free(b); err != nil {
		t.Fatal(err)
	}
	if b.Bytes != nil {
		t.Error("Free left Bytes set")
	}
	if pm := perms(t, bva); pm != "---p" {
		t.Errorf("freed buffer: permissions %q, want ---p", pm)
	}
	wantErr(t, "Translate freed", errOf(s.Translate(bva, 1)), ErrNotMapped)
	wantErr(t, "Free twice", s.Free(b), ErrNotMapped)
	wantErr(t, "Free nil", s.Free(nil), ErrNotMapped)
	// First fit: a one-page buffer goes back where b was, a two-page one
	// does not fit there (it would touch c) and goes after c.
	d := mustAlloc(t, s, PageSize)
	e := mustAlloc(t, s, 2*PageSize)
	if d.VA != bva || e.VA != c.VA+4*PageSize {
		t.Errorf("after free: d at 0x%x (want 0x%x), e at 0x%x (want 0x%x)", d.VA, bva, e.VA, c.VA+4*PageSize)
	}
	// The caller changing the exported fields changes nothing.
	d.VA, d.Bytes = 0, d.Bytes[:1]
	if !s.Contains(bva, PageSize) {
		t.Error("Contains relies on the exported fields")
	}
	if err := s.Free(d); err != nil {
		t.Error(err)
	}
}

func TestTranslateErrors(t *testing.T) {
	p := newPhys(t, 4*MiB, PhysOptions{Seed: 11})
	s := newSpace(t, p, "s", 1*MiB)
	a := mustAlloc(t, s, 2*PageSize+100)
	b := mustAlloc(t, s, PageSize)
	lo, size := s.Range()
	for _, c := range []struct {
		what string
		va   uint64
		n    int
		want error
	}{
		{"zero length", a.VA, 0, ErrBadRange},
		{"negative length", a.VA, -1, ErrBadRange},
		{"wraps past 2**64", math.MaxUint64 - 10, 100, ErrBadRange},
		{"ends exactly at 2**64", math.MaxUint64 - PageSize + 1, PageSize, ErrNotMapped},
		{"one past 2**64", math.MaxUint64 - PageSize + 1, PageSize + 1, ErrBadRange},
		{"far too long", a.VA, math.MaxInt, ErrNotMapped},
		{"before the reservation", lo - PageSize, 1, ErrNotMapped},
		{"guard before the first buffer", lo, 1, ErrNotMapped},
		{"starts in the guard", a.VA - 1, 2, ErrNotMapped},
		{"past the buffer's length", a.VA + 2*PageSize + 100, 1, ErrNotMapped},
		{"last byte plus one", a.VA, 2*PageSize + 101, ErrNotMapped},
		{"into the guard gap", a.VA + 2*PageSize, 4096, ErrNotMapped},
		{"across two buffers", a.VA, int(b.VA - a.VA + 1), ErrNotMapped},
		{"after the reservation", lo + size, 1, ErrNotMapped},
		{"address 0", 0, 1, ErrNotMapped},
		{"last byte of the address space", math.MaxUint64, 1, ErrNotMapped},
	} {
		wantErr(t, "Translate: "+c.what, errOf(s.Translate(c.va, c.n)), c.want)
		wantErr(t, "Pin: "+c.what, errOf(s.Pin(c.va, c.n)), c.want)
		wantErr(t, "Unpin: "+c.what, s.Unpin(c.va, c.n), c.want)
		if s.Contains(c.va, c.n) {
			t.Errorf("Contains: %s: true", c.what)
		}
	}
	if st := s.Stats(); st.Pinned != 0 {
		t.Fatalf("failed pins pinned %d pages", st.Pinned)
	}
	// The exact extent is fine, byte for byte.
	for _, c := range []struct {
		va    uint64
		n     int
		pages int
	}{
		{a.VA, 2*PageSize + 100, 3},
		{a.VA + 2*PageSize + 99, 1, 1},
		{a.VA + PageSize - 1, 2, 2},
		{a.VA + PageSize, PageSize, 1},
		{b.VA, PageSize, 1},
	} {
		tr, err := s.Translate(c.va, c.n)
		if err != nil || len(tr) != c.pages || !s.Contains(c.va, c.n) {
			t.Errorf("Translate(0x%x, %d) = %d pages, %v; want %d", c.va, c.n, len(tr), err, c.pages)
		}
	}

	// Pins nest, per page; Unpin of an unpinned page changes nothing.
	pages := a.Pages()
	if pp, err := s.Pin(a.VA, 1); err != nil || !slicesEqual(pp, pages[:1]) {
		t.Fatalf("Pin page 0: %#x, %v", pp, err)
	}
	if _, err := s.Pin(a.VA, PageSize+1); err != nil { // pages 0 and 1
		t.Fatal(err)
	}
	wantErr(t, "Unpin pages 0-2 (2 unpinned)", s.Unpin(a.VA, 2*PageSize+1), ErrNotPinned)
	wantErr(t, "Unpin of b", s.Unpin(b.VA, 1), ErrNotPinned)
	if st := s.Stats(); st.Pinned != 2 || st.Buffers != 2 || st.Pages != 4 {
		t.Fatalf("Stats %+v, want 2 buffers, 4 pages, 2 pinned", st)
	}
	wantErr(t, "Free pinned", s.Free(a), ErrPinned)
	if err := s.Unpin(a.VA+100, PageSize); err != nil { // pages 0 and 1 again
		t.Fatal(err)
	}
	wantErr(t, "Free still pinned", s.Free(a), ErrPinned)
	wantErr(t, "Unpin page 1 again", s.Unpin(a.VA+PageSize, 1), ErrNotPinned)
	if err := s.Unpin(a.VA+50, 1); err != nil {
		t.Fatal(err)
	}
	if !s.Contains(a.VA, 1) {
		t.Fatal("buffer gone after a refused Free")
	}
	if err := s.Free(a); err != nil {
		t.Fatalf("Free after the last Unpin: %v", err)
	}
}

// TestSpacesIsolated: two spaces of one Phys neither overlap nor see each
// other's buffers, and their buffers share no physical page.
func TestSpacesIsolated(t *testing.T) {
	p := newPhys(t, 8*MiB, PhysOptions{Seed: 13})
	s1 := newSpace(t, p, "one", 4*MiB)
	s2 := newSpace(t, p, "two", 4*MiB)
	lo1, n1 := s1.Range()
	lo2, n2 := s2.Range()
	if lo1 < lo2+n2 && lo2 < lo1+n1 {
		t.Fatalf("reservations overlap: [0x%x,+0x%x) [0x%x,+0x%x)", lo1, n1, lo2, n2)
	}
	b1 := mustAlloc(t, s1, 16*PageSize)
	b2 := mustAlloc(t, s2, 16*PageSize)
	copy(b1.Bytes, "one's secret")
	copy(b2.Bytes, "two's secret")
	for _, c := range []struct {
		s *Space
		b *Buffer
	}{{s1, b2}, {s2, b1}} {
		wantErr(t, c.s.Name()+" Translate", errOf(c.s.Translate(c.b.VA, 1)), ErrNotMapped)
		wantErr(t, c.s.Name()+" Pin", errOf(c.s.Pin(c.b.VA, 1)), ErrNotMapped)
		wantErr(t, c.s.Name()+" Unpin", c.s.Unpin(c.b.VA, 1), ErrNotMapped)
		wantErr(t, c.s.Name()+" Free", c.s.Free(c.b), ErrNotMapped)
		if c.s.Contains(c.b.VA, 1) {
			t.Errorf("%s contains the other's buffer", c.s.Name())
		}
	}
	seen := map[uint64]string{}
	for _, c := range []struct {
		name  string
		pages []uint64
	}{{"one", b1.Pages()}, {"two", b2.Pages()}} {
		for _, pa := range c.pages {
			if o, dup := seen[pa]; dup {
				t.Fatalf("page 0x%x in %s and %s", pa, o, c.name)
			}
			seen[pa] = c.name
		}
	}
	if string(b1.Bytes[:12]) != "one's secret" || string(b2.Bytes[:12]) != "two's secret" {
		t.Error("buffers of two spaces alias")
	}
	// Closing one leaves the other intact.
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	if string(b2.Bytes[:12]) != "two's secret" || !s2.Contains(b2.VA, 16*PageSize) {
		t.Error("closing one space disturbed the other")
	}
}

func TestAllocContig(t *testing.T) {
	const reserve = 3 * PageSize
	p := newPhys(t, 64*PageSize, PhysOptions{Seed: 17, Reserve: reserve})
	pa, err := p.AllocContig(8)
	if err != nil || pa != reserve {
		t.Fatalf("AllocContig(8) = 0x%x, %v; want 0x%x (first fit above the reserve)", pa, err, reserve)
	}
	// The kernel agent writes a page list through the physical view.
	pl, err := p.Bytes(pa, 8*PageSize)
	if err != nil {
		t.Fatal(err)
	}
	pl[8*PageSize-1] = 1
	// Fragment: take every free page, give back every other one.
	all, err := p.AllocScattered(p.Stats().Free)
	if err != nil {
		t.Fatal(err)
	}
	var back []uint64
	for _, q := range all {
		if (q/PageSize)%2 == 0 {
			back = append(back, q)
		}
	}
	if err := p.FreePages(back...); err != nil {
		t.Fatal(err)
	}
	free := p.Stats().Free
	_, err = p.AllocContig(2)
	wantErr(t, "AllocContig(2) when fragmented", err, ErrNoMemory)
	if err == nil || !strings.Contains(err.Error(), "largest free run is 1 pages") || !strings.Contains(err.Error(), fmt.Sprintf("%d free", free)) {
		t.Errorf("fragmented error %q does not give the figures", err)
	}
	if _, err := p.AllocContig(1); err != nil {
		t.Errorf("AllocContig(1) with free single pages: %v", err)
	}
	if err := p.FreeContig(pa, 8); err != nil {
		t.Fatal(err)
	}
	if got, err := p.AllocContig(8); err != nil || got != pa {
		t.Errorf("AllocContig(8) after FreeContig = 0x%x, %v; want 0x%x", got, err, pa)
	}
	_, err = p.AllocContig(1000)
	if !errors.Is(err, ErrNoMemory) || !strings.Contains(err.Error(), "asked 1000") {
		t.Errorf("AllocContig(1000): %v", err)
	}
}

// TestExhaustionAndRecovery: out of physical pages and out of addresses,
// with the figures in the error; everything works again after frees.
func TestExhaustionAndRecovery(t *testing.T) {
	p := newPhys(t, 1*MiB, PhysOptions{Seed: 19}) // 256 pages
	s := newSpace(t, p, "s", 8*MiB)
	var bufs []*Buffer
	for {
		b, err := s.Alloc(10 * PageSize)
		if err != nil {
			wantErr(t, "Alloc when full", err, ErrNoMemory)
			if !strings.Contains(err.Error(), "asked 10 pages, 6 free of 256") {
				t.Errorf("exhaustion error %q lacks the figures", err)
			}
			break
		}
		bufs = append(bufs, b)
	}
	if len(bufs) != 25 {
		t.Fatalf("%d buffers of 10 pages fit in 256 pages", len(bufs))
	}
	_, err := p.AllocScattered(7)
	wantErr(t, "AllocScattered when full", err, ErrNoMemory)
	b := mustAlloc(t, s, 6*PageSize) // the last 6 pages
	if st := p.Stats(); st.Free != 0 || st.Buffered != 256 {
		t.Fatalf("Stats when full: %+v", st)
	}
	if err := s.Free(b); err != nil {
		t.Fatal(err)
	}
	for _, b := range bufs {
		if err := s.Free(b); err != nil {
			t.Fatal(err)
		}
	}
	if st := p.Stats(); st.Free != 256 {
		t.Fatalf("after freeing all: %+v", st)
	}
	b = mustAlloc(t, s, 1*MiB) // all of it again
	b.Bytes[len(b.Bytes)-1] = 1
	if err := s.Free(b); err != nil {
		t.Fatal(err)
	}

	// Out of addresses: a 4-page reservation holds one 2-page buffer.
	small := newSpace(t, p, "small", 4*PageSize)
	mustAlloc(t, small, 2*PageSize)
	_, err = small.Alloc(1)
	wantErr(t, "Alloc in a full space", err, ErrNoMemory)
	if err == nil || !strings.Contains(err.Error(), `space "small"`) {
		t.Errorf("address exhaustion error %q does not name the space", err)
	}
	_, err = s.Alloc(0)
	wantErr(t, "Alloc(0)", err, ErrBadRange)
	_, err = s.Alloc(-5)
	wantErr(t, "Alloc(-5)", err, ErrBadRange)
	_, err = p.NewSpace("zero", 0)
	wantErr(t, "NewSpace of 0 bytes", err, ErrBadRange)
}

// TestRandomRounds: 1,000 random alloc / pin / unpin / free rounds on two
// spaces against a model; no page leaks.
func TestRandomRounds(t *testing.T) {
	p := newPhys(t, 1*MiB, PhysOptions{Seed: 23, Reserve: 64 * 1024})
	total := p.Stats().Total
	spaces := []*Space{newSpace(t, p, "a", 16*MiB), newSpace(t, p, "b", 16*MiB)}
	type live struct {
		s    *Space
		b    *Buffer
		pins map[int]int // page -> pins
		fill byte
	}
	var bufs []*live
	var allocs, full, refused int
	rng := rand.New(rand.NewPCG(4, 5))
	check := func(l *live) {
		for _, i := range []int{0, len(l.b.Bytes) / 2, len(l.b.Bytes) - 1} {
			if l.b.Bytes[i] != l.fill {
				t.Fatalf("buffer 0x%x byte %d = %d, want %d", l.b.VA, i, l.b.Bytes[i], l.fill)
			}
		}
		pa := l.b.Pages()[len(l.b.Bytes)/2/PageSize] + uint64(len(l.b.Bytes)/2%PageSize)
		if ph, _ := p.Bytes(pa, 1); ph[0] != l.fill {
			t.Fatalf("physical view of buffer 0x%x disagrees", l.b.VA)
		}
	}
	for round := 0; round < 1000; round++ {
		switch op := rng.IntN(10); {
		case op < 3 || len(bufs) == 0:
			s := spaces[rng.IntN(2)]
			n := 1 + rng.IntN(32*PageSize)
			b, err := s.Alloc(n)
			if err != nil {
				if !errors.Is(err, ErrNoMemory) {
					t.Fatal(err)
				}
				full++
				continue
			}
			allocs++
			l := &live{s: s, b: b, pins: map[int]int{}, fill: byte(round)}
			for i := range b.Bytes {
				b.Bytes[i] = l.fill
			}
			bufs = append(bufs, l)
		case op < 5:
			l := bufs[rng.IntN(len(bufs))]
			off := rng.IntN(len(l.b.Bytes))
			n := 1 + rng.IntN(len(l.b.Bytes)-off)
			pages, err := l.s.Pin(l.b.VA+uint64(off), n)
			if err != nil {
				t.Fatal(err)
			}
			all := l.b.Pages()
			for i := range pages {
				pg := off/PageSize + i
				if pages[i] != all[pg] {
					t.Fatal("Pin returned the wrong pages")
				}
				l.pins[pg]++
			}
		case op < 7:
			l := bufs[rng.IntN(len(bufs))]
			off := rng.IntN(len(l.b.Bytes))
			n := 1 + rng.IntN(len(l.b.Bytes)-off)
			first, last := off/PageSize, (off+n-1)/PageSize
			ok := true
			for pg := first; pg <= last; pg++ {
				ok = ok && l.pins[pg] > 0
			}
			err := l.s.Unpin(l.b.VA+uint64(off), n)
			if ok != (err == nil) || (!ok && !errors.Is(err, ErrNotPinned)) {
				t.Fatalf("Unpin: model says ok=%v, got %v", ok, err)
			}
			if ok {
				for pg := first; pg <= last; pg++ {
					if l.pins[pg]--; l.pins[pg] == 0 {
						delete(l.pins, pg)
					}
				}
			}
		default:
			i := rng.IntN(len(bufs))
			l := bufs[i]
			check(l)
			err := l.s.Free(l.b)
			if len(l.pins) > 0 {
				wantErr(t, "Free pinned", err, ErrPinned)
				refused++
				// Deregister: take every pin off, then free.
				for pg, c := range l.pins {
					for ; c > 0; c-- {
						if err := l.s.Unpin(l.b.VA+uint64(pg)*PageSize, 1); err != nil {
							t.Fatal(err)
						}
					}
				}
				l.pins = map[int]int{}
				err = l.s.Free(l.b)
			}
			if err != nil {
				t.Fatal(err)
			}
			bufs = append(bufs[:i], bufs[i+1:]...)
		}
	}
	pinned := 0
	for _, l := range bufs {
		check(l)
		pinned += len(l.pins)
	}
	st := spaces[0].Stats()
	st1 := spaces[1].Stats()
	t.Logf("1000 rounds: %d allocs, %d refused for lack of memory, %d frees refused as pinned; at the end %d buffers, %d pinned pages, phys %+v",
		allocs, full, refused, len(bufs), pinned, p.Stats())
	if full == 0 || refused == 0 {
		t.Errorf("the rounds never ran out of memory (%d) or never freed a pinned buffer (%d)", full, refused)
	}
	if st.Pinned+st1.Pinned != pinned || st.Buffers+st1.Buffers != len(bufs) {
		t.Fatalf("space stats %+v %+v disagree with the model (%d buffers, %d pinned)", st, st1, len(bufs), pinned)
	}
	if got := p.Stats(); got.Buffered != st.Pages+st1.Pages || got.Allocated != got.Buffered {
		t.Fatalf("phys %+v, spaces hold %d pages", got, st.Pages+st1.Pages)
	}
	for _, l := range bufs {
		for pg, c := range l.pins {
			for ; c > 0; c-- {
				if err := l.s.Unpin(l.b.VA+uint64(pg)*PageSize, 1); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := l.s.Free(l.b); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.Stats(); got.Free != total || got.Buffered != 0 {
		t.Fatalf("leaked pages: %+v", got)
	}
}

// TestWholeMemory: one buffer of every free page of a 256 MiB memfd. The
// memfd is sparse and only a few pages are touched.
func TestWholeMemory(t *testing.T) {
	const size = 256 * MiB
	start := time.Now()
	p := newPhys(t, size, PhysOptions{Seed: 29, Reserve: 1 * MiB})
	s := newSpace(t, p, "big", size+2*PageSize)
	free := p.Stats().Free
	b := mustAlloc(t, s, free*PageSize)
	pages := b.Pages()
	t.Logf("%d MiB buffer (%d pages) in %d runs, allocated and mapped in %v",
		len(b.Bytes)/MiB, len(pages), discontinuities(pages)+1, time.Since(start))
	if st := p.Stats(); st.Free != 0 || st.Buffered != free {
		t.Fatalf("Stats %+v", st)
	}
	seen := make([]bool, size/PageSize)
	for _, pa := range pages {
		if pa < 1*MiB || seen[pa/PageSize] {
			t.Fatalf("page 0x%x reserved or twice", pa)
		}
		seen[pa/PageSize] = true
	}
	tr, err := s.Translate(b.VA, len(b.Bytes))
	if err != nil || !slicesEqual(tr, pages) {
		t.Fatalf("Translate of the whole buffer: %d pages, %v", len(tr), err)
	}
	for _, i := range []int{0, 1, 4095, 4096, len(b.Bytes) / 3, len(b.Bytes) - 1} {
		b.Bytes[i] = byte(i) | 1
		ph, _ := p.Bytes(pages[i/PageSize]+uint64(i%PageSize), 1)
		if ph[0] != byte(i)|1 {
			t.Fatalf("byte %d not in its physical page", i)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.Free != free {
		t.Fatalf("after Close: %+v", st)
	}
}

func TestClose(t *testing.T) {
	p := newPhys(t, 4*MiB, PhysOptions{Seed: 31})
	s := newSpace(t, p, "s", 1*MiB)
	lo, _ := s.Range()
	b := mustAlloc(t, s, 5*PageSize)
	c := mustAlloc(t, s, PageSize)
	if _, err := s.Pin(b.VA+PageSize, 1); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Phys.Close with a space open", p.Close(), ErrInUse)
	wantErr(t, "Space.Close pinned", s.Close(), ErrPinned)
	if !s.Contains(b.VA, 5*PageSize) || c.Bytes == nil {
		t.Fatal("refused Close changed the space")
	}
	if err := s.Unpin(b.VA+PageSize, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if b.Bytes != nil || c.Bytes != nil {
		t.Error("Close left Bytes set")
	}
	if pm := perms(t, lo+PageSize); pm == "rw-s" {
		t.Error("buffer still mapped after Close")
	}
	if st := p.Stats(); st.Allocated != 0 || st.Spaces != 0 {
		t.Fatalf("after Close: %+v", st)
	}
	wantErr(t, "Close twice", s.Close(), ErrClosed)
	wantErr(t, "Alloc", errOf(s.Alloc(1)), ErrClosed)
	wantErr(t, "Free", s.Free(b), ErrClosed)
	wantErr(t, "Translate", errOf(s.Translate(b.VA, 1)), ErrClosed)
	wantErr(t, "Pin", errOf(s.Pin(b.VA, 1)), ErrClosed)
	wantErr(t, "Unpin", s.Unpin(b.VA, 1), ErrClosed)
	if s.Contains(b.VA, 1) {
		t.Error("closed space contains")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Phys.Close twice", p.Close(), ErrClosed)
	wantErr(t, "NewSpace", errOf(p.NewSpace("late", MiB)), ErrClosed)
	wantErr(t, "AllocScattered", errOf(p.AllocScattered(1)), ErrClosed)
	wantErr(t, "AllocContig", errOf(p.AllocContig(1)), ErrClosed)
	wantErr(t, "FreePages", p.FreePages(0), ErrClosed)
	wantErr(t, "Bytes", errOf(p.Bytes(0, 1)), ErrClosed)
}

// TestConcurrent: goroutines allocate, write, translate, pin and free in
// two spaces at once (run with -race).
func TestConcurrent(t *testing.T) {
	p := newPhys(t, 32*MiB, PhysOptions{Seed: 37})
	total := p.Stats().Total
	spaces := []*Space{newSpace(t, p, "a", 64*MiB), newSpace(t, p, "b", 64*MiB)}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			s := spaces[g%2]
			rng := rand.New(rand.NewPCG(uint64(g), 0))
			for i := 0; i < 200; i++ {
				n := 1 + rng.IntN(8*PageSize)
				b, err := s.Alloc(n)
				if err != nil {
					errs <- err
					return
				}
				for j := range b.Bytes {
					b.Bytes[j] = byte(g)
				}
				pages, err := s.Pin(b.VA, n)
				if err != nil {
					errs <- err
					return
				}
				ph, err := p.Bytes(pages[len(pages)-1], 1)
				if err != nil || ph[0] != byte(g) {
					errs <- fmt.Errorf("goroutine %d: physical view wrong (%v)", g, err)
					return
				}
				if other := spaces[1-g%2]; other.Contains(b.VA, 1) {
					errs <- fmt.Errorf("goroutine %d: other space contains my buffer", g)
					return
				}
				if err := s.Free(b); !errors.Is(err, ErrPinned) {
					errs <- fmt.Errorf("Free while pinned: %v", err)
					return
				}
				if err := s.Unpin(b.VA, n); err != nil {
					errs <- err
					return
				}
				if err := s.Free(b); err != nil {
					errs <- err
					return
				}
				_ = p.Stats()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := p.Stats(); st.Free != total {
		t.Fatalf("leak: %+v", st)
	}
}

// TestAllocMappingFails: when mapping a run fails (as when the process
// runs out of mappings, vm.max_map_count), Alloc undoes everything: the
// addresses are inaccessible again and the pages are free.
func TestAllocMappingFails(t *testing.T) {
	p := newPhys(t, 4*MiB, PhysOptions{Seed: 41})
	s := newSpace(t, p, "s", 1*MiB)
	lo, _ := s.Range()
	calls := 0
	mmapPages = func(fd int, off int64, addr unsafe.Pointer, n uintptr, prot, flags int) (unsafe.Pointer, error) {
		if calls++; calls == 5 {
			return nil, unix.ENOMEM
		}
		return unix.MmapPtr(fd, off, addr, n, prot, flags)
	}
	defer func() { mmapPages = unix.MmapPtr }()
	_, err := s.Alloc(16 * PageSize)
	wantErr(t, "Alloc with a failing mmap", err, ErrNoMemory)
	if err == nil || !strings.Contains(err.Error(), "max_map_count") {
		t.Errorf("error %q gives no hint", err)
	}
	if calls != 5 {
		t.Errorf("%d mmap calls, want 5", calls)
	}
	if pm := perms(t, lo+2*PageSize); pm != "---p" {
		t.Errorf("after the failed Alloc the addresses are %q, want ---p", pm)
	}
	if st := p.Stats(); st.Allocated != 0 || s.Stats().Buffers != 0 {
		t.Errorf("after the failed Alloc: %+v %+v", st, s.Stats())
	}
	mmapPages = func(int, int64, unsafe.Pointer, uintptr, int, int) (unsafe.Pointer, error) {
		return nil, unix.EACCES
	}
	_, err = s.Alloc(1)
	if err == nil || errors.Is(err, ErrNoMemory) || !errors.Is(err, unix.EACCES) {
		t.Errorf("Alloc with mmap failing EACCES: %v", err)
	}
	mmapPages = unix.MmapPtr
	b := mustAlloc(t, s, 16*PageSize)
	if b.VA != lo+PageSize {
		t.Errorf("Alloc after failures at 0x%x, want 0x%x", b.VA, lo+PageSize)
	}
}

// A space gets its addresses from its name: closed and made again under
// the same name it has the same range; another name has another one.
func TestSpaceAddressFromName(t *testing.T) {
	p := newPhys(t, 1<<20, PhysOptions{})
	a, err := p.NewSpace("app-node0", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	va, _ := a.Range()
	b, err := p.NewSpace("app-node1", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	vb, _ := b.Range()
	if va == vb {
		t.Fatalf("two spaces at %#x", va)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	a2, err := p.NewSpace("app-node0", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Close()
	defer b.Close()
	if v, _ := a2.Range(); v != va {
		t.Errorf("the same name again: %#x, first %#x", v, va)
	}
	if va < slotLo || va >= slotHi {
		t.Logf("the kernel did not take the hint (%#x): addresses are the kernel's", va)
	}
}

// TestSpaceAllocContig: a buffer of physically contiguous pages, mapped
// into the space like any other (the process writes it, "DMA" to its
// physical pages shows), counted and freed as a space buffer; a request
// no free run can hold fails with ErrNoMemory and leaves nothing behind.
func TestSpaceAllocContig(t *testing.T) {
	p := newPhys(t, 4*MiB, PhysOptions{Seed: 3, Reserve: 64 * 1024})
	s := newSpace(t, p, "c", 16*MiB)
	scattered := mustAlloc(t, s, 5*PageSize) // the contiguous run must skip nothing it needs
	b, err := s.AllocContig(8*PageSize + 1)
	if err != nil {
		t.Fatal(err)
	}
	pages := b.Pages()
	if len(pages) != 9 {
		t.Fatalf("%d pages, want 9", len(pages))
	}
	for i := 1; i < len(pages); i++ {
		if pages[i] != pages[0]+uint64(i)*PageSize {
			t.Fatalf("page %d at 0x%x, not after 0x%x", i, pages[i], pages[i-1])
		}
	}
	for i := range b.Bytes {
		b.Bytes[i] = byte(i * 13)
	}
	ph, err := p.Bytes(pages[0], len(b.Bytes))
	if err != nil {
		t.Fatal(err)
	}
	for i := range ph {
		if ph[i] != byte(i*13) {
			t.Fatalf("physical byte %d is %d, the buffer wrote %d", i, ph[i], byte(i*13))
		}
	}
	if tr, err := s.Translate(b.VA, len(b.Bytes)); err != nil || !slicesEqual(tr, pages) {
		t.Fatalf("Translate = %#x, %v; want %#x", tr, err, pages)
	}
	if st := p.Stats(); st.Buffered != 5+9 {
		t.Errorf("Buffered = %d, want 14", st.Buffered)
	}
	before := p.Stats()
	if _, err := s.AllocContig(4 * MiB); !errors.Is(err, ErrNoMemory) {
		t.Errorf("AllocContig of all memory: %v, want ErrNoMemory", err)
	}
	if after := p.Stats(); after != before {
		t.Errorf("a failed AllocContig changed the allocator: %+v -> %+v", before, after)
	}
	for _, x := range []*Buffer{b, scattered} {
		if err := s.Free(x); err != nil {
			t.Fatal(err)
		}
	}
	if st := p.Stats(); st.Buffered != 0 {
		t.Errorf("Buffered = %d after the frees", st.Buffered)
	}
}
