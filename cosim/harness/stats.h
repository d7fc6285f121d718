// stats.h: per-node activity counters, reported by STATS and SIGUSR1 as
// "key value" lines.
#pragma once

#include <cstdint>
#include <string>

namespace vianic {

struct NodeStats {
    uint64_t mmio_reads = 0;        // 32-bit AXI4-Lite reads completed
    uint64_t mmio_writes = 0;       // 32-bit AXI4-Lite writes completed
    uint64_t mmio_bus_errors = 0;   // of those, answered SLVERR/DECERR
    uint64_t refused = 0;           // accesses refused by the role check
    uint64_t dma_read_bytes = 0;    // bytes of OKAY read beats
    uint64_t dma_write_bytes = 0;   // bytes stored by write beats
    uint64_t dma_read_bursts = 0;
    uint64_t dma_write_bursts = 0;
    uint64_t dma_errors = 0;        // bursts answered SLVERR/DECERR
    uint64_t dma_faults = 0;        // accesses that faulted (memfd shrunk)
    uint64_t irqs = 0;              // rising edges of any irq output
    uint64_t busy_cycles = 0;       // cycles the node was evaluated
    uint64_t resets = 0;            // hard resets (RESET, detach)
};

// Appends the counters of one node as "nodeK.name value" lines; total is the
// number of cycles simulated (idle cycles = total - busy).
void append_node_stats(std::string* out, unsigned node, const NodeStats& s, uint64_t total_cycles);

}  // namespace vianic
