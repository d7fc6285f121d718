package hostvm_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log"

	"github.com/vianic/vianic/driver/hostvm"
	"golang.org/x/sys/unix"
)

// hostMemory makes a sparse memfd of size bytes, as the simulator's node
// memory is.
func hostMemory(size int64) int {
	fd, err := unix.MemfdCreate("host-memory", unix.MFD_CLOEXEC)
	if err != nil {
		log.Fatal(err)
	}
	if err := unix.Ftruncate(fd, size); err != nil {
		log.Fatal(err)
	}
	return fd
}

// A process's buffer: virtually contiguous, physically scattered, and the
// same bytes seen through the physical view the NIC uses.
func Example() {
	fd := hostMemory(16 << 20)
	defer unix.Close(fd)
	phys, err := hostvm.NewPhys(fd, 16<<20, hostvm.PhysOptions{Seed: 1, Reserve: 1 << 20})
	if err != nil {
		log.Fatal(err)
	}
	defer phys.Close()
	space, err := phys.NewSpace("process 1", 64<<20)
	if err != nil {
		log.Fatal(err)
	}
	defer space.Close()

	buf, err := space.Alloc(3 * hostvm.PageSize)
	if err != nil {
		log.Fatal(err)
	}
	// "hello" straddles the boundary between the buffer's first two pages.
	copy(buf.Bytes[hostvm.PageSize-2:], "hello")
	pages, err := space.Pin(buf.VA+hostvm.PageSize-2, 5)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("pages:", len(pages), "physically adjacent:", pages[1] == pages[0]+hostvm.PageSize)
	lo, _ := phys.Bytes(pages[0]+hostvm.PageSize-2, 2)
	hi, _ := phys.Bytes(pages[1], 3)
	fmt.Printf("physical view: %q + %q\n", lo, hi)

	err = space.Free(buf)
	fmt.Println("free while pinned:", errors.Is(err, hostvm.ErrPinned))
	if err := space.Unpin(buf.VA+hostvm.PageSize-2, 5); err != nil {
		log.Fatal(err)
	}
	fmt.Println("free after unpin:", space.Free(buf))
	// Output:
	// pages: 2 physically adjacent: false
	// physical view: "he" + "llo"
	// free while pinned: true
	// free after unpin: <nil>
}

// The kernel agent writes a region's page list (one little-endian physical
// address per page) into physically contiguous pages it owns.
func ExamplePhys_AllocContig() {
	fd := hostMemory(16 << 20)
	defer unix.Close(fd)
	phys, err := hostvm.NewPhys(fd, 16<<20, hostvm.PhysOptions{Seed: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer phys.Close()
	space, err := phys.NewSpace("process 1", 64<<20)
	if err != nil {
		log.Fatal(err)
	}
	defer space.Close()

	buf, err := space.Alloc(2 << 20) // 512 pages
	if err != nil {
		log.Fatal(err)
	}
	pages, err := space.Pin(buf.VA, len(buf.Bytes))
	if err != nil {
		log.Fatal(err)
	}
	n := (len(pages)*8 + hostvm.PageSize - 1) / hostvm.PageSize
	pl, err := phys.AllocContig(n)
	if err != nil {
		log.Fatal(err)
	}
	list, _ := phys.Bytes(pl, len(pages)*8)
	for i, pa := range pages {
		binary.LittleEndian.PutUint64(list[i*8:], pa)
	}
	fmt.Println("page list:", len(pages), "entries in", n, "contiguous page(s)")

	// Deregistration: the list goes, the pages are unpinned.
	if err := phys.FreeContig(pl, n); err != nil {
		log.Fatal(err)
	}
	if err := space.Unpin(buf.VA, len(buf.Bytes)); err != nil {
		log.Fatal(err)
	}
	fmt.Println("free:", space.Free(buf))
	// Output:
	// page list: 512 entries in 1 contiguous page(s)
	// free: <nil>
}

// Translate answers only for bytes inside this space's live buffers.
func ExampleSpace_Translate() {
	fd := hostMemory(4 << 20)
	defer unix.Close(fd)
	phys, err := hostvm.NewPhys(fd, 4<<20, hostvm.PhysOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer phys.Close()
	a, _ := phys.NewSpace("a", 1<<20)
	defer a.Close()
	b, _ := phys.NewSpace("b", 1<<20)
	defer b.Close()
	buf, err := a.Alloc(100)
	if err != nil {
		log.Fatal(err)
	}

	_, err = a.Translate(buf.VA, 100)
	fmt.Println("own buffer:", err)
	_, err = a.Translate(buf.VA+50, 51)
	fmt.Println("one byte past its end:", errors.Is(err, hostvm.ErrNotMapped))
	_, err = a.Translate(buf.VA, 0)
	fmt.Println("zero length:", errors.Is(err, hostvm.ErrBadRange))
	_, err = b.Translate(buf.VA, 1)
	fmt.Println("from another space:", errors.Is(err, hostvm.ErrNotMapped))
	// Output:
	// own buffer: <nil>
	// one byte past its end: true
	// zero length: true
	// from another space: true
}
