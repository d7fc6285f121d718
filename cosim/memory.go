package cosim

import (
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Memory is host memory shared with the simulator: a memfd mapped into
// this process. The simulator maps the same pages (AttachMemory), so DMA
// writes of the NIC appear in Bytes and host writes are seen by DMA reads.
//
// Plain accesses through Bytes are fine for data; for words the NIC and the
// host hand over to each other (status words, producer/consumer indexes),
// use the atomic Load/Store methods, which give the acquire/release
// ordering the harness's beat-by-beat release ordering pairs with.
type Memory struct {
	fd   int
	file *os.File
	mem  []byte
}

// NewMemory creates size bytes of zeroed host memory (rounded up to whole
// pages).
func NewMemory(size int) (*Memory, error) {
	if size <= 0 {
		return nil, fmt.Errorf("cosim: NewMemory: invalid size %d", size)
	}
	page := os.Getpagesize()
	size = (size + page - 1) / page * page
	fd, err := unix.MemfdCreate("vianic-host-memory", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("cosim: memfd_create: %w", err)
	}
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("cosim: ftruncate memfd to %d bytes: %w", size, err)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("cosim: mmap memfd: %w", err)
	}
	return &Memory{fd: fd, file: os.NewFile(uintptr(fd), "vianic-host-memory"), mem: mem}, nil
}

// Bytes returns the mapped memory; byte i is host physical address i. The
// slice is invalid after Close.
func (m *Memory) Bytes() []byte { return m.mem }

// Size returns the size in bytes.
func (m *Memory) Size() int { return len(m.mem) }

// File returns the memfd (for mapping it elsewhere, e.g. at fixed
// addresses). It is closed by Close.
func (m *Memory) File() *os.File { return m.file }

// Fd returns the memfd's descriptor number.
func (m *Memory) Fd() int { return m.fd }

func (m *Memory) word(off uint64, size uint64) unsafe.Pointer {
	if off%size != 0 || off >= uint64(len(m.mem)) || uint64(len(m.mem))-off < size {
		panic(fmt.Sprintf("cosim: Memory: %d-byte access at 0x%x is misaligned or outside 0x%x bytes", size, off, len(m.mem)))
	}
	return unsafe.Pointer(&m.mem[off])
}

// Load32 atomically loads the 32-bit word at off (4-byte aligned). It
// panics on a misaligned or out-of-range offset.
func (m *Memory) Load32(off uint64) uint32 { return atomic.LoadUint32((*uint32)(m.word(off, 4))) }

// Load64 atomically loads the 64-bit word at off (8-byte aligned).
func (m *Memory) Load64(off uint64) uint64 { return atomic.LoadUint64((*uint64)(m.word(off, 8))) }

// Store32 atomically stores v at off (4-byte aligned); earlier writes of
// this goroutine are visible before it.
func (m *Memory) Store32(off uint64, v uint32) { atomic.StoreUint32((*uint32)(m.word(off, 4)), v) }

// Store64 atomically stores v at off (8-byte aligned).
func (m *Memory) Store64(off uint64, v uint64) { atomic.StoreUint64((*uint64)(m.word(off, 8)), v) }

// Close unmaps the memory and closes the memfd. The simulator's own
// mapping (after AttachMemory) is not affected.
func (m *Memory) Close() error {
	if m.mem == nil {
		return nil
	}
	err := unix.Munmap(m.mem)
	m.mem = nil
	if cerr := m.file.Close(); err == nil {
		err = cerr
	}
	m.fd = -1
	return err
}
