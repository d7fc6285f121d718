package vipl

import (
	"context"
	"sync"
)

// fakeAgent is a KernelAgent in memory, for the unit tests of what vipl
// checks itself; the co-simulation tests use the real one.
type fakeAgent struct {
	attrs NicAttributes

	mu      sync.Mutex
	next    uint64
	bufs    map[uint64][]byte
	ptags   map[Ptag]bool
	regions map[MemHandle]MemAttributes
	nextH   MemHandle
	nextP   Ptag
	closed  bool
}

func newFakeAgent() *fakeAgent {
	return &fakeAgent{
		attrs: NicAttributes{Name: "fake", MaxSegmentsPerDesc: 4, MaxTransferSize: 1 << 16},
		next:  0x7000_0000_0000, bufs: map[uint64][]byte{}, ptags: map[Ptag]bool{}, regions: map[MemHandle]MemAttributes{},
	}
}

func (f *fakeAgent) QueryNic(context.Context) (NicAttributes, error) { return f.attrs, nil }

func (f *fakeAgent) CreatePtag(context.Context) (Ptag, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextP++
	f.ptags[f.nextP] = true
	return f.nextP, nil
}

func (f *fakeAgent) DestroyPtag(_ context.Context, p Ptag) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ptags[p] {
		return &Error{Op: "DestroyPtag", Code: InvalidPtag}
	}
	delete(f.ptags, p)
	return nil
}

func (f *fakeAgent) RegisterMem(_ context.Context, va uint64, length int, attrs MemAttributes) (MemHandle, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ptags[attrs.Ptag] {
		return 0, &Error{Op: "RegisterMem", Code: InvalidPtag}
	}
	f.nextH++
	f.regions[f.nextH] = attrs
	return f.nextH, nil
}

func (f *fakeAgent) DeregisterMem(_ context.Context, va uint64, h MemHandle) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.regions[h]; !ok {
		return &Error{Op: "DeregisterMem", Code: InvalidParameter}
	}
	delete(f.regions, h)
	return nil
}

func (f *fakeAgent) QueryMem(_ context.Context, va uint64, h MemHandle) (MemAttributes, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.regions[h]
	if !ok {
		return a, &Error{Op: "QueryMem", Code: InvalidParameter}
	}
	return a, nil
}

func (f *fakeAgent) SetMemAttributes(_ context.Context, va uint64, h MemHandle, attrs MemAttributes) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.regions[h] = attrs
	return nil
}

// Alloc hands out Go memory at made-up, page-aligned addresses: enough for
// the builder, which only needs VA and Bytes to agree.
func (f *fakeAgent) Alloc(_ context.Context, n int) (Mapping, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	va := f.next
	f.next += uint64(n+4095) &^ 4095
	f.bufs[va] = make([]byte, n)
	return Mapping{VA: va, Bytes: f.bufs[va]}, nil
}

func (f *fakeAgent) Free(_ context.Context, va uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.bufs, va)
	return nil
}

func (f *fakeAgent) Close(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

func (f *fakeAgent) CreateVi(_ context.Context, attrs ViAttributes) (ViID, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ptags[attrs.Ptag] {
		return 0, &Error{Op: "CreateVi", Code: InvalidPtag}
	}
	return 0, nil
}

func (f *fakeAgent) DestroyVi(context.Context, ViID) error { return nil }

func (f *fakeAgent) QueryVi(context.Context, ViID) (ViInfo, error) { return ViInfo{}, nil }

func (f *fakeAgent) SetViAttributes(context.Context, ViID, ViAttributes) error { return nil }
