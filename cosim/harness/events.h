// events.h: what a node's bus models (and the switch's register port) report to the server while cycles run
// (read answers, posted-write bus errors, reset completion, DMA writes for
// memory waits, interrupt changes). The server answers clients from here at
// once, in the middle of a cycle, so no answer waits for the end of a chunk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
    // A line of the firmware's log is complete (cycle: its first word's).
    virtual void on_fw_line(unsigned node, uint64_t cycle, const std::string& text) = 0;
};

// EventRelay stands between one node (or the switch) and the server. It
// passes every event on at once, or, while the nodes run a quantum on
// several threads (--quantum), keeps them with their cycle so that the
// server takes them on its own thread afterwards, in cycle order (replay).
// Events that carry no cycle of their own get cycle(), which the loop sets
// before each half cycle of its node.
class EventRelay : public NodeEvents {
public:
    EventRelay(NodeEvents* to, unsigned source) : to_(to), source_(source) {}

    unsigned source() const { return source_; }
    void set_buffering(bool on) { buffering_ = on; }
    void set_cycle(uint64_t c) { cycle_ = c; }
    bool empty() const { return recs_.empty(); }
    size_t size() const { return recs_.size(); }
    uint64_t cycle_of(size_t i) const { return recs_[i].cycle; }
    // passes record i on to `to`
    void replay(size_t i, NodeEvents* to) const;
    void clear() { recs_.clear(); }

    void on_read_done(unsigned node, uint32_t client, uint32_t tag, uint16_t status, uint64_t value,
                      uint64_t cycle) override;
    void on_write_error(unsigned node, uint32_t client, uint32_t tag, uint32_t offset, unsigned resp,
                        uint64_t cycle) override;
    void on_wait_reached(unsigned node, uint32_t client, uint32_t tag, bool dropped) override;
    void on_reset_done(unsigned node, uint32_t client, uint32_t tag, uint64_t cycle) override;
    void on_dma_write(unsigned node, uint64_t addr, uint64_t len) override;
    void on_fabric_done(uint32_t client, uint32_t tag, bool write, uint32_t value, uint64_t cycle) override;
    void on_irq(unsigned node, uint32_t old_vec, uint32_t new_vec, uint64_t cycle) override;
    void on_fw_line(unsigned node, uint64_t cycle, const std::string& text) override;

private:
    enum Kind : uint8_t { kReadDone, kWriteError, kWaitReached, kResetDone, kDmaWrite, kFabricDone, kIrq, kFwLine };
    struct Rec {
        Kind kind;
        bool flag;  // write (fabric), dropped (wait)
        uint16_t status;
        unsigned node;
        uint32_t client, tag, a, b;  // offset/resp, old/new irq vector
        uint64_t cycle, value, len;  // value: read value or DMA address
        std::string text;
    };
    Rec& add(Kind k, unsigned node, uint64_t cycle);

    NodeEvents* to_;
    const unsigned source_;
    bool buffering_ = false;
    uint64_t cycle_ = 0;
    std::vector<Rec> recs_;
};

}  // namespace vianic
