// events.h: what a node's bus models (and the switch's register port) report to the server while cycles run
// (read answers, posted-write bus errors, reset completion, DMA writes for
// memory waits, interrupt changes). The server answers clients from here at
// once, in the middle of a cycle, so no answer waits for the end of a chunk.
#pragma once

#include <cstdint>

namespace vianic {

struct NodeEvents {
    virtual ~NodeEvents() = default;
    // A MMIO_READ finished (status: a READ_DATA status).
    virtual void on_read_done(unsigned node, uint32_t client, uint32_t tag, uint16_t status, uint64_t value,
                              uint64_t cycle) = 0;
    // A posted write got SLVERR/DECERR from the NIC.
    virtual void on_write_error(unsigned node, uint32_t client, uint32_t tag, uint32_t offset, unsigned resp,
                                uint64_t cycle) = 0;
    // A WAIT reached the head of the node's MMIO queue and begins now
    // (dropped: the queue was flushed by a detach instead).
    virtual void on_wait_reached(unsigned node, uint32_t client, uint32_t tag, bool dropped) = 0;
    // A RESET request has held the node in reset and released it.
    virtual void on_reset_done(unsigned node, uint32_t client, uint32_t tag, uint64_t cycle) = 0;
    // DMA stored [addr, addr+len) into the node's host memory.
    virtual void on_dma_write(unsigned node, uint64_t addr, uint64_t len) = 0;
    // An access to the switch's register port finished (value: what a read
    // returned).
    virtual void on_fabric_done(uint32_t client, uint32_t tag, bool write, uint32_t value, uint64_t cycle) = 0;
    // The node's irq outputs changed.
    virtual void on_irq(unsigned node, uint32_t old_vec, uint32_t new_vec, uint64_t cycle) = 0;
};

}  // namespace vianic
