// Package hostvm is the simulated host's virtual memory: physical pages
// taken from a node's memfd, and per-process address spaces whose buffers
// are virtually contiguous but physically scattered, exactly as a real
// host's are.
//
// # Physical memory
//
// A node's host memory is a memfd shared with the simulator, whose DMA
// model serves the NIC's AXI master from it: byte i of the memfd is host
// physical address i. Phys hands that memory out in 4 KiB pages
// (PageSize). Bytes at the bottom can be kept out of the allocator
// (PhysOptions.Reserve), for example for structures the simulator or the
// driver place there themselves. Phys.Bytes is the physical view: the whole
// memfd mapped once, MAP_SHARED, which is what the kernel agent writes page
// lists through and what tests read to check what the NIC wrote.
//
// Two allocators share the pages. AllocContig takes n physically contiguous
// pages (first fit), for things the NIC reads with plain physical
// addresses, such as the page lists of registered regions. AllocScattered
// takes n pages in a deterministic pseudo-random order (seeded by
// PhysOptions.Seed): a buffer made of them crosses a physical discontinuity
// at (almost) every page boundary, so the NIC's translation is exercised the
// way a long-running host exercises it, and a DMA engine that assumed
// contiguity would be caught. Large allocations are split into at most
// PhysOptions.ScatterRuns physically contiguous runs (1024 by default), so
// a buffer of up to ScatterRuns pages (4 MiB by default) is scattered page
// by page while a buffer of the whole memory needs a bounded number of
// mappings (the kernel limits a process's mappings, vm.max_map_count).
//
// # Address spaces
//
// A Space is one process's address space (one per process that opens the
// NIC; several per node). NewSpace reserves a range of virtual addresses in
// this Go process with an inaccessible, unbacked mapping (PROT_NONE,
// MAP_NORESERVE). Space.Alloc finds free addresses in it (first fit, page
// granular; buffers are separated from each other and from the ends of the
// reservation by at least one unmapped guard page), takes scattered
// physical pages and maps each physically contiguous run of them over the
// reservation with mmap(MAP_SHARED|MAP_FIXED) of the memfd. The buffer's
// virtual address (Buffer.VA) is therefore the real address of Buffer.Bytes
// in this process: writing the slice writes the memfd pages the NIC reads,
// and DMA writes of the NIC appear in the slice. Free puts the inaccessible
// reservation back over the buffer (so a stale pointer faults instead of
// reading someone else's page) and returns its pages to Phys.
//
// Each physically contiguous run of a buffer is one kernel mapping, and a
// process has a limited number of them (vm.max_map_count, 65530 by
// default). A buffer of up to ScatterRuns pages costs up to one per page, a
// larger one about ScatterRuns while physical memory is not fragmented.
// Handing out all of a large memory in small buffers can therefore reach
// the limit before the pages run out: Alloc then fails with ErrNoMemory
// (and a hint) and undoes what it did.
//
// Spaces are isolated: their reservations do not overlap, no physical page
// belongs to two buffers, and a Space answers Translate, Pin and Contains
// only for its own live buffers (ErrNotMapped otherwise). This is what lets
// the driver refuse to register memory a process does not own.
//
// # Translation and pinning
//
// Translate(va, n) returns the physical pages backing [va, va+n): entry i
// is the page holding virtual page (va &^ 0xFFF) + i*PageSize, which is the
// page-list format of registered regions. Every byte of the range must lie
// in one live buffer of the space (a range that crosses a guard gap, two
// buffers or a buffer's end is ErrNotMapped); a zero or negative length, or
// a range that wraps past 2**64, is ErrBadRange. A buffer's extent is its
// requested length, not its last page's end.
//
// Pin is Translate plus one more pin on each page of the range; Unpin
// takes one pin off each (ErrNotPinned if a page of the range has none).
// Pins nest and are counted per page. A buffer with any pinned page cannot
// be freed and a space with one cannot be closed (ErrPinned): while a region
// is registered with the NIC its pages keep their place, so a DMA never
// lands in a page that has been handed to someone else.
//
// # Concurrency and lifetime
//
// Phys and Space are safe for concurrent use. Lock order is Space, then
// Phys. The slice in Buffer.Bytes is valid until the buffer is freed or its
// space closed; Free sets Buffer.Bytes to nil, but a copy of the slice kept
// elsewhere then points at inaccessible memory and faults when touched.
// Phys keeps its own duplicate of the memfd descriptor, so the caller may
// close theirs after NewPhys; Phys.Close releases it once every space is
// closed.
//
// Layer: hostvm imports only the standard library and golang.org/x/sys/unix.
// It knows nothing of the NIC or the bridge: the driver (the kernel agent)
// and vipl build on it.
package hostvm
