// mmio_master.h: per-node MMIO master model. Drives via_nic's AXI4-Lite
// BAR0 slave from a FIFO of client operations, one transaction at a time, in
// order: a 64-bit access is two 32-bit accesses, low word first. A RESET
// request travels in the same FIFO so it happens after the accesses sent
// before it; the node runs it (hold_reset) and tells the master when done.
// A WAIT travels in it too, as a barrier: it begins (on_wait_reached) only
// once every access queued before it has completed on the bus, so a WAIT
// sent after a posted write sees that write's effect.
//
// Timing: drive() is called at the falling edge (outputs are set half a cycle
// before the rising edge that samples them), sample() right after that
// evaluation (the DUT's ready/valid as the rising edge will see them), edge()
// after the rising edge: a handshake is valid && ready as sampled, so the
// transfer is counted at the edge, as registered logic would. A read is
// answered (on_read_done, stamped with the edge's cycle) as soon as its last
// R beat is sampled: rready is always 1, so the beat is certain to transfer
// at that edge, and the client need not wait for the rising-edge evaluation.
// drive() writes the model's inputs only when they changed since the last
// drive (invalidate_drive() after something else drove them).
#pragma once

#include <cstdint>

#include "ring.h"

class Vvia_node;

namespace vianic {

struct NodeEvents;
struct NodeStats;
class TxLog;

struct MmioOp {
    enum Kind : uint8_t { kRead, kWrite, kReset, kWait, kCanceled };  // kCanceled: a read withdrawn by CANCEL
    Kind kind;
    uint8_t size;     // 4 or 8
    uint32_t offset;  // BAR0 byte offset
    uint64_t value;   // write data
    uint32_t client;  // origin connection
    uint32_t tag;     // of the message that carried it
};

class MmioMaster {
public:
    MmioMaster(unsigned node, NodeEvents* ev, TxLog* txlog, NodeStats* stats)
        : node_(node), ev_(ev), txlog_(txlog), stats_(stats) {}

    void push(const MmioOp& op);
    bool idle() const { return state_ == kIdle && q_.empty(); }
    size_t queued() const { return q_.size() + (state_ == kIdle ? 0 : 1); }
    // a READ or RESET is queued or in progress: its client waits for the
    // answer (with --quantum the nodes then meet every cycle)
    bool answer_due() const { return answers_due_ > 0; }

    void drive(Vvia_node* top);
    static void drive_quiet(Vvia_node* top);  // nothing valid (reset)
    void invalidate_drive() { dirty_ = true; }
    // edge_cycle: the cycle of the rising edge that follows
    void sample(const Vvia_node* top, uint64_t edge_cycle);
    void clear_sample();
    void edge(uint64_t cycle);

    // A RESET op reached the head: returns true once, with it.
    bool take_reset_request(MmioOp* op);
    // The node finished the reset requested by the current op.
    void reset_finished(uint64_t cycle);

    // Withdraws a read of client with tag that is queued and not yet on
    // the bus; false if there is none (it may be in flight).
    bool cancel_read(uint32_t client, uint32_t tag);

    // Drops every queued and in-flight operation (the node is detached and
    // goes into reset): reads are answered with DETACHED, waits dropped.
    void abort_all(uint64_t cycle);

private:
    enum State : uint8_t { kIdle, kWrite, kRead, kResetting };
    void start_next();
    void start_word();

    unsigned node_;
    NodeEvents* ev_;
    TxLog* txlog_;
    NodeStats* stats_;

    Ring<MmioOp> q_;
    State state_ = kIdle;
    MmioOp cur_{};
    unsigned phase_ = 0;       // word of a 64-bit access: 0 low, 1 high
    uint16_t status_ = 0;      // first non-OKAY response of the op
    uint32_t err_offset_ = 0;  // offset of that word
    uint64_t rd_value_ = 0;
    bool reset_req_ = false;
    bool answered_ = false;  // the current read was answered at its R sample
    unsigned answers_due_ = 0;  // READs and RESETs pushed and not yet answered

    // outputs
    bool awvalid_ = false, wvalid_ = false, arvalid_ = false;
    uint32_t addr_ = 0, wdata_ = 0;
    bool dirty_ = true;  // outputs changed since the last drive

    // handshakes sampled before the rising edge
    bool s_aw_ = false, s_w_ = false, s_b_ = false, s_ar_ = false, s_r_ = false;
    uint8_t s_bresp_ = 0, s_rresp_ = 0;
    uint32_t s_rdata_ = 0;
};

}  // namespace vianic
