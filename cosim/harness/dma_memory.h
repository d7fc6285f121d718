// dma_memory.h: per-node host memory model: the AXI4 slave that serves
// via_nic's DMA master from the node's memfd, with a latency and bandwidth
// model.
//
// - Reads: up to kMaxOutstanding bursts accepted, answered strictly in
//   order. The first R beat of a burst is transferred no earlier than
//   accept + read latency cycles; later beats as bandwidth allows.
// - Writes: AW accepted up to kMaxOutstanding bursts; W beats are taken for
//   the oldest burst (W is accepted only after its AW, which AXI allows);
//   each beat is stored to memory when it is accepted, with release ordering;
//   B no earlier than the last W beat + write latency.
// - Bandwidth: a byte-credit token bucket per direction; every cycle adds
//   bandwidth/clock bytes (capped at one cycle's worth or one beat, whichever
//   is more), every beat spends its bytes; a beat is offered (R) or accepted
//   (W) only with enough credit.
// - Bursts: INCR (the NIC's), FIXED and WRAP (len 2/4/8/16, aligned start)
//   are served; reserved burst type 3, a size wider than the bus or an
//   invalid WRAP get SLVERR. A burst any byte of which lies outside
//   [0, memory size), or any burst when no memory is attached, gets DECERR
//   on every beat and never touches memory; it is logged.
#pragma once

#include <cstdint>

#include "ring.h"

class Vvia_node;

namespace vianic {

struct NodeEvents;
struct NodeStats;
struct Options;
class TxLog;
class HostMemory;

class DmaMemory {
public:
    static constexpr size_t kMaxOutstanding = 16;
    static constexpr unsigned kMaxBusBytes = 64;

    DmaMemory(unsigned node, unsigned bus_bytes, const Options& o, HostMemory* mem, NodeEvents* ev, TxLog* txlog,
              NodeStats* stats);

    // drive() writes the model's inputs only when they changed since the
    // last drive (invalidate_drive() after something else drove them)
    void drive(Vvia_node* top);
    static void drive_quiet(Vvia_node* top);  // nothing ready, nothing valid (reset)
    void invalidate_drive() { dirty_ = true; }
    // sample() takes the handshakes the rising edge will see; with
    // late_rb, not those of R and B (rready and bready depend on the
    // inputs just driven, and the model was not evaluated since): the node
    // gives them after the edge with taken_rb() (via_node's dma_r_taken,
    // dma_b_taken), before edge()
    void sample(const Vvia_node* top, bool late_rb);
    void taken_rb(bool r, bool b) {
        s_r_ = r;
        s_b_ = b;
    }
    void clear_sample();
    void edge(uint64_t cycle);

    // No transaction accepted and unfinished.
    bool idle() const { return rq_.empty() && awq_.empty() && bq_.empty() && !rvalid_ && !bvalid_; }
    // Forget every transaction (the node is being reset).
    void drop_all();
    // The node slept for n cycles: credit as if they had been simulated.
    void skip_cycles(uint64_t n);

private:
    struct Burst {
        uint64_t addr;   // AxADDR
        uint32_t beats;  // AxLEN + 1
        uint8_t size;    // log2 bytes per beat
        uint8_t type;    // AxBURST
        uint8_t resp;    // 0, 2 SLVERR or 3 DECERR for the whole burst
        uint16_t id;
        uint64_t accept;  // edge of the address handshake
        uint64_t ready;   // earliest edge of the first R beat / of B
        uint32_t done;    // beats transferred
    };

    void accept(Burst* b, bool write, uint64_t cycle);
    uint64_t beat_addr(const Burst& b, uint32_t i) const;
    void present_read_beat(uint64_t cycle);
    void store_write_beat(Burst& b, uint64_t cycle);
    bool credit_ok(uint64_t credit, const Burst& b) const {
        return unlimited_ || credit >= (uint64_t(1) << b.size) * kUnit;
    }
    void refill(uint64_t* credit, uint64_t cycles) const;

    static constexpr uint64_t kUnit = 1000000;  // credit units per byte

    unsigned node_;
    unsigned bus_bytes_;
    HostMemory* mem_;
    NodeEvents* ev_;
    TxLog* txlog_;
    NodeStats* stats_;
    uint64_t rd_lat_, wr_lat_;
    bool unlimited_;
    uint64_t add_;  // credit per cycle
    uint64_t cap_;
    uint64_t rd_credit_, wr_credit_;
    unsigned logged_errors_ = 0;

    Ring<Burst> rq_;   // read bursts, in order
    Ring<Burst> awq_;  // write bursts waiting for (more) W beats
    Ring<Burst> bq_;   // write bursts with all data, waiting for B

    // outputs
    bool arready_ = true, awready_ = true, wready_ = false;
    bool rvalid_ = false, rlast_ = false;
    uint8_t rresp_ = 0;
    uint16_t rid_ = 0;
    uint8_t rdata_[kMaxBusBytes] = {};
    bool bvalid_ = false;
    uint8_t bresp_ = 0;
    uint16_t bid_ = 0;
    bool dirty_ = true;  // outputs changed since the last drive
    // idle(), and the outputs are the idle ones: cycles without a new
    // address handshake change nothing but the credit (fast path)
    bool quiet_ = true;

    // sampled before the rising edge
    bool s_ar_ = false, s_r_ = false, s_aw_ = false, s_w_ = false, s_b_ = false;
    Burst s_arb_{}, s_awb_{};
    uint8_t s_wdata_[kMaxBusBytes] = {};
    uint64_t s_wstrb_ = 0;
    bool s_wlast_ = false;
};

}  // namespace vianic
