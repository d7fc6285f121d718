// stats.cpp: formatting of the per-node counters (see stats.h).
#include "stats.h"

#include <cstdio>

namespace vianic {

void append_node_stats(std::string* out, unsigned node, const NodeStats& s, uint64_t total_cycles) {
    char buf[1024];
    uint64_t idle = total_cycles > s.busy_cycles ? total_cycles - s.busy_cycles : 0;
    snprintf(buf, sizeof buf,
             "node%u.mmio_reads %llu\n"
             "node%u.mmio_writes %llu\n"
             "node%u.mmio_bus_errors %llu\n"
             "node%u.refused %llu\n"
             "node%u.dma_read_bytes %llu\n"
             "node%u.dma_write_bytes %llu\n"
             "node%u.dma_read_bursts %llu\n"
             "node%u.dma_write_bursts %llu\n"
             "node%u.dma_errors %llu\n"
             "node%u.dma_faults %llu\n"
             "node%u.irqs %llu\n"
             "node%u.resets %llu\n"
             "node%u.busy_cycles %llu\n"
             "node%u.idle_cycles %llu\n",
             node, (unsigned long long)s.mmio_reads, node, (unsigned long long)s.mmio_writes, node,
             (unsigned long long)s.mmio_bus_errors, node, (unsigned long long)s.refused, node,
             (unsigned long long)s.dma_read_bytes, node, (unsigned long long)s.dma_write_bytes, node,
             (unsigned long long)s.dma_read_bursts, node, (unsigned long long)s.dma_write_bursts, node,
             (unsigned long long)s.dma_errors, node, (unsigned long long)s.dma_faults, node,
             (unsigned long long)s.irqs, node, (unsigned long long)s.resets, node,
             (unsigned long long)s.busy_cycles, node, (unsigned long long)idle);
    *out += buf;
}

}  // namespace vianic
